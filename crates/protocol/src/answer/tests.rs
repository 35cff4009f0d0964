//! The answer record's joining rules, bounds and stored forms.

use super::*;

fn call(id: &str) -> ToolCallInfo {
    ToolCallInfo {
        id: id.to_owned(),
        name: "read_document".to_owned(),
        args: Map::new(),
    }
}

#[test]
fn nothing_shown_means_no_entry() {
    let mut record = AnswerRecord::new();
    assert_eq!(record.push(StreamChannel::Content, "").placement, Placement::Nothing);
    assert!(record.is_empty());
    assert_eq!(record.entry(ResponseStatus::Complete), None);
}

#[test]
fn segments_follow_the_stream_in_order() {
    let mut record = AnswerRecord::new();
    assert_eq!(
        record.push(StreamChannel::Reasoning, "think ").placement,
        Placement::Opened
    );
    assert!(record.joins(StreamChannel::Reasoning));
    assert!(!record.joins(StreamChannel::Content));
    assert_eq!(
        record.push(StreamChannel::Reasoning, "more").placement,
        Placement::Joined
    );
    assert_eq!(
        record.push(StreamChannel::Content, "Reading.").placement,
        Placement::Opened
    );
    let kept = record.add_tool_calls(&[call("c1"), call("c2")]);
    assert_eq!(kept.len(), 2);
    let mut result = Map::new();
    result.insert("ok".into(), json!(true));
    assert!(record.set_tool_result("c2", &result));
    assert!(!record.set_tool_result("unknown", &result));
    assert!(record.has_call("c1") && !record.has_call("unknown"));
    record.push(StreamChannel::Content, "Done.");
    assert_eq!(
        record.entry(ResponseStatus::Incomplete),
        Some(json!({
            "role": "assistant",
            "content": "Reading.Done.",
            "reasoning": "think more",
            "responseStatus": "incomplete",
            "toolCalls": [
                {"id": "c1", "name": "read_document", "args": {}},
                {"id": "c2", "name": "read_document", "args": {}}
            ],
            "segments": [
                {"type": "reasoning", "content": "think more"},
                {"type": "text", "content": "Reading."},
                {"type": "tools", "calls": [
                    {"id": "c1", "name": "read_document", "args": {}},
                    {"id": "c2", "name": "read_document", "args": {}}
                ], "results": {"c2": {"ok": true}}},
                {"type": "text", "content": "Done."}
            ]
        }))
    );
}

#[test]
fn each_channel_is_bounded_with_one_marker() {
    let mut record = AnswerRecord::new();
    let chunk = "é".repeat(100_000);
    for _ in 0..3 {
        record.push(StreamChannel::Content, &chunk);
    }
    let cut = record.push(StreamChannel::Content, &chunk);
    assert_eq!(cut.placement, Placement::Nothing, "the channel was already full");
    record.push(StreamChannel::Reasoning, "still here");
    let entry = record.entry(ResponseStatus::Complete).unwrap_or_default();
    let content = entry["content"].as_str().unwrap_or_default();
    assert_eq!(js::utf16_len(content), MAX_ANSWER_TEXT_CHARS);
    assert!(content.ends_with(TRUNCATION_MARKER));
    assert_eq!(content.matches(TRUNCATION_MARKER).count(), 1);
    assert_eq!(entry["reasoning"], "still here");
    let first_segment = entry["segments"][0]["content"].as_str().unwrap_or_default();
    assert_eq!(first_segment, content, "segments carry the same bounded text");
}

#[test]
fn the_cut_does_not_depend_on_how_the_text_was_chunked() {
    let whole = "x".repeat(MAX_ANSWER_TEXT_CHARS + 10);
    let mut at_once = AnswerRecord::new();
    at_once.push(StreamChannel::Content, &whole);
    let mut exact_then_more = AnswerRecord::new();
    exact_then_more.push(StreamChannel::Content, &whole[..MAX_ANSWER_TEXT_CHARS]);
    exact_then_more.push(StreamChannel::Content, &whole[MAX_ANSWER_TEXT_CHARS..]);
    let mut small = AnswerRecord::new();
    for chunk in whole.as_bytes().chunks(999) {
        small.push(StreamChannel::Content, std::str::from_utf8(chunk).unwrap_or_default());
    }
    let entry = at_once.entry(ResponseStatus::Complete);
    assert_eq!(exact_then_more.entry(ResponseStatus::Complete), entry);
    assert_eq!(small.entry(ResponseStatus::Complete), entry);
    let content = entry.as_ref().and_then(|e| e["content"].as_str()).unwrap_or_default();
    assert_eq!(js::utf16_len(content), MAX_ANSWER_TEXT_CHARS);
    assert!(content.ends_with(TRUNCATION_MARKER));
}

#[test]
fn a_cut_never_splits_a_surrogate_pair() {
    let mut record = AnswerRecord::new();
    record.push(StreamChannel::Content, &"a".repeat(MAX_ANSWER_TEXT_CHARS - 30));
    let pushed = record.push(StreamChannel::Content, &"𝔸".repeat(100));
    assert!(pushed.text.ends_with(TRUNCATION_MARKER));
    let kept = pushed.text.trim_end_matches(TRUNCATION_MARKER);
    assert!(kept.chars().all(|c| c == '𝔸'));
    let entry = record.entry(ResponseStatus::Complete).unwrap_or_default();
    assert!(js::utf16_len(entry["content"].as_str().unwrap_or_default()) <= MAX_ANSWER_TEXT_CHARS);
}

#[test]
fn tool_calls_and_segments_are_bounded() {
    let mut record = AnswerRecord::new();
    let calls: Vec<ToolCallInfo> = (0..100).map(|i| call(&format!("c{i}"))).collect();
    assert_eq!(record.add_tool_calls(&calls).len(), 100);
    assert_eq!(record.add_tool_calls(&calls).len(), MAX_ANSWER_TOOL_CALLS - 100);
    assert!(record.add_tool_calls(&calls).is_empty());
    let entry = record.entry(ResponseStatus::Complete).unwrap_or_default();
    assert_eq!(entry["toolCalls"].as_array().map(Vec::len), Some(MAX_ANSWER_TOOL_CALLS));
    let mut unsegmented = 0;
    for i in 0..600 {
        let channel = if i % 2 == 0 {
            StreamChannel::Content
        } else {
            StreamChannel::Reasoning
        };
        if record.push(channel, "x").placement == Placement::Unsegmented {
            unsegmented += 1;
        }
    }
    // Past the cap, text of the last segment's channel still joins it; the other is not shown.
    assert_eq!(unsegmented, 173);
    let entry = record.entry(ResponseStatus::Complete).unwrap_or_default();
    assert_eq!(entry["segments"].as_array().map(Vec::len), Some(MAX_ANSWER_SEGMENTS));
    assert_eq!(
        entry["content"].as_str().map(str::len),
        Some(300),
        "text is kept past the segment cap"
    );
}

#[test]
fn flat_records_are_read_as_reasoning_then_tools_then_text() {
    let message = json!({
        "role": "assistant",
        "content": "final",
        "reasoning": "why",
        "toolCalls": [
            {"id": "a", "function": {"name": "read_document", "arguments": "{\"max_chars\":5000}"}},
            {"id": "b", "function": {"name": "read_diagnostics", "arguments": "not json"}},
            {"id": "c", "name": "open_project_file", "args": {"path": "ch.typ"}},
            {"id": "d"}
        ]
    });
    let segments = stored_segments(&message);
    assert_eq!(segments.len(), 3);
    assert_eq!(segments[0], Segment::Reasoning("why".into()));
    let Segment::Tools { calls, results } = &segments[1] else {
        panic!("tools second: {segments:?}");
    };
    assert!(results.is_empty());
    assert_eq!(
        calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
        ["read_document", "read_diagnostics", "open_project_file"]
    );
    assert_eq!(calls[0].args.get("max_chars"), Some(&json!(5000)));
    assert!(calls[1].args.is_empty());
    assert_eq!(calls[2].args.get("path"), Some(&json!("ch.typ")));
    assert_eq!(segments[2], Segment::Text("final".into()));
}

#[test]
fn stored_segments_keep_their_order_and_skip_junk() {
    let message = json!({
        "role": "assistant",
        "content": "ignored when segments exist",
        "segments": [
            {"type": "text", "content": "first"},
            {"type": "tools", "calls": [{"id": "x", "name": "read_document", "args": {}}], "results": {"x": {"ok": true}}},
            {"type": "reasoning", "content": ""},
            {"type": "unknown"},
            "junk",
            {"type": "reasoning", "content": "later"}
        ]
    });
    let segments = stored_segments(&message);
    assert_eq!(segments.len(), 3);
    assert_eq!(segments[0], Segment::Text("first".into()));
    assert!(matches!(&segments[1], Segment::Tools { results, .. } if results.contains_key("x")));
    assert_eq!(segments[2], Segment::Reasoning("later".into()));
    assert!(stored_segments(&json!({"role": "assistant"})).is_empty());
    assert!(stored_segments(&json!("not an object")).is_empty());
}

#[test]
fn a_saved_entry_reads_back_as_the_same_segments() {
    let mut record = AnswerRecord::new();
    record.push(StreamChannel::Reasoning, "plan");
    record.add_tool_calls(&[call("c1")]);
    record.push(StreamChannel::Content, "answer");
    let entry = record.entry(ResponseStatus::Complete).unwrap_or_default();
    assert_eq!(stored_segments(&entry), record.segments());
}

#[test]
fn the_latest_completed_answer_is_found() {
    let mut history = vec![
        json!({"role": "assistant", "content": "first", "responseStatus": "complete"}),
        json!({"role": "user", "content": "continue"}),
        json!({"role": "assistant", "content": "partial", "responseStatus": "incomplete"}),
    ];
    assert_eq!(latest_completed_response_index(&history), Some(0));
    history.push(json!({"role": "assistant", "content": "latest", "responseStatus": "complete"}));
    assert_eq!(latest_completed_response_index(&history), Some(3));
    assert_eq!(
        latest_completed_response_index(&[json!({"role": "assistant", "content": "legacy"})]),
        None
    );
}
