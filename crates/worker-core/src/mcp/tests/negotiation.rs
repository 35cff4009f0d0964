//! The negotiation table, case by case: what a server answers the first
//! 2026-07-28 request with decides between staying modern, the 2025
//! handshake, and an error; and the configured protocol modes.

use super::servers::{Framing, Kind, Wiring, serve};
use super::support::{Rig, Seen, code, endpoint, endpoint_with_mode, json_reply, result, sse_reply, tool};
use crate::fakes::{FakeChunk, FakeReply};
use crate::platform::NetworkError;
use protocol::ErrorCode;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Modern,
    Legacy,
    Fails(ErrorCode),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    List,
    Call,
}

type Answer = fn(&Value) -> Result<FakeReply, NetworkError>;

fn error_with(status: u16, code: i64, message: &str, data: Option<Value>) -> FakeReply {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    json_reply(status, &json!({ "jsonrpc": "2.0", "id": null, "error": error }))
}

fn text(status: u16, kind: &str, body: &str) -> FakeReply {
    FakeReply::text(status, kind, &[body])
}

/// A server that answers the first modern request with `answer` and is a
/// well-behaved stateless 2025 server otherwise.
fn stub(answer: Answer) -> impl FnMut(&crate::platform::HttpRequest) -> Result<FakeReply, NetworkError> {
    move |request| {
        let seen = Seen::of(request);
        let id = seen.id();
        if seen.is_modern() {
            return answer(&id);
        }
        Ok(match seen.method() {
            "initialize" => json_reply(
                200,
                &result(&id, json!({"protocolVersion": "2025-11-25", "capabilities": {}})),
            ),
            "notifications/initialized" => super::support::accepted(),
            "tools/list" => json_reply(200, &result(&id, json!({"tools": [{"name": "legacy_tool"}]}))),
            _ => json_reply(
                200,
                &result(&id, json!({"content": [{"type": "text", "text": "legacy answer"}]})),
            ),
        })
    }
}

fn modern_ok(id: &Value) -> Result<FakeReply, NetworkError> {
    let listed = json!({"tools": [{"name": "modern_tool"}], "content": [{"type": "text", "text": "modern answer"}]});
    Ok(json_reply(200, &result(id, listed)))
}

fn cases() -> Vec<(&'static str, Method, Answer, Expect)> {
    use Expect::{Fails, Legacy, Modern};
    use Method::{Call, List};
    vec![
        ("200 result", List, modern_ok, Modern),
        ("200 result to tools/call", Call, modern_ok, Modern),
        (
            "v1 stateless: 400 -32000 unsupported version",
            List,
            |_| {
                Ok(error_with(
                    400,
                    -32000,
                    "Bad Request: Unsupported protocol version: 2026-07-28",
                    None,
                ))
            },
            Legacy,
        ),
        (
            "v1 session map: 400 -32000 no valid session",
            List,
            |_| {
                Ok(error_with(
                    400,
                    -32000,
                    "Bad Request: No valid session ID provided",
                    None,
                ))
            },
            Legacy,
        ),
        (
            "v1 one transport: 400 -32000 not initialized",
            Call,
            |_| Ok(error_with(400, -32000, "Bad Request: Server not initialized", None)),
            Legacy,
        ),
        (
            "404 -32001 session not found",
            List,
            |_| Ok(error_with(404, -32001, "Session not found", None)),
            Legacy,
        ),
        (
            "Python 2025-only: 400 -32600 missing session",
            List,
            |_| Ok(error_with(400, -32600, "Bad Request: Missing session ID", None)),
            Legacy,
        ),
        (
            "-32022 listing only 2025 versions",
            List,
            |_| {
                Ok(error_with(
                    400,
                    -32022,
                    "Unsupported protocol version",
                    Some(json!({"supported": ["2025-11-25", "2025-06-18"]})),
                ))
            },
            Legacy,
        ),
        (
            "-32022 listing nothing, on a 200",
            List,
            |_| {
                Ok(error_with(
                    200,
                    -32022,
                    "Unsupported protocol version",
                    Some(json!({"supported": []})),
                ))
            },
            Legacy,
        ),
        (
            "-32022 without data",
            List,
            |_| Ok(error_with(400, -32022, "Unsupported protocol version", None)),
            Legacy,
        ),
        (
            "-32022 listing 2026-07-28",
            List,
            |_| {
                Ok(error_with(
                    400,
                    -32022,
                    "Unsupported protocol version",
                    Some(json!({"supported": ["2026-07-28"]})),
                ))
            },
            Fails(ErrorCode::UnsupportedMcpVersion),
        ),
        (
            "-32022 listing 2026-07-28 among others",
            Call,
            |_| {
                Ok(error_with(
                    400,
                    -32022,
                    "Unsupported",
                    Some(json!({"supported": ["2025-11-25", "2026-07-28"]})),
                ))
            },
            Fails(ErrorCode::UnsupportedMcpVersion),
        ),
        (
            "-32020 to tools/list",
            List,
            |_| Ok(error_with(400, -32020, "Mcp-Method header mismatch", None)),
            Legacy,
        ),
        (
            "-32020 to tools/call is a real error",
            Call,
            |_| Ok(error_with(400, -32020, "Mcp-Param-Region header mismatch", None)),
            Fails(ErrorCode::McpJsonRpcError),
        ),
        ("-32021", List, |_| Ok(error_with(400, -32021, "unknown", None)), Legacy),
        (
            "-32602 envelope error",
            List,
            |_| Ok(error_with(400, -32602, "missing _meta", None)),
            Legacy,
        ),
        (
            "406 with an empty body",
            List,
            |_| Ok(text(406, "application/json", "")),
            Legacy,
        ),
        (
            "405 plain text",
            List,
            |_| Ok(text(405, "text/plain", "Method not allowed.")),
            Legacy,
        ),
        (
            "400 HTML",
            List,
            |_| Ok(text(400, "text/html", "<html><body>Bad Request</body></html>")),
            Legacy,
        ),
        (
            "400 event stream without an answer",
            List,
            |_| Ok(sse_reply(400, &[json!({"jsonrpc": "2.0", "method": "x"})])),
            Legacy,
        ),
        (
            "400 JSON that is no JSON-RPC error",
            List,
            |_| Ok(json_reply(400, &json!({"detail": "bad"}))),
            Fails(ErrorCode::McpHttpError),
        ),
        (
            "401 JSON-RPC error",
            List,
            |_| Ok(error_with(401, -32000, "Unauthorized", None)),
            Fails(ErrorCode::McpJsonRpcError),
        ),
        (
            "401 empty",
            List,
            |_| Ok(text(401, "application/json", "")),
            Fails(ErrorCode::McpInvalidJson),
        ),
        (
            "403 Python's origin check",
            List,
            |_| Ok(text(403, "text/plain", "Invalid Origin header")),
            Fails(ErrorCode::McpInvalidJson),
        ),
        (
            "403 JSON-RPC error",
            Call,
            |_| Ok(error_with(403, -32000, "Forbidden", None)),
            Fails(ErrorCode::McpJsonRpcError),
        ),
        (
            "500 JSON-RPC error",
            List,
            |_| Ok(error_with(500, -32603, "Internal error", None)),
            Fails(ErrorCode::McpJsonRpcError),
        ),
        (
            "502 text",
            List,
            |_| Ok(text(502, "text/html", "Bad Gateway")),
            Fails(ErrorCode::McpInvalidJson),
        ),
        (
            "503 JSON",
            List,
            |_| Ok(json_reply(503, &json!({"retry": true}))),
            Fails(ErrorCode::McpHttpError),
        ),
        (
            "200 JSON-RPC error",
            List,
            |id| {
                Ok(json_reply(
                    200,
                    &super::support::rpc_error(id, -32601, "Method not found"),
                ))
            },
            Fails(ErrorCode::McpJsonRpcError),
        ),
        (
            "200 body that is not JSON",
            List,
            |_| Ok(text(200, "application/json", "{oops")),
            Fails(ErrorCode::McpInvalidJson),
        ),
        (
            "network error",
            List,
            |_| Err(NetworkError::Failed("Failed to fetch".to_owned())),
            Fails(ErrorCode::McpNetworkError),
        ),
        (
            "timeout",
            List,
            |_| {
                Ok(FakeReply {
                    status: 200,
                    headers: Vec::new(),
                    chunks: vec![FakeChunk::Stall],
                })
            },
            Fails(ErrorCode::Timeout),
        ),
        (
            "400 body over 2 MiB",
            List,
            |_| {
                Ok(FakeReply {
                    status: 400,
                    headers: vec![("content-length".to_owned(), "3000000".to_owned())],
                    chunks: Vec::new(),
                })
            },
            Fails(ErrorCode::McpResponseTooLarge),
        ),
    ]
}

fn run(rig: &Rig, method: Method) -> Result<(String, &'static str), crate::mcp::McpError> {
    match method {
        Method::List => rig.discover(&endpoint(), true).map(|d| {
            let listing = d.listing;
            (
                listing.tools.first().map(|t| t.name.clone()).unwrap_or_default(),
                listing.version,
            )
        }),
        Method::Call => {
            let echo = tool(
                "echo",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            );
            rig.call(&endpoint(), &echo, json!({"text": "x"}))
                .map(|r| (r.content, ""))
        }
    }
}

#[test]
fn the_first_answer_decides_the_era() {
    for (label, method, answer, expect) in cases() {
        let rig = Rig::new(stub(answer));
        let outcome = run(&rig, method);
        let methods: Vec<String> = rig.seen().iter().map(|s| s.method().to_owned()).collect();
        let handshake = methods.iter().any(|m| m == "initialize");
        match expect {
            Expect::Modern => {
                let (answer, version) = outcome.unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(answer.starts_with("modern"), "{label}: {answer}");
                assert!(version.is_empty() || version == "2026-07-28", "{label}");
                assert!(!handshake, "{label}");
            }
            Expect::Legacy => {
                let (answer, version) = outcome.unwrap_or_else(|e| panic!("{label}: {e}"));
                assert!(answer.starts_with("legacy"), "{label}: {answer}");
                assert!(version.is_empty() || version == "2025-11-25", "{label}");
                assert_eq!(methods[1..3], ["initialize", "notifications/initialized"], "{label}");
            }
            Expect::Fails(expected) => {
                assert_eq!(outcome.map_err(|e| e.code), Err(expected), "{label}");
                assert_eq!(methods.len(), 1, "{label}: no fallback, no retry: {methods:?}");
            }
        }
    }
}

#[test]
fn a_found_era_is_remembered_and_a_failure_is_not() {
    let rig = Rig::new(stub(|_| {
        Ok(error_with(
            400,
            -32000,
            "Bad Request: Unsupported protocol version",
            None,
        ))
    }));
    rig.discover(&endpoint(), true).expect("legacy");
    rig.discover(&endpoint(), true).expect("legacy again");
    let methods: Vec<String> = rig.seen().iter().map(|s| s.method().to_owned()).collect();
    assert_eq!(
        methods,
        [
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/list"
        ]
    );

    let rig = Rig::new(stub(|_| Ok(text(503, "text/plain", "down"))));
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpInvalidJson);
    assert_eq!(code(rig.discover(&endpoint(), true)), ErrorCode::McpInvalidJson);
    assert!(
        rig.seen().iter().all(Seen::is_modern),
        "a failure teaches nothing: each try is modern again"
    );
}

#[test]
fn unsupported_version_errors_name_the_servers_versions() {
    let rig = Rig::new(stub(|_| {
        Ok(error_with(
            400,
            -32022,
            "Unsupported",
            Some(json!({"supported": ["2026-07-28", "2026-01-01"]})),
        ))
    }));
    let error = rig.discover(&endpoint(), true).expect_err("refused");
    assert_eq!(error.code, ErrorCode::UnsupportedMcpVersion);
    assert_eq!(
        error.message,
        "Server does not support MCP 2026-07-28. Supported versions: 2026-07-28, 2026-01-01."
    );
    assert_eq!(
        error.details.as_ref().map(|d| d["rpcCode"].clone()),
        Some(json!(-32022))
    );
    assert_eq!(error.details.as_ref().map(|d| d["status"].clone()), Some(json!(400)));
}

#[test]
fn the_modern_mode_never_falls_back() {
    let (_server, responder) = serve(Kind::Classic {
        wiring: Wiring::SessionMap,
        framing: Framing::Sse,
    });
    let rig = Rig::new(responder);
    let error = rig
        .discover(&endpoint_with_mode("2026-07-28"), false)
        .expect_err("2025-only server");
    assert_eq!(error.code, ErrorCode::McpJsonRpcError);
    assert_eq!(error.message, "MCP error: Bad Request: No valid session ID provided");
    assert_eq!(rig.seen().len(), 1);

    let (_server, responder) = serve(Kind::V2Handler {
        framing: Framing::Json,
        reject_legacy: true,
    });
    let rig = Rig::new(responder);
    let listing = rig
        .discover(&endpoint_with_mode("2026-07-28"), false)
        .expect("modern")
        .listing;
    assert_eq!(listing.version, "2026-07-28");
}

#[test]
fn the_2025_mode_starts_with_the_handshake_and_never_claims_2026() {
    let (_server, responder) = serve(Kind::Python {
        stateful: true,
        framing: Framing::Sse,
    });
    let rig = Rig::new(responder);
    let listing = rig
        .discover(&endpoint_with_mode("2025-11-25"), false)
        .expect("legacy")
        .listing;
    assert_eq!(listing.version, "2025-11-25");
    let seen = rig.seen();
    let methods: Vec<&str> = seen.iter().map(Seen::method).collect();
    assert_eq!(methods, ["initialize", "notifications/initialized", "tools/list"]);
    assert!(seen.iter().all(|s| !s.is_modern() && s.header("mcp-method").is_none()));

    let (_server, responder) = serve(Kind::V2Handler {
        framing: Framing::Json,
        reject_legacy: true,
    });
    let rig = Rig::new(responder);
    let error = rig
        .discover(&endpoint_with_mode("2025-11-25"), false)
        .expect_err("modern-only server");
    assert_eq!(error.code, ErrorCode::UnsupportedMcpVersion);
    assert_eq!(
        error.message,
        "Server does not support MCP 2025-11-25. Supported versions: 2026-07-28."
    );
}

#[test]
fn an_unknown_mode_is_refused_before_sending() {
    let rig = Rig::new(stub(modern_ok));
    let error = rig
        .discover(&endpoint_with_mode("2025-03-26"), true)
        .expect_err("unknown mode");
    assert_eq!(error.code, ErrorCode::UnsupportedMcpVersion);
    assert_eq!(error.message, "Unsupported configured MCP protocol mode: 2025-03-26");
    assert!(rig.seen().is_empty());
    // An empty mode is `auto`, as `protocolMode || 'auto'` made it.
    assert!(rig.discover(&endpoint_with_mode(""), true).is_ok());
}
