//! The streaming state over the answer record: the order segments open and
//! close in, the text handed to the view exactly once, and the saved entry
//! (the record's own, bounds and marker included). The record's joining
//! rules and stored forms are protocol's and tested there.

use super::*;
use protocol::answer::{MAX_ANSWER_SEGMENTS, MAX_ANSWER_TEXT_CHARS, MAX_ANSWER_TOOL_CALLS, TRUNCATION_MARKER};
use serde_json::json;

fn content(text: &str) -> StreamItem {
    StreamItem {
        channel: StreamChannel::Content,
        text: text.to_owned(),
    }
}

fn reasoning(text: &str) -> StreamItem {
    StreamItem {
        channel: StreamChannel::Reasoning,
        text: text.to_owned(),
    }
}

fn call(id: &str, name: &str) -> ToolCallInfo {
    ToolCallInfo {
        id: id.to_owned(),
        name: name.to_owned(),
        args: Map::new(),
    }
}

#[test]
fn reasoning_then_content_opens_and_closes_in_order() {
    let mut model = StreamModel::new();
    assert_eq!(model.apply_batch(&[reasoning("think")]), vec![Change::OpenReasoning]);
    assert_eq!(model.apply_batch(&[reasoning("ing")]), vec![]);
    assert_eq!(
        model.take_pending(),
        Pending {
            text: None,
            reasoning: Some(("thinking".into(), 8))
        }
    );
    assert_eq!(
        model.apply_batch(&[reasoning(" more"), content("**An"), content("swer**")]),
        vec![
            Change::CloseReasoning {
                pending: " more".into()
            },
            Change::OpenText
        ]
    );
    assert_eq!(model.take_pending().text.as_deref(), Some("**Answer**"));
    assert_eq!(
        model.take_pending(),
        Pending::default(),
        "nothing new since the last frame"
    );
    model.apply_batch(&[content(" done")]);
    assert_eq!(
        model.take_pending().text.as_deref(),
        Some(" done"),
        "only the new suffix"
    );
    assert_eq!(
        model.finish(),
        vec![Change::CloseText {
            markdown: "**Answer** done".into()
        }]
    );
    assert_eq!(model.finish(), vec![], "finishing twice changes nothing");
    assert_eq!(model.apply_batch(&[content("late")]), vec![]);
    let entry = model.display_entry(ResponseStatus::Complete).expect("output");
    assert_eq!(
        entry,
        json!({
            "role": "assistant",
            "content": "**Answer** done",
            "segments": [
                {"type": "reasoning", "content": "thinking more"},
                {"type": "text", "content": "**Answer** done"}
            ],
            "responseStatus": "complete",
            "reasoning": "thinking more"
        })
    );
}

#[test]
fn reasoning_after_text_closes_the_text_first() {
    let mut model = StreamModel::new();
    assert_eq!(model.apply_batch(&[content("a")]), vec![Change::OpenText]);
    assert_eq!(
        model.apply_batch(&[reasoning("r"), content("b")]),
        vec![
            Change::CloseText { markdown: "a".into() },
            Change::OpenReasoning,
            Change::CloseReasoning { pending: "r".into() },
            Change::OpenText,
        ]
    );
    let entry = model.display_entry(ResponseStatus::Incomplete).expect("output");
    assert_eq!(entry["content"], "ab");
    assert_eq!(entry["segments"].as_array().map(Vec::len), Some(3));
    assert_eq!(entry["responseStatus"], "incomplete");
}

#[test]
fn tool_calls_close_the_open_segment_and_collect_results() {
    let mut model = StreamModel::new();
    model.apply_batch(&[reasoning("plan"), content("Let me read.")]);
    let calls = vec![call("c1", "read_document"), call("c2", "read_diagnostics")];
    assert_eq!(
        model.add_tool_calls(&calls),
        vec![
            Change::CloseText {
                markdown: "Let me read.".into()
            },
            Change::AddTools(calls.clone())
        ]
    );
    let mut result = Map::new();
    result.insert("ok".into(), json!(true));
    result.insert("doc_chars".into(), json!(120));
    assert!(model.set_tool_result("c1", &result));
    assert!(!model.set_tool_result("other", &result), "unknown ids are refused");
    assert!(model.has_call("c2"));
    model.apply_batch(&[content("Done.")]);
    model.finish();
    let entry = model.display_entry(ResponseStatus::Complete).expect("output");
    assert_eq!(
        entry["segments"],
        json!([
            {"type": "reasoning", "content": "plan"},
            {"type": "text", "content": "Let me read."},
            {"type": "tools", "calls": [
                {"id": "c1", "name": "read_document", "args": {}},
                {"id": "c2", "name": "read_diagnostics", "args": {}}
            ], "results": {"c1": {"ok": true, "doc_chars": 120}}},
            {"type": "text", "content": "Done."}
        ])
    );
    assert_eq!(entry["toolCalls"].as_array().map(Vec::len), Some(2));
    assert_eq!(entry["content"], "Let me read.Done.");
}

#[test]
fn nothing_received_means_no_entry() {
    let mut model = StreamModel::new();
    assert!(!model.has_output());
    model.apply_batch(&[content("")]);
    model.add_tool_calls(&[]);
    assert_eq!(model.finish(), vec![]);
    assert_eq!(model.display_entry(ResponseStatus::Incomplete), None);
}

#[test]
fn reasoning_only_output_is_kept() {
    let mut model = StreamModel::new();
    model.apply_batch(&[reasoning("only thoughts 🙂")]);
    assert_eq!(
        model.take_pending().reasoning,
        Some(("only thoughts 🙂".into(), 16)),
        "length in UTF-16 units"
    );
    model.finish();
    let entry = model.display_entry(ResponseStatus::Incomplete).expect("kept");
    assert_eq!(entry["content"], "");
    assert_eq!(entry["reasoning"], "only thoughts 🙂");
    assert!(entry.get("toolCalls").is_none());
}

#[test]
fn many_small_deltas_are_shown_exactly_once() {
    let mut model = StreamModel::new();
    let mut shown = String::new();
    let mut source = String::new();
    for index in 0..2_000 {
        let delta = format!("d{index} ");
        source.push_str(&delta);
        model.apply_batch(&[content(&delta)]);
        if index % 7 == 0 {
            shown.push_str(&model.take_pending().text.unwrap_or_default());
        }
    }
    shown.push_str(&model.take_pending().text.unwrap_or_default());
    assert_eq!(shown, source);
    assert_eq!(model.finish(), vec![Change::CloseText { markdown: source }]);
}

#[test]
fn a_very_long_answer_is_saved_and_shown_with_the_marker_exactly_once() {
    // 999 characters: the bound falls inside a chunk, so the cut keeps part of it.
    let chunk = "abc".repeat(333);
    let mut model = StreamModel::new();
    let mut worker = AnswerRecord::new();
    let mut shown = String::new();
    for index in 0..300 {
        model.apply_batch(&[content(&chunk)]);
        worker.push(StreamChannel::Content, &chunk);
        if index % 9 == 0 {
            shown.push_str(&model.take_pending().text.unwrap_or_default());
        }
    }
    shown.push_str(&model.take_pending().text.unwrap_or_default());
    assert_eq!(shown.matches(TRUNCATION_MARKER).count(), 1);
    assert!(shown.ends_with(TRUNCATION_MARKER));
    assert_eq!(utf16_len(&shown), MAX_ANSWER_TEXT_CHARS);
    assert_eq!(
        model.apply_batch(&[content("more")]),
        vec![],
        "a full channel shows nothing new"
    );
    assert_eq!(model.take_pending(), Pending::default());
    assert_eq!(
        model.finish(),
        vec![Change::CloseText {
            markdown: shown.clone()
        }],
        "the Markdown render shows the marker once too"
    );
    let entry = model.display_entry(ResponseStatus::Complete).expect("output");
    assert_eq!(entry["content"], json!(shown));
    assert_eq!(entry["segments"], json!([{"type": "text", "content": shown}]));
    assert_eq!(
        Some(entry),
        worker.entry(ResponseStatus::Complete),
        "the panel's save is the worker's"
    );
}

#[test]
fn text_the_segment_bound_leaves_out_shows_nothing_new() {
    let mut model = StreamModel::new();
    for index in 0..MAX_ANSWER_SEGMENTS {
        let item = if index % 2 == 0 { reasoning("r") } else { content("t") };
        model.apply_batch(&[item]);
    }
    model.take_pending();
    assert_eq!(model.apply_batch(&[reasoning("unshown")]), vec![]);
    assert_eq!(model.take_pending(), Pending::default());
    assert_eq!(
        model.apply_batch(&[content(" grows")]),
        vec![],
        "the open text still joins"
    );
    assert_eq!(model.take_pending().text.as_deref(), Some(" grows"));
    let calls = vec![call("c1", "read_document")];
    assert_eq!(
        model.add_tool_calls(&calls),
        vec![
            Change::CloseText {
                markdown: "t grows".into()
            },
            Change::AddTools(calls)
        ],
        "the calls are shown though no tools segment is left"
    );
    assert!(model.set_tool_result("c1", &Map::new()));
    assert_eq!(
        model.apply_batch(&[content(" after")]),
        vec![Change::OpenText],
        "text after the calls joins the closed segment in the record, in a new block on screen"
    );
    assert_eq!(model.take_pending().text.as_deref(), Some(" after"));
    assert_eq!(
        model.finish(),
        vec![Change::CloseText {
            markdown: " after".into()
        }]
    );
    let entry = model.display_entry(ResponseStatus::Complete).expect("output");
    let segments = entry["segments"].as_array().expect("segments");
    assert_eq!(segments.len(), MAX_ANSWER_SEGMENTS);
    assert_eq!(
        segments.last(),
        Some(&json!({"type": "text", "content": "t grows after"}))
    );
    assert!(entry["reasoning"].as_str().is_some_and(|r| r.ends_with("runshown")));
    assert_eq!(
        entry["toolCalls"],
        json!([{"id": "c1", "name": "read_document", "args": {}}])
    );
}

#[test]
fn calls_past_the_tool_call_bound_are_shown_but_not_saved() {
    let mut model = StreamModel::new();
    let batch = |from: usize, count: usize| -> Vec<ToolCallInfo> {
        (from..from + count)
            .map(|i| call(&format!("c{i}"), "read_document"))
            .collect()
    };
    model.add_tool_calls(&batch(0, 64));
    model.add_tool_calls(&batch(64, MAX_ANSWER_TOOL_CALLS - 64));
    let late = batch(MAX_ANSWER_TOOL_CALLS, 1);
    assert_eq!(model.add_tool_calls(&late), vec![Change::AddTools(late)]);
    let late_id = format!("c{MAX_ANSWER_TOOL_CALLS}");
    assert!(model.has_call(&late_id));
    assert!(
        model.set_tool_result(&late_id, &Map::new()),
        "its block shows the result"
    );
    assert!(!model.set_tool_result("stray", &Map::new()));
    let entry = model.display_entry(ResponseStatus::Incomplete).expect("output");
    assert_eq!(entry["toolCalls"].as_array().map(Vec::len), Some(MAX_ANSWER_TOOL_CALLS));
    assert_eq!(entry["segments"].as_array().map(Vec::len), Some(2));
}
