//! The registry: built-ins in order, exact names, refused collisions, and a
//! run's registry with custom tools and MCP servers' tools.

use super::*;

fn registry() -> ToolRegistry {
    match ToolRegistry::with_builtins() {
        Ok(registry) => registry,
        Err(error) => panic!("built-ins do not register: {error:?}"),
    }
}

#[test]
fn builtins_register_in_order_with_their_policies() {
    let registry = registry();
    let specs = registry.specs();
    let names: Vec<&str> = specs
        .iter()
        .filter_map(|spec| spec["function"]["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "read_file_structure",
            "open_project_file",
            "read_document",
            "read_diagnostics",
            "read_typst_docs",
            "replace_lines",
            "search_replace",
            "patch_document",
            "insert_at_cursor",
            "replace_selection"
        ]
    );
    assert_eq!(registry.specs().len(), 10);
    let read = registry.route("read_document");
    assert_eq!(
        read.map(|r| (r.effect, r.approval)),
        Some((Effect::Read, Approval::Automatic))
    );
    assert_eq!(read.map(|r| r.identity.as_str()), Some("builtin:read_document"));
    let write = registry.route("replace_lines");
    assert_eq!(write.map(|r| r.effect), Some(Effect::EditorWrite));
}

#[test]
fn names_are_exact_and_collisions_are_refused() {
    let mut registry = registry();
    assert!(registry.route("Read_Document").is_none());
    assert!(registry.route("read_document ").is_none());
    let Some(mut copy) = registry.route("read_document").cloned() else {
        panic!("read_document missing");
    };
    copy.identity = "custom:t1".into();
    let refused = registry.add(copy.clone()).err();
    assert_eq!(refused.map(|e| e.code.as_str()), Some("TOOL_NAME_COLLISION"));
    copy.name = "search_arxiv".into();
    copy.spec["function"]["name"] = "search_arxiv".into();
    assert!(registry.add(copy).is_ok());
    assert_eq!(
        registry.route("search_arxiv").map(|r| r.identity.as_str()),
        Some("custom:t1")
    );
    assert_eq!(registry.specs().len(), 11);
}
