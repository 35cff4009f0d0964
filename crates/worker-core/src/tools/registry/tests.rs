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

// ----- a run's registry -----

use crate::cancel::Cancellation;
use crate::fakes::{FakeClock, FakeNetwork, FakeReply, block_on};
use crate::integrations::{ServerTools, Toolset};
use crate::mcp::{McpClient, McpEndpoint};
use crate::tools::metadata::{Approval, Effect};
use protocol::registry_records::{CustomTool, McpServer};
use protocol::trust_policy::{custom_tool_trust_fingerprint, mcp_server_trust_fingerprint, mcp_visible_name};
use serde_json::json;

fn custom(id: &str, name: &str) -> serde_json::Value {
    json!({"id": id, "name": name, "endpoint": "https://tools.example/call", "headers": {},
        "parameters": {"type": "object", "properties": {}}})
}

/// A server record and what its discovery of `tools` gives.
fn discovered(record: serde_json::Value, tools: serde_json::Value) -> ServerTools {
    let server = McpServer::from_stored(&record);
    let endpoint = McpEndpoint::from_server(&server);
    let network = FakeNetwork::answering(move |request| {
        let body: serde_json::Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        let answer = json!({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": tools}});
        Ok(FakeReply::text(200, "application/json", &[&answer.to_string()]))
    });
    let client = McpClient::new("9.8.7");
    let discovered = block_on(client.discover(&network, &FakeClock::default(), &endpoint, false, &Cancellation::new()));
    ServerTools {
        server,
        endpoint,
        discovered,
    }
}

fn server_record(id: &str, name: &str) -> serde_json::Value {
    json!({"id": id, "name": name, "url": format!("https://{id}.example/mcp"), "headers": {}, "protocolMode": "auto"})
}

fn toolset(custom_tools: &[serde_json::Value], servers: Vec<ServerTools>) -> Toolset {
    Toolset {
        custom_tools: custom_tools.iter().map(CustomTool::from_stored).collect(),
        servers,
    }
}

fn names(registry: &ToolRegistry) -> Vec<String> {
    registry
        .specs()
        .iter()
        .filter_map(|spec| spec["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn a_runs_registry_has_builtins_then_custom_tools_then_each_servers_tools() {
    let mut trusted = custom("t2", "fetch_paper");
    trusted["trustedAutoRun"] = json!(true);
    trusted["trustedAutoRunFingerprint"] = json!(custom_tool_trust_fingerprint(Some(&trusted)));
    let alpha = server_record("alpha", "Alpha");
    let mut beta = server_record("beta", "Beta");
    beta["trustedAutoRun"] = json!(true);
    beta["trustedAutoRunFingerprint"] = json!(mcp_server_trust_fingerprint(Some(&beta)));
    let set = toolset(
        &[custom("t1", "search_arxiv"), trusted],
        vec![
            discovered(
                alpha.clone(),
                json!([{"name": "search", "description": "Searches."}, {"name": "read"}]),
            ),
            discovered(beta.clone(), json!([{"name": "search"}])),
        ],
    );
    let built = ToolRegistry::for_run(&set).expect("a valid toolset");
    let registry = &built.registry;
    let mut expected: Vec<String> = protocol::constants::BUILTIN_TOOL_NAMES
        .iter()
        .map(|n| (*n).to_owned())
        .collect();
    expected.extend(["search_arxiv".to_owned(), "fetch_paper".to_owned()]);
    let visible = |record: &serde_json::Value, tool: &str| mcp_visible_name(Some(record), Some(&json!({"name": tool})));
    expected.extend([
        visible(&alpha, "search"),
        visible(&alpha, "read"),
        visible(&beta, "search"),
    ]);
    assert_eq!(names(registry), expected);
    assert_eq!(built.left_out, [Vec::new(), Vec::new()]);

    let search = registry.route("search_arxiv").expect("registered");
    assert_eq!(search.identity, "custom:t1");
    assert_eq!((search.effect, search.approval), (Effect::External, Approval::Once));
    assert_eq!(search.destination, "https://tools.example");
    assert!(!search.uses_tab && search.preflight.is_none());
    assert_eq!(search.spec["function"]["description"], "Custom tool: search_arxiv");
    assert_eq!(
        registry.route("fetch_paper").map(|r| r.approval),
        Some(Approval::Trusted)
    );

    let from_alpha = registry.route(&visible(&alpha, "search")).expect("registered");
    assert_eq!(from_alpha.identity, "mcp:alpha:search");
    assert_eq!(from_alpha.destination, "https://alpha.example");
    assert_eq!(from_alpha.approval, Approval::Once);
    assert_eq!(from_alpha.spec["function"]["description"], "[MCP Alpha] Searches.");
    let read = registry.route(&visible(&alpha, "read")).expect("registered");
    assert_eq!(read.spec["function"]["description"], "[MCP Alpha] read");
    assert_eq!(
        read.spec["function"]["parameters"],
        json!({"type": "object", "properties": {}})
    );
    assert_eq!(
        registry.route(&visible(&beta, "search")).map(|r| r.approval),
        Some(Approval::Trusted)
    );
    assert!(names(registry).iter().all(|name| name.chars().count() <= 64));
}

#[test]
fn every_problem_of_the_custom_tools_fails_the_run() {
    let mut bad_schema = custom("t1", "search_arxiv");
    bad_schema["parameters"] = json!({"type": "object", "patternProperties": {}});
    let mut cleartext = custom("t2", "fetch_paper");
    cleartext["endpoint"] = json!("http://192.0.2.7/call");
    let errors = ToolRegistry::for_run(&toolset(
        &[
            bad_schema,
            cleartext,
            custom("t3", "Read_Document"),
            custom("t4", "SEARCH_ARXIV"),
        ],
        Vec::new(),
    ))
    .expect_err("the custom tools are refused");
    let codes: Vec<&str> = errors.iter().map(|e| e.code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "INVALID_CUSTOM_SCHEMA",
            "RESERVED_TOOL_NAME",
            "DUPLICATE_TOOL_NAME",
            "INSECURE_CONFIRMATION_REQUIRED"
        ]
    );
    assert!(
        errors[0].message.starts_with("Custom tool \"search_arxiv\": "),
        "{errors:?}"
    );
    assert_eq!(errors[1].name, "Read_Document");
}

#[test]
fn a_servers_tools_that_cannot_be_offered_are_left_out_not_fatal() {
    let alpha = server_record("alpha", "Alpha");
    let long_name = "n".repeat(600);
    let set = toolset(
        &[],
        vec![
            discovered(
                alpha.clone(),
                json!([{"name": "ok"}, {"name": "bad", "inputSchema": {"type": "string"}}, {"name": long_name}]),
            ),
            discovered(json!({"id": "down", "url": "ftp://down.example/"}), json!([])),
        ],
    );
    let built = ToolRegistry::for_run(&set).expect("never fatal");
    assert_eq!(names(&built.registry).len(), 11);
    let codes: Vec<&str> = built.left_out[0].iter().map(|l| l.code.as_str()).collect();
    assert_eq!(codes, ["INVALID_MCP_SCHEMA", "DUPLICATE_OR_INVALID_TOOL"]);
    assert_eq!(built.left_out[0][0].name, "bad");
    assert!(built.left_out[1].is_empty(), "a failed discovery is its own notice");
    assert!(set.servers[1].discovered.is_err());

    // Two servers with the same id and name give the same visible names:
    // the second one's tools are left out.
    let twin = toolset(
        &[],
        vec![
            discovered(alpha.clone(), json!([{"name": "ok"}])),
            discovered(alpha, json!([{"name": "ok"}])),
        ],
    );
    let built = ToolRegistry::for_run(&twin).expect("never fatal");
    assert_eq!(names(&built.registry).len(), 11);
    assert_eq!(built.left_out[1][0].code.as_str(), "TOOL_NAME_COLLISION");
}
