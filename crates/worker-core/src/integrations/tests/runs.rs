//! Whole runs with custom tools and MCP servers: what the run offers and in
//! which order, a server that fails at the start (a notice, the run goes
//! on), calls that reach the servers and answer the model, failures that are
//! tool results, custom tools the run cannot offer, and Stop during the
//! discovery.

use super::support::{
    MCP_URL, TOOL_URL, harness, json_reply, mcp_server, offered, server, store, tool, tool_answers, trusted_server,
    trusted_tool, user, visible,
};
use crate::fakes::{FakeChunk, FakeReply, calls, text};
use crate::platform::NetworkError;
use protocol::constants::{BUILTIN_TOOL_NAMES, storage_keys};
use serde_json::{Value, json};

#[test]
fn a_run_offers_builtins_then_custom_tools_then_each_servers_tools_and_a_failing_server_only_costs_its_tools() {
    let mut h = harness();
    let docs = trusted_server(server("docs", "Docs", MCP_URL));
    let down = server("down", "Down", "https://down.fixture/mcp");
    mcp_server(&h, MCP_URL);
    h.serve("https://down.fixture/", |_| {
        Err(NetworkError::Failed("Failed to fetch".into()))
    });
    let lookup = tool("t1", "lookup_paper", TOOL_URL);
    let mut off = tool("t2", "switched_off", TOOL_URL);
    off["enabled"] = json!(false);
    store(&mut h, vec![down.clone(), docs.clone()], vec![lookup, off]);
    let session = h.session(json!([user("What can you do?")]));
    h.script("run-1", vec![text("These tools.")]);
    let run = h.start("run-1", &session, json!([user("What can you do?")]), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));

    let mut expected: Vec<String> = BUILTIN_TOOL_NAMES.iter().map(|name| (*name).to_owned()).collect();
    expected.push("lookup_paper".to_owned());
    expected.push(visible(&docs, "echo"));
    expected.push(visible(&docs, "add"));
    expected.push(visible(&docs, "lookup"));
    assert_eq!(offered(&h, "run-1"), expected);
    let specs = h.model_requests("run-1")[0]["tools"].clone();
    assert_eq!(specs[10]["function"]["description"], "Looks things up.");
    assert_eq!(specs[11]["function"]["description"], "[MCP Docs] Echo the text back.");
    assert_eq!(specs[11]["function"]["parameters"]["required"], json!(["text"]));

    assert_eq!(
        h.event_types("run-1"),
        ["AI_RUN_NOTICE", "AI_STREAM_BATCH", "AI_STREAM_DONE"]
    );
    let notices = h.payloads("run-1", "AI_RUN_NOTICE")[0]["notices"].clone();
    assert_eq!(notices.as_array().map(Vec::len), Some(1));
    assert_eq!(notices[0]["code"], "MCP_NETWORK_ERROR");
    let message = notices[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("\"Down\"") && message.contains("Failed to fetch"),
        "{message}"
    );
}

#[test]
fn tools_a_server_lists_badly_are_left_out_and_reported_and_the_others_are_offered() {
    let mut h = harness();
    let record = server("odd", "Odd", MCP_URL);
    h.serve(MCP_URL, |request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        let tools = json!([
            {"name": "good", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "bad", "inputSchema": {"type": "object", "patternProperties": {}}},
            {"name": "good"},
        ]);
        Ok(json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": body["id"], "result": {"tools": tools}}),
        ))
    });
    store(&mut h, vec![record.clone()], vec![]);
    let session = h.session(json!([user("hi")]));
    h.script("run-1", vec![text("ok")]);
    let run = h.start("run-1", &session, json!([user("hi")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    assert_eq!(offered(&h, "run-1").last(), Some(&visible(&record, "good")));
    assert_eq!(offered(&h, "run-1").len(), 11);
    let notice = h.payloads("run-1", "AI_RUN_NOTICE")[0]["notices"][0].clone();
    assert_eq!(notice["code"], "INVALID_MCP_SCHEMA");
    let message = notice["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("2 tools of the MCP server \"Odd\""), "{message}");
}

#[test]
fn a_trusted_servers_tool_runs_at_once_and_its_answer_reaches_the_model() {
    let mut h = harness();
    let docs = trusted_server(server("docs", "Docs", MCP_URL));
    mcp_server(&h, MCP_URL);
    store(&mut h, vec![docs.clone()], vec![]);
    let session = h.session(json!([user("Echo it")]));
    let echo = visible(&docs, "echo");
    h.script(
        "run-1",
        vec![
            calls(&[
                ("c1", echo.as_str(), json!({"text": "héllo"})),
                ("c2", echo.as_str(), json!({"txt": 1})),
            ]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Echo it")]), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    assert!(
        h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").is_empty(),
        "trusted: no banner"
    );
    let answers = tool_answers(&h, "run-1");
    assert_eq!(answers[0], json!({"ok": true, "content": "héllo"}));
    assert_eq!(answers[1]["ok"], false, "invalid arguments never reach the server");
    assert_eq!(
        (answers[1]["code"].clone(), answers[1]["path"].clone()),
        (json!("REQUIRED"), json!("$.text"))
    );
    let calls_sent = h
        .platform()
        .network
        .requests()
        .iter()
        .filter(|request| request.body.as_deref().is_some_and(|body| body.contains("tools/call")))
        .count();
    assert_eq!(calls_sent, 1);
    let results = h.payloads("run-1", "AI_TOOL_RESULT");
    assert_eq!(results[0]["name"], json!(echo));
    let saved = h.stored_messages(&session);
    let segments = saved.last().map(|m| m["segments"].clone()).unwrap_or_default();
    let kept = &segments[0]["results"]["c1"];
    assert_eq!(kept["ok"], true, "the transcript keeps the result");
    assert!(kept["summary"].as_str().is_some_and(|s| s.contains("héllo")), "{kept}");
}

#[test]
fn a_failing_call_is_a_tool_result_and_the_run_goes_on() {
    let mut h = harness();
    let record = trusted_server(server("flaky", "Flaky", MCP_URL));
    h.serve(MCP_URL, |request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        let result = match body["method"].as_str() {
            Some("tools/list") => json!({"tools": [{"name": "fail", "inputSchema": {"type": "object"}},
                {"name": "gone", "inputSchema": {"type": "object"}}]}),
            _ if body["params"]["name"] == "gone" => {
                return Ok(FakeReply::text(503, "text/plain", &["Service Unavailable"]));
            }
            _ => json!({"content": [{"type": "text", "text": "it broke"}], "isError": true}),
        };
        Ok(json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": body["id"], "result": result}),
        ))
    });
    store(&mut h, vec![record.clone()], vec![]);
    let session = h.session(json!([user("Try")]));
    let (fail, gone) = (visible(&record, "fail"), visible(&record, "gone"));
    h.script(
        "run-1",
        vec![
            calls(&[("c1", fail.as_str(), json!({})), ("c2", gone.as_str(), json!({}))]),
            text("Both failed."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Try")]), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    let answers = tool_answers(&h, "run-1");
    assert_eq!(
        answers[0],
        json!({"ok": false, "code": "MCP_TOOL_ERROR", "error": "it broke"})
    );
    assert_eq!(answers[1]["code"], "MCP_INVALID_JSON");
}

#[test]
fn a_custom_tool_posts_its_arguments_and_answers_the_model() {
    let mut h = harness();
    let mut lookup = trusted_tool(tool("t1", "lookup_paper", TOOL_URL));
    lookup["headers"] = json!({"X-Api-Key": "k1"});
    let lookup = trusted_tool(lookup);
    h.serve(TOOL_URL, |request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        Ok(json_reply(
            200,
            &json!({"found": body["arguments"]["query"], "tool": body["tool"]}),
        ))
    });
    store(&mut h, vec![], vec![lookup]);
    let session = h.session(json!([user("Find it")]));
    h.script(
        "run-1",
        vec![
            calls(&[("c1", "lookup_paper", json!({"query": "typst"}))]),
            text("Found."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Find it")]), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    assert_eq!(
        tool_answers(&h, "run-1")[0],
        json!({"ok": true, "result": {"found": "typst", "tool": "lookup_paper"}})
    );
    let requests = h.platform().network.requests();
    let sent = requests.iter().find(|request| request.url == TOOL_URL).cloned();
    let sent = sent.expect("the tool was called");
    assert_eq!(sent.method, "POST");
    assert_eq!(
        sent.headers,
        [
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("X-Api-Key".to_owned(), "k1".to_owned())
        ]
    );
    let body: Value = serde_json::from_str(sent.body.as_deref().unwrap_or_default()).unwrap_or_default();
    assert_eq!(body, json!({"tool": "lookup_paper", "arguments": {"query": "typst"}}));
}

#[test]
fn a_custom_tool_the_run_cannot_offer_fails_the_run_before_the_model_is_asked() {
    let mut h = harness();
    let mut broken = tool("t1", "lookup_paper", TOOL_URL);
    broken["parameters"] = json!({"type": "object", "patternProperties": {}});
    // Stored by hand: a save would refuse it.
    h.platform()
        .browser
        .storage
        .put(storage_keys::CUSTOM_TOOLS, json!([broken]));
    let session = h.session(json!([user("hi")]));
    h.script("run-1", vec![text("never")]);
    let run = h.start("run-1", &session, json!([user("hi")]), json!({}));
    assert_eq!(run.data()["code"], "TOOL_REGISTRY_INVALID");
    let error = run.data()["error"].as_str().unwrap_or_default().to_owned();
    assert!(error.starts_with("Custom tool \"lookup_paper\": "), "{error}");
    assert!(h.model_requests("run-1").is_empty());
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_ERROR"]);
}

#[test]
fn stop_while_servers_are_discovered_cancels_the_run_and_the_request() {
    let mut h = harness();
    h.serve(MCP_URL, |_| {
        Ok(FakeReply {
            status: 200,
            headers: vec![("content-type".to_owned(), "application/json".to_owned())],
            chunks: vec![FakeChunk::Stall],
        })
    });
    store(&mut h, vec![server("slow", "Slow", MCP_URL)], vec![]);
    let session = h.session(json!([user("hi")]));
    h.script("run-1", vec![text("never")]);
    let run = h.start("run-1", &session, json!([user("hi")]), json!({}));
    assert!(!run.is_done(), "the discovery waits for the server");
    h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "cancelled": true, "runId": "run-1"}));
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_CANCELLED"]);
    assert!(h.model_requests("run-1").is_empty());
}

#[test]
fn many_failing_servers_make_at_most_sixteen_notices_the_last_counting_the_rest() {
    let mut h = harness();
    h.serve("https://down", |_| Err(NetworkError::Failed("Failed to fetch".into())));
    let servers: Vec<Value> = (0..20)
        .map(|n| {
            server(
                &format!("s{n}"),
                &format!("Down {n}"),
                &format!("https://down{n}.fixture/mcp"),
            )
        })
        .collect();
    store(&mut h, servers, vec![]);
    let session = h.session(json!([user("hi")]));
    h.script("run-1", vec![text("ok")]);
    let run = h.start("run-1", &session, json!([user("hi")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let notices = h.payloads("run-1", "AI_RUN_NOTICE")[0]["notices"].clone();
    let notices = notices.as_array().cloned().unwrap_or_default();
    assert_eq!(notices.len(), 16);
    assert!(notices[0]["message"].as_str().is_some_and(|m| m.contains("\"Down 0\"")));
    assert_eq!(
        notices[15]["message"],
        "5 more MCP servers have problems in this run; probe them in Settings → MCP."
    );
    assert_eq!(notices[15]["code"], "MCP_NETWORK_ERROR");
}

#[test]
fn runs_reuse_a_servers_discovery_until_the_servers_are_saved_again() {
    let mut h = harness();
    let lists = std::rc::Rc::new(std::cell::Cell::new(0));
    let counted = lists.clone();
    h.serve(MCP_URL, move |request| {
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
        if body["method"] == "tools/list" {
            counted.set(counted.get() + 1);
        }
        // No ttlMs: the listing may be reused for 60 s.
        let result = json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]});
        Ok(json_reply(
            200,
            &json!({"jsonrpc": "2.0", "id": body["id"], "result": result}),
        ))
    });
    let record = server("docs", "Docs", MCP_URL);
    store(&mut h, vec![record.clone()], vec![]);
    let session = h.session(json!([user("hi")]));
    for run in ["run-1", "run-2"] {
        h.script(run, vec![text("ok")]);
        assert_eq!(
            h.start(run, &session, json!([user("hi")]), json!({})).data()["ok"],
            true
        );
        assert_eq!(offered(&h, run).last(), Some(&visible(&record, "echo")));
    }
    assert_eq!(lists.get(), 1, "the second run used the discovery of the first");
    store(&mut h, vec![record.clone()], vec![]);
    h.script("run-3", vec![text("ok")]);
    assert_eq!(
        h.start("run-3", &session, json!([user("hi")]), json!({})).data()["ok"],
        true
    );
    assert_eq!(lists.get(), 2, "a save forgets what the client knew of the servers");
}
