//! `cargo xtask tidy`: the project's house rules, checked like tests.
//!
//! Each rule is a function with its own unit tests; this module finds the
//! files, decides which are test code, runs every rule and prints each
//! finding as `file:line: [rule] what` with a hint on the next line. Any
//! finding makes the command fail. The rules:
//!
//! - `browser-bindings`: web-sys, js-sys, wasm-bindgen and friends only in a
//!   crate's adapter files (the lists below);
//! - `file-length`: no non-test `.rs` or `.js` file over 800 lines;
//! - `function-length`: no non-test Rust function over 120 lines;
//! - `wire-string`: no wire error code or message type written out as a
//!   string outside the protocol's definition files and the generated JS;
//! - `generated-js`: the page constants are what `cargo xtask codegen` writes;
//! - `pub-mod`: no `pub mod` in the cdylib crates;
//! - `import-cycle`: no files of a crate that import each other in a loop.
//!
//! Test code is a test file (`tests.rs`, `*_tests.rs`, anything under a
//! `tests/` folder), a module declared under `#[cfg(test)]`, or an item
//! under `#[cfg(test)]` inside another file.

mod cycles;
mod finding;
mod modules;
mod rules;
mod wire_strings;

use crate::catalogue;
use crate::codegen::{self, GENERATED_PATH};
use crate::process::root;
use crate::scan::{self, SourceFile, rust};
use anyhow::{Result, bail};
use finding::Finding;
use modules::{CrateTree, Source};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use wire_strings::WireStrings;

/// worker-core: only the `chrome.*`, `fetch` and timer bindings.
const WORKER_CORE_ADAPTERS: &[&str] = &["src/wasm.rs"];
/// sidepanel: the wasm entry, the DOM helpers, the shell and the chat's DOM.
const SIDEPANEL_ADAPTERS: &[&str] = &["src/wasm.rs", "src/dom.rs", "src/shell/", "src/chat/view/"];
/// content-bridge and protocol are plain Rust: no adapter files.
const CONTENT_BRIDGE_ADAPTERS: &[&str] = &[];
const PROTOCOL_ADAPTERS: &[&str] = &[];

/// Adapter files per crate folder (paths inside the crate; `dir/` is a folder).
const ADAPTER_FILES: &[(&str, &[&str])] = &[
    ("crates/worker-core", WORKER_CORE_ADAPTERS),
    ("crates/sidepanel", SIDEPANEL_ADAPTERS),
    ("crates/content-bridge", CONTENT_BRIDGE_ADAPTERS),
    ("crates/protocol", PROTOCOL_ADAPTERS),
];

/// The crates built as cdylibs, whose modules stay private.
const CDYLIB_CRATES: &[&str] = &["crates/worker-core", "crates/sidepanel"];

/// The protocol files that define the wire strings (they write them out).
const DEFINITION_FILES: &[&str] = &["crates/protocol/src/codes.rs", "crates/protocol/src/message_type.rs"];

/// Folders of Rust code outside the crates: (folder, crate root files).
const OTHER_RUST: &[(&str, &[&str])] = &[("xtask", &["src/main.rs"]), ("fuzz", &[])];

/// Where the shipped JavaScript lives.
const JS_DIR: &str = "extension";

/// A Rust file and what tidy knows about it.
struct RustFile {
    source: SourceFile,
    /// The crate folder it belongs to (`crates/x`, `xtask`, `fuzz`).
    crate_dir: String,
    test: bool,
}

/// Every crate folder with its root files.
fn rust_crates(root: &Path) -> Result<Vec<(String, Vec<String>)>> {
    let mut crates = Vec::new();
    for entry in fs::read_dir(root.join("crates"))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            let dir = format!("crates/{}", entry.file_name().to_string_lossy());
            let roots: Vec<String> = ["src/lib.rs", "src/main.rs"]
                .iter()
                .filter(|r| root.join(&dir).join(r).is_file())
                .map(|r| (*r).to_owned())
                .collect();
            crates.push((dir, roots));
        }
    }
    crates.sort();
    for (dir, roots) in OTHER_RUST {
        crates.push(((*dir).to_owned(), roots.iter().map(|r| (*r).to_owned()).collect()));
    }
    Ok(crates)
}

/// The module tree of one crate, read from `files`.
fn crate_tree(crate_dir: &str, roots: &[String], files: &[SourceFile]) -> CrateTree {
    let by_path: BTreeMap<&str, &SourceFile> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    let roots: Vec<String> = roots.iter().map(|r| format!("{crate_dir}/{r}")).collect();
    let roots: Vec<&str> = roots.iter().map(String::as_str).collect();
    CrateTree::build(&roots, |wanted| {
        by_path.get(wanted).map(|file| Source {
            path: &file.path,
            text: &file.text,
        })
    })
}

/// Runs every rule over the workspace at `root`.
pub fn check(root: &Path) -> Result<Vec<Finding>> {
    let mut findings = Vec::new();
    let wire = WireStrings::new(catalogue::error_codes(), catalogue::message_types());
    let mut rust_files = Vec::new();
    for (crate_dir, roots) in rust_crates(root)? {
        let files = scan::files_under(root, &crate_dir, &[".rs"])?;
        let tree = crate_tree(&crate_dir, &roots, &files);
        if !roots.is_empty() {
            findings.extend(cycles::check(&tree));
        }
        for source in files {
            let test = source.is_test() || tree.files.get(&source.path).copied().unwrap_or(false);
            let crate_dir = crate_dir.clone();
            rust_files.push(RustFile {
                source,
                crate_dir,
                test,
            });
        }
    }
    for file in &rust_files {
        findings.extend(check_rust_file(file, &wire));
    }
    for file in scan::files_under(root, JS_DIR, &[".js", ".mjs"])? {
        if file.is_test() {
            continue;
        }
        findings.extend(rules::file_length(&file.path, &file.text));
        if file.path != GENERATED_PATH {
            findings.extend(wire.check_js(&file.path, &file.text));
        }
    }
    findings.extend(generated_js()?);
    findings.extend(stale_settings(root));
    findings.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));
    Ok(findings)
}

/// The rules that read one Rust file.
fn check_rust_file(file: &RustFile, wire: &WireStrings) -> Vec<Finding> {
    let path = file.source.path.as_str();
    let tokens = rust::tokenize(&file.source.text);
    let mut findings = Vec::new();
    if let Some((_, adapters)) = ADAPTER_FILES.iter().find(|(dir, _)| *dir == file.crate_dir) {
        let in_crate = path.strip_prefix(&format!("{}/", file.crate_dir)).unwrap_or(path);
        findings.extend(rules::bindings(path, in_crate, &tokens, adapters));
    }
    if file.test {
        return findings;
    }
    let mask = rust::test_mask(&tokens);
    findings.extend(rules::file_length(path, &file.source.text));
    findings.extend(rules::function_lengths(path, &tokens, &mask));
    if !DEFINITION_FILES.contains(&path) {
        findings.extend(wire.check_rust(path, &tokens, &mask));
    }
    if CDYLIB_CRATES.contains(&file.crate_dir.as_str()) {
        findings.extend(rules::pub_mods(path, &tokens, &mask));
    }
    findings
}

/// Rule `generated-js`: the committed page constants are current.
fn generated_js() -> Result<Option<Finding>> {
    Ok((!codegen::is_current()?).then(|| Finding {
        path: GENERATED_PATH.to_owned(),
        line: 1,
        rule: "generated-js",
        message: "differs from what the protocol crate generates".to_owned(),
        hint: "run `cargo xtask codegen` and commit the result".to_owned(),
    }))
}

/// The lists above name files; a renamed file must not silently drop out.
fn stale_settings(root: &Path) -> Vec<Finding> {
    let mut named: Vec<String> = DEFINITION_FILES.iter().map(|f| (*f).to_owned()).collect();
    for (dir, adapters) in ADAPTER_FILES {
        named.extend(adapters.iter().map(|a| format!("{dir}/{a}")));
    }
    named
        .into_iter()
        .filter(|path| !root.join(path).exists())
        .map(|path| Finding {
            path: "xtask/src/tidy/mod.rs".to_owned(),
            line: 1,
            rule: "tidy-settings",
            message: format!("{path} is listed but does not exist"),
            hint: "update the adapter or definition file lists to the renamed files".to_owned(),
        })
        .collect()
}

/// The crate (or top folder) a path belongs to, for the summary.
fn place(path: &str) -> &str {
    let mut parts = path.split('/');
    match parts.next() {
        Some("crates") => parts.next().unwrap_or("crates"),
        Some(top) => top,
        None => path,
    }
}

fn print(findings: &[Finding]) {
    for finding in findings {
        println!(
            "{}:{}: [{}] {}\n    hint: {}",
            finding.path, finding.line, finding.rule, finding.message, finding.hint
        );
    }
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for finding in findings {
        *counts.entry((finding.rule, place(&finding.path))).or_default() += 1;
    }
    if !counts.is_empty() {
        println!("\nfindings by rule and place:");
        for ((rule, place), count) in counts {
            println!("  {rule:<18} {place:<16} {count}");
        }
    }
}

pub fn tidy() -> Result<()> {
    let findings = check(&root())?;
    print(&findings);
    if !findings.is_empty() {
        bail!("tidy found {} problem(s)", findings.len());
    }
    println!("tidy: every rule holds");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_lists_name_existing_files() {
        assert_eq!(stale_settings(&root()), Vec::new());
    }

    #[test]
    fn test_modules_of_a_crate_tree_are_test_code() {
        let files = vec![
            SourceFile {
                path: "crates/x/src/lib.rs".to_owned(),
                text: "mod a;\n#[cfg(test)]\nmod fakes;".to_owned(),
            },
            SourceFile {
                path: "crates/x/src/a.rs".to_owned(),
                text: String::new(),
            },
            SourceFile {
                path: "crates/x/src/fakes.rs".to_owned(),
                text: String::new(),
            },
        ];
        let tree = crate_tree("crates/x", &["src/lib.rs".to_owned()], &files);
        assert_eq!(tree.files.get("crates/x/src/fakes.rs"), Some(&true));
        assert_eq!(tree.files.get("crates/x/src/a.rs"), Some(&false));
    }
}
