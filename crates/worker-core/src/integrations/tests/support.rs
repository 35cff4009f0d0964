//! What the integration tests share: stored records of servers and tools
//! (trusted or not), a harness that stores them, and readers of what a run
//! sent and showed.

use crate::fakes::{FakeClock, FakeReply, FakeTypstPages, Harness, file_value};
use crate::mcp::tests::servers::{Framing, Kind, serve};
use protocol::trust_policy::{custom_tool_trust_fingerprint, mcp_server_trust_fingerprint};
use serde_json::{Value, json};

/// Where the scripted MCP server answers.
pub(super) const MCP_URL: &str = "https://mcp.fixture/mcp";
/// Where the scripted custom tool answers.
pub(super) const TOOL_URL: &str = "https://tools.fixture/lookup";

/// An enabled MCP server in `auto` mode, not trusted.
pub(super) fn server(id: &str, name: &str, url: &str) -> Value {
    json!({"id": id, "name": name, "url": url, "headers": {}, "enabled": true, "protocolMode": "auto"})
}

/// A record the user trusts to run without asking (the fingerprint of its
/// configuration stored beside it, as the form stores it).
pub(super) fn trusted(mut record: Value, fingerprint: fn(Option<&Value>) -> String) -> Value {
    record["trustedAutoRun"] = json!(true);
    record["trustedAutoRunFingerprint"] = json!(fingerprint(Some(&record)));
    record
}

pub(super) fn trusted_server(record: Value) -> Value {
    trusted(record, mcp_server_trust_fingerprint)
}

pub(super) fn trusted_tool(record: Value) -> Value {
    trusted(record, custom_tool_trust_fingerprint)
}

/// An enabled custom tool taking `{query: string}`, not trusted.
pub(super) fn tool(id: &str, name: &str, endpoint: &str) -> Value {
    json!({"id": id, "name": name, "description": "Looks things up.", "endpoint": endpoint, "headers": {},
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        "enabled": true})
}

/// The SDK v2 handler stand-in (2026-07-28, JSON) offering `echo`, `add` and `lookup`.
pub(super) fn mcp_server(h: &Harness<FakeTypstPages>, url: &str) {
    let (_server, responder) = serve(Kind::V2Handler {
        framing: Framing::Json,
        reject_legacy: false,
    });
    h.serve(url, responder);
}

/// A harness whose banners and long timers wait for the test.
pub(super) fn harness() -> Harness<FakeTypstPages> {
    let h = Harness::new(FakeTypstPages::default(), FakeClock::default());
    h.platform().clock.hold_sleeps_from(Some(1_500));
    h
}

pub(super) fn user(content: &str) -> Value {
    json!({"role": "user", "content": content, "activeEditorFile": file_value("main.typ")})
}

/// Stores the servers and the tools as the panel saves them.
pub(super) fn store(h: &mut Harness<FakeTypstPages>, servers: Vec<Value>, tools: Vec<Value>) {
    let saved = h.call("SAVE_MCP_SERVERS", None, json!({"servers": servers}));
    assert_eq!(saved["payload"]["ok"], true, "{saved}");
    let saved = h.call("SAVE_CUSTOM_TOOLS", None, json!({"tools": tools}));
    assert_eq!(saved["payload"]["ok"], true, "{saved}");
}

/// The function names of the run's first model request.
pub(super) fn offered(h: &Harness<FakeTypstPages>, run_id: &str) -> Vec<String> {
    h.model_requests(run_id)
        .first()
        .and_then(|body| body["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|spec| spec["function"]["name"].as_str().map(str::to_owned))
        .collect()
}

/// The tool messages the run sent the model, parsed.
pub(super) fn tool_answers(h: &Harness<FakeTypstPages>, run_id: &str) -> Vec<Value> {
    h.model_requests(run_id)
        .last()
        .and_then(|body| body["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|message| message["role"] == "tool")
        .filter_map(|message| serde_json::from_str(message["content"].as_str()?).ok())
        .collect()
}

/// A JSON answer.
pub(super) fn json_reply(status: u16, value: &Value) -> FakeReply {
    FakeReply::text(status, "application/json", &[&value.to_string()])
}

/// The name the model sees for `tool` of the server `record`.
pub(super) fn visible(record: &Value, tool: &str) -> String {
    protocol::trust_policy::mcp_visible_name(Some(record), Some(&json!({ "name": tool })))
}
