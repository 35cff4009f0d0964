//! The spec's result table, row by row: every measured server
//! configuration lists `echo` and `add` and calls them (`echo("héllo")`,
//! `add(2, 3)`) in `auto` mode, in the era the official client negotiated.

use super::servers::{Framing, Kind, Wiring, serve};
use super::support::{Rig, endpoint};
use crate::mcp::DiscoveredTool;
use crate::mcp::discovery::CacheStatus;
use serde_json::json;

struct Row {
    label: &'static str,
    kind: Kind,
    version: &'static str,
    sum: &'static str,
}

fn rows() -> Vec<Row> {
    let v2 = |framing, reject_legacy| Kind::V2Handler { framing, reject_legacy };
    let classic = |wiring, framing| Kind::Classic { wiring, framing };
    let python = |stateful, framing| Kind::Python { stateful, framing };
    let row = |label, kind, version, sum| Row {
        label,
        kind,
        version,
        sum,
    };
    vec![
        row(
            "SDK v2 createMcpHandler default (auto → JSON)",
            v2(Framing::Json, false),
            "2026-07-28",
            "5",
        ),
        row(
            "SDK v2 createMcpHandler responseMode sse",
            v2(Framing::Sse, false),
            "2026-07-28",
            "5",
        ),
        row(
            "SDK v2 createMcpHandler responseMode json",
            v2(Framing::Json, false),
            "2026-07-28",
            "5",
        ),
        row(
            "SDK v2 createMcpHandler legacy reject",
            v2(Framing::Json, true),
            "2026-07-28",
            "5",
        ),
        row(
            "SDK v2 transport, session map, SSE",
            classic(Wiring::SessionMap, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v2 transport, session map, JSON",
            classic(Wiring::SessionMap, Framing::Json),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v2 transport, one instance",
            classic(Wiring::SingleTransport, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v2 transport, stateless, SSE",
            classic(Wiring::Stateless, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v2 transport, stateless, JSON",
            classic(Wiring::Stateless, Framing::Json),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v1 session map, SSE",
            classic(Wiring::SessionMap, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v1 session map, JSON",
            classic(Wiring::SessionMap, Framing::Json),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v1 one instance",
            classic(Wiring::SingleTransport, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v1 stateless, SSE",
            classic(Wiring::Stateless, Framing::Sse),
            "2025-11-25",
            "5",
        ),
        row(
            "SDK v1 stateless, JSON",
            classic(Wiring::Stateless, Framing::Json),
            "2025-11-25",
            "5",
        ),
        row("Python stateful, SSE", python(true, Framing::Sse), "2026-07-28", "5.0"),
        row(
            "Python stateful, json_response",
            python(true, Framing::Json),
            "2026-07-28",
            "5.0",
        ),
        row(
            "Python stateless_http, SSE",
            python(false, Framing::Sse),
            "2026-07-28",
            "5.0",
        ),
        row(
            "Python stateless_http, json_response",
            python(false, Framing::Json),
            "2026-07-28",
            "5.0",
        ),
    ]
}

fn find<'a>(tools: &'a [DiscoveredTool], name: &str) -> &'a DiscoveredTool {
    tools.iter().find(|tool| tool.name == name).expect("the tool is listed")
}

#[test]
fn every_measured_server_lists_and_calls_its_tools() {
    for row in rows() {
        let (_server, responder) = serve(row.kind);
        let rig = Rig::new(responder);
        let discovery = rig
            .discover(&endpoint(), false)
            .unwrap_or_else(|e| panic!("{}: {e}", row.label));
        let listing = &discovery.listing;
        assert_eq!(listing.version, row.version, "{}", row.label);
        let names: Vec<&str> = listing.tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names, ["echo", "add", "lookup"], "{}", row.label);
        assert!(listing.errors.is_empty(), "{}: {:?}", row.label, listing.errors);
        assert_eq!(discovery.cache, CacheStatus::Miss);

        let echo = rig.call(&endpoint(), find(&listing.tools, "echo"), json!({"text": "héllo"}));
        assert_eq!(echo.map(|r| r.content), Ok("héllo".to_owned()), "{}", row.label);
        let add = rig.call(&endpoint(), find(&listing.tools, "add"), json!({"a": 2, "b": 3}));
        assert_eq!(add.map(|r| r.content), Ok(row.sum.to_owned()), "{}", row.label);
        // The 2026-07-28 servers refuse a lookup whose Mcp-Param-Region
        // header and body disagree; the client mirrors the argument.
        let lookup = find(&listing.tools, "lookup");
        let found = rig.call(&endpoint(), lookup, json!({"region": "eu-west", "query": "grid"}));
        assert_eq!(found.map(|r| r.content), Ok("eu-west:grid".to_owned()), "{}", row.label);

        for seen in rig.seen() {
            // Whatever the era, both framings are accepted, and the
            // configured header always travels.
            assert_eq!(
                seen.header("accept"),
                Some("application/json, text/event-stream"),
                "{}",
                row.label
            );
            assert_eq!(seen.header("authorization"), Some("Bearer fixture"), "{}", row.label);
        }
    }
}

#[test]
fn modern_servers_are_asked_nothing_but_the_requests_themselves() {
    for kind in [
        Kind::V2Handler {
            framing: Framing::Sse,
            reject_legacy: true,
        },
        Kind::Python {
            stateful: true,
            framing: Framing::Sse,
        },
    ] {
        let (_server, responder) = serve(kind);
        let rig = Rig::new(responder);
        let listing = rig.discover(&endpoint(), false).expect("discovered").listing;
        rig.call(&endpoint(), find(&listing.tools, "echo"), json!({"text": "x"}))
            .expect("called");
        let seen = rig.seen();
        let methods: Vec<&str> = seen.iter().map(|s| s.method()).collect();
        assert_eq!(methods, ["tools/list", "tools/call"], "{kind:?}");
        assert!(
            seen.iter()
                .all(|s| s.is_modern() && s.header("mcp-session-id").is_none())
        );
        assert_eq!(seen[1].header("mcp-name"), Some("echo"));
    }
}

#[test]
fn legacy_servers_get_the_handshake_once_then_requests_in_the_session() {
    let kind = Kind::Classic {
        wiring: Wiring::SessionMap,
        framing: Framing::Sse,
    };
    let (_server, responder) = serve(kind);
    let rig = Rig::new(responder);
    let listing = rig.discover(&endpoint(), false).expect("discovered").listing;
    rig.call(&endpoint(), find(&listing.tools, "add"), json!({"a": 2, "b": 3}))
        .expect("called");
    rig.discover(&endpoint(), true).expect("discovered again");
    let seen = rig.seen();
    let methods: Vec<&str> = seen.iter().map(|s| s.method()).collect();
    assert_eq!(
        methods,
        [
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call",
            "tools/list"
        ]
    );
    assert!(seen[0].is_modern());
    // The handshake offers 2025-11-25 with no version header and no envelope.
    assert_eq!(seen[1].header("mcp-protocol-version"), None);
    assert_eq!(seen[1].body["params"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(
        seen[1].body["params"]["clientInfo"],
        json!({"name": "typst-side-agent", "version": "9.8.7"})
    );
    assert_eq!(seen[1].body["params"]["capabilities"], json!({}));
    assert!(seen[1].body["params"].get("_meta").is_none());
    for later in &seen[2..] {
        assert_eq!(later.header("mcp-session-id"), Some("session-1"));
        assert_eq!(later.header("mcp-protocol-version"), Some("2025-11-25"));
        assert!(!later.is_modern(), "no 2026-07-28 claim inside a 2025 session");
    }
    assert!(seen[2].body.get("id").is_none(), "initialized is a notification");
}
