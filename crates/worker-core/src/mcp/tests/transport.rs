//! One exchange: JSON bodies and their errors, id checks, the 2 MiB cap,
//! the endpoint policy before anything is sent, timeouts and cancellation.

use super::support::{Rig, SilentNetwork, URL, Watched, code, endpoint, json_reply, tool};
use crate::cancel::Cancellation;
use crate::fakes::{FakeChunk, FakeReply, block_on};
use crate::mcp::McpEndpoint;
use crate::platform::NetworkError;
use futures::FutureExt;
use protocol::ErrorCode;
use serde_json::json;

fn answering(reply: impl Fn() -> FakeReply + 'static) -> Rig {
    Rig::new(move |_| Ok(reply()))
}

fn modern_only() -> McpEndpoint {
    McpEndpoint {
        protocol_mode: "2026-07-28".to_owned(),
        ..endpoint()
    }
}

#[test]
fn json_bodies_and_their_failures() {
    let rig = answering(|| {
        FakeReply::text(
            200,
            "application/json",
            &["\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}"],
        )
    });
    assert!(rig.discover(&endpoint(), true).is_ok(), "a byte-order mark is dropped");

    let long = format!("<html>{}</html>", "é".repeat(300));
    let rig = answering(move || FakeReply::text(200, "text/html", &[&long]));
    let error = rig.discover(&endpoint(), true).expect_err("not JSON");
    assert_eq!(error.code, ErrorCode::McpInvalidJson);
    assert_eq!(
        error.message,
        format!("Unexpected MCP response (200): <html>{}", "é".repeat(194))
    );

    let rig = answering(|| json_reply(404, &json!({"detail": "Not Found"})));
    let error = rig.discover(&modern_only(), true).expect_err("HTTP error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::McpHttpError, "MCP HTTP 404.")
    );
    assert_eq!(error.details, Some(json!({"status": 404})));

    let rig = answering(|| {
        json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "boom", "data": {"x": 1}}}),
        )
    });
    let error = rig.discover(&endpoint(), true).expect_err("JSON-RPC error");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::McpJsonRpcError, "MCP error: boom")
    );
    assert_eq!(
        error.details,
        Some(json!({"status": null, "rpcCode": -32601, "data": {"x": 1}}))
    );

    let rig = answering(|| json_reply(400, &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600}})));
    let error = rig
        .discover(&modern_only(), true)
        .expect_err("an error body with a null id");
    assert_eq!(error.message, "MCP error: {\"code\":-32600}");
    assert_eq!(error.details.as_ref().map(|d| d["status"].clone()), Some(json!(400)));
}

#[test]
fn answers_to_other_requests_are_refused() {
    // The original's vector: the id plus one.
    let rig = answering(|| json_reply(200, &json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})));
    let error = rig.discover(&endpoint(), true).expect_err("wrong id");
    assert_eq!(
        (error.code, error.message.as_str()),
        (
            ErrorCode::McpResponseIdMismatch,
            "MCP response id mismatch (expected 1)."
        )
    );
    for body in [
        json!({"jsonrpc": "2.0", "id": "1", "result": {}}),
        json!({"jsonrpc": "2.0", "result": {}}),
        json!([1]),
        json!(null),
    ] {
        let rig = answering(move || json_reply(200, &body));
        assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpResponseIdMismatch);
    }
}

#[test]
fn bodies_over_two_mebibytes_are_refused() {
    // Declared too large: refused before a byte is read.
    let rig = answering(|| FakeReply {
        status: 200,
        headers: vec![
            ("content-type".to_owned(), "application/json".to_owned()),
            ("content-length".to_owned(), "2097153".to_owned()),
        ],
        chunks: vec![FakeChunk::Error("read".to_owned())],
    });
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpResponseTooLarge);
    let rig = answering(|| FakeReply {
        status: 200,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        chunks: vec![
            FakeChunk::Data(vec![b' '; 1_048_576]),
            FakeChunk::Data(vec![b' '; 1_048_577]),
        ],
    });
    let error = rig.discover(&endpoint(), true).expect_err("too large");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::McpResponseTooLarge, "MCP response exceeds the 2 MiB limit.")
    );
}

#[test]
fn network_failures_have_a_code() {
    let rig = Rig::new(|_| Err(NetworkError::Failed("Failed to fetch".to_owned())));
    let error = rig.discover(&endpoint(), true).expect_err("unreachable");
    assert_eq!(error.code, ErrorCode::McpNetworkError);
    assert_eq!(error.message, "The MCP server could not be reached: Failed to fetch");
    let rig = answering(|| FakeReply {
        status: 200,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        chunks: vec![
            FakeChunk::Data(b"{\"jsonrpc\"".to_vec()),
            FakeChunk::Error("connection reset".to_owned()),
        ],
    });
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpNetworkError);
}

#[test]
fn cleartext_endpoints_need_their_acknowledgement_before_anything_is_sent() {
    // The original's vector: a legacy boolean-only consent is no consent.
    let rig = answering(|| json_reply(200, &json!({})));
    let cleartext = McpEndpoint {
        id: "legacy-http".to_owned(),
        url: "http://192.168.1.5/rpc".to_owned(),
        ..endpoint()
    };
    let error = rig.discover(&cleartext, true).expect_err("refused");
    assert_eq!(error.code, ErrorCode::InsecureConfirmationRequired);
    assert_eq!(error.details, Some(json!({"origin": "http://192.168.1.5"})));
    assert!(rig.seen().is_empty());
    assert_eq!(
        code(rig.call(&cleartext, &tool("t", json!({"type": "object"})), json!({}))),
        ErrorCode::InsecureConfirmationRequired
    );

    let acknowledged = McpEndpoint {
        insecure_acknowledged_origin: Some("http://192.168.1.5".to_owned()),
        ..cleartext.clone()
    };
    let _ = rig.discover(&acknowledged, true);
    let loopback = McpEndpoint {
        url: "http://127.0.0.1:7000/mcp".to_owned(),
        ..cleartext
    };
    let _ = rig.discover(&loopback, true);
    let urls: Vec<String> = rig.network.requests().iter().map(|r| r.url.clone()).collect();
    assert_eq!(urls, ["http://192.168.1.5/rpc", "http://127.0.0.1:7000/mcp"]);
    assert!(rig.network.requests().iter().all(|r| r.method == "POST"));
    let _ = URL;
}

#[test]
fn a_server_that_never_answers_times_out_per_request() {
    // The original's vector: a fetch that never settles.
    let rig = Rig::on(SilentNetwork);
    let error = rig.discover(&endpoint(), true).expect_err("timed out");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::Timeout, "MCP request timed out.")
    );
    assert_eq!(
        rig.clock.sleeps(),
        [12_000],
        "a discovery page has 12 s and no fallback follows"
    );
    let echo = tool("echo", json!({"type": "object"}));
    assert_eq!(code(rig.call(&endpoint(), &echo, json!({}))), ErrorCode::Timeout);
    assert_eq!(rig.clock.sleeps(), [12_000, 30_000], "a call has 30 s");
}

#[test]
fn a_timeout_aborts_the_request() {
    let rig = Rig::on(Watched::answering(
        vec![FakeChunk::Data(b": ping\n".to_vec()), FakeChunk::Stall],
        "text/event-stream",
    ));
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::Timeout);
    assert_eq!(rig.network.aborted.get(), 1);
}

#[test]
fn cancellation_ends_the_request_at_once_and_aborts_it() {
    let rig = Rig::on(Watched::answering(vec![FakeChunk::Stall], "text/event-stream"));
    rig.clock.hold_sleeps_from(Some(0));
    let cancel = Cancellation::new();
    let endpoint = endpoint();
    let mut pending = Box::pin(rig.client.discover(&rig.network, &rig.clock, &endpoint, true, &cancel));
    assert!(pending.as_mut().now_or_never().is_none(), "waits for the server");
    cancel.cancel();
    let error = pending.now_or_never().expect("ended at once").expect_err("cancelled");
    assert_eq!(
        (error.code, error.message.as_str()),
        (ErrorCode::Cancelled, "MCP request cancelled.")
    );
    assert_eq!(rig.network.aborted.get(), 1);

    // Cancelled before it starts: nothing is sent.
    let rig = Rig::new(|_| Ok(json_reply(200, &json!({}))));
    let cancel = Cancellation::new();
    cancel.cancel();
    assert_eq!(
        code(rig.discover_with(&super::support::endpoint(), true, &cancel)),
        ErrorCode::Cancelled
    );
    assert!(rig.seen().is_empty());
    // A cancellation is never a reason to try the other era.
    let rig = Rig::on(SilentNetwork);
    rig.clock.hold_sleeps_from(Some(0));
    let cancel = Cancellation::new();
    let mut pending = Box::pin(rig.client.discover(&rig.network, &rig.clock, &endpoint, true, &cancel));
    assert!(pending.as_mut().now_or_never().is_none());
    cancel.cancel();
    assert_eq!(block_on(pending).map_err(|e| e.code).err(), Some(ErrorCode::Cancelled));
}
