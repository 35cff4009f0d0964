//! Tool results: the original's `renderMcpContent` (its six pinned cases
//! and the rest of its branches), JSON as `JSON.stringify` writes it, the
//! 65,536-character bound, `isError` and multi-round results.

use super::support::{Rig, Seen, code, endpoint, tool};
use crate::fakes::FakeReply;
use crate::mcp::ordered_json::Ordered;
use crate::mcp::render::render_content;
use protocol::ErrorCode;
use serde_json::json;

fn render(text: &str) -> String {
    render_content(&serde_json::from_str::<Ordered>(text).expect("JSON"))
}

#[test]
fn render_mcp_content_as_the_original() {
    // The original's six cases.
    assert_eq!(
        render(r#"{"content":[{"type":"text","text":"hello"},{"type":"text","text":"world"}]}"#),
        "hello\nworld"
    );
    assert_eq!(
        render(r#"{"content":[{"type":"resource","resource":{"text":"file body"}}]}"#),
        "file body"
    );
    assert_eq!(
        render(r#"{"content":[{"type":"image","data":"AAA"}]}"#),
        r#"{"type":"image","data":"AAA"}"#
    );
    assert_eq!(render("null"), "");
    assert_eq!(render(r#"{"note":"hi"}"#), r#"{"note":"hi"}"#);
    assert_eq!(render(r#""already a string""#), "already a string");
    // The other branches.
    assert_eq!(
        render(r#"{"content":[null,0,"",{"type":"text","text":"kept"}]}"#),
        "kept"
    );
    assert_eq!(
        render(r#"{"content":[{"type":"resource","resource":{"text":5}}]}"#),
        "5"
    );
    assert_eq!(
        render(r#"{"content":[{"type":"resource","resource":{"text":""}}]}"#),
        r#"{"type":"resource","resource":{"text":""}}"#
    );
    assert_eq!(
        render(r#"{"content":[{"type":"text","text":7}]}"#),
        r#"{"type":"text","text":7}"#
    );
    assert_eq!(render(r#"{"content":["plain", 3]}"#), "\"plain\"\n3");
    assert_eq!(render(r#"{"content":"not a list"}"#), r#"{"content":"not a list"}"#);
    assert_eq!(render("[1,2]"), "[1,2]");
    for nothing in ["5", "true", "false", "0", "\"\""] {
        assert_eq!(render(nothing), "", "{nothing}");
    }
}

#[test]
fn json_is_written_as_javascript_writes_it() {
    let stringify = |text: &str| serde_json::from_str::<Ordered>(text).expect("JSON").stringify();
    assert_eq!(
        stringify(r#"{"b":1,"2":0,"a":3,"1":4}"#),
        r#"{"1":4,"2":0,"b":1,"a":3}"#
    );
    assert_eq!(stringify(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
    assert_eq!(
        stringify(r#"{"01":1,"4294967295":2,"4294967294":3}"#),
        r#"{"4294967294":3,"01":1,"4294967295":2}"#
    );
    assert_eq!(
        stringify("[1.0, 1e21, 0.000001, 1e-7, -0, 12345678901234567890]"),
        "[1,1e+21,0.000001,1e-7,0,12345678901234567000]"
    );
    assert_eq!(stringify(r#""é\u0001\"\\\n""#), "\"é\\u0001\\\"\\\\\\n\"");
}

fn answering(body: &'static str) -> Rig {
    Rig::new(move |_| Ok(FakeReply::text(200, "application/json", &[body])))
}

fn echo() -> crate::mcp::DiscoveredTool {
    tool("echo", json!({"type": "object", "properties": {}}))
}

#[test]
fn a_result_keeps_the_servers_key_order_in_either_framing() {
    let rig = answering(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"image","data":"AAA","mimeType":"image/png"}]}}"#,
    );
    let content = rig.call(&endpoint(), &echo(), json!({})).expect("called").content;
    assert_eq!(content, r#"{"type":"image","data":"AAA","mimeType":"image/png"}"#);

    let stream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"zeta\":1,\"alpha\":2}}\n\n";
    let rig = Rig::new(move |_| Ok(FakeReply::text(200, "text/event-stream", &[stream])));
    assert_eq!(
        rig.call(&endpoint(), &echo(), json!({})).expect("called").content,
        r#"{"zeta":1,"alpha":2}"#
    );

    let rig = answering(r#"{"jsonrpc":"2.0","id":1}"#);
    assert_eq!(rig.call(&endpoint(), &echo(), json!({})).expect("called").content, "");
}

#[test]
fn results_are_bounded_to_the_model_limit() {
    let sized = |text: String| {
        let body =
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}).to_string();
        let rig = Rig::new(move |_| Ok(FakeReply::text(200, "application/json", &[&body])));
        rig.call(&endpoint(), &echo(), json!({})).expect("called").content
    };
    assert_eq!(sized("x".repeat(65_536)), "x".repeat(65_536));
    let cut = sized("x".repeat(70_000));
    assert_eq!(cut, format!("{}\n... (tool result truncated)", "x".repeat(65_536)));
    // Characters count as UTF-16 units.
    let emoji = sized("😀".repeat(40_000));
    assert_eq!(emoji, format!("{}\n... (tool result truncated)", "😀".repeat(32_768)));
}

#[test]
fn is_error_results_are_tool_errors() {
    let rig =
        answering(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"boom"}],"isError":true}}"#);
    let error = rig.call(&endpoint(), &echo(), json!({})).expect_err("a tool error");
    assert_eq!((error.code, error.message.as_str()), (ErrorCode::McpToolError, "boom"));
    let rig = answering(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":"yes"}}"#);
    let error = rig.call(&endpoint(), &echo(), json!({})).expect_err("a tool error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::McpToolError, "MCP tool error")
    );
    let rig =
        answering(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"fine"}],"isError":false}}"#);
    assert_eq!(
        rig.call(&endpoint(), &echo(), json!({})).expect("called").content,
        "fine"
    );
}

#[test]
fn multi_round_results_are_refused() {
    let rig = answering(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}"#);
    let error = rig.call(&endpoint(), &echo(), json!({})).expect_err("refused");
    assert_eq!(error.code, ErrorCode::McpInputRequiredUnsupported);
    assert_eq!(
        error.message,
        "This MCP tool requires multi-round user input, which this client does not expose yet."
    );
    let rig = answering(r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#);
    assert!(rig.call(&endpoint(), &echo(), json!({})).is_ok());
}

#[test]
fn arguments_are_sent_as_given() {
    let rig = answering(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#);
    rig.call(&endpoint(), &echo(), json!({"nested": {"a": [1, 2]}, "n": 1.5}))
        .expect("called");
    let seen: Vec<Seen> = rig.seen();
    assert_eq!(
        seen[0].body["params"]["arguments"],
        json!({"nested": {"a": [1, 2]}, "n": 1.5})
    );
    assert_eq!(seen[0].body["method"], json!("tools/call"));
    let rig = answering(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#);
    assert_eq!(
        code(rig.discover(
            &crate::mcp::McpEndpoint {
                url: "ftp://x/".to_owned(),
                ..endpoint()
            },
            true
        )),
        ErrorCode::UnsupportedScheme
    );
}
