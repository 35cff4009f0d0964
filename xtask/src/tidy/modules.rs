//! A crate's module tree, read from its sources: which file holds which
//! module, which files are compiled for tests only, what each module
//! imports, and where a path such as `crate::runs::state::RunContext`
//! leads. The import-cycle rule builds its file graph from this.
//!
//! It follows `mod` declarations from `src/lib.rs` / `src/main.rs` (with
//! `#[path]` and inline `mod x { … }`), `use` trees (`crate::`, `self::`,
//! `super::`, child modules, groups, renames, globs) and paths in code. A
//! name imported through a re-export resolves to the file that defines it,
//! so a curated `pub use` at a crate root is not an import of the root.

use crate::scan::rust::{self, Kind, Token};
use std::collections::{BTreeMap, BTreeSet};

/// A module path below the crate root (`[]` is the root).
pub type ModPath = Vec<String>;

/// One module: its file and the names it holds.
#[derive(Debug, Default)]
pub struct Module {
    pub file: String,
    pub children: BTreeSet<String>,
    /// `use` bindings: name → absolute path, or `None` for another crate.
    pub uses: BTreeMap<String, Option<ModPath>>,
    pub globs: Vec<ModPath>,
    pub defined: BTreeSet<String>,
}

/// A path written in non-test code of a file, made absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub file: String,
    pub line: usize,
    pub path: ModPath,
}

/// A crate's modules, its files, and the local paths its code names.
#[derive(Debug, Default)]
pub struct CrateTree {
    pub modules: BTreeMap<ModPath, Module>,
    /// Every file of the tree: whether it is compiled for tests only.
    pub files: BTreeMap<String, bool>,
    pub references: Vec<Reference>,
}

const ITEM_KEYWORDS: &[&str] = &["fn", "struct", "enum", "trait", "type", "const", "static", "union"];

/// One entry of a `use` tree: the path as written and the name it binds
/// (`None` for a glob, `Some("_")` for an anonymous import).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseEntry {
    pub path: Vec<String>,
    pub binding: Option<String>,
}

/// Parses the `use` tree in `tokens[start..end]` (after `use`, before `;`).
pub fn parse_use(tokens: &[Token], start: usize, end: usize) -> Vec<UseEntry> {
    let mut entries = Vec::new();
    let mut i = start;
    if tokens.get(i).is_some_and(|t| t.is_punct("::")) {
        i += 1;
    }
    parse_tree(tokens, &mut i, end, Vec::new(), &mut entries);
    entries
}

fn parse_tree(tokens: &[Token], i: &mut usize, end: usize, prefix: Vec<String>, out: &mut Vec<UseEntry>) {
    let mut path = prefix;
    while *i < end {
        let token = &tokens[*i];
        if token.kind == Kind::Ident || token.is_punct("$") {
            if token.is_punct("$") {
                *i += 1;
            }
            path.push(tokens.get(*i).map(|t| t.text.clone()).unwrap_or_default());
            *i += 1;
            if tokens.get(*i).is_some_and(|t| t.is_punct("::")) {
                *i += 1;
                continue;
            }
            let mut binding = path.last().cloned();
            if tokens.get(*i).is_some_and(|t| t.is_ident("as")) {
                binding = tokens.get(*i + 1).map(|t| t.text.clone());
                *i += 2;
            }
            if path.last().map(String::as_str) == Some("self") {
                path.pop();
                if binding.as_deref() == Some("self") {
                    binding = path.last().cloned();
                }
            }
            out.push(UseEntry { path, binding });
            return;
        }
        if token.is_punct("*") {
            *i += 1;
            out.push(UseEntry { path, binding: None });
            return;
        }
        if token.is_punct("{") {
            let close = rust::matching(tokens, *i).min(end);
            *i += 1;
            while *i < close {
                parse_tree(tokens, i, close, path.clone(), out);
                while *i < close && !tokens[*i].is_punct(",") {
                    *i += 1;
                }
                *i += 1;
            }
            *i = close + 1;
            return;
        }
        return;
    }
}

/// Where the files of a module's `mod x;` children live.
fn child_dir(file: &str, inline: &[String]) -> String {
    let (dir, name) = file.rsplit_once('/').unwrap_or(("", file));
    let stem = name.trim_end_matches(".rs");
    let mut base = if matches!(stem, "lib" | "main" | "mod") {
        dir.to_owned()
    } else {
        format!("{dir}/{stem}")
    };
    for part in inline {
        base = format!("{base}/{part}");
    }
    base
}

/// A `mod` declaration whose file is still to be read.
struct Pending {
    file: String,
    module: ModPath,
    test_only: bool,
}

/// What reading one file found, before the whole tree is known.
struct FileScan {
    /// Paths as written: (module it is written in, path, line).
    paths: Vec<(ModPath, Vec<String>, usize)>,
    declared: Vec<Pending>,
}

/// The contents of one source file.
pub struct Source<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

/// The state of reading one file, token by token.
struct Walk<'t> {
    file: &'t str,
    module: &'t [String],
    test_only: bool,
    tokens: &'t [Token],
    mask: Vec<bool>,
    /// Open inline modules: (name, index of the closing brace, brace depth inside).
    inline: Vec<(String, usize, usize)>,
    depth: usize,
    /// A `#[path = "…"]` waiting for its `mod`.
    path_attribute: Option<String>,
    scan: FileScan,
}

impl Walk<'_> {
    /// The module the token at `i` is written in.
    fn current(&mut self, i: usize) -> (ModPath, Vec<String>) {
        while self.inline.last().is_some_and(|(_, end, _)| *end < i) {
            self.inline.pop();
        }
        let names: Vec<String> = self.inline.iter().map(|(n, _, _)| n.clone()).collect();
        (
            self.module.iter().cloned().chain(names.iter().cloned()).collect(),
            names,
        )
    }

    /// Handles the token at `i`; returns the index of the next one to read.
    fn step(&mut self, tree: &mut CrateTree, i: usize) -> usize {
        let tokens = self.tokens;
        let (current, names) = self.current(i);
        let token = &tokens[i];
        if token.is_punct("#") {
            return self.attribute(i);
        }
        if token.is_punct("{") {
            self.depth += 1;
        } else if token.is_punct("}") {
            self.depth = self.depth.saturating_sub(1);
        }
        let name = tokens.get(i + 1).filter(|t| t.kind == Kind::Ident);
        if token.is_ident("mod")
            && let Some(name) = name
        {
            return self.declaration(tree, i, &current, &names, &name.text);
        }
        if token.is_ident("use") {
            return self.use_statement(tree, i, &current);
        }
        let module_depth = self.inline.last().map_or(0, |(_, _, d)| *d);
        let item = ITEM_KEYWORDS.contains(&token.text.as_str()) && token.kind == Kind::Ident;
        let defined = if item && self.depth == module_depth {
            name
        } else if token.is_ident("macro_rules") {
            tokens.get(i + 2).filter(|t| t.kind == Kind::Ident)
        } else {
            None
        };
        if let Some(defined) = defined {
            tree.module_mut(&current, self.file)
                .defined
                .insert(defined.text.clone());
        }
        if !self.test_only
            && !self.mask[i]
            && let Some((path, next)) = code_path(tokens, i)
        {
            self.scan.paths.push((current, path, token.line));
            return next;
        }
        if !matches!(token.text.as_str(), "pub" | "(" | ")" | "crate" | "super" | "in") {
            self.path_attribute = None;
        }
        i + 1
    }

    /// `#[…]` or `#![…]`: remembers `#[path = "…"]` for the next `mod`.
    fn attribute(&mut self, i: usize) -> usize {
        let tokens = self.tokens;
        let open = i + 1 + usize::from(tokens.get(i + 1).is_some_and(|t| t.is_punct("!")));
        let close = rust::matching(tokens, open);
        if let [name, eq, value] = tokens.get(open + 1..close).unwrap_or_default()
            && name.is_ident("path")
            && eq.is_punct("=")
            && value.kind == Kind::Str
        {
            self.path_attribute = Some(value.text.clone());
        }
        close + 1
    }

    /// `mod name;` (a file to read) or `mod name { … }` (an inline module).
    fn declaration(
        &mut self,
        tree: &mut CrateTree,
        i: usize,
        current: &[String],
        names: &[String],
        name: &str,
    ) -> usize {
        tree.module_mut(current, self.file).children.insert(name.to_owned());
        let mut child = current.to_vec();
        child.push(name.to_owned());
        let path_attribute = self.path_attribute.take();
        if self.tokens.get(i + 2).is_some_and(|t| t.is_punct("{")) {
            tree.module_mut(&child, self.file);
            self.depth += 1;
            self.inline
                .push((name.to_owned(), rust::matching(self.tokens, i + 2), self.depth));
            return i + 3;
        }
        let files = match path_attribute {
            Some(explicit) => {
                let dir = self.file.rsplit_once('/').map_or("", |(d, _)| d);
                vec![format!("{dir}/{explicit}")]
            }
            None => {
                let dir = child_dir(self.file, names);
                vec![format!("{dir}/{name}.rs"), format!("{dir}/{name}/mod.rs")]
            }
        };
        let test_only = self.test_only || self.mask[i];
        for file in files {
            self.scan.declared.push(Pending {
                file,
                module: child.clone(),
                test_only,
            });
        }
        i + 2
    }

    /// A `use` statement: its bindings, and its paths as references.
    fn use_statement(&mut self, tree: &mut CrateTree, i: usize, current: &[String]) -> usize {
        let tokens = self.tokens;
        let end = (i..tokens.len())
            .find(|&j| tokens[j].is_punct(";"))
            .unwrap_or(tokens.len());
        let live = !self.test_only && !self.mask[i];
        for entry in parse_use(tokens, i + 1, end) {
            tree.bind(current, &entry);
            if live {
                self.scan.paths.push((current.to_vec(), entry.path, tokens[i].line));
            }
        }
        self.path_attribute = None;
        end + 1
    }
}

impl CrateTree {
    /// Reads the tree from `roots` (the crate root files) through `read`,
    /// which returns a file's text, or `None` when the file does not exist.
    pub fn build<'a>(roots: &[&str], read: impl Fn(&str) -> Option<Source<'a>>) -> CrateTree {
        let mut tree = CrateTree::default();
        let mut queue: Vec<Pending> = roots
            .iter()
            .map(|root| Pending {
                file: (*root).to_owned(),
                module: Vec::new(),
                test_only: false,
            })
            .collect();
        let mut written = Vec::new();
        while let Some(next) = queue.pop() {
            let Some(source) = read(&next.file) else { continue };
            if tree.files.contains_key(source.path) {
                continue;
            }
            tree.files.insert(source.path.to_owned(), next.test_only);
            let scan = tree.read_file(source.path, source.text, &next.module, next.test_only);
            written.extend(scan.paths.into_iter().map(|p| (source.path.to_owned(), p)));
            queue.extend(scan.declared);
        }
        for (file, (module, path, line)) in written {
            if let Some(absolute) = tree.absolute(&module, &path) {
                tree.references.push(Reference {
                    file,
                    line,
                    path: absolute,
                });
            }
        }
        tree
    }

    fn module_mut(&mut self, path: &[String], file: &str) -> &mut Module {
        self.modules.entry(path.to_vec()).or_insert_with(|| Module {
            file: file.to_owned(),
            ..Module::default()
        })
    }

    /// Registers the modules, declarations, uses and definitions of a file.
    fn read_file(&mut self, file: &str, text: &str, module: &[String], test_only: bool) -> FileScan {
        let tokens = rust::tokenize(text);
        let mut walk = Walk {
            file,
            module,
            test_only,
            mask: rust::test_mask(&tokens),
            tokens: &tokens,
            inline: Vec::new(),
            depth: 0,
            path_attribute: None,
            scan: FileScan {
                paths: Vec::new(),
                declared: Vec::new(),
            },
        };
        self.module_mut(module, file);
        let mut i = 0;
        while i < tokens.len() {
            i = walk.step(self, i);
        }
        walk.scan
    }

    /// Records a `use` entry's binding in `module` (relative paths are made
    /// absolute later, when every module is known).
    fn bind(&mut self, module: &[String], entry: &UseEntry) {
        let Some(target) = self.modules.get_mut(module) else {
            return;
        };
        match &entry.binding {
            Some(name) if name != "_" => {
                target.uses.insert(name.clone(), Some(entry.path.clone()));
            }
            Some(_) => {}
            None => target.globs.push(entry.path.clone()),
        }
    }

    /// `written` (in `module`) as an absolute path, or `None` when it names
    /// another crate. Paths in code resolve through `use` bindings as well.
    pub fn absolute(&self, module: &[String], written: &[String]) -> Option<ModPath> {
        self.absolute_at(module, written, 0)
    }

    fn absolute_at(&self, module: &[String], written: &[String], depth: usize) -> Option<ModPath> {
        let (first, rest) = written.split_first()?;
        let rest = rest.to_vec();
        let here = self.modules.get(module);
        match first.as_str() {
            "crate" => Some(rest),
            "self" => Some(module.iter().cloned().chain(rest).collect()),
            "super" => {
                let mut base = module.to_vec();
                base.pop();
                let mut remaining = rest.as_slice();
                while remaining.first().map(String::as_str) == Some("super") {
                    base.pop();
                    remaining = &remaining[1..];
                }
                Some(base.into_iter().chain(remaining.iter().cloned()).collect())
            }
            name if here.is_some_and(|m| m.children.contains(name)) => {
                Some(module.iter().cloned().chain(written.iter().cloned()).collect())
            }
            name if depth < 16 => {
                let bound = here?.uses.get(name)?.as_ref()?;
                // A `use` binding written relative to its own module.
                let target = self.absolute_at(module, bound, depth + 1)?;
                Some(target.into_iter().chain(rest).collect())
            }
            _ => None,
        }
    }

    /// The file that defines what `path` names, and the name that led there:
    /// through child modules, then through `use` bindings and globs to the
    /// definition.
    pub fn resolve(&self, path: &[String]) -> Option<(String, String)> {
        self.resolve_at(path, 0)
    }

    fn resolve_at(&self, path: &[String], depth: usize) -> Option<(String, String)> {
        let mut module: ModPath = Vec::new();
        for (index, segment) in path.iter().enumerate() {
            let here = self.modules.get(&module)?;
            let found_here = || Some((here.file.clone(), segment.clone()));
            if here.children.contains(segment) {
                module.push(segment.clone());
                continue;
            }
            if here.defined.contains(segment) || depth >= 16 {
                return found_here();
            }
            let rest = &path[index + 1..];
            if let Some(bound) = here.uses.get(segment) {
                let Some(target) = bound.as_ref().and_then(|b| self.absolute(&module, b)) else {
                    return found_here();
                };
                let full: ModPath = target.into_iter().chain(rest.iter().cloned()).collect();
                return self.resolve_at(&full, depth + 1).or_else(found_here);
            }
            for glob in &here.globs {
                let Some(base) = self.absolute(&module, glob) else {
                    continue;
                };
                let holds = self.modules.get(&base).is_some_and(|m| {
                    m.children.contains(segment) || m.defined.contains(segment) || m.uses.contains_key(segment)
                });
                if holds {
                    let full: ModPath = base.into_iter().chain(path[index..].iter().cloned()).collect();
                    return self.resolve_at(&full, depth + 1);
                }
            }
            return found_here();
        }
        let file = self.modules.get(&module)?.file.clone();
        Some((file, module.last().cloned().unwrap_or_default()))
    }
}

/// A path in code starting at `at` (`a::b::c`, not preceded by `::`, `.`):
/// its segments and the index after it.
fn code_path(tokens: &[Token], at: usize) -> Option<(Vec<String>, usize)> {
    let mut i = at;
    let mut segments = Vec::new();
    if tokens.get(i)?.is_punct("$") && tokens.get(i + 1)?.is_ident("crate") {
        i += 1;
    }
    let first = tokens.get(i)?;
    if first.kind != Kind::Ident || !tokens.get(i + 1)?.is_punct("::") {
        return None;
    }
    let previous = at.checked_sub(1).and_then(|p| tokens.get(p));
    if previous.is_some_and(|p| p.is_punct("::") || p.is_punct(".")) || first.text == "Self" {
        return None;
    }
    while let Some(token) = tokens.get(i).filter(|t| t.kind == Kind::Ident) {
        segments.push(token.text.clone());
        i += 1;
        if !tokens.get(i).is_some_and(|t| t.is_punct("::")) {
            break;
        }
        i += 1;
    }
    Some((segments, i))
}

#[cfg(test)]
#[path = "modules_tests.rs"]
mod tests;
