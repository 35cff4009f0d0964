//! Header values (`=?base64?…?=`), `x-mcp-header` arguments mirrored in
//! `Mcp-Param-*` headers (and kept in the body), the 2026-07-28 request's headers and envelope,
//! and configured headers that may not take over managed ones.

use super::support::{Rig, Seen, URL, code, endpoint, json_reply, result, tool};
use crate::mcp::McpEndpoint;
use crate::mcp::headers::{base64, encode_header_value, parameter_headers};
use crate::platform::HttpRequest;
use protocol::ErrorCode;
use serde_json::{Value, json};

#[test]
fn header_values_are_plain_only_when_printable_ascii_without_surrounding_spaces() {
    for plain in ["translate", "en-US", "", "a b", "x=?base64?", "?=", "~!@#$%^&*()"] {
        assert_eq!(encode_header_value(plain), plain);
    }
    let cases = [
        // The original's vector: surrounding spaces and a non-ASCII letter.
        (" café ", "=?base64?IGNhZsOpIA==?="),
        ("héllo", "=?base64?aMOpbGxv?="),
        (" lead", "=?base64?IGxlYWQ=?="),
        ("trail ", "=?base64?dHJhaWwg?="),
        ("tab\t", "=?base64?dGFiCQ==?="),
        ("line\nbreak", "=?base64?bGluZQpicmVhaw==?="),
        ("\u{7f}", "=?base64?fw==?="),
        // Text that already looks encoded is encoded again, so it reads back as itself.
        ("=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="),
        ("😀", "=?base64?8J+YgA==?="),
    ];
    for (text, encoded) in cases {
        assert_eq!(encode_header_value(text), encoded, "{text:?}");
    }
}

#[test]
fn base64_follows_rfc_4648() {
    let vectors = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];
    for (text, encoded) in vectors {
        assert_eq!(base64(text.as_bytes()), encoded);
    }
    assert_eq!(base64(&[0xFB, 0xFF]), "+/8=");
}

fn mirrored(schema: Value, arguments: Value) -> Result<Vec<(String, String)>, ErrorCode> {
    let arguments = arguments.as_object().cloned().expect("an object");
    parameter_headers(&schema, &arguments).map_err(|e| e.code)
}

fn pair(name: &str, value: &str) -> (String, String) {
    (name.to_owned(), value.to_owned())
}

#[test]
fn x_mcp_header_arguments_are_mirrored_in_headers() {
    let schema = json!({"type": "object", "properties": {
        "locale": {"type": "string", "x-mcp-header": "X-Locale"},
        "query": {"type": "string"},
    }});
    assert_eq!(
        mirrored(schema.clone(), json!({"locale": "en-US", "query": "hello"})),
        Ok(vec![pair("X-Locale", "en-US")])
    );
    // Absent or null values have no header.
    assert_eq!(mirrored(schema.clone(), json!({"query": "q"})), Ok(vec![]));
    assert_eq!(mirrored(schema, json!({"locale": null})), Ok(vec![]));

    let nested = json!({"type": "object", "properties": {
        "filter": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
        "list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Never"}},
    }});
    assert_eq!(
        mirrored(nested, json!({"filter": {"region": "eu", "other": 1}, "list": ["a"]})),
        Ok(vec![pair("Region", "eu")]),
        "only `properties` reach a header; `items` do not"
    );
}

#[test]
fn header_values_must_be_scalars_and_integers_safe() {
    let schema = |kind: &str| json!({"type": "object", "properties": {"v": {"type": kind, "x-mcp-header": "V"}}});
    let ok = |kind: &str, value: Value, text: &str| {
        assert_eq!(mirrored(schema(kind), json!({"v": value})), Ok(vec![pair("V", text)]));
    };
    ok("integer", json!(42), "42");
    ok("integer", json!(-9_007_199_254_740_991_i64), "-9007199254740991");
    ok("integer", json!(3.0), "3");
    ok("number", json!(1.5), "1.5");
    ok("number", json!(1e21), "1e+21");
    ok("boolean", json!(true), "true");
    ok("string", json!("x"), "x");
    for (kind, value) in [
        ("integer", json!(9_007_199_254_740_992_u64)),
        ("integer", json!(1.5)),
        ("string", json!({"a": 1})),
        ("string", json!(["a"])),
    ] {
        assert_eq!(
            mirrored(schema(kind), json!({"v": value})),
            Err(ErrorCode::InvalidMcpHeaderValue),
            "{value}"
        );
    }
}

fn echo_server(request: &HttpRequest) -> Result<crate::fakes::FakeReply, crate::platform::NetworkError> {
    let seen = Seen::of(request);
    Ok(json_reply(
        200,
        &result(
            &seen.id(),
            json!({"content": [{"type": "text", "text": "ok"}], "tools": []}),
        ),
    ))
}

#[test]
fn a_modern_call_carries_its_method_name_parameters_and_envelope() {
    let rig = Rig::new(echo_server);
    let translate = tool(
        "translate",
        json!({"type": "object", "properties": {"locale": {"type": "string", "x-mcp-header": "X-Locale"}, "query": {"type": "string"}}}),
    );
    rig.call(&endpoint(), &translate, json!({"locale": "fr-CA ", "query": "hello"}))
        .expect("called");
    let seen = &rig.seen()[0];
    let names: Vec<&str> = seen.headers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "Accept",
            "MCP-Protocol-Version",
            "Mcp-Method",
            "Mcp-Name",
            "Authorization",
            "Mcp-Param-X-Locale"
        ]
    );
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert_eq!(seen.header("mcp-method"), Some("tools/call"));
    assert_eq!(seen.header("mcp-name"), Some("translate"));
    assert_eq!(seen.header("mcp-param-x-locale"), Some("=?base64?ZnItQ0Eg?="));
    // The header mirrors the argument, which stays in the body: the servers
    // that check it (TypeScript SDK v2, Python mcp 2.x) refuse a call whose
    // header has no matching argument.
    assert_eq!(
        seen.body["params"]["arguments"],
        json!({"locale": "fr-CA ", "query": "hello"})
    );
    assert_eq!(seen.body["params"]["name"], json!("translate"));
    assert_eq!(seen.body["jsonrpc"], json!("2.0"));
    assert_eq!(
        seen.body["params"]["_meta"],
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "typst-side-agent", "version": "9.8.7"},
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    );
    assert!(seen.header("mcp-session-id").is_none());

    // A tool name that is not plain ASCII travels encoded.
    let named = tool("überprüfen", json!({"type": "object", "properties": {}}));
    rig.call(&endpoint(), &named, json!({})).expect("called");
    assert_eq!(rig.seen()[1].header("mcp-name"), Some("=?base64?w7xiZXJwcsO8ZmVu?="));
    // A value that cannot be a header fails before anything is sent.
    let strict = tool(
        "strict",
        json!({"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}}),
    );
    assert_eq!(
        code(rig.call(&endpoint(), &strict, json!({"n": 9_007_199_254_740_993_u64}))),
        ErrorCode::InvalidMcpHeaderValue
    );
    assert_eq!(rig.seen().len(), 2);
}

#[test]
fn request_ids_count_up_per_client() {
    let rig = Rig::new(echo_server);
    let echo = tool("echo", json!({"type": "object"}));
    for _ in 0..3 {
        rig.call(&endpoint(), &echo, json!({})).expect("called");
    }
    let ids: Vec<Value> = rig.seen().iter().map(Seen::id).collect();
    assert_eq!(ids, [json!(1), json!(2), json!(3)]);
}

#[test]
fn configured_headers_may_not_take_over_managed_ones() {
    let rig = Rig::new(echo_server);
    let echo = tool("echo", json!({"type": "object"}));
    for name in [
        "Mcp-Method",
        "mcp-param-x",
        "Accept",
        "content-type",
        "MCP-Protocol-Version",
        "Mcp-Name",
        "Mcp-Session-Id",
    ] {
        let configured = McpEndpoint {
            headers: vec![(name.to_owned(), "override".to_owned())],
            ..endpoint()
        };
        let error = rig.call(&configured, &echo, json!({})).expect_err("refused");
        assert_eq!(error.code, ErrorCode::McpHeaderConflict, "{name}");
        assert_eq!(
            error.message,
            format!("Configured header \"{name}\" conflicts with an MCP protocol header.")
        );
        assert_eq!(code(rig.discover(&configured, true)), ErrorCode::McpHeaderConflict);
    }
    assert!(rig.seen().is_empty());
    let fine = McpEndpoint {
        headers: vec![
            ("X-Api-Key".to_owned(), "k".to_owned()),
            (String::new(), "skipped".to_owned()),
        ],
        ..endpoint()
    };
    rig.call(&fine, &echo, json!({})).expect("called");
    assert_eq!(rig.seen()[0].header("x-api-key"), Some("k"));
    assert_eq!(rig.network.requests()[0].url, URL);
}
