//! Rule `import-cycle`: no file imports a file that (directly or through
//! others) imports it. The graph is a crate's files with an arrow for every
//! path its non-test code names in another file of the crate (see
//! [`super::modules`]); every strongly connected group of two or more files
//! is one finding that lists the files and the arrows between them.

use super::finding::Finding;
use super::modules::CrateTree;
use std::collections::{BTreeMap, BTreeSet};

/// Arrows between files: importer → imported → (first line, names taken).
pub type Graph = BTreeMap<String, BTreeMap<String, (usize, BTreeSet<String>)>>;

/// The file graph of one crate (test-only files and self-references left out).
pub fn graph(tree: &CrateTree) -> Graph {
    let mut graph = Graph::new();
    for reference in &tree.references {
        if tree.files.get(&reference.file).copied().unwrap_or(true) {
            continue;
        }
        let Some((target, name)) = tree.resolve(&reference.path) else {
            continue;
        };
        if target == reference.file || tree.files.get(&target).copied().unwrap_or(true) {
            continue;
        }
        let arrow = graph
            .entry(reference.file.clone())
            .or_default()
            .entry(target)
            .or_insert((reference.line, BTreeSet::new()));
        arrow.0 = arrow.0.min(reference.line);
        arrow.1.insert(name);
    }
    graph
}

/// Tarjan's algorithm: the strongly connected components with more than one
/// file, each sorted, in the order of their first file.
pub fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(state: &mut State<'g>, node: &'g str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        let graph = state.graph;
        for target in graph.get(node).into_iter().flat_map(|arrows| arrows.keys()) {
            let target = target.as_str();
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[target].min(state.low[node]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.index[target].min(state.low[node]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.to_owned());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found.sort();
    state.found
}

/// One finding per cycle of the crate's file graph.
pub fn check(tree: &CrateTree) -> Vec<Finding> {
    let graph = graph(tree);
    cycles(&graph)
        .into_iter()
        .map(|files| {
            let members: BTreeSet<&String> = files.iter().collect();
            let mut arrows = Vec::new();
            let mut line = 1;
            for from in &files {
                for (to, (at, names)) in graph.get(from).into_iter().flatten() {
                    if members.contains(to) {
                        if from == &files[0] && arrows.is_empty() {
                            line = *at;
                        }
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        arrows.push(format!("{from}:{at} -> {to} ({})", names.join(", ")));
                    }
                }
            }
            Finding {
                path: files[0].clone(),
                line,
                rule: "import-cycle",
                message: format!("{} files import each other: {}", files.len(), files.join(", ")),
                hint: format!(
                    "move what both sides need into a file both may import, or invert one arrow:\n      {}",
                    arrows.join("\n      ")
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tidy::modules::Source;

    fn tree(files: &[(&'static str, &'static str)]) -> CrateTree {
        let files = files.to_vec();
        CrateTree::build(&["src/lib.rs"], move |wanted| {
            files
                .iter()
                .find(|(path, _)| *path == wanted)
                .map(|(path, text)| Source { path, text })
        })
    }

    #[test]
    fn a_cycle_through_three_files_is_one_finding() {
        let crate_tree = tree(&[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;"),
            ("src/a.rs", "use crate::b::B;\npub struct A;"),
            ("src/b.rs", "pub struct B;\nfn f() { crate::c::C; }"),
            ("src/c.rs", "pub struct C;\nuse super::a::A;"),
            ("src/d.rs", "use crate::a::A;"),
        ]);
        let findings = check(&crate_tree);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].path, "src/a.rs");
        assert_eq!(findings[0].line, 1);
        assert!(findings[0].message.contains("src/a.rs, src/b.rs, src/c.rs"));
        assert!(
            findings[0].hint.contains("src/c.rs:2 -> src/a.rs (A)"),
            "{}",
            findings[0].hint
        );
    }

    #[test]
    fn a_root_reexport_and_its_users_are_no_cycle() {
        let crate_tree = tree(&[
            ("src/lib.rs", "mod a;\nmod b;\npub use a::A;"),
            ("src/a.rs", "pub struct A;"),
            ("src/b.rs", "use crate::A;"),
        ]);
        assert!(check(&crate_tree).is_empty());
    }

    #[test]
    fn test_files_do_not_close_a_cycle() {
        let crate_tree = tree(&[
            ("src/lib.rs", "mod a;\n#[cfg(test)]\nmod fakes;"),
            (
                "src/a.rs",
                "pub struct A;\n#[cfg(test)]\nmod tests { use crate::fakes::F; }",
            ),
            ("src/fakes.rs", "use crate::a::A;\npub struct F;"),
        ]);
        assert!(check(&crate_tree).is_empty());
    }
}
