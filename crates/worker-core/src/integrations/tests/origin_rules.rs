//! The `Origin` session rules: their exact shape, and the rule set kept in
//! step with the enabled servers as stored (at start-up, after every save)
//! and with the server being probed; a refused update is not fatal.

use super::support::{harness, json_reply, server};
use crate::fakes::{EXTENSION_ID, FakePlatform, VERSION, block_on, data};
use crate::integrations::origin_rules::{origin_rule, rule_origins};
use crate::worker::Worker;
use protocol::constants::storage_keys;
use protocol::registry_records::McpServer;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

/// The `urlFilter`s of a rule set, by rule id.
type Filters = Vec<(u32, String)>;

/// The `urlFilter`s in force, by rule id.
fn filters(rules: &std::collections::BTreeMap<u32, Value>) -> Filters {
    rules
        .iter()
        .map(|(id, rule)| {
            (
                *id,
                rule["condition"]["urlFilter"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_rule_removes_origin_only_from_the_extensions_requests_to_exactly_one_origin() {
    assert_eq!(
        origin_rule(1_000, "http://127.0.0.1:8000", EXTENSION_ID),
        json!({
            "id": 1_000,
            "priority": 1,
            "action": {"type": "modifyHeaders", "requestHeaders": [{"header": "origin", "operation": "remove"}]},
            "condition": {
                "urlFilter": "|http://127.0.0.1:8000/",
                "initiatorDomains": [EXTENSION_ID],
                "resourceTypes": ["xmlhttprequest", "other"]
            }
        })
    );
}

#[test]
fn the_origins_are_the_enabled_servers_once_each_then_the_probes_within_the_limit() {
    let stored: Vec<Value> = vec![
        server("a", "A", "http://127.0.0.1:8000/mcp"),
        server("b", "B", "http://127.0.0.1:8000/other"),
        json!({"id": "c", "url": "https://mcp.example/rpc", "enabled": false}),
        json!({"id": "d", "url": "not a url"}),
        json!({"id": "e", "url": "http://192.0.2.9/mcp"}),
        json!({"id": "f", "url": "http://192.0.2.9/mcp", "insecureTransportAcknowledged": true,
            "insecureTransportAcknowledgedOrigin": "http://192.0.2.9"}),
        server("g", "G", "https://MCP.Example:443/rpc"),
    ];
    let servers = McpServer::list_from_stored(Some(&Value::Array(stored)));
    assert_eq!(
        rule_origins(
            &servers,
            &["http://localhost:9000".to_owned(), "https://mcp.example".to_owned()]
        ),
        [
            "http://127.0.0.1:8000",
            "http://192.0.2.9",
            "https://mcp.example",
            "http://localhost:9000"
        ]
    );
    let many: Vec<McpServer> = (0..70)
        .map(|n| {
            McpServer::from_stored(&server(
                &format!("s{n}"),
                "S",
                &format!("http://127.0.0.1:{}/mcp", 9000 + n),
            ))
        })
        .collect();
    let origins = rule_origins(&many, &[]);
    assert_eq!(origins.len(), 64);
    assert_eq!(origins.last().map(String::as_str), Some("http://127.0.0.1:9063"));
}

#[test]
fn start_up_rebuilds_the_rules_from_the_stored_servers() {
    let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), VERSION);
    let browser = &worker.platform.browser;
    browser.storage.put(
        storage_keys::MCP_SERVERS,
        json!([
            server("a", "A", "http://127.0.0.1:8000/mcp"),
            server("b", "B", "https://mcp.example/rpc")
        ]),
    );
    let problems = block_on(worker.bootstrap());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        filters(&browser.session_rules()),
        [
            (1_000, "|http://127.0.0.1:8000/".to_owned()),
            (1_001, "|https://mcp.example/".to_owned())
        ]
    );

    browser.fail_rule_updates(Some("declarativeNetRequest is not available."));
    let problems = block_on(worker.bootstrap());
    assert_eq!(
        problems,
        ["The MCP Origin rules could not be set: declarativeNetRequest is not available."]
    );
    assert_eq!(browser.session_rules().len(), 2, "a refused update changes nothing");
}

#[test]
fn every_save_of_the_servers_rebuilds_the_rules() {
    let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), VERSION);
    let browser = &worker.platform.browser;
    let (a, b) = (
        server("a", "A", "http://127.0.0.1:8000/mcp"),
        server("b", "B", "https://mcp.example/rpc"),
    );
    data(&worker, "SAVE_MCP_SERVERS", json!({"servers": [a, b]}));
    assert_eq!(browser.session_rules().len(), 2);
    data(
        &worker,
        "SAVE_MCP_SERVERS",
        json!({"servers": [], "mutation": {"type": "toggle", "id": "a"}}),
    );
    assert_eq!(
        filters(&browser.session_rules()),
        [(1_000, "|https://mcp.example/".to_owned())]
    );
    data(
        &worker,
        "SAVE_MCP_SERVERS",
        json!({"servers": [], "mutation": {"type": "remove", "id": "b"}}),
    );
    assert!(browser.session_rules().is_empty());
    assert_eq!(browser.rule_updates(), 3);

    // A refused rule update does not refuse the save.
    browser.fail_rule_updates(Some("quota"));
    let saved = data(
        &worker,
        "SAVE_MCP_SERVERS",
        json!({"servers": [server("c", "C", "https://c.example/")]}),
    );
    assert_eq!(saved["ok"], true);
    assert_eq!(
        browser
            .storage
            .value(storage_keys::MCP_SERVERS)
            .map(|list| list[0]["id"].clone()),
        Some(json!("c"))
    );
}

#[test]
fn a_probe_has_a_rule_for_its_origin_while_it_asks_and_none_after() {
    let mut h = harness();
    let seen: Rc<RefCell<Vec<Filters>>> = Rc::default();
    let (record, worker) = (seen.clone(), Rc::downgrade(&h.worker));
    h.serve("http://127.0.0.1:8123/", move |request| {
        if let Some(worker) = worker.upgrade() {
            record
                .borrow_mut()
                .push(filters(&worker.platform.browser.session_rules()));
        }
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        Ok(json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": []}}),
        ))
    });
    let saved = server("saved", "Saved", "https://mcp.example/rpc");
    let answer = h.call("SAVE_MCP_SERVERS", None, json!({"servers": [saved]}));
    assert_eq!(answer["payload"]["ok"], true);
    let probe = h.call(
        "PROBE_MCP_SERVER",
        None,
        json!({"server": server("probe", "Local", "http://127.0.0.1:8123/mcp")}),
    );
    assert_eq!(probe["payload"]["data"]["ok"], true, "{probe}");
    let during = vec![
        (1_000, "|https://mcp.example/".to_owned()),
        (1_001, "|http://127.0.0.1:8123/".to_owned()),
    ];
    assert_eq!(seen.borrow().first(), Some(&during));
    assert_eq!(
        filters(&h.platform().browser.session_rules()),
        [(1_000, "|https://mcp.example/".to_owned())]
    );
}
