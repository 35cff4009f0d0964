//! Approvals of calls that leave the extension, through whole runs: the
//! banner and its identity, Approve once, Allow for run (for exactly that
//! identity and that run), Deny, five silent minutes, Stop while it waits,
//! trust bound to the exact stored configuration, and the editor's Auto
//! approve mode, which never approves a network call.

use super::support::{
    MCP_URL, TOOL_URL, harness, json_reply, mcp_server, server, store, tool, tool_answers, trusted_tool, user, visible,
};
use crate::fakes::{FakeTypstPages, Harness, calls, text};
use protocol::constants::storage_keys;
use serde_json::{Value, json};

/// A custom tool server that answers `{echo: <query>}` and counts calls.
fn tool_server(h: &Harness<FakeTypstPages>) {
    h.serve(TOOL_URL, |request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        Ok(json_reply(200, &json!({"echo": body["arguments"]["query"]})))
    });
}

fn tool_calls(h: &Harness<FakeTypstPages>) -> usize {
    h.platform()
        .network
        .requests()
        .iter()
        .filter(|request| request.url == TOOL_URL)
        .count()
}

fn banners(h: &Harness<FakeTypstPages>, run_id: &str) -> Vec<Value> {
    h.payloads(run_id, "AI_TOOL_APPROVAL_REQUIRED")
}

#[test]
fn approve_once_runs_one_call_and_the_next_call_asks_again() {
    let mut h = harness();
    tool_server(&h);
    store(&mut h, vec![], vec![tool("t1", "lookup_paper", TOOL_URL)]);
    let session = h.session(json!([user("Find")]));
    h.script(
        "run-1",
        vec![
            calls(&[("c1", "lookup_paper", json!({"query": "a"}))]),
            calls(&[("c2", "lookup_paper", json!({"query": "b"}))]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Find")]), json!({}));
    let banner = banners(&h, "run-1")[0].clone();
    assert_eq!(banner["callId"], "c1");
    assert_eq!(banner["name"], "lookup_paper");
    assert_eq!(banner["identity"], "custom:t1");
    assert_eq!(banner["effect"], "external");
    assert_eq!(banner["destination"], "https://tools.fixture");
    assert_eq!(banner["arguments"], "{\n  \"query\": \"a\"\n}");
    assert_eq!(tool_calls(&h), 0, "nothing is sent before the user answers");
    assert_eq!(h.resolve("run-1", "c1", "approve_once"), json!({"ok": true}));
    assert_eq!(tool_calls(&h), 1);
    assert_eq!(banners(&h, "run-1").len(), 2, "the second call asks again");
    h.resolve("run-1", "c2", "approve_once");
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    assert_eq!(
        tool_answers(&h, "run-1")[1],
        json!({"ok": true, "result": {"echo": "b"}})
    );
}

#[test]
fn allow_for_run_grants_exactly_that_identity_for_that_run() {
    let mut h = harness();
    tool_server(&h);
    let docs = server("docs", "Docs", MCP_URL);
    mcp_server(&h, MCP_URL);
    store(
        &mut h,
        vec![docs.clone()],
        vec![
            tool("t1", "lookup_paper", TOOL_URL),
            tool("t2", "lookup_other", TOOL_URL),
        ],
    );
    let (echo, add) = (visible(&docs, "echo"), visible(&docs, "add"));
    let session = h.session(json!([user("Go")]));
    h.script(
        "run-1",
        vec![
            calls(&[
                ("c1", "lookup_paper", json!({"query": "a"})),
                ("c2", "lookup_paper", json!({"query": "b"})),
                ("c3", "lookup_other", json!({"query": "c"})),
                ("c4", echo.as_str(), json!({"text": "x"})),
                ("c5", echo.as_str(), json!({"text": "y"})),
                ("c6", add.as_str(), json!({"a": 1, "b": 2})),
            ]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Go")]), json!({}));
    h.resolve("run-1", "c1", "allow_run");
    // c2 ran without a banner; c3 is another tool.
    let asked: Vec<Value> = banners(&h, "run-1").iter().map(|b| b["callId"].clone()).collect();
    assert_eq!(asked, [json!("c1"), json!("c3")]);
    h.resolve("run-1", "c3", "approve_once");
    let banner = banners(&h, "run-1")[2].clone();
    assert_eq!(banner["identity"], "mcp:docs:echo");
    assert_eq!(banner["destination"], "https://mcp.fixture");
    h.resolve("run-1", "c4", "allow_run");
    let asked: Vec<Value> = banners(&h, "run-1").iter().map(|b| b["callId"].clone()).collect();
    assert_eq!(
        asked.last(),
        Some(&json!("c6")),
        "add is another identity of the same server"
    );
    h.resolve("run-1", "c6", "deny");
    assert_eq!(run.data()["ok"], true);
    let answers = tool_answers(&h, "run-1");
    assert_eq!(answers[4], json!({"ok": true, "content": "y"}));
    assert_eq!(answers[5]["code"], "TOOL_DENIED");

    // A grant ends with its run.
    h.script(
        "run-2",
        vec![calls(&[("d1", "lookup_paper", json!({"query": "a"}))]), text("Done.")],
    );
    let next = h.start("run-2", &session, json!([user("Again")]), json!({}));
    assert_eq!(banners(&h, "run-2").len(), 1);
    h.resolve("run-2", "d1", "deny");
    assert_eq!(next.data()["ok"], true);
}

#[test]
fn deny_and_five_silent_minutes_send_nothing() {
    let mut h = harness();
    tool_server(&h);
    store(&mut h, vec![], vec![tool("t1", "lookup_paper", TOOL_URL)]);
    let session = h.session(json!([user("Find")]));
    h.script(
        "run-1",
        vec![calls(&[("c1", "lookup_paper", json!({"query": "a"}))]), text("Denied.")],
    );
    let run = h.start("run-1", &session, json!([user("Find")]), json!({}));
    h.resolve("run-1", "c1", "deny");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(tool_answers(&h, "run-1")[0]["code"], "TOOL_DENIED");

    // Nothing held: the five minutes pass at once, and count as a denial.
    h.platform().clock.hold_sleeps_from(None);
    h.script(
        "run-2",
        vec![
            calls(&[("d1", "lookup_paper", json!({"query": "a"}))]),
            text("Silence."),
        ],
    );
    let silent = h.start("run-2", &session, json!([user("Again")]), json!({}));
    assert_eq!(silent.data()["ok"], true);
    assert_eq!(tool_answers(&h, "run-2")[0]["code"], "TOOL_DENIED");
    assert!(h.platform().clock.sleeps().contains(&300_000));
    assert_eq!(tool_calls(&h), 0);
}

#[test]
fn stop_while_an_external_call_waits_for_approval_ends_the_run() {
    let mut h = harness();
    tool_server(&h);
    store(&mut h, vec![], vec![tool("t1", "lookup_paper", TOOL_URL)]);
    let session = h.session(json!([user("Find")]));
    h.script("run-1", vec![calls(&[("c1", "lookup_paper", json!({"query": "a"}))])]);
    let run = h.start("run-1", &session, json!([user("Find")]), json!({}));
    assert_eq!(banners(&h, "run-1").len(), 1);
    h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "cancelled": true, "runId": "run-1"}));
    assert_eq!(tool_calls(&h), 0);
    assert!(!h.resolve("run-1", "c1", "approve_once")["ok"].as_bool().unwrap_or(true));
}

#[test]
fn trust_holds_only_for_the_exact_stored_configuration() {
    let mut h = harness();
    tool_server(&h);
    let trusted = trusted_tool(tool("t1", "lookup_paper", TOOL_URL));
    let mut stale = trusted_tool(tool("t2", "lookup_other", TOOL_URL));
    // Changed after it was trusted (stored by hand: the form would have
    // unticked Trusted).
    stale["description"] = json!("Changed.");
    store(&mut h, vec![], vec![trusted]);
    let stored = h.platform().browser.storage.value(storage_keys::CUSTOM_TOOLS);
    let mut list = stored.and_then(|v| v.as_array().cloned()).unwrap_or_default();
    list.push(stale);
    h.platform()
        .browser
        .storage
        .put(storage_keys::CUSTOM_TOOLS, Value::Array(list));
    let session = h.session(json!([user("Find")]));
    h.script(
        "run-1",
        vec![
            calls(&[
                ("c1", "lookup_paper", json!({"query": "a"})),
                ("c2", "lookup_other", json!({"query": "b"})),
            ]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Find")]), json!({}));
    let asked: Vec<Value> = banners(&h, "run-1").iter().map(|b| b["callId"].clone()).collect();
    assert_eq!(
        asked,
        [json!("c2")],
        "the trusted one ran at once, the changed one asks"
    );
    h.resolve("run-1", "c2", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(tool_calls(&h), 2);
}

#[test]
fn the_editors_auto_approve_mode_never_approves_a_network_call() {
    let mut h = harness();
    tool_server(&h);
    let docs = server("docs", "Docs", MCP_URL);
    mcp_server(&h, MCP_URL);
    store(&mut h, vec![docs.clone()], vec![tool("t1", "lookup_paper", TOOL_URL)]);
    let echo = visible(&docs, "echo");
    let session = h.session(json!([user("Go")]));
    h.script(
        "run-1",
        vec![
            calls(&[
                ("c1", "lookup_paper", json!({"query": "a"})),
                ("c2", echo.as_str(), json!({"text": "x"})),
            ]),
            text("Done."),
        ],
    );
    let settings = json!({"settings": {"maxHistoryMessages": 40, "editorApprovalMode": "auto"}});
    let run = h.start("run-1", &session, json!([user("Go")]), settings);
    assert_eq!(banners(&h, "run-1").len(), 1);
    h.resolve("run-1", "c1", "approve_once");
    assert_eq!(banners(&h, "run-1").len(), 2);
    h.resolve("run-1", "c2", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(tool_answers(&h, "run-1")[1], json!({"ok": true, "content": "x"}));
}
