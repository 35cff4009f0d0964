//! The 2025 session: the version and session id the server chose, the
//! initialized notification, a lost session started again once, and a
//! remembered era that stops working negotiated again.

use super::servers::{Framing, Kind, Wiring, serve};
use super::support::{Rig, Seen, accepted, code, endpoint, endpoint_with_mode, json_reply, result, tool};
use crate::fakes::FakeReply;
use crate::platform::HttpRequest;
use protocol::ErrorCode;
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

const SESSION_MAP: Kind = Kind::Classic {
    wiring: Wiring::SessionMap,
    framing: Framing::Sse,
};

fn methods(rig: &Rig) -> Vec<String> {
    rig.seen().iter().map(|s| s.method().to_owned()).collect()
}

/// A 2025-only server whose `initialize` answer is `init`.
fn legacy_server(
    init: impl Fn(&Value) -> FakeReply + 'static,
) -> impl FnMut(&HttpRequest) -> Result<FakeReply, crate::platform::NetworkError> {
    move |request| {
        let seen = Seen::of(request);
        let id = seen.id();
        if seen.is_modern() {
            return Ok(json_reply(
                400,
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: Unsupported protocol version"}}),
            ));
        }
        Ok(match seen.method() {
            "initialize" => init(&id),
            "notifications/initialized" => accepted(),
            _ => json_reply(
                200,
                &result(&id, json!({"tools": [], "content": [{"type": "text", "text": "ok"}]})),
            ),
        })
    }
}

fn initialized_with(version: Value, session: Option<&'static str>) -> impl Fn(&Value) -> FakeReply {
    move |id| {
        let mut reply = json_reply(
            200,
            &result(id, json!({"protocolVersion": version, "capabilities": {}})),
        );
        if let Some(session) = session {
            reply.headers.push(("mcp-session-id".to_owned(), session.to_owned()));
        }
        reply
    }
}

#[test]
fn a_lost_session_is_started_again_once() {
    let (server, responder) = serve(SESSION_MAP);
    let rig = Rig::new(responder);
    let listing = rig.discover(&endpoint(), false).expect("legacy").listing;
    server.borrow_mut().expire_sessions();
    let echo = listing.tools.iter().find(|t| t.name == "echo").expect("echo");
    let answer = rig
        .call(&endpoint(), echo, json!({"text": "again"}))
        .expect("called after a new handshake");
    assert_eq!(answer.content, "again");
    let seen = rig.seen();
    let tail: Vec<(&str, Option<&str>)> = seen[4..]
        .iter()
        .map(|s| (s.method(), s.header("mcp-session-id")))
        .collect();
    assert_eq!(
        tail,
        [
            ("tools/call", Some("session-1")),
            ("initialize", None),
            ("notifications/initialized", Some("session-2")),
            ("tools/call", Some("session-2")),
        ]
    );
}

#[test]
fn a_session_lost_again_right_away_is_an_error_not_a_loop() {
    let lost = |request: &HttpRequest| {
        let seen = Seen::of(request);
        let id = seen.id();
        Ok(match (seen.is_modern(), seen.method()) {
            (true, _) => json_reply(
                400,
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32000, "message": "Bad Request: No valid session ID provided"}}),
            ),
            (false, "initialize") => initialized_with(json!("2025-11-25"), Some("s"))(&id),
            (false, "notifications/initialized") => accepted(),
            _ => json_reply(
                404,
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32001, "message": "Session not found"}}),
            ),
        })
    };
    let rig = Rig::new(lost);
    let error = rig.discover(&endpoint(), false).expect_err("the session never holds");
    assert_eq!(error.code, ErrorCode::McpJsonRpcError);
    assert_eq!(error.message, "MCP error: Session not found");
    assert_eq!(
        methods(&rig),
        [
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );

    // In the 2025 mode too: one new handshake, then the error.
    let rig = Rig::new(lost);
    assert_eq!(
        code(rig.discover(&endpoint_with_mode("2025-11-25"), false)),
        ErrorCode::McpJsonRpcError
    );
    assert_eq!(methods(&rig).iter().filter(|m| *m == "initialize").count(), 2);
}

#[test]
fn the_server_chosen_version_and_session_travel_on_every_later_request() {
    let rig = Rig::new(legacy_server(initialized_with(json!("2025-06-18"), Some("abc-123"))));
    let listing = rig.discover(&endpoint(), false).expect("legacy").listing;
    assert_eq!(listing.version, "2025-06-18");
    let seen = rig.seen();
    for later in &seen[2..] {
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-06-18"));
        assert_eq!(later.header("mcp-session-id"), Some("abc-123"));
    }

    // A server that issues no session id gets none back.
    let rig = Rig::new(legacy_server(initialized_with(json!("2025-03-26"), None)));
    assert_eq!(
        rig.discover(&endpoint(), false).expect("legacy").listing.version,
        "2025-03-26"
    );
    assert!(rig.seen().iter().all(|s| s.header("mcp-session-id").is_none()));
}

#[test]
fn versions_this_client_does_not_speak_are_refused_clearly() {
    for offered in [
        json!("2024-11-05"),
        json!("2099-01-01"),
        json!("2026-07-28"),
        json!(20251125),
        Value::Null,
    ] {
        let rig = Rig::new(legacy_server(initialized_with(offered.clone(), Some("s"))));
        let error = rig.discover(&endpoint(), false).expect_err("refused");
        assert_eq!(error.code, ErrorCode::UnsupportedMcpVersion, "{offered}");
        assert!(
            error.message.contains("2025-11-25, 2025-06-18, 2025-03-26"),
            "{}",
            error.message
        );
        assert_eq!(
            methods(&rig),
            ["tools/list", "initialize"],
            "{offered}: no initialized notification"
        );
    }
    let rig = Rig::new(legacy_server(initialized_with(json!("2099-01-01"), None)));
    let error = rig.discover(&endpoint(), false).expect_err("refused");
    assert_eq!(
        error.message,
        "The MCP server chose MCP 2099-01-01; this client speaks 2026-07-28 and 2025-11-25, 2025-06-18, 2025-03-26."
    );
}

#[test]
fn session_ids_must_be_short_visible_ascii() {
    let long: &'static str = Box::leak("x".repeat(1_025).into_boxed_str());
    for bad in ["has space", "", "caf\u{e9}", long] {
        let rig = Rig::new(legacy_server(initialized_with(json!("2025-11-25"), Some(bad))));
        assert_eq!(
            code(rig.discover(&endpoint(), false)),
            ErrorCode::McpInvalidSessionId,
            "{bad:?}"
        );
    }
    let longest: &'static str = Box::leak("x".repeat(1_024).into_boxed_str());
    let rig = Rig::new(legacy_server(initialized_with(json!("2025-11-25"), Some(longest))));
    assert!(rig.discover(&endpoint(), false).is_ok());
}

#[test]
fn a_refused_initialized_notification_fails_the_handshake() {
    let refusing = |request: &HttpRequest| {
        let seen = Seen::of(request);
        let id = seen.id();
        Ok(match seen.method() {
            _ if seen.is_modern() => FakeReply::text(400, "text/plain", &["no"]),
            "initialize" => initialized_with(json!("2025-11-25"), Some("s"))(&id),
            "notifications/initialized" => json_reply(
                400,
                &json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid notification"}}),
            ),
            _ => json_reply(200, &result(&id, json!({"tools": []}))),
        })
    };
    let rig = Rig::new(refusing);
    let error = rig.discover(&endpoint(), false).expect_err("refused");
    assert_eq!(error.code, ErrorCode::McpJsonRpcError);
    assert_eq!(error.message, "MCP error: Invalid notification");
    // A 4xx without a readable body is an HTTP error.
    let bare = |request: &HttpRequest| {
        let seen = Seen::of(request);
        Ok(match seen.method() {
            _ if seen.is_modern() => FakeReply::text(400, "text/plain", &["no"]),
            "initialize" => initialized_with(json!("2025-11-25"), None)(&seen.id()),
            _ => FakeReply::text(500, "text/plain", &[""]),
        })
    };
    let rig = Rig::new(bare);
    let error = rig.discover(&endpoint(), false).expect_err("refused");
    assert_eq!(error.code, ErrorCode::McpHttpError);
    assert_eq!(error.details, Some(json!({"status": 500})));
}

#[test]
fn a_2025_call_keeps_its_arguments_whole() {
    let rig = Rig::new(legacy_server(initialized_with(json!("2025-11-25"), Some("s"))));
    let translate = tool(
        "translate",
        json!({"type": "object", "properties": {"locale": {"type": "string", "x-mcp-header": "X-Locale"}, "query": {"type": "string"}}}),
    );
    rig.call(&endpoint(), &translate, json!({"locale": "en-US", "query": "hello"}))
        .expect("called");
    let seen = rig.seen();
    let call = seen.last().expect("the call");
    assert_eq!(call.method(), "tools/call");
    assert_eq!(
        call.body["params"]["arguments"],
        json!({"locale": "en-US", "query": "hello"})
    );
    assert!(call.header("mcp-param-x-locale").is_none() && call.header("mcp-name").is_none());
    assert!(call.body["params"].get("_meta").is_none());
    // The modern attempt before the handshake did move it into a header.
    assert_eq!(seen[0].header("mcp-param-x-locale"), Some("en-US"));
}

/// A server that is one kind until the test switches it to another.
fn switchable(
    first: Kind,
    second: Kind,
) -> (
    Rc<Cell<bool>>,
    impl FnMut(&HttpRequest) -> Result<FakeReply, crate::platform::NetworkError>,
) {
    let switched = Rc::new(Cell::new(false));
    let flag = switched.clone();
    let (_a, mut one) = serve(first);
    let (_b, mut two) = serve(second);
    (
        switched,
        move |request: &HttpRequest| if flag.get() { two(request) } else { one(request) },
    )
}

#[test]
fn a_remembered_era_that_stops_working_is_negotiated_again_once() {
    let modern = Kind::V2Handler {
        framing: Framing::Json,
        reject_legacy: true,
    };
    let (switched, responder) = switchable(modern, SESSION_MAP);
    let rig = Rig::new(responder);
    assert_eq!(
        rig.discover(&endpoint(), true).expect("modern").listing.version,
        "2026-07-28"
    );
    switched.set(true);
    assert_eq!(
        rig.discover(&endpoint(), true).expect("now 2025").listing.version,
        "2025-11-25"
    );
    assert_eq!(
        methods(&rig),
        [
            "tools/list",
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );

    let (switched, responder) = switchable(SESSION_MAP, modern);
    let rig = Rig::new(responder);
    assert_eq!(
        rig.discover(&endpoint(), true).expect("2025").listing.version,
        "2025-11-25"
    );
    switched.set(true);
    // The 2025 request gets -32022 listing 2026-07-28: the era is asked again.
    assert_eq!(
        rig.discover(&endpoint(), true).expect("now modern").listing.version,
        "2026-07-28"
    );
    let seen = rig.seen();
    assert!(!seen[4].is_modern() && seen[5].is_modern());
    assert_eq!(seen.len(), 6);
}

#[test]
fn invalidation_forgets_the_era_of_that_server_only() {
    let (_server, responder) = serve(SESSION_MAP);
    let rig = Rig::new(responder);
    let other = crate::mcp::McpEndpoint {
        id: "server-2".to_owned(),
        ..endpoint()
    };
    rig.discover(&endpoint(), false).expect("legacy");
    rig.discover(&other, false).expect("legacy");
    rig.client.invalidate("server-1");
    let before = rig.seen().len();
    rig.discover(&other, false).expect("cached");
    assert_eq!(rig.seen().len(), before, "the other server's discovery is still cached");
    rig.discover(&endpoint(), false).expect("again");
    let seen = rig.seen();
    assert!(seen[before].is_modern(), "server-1 is probed afresh");
    assert_eq!(seen[before..].len(), 4);
}
