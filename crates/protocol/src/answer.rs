//! The saved answer record: what one assistant answer showed, in the order it
//! arrived, and the display message both the worker and the panel store.
//!
//! Why one definition: the worker records every run it streams so that an
//! answer is saved even when no panel is open, and the panel saves the same
//! answer when it is. The two saves meet in the chat repository, which keeps
//! one of them by comparing content, reasoning and tool calls. They can only
//! agree if both sides build the record with the same joining rules and the
//! same bounds, so both build it here.
//!
//! The stored shape is the original's display message:
//! `{role:'assistant', content, segments, responseStatus, toolCalls?, reasoning?}`
//! with segments `{type:'text'|'reasoning', content}` or
//! `{type:'tools', calls, results}`.

use crate::js;
use crate::payloads::{StreamChannel, ToolCallInfo};
use serde_json::{Map, Value, json};

/// Most characters (UTF-16) kept per channel (content, reasoning), marker included.
pub const MAX_ANSWER_TEXT_CHARS: usize = 250_000;
/// Most tool calls kept in one answer.
pub const MAX_ANSWER_TOOL_CALLS: usize = 128;
/// Most segments kept in one answer; text past it still counts in `content`.
pub const MAX_ANSWER_SEGMENTS: usize = 256;
/// Appended once to a channel when it reaches its bound.
pub const TRUNCATION_MARKER: &str = "\n… (transcript truncated)";

/// How an answer ended, as saved in `responseStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseStatus {
    /// The run finished (`AI_STREAM_DONE`).
    Complete,
    /// Stopped, failed or cut off: the partial output is kept.
    Incomplete,
}

impl ResponseStatus {
    /// The stored string.
    pub const fn as_str(self) -> &'static str {
        match self {
            ResponseStatus::Complete => "complete",
            ResponseStatus::Incomplete => "incomplete",
        }
    }
}

/// One piece of an answer, in the order it arrived.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// Answer text (Markdown).
    Text(String),
    /// Reasoning the model streamed apart from its answer.
    Reasoning(String),
    /// One `AI_TOOL_CALLS` batch and the results that came back.
    Tools {
        /// The calls, as the panel shows them.
        calls: Vec<ToolCallInfo>,
        /// Results by call id (a call without one is still running or never ran).
        results: Map<String, Value>,
    },
}

impl Segment {
    /// The stored form.
    pub fn to_value(&self) -> Value {
        match self {
            Segment::Text(content) => json!({ "type": "text", "content": content }),
            Segment::Reasoning(content) => json!({ "type": "reasoning", "content": content }),
            Segment::Tools { calls, results } => json!({ "type": "tools", "calls": calls, "results": results }),
        }
    }

    fn channel(&self) -> Option<StreamChannel> {
        match self {
            Segment::Text(_) => Some(StreamChannel::Content),
            Segment::Reasoning(_) => Some(StreamChannel::Reasoning),
            Segment::Tools { .. } => None,
        }
    }
}

/// Where [`AnswerRecord::push`] put the text it kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Nothing was kept (empty text, or the channel is already full).
    Nothing,
    /// Appended to the last segment, which is of the same channel.
    Joined,
    /// A new segment was started for it.
    Opened,
    /// Kept in the channel's text, but the segment bound left no room to show it.
    Unsegmented,
}

/// What one push kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    /// The text actually appended (possibly cut, possibly ending with the marker).
    pub text: String,
    /// Where it went.
    pub placement: Placement,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Channel {
    text: String,
    units: usize,
    truncated: bool,
}

impl Channel {
    /// Appends what fits and returns the part actually appended.
    fn append(&mut self, text: &str) -> String {
        if self.truncated || text.is_empty() {
            return String::new();
        }
        // Room for the marker is always kept, so the channel never passes
        // the bound and where it is cut does not depend on how the text was
        // chunked.
        let text_room = MAX_ANSWER_TEXT_CHARS - js::utf16_len(TRUNCATION_MARKER);
        let incoming = js::utf16_len(text);
        if self.units + incoming <= text_room {
            self.text.push_str(text);
            self.units += incoming;
            return text.to_owned();
        }
        self.truncated = true;
        let room = text_room.saturating_sub(self.units);
        let mut appended = js::truncate_utf16(text, room).to_owned();
        appended.push_str(TRUNCATION_MARKER);
        self.units += js::utf16_len(&appended);
        self.text.push_str(&appended);
        appended
    }
}

/// One answer as it grows: bounded channels, ordered segments, tool calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnswerRecord {
    content: Channel,
    reasoning: Channel,
    segments: Vec<Segment>,
    tool_calls: Vec<ToolCallInfo>,
}

impl AnswerRecord {
    /// An empty answer.
    pub fn new() -> AnswerRecord {
        AnswerRecord::default()
    }

    /// The segments so far.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Every tool call kept so far.
    pub fn tool_calls(&self) -> &[ToolCallInfo] {
        &self.tool_calls
    }

    /// Whether text of `channel` would join the last segment instead of
    /// starting a new one (the last segment is of the same channel).
    pub fn joins(&self, channel: StreamChannel) -> bool {
        self.segments.last().and_then(Segment::channel) == Some(channel)
    }

    /// Appends streamed text; adjacent text of one channel joins one segment.
    pub fn push(&mut self, channel: StreamChannel, text: &str) -> Pushed {
        let joins = self.joins(channel);
        let target = match channel {
            StreamChannel::Content => &mut self.content,
            StreamChannel::Reasoning => &mut self.reasoning,
        };
        let appended = target.append(text);
        if appended.is_empty() {
            return Pushed {
                text: appended,
                placement: Placement::Nothing,
            };
        }
        let room = self.segments.len() < MAX_ANSWER_SEGMENTS;
        let placement = match self.segments.last_mut() {
            Some(Segment::Text(segment) | Segment::Reasoning(segment)) if joins => {
                segment.push_str(&appended);
                Placement::Joined
            }
            _ if room => {
                self.segments.push(match channel {
                    StreamChannel::Content => Segment::Text(appended.clone()),
                    StreamChannel::Reasoning => Segment::Reasoning(appended.clone()),
                });
                Placement::Opened
            }
            _ => Placement::Unsegmented,
        };
        Pushed {
            text: appended,
            placement,
        }
    }

    /// Records one `AI_TOOL_CALLS` batch as a tools segment and returns the
    /// calls kept (none once the tool-call bound is reached).
    pub fn add_tool_calls(&mut self, calls: &[ToolCallInfo]) -> Vec<ToolCallInfo> {
        let room = MAX_ANSWER_TOOL_CALLS.saturating_sub(self.tool_calls.len());
        let kept: Vec<ToolCallInfo> = calls.iter().take(room).cloned().collect();
        if kept.is_empty() {
            return kept;
        }
        self.tool_calls.extend(kept.iter().cloned());
        if self.segments.len() < MAX_ANSWER_SEGMENTS {
            self.segments.push(Segment::Tools {
                calls: kept.clone(),
                results: Map::new(),
            });
        }
        kept
    }

    /// Records one `AI_TOOL_RESULT` with its call; false when no call of
    /// this answer's segments has that id (a stray or late event).
    pub fn set_tool_result(&mut self, call_id: &str, result: &Map<String, Value>) -> bool {
        for segment in &mut self.segments {
            if let Segment::Tools { calls, results } = segment
                && calls.iter().any(|call| call.id == call_id)
            {
                results.insert(call_id.to_owned(), Value::Object(result.clone()));
                return true;
            }
        }
        false
    }

    /// Whether a tool call with this id belongs to this answer.
    pub fn has_call(&self, call_id: &str) -> bool {
        self.tool_calls.iter().any(|call| call.id == call_id)
    }

    /// True until anything worth keeping arrived.
    pub fn is_empty(&self) -> bool {
        self.content.text.is_empty() && self.reasoning.text.is_empty() && self.tool_calls.is_empty()
    }

    /// The display message to store, or `None` when nothing arrived.
    pub fn entry(&self, status: ResponseStatus) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let mut entry = Map::new();
        entry.insert("role".into(), json!("assistant"));
        entry.insert("content".into(), json!(self.content.text));
        entry.insert(
            "segments".into(),
            Value::Array(self.segments.iter().map(Segment::to_value).collect()),
        );
        entry.insert("responseStatus".into(), json!(status.as_str()));
        if !self.tool_calls.is_empty() {
            entry.insert("toolCalls".into(), json!(self.tool_calls));
        }
        if !self.reasoning.text.is_empty() {
            entry.insert("reasoning".into(), json!(self.reasoning.text));
        }
        Some(Value::Object(entry))
    }
}

/// The segments of a stored assistant message. Records saved while
/// streaming carry `segments`; older or imported records are flat and are
/// shown as reasoning, then tools, then text. Malformed parts are skipped,
/// never fatal: history comes from storage and imports.
pub fn stored_segments(message: &Value) -> Vec<Segment> {
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
    let calls = stored_tool_calls(message.get("toolCalls"));
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
            let calls = stored_tool_calls(segment.get("calls"));
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
pub fn stored_tool_calls(value: Option<&Value>) -> Vec<ToolCallInfo> {
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
pub fn latest_completed_response_index(history: &[Value]) -> Option<usize> {
    history.iter().rposition(|message| {
        message.get("role").and_then(Value::as_str) == Some("assistant")
            && message.get("responseStatus").and_then(Value::as_str) == Some(ResponseStatus::Complete.as_str())
    })
}

#[cfg(test)]
mod tests;
