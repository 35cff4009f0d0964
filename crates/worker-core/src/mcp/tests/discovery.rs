//! Discovery: pagination, which tools are taken and which are reported,
//! the page and tool limits, and the cache (lifetime rules, key, hits,
//! expiry, forced refresh, invalidation, its bound).

use super::support::{Rig, Seen, code, endpoint, json_reply, result};
use crate::mcp::McpEndpoint;
use crate::mcp::discovery::CacheStatus;
use crate::platform::Clock;
use protocol::ErrorCode;
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

/// A 2026-07-28 server whose `tools/list` pages are `pages`, in order
/// (the last one repeats).
fn paged(pages: Vec<Value>) -> Rig {
    let served = Rc::new(Cell::new(0usize));
    Rig::new(move |request| {
        let seen = Seen::of(request);
        let index = served.get().min(pages.len() - 1);
        served.set(served.get() + 1);
        Ok(json_reply(200, &result(&seen.id(), pages[index].clone())))
    })
}

fn names(rig: &Rig, endpoint: &McpEndpoint) -> Vec<String> {
    let listing = rig.discover(endpoint, true).expect("discovered").listing;
    listing.tools.iter().map(|t| t.name.clone()).collect()
}

#[test]
fn discovery_paginates_validates_and_caches() {
    // The original's first transport test.
    let rig = paged(vec![
        json!({"tools": [
            {"name": "first", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "patternProperties": {}}},
        ], "nextCursor": "next", "ttlMs": 8000}),
        json!({"tools": [{"name": "second", "inputSchema": {"type": "object", "properties": {}}}], "ttlMs": 5000, "cacheScope": "private"}),
    ]);
    let first = rig.discover(&endpoint(), false).expect("discovered");
    let listing = &first.listing;
    assert_eq!(listing.version, "2026-07-28");
    assert_eq!(listing.pages, 2);
    let tools: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["first", "second"]);
    assert_eq!(listing.errors[0].code, ErrorCode::InvalidMcpSchema);
    assert_eq!(listing.errors[0].name, "bad");
    assert_eq!(first.cache, CacheStatus::Miss);
    assert_eq!(listing.ttl_ms, 5000.0);
    let seen = rig.seen();
    assert_eq!(seen[0].header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(seen[0].header("mcp-method"), Some("tools/list"));
    assert_eq!(
        seen[0].body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        json!("2026-07-28")
    );
    assert_eq!(
        seen[0].body["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["version"],
        json!("9.8.7")
    );
    assert!(seen[0].body["params"].get("cursor").is_none());
    assert_eq!(seen[1].body["params"]["cursor"], json!("next"));

    let cached = rig.discover(&endpoint(), false).expect("cached");
    assert_eq!(cached.cache, CacheStatus::Hit);
    assert_eq!(cached.expires_at, first.expires_at);
    assert_eq!(rig.seen().len(), 2);
}

#[test]
fn tools_need_a_unique_string_name_and_a_supported_schema() {
    let rig = paged(vec![json!({"tools": [
        {"name": "a"},
        {"name": "a"},
        {},
        null,
        {"name": 5},
        {"name": "s", "inputSchema": {"type": "string"}},
        {"name": "h", "inputSchema": {"type": "object", "properties": {"k": {"type": "string", "x-mcp-header": "K"}}}},
        {"name": "z", "inputSchema": null},
        {"name": ""},
    ]})]);
    let listing = rig.discover(&endpoint(), false).expect("discovered").listing;
    let tools: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(tools, ["a", "h", "z", ""]);
    let errors: Vec<(ErrorCode, &str)> = listing.errors.iter().map(|e| (e.code, e.name.as_str())).collect();
    assert_eq!(
        errors,
        [
            (ErrorCode::DuplicateOrInvalidTool, "a"),
            (ErrorCode::DuplicateOrInvalidTool, ""),
            (ErrorCode::DuplicateOrInvalidTool, ""),
            (ErrorCode::DuplicateOrInvalidTool, "5"),
            (ErrorCode::InvalidMcpSchema, "s"),
        ]
    );
    assert_eq!(listing.errors[0].message, "Tool name is missing or duplicated.");
    assert!(!listing.errors[4].message.is_empty());
    // The tool object is kept as listed, and a missing schema is the empty object schema.
    assert_eq!(listing.tools[0].raw, json!({"name": "a"}));
    assert_eq!(
        listing.tools[2].schema.schema(),
        &json!({"type": "object", "properties": {}})
    );
}

#[test]
fn multi_round_input_is_refused_and_complete_is_fine() {
    for (result_type, ok) in [
        (json!("complete"), true),
        (json!(""), true),
        (Value::Null, true),
        (json!("input_required"), false),
        (json!(5), false),
    ] {
        let rig = paged(vec![json!({"tools": [], "resultType": result_type})]);
        let outcome = rig.discover(&endpoint(), true);
        assert_eq!(outcome.is_ok(), ok, "{result_type}");
        if !ok {
            assert_eq!(code(outcome), ErrorCode::McpInputRequiredUnsupported);
        }
    }
}

#[test]
fn pages_and_tools_are_bounded() {
    // An endless cursor: twenty pages, no more.
    let counter = Rc::new(Cell::new(0u32));
    let count = counter.clone();
    let rig = Rig::new(move |request| {
        let seen = Seen::of(request);
        count.set(count.get() + 1);
        let page = json!({"tools": [], "nextCursor": format!("page-{}", count.get())});
        Ok(json_reply(200, &result(&seen.id(), page)))
    });
    let error = rig.discover(&endpoint(), true).expect_err("endless");
    assert_eq!(error.code, ErrorCode::McpPageLimit);
    assert_eq!(error.message, "MCP tools/list exceeded 20 pages.");
    assert_eq!(counter.get(), 20);

    let many = |n: usize| {
        let tools: Vec<Value> = (0..n)
            .map(|i| json!({"name": format!("tool_{i}"), "inputSchema": {"type": "object", "properties": {}}}))
            .collect();
        json!({ "tools": tools })
    };
    assert_eq!(names(&paged(vec![many(500)]), &endpoint()).len(), 500);
    for n in [501, 10_000] {
        let error = paged(vec![many(n)]).discover(&endpoint(), true).expect_err("too many");
        assert_eq!(error.code, ErrorCode::McpToolLimit);
        assert_eq!(error.message, "MCP discovery exceeded 500 tools.");
    }
    // Ten thousand rejected tools are reported up to the bound, not fatal.
    let invalid: Vec<Value> = (0..10_000)
        .map(|i| json!({"name": format!("bad_{i}"), "inputSchema": {"type": "string"}}))
        .collect();
    let listing = paged(vec![json!({ "tools": invalid })])
        .discover(&endpoint(), true)
        .expect("listed")
        .listing;
    assert!(listing.tools.is_empty());
    assert_eq!(listing.errors.len(), 500);
}

#[test]
fn a_cursor_continues_only_as_a_non_empty_string() {
    for next in [json!(""), json!(5), Value::Null] {
        let rig = paged(vec![
            json!({"tools": [{"name": "a"}], "nextCursor": next}),
            json!({"tools": [{"name": "b"}]}),
        ]);
        assert_eq!(names(&rig, &endpoint()), ["a"], "{next}");
    }
    let rig = paged(vec![
        json!({"tools": "not a list", "nextCursor": "more"}),
        json!({"tools": [{"name": "b"}]}),
    ]);
    assert_eq!(names(&rig, &endpoint()), ["b"]);
}

fn ttl(pages: Vec<Value>) -> f64 {
    paged(pages)
        .discover(&endpoint(), true)
        .expect("discovered")
        .listing
        .ttl_ms
}

#[test]
fn the_lifetime_starts_at_a_minute_and_pages_only_shorten_it() {
    let page = |ttl: Value| json!({"tools": [], "ttlMs": ttl, "nextCursor": null});
    assert_eq!(ttl(vec![json!({"tools": []})]), 60_000.0);
    assert_eq!(
        ttl(vec![page(json!(36_000_000))]),
        60_000.0,
        "never above the start, so never above an hour"
    );
    assert_eq!(ttl(vec![page(json!(-5))]), 0.0);
    assert_eq!(ttl(vec![page(json!("5000"))]), 60_000.0, "only numbers count");
    assert_eq!(ttl(vec![page(json!(1.5))]), 1.5);
    let two = |a: i64, b: i64| {
        vec![
            json!({"tools": [], "ttlMs": a, "nextCursor": "n"}),
            json!({"tools": [], "ttlMs": b}),
        ]
    };
    assert_eq!(ttl(two(8_000, 5_000)), 5_000.0);
    assert_eq!(ttl(two(5_000, 8_000)), 5_000.0);
}

#[test]
fn the_scope_is_private_unless_a_page_names_one() {
    let scope = |pages| {
        paged(pages)
            .discover(&endpoint(), true)
            .expect("discovered")
            .listing
            .cache_scope
            .clone()
    };
    assert_eq!(scope(vec![json!({"tools": []})]), "private");
    assert_eq!(
        scope(vec![
            json!({"tools": [], "cacheScope": "public", "nextCursor": "n"}),
            json!({"tools": []})
        ]),
        "public"
    );
    assert_eq!(scope(vec![json!({"tools": [], "cacheScope": 3})]), "private");
}

#[test]
fn the_cache_hits_until_it_expires_and_a_forced_refresh_always_asks() {
    let rig = paged(vec![json!({"tools": [{"name": "a"}], "ttlMs": 5_000})]);
    let start = rig.clock.now_ms();
    let miss = rig.discover(&endpoint(), false).expect("miss");
    assert_eq!((miss.cache, miss.expires_at), (CacheStatus::Miss, start + 5_000.0));
    rig.clock.advance(4_999.0);
    assert_eq!(rig.discover(&endpoint(), false).expect("hit").cache, CacheStatus::Hit);
    rig.clock.advance(1.0);
    assert_eq!(
        rig.discover(&endpoint(), false).expect("expired").cache,
        CacheStatus::Miss
    );
    assert_eq!(rig.seen().len(), 2);
    let forced = rig.discover(&endpoint(), true).expect("forced");
    assert_eq!(forced.cache, CacheStatus::Miss);
    assert_eq!(
        rig.discover(&endpoint(), false).expect("stored again").cache,
        CacheStatus::Hit
    );
    assert_eq!(rig.seen().len(), 3);

    // `ttlMs: 0` (what the v2 handler and Python answer) never hits.
    let rig = paged(vec![json!({"tools": [], "ttlMs": 0})]);
    rig.discover(&endpoint(), false).expect("miss");
    assert_eq!(
        rig.discover(&endpoint(), false).expect("miss again").cache,
        CacheStatus::Miss
    );
}

#[test]
fn the_key_is_the_configuration() {
    let rig = paged(vec![json!({"tools": []})]);
    let with = |headers: &[(&str, &str)]| McpEndpoint {
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        ..endpoint()
    };
    rig.discover(&with(&[("A", "1"), ("b", "2")]), false).expect("miss");
    let hit = |endpoint: &McpEndpoint| rig.discover(endpoint, false).expect("discovered").cache == CacheStatus::Hit;
    assert!(
        hit(&with(&[("b", "2"), ("a", "1")])),
        "order and case of names do not matter"
    );
    assert!(!hit(&with(&[("A", "1"), ("b", "3")])), "values do");
    let base = with(&[("A", "1"), ("b", "2")]);
    assert!(!hit(&McpEndpoint {
        url: "https://mcp.example/other".to_owned(),
        ..base.clone()
    }));
    assert!(!hit(&McpEndpoint {
        id: "server-9".to_owned(),
        ..base.clone()
    }));
    assert!(!hit(&McpEndpoint {
        protocol_mode: "2026-07-28".to_owned(),
        ..base.clone()
    }));
    assert!(
        hit(&McpEndpoint {
            protocol_mode: String::new(),
            ..base.clone()
        }),
        "an empty mode is `auto`"
    );
    assert!(hit(&base));
}

#[test]
fn invalidation_and_the_bound_forget_listings() {
    let rig = paged(vec![json!({"tools": []})]);
    let server = |i: usize| McpEndpoint {
        id: format!("server-{i}"),
        ..endpoint()
    };
    rig.discover(&server(0), false).expect("miss");
    rig.discover(&server(1), false).expect("miss");
    rig.client.invalidate("server-0");
    rig.client.invalidate("unknown");
    assert_eq!(rig.discover(&server(0), false).expect("gone").cache, CacheStatus::Miss);
    assert_eq!(rig.discover(&server(1), false).expect("kept").cache, CacheStatus::Hit);

    for i in 2..=65 {
        rig.discover(&server(i), false).expect("miss");
    }
    // 66 configurations were cached; the two oldest made room.
    assert_eq!(
        rig.discover(&server(65), false).expect("newest").cache,
        CacheStatus::Hit
    );
    assert_eq!(rig.discover(&server(2), false).expect("kept").cache, CacheStatus::Hit);
    assert_eq!(
        rig.discover(&server(0), false).expect("evicted").cache,
        CacheStatus::Miss
    );
}

#[test]
fn the_probe_answer_has_the_original_shape() {
    let rig = paged(vec![
        json!({"tools": [{"name": "a", "description": "d"}, {"name": "a"}], "ttlMs": 1_000, "cacheScope": "shared"}),
    ]);
    let discovery = rig.discover(&endpoint(), true).expect("discovered");
    assert_eq!(
        discovery.to_json(),
        json!({
            "tools": [{"name": "a", "description": "d"}],
            "errors": [{"code": "DUPLICATE_OR_INVALID_TOOL", "name": "a", "message": "Tool name is missing or duplicated."}],
            "version": "2026-07-28",
            "pages": 1,
            "ttlMs": 1000,
            "cacheScope": "shared",
            "cache": {"status": "miss", "expiresAt": protocol::js::number_value(rig.clock.now_ms() + 1000.0)},
        })
    );
}
