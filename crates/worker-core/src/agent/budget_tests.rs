//! The run budget in whole runs (the shared [`Harness`] against the fake
//! typst.app page): a model that keeps calling tools is stopped by the call
//! cap and by the result-byte cap, and repeated identical reads reach the
//! model once — unless something was written, or the user changed the
//! document, in between.

use crate::fakes::{FakeClock, FakeTypstPages, Harness, calls, file_value, next_reply, text};
use protocol::limits::{MAX_RUN_TOOL_CALLS, MAX_RUN_TOOL_RESULT_BYTES, to_usize};
use serde_json::{Value, json};

fn harness() -> Harness<FakeTypstPages> {
    Harness::new(FakeTypstPages::default(), FakeClock::default())
}

fn user(content: &str) -> Value {
    json!({"role": "user", "content": content, "activeEditorFile": file_value("main.typ")})
}

/// The `tool` messages of one model request, by call id.
fn tool_messages(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                        m["content"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn content_of(request: &Value, call_id: &str) -> Value {
    tool_messages(request)
        .into_iter()
        .find(|(id, _)| id == call_id)
        .and_then(|(_, content)| serde_json::from_str(&content).ok())
        .unwrap_or(Value::Null)
}

fn codes(h: &Harness<FakeTypstPages>, run_id: &str) -> Vec<String> {
    h.payloads(run_id, "AI_TOOL_RESULT")
        .iter()
        .map(|r| r["result"]["code"].as_str().unwrap_or("ok").to_owned())
        .collect()
}

// ----- the caps -----

#[test]
fn a_model_that_keeps_calling_tools_is_stopped_by_the_call_budget() {
    let mut h = harness();
    // Five calls a round for more rounds than a run has: without a budget
    // the run would execute 160 calls and end at the round limit.
    let replies = (0..40)
        .map(|round| {
            let ids: Vec<String> = (0..5).map(|i| format!("r{round}-c{i}")).collect();
            let list: Vec<(&str, &str, &str)> = ids
                .iter()
                .map(|id| (id.as_str(), "read_typst_docs", r#"{"topic":"math"}"#))
                .collect();
            calls(&list)
        })
        .collect();
    h.script("run-1", replies);
    let run = h.start("run-1", "s1", json!([user("loop")]), json!({}));

    assert_eq!(run.data()["code"], "TOOL_BUDGET_EXHAUSTED");
    let codes = codes(&h, "run-1");
    let executed = codes.iter().filter(|c| *c != "TOOL_BUDGET_EXHAUSTED").count();
    assert_eq!(executed, to_usize(MAX_RUN_TOOL_CALLS));
    // Round 26 runs calls 126–128 and refuses two; the model asks again in
    // round 27 and the run ends without showing those calls.
    assert_eq!(codes.len(), 130);
    assert_eq!(h.model_requests("run-1").len(), 27);
    let last = h.model_requests("run-1").last().cloned().unwrap_or_default();
    let refused = content_of(&last, "r25-c4");
    assert_eq!(refused["code"], "TOOL_BUDGET_EXHAUSTED");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("Answer the user now"))
    );

    let notices = h.payloads("run-1", "AI_RUN_NOTICE");
    assert_eq!(notices.len(), 1, "the user is told once");
    assert_eq!(notices[0]["notices"][0]["code"], "TOOL_BUDGET_EXHAUSTED");
    assert!(
        notices[0]["notices"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("128 tool calls"))
    );
    let error = h.payloads("run-1", "AI_STREAM_ERROR");
    assert_eq!(error[0]["code"], "TOOL_BUDGET_EXHAUSTED");
}

#[test]
fn result_bytes_spend_the_budget_and_a_model_that_obeys_completes() {
    let mut h = harness();
    // 400 lines of 2,000 characters; every read asks for 50,000 characters
    // from a different line, so no two results are alike.
    h.platform().pages.page.borrow_mut().doc = (0..400).map(|n| format!("{n:02000}")).collect::<Vec<_>>().join("\n");
    let mut replies: Vec<_> = (0..6)
        .map(|round| {
            let list: Vec<(String, Value)> = (0..8)
                .map(|i| {
                    let k = round * 8 + i;
                    (format!("c{k}"), json!({"start_line": 1 + k * 8, "max_chars": 50_000}))
                })
                .collect();
            let list: Vec<(&str, &str, &Value)> = list
                .iter()
                .map(|(id, args)| (id.as_str(), "read_document", args))
                .collect();
            calls(&list)
        })
        .collect();
    replies.push(text("Here is what I read."));
    h.script("run-1", replies);
    let run = h.start("run-1", "s1", json!([user("Read everything")]), json!({}));

    assert_eq!(run.data()["ok"], true);
    let codes = codes(&h, "run-1");
    let executed = codes.iter().filter(|c| *c == "ok").count();
    let refused = codes.iter().filter(|c| *c == "TOOL_BUDGET_EXHAUSTED").count();
    assert_eq!(executed + refused, 48);
    assert!(refused > 0 && executed < 48, "{executed} executed");
    // What the model got is the cap plus at most the one result that crossed it.
    let last = h.model_requests("run-1").last().cloned().unwrap_or_default();
    let sent: Vec<usize> = tool_messages(&last)
        .iter()
        .filter(|(_, content)| !content.contains("TOOL_BUDGET_EXHAUSTED"))
        .map(|(_, content)| content.len())
        .collect();
    let total: usize = sent.iter().sum();
    let largest = sent.iter().copied().max().unwrap_or_default();
    assert!(total >= to_usize(MAX_RUN_TOOL_RESULT_BYTES));
    assert!(total < to_usize(MAX_RUN_TOOL_RESULT_BYTES) + largest);
    let notices = h.payloads("run-1", "AI_RUN_NOTICE");
    assert!(
        notices[0]["notices"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("2 MiB of tool results"))
    );
    assert_eq!(h.payloads("run-1", "AI_STREAM_DONE").len(), 1);
}

// ----- the read cache -----

#[test]
fn an_identical_read_reaches_the_model_once() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[("c1", "read_document", "{}")]),
            calls(&[
                ("c2", "read_document", "{}"),
                ("c3", "read_typst_docs", r#"{"topic":"math"}"#),
                ("c4", "read_typst_docs", r#"{ "topic" : "math" }"#),
                ("c5", "read_document", r#"{"start_line":2}"#),
            ]),
            text("Done."),
        ],
    );
    let run = h.start("run-1", "s1", json!([user("Read twice")]), json!({}));
    assert_eq!(run.data()["ok"], true);

    let last = h.model_requests("run-1").last().cloned().unwrap_or_default();
    let first = content_of(&last, "c1");
    assert!(
        first["numbered_document"]
            .as_str()
            .is_some_and(|t| t.contains("We cite @knuth"))
    );
    assert_eq!(
        content_of(&last, "c2"),
        json!({"ok": true, "unchanged": true, "same_as_call_id": "c1",
               "note": "This read returned exactly the result of your earlier call c1 (same tool, same arguments, \
                        nothing written since), so it is not repeated: that result is still current."})
    );
    assert!(
        content_of(&last, "c3")["unchanged"].is_null(),
        "the first docs read is sent in full"
    );
    assert_eq!(
        content_of(&last, "c4")["same_as_call_id"],
        "c3",
        "arguments compare canonically"
    );
    assert!(
        content_of(&last, "c5")["numbered_document"].is_string(),
        "other arguments are read"
    );
    // The page was read each time (only a read proves it unchanged), and the
    // panel shows every result in full.
    let reads = h.platform().pages.sent_of("PAGE_GET_CONTEXT");
    assert!(reads.len() >= 3, "{} context reads", reads.len());
    let shown = h.payloads("run-1", "AI_TOOL_RESULT");
    assert!(shown.iter().all(|r| r["result"]["unchanged"].is_null()));
}

#[test]
fn a_write_between_two_reads_sends_the_second_in_full() {
    let mut h = harness();
    // The edit keeps lines 1–2, the length and the line count: only the
    // write itself says the earlier read may be out of date.
    h.script(
        "run-1",
        vec![
            calls(&[("c1", "read_document", r#"{"start_line":1,"end_line":2}"#)]),
            calls(&[(
                "e1",
                "replace_lines",
                json!({"start_line": 5, "end_line": 5, "new_content": "== Metho!"}),
            )]),
            calls(&[("c2", "read_document", r#"{"start_line":1,"end_line":2}"#)]),
            text("Done."),
        ],
    );
    let run = h.start(
        "run-1",
        "s1",
        json!([user("Edit")]),
        json!({"settings": {"editorApprovalMode": "auto"}}),
    );
    assert_eq!(run.data()["ok"], true);
    assert!(h.platform().pages.page.borrow().doc.ends_with("== Metho!"));
    let last = h.model_requests("run-1").last().cloned().unwrap_or_default();
    assert_eq!(content_of(&last, "e1")["ok"], true);
    let (before, after) = (content_of(&last, "c1"), content_of(&last, "c2"));
    assert!(after["numbered_document"].is_string(), "{after}");
    assert_eq!(before["numbered_document"], after["numbered_document"]);
}

#[test]
fn a_document_the_user_changed_between_two_reads_is_sent_again() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[("c1", "read_document", "{}")]),
            calls(&[("c2", "read_document", "{}")]),
            text("Done."),
        ],
    );
    // The user types while the model thinks about the first result.
    let worker = h.worker.clone();
    let scripts = h.scripts.clone();
    let mut requests = 0;
    h.serve("https://model.test", move |request| {
        requests += 1;
        if requests == 2 {
            worker
                .platform
                .pages
                .page
                .borrow_mut()
                .doc
                .push_str("\nTyped by the user.");
        }
        next_reply(&scripts, request)
    });
    let run = h.start("run-1", "s1", json!([user("Read twice")]), json!({}));
    assert_eq!(run.data()["ok"], true);
    let last = h.model_requests("run-1").last().cloned().unwrap_or_default();
    assert!(
        content_of(&last, "c2")["numbered_document"]
            .as_str()
            .is_some_and(|t| t.contains("Typed by the user."))
    );
}
