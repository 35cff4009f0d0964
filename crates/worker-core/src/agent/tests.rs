//! Whole runs through the worker's message router (the shared
//! [`Harness`]: scripted model replies, one typst.app tab, in-memory
//! storage, virtual time), against the fake typst.app page
//! ([`FakeTypstPages`]), whose answers are computed the way the page script
//! computes them. Sleeps of 1.5 s and more can be held so a banner really
//! waits.

use crate::fakes::{
    FakeChunk, FakeClock, FakeTypstPages, Harness, TAB, calls, diagnostic, file_value, next_reply, sse, text,
};
use protocol::js;
use serde_json::{Value, json};
use std::collections::VecDeque;

fn harness() -> Harness<FakeTypstPages> {
    Harness::new(FakeTypstPages::default(), FakeClock::default())
}

/// What only this suite looks at.
impl Harness<FakeTypstPages> {
    fn terminal_count(&self, run_id: &str) -> usize {
        self.event_types(run_id)
            .iter()
            .filter(|t| ["AI_STREAM_DONE", "AI_STREAM_CANCELLED", "AI_STREAM_ERROR"].contains(&t.as_str()))
            .count()
    }

    fn page_types(&self) -> Vec<String> {
        self.platform()
            .pages
            .sent
            .borrow()
            .iter()
            .map(|(_, message)| message["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn tool_results(&self, run_id: &str) -> Vec<Value> {
        self.payloads(run_id, "AI_TOOL_RESULT")
    }
}

fn user(content: &str) -> Value {
    json!({"role": "user", "content": content, "activeEditorFile": file_value("main.typ")})
}

// ----- whole runs -----

#[test]
fn a_full_run_streams_reads_the_page_and_answers_with_the_results() {
    let mut h = harness();
    let session = h.session(json!([user("Check my document")]));
    h.script(
        "run-1",
        vec![
            sse(
                &[
                    json!({"reasoning_content": "Let me look."}),
                    json!({"content": "Reading the document."}),
                    json!({"tool_calls": [{"index": 0, "id": "call-doc", "function": {"name": "read_document", "arguments": "{}"}}]}),
                    json!({"tool_calls": [{"index": 1, "id": "call-diag", "function": {"name": "read_diagnostics", "arguments": "{}"}}]}),
                    json!({"tool_calls": [{"index": 2, "id": "call-tree", "function": {"name": "read_file_structure", "arguments": "{}"}}]}),
                ],
                None,
            ),
            text("Line 3 cites an unknown key."),
        ],
    );
    let run = h.start("run-1", &session, json!([user("Check my document")]), json!({}));
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));

    assert_eq!(
        h.event_types("run-1"),
        [
            "AI_STREAM_BATCH",
            "AI_TOOL_CALLS",
            "AI_TOOL_RESULT",
            "AI_TOOL_RESULT",
            "AI_TOOL_RESULT",
            "AI_STREAM_BATCH",
            "AI_STREAM_DONE"
        ]
    );
    let events = h.events("run-1");
    assert!(
        events.iter().all(|e| e.get("requestId").is_none()),
        "run events carry no requestId"
    );
    assert_eq!(
        events[0]["payload"]["items"],
        json!([{"channel": "reasoning", "text": "Let me look."}, {"channel": "content", "text": "Reading the document."}])
    );
    assert_eq!(
        events[1]["payload"]["calls"],
        json!([{"id": "call-doc", "name": "read_document", "args": {}},
               {"id": "call-diag", "name": "read_diagnostics", "args": {}},
               {"id": "call-tree", "name": "read_file_structure", "args": {}}])
    );

    check_read_results(&h.tool_results("run-1"));

    // The second request carries the assistant turn and the three answers in provider order.
    check_answers_in_provider_order(&h.model_requests("run-1"));

    // Page requests went to the captured tab, tied to the run by its
    // opaque owner id (the page never sees the run id).
    let sent = h.platform().pages.sent.borrow().clone();
    let owner = crate::page_client::page_owner_id("run-1");
    assert!(
        sent.iter()
            .all(|(tab, message)| *tab == TAB && message["runId"] == owner.as_str())
    );

    // The answer is saved to the chat the run started from.
    check_saved_answer(&h.stored_messages(&session));
    assert_eq!(h.terminal_count("run-1"), 1);
    assert!(h.worker.runs.summaries().is_empty());
}

/// The three read results of the full run, in provider order.
fn check_read_results(results: &[Value]) {
    let doc = &results[0]["result"];
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["start_line"], 1);
    assert_eq!(doc["end_line"], 5);
    assert_eq!(doc["approx_line_count"], 5);
    assert!(
        doc["numbered_document"]
            .as_str()
            .is_some_and(|t| t.starts_with("1|= Thesis\n2|#set page"))
    );
    let diagnostics = &results[1]["result"];
    assert_eq!(
        (
            diagnostics["ok"].clone(),
            diagnostics["error_count"].clone(),
            diagnostics["total_count"].clone()
        ),
        (json!(true), json!(1), json!(1))
    );
    let tree = &results[2]["result"];
    assert_eq!(tree["complete"], false);
    assert_eq!(tree["collapsed_folders"], json!(["drafts"]));
    assert_eq!(tree["entries"].as_array().map(Vec::len), Some(4));
}

/// The second model request ends with the assistant turn and the three
/// answers in the order the model asked.
fn check_answers_in_provider_order(requests: &[Value]) {
    assert_eq!(requests.len(), 2);
    assert!(
        !requests[0].to_string().contains("methods-zeta"),
        "the tree is not sent unasked"
    );
    let messages = requests[1]["messages"].as_array().cloned().unwrap_or_default();
    let tail: Vec<&Value> = messages.iter().rev().take(4).rev().collect();
    assert_eq!(tail[0]["role"], "assistant");
    assert_eq!(tail[0]["content"], "Reading the document.");
    assert_eq!(tail[0]["reasoning_content"], "Let me look.");
    assert_eq!(tail[0]["tool_calls"][2]["function"]["name"], "read_file_structure");
    let answered: Vec<&str> = tail[1..]
        .iter()
        .map(|m| m["tool_call_id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(answered, ["call-doc", "call-diag", "call-tree"]);
    assert!(
        tail[1]["content"]
            .as_str()
            .is_some_and(|c| c.contains("We cite @knuth here."))
    );
    assert!(
        tail[2]["content"]
            .as_str()
            .is_some_and(|c| c.contains("unknown variable: knuth"))
    );
    assert!(
        tail[3]["content"]
            .as_str()
            .is_some_and(|c| c.contains("chapters/methods-zeta.typ"))
    );
}

/// What the full run saved to its chat: the whole answer, complete.
fn check_saved_answer(stored: &[Value]) {
    assert_eq!(stored.len(), 2);
    let entry = &stored[1];
    assert_eq!(entry["role"], "assistant");
    assert_eq!(entry["responseStatus"], "complete");
    assert_eq!(entry["content"], "Reading the document.Line 3 cites an unknown key.");
    assert_eq!(entry["reasoning"], "Let me look.");
    let kinds: Vec<&str> = entry["segments"]
        .as_array()
        .map(|s| s.iter().filter_map(|x| x["type"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(kinds, ["reasoning", "text", "tools", "text"]);
}

#[test]
fn admission_needs_an_exact_reservation_and_one_run_per_chat() {
    let mut h = harness();
    let code = |answer: &Value| answer["payload"]["error"]["code"].clone();
    let start = |session: &str, tab: i64| json!({"tabId": tab, "projectId": "p1", "sessionId": session, "messages": [user("hi")]});
    let unreserved = h.call("AI_STREAM_START", Some("run-x"), start("s1", TAB));
    assert_eq!(code(&unreserved), "RUN_NOT_RESERVED");

    let first = h.reserve("run-a", "s1");
    assert_eq!(first["payload"]["data"]["expiresAt"], json!(1_700_000_030_000_i64));
    assert_eq!(
        h.reserve("run-a", "s1")["payload"]["data"]["reserved"],
        true,
        "idempotent"
    );
    assert_eq!(code(&h.reserve("run-b", "s1")), "SESSION_RUN_ACTIVE");
    assert_eq!(
        h.reserve("run-c", "s2")["payload"]["data"]["reserved"],
        true,
        "other chats are free"
    );

    let moved = h.call("AI_STREAM_START", Some("run-a"), start("s1", 99));
    assert_eq!(code(&moved), "RUN_RESERVATION_MISMATCH");
    let missing_run_id = h.call(
        "AI_RUN_RESERVE",
        None,
        json!({"tabId": TAB, "projectId": "p1", "sessionId": "s"}),
    );
    assert_eq!(code(&missing_run_id), "INVALID_RUN_ID");
    let extra_field = h.call(
        "AI_RUN_RESERVE",
        Some("run-z"),
        json!({"tabId": TAB, "projectId": "p1", "sessionId": "s", "x": 1}),
    );
    assert_eq!(code(&extra_field), "UNKNOWN_PAYLOAD_FIELD");
}

#[test]
fn a_stop_before_start_leaves_a_tombstone_and_the_start_does_nothing() {
    let mut h = harness();
    h.reserve("run-1", "s1");
    let stop = h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(
        stop["payload"]["data"],
        json!({"ok": true, "found": true, "terminal": true})
    );
    let start = h.send(
        "AI_STREAM_START",
        Some("run-1"),
        json!({"tabId": TAB, "projectId": "p1", "sessionId": "s1", "messages": [user("hi")]}),
    );
    assert_eq!(start.data(), json!({"ok": true, "cancelled": true, "runId": "run-1"}));
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_CANCELLED"]);
    assert_eq!(
        h.events("run-1")[0]["payload"],
        json!({"code": "CANCELLED", "message": "Run cancelled."})
    );
    assert!(h.page_types().is_empty());
    assert!(h.platform().network.requests().is_empty());
    assert_eq!(
        h.reserve("run-2", "s1")["payload"]["data"]["reserved"],
        true,
        "the chat was released"
    );
    let unknown = h.call("AI_STREAM_CANCEL", Some("never-seen"), json!({}));
    assert_eq!(
        unknown["payload"]["data"],
        json!({"ok": true, "found": false, "terminal": true})
    );
}

#[test]
fn stop_during_the_stream_keeps_the_partial_answer_in_the_captured_chat() {
    let mut h = harness();
    let session = h.session(json!([user("Write a long answer")]));
    let other = h.session(json!([user("Unrelated chat")]));
    h.script(
        "run-1",
        vec![sse(&[json!({"content": "The first half"})], Some(FakeChunk::Stall))],
    );
    let run = h.start("run-1", &session, json!([user("Write a long answer")]), json!({}));
    assert_eq!(run.answer(), None, "still streaming");
    let status = h.call("AI_RUN_STATUS", None, json!({"projectId": "p1", "sessionId": session}));
    assert_eq!(status["payload"]["data"][0]["runId"], "run-1");
    assert_eq!(status["payload"]["data"][0]["tabId"], TAB);

    let stop = h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(
        stop["payload"]["data"],
        json!({"ok": true, "found": true, "terminal": false})
    );
    assert_eq!(run.data(), json!({"ok": true, "cancelled": true, "runId": "run-1"}));
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_BATCH", "AI_STREAM_CANCELLED"]);

    let stored = h.stored_messages(&session);
    assert_eq!(
        stored.last().map(|m| m["content"].clone()),
        Some(json!("The first half"))
    );
    assert_eq!(
        stored.last().map(|m| m["responseStatus"].clone()),
        Some(json!("incomplete"))
    );
    assert_eq!(h.stored_messages(&other).len(), 1, "the visible chat is not written");
    let status = h.call("AI_RUN_STATUS", None, json!({"projectId": "p1", "sessionId": session}));
    assert_eq!(status["payload"]["data"], json!([]));
}

#[test]
fn stop_during_a_page_read_cancels_the_page_request() {
    let mut h = harness();
    h.platform()
        .pages
        .page
        .borrow_mut()
        .stall
        .insert("PAGE_GET_DIAGNOSTICS");
    h.script("run-1", vec![calls(&[("call-diag", "read_diagnostics", "{}")])]);
    let run = h.start("run-1", "s1", json!([user("Any errors?")]), json!({}));
    assert_eq!(run.answer(), None, "waiting for the page");
    h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data()["cancelled"], true);

    let sent = h.platform().pages.sent.borrow().clone();
    let read = sent
        .iter()
        .find(|(_, m)| m["type"] == "PAGE_GET_DIAGNOSTICS")
        .map(|(_, m)| m.clone());
    let cancel = sent
        .iter()
        .find(|(_, m)| m["type"] == "PAGE_CANCEL_REQUEST")
        .map(|(_, m)| m.clone());
    let (Some(read), Some(cancel)) = (read, cancel) else {
        panic!("expected a read and its cancellation, got {sent:?}");
    };
    assert_eq!(cancel["payload"]["targetRequestId"], read["requestId"]);
    assert_eq!(cancel["runId"], crate::page_client::page_owner_id("run-1"));
    let types = h.event_types("run-1");
    assert_eq!(types.last().map(String::as_str), Some("AI_STREAM_CANCELLED"));
    assert!(!types.contains(&"AI_TOOL_RESULT".to_owned()), "no result after Stop");
    assert_eq!(h.terminal_count("run-1"), 1);
}

#[test]
fn stop_during_a_preflight_wait_ends_the_run_and_its_banner() {
    let mut h = harness();
    h.platform().clock.hold_sleeps_from(Some(1_500));
    h.platform().pages.page.borrow_mut().file = Some("chapters/intro.typ".into());
    h.script("run-1", vec![calls(&[("call-doc", "read_document", "{}")])]);
    let run = h.start("run-1", "s1", json!([user("Read it")]), json!({}));
    assert_eq!(run.answer(), None, "the banner waits");
    let waiting = h
        .events("run-1")
        .into_iter()
        .find(|e| e["type"] == "AI_TOOL_PREFLIGHT_WAITING");
    let waiting = waiting.map(|e| e["payload"].clone()).unwrap_or_default();
    assert_eq!(waiting["missing"], json!(["open file: main.typ"]));
    assert!(
        waiting["hint"]
            .as_str()
            .is_some_and(|h| h.contains("main.typ") && h.contains("chapters/intro.typ"))
    );
    assert_eq!(h.worker.runs.preflight.open(), 1);

    h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data()["cancelled"], true);
    assert_eq!(h.worker.runs.preflight.open(), 0);
    assert_eq!(
        h.event_types("run-1").last().map(String::as_str),
        Some("AI_STREAM_CANCELLED")
    );
    assert_eq!(h.terminal_count("run-1"), 1);
}

#[test]
fn retry_resumes_a_file_wait_and_skip_ends_the_call() {
    let mut h = harness();
    h.platform().clock.hold_sleeps_from(Some(1_500));
    // The run start reads the message file; call-1 then sees another file,
    // then (after Retry) the message file; call-2 sees another file again
    // and is skipped.
    h.platform().pages.page.borrow_mut().files = VecDeque::from([
        "main.typ".to_owned(),
        "notes.typ".to_owned(),
        "main.typ".to_owned(),
        "notes.typ".to_owned(),
    ]);
    h.script(
        "run-1",
        vec![
            calls(&[("call-1", "read_document", "{}")]),
            calls(&[("call-2", "read_document", r#"{"start_line":2,"end_line":2}"#)]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("Read it")]), json!({}));
    let wrong_run = h.call(
        "AI_TOOL_PREFLIGHT_RESOLVE",
        Some("run-2"),
        json!({"callId": "call-1", "action": "retry"}),
    );
    assert_eq!(wrong_run["payload"]["data"], json!({"ok": false}));
    assert!(h.tool_results("run-1").is_empty(), "call-1 waits");

    let retry = h.call(
        "AI_TOOL_PREFLIGHT_RESOLVE",
        Some("run-1"),
        json!({"callId": "call-1", "action": "retry"}),
    );
    assert_eq!(retry["payload"]["data"], json!({"ok": true}));
    let first = h.tool_results("run-1");
    assert_eq!(first.len(), 1, "call-2 waits now");
    assert_eq!(first[0]["result"]["ok"], true);

    h.call(
        "AI_TOOL_PREFLIGHT_RESOLVE",
        Some("run-1"),
        json!({"callId": "call-2", "action": "cancel"}),
    );
    let results = h.tool_results("run-1");
    assert_eq!(
        results.get(1).map(|r| r["result"]["code"].clone()),
        Some(json!("PREFLIGHT_DENIED"))
    );
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    let types = h.event_types("run-1");
    let count = |kind: &str| types.iter().filter(|t| *t == kind).count();
    assert_eq!(
        (count("AI_TOOL_PREFLIGHT_WAITING"), count("AI_TOOL_PREFLIGHT_READY")),
        (2, 1)
    );
}

#[test]
fn two_chats_of_one_project_run_at_once_and_stop_independently() {
    let mut h = harness();
    h.script("run-a", vec![sse(&[json!({"content": "A"})], Some(FakeChunk::Stall))]);
    h.script("run-b", vec![sse(&[json!({"content": "B"})], Some(FakeChunk::Stall))]);
    let a = h.start("run-a", "s1", json!([user("first")]), json!({}));
    let b = h.start("run-b", "s2", json!([user("second")]), json!({}));
    assert_eq!((a.answer(), b.answer()), (None, None), "both are streaming");
    assert_eq!(h.worker.runs.summaries().len(), 2);
    h.call("AI_STREAM_CANCEL", Some("run-a"), json!({}));
    assert_eq!(a.data()["cancelled"], true);
    assert_eq!(b.answer(), None, "the other chat keeps running");
    assert_eq!(h.terminal_count("run-b"), 0);
    h.call("AI_STREAM_CANCEL", Some("run-b"), json!({}));
    assert_eq!(b.data()["cancelled"], true);
    assert_eq!((h.terminal_count("run-a"), h.terminal_count("run-b")), (1, 1));
}

#[test]
fn a_tab_that_left_typst_fails_the_run_before_any_model_request() {
    let mut h = harness();
    h.platform().browser.navigate(TAB, "https://example.com/");
    let run = h.start("run-1", "s1", json!([user("hi")]), json!({}));
    assert_eq!(run.data()["code"], "INVALID_RUN_TAB");
    assert_eq!(run.data()["ok"], false);
    assert!(h.platform().network.requests().is_empty());
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_ERROR"]);
}

#[test]
fn reads_refuse_a_tab_that_navigated_after_the_start() {
    let mut h = harness();
    h.script("run-1", vec![calls(&[("call-doc", "read_document", "{}")]), text("ok")]);
    // The tab moves to another project while the model is being asked.
    let navigate = h.platform().browser.navigator();
    let scripts = h.scripts.clone();
    h.platform().network.set_responder(move |request| {
        navigate(TAB, "https://typst.app/project/other");
        next_reply(&scripts, request)
    });
    let run = h.start("run-1", "s1", json!([user("Read it")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let result = h
        .tool_results("run-1")
        .first()
        .map(|r| r["result"].clone())
        .unwrap_or_default();
    assert_eq!(result["code"], "STALE_RUN_TAB");
    let sent = h.platform().pages.sent.borrow().clone();
    assert!(
        sent.len() == 1 && sent[0].1["payload"]["projection"] == "edit",
        "only the run start read the tab; nothing is read from the moved tab"
    );
}

#[test]
fn a_read_that_waited_while_the_tab_moved_is_dropped() {
    let mut h = harness();
    h.platform().clock.hold_sleeps_from(Some(1_500));
    h.platform().pages.page.borrow_mut().file = Some("notes.typ".into());
    h.script("run-1", vec![calls(&[("call-doc", "read_document", "{}")]), text("ok")]);
    let run = h.start("run-1", "s1", json!([user("Read it")]), json!({}));
    assert_eq!(run.answer(), None, "waiting for main.typ");
    // The user opens another project that also has a main.typ.
    h.platform().pages.page.borrow_mut().file = Some("main.typ".into());
    h.platform().browser.navigate(TAB, "https://typst.app/project/other");
    h.call(
        "AI_TOOL_PREFLIGHT_RESOLVE",
        Some("run-1"),
        json!({"callId": "call-doc", "action": "retry"}),
    );
    assert_eq!(run.data()["ok"], true);
    let result = h
        .tool_results("run-1")
        .first()
        .map(|r| r["result"].clone())
        .unwrap_or_default();
    assert_eq!(result["code"], "STALE_RUN_TAB");
    let second = h.model_requests("run-1").get(1).cloned().unwrap_or_default();
    assert!(
        !second.to_string().contains("We cite @knuth"),
        "the other project's text never reaches the model"
    );
}

#[test]
fn a_reused_tool_call_id_fails_the_run() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[("reused", "read_typst_docs", "{}")]),
            calls(&[("reused", "read_typst_docs", "{}")]),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("docs?")]), json!({}));
    assert_eq!(run.data()["code"], "PROVIDER_DUPLICATE_TOOL_CALL_ID");
    assert_eq!(h.model_requests("run-1").len(), 2);
    assert_eq!(
        h.event_types("run-1").last().map(String::as_str),
        Some("AI_STREAM_ERROR")
    );
    assert_eq!(h.terminal_count("run-1"), 1);
}

#[test]
fn a_run_stops_after_32_tool_rounds() {
    let mut h = harness();
    let replies = (0..40)
        .map(|i| calls(&[(format!("call-{i}").as_str(), "read_typst_docs", r#"{"topic":"math"}"#)]))
        .collect();
    h.script("run-1", replies);
    let run = h.start("run-1", "s1", json!([user("loop")]), json!({}));
    assert_eq!(run.data()["code"], "TOOL_ROUND_LIMIT");
    assert_eq!(h.model_requests("run-1").len(), 32);
    assert_eq!(h.tool_results("run-1").len(), 32);
}

#[test]
fn the_model_must_exist_and_be_complete() {
    let mut h = harness();
    h.reserve("run-1", "s1");
    let missing = h.send(
        "AI_STREAM_START",
        Some("run-1"),
        json!({"tabId": TAB, "projectId": "p1", "sessionId": "s1", "messages": [user("hi")]}),
    );
    assert_eq!(missing.data()["code"], "MODEL_MISSING");
    let incomplete = h.start(
        "run-2",
        "s2",
        json!([user("hi")]),
        json!({"modelConfig": {"apiBaseUrl": "https://model.test/v1", "apiKey": " ", "modelId": "m"}}),
    );
    assert_eq!(incomplete.data()["code"], "MODEL_INCOMPLETE");
    let cleartext = h.start(
        "run-3",
        "s3",
        json!([user("hi")]),
        json!({"modelConfig": {"apiBaseUrl": "http://192.168.1.5/v1", "apiKey": "k", "modelId": "m",
                               "insecureTransportAcknowledged": true}}),
    );
    assert_eq!(cleartext.data()["code"], "INSECURE_CONFIRMATION_REQUIRED");
    assert!(h.platform().network.requests().is_empty());
}

#[test]
fn stored_settings_supply_the_model_when_the_start_names_none() {
    let mut h = harness();
    h.platform().browser.storage.put(
        "typstAgent.settings",
        json!({"models": [{"id": "m1", "name": "Stored", "apiBaseUrl": "https://model.test/v1",
                           "apiKey": "k", "modelId": "run-1"}], "activeModelId": "m1"}),
    );
    h.script("run-1", vec![text("From the stored model.")]);
    h.reserve("run-1", "s1");
    let run = h.send(
        "AI_STREAM_START",
        Some("run-1"),
        json!({"tabId": TAB, "projectId": "p1", "sessionId": "s1", "messages": [user("hi")]}),
    );
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
}

/// The start's copies of the settings and the model must be what is
/// stored: a copy that points the stored model at another endpoint, or
/// turns on Auto approve, is refused before anything is fetched.
#[test]
fn a_start_whose_copies_differ_from_the_stored_settings_is_refused() {
    let mut h = harness();
    let stored = json!({"id": "m1", "name": "Stored", "apiBaseUrl": "https://model.test/v1", "apiKey": "k",
        "modelId": "run-1"});
    h.platform().browser.storage.put(
        "typstAgent.settings",
        json!({"models": [stored.clone()], "activeModelId": "m1", "editorApprovalMode": "ask"}),
    );
    let mut elsewhere = stored.clone();
    elsewhere["apiBaseUrl"] = json!("https://evil.test/v1");
    for (index, (settings, model)) in [
        (json!({}), elsewhere),
        (json!({"editorApprovalMode": "auto"}), stored.clone()),
    ]
    .into_iter()
    .enumerate()
    {
        let run_id = format!("run-{}", index + 1);
        let session = format!("s{}", index + 1);
        h.reserve(&run_id, &session);
        let run = h.send(
            "AI_STREAM_START",
            Some(&run_id),
            json!({"tabId": TAB, "projectId": "p1", "sessionId": session, "messages": [user("hi")],
                "settings": settings, "modelConfig": model}),
        );
        assert_eq!(run.data()["code"], json!("RUN_CONFIG_MISMATCH"), "{settings}");
    }
    assert!(h.platform().network.requests().is_empty(), "nothing was sent anywhere");
}

#[test]
fn the_message_file_falls_back_to_the_live_breadcrumb() {
    let mut h = harness();
    h.platform().pages.page.borrow_mut().file = Some("chapters/intro.typ".into());
    h.script("run-1", vec![text("ok")]);
    let bare_user = json!([{"role": "user", "content": "What is this file?"}]);
    let run = h.start("run-1", "s1", bare_user, json!({}));
    assert_eq!(run.data()["ok"], true);
    let first = h.model_requests("run-1").first().cloned().unwrap_or_default();
    let messages = first["messages"].as_array().cloned().unwrap_or_default();
    let context = messages.iter().rev().nth(1).cloned().unwrap_or_default();
    assert_eq!(context["role"], "user");
    assert!(
        context["content"]
            .as_str()
            .is_some_and(|c| c.contains("chapters/intro.typ"))
    );

    // A file named by the start itself wins over the breadcrumb.
    h.script("run-2", vec![calls(&[("c", "read_document", "{}")]), text("ok")]);
    h.platform().clock.hold_sleeps_from(Some(1_500));
    let run = h.start(
        "run-2",
        "s2",
        json!([{"role": "user", "content": "Read"}]),
        json!({"activeEditorFile": file_value("main.typ")}),
    );
    let waiting = h
        .events("run-2")
        .into_iter()
        .find(|e| e["type"] == "AI_TOOL_PREFLIGHT_WAITING");
    assert!(waiting.is_some_and(|w| w["payload"]["missing"] == json!(["open file: main.typ"])));
    h.call("AI_STREAM_CANCEL", Some("run-2"), json!({}));
    assert_eq!(run.data()["cancelled"], true);
}

#[test]
fn bad_calls_get_structured_results_and_the_run_goes_on() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[
                (
                    "c1",
                    "replace_lines",
                    r#"{"start_line":7,"end_line":7,"new_content":"x"}"#,
                ),
                (
                    "c2",
                    "replace_lines",
                    r#"{"start_line":9,"end_line":9,"new_content":"y"}"#,
                ),
                ("c3", "read_document", r#"{"start_line":"two"}"#),
                ("c4", "no_such_tool", "{}"),
                ("c5", "read_diagnostics", "{not json"),
            ]),
            text("I could not edit; here is the change instead."),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("Fix line 3")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let results = h.tool_results("run-1");
    let order: Vec<&str> = results.iter().filter_map(|r| r["callId"].as_str()).collect();
    assert_eq!(
        order,
        ["c2", "c1", "c3", "c4", "c5"],
        "line replacements run bottom-to-top"
    );
    let code = |id: &str| {
        results
            .iter()
            .find(|r| r["callId"] == id)
            .map(|r| r["result"]["code"].clone())
            .unwrap_or_default()
    };
    // Both lines are past the end of the five-line document.
    assert_eq!(code("c1"), "INVALID_EDIT_RANGE");
    assert_eq!(code("c2"), "INVALID_EDIT_RANGE");
    assert_eq!(code("c3"), "TYPE");
    assert_eq!(code("c4"), "UNKNOWN_TOOL");
    assert_eq!(code("c5"), "ARGUMENTS_PARSE_ERROR");
    assert_eq!(
        results
            .iter()
            .find(|r| r["callId"] == "c3")
            .map(|r| r["result"]["path"].clone()),
        Some(json!("$.start_line"))
    );
    assert!(
        h.page_types()
            .iter()
            .all(|t| t != "PAGE_APPLY_EDIT" && t != "PAGE_SHOW_EDIT_PREVIEW")
    );
    let calls_event = h
        .events("run-1")
        .into_iter()
        .find(|e| e["type"] == "AI_TOOL_CALLS")
        .unwrap_or_default();
    assert_eq!(calls_event["payload"]["calls"][4]["args"]["invalid"], true);

    // The model gets the answers in the order it asked.
    let second = h.model_requests("run-1").get(1).cloned().unwrap_or_default();
    let answered: Vec<String> = second["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "tool")
                .filter_map(|m| m["tool_call_id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(answered, ["c1", "c2", "c3", "c4", "c5"]);
}

#[test]
fn open_project_file_retargets_the_following_reads() {
    let mut h = harness();
    h.platform().clock.hold_sleeps_from(Some(1_500));
    h.script(
        "run-1",
        vec![
            calls(&[("open", "open_project_file", r#"{"path":"chapters/intro.typ"}"#)]),
            calls(&[("read", "read_document", "{}")]),
            text("Read the introduction."),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("Read the intro")]), json!({}));
    assert_eq!(run.answer(), None, "waits for the file");
    {
        let mut page = h.platform().pages.page.borrow_mut();
        page.file = Some("chapters/intro.typ".into());
        page.doc = "= Introduction".into();
    }
    h.call(
        "AI_TOOL_PREFLIGHT_RESOLVE",
        Some("run-1"),
        json!({"callId": "open", "action": "retry"}),
    );
    assert_eq!(run.data()["ok"], true);
    let results = h.tool_results("run-1");
    assert_eq!(
        results[0]["result"],
        json!({"ok": true, "active_file": "chapters/intro.typ", "previous_file": "main.typ",
               "text_editor_accessible": true,
               "usage": "For the rest of this response, read_document and the editing tools work on active_file."})
    );
    assert_eq!(results[1]["result"]["ok"], true, "no wait: the new file is the target");
    assert!(
        results[1]["result"]["numbered_document"]
            .as_str()
            .is_some_and(|t| t.contains("Introduction"))
    );
    let bad = {
        h.script(
            "run-2",
            vec![
                calls(&[("open", "open_project_file", r#"{"path":"../secret.typ"}"#)]),
                text("no"),
            ],
        );
        h.start("run-2", "s2", json!([user("x")]), json!({}));
        h.tool_results("run-2").first().map(|r| r["result"]["code"].clone())
    };
    assert_eq!(bad, Some(json!("INVALID_PROJECT_FILE_PATH")));
}

#[test]
fn diagnostics_settle_then_read_until_two_reads_agree() {
    let mut h = harness();
    {
        let mut page = h.platform().pages.page.borrow_mut();
        page.diagnostics = VecDeque::from([
            vec![],
            vec![diagnostic("error", "Failed to parse BibLaTeX", 1)],
            vec![
                diagnostic("error", "Failed to parse BibLaTeX", 1),
                json!({"severity": "info", "message": "teh → the", "line": 2, "column": 4,
                       "kind": "spelling", "original": "teh", "suggestion": "the"}),
            ],
        ]);
    }
    h.script("run-1", vec![calls(&[("d", "read_diagnostics", "{}")]), text("ok")]);
    let run = h.start("run-1", "s1", json!([user("errors?")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let reads = h.page_types().iter().filter(|t| *t == "PAGE_GET_DIAGNOSTICS").count();
    assert_eq!(reads, 4, "changing reads continue until two agree");
    let sleeps = h.platform().clock.sleeps();
    assert_eq!(
        sleeps.iter().position(|ms| *ms == 750),
        Some(0),
        "the settle wait comes first"
    );
    assert_eq!(sleeps.iter().filter(|ms| **ms == 150).count(), 3);
    let result = h
        .tool_results("run-1")
        .first()
        .map(|r| r["result"].clone())
        .unwrap_or_default();
    assert_eq!(
        (
            result["error_count"].clone(),
            result["spelling_count"].clone(),
            result["warning_count"].clone()
        ),
        (json!(1), json!(1), json!(0))
    );
    assert!(result.get("delay_ms").is_none());
}

#[test]
fn read_document_pages_through_long_documents() {
    let mut h = harness();
    h.platform().pages.page.borrow_mut().doc = (1..=120)
        .map(|i| format!("line {i} {}", "x".repeat(80)))
        .collect::<Vec<_>>()
        .join("\n");
    h.script(
        "run-1",
        vec![
            calls(&[("r", "read_document", r#"{"start_line":10,"max_chars":100}"#)]),
            text("ok"),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("Read from line 10")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let sent = h.platform().pages.sent.borrow().clone();
    let read = sent
        .iter()
        .find(|(_, m)| m["type"] == "PAGE_GET_CONTEXT" && m["payload"]["projection"] == "numbered")
        .map(|(_, m)| m["payload"].clone());
    assert_eq!(
        read,
        Some(json!({"projection": "numbered", "startLine": 10, "maxChars": 4000})),
        "the budget never drops below 4,000"
    );
    let result = h
        .tool_results("run-1")
        .first()
        .map(|r| r["result"].clone())
        .unwrap_or_default();
    assert_eq!(result["start_line"], 10);
    assert_eq!(result["truncated"], true);
    assert_eq!(result["approx_line_count"], 120);
    let end = result["end_line"].as_u64().unwrap_or_default();
    let text = result["numbered_document"].as_str().unwrap_or_default();
    assert!(text.starts_with(" 10|line 10 "), "{text:.20}");
    assert!(text.ends_with(&format!("(truncated; continue with start_line={})", end + 1)));
    assert!(js::utf16_len(text) <= 4_000 + 60);
}

#[test]
fn a_complete_answer_that_cannot_be_saved_reports_the_storage_failure() {
    let mut h = harness();
    let session = h.session(json!([user("hi")]));
    h.platform().browser.storage.fail_writes("QUOTA_BYTES quota exceeded");
    h.script("run-1", vec![text("An answer that cannot be stored.")]);
    let run = h.start("run-1", &session, json!([user("hi")]), json!({}));
    assert_eq!(run.data()["ok"], false);
    assert_eq!(run.data()["code"], "STORAGE_QUOTA_EXCEEDED");
    assert_eq!(h.event_types("run-1"), ["AI_STREAM_BATCH", "AI_STREAM_ERROR"]);
    assert_eq!(h.events("run-1")[1]["payload"]["code"], "STORAGE_QUOTA_EXCEEDED");
}
