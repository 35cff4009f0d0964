//! `PROBE_MCP_SERVER`: the answer of a server that works, and for every
//! failure class the code, the message and the hint that says what to
//! check or which setting fixes it.

use super::support::{MCP_URL, harness, json_reply, mcp_server, server};
use crate::fakes::{EXTENSION_ID, FakeChunk, FakeReply, FakeTypstPages, Harness};
use crate::platform::{HttpRequest, NetworkError};
use serde_json::{Value, json};

fn probe(h: &mut Harness<FakeTypstPages>, record: Value) -> Value {
    h.call("PROBE_MCP_SERVER", None, json!({ "server": record }))["payload"].clone()
}

/// The probe's error of a server answering every request with `reply`.
fn failure(reply: impl Fn(&HttpRequest) -> FakeReply + 'static) -> Value {
    let mut h = harness();
    h.serve(MCP_URL, move |request| Ok(reply(request)));
    let answer = probe(&mut h, server("probe", "Local", MCP_URL));
    assert_eq!(answer["ok"], false, "{answer}");
    answer["error"].clone()
}

fn hint(error: &Value) -> String {
    error["details"]["hint"].as_str().unwrap_or_default().to_owned()
}

fn id_of(request: &HttpRequest) -> Value {
    let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
    body["id"].clone()
}

#[test]
fn a_working_server_answers_its_tools_and_the_discovery_facts() {
    let mut h = harness();
    mcp_server(&h, MCP_URL);
    let answer = probe(&mut h, server("probe", "Local", MCP_URL));
    let data = answer["data"].clone();
    assert_eq!(data["ok"], true);
    let names: Vec<Value> = data["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, [json!("echo"), json!("add"), json!("lookup")]);
    assert_eq!(data["errors"], json!([]));
    assert_eq!(data["version"], "2026-07-28");
    assert_eq!((data["pages"].clone(), data["ttlMs"].clone()), (json!(1), json!(0)));
    assert_eq!(data["cacheScope"], "private");
    assert_eq!(data["cache"]["status"], "miss");
    assert!(data["cache"]["expiresAt"].is_number());
    let again = probe(&mut h, server("probe", "Local", MCP_URL));
    assert_eq!(
        again["data"]["cache"]["status"], "miss",
        "a probe never answers from the cache"
    );
}

#[test]
fn an_invalid_form_is_refused_before_anything_is_sent_with_its_field_and_a_hint() {
    let mut h = harness();
    let cases = [
        (
            json!({"id": "p", "name": "x", "url": "http://192.0.2.7/mcp"}),
            "INSECURE_CONFIRMATION_REQUIRED",
            "url",
            "Allow non-loopback HTTP",
        ),
        (
            json!({"id": "p", "name": "x", "url": "mcp.example"}),
            "INVALID_URL",
            "url",
            "whole endpoint URL",
        ),
        (
            json!({"id": "p", "name": "x", "url": "https://u:p@mcp.example/"}),
            "EMBEDDED_CREDENTIALS",
            "url",
            "Headers",
        ),
        (
            json!({"id": "p", "name": "x", "url": "ftp://mcp.example/"}),
            "UNSUPPORTED_SCHEME",
            "url",
            "https://",
        ),
        (
            json!({"id": "p", "name": "x", "url": MCP_URL, "headers": {"Mcp-Session-Id": "1"}}),
            "PROTECTED_HEADER",
            "headers",
            "Fix Headers",
        ),
        (
            json!({"id": "p", "name": "x", "url": MCP_URL, "protocolMode": "2024-11-05"}),
            "UNSUPPORTED_MCP_VERSION",
            "protocolMode",
            "Choose a Protocol",
        ),
        (
            json!({"id": "", "name": "x", "url": MCP_URL}),
            "INVALID_MCP_SERVER_ID",
            "id",
            "add the server again",
        ),
    ];
    for (record, code, field, hinted) in cases {
        let answer = probe(&mut h, record.clone());
        let error = &answer["error"];
        assert_eq!(
            (error["code"].as_str(), error["details"]["field"].as_str()),
            (Some(code), Some(field)),
            "{record}"
        );
        assert!(hint(error).contains(hinted), "{record}: {}", hint(error));
    }
    let answer = probe(&mut h, json!({"id": "p", "name": "x", "url": "http://192.0.2.7/mcp"}));
    assert_eq!(answer["error"]["details"]["origin"], "http://192.0.2.7");
    assert!(hint(&answer["error"]).contains("http://192.0.2.7"));
    assert!(h.platform().network.requests().is_empty(), "nothing was sent");
}

#[test]
fn credentials_and_access_refusals_name_the_headers() {
    let unauthorized = failure(|_| json_reply(401, &json!({"error": "unauthorized"})));
    assert_eq!(unauthorized["details"]["status"], 401);
    assert!(hint(&unauthorized).contains("credentials"), "{unauthorized}");
    let forbidden = failure(|request| {
        json_reply(
            403,
            &json!({"jsonrpc": "2.0", "id": id_of(request), "error": {"code": -32001, "message": "Forbidden"}}),
        )
    });
    assert_eq!(forbidden["code"], "MCP_JSON_RPC_ERROR");
    assert!(hint(&forbidden).starts_with("The server refused access"), "{forbidden}");
}

#[test]
fn a_refused_origin_names_the_servers_origin_settings() {
    let python = |_: &HttpRequest| FakeReply::text(403, "text/plain", &["Invalid Origin header"]);
    let removed = failure(python);
    assert_eq!(removed["code"], "MCP_INVALID_JSON");
    assert_eq!(
        removed["message"],
        "Unexpected MCP response (403): Invalid Origin header"
    );
    let text = hint(&removed);
    assert!(text.contains("although the extension removes Origin"), "{text}");
    assert!(text.contains(&format!("chrome-extension://{EXTENSION_ID}")), "{text}");
    assert!(text.contains("allowed_origins"), "{text}");

    let mut h = harness();
    h.platform().browser.fail_rule_updates(Some("Permission denied."));
    h.serve(MCP_URL, move |request| Ok(python(request)));
    let answer = probe(&mut h, server("probe", "Local", MCP_URL));
    let text = hint(&answer["error"]);
    assert!(text.contains("could not remove it (Permission denied.)"), "{text}");
}

#[test]
fn wrong_paths_and_endpoints_that_are_not_mcp_are_told_apart() {
    let missing = failure(|_| FakeReply::text(404, "text/html", &["<h1>Not Found</h1>"]));
    assert_eq!(missing["details"]["status"], 404);
    assert!(hint(&missing).contains("path of the URL"), "{missing}");
    for status in [405, 406] {
        let refused = failure(move |_| FakeReply::text(status, "text/plain", &[""]));
        assert!(
            hint(&refused).contains("not a Streamable-HTTP MCP endpoint"),
            "{refused}"
        );
    }
    let host = failure(|_| FakeReply::text(421, "text/plain", &["Invalid Host header"]));
    assert!(hint(&host).contains("allowed hosts"), "{host}");
    let broken = failure(|_| FakeReply::text(500, "text/plain", &["Internal Server Error"]));
    assert!(hint(&broken).contains("see its log"), "{broken}");
    let page = failure(|_| FakeReply::text(200, "text/html", &["<html>"]));
    assert_eq!(page["code"], "MCP_INVALID_JSON");
    assert!(hint(&page).contains("not a web page"), "{page}");
}

#[test]
fn a_server_that_is_not_there_or_silent_is_named_by_its_address() {
    let mut h = harness();
    h.serve("http://127.0.0.1:8123/", |_| {
        Err(NetworkError::Failed("Failed to fetch".into()))
    });
    let answer = probe(&mut h, server("probe", "Local", "http://127.0.0.1:8123/mcp"));
    assert_eq!(answer["error"]["code"], "MCP_NETWORK_ERROR");
    let text = hint(&answer["error"]);
    assert!(text.starts_with("Nothing answered at http://127.0.0.1:8123"), "{text}");
    assert!(text.contains("running"), "{text}");

    let mut h = harness();
    h.platform().clock.hold_sleeps_from(None);
    h.serve(MCP_URL, |_| {
        Ok(FakeReply {
            status: 200,
            headers: Vec::new(),
            chunks: vec![FakeChunk::Stall],
        })
    });
    let answer = probe(&mut h, server("probe", "Local", MCP_URL));
    assert_eq!(answer["error"]["code"], "TIMEOUT");
    assert!(hint(&answer["error"]).contains("within 12 seconds"));
}

#[test]
fn an_unsupported_version_names_what_the_server_named_and_the_auto_setting() {
    let refuse = |request: &HttpRequest| {
        json_reply(
            400,
            &json!({"jsonrpc": "2.0", "id": id_of(request), "error": {"code": -32022,
                "message": "Unsupported protocol version", "data": {"supported": ["2024-10-07"]}}}),
        )
    };
    let mut h = harness();
    h.serve(MCP_URL, move |request| Ok(refuse(request)));
    let mut record = server("probe", "Local", MCP_URL);
    record["protocolMode"] = json!("2026-07-28");
    let answer = probe(&mut h, record);
    let error = &answer["error"];
    assert_eq!(error["code"], "UNSUPPORTED_MCP_VERSION");
    let text = hint(error);
    assert!(text.starts_with("The server named 2024-10-07."), "{text}");
    assert!(
        text.contains("2026-07-28 and, through the 2025 handshake, 2025-11-25, 2025-06-18, 2025-03-26"),
        "{text}"
    );
    assert!(
        text.contains("Protocol is set to 2026-07-28 only: choose Auto"),
        "{text}"
    );

    // In `auto` the handshake follows, and the server picks what it picks.
    let old = failure(|request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        if body["method"] == "initialize" {
            return json_reply(
                200,
                &json!({"jsonrpc": "2.0", "id": body["id"], "result": {"protocolVersion": "2024-10-07"}}),
            );
        }
        json_reply(
            400,
            &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request"}}),
        )
    });
    assert_eq!(old["code"], "UNSUPPORTED_MCP_VERSION");
    assert!(hint(&old).contains("Protocol is already Auto"), "{old}");
}

#[test]
fn hostile_listings_are_bounded_and_explained() {
    let huge = failure(|request| {
        let tools: Vec<Value> = (0..10_000).map(|n| json!({"name": format!("t{n}")})).collect();
        json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": id_of(request), "result": {"tools": tools}}),
        )
    });
    assert_eq!(huge["code"], "MCP_TOOL_LIMIT");
    assert!(hint(&huge).contains("at most 500"), "{huge}");
    let endless = failure(|request| {
        json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": id_of(request), "result": {"tools": [], "nextCursor": "more"}}),
        )
    });
    assert_eq!(endless["code"], "MCP_PAGE_LIMIT");
    assert!(hint(&endless).contains("20 pages"), "{endless}");
    let stranger = failure(|_| json_reply(200, &json!({"jsonrpc": "2.0", "id": 999_999, "result": {"tools": []}})));
    assert_eq!(stranger["code"], "MCP_RESPONSE_ID_MISMATCH");
    assert!(hint(&stranger).contains("another request's id"), "{stranger}");
    let bloated = failure(|_| FakeReply::text(200, "application/json", &[&" ".repeat(2_100_000)]));
    assert_eq!(bloated["code"], "MCP_RESPONSE_TOO_LARGE");
    assert!(hint(&bloated).contains("2 MiB"), "{bloated}");
    let cut = failure(|_| FakeReply::text(200, "text/event-stream", &[": ping\n\n"]));
    assert_eq!(cut["code"], "MCP_STREAM_ENDED");
    assert!(hint(&cut).contains("event stream"), "{cut}");
}
