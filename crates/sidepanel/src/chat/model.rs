//! The chat's data: assistant answers as ordered segments, the streaming
//! state machine that turns run events into segment changes, and the display
//! entry the panel saves.
//!
//! Why a state machine apart from the DOM: the order of segments (reasoning,
//! tools, text) and the moments a text segment closes and is rendered as
//! Markdown decide what the user sees and what is saved. Kept here as plain
//! Rust, they are tested natively; `chat::view` only mirrors the changes this
//! module reports into elements.

use protocol::js::utf16_len;
use protocol::payloads::{StreamChannel, StreamItem, ToolCallInfo};
use serde_json::{Map, Value, json};

/// How an answer ended, as saved in `responseStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResponseStatus {
    /// The run finished (`AI_STREAM_DONE`).
    Complete,
    /// Stopped, failed or cut off: the partial output is kept.
    Incomplete,
}

impl ResponseStatus {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ResponseStatus::Complete => "complete",
            ResponseStatus::Incomplete => "incomplete",
        }
    }
}

/// One piece of an assistant answer, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Text(String),
    Reasoning(String),
    Tools {
        calls: Vec<ToolCallInfo>,
        /// Results by call id (a call without one is still running or never ran).
        results: Map<String, Value>,
    },
}

impl Segment {
    /// The stored form: `{type:'text'|'reasoning', content}` or
    /// `{type:'tools', calls, results}`.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Segment::Text(content) => json!({ "type": "text", "content": content }),
            Segment::Reasoning(content) => json!({ "type": "reasoning", "content": content }),
            Segment::Tools { calls, results } => json!({
                "type": "tools",
                "calls": calls.iter().map(call_value).collect::<Vec<_>>(),
                "results": results,
            }),
        }
    }
}

fn call_value(call: &ToolCallInfo) -> Value {
    json!({ "id": call.id, "name": call.name, "args": call.args })
}

/// The segments of a stored assistant message. Records saved while
/// streaming carry `segments`; older or imported records are flat and are
/// shown as reasoning, then tools, then text. Malformed parts are skipped,
/// never fatal: history comes from storage and imports.
pub(crate) fn assistant_segments(message: &Value) -> Vec<Segment> {
    if let Some(stored) = message
        .get("segments")
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    {
        return stored.iter().filter_map(stored_segment).collect();
    }
    let mut segments = Vec::new();
    if let Some(reasoning) = non_empty_str(message.get("reasoning")) {
        segments.push(Segment::Reasoning(reasoning.to_owned()));
    }
    let calls = normalize_tool_calls(message.get("toolCalls"));
    if !calls.is_empty() {
        segments.push(Segment::Tools {
            calls,
            results: Map::new(),
        });
    }
    if let Some(content) = non_empty_str(message.get("content")) {
        segments.push(Segment::Text(content.to_owned()));
    }
    segments
}

fn non_empty_str(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn stored_segment(segment: &Value) -> Option<Segment> {
    match segment.get("type").and_then(Value::as_str)? {
        "text" => non_empty_str(segment.get("content")).map(|c| Segment::Text(c.to_owned())),
        "reasoning" => non_empty_str(segment.get("content")).map(|c| Segment::Reasoning(c.to_owned())),
        "tools" => {
            let calls = normalize_tool_calls(segment.get("calls"));
            let results = segment
                .get("results")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            Some(Segment::Tools { calls, results })
        }
        _ => None,
    }
}

/// Tool calls in the panel's shape `{id, name, args}` from either that shape
/// or the provider's `{id, function:{name, arguments}}` with JSON-string
/// arguments (imports). Unparsable arguments show as no arguments.
pub(crate) fn normalize_tool_calls(value: Option<&Value>) -> Vec<ToolCallInfo> {
    let Some(calls) = value.and_then(Value::as_array) else {
        return Vec::new();
    };
    calls
        .iter()
        .filter_map(|call| {
            let id = call.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            if let Some(function) = call
                .get("function")
                .filter(|f| f.get("name").is_some_and(Value::is_string))
            {
                let name = function
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                return Some(ToolCallInfo {
                    id,
                    name,
                    args: parse_arguments(function.get("arguments")),
                });
            }
            let name = call.get("name").and_then(Value::as_str)?.to_owned();
            let args = call.get("args").and_then(Value::as_object).cloned().unwrap_or_default();
            Some(ToolCallInfo { id, name, args })
        })
        .collect()
}

fn parse_arguments(raw: Option<&Value>) -> Map<String, Value> {
    match raw {
        Some(Value::Object(map)) => map.clone(),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}

/// Index of the newest assistant answer that completed; older or partial
/// answers do not count (the recovery controls attach to it).
pub(crate) fn latest_completed_response_index(history: &[Value]) -> Option<usize> {
    history.iter().rposition(|message| {
        message.get("role").and_then(Value::as_str) == Some("assistant")
            && message.get("responseStatus").and_then(Value::as_str) == Some(ResponseStatus::Complete.as_str())
    })
}

/// What the view must do to mirror the stream, in order. Text that merely
/// grows is not a change: it is picked up by [`StreamModel::take_pending`]
/// once per animation frame.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    /// Start a live reasoning block.
    OpenReasoning,
    /// The live reasoning block is done: append `pending` (text not yet
    /// shown), then close it.
    CloseReasoning { pending: String },
    /// Start a text segment shown as inert text.
    OpenText,
    /// The text segment is done: render `markdown` (its whole text) once.
    CloseText { markdown: String },
    /// Add a tool block per call.
    AddTools(Vec<ToolCallInfo>),
}

/// Text to append since the last frame, for the open segment of each kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Pending {
    pub(crate) text: Option<String>,
    /// New reasoning text, with the segment's total length in UTF-16 units.
    pub(crate) reasoning: Option<(String, usize)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    None,
    Text,
    Reasoning,
}

/// The answer being streamed.
#[derive(Debug, Clone)]
pub(crate) struct StreamModel {
    segments: Vec<Segment>,
    all_text: String,
    all_reasoning: String,
    tool_calls: Vec<ToolCallInfo>,
    open: Open,
    /// Bytes of the open segment's text already handed to the view.
    shown: usize,
    finished: bool,
}

impl Default for StreamModel {
    fn default() -> Self {
        StreamModel::new()
    }
}

impl StreamModel {
    pub(crate) fn new() -> StreamModel {
        StreamModel {
            segments: Vec::new(),
            all_text: String::new(),
            all_reasoning: String::new(),
            tool_calls: Vec::new(),
            open: Open::None,
            shown: 0,
            finished: false,
        }
    }

    /// True once anything was received that is worth keeping.
    pub(crate) fn has_output(&self) -> bool {
        !self.all_text.is_empty() || !self.all_reasoning.is_empty() || !self.tool_calls.is_empty()
    }

    /// Appends an `AI_STREAM_BATCH`, item by item in order. Reasoning after
    /// text closes the text (it is rendered then); text after reasoning
    /// closes the reasoning block.
    pub(crate) fn apply_batch(&mut self, items: &[StreamItem]) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.finished {
            return changes;
        }
        for item in items.iter().filter(|item| !item.text.is_empty()) {
            match item.channel {
                StreamChannel::Content => {
                    if self.open != Open::Text {
                        self.close_open(&mut changes);
                        self.segments.push(Segment::Text(String::new()));
                        self.open = Open::Text;
                        changes.push(Change::OpenText);
                    }
                    self.all_text.push_str(&item.text);
                }
                StreamChannel::Reasoning => {
                    if self.open != Open::Reasoning {
                        self.close_open(&mut changes);
                        self.segments.push(Segment::Reasoning(String::new()));
                        self.open = Open::Reasoning;
                        changes.push(Change::OpenReasoning);
                    }
                    self.all_reasoning.push_str(&item.text);
                }
            }
            if let Some(Segment::Text(content) | Segment::Reasoning(content)) = self.segments.last_mut() {
                content.push_str(&item.text);
            }
        }
        changes
    }

    /// `AI_TOOL_CALLS`: closes the open segment and adds a tools segment.
    pub(crate) fn add_tool_calls(&mut self, calls: &[ToolCallInfo]) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.finished || calls.is_empty() {
            return changes;
        }
        self.close_open(&mut changes);
        self.tool_calls.extend(calls.iter().cloned());
        self.segments.push(Segment::Tools {
            calls: calls.to_vec(),
            results: Map::new(),
        });
        changes.push(Change::AddTools(calls.to_vec()));
        changes
    }

    /// `AI_TOOL_RESULT`: records the result with its call. False when no
    /// call of this answer has that id (a stray or late event).
    pub(crate) fn set_tool_result(&mut self, call_id: &str, result: &Map<String, Value>) -> bool {
        let mut found = false;
        for segment in &mut self.segments {
            if let Segment::Tools { calls, results } = segment
                && calls.iter().any(|call| call.id == call_id)
            {
                results.insert(call_id.to_owned(), Value::Object(result.clone()));
                found = true;
            }
        }
        found
    }

    /// Whether a tool call with this id belongs to this answer.
    #[cfg(test)]
    pub(crate) fn has_call(&self, call_id: &str) -> bool {
        self.tool_calls.iter().any(|call| call.id == call_id)
    }

    /// Text appended since the last call, for the open segment.
    pub(crate) fn take_pending(&mut self) -> Pending {
        let mut pending = Pending::default();
        match (self.open, self.segments.last()) {
            (Open::Text, Some(Segment::Text(content))) if content.len() > self.shown => {
                pending.text = content.get(self.shown..).map(str::to_owned);
                self.shown = content.len();
            }
            (Open::Reasoning, Some(Segment::Reasoning(content))) if content.len() > self.shown => {
                pending.reasoning = content.get(self.shown..).map(|s| (s.to_owned(), utf16_len(content)));
                self.shown = content.len();
            }
            _ => {}
        }
        pending
    }

    /// Ends the stream: the open segment closes (text gets its one Markdown
    /// render). Later events are ignored.
    pub(crate) fn finish(&mut self) -> Vec<Change> {
        let mut changes = Vec::new();
        if !self.finished {
            self.close_open(&mut changes);
            self.finished = true;
        }
        changes
    }

    fn close_open(&mut self, changes: &mut Vec<Change>) {
        match (self.open, self.segments.last()) {
            (Open::Text, Some(Segment::Text(content))) => changes.push(Change::CloseText {
                markdown: content.clone(),
            }),
            (Open::Reasoning, Some(Segment::Reasoning(content))) => changes.push(Change::CloseReasoning {
                pending: content.get(self.shown..).unwrap_or_default().to_owned(),
            }),
            _ => {}
        }
        self.open = Open::None;
        self.shown = 0;
    }

    /// The display message saved with `SESSION_UPDATE`:
    /// `{role:'assistant', content, segments, responseStatus, toolCalls?,
    /// reasoning?}`, or `None` when nothing arrived.
    pub(crate) fn display_entry(&self, status: ResponseStatus) -> Option<Value> {
        if !self.has_output() {
            return None;
        }
        let mut entry = Map::new();
        entry.insert("role".into(), json!("assistant"));
        entry.insert("content".into(), json!(self.all_text));
        entry.insert(
            "segments".into(),
            Value::Array(self.segments.iter().map(Segment::to_value).collect()),
        );
        entry.insert("responseStatus".into(), json!(status.as_str()));
        if !self.tool_calls.is_empty() {
            entry.insert(
                "toolCalls".into(),
                Value::Array(self.tool_calls.iter().map(call_value).collect()),
            );
        }
        if !self.all_reasoning.is_empty() {
            entry.insert("reasoning".into(), json!(self.all_reasoning));
        }
        Some(Value::Object(entry))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn flat_records_are_shown_as_reasoning_then_tools_then_text() {
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
        let segments = assistant_segments(&message);
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
        let segments = assistant_segments(&message);
        assert_eq!(segments.len(), 3);
        assert_eq!(segments[0], Segment::Text("first".into()));
        assert!(matches!(&segments[1], Segment::Tools { results, .. } if results.contains_key("x")));
        assert_eq!(segments[2], Segment::Reasoning("later".into()));
        assert!(assistant_segments(&json!({"role": "assistant"})).is_empty());
        assert!(assistant_segments(&json!("not an object")).is_empty());
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
}
