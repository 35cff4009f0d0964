//! Tests of the module tree reader on small inline crates.

use super::*;

fn texts(tokens_source: &str) -> Vec<UseEntry> {
    let tokens = rust::tokenize(tokens_source);
    let end = tokens.iter().position(|t| t.is_punct(";")).unwrap_or(tokens.len());
    parse_use(&tokens, 1, end)
}

fn entry(path: &[&str], binding: Option<&str>) -> UseEntry {
    UseEntry {
        path: path.iter().map(|s| (*s).to_owned()).collect(),
        binding: binding.map(str::to_owned),
    }
}

/// A crate from `(path, text)` pairs, rooted at `src/lib.rs`.
fn tree(files: &[(&'static str, &'static str)]) -> CrateTree {
    let files = files.to_vec();
    CrateTree::build(&["src/lib.rs"], move |wanted| {
        files
            .iter()
            .find(|(path, _)| *path == wanted)
            .map(|(path, text)| Source { path, text })
    })
}

fn path(segments: &[&str]) -> ModPath {
    segments.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn use_trees_expand_groups_renames_self_and_globs() {
    assert_eq!(
        texts("use crate::a::{b::{self, C as D}, e::*, f};"),
        vec![
            entry(&["crate", "a", "b"], Some("b")),
            entry(&["crate", "a", "b", "C"], Some("D")),
            entry(&["crate", "a", "e"], None),
            entry(&["crate", "a", "f"], Some("f")),
        ]
    );
    assert_eq!(texts("use ::std::fmt as _;"), vec![entry(&["std", "fmt"], Some("_"))]);
}

#[test]
fn files_come_from_mod_declarations_paths_and_folders() {
    let crate_tree = tree(&[
        (
            "src/lib.rs",
            "mod a;\nmod b;\n#[path = \"other.rs\"]\nmod c;\n#[cfg(test)]\nmod fakes;",
        ),
        ("src/a.rs", "mod inner;"),
        ("src/a/inner.rs", ""),
        ("src/b/mod.rs", ""),
        ("src/other.rs", ""),
        ("src/fakes.rs", ""),
    ]);
    let files: Vec<(&str, bool)> = crate_tree.files.iter().map(|(f, t)| (f.as_str(), *t)).collect();
    assert_eq!(
        files,
        vec![
            ("src/a.rs", false),
            ("src/a/inner.rs", false),
            ("src/b/mod.rs", false),
            ("src/fakes.rs", true),
            ("src/lib.rs", false),
            ("src/other.rs", false),
        ]
    );
    assert_eq!(
        crate_tree.resolve(&path(&["c"])).map(|(f, _)| f).as_deref(),
        Some("src/other.rs")
    );
}

#[test]
fn paths_resolve_through_reexports_to_the_defining_file() {
    let crate_tree = tree(&[
        ("src/lib.rs", "mod runs;\nmod state;\npub use state::Context;"),
        ("src/state.rs", "pub struct Context;"),
        (
            "src/runs.rs",
            "use crate::Context;\nfn f() { super::state::Context::new(); crate::runs::g(); }\nfn g() {}",
        ),
    ]);
    let from_runs: Vec<(String, String)> = crate_tree
        .references
        .iter()
        .filter(|r| r.file == "src/runs.rs")
        .filter_map(|r| crate_tree.resolve(&r.path))
        .collect();
    let expected = [
        ("src/state.rs", "Context"),
        ("src/state.rs", "Context"),
        ("src/runs.rs", "g"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(f, n)| ((*f).to_owned(), (*n).to_owned()))
        .collect();
    assert_eq!(from_runs, expected);
}

#[test]
fn test_code_and_other_crates_give_no_references() {
    let crate_tree = tree(&[
        (
            "src/lib.rs",
            "mod a;\nuse serde::Serialize;\n#[cfg(test)]\nmod tests { use crate::a::X; }",
        ),
        ("src/a.rs", "pub struct X;"),
    ]);
    assert!(crate_tree.references.is_empty(), "{:?}", crate_tree.references);
}

#[test]
fn inline_modules_and_super_are_relative_to_where_they_are_written() {
    let crate_tree = tree(&[
        ("src/lib.rs", "mod outer;"),
        ("src/outer.rs", "mod inner { use super::super::top::T; }\nmod deep;"),
        ("src/outer/deep.rs", "use super::inner;"),
    ]);
    let written: Vec<ModPath> = crate_tree.references.iter().map(|r| r.path.clone()).collect();
    assert_eq!(written, vec![path(&["top", "T"]), path(&["outer", "inner"])]);
    assert_eq!(
        crate_tree
            .resolve(&path(&["outer", "inner"]))
            .map(|(f, _)| f)
            .as_deref(),
        Some("src/outer.rs")
    );
}

#[test]
fn globs_lead_to_the_module_that_holds_the_name() {
    let crate_tree = tree(&[
        ("src/lib.rs", "mod payloads;\nmod messages;"),
        ("src/payloads.rs", "pub struct Batch;"),
        (
            "src/messages.rs",
            "use crate::payloads::*;\nfn f(b: Batch) { crate::messages::Batch; }",
        ),
    ]);
    assert_eq!(
        crate_tree.resolve(&path(&["messages", "Batch"])),
        Some(("src/payloads.rs".to_owned(), "Batch".to_owned()))
    );
}
