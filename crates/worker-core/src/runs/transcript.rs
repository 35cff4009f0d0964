//! The assistant's display entry, built by the worker from what it streamed.
//!
//! The worker records every batch, tool call and tool result it broadcasts,
//! so when a run ends (done, stopped or failed) it can save what the user saw
//! to the chat the run was started from, even if the panel was closed or
//! switched chats. The text of each channel is bounded so a runaway model
//! cannot produce an unsavable chat; the entry has the display-message shape
//! the session store normalises (`role`, `content`, `segments`,
//! `responseStatus`, optional `toolCalls` and `reasoning`).

use protocol::js;
use protocol::payloads::{StreamChannel, StreamItem, ToolCallInfo};
use serde_json::{Map, Value, json};

/// Most characters (UTF-16) kept per channel, marker included.
const MAX_TRANSCRIPT_TEXT_CHARS: usize = 250_000;
/// Most tool calls kept.
const MAX_TRANSCRIPT_TOOL_CALLS: usize = 128;
/// Most segments kept.
const MAX_TRANSCRIPT_SEGMENTS: usize = 256;
/// Appended once when a channel reaches its bound.
const TRUNCATION_MARKER: &str = "\n… (transcript truncated)";

/// Whether the response finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ResponseStatus {
    Complete,
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

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Text(String),
    Reasoning(String),
    Tools {
        calls: Vec<ToolCallInfo>,
        results: Map<String, Value>,
    },
}

#[derive(Debug, Clone, Default)]
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
        let incoming = js::utf16_len(text);
        if self.units + incoming <= MAX_TRANSCRIPT_TEXT_CHARS {
            self.text.push_str(text);
            self.units += incoming;
            return text.to_owned();
        }
        self.truncated = true;
        let room = MAX_TRANSCRIPT_TEXT_CHARS
            .saturating_sub(self.units)
            .saturating_sub(js::utf16_len(TRUNCATION_MARKER));
        let mut appended = js::truncate_utf16(text, room).to_owned();
        appended.push_str(TRUNCATION_MARKER);
        self.units += js::utf16_len(&appended);
        self.text.push_str(&appended);
        appended
    }
}

/// What one run has shown so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct Transcript {
    content: Channel,
    reasoning: Channel,
    segments: Vec<Segment>,
    tool_calls: Vec<ToolCallInfo>,
}

impl Transcript {
    pub(crate) fn new() -> Self {
        Transcript::default()
    }

    /// Records one `AI_STREAM_BATCH`; adjacent text of the same channel joins
    /// one segment.
    pub(crate) fn record_batch(&mut self, items: &[StreamItem]) {
        for item in items {
            let (channel, is_text) = match item.channel {
                StreamChannel::Content => (&mut self.content, true),
                StreamChannel::Reasoning => (&mut self.reasoning, false),
            };
            let appended = channel.append(&item.text);
            if appended.is_empty() {
                continue;
            }
            let room = self.segments.len() < MAX_TRANSCRIPT_SEGMENTS;
            match (self.segments.last_mut(), is_text) {
                (Some(Segment::Text(text)), true) | (Some(Segment::Reasoning(text)), false) => {
                    text.push_str(&appended);
                }
                _ if room => self.segments.push(if is_text {
                    Segment::Text(appended)
                } else {
                    Segment::Reasoning(appended)
                }),
                _ => {}
            }
        }
    }

    /// Records one `AI_TOOL_CALLS`.
    pub(crate) fn record_tool_calls(&mut self, calls: &[ToolCallInfo]) {
        let room = MAX_TRANSCRIPT_TOOL_CALLS.saturating_sub(self.tool_calls.len());
        let kept: Vec<ToolCallInfo> = calls.iter().take(room).cloned().collect();
        if kept.is_empty() {
            return;
        }
        self.tool_calls.extend(kept.iter().cloned());
        if self.segments.len() < MAX_TRANSCRIPT_SEGMENTS {
            self.segments.push(Segment::Tools {
                calls: kept,
                results: Map::new(),
            });
        }
    }

    /// Records one `AI_TOOL_RESULT` in the segment holding its call.
    pub(crate) fn record_tool_result(&mut self, call_id: &str, result: &Map<String, Value>) {
        for segment in &mut self.segments {
            if let Segment::Tools { calls, results } = segment
                && calls.iter().any(|call| call.id == call_id)
            {
                results.insert(call_id.to_owned(), Value::Object(result.clone()));
                return;
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.content.text.is_empty() && self.reasoning.text.is_empty() && self.tool_calls.is_empty()
    }

    /// The display entry, or `None` when nothing was shown.
    pub(crate) fn entry(&self, status: ResponseStatus) -> Option<Value> {
        if self.is_empty() {
            return None;
        }
        let segments: Vec<Value> = self
            .segments
            .iter()
            .map(|segment| match segment {
                Segment::Text(text) => json!({ "type": "text", "content": text }),
                Segment::Reasoning(text) => json!({ "type": "reasoning", "content": text }),
                Segment::Tools { calls, results } => json!({ "type": "tools", "calls": calls, "results": results }),
            })
            .collect();
        let mut entry = json!({
            "role": "assistant",
            "content": self.content.text,
            "segments": segments,
            "responseStatus": status.as_str(),
        });
        if let Some(object) = entry.as_object_mut() {
            if !self.tool_calls.is_empty() {
                object.insert("toolCalls".into(), json!(self.tool_calls));
            }
            if !self.reasoning.text.is_empty() {
                object.insert("reasoning".into(), Value::String(self.reasoning.text.clone()));
            }
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(channel: StreamChannel, text: &str) -> StreamItem {
        StreamItem {
            channel,
            text: text.to_owned(),
        }
    }

    fn call(id: &str) -> ToolCallInfo {
        ToolCallInfo {
            id: id.to_owned(),
            name: "read_document".to_owned(),
            args: Map::new(),
        }
    }

    #[test]
    fn nothing_shown_means_no_entry() {
        let mut transcript = Transcript::new();
        transcript.record_batch(&[item(StreamChannel::Content, "")]);
        assert_eq!(transcript.entry(ResponseStatus::Complete), None);
    }

    #[test]
    fn segments_follow_the_stream_in_order() {
        let mut transcript = Transcript::new();
        transcript.record_batch(&[
            item(StreamChannel::Reasoning, "think "),
            item(StreamChannel::Reasoning, "more"),
            item(StreamChannel::Content, "Reading."),
        ]);
        transcript.record_tool_calls(&[call("c1"), call("c2")]);
        let mut result = Map::new();
        result.insert("ok".into(), json!(true));
        transcript.record_tool_result("c2", &result);
        transcript.record_tool_result("unknown", &result);
        transcript.record_batch(&[item(StreamChannel::Content, "Done.")]);
        let entry = transcript.entry(ResponseStatus::Incomplete);
        assert_eq!(
            entry,
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
        let mut transcript = Transcript::new();
        let chunk = "é".repeat(100_000);
        for _ in 0..4 {
            transcript.record_batch(&[item(StreamChannel::Content, &chunk)]);
        }
        transcript.record_batch(&[item(StreamChannel::Reasoning, "still here")]);
        let entry = transcript.entry(ResponseStatus::Complete).unwrap_or_default();
        let content = entry["content"].as_str().unwrap_or_default();
        assert_eq!(js::utf16_len(content), MAX_TRANSCRIPT_TEXT_CHARS);
        assert!(content.ends_with(TRUNCATION_MARKER));
        assert_eq!(content.matches(TRUNCATION_MARKER).count(), 1);
        assert_eq!(entry["reasoning"], "still here");
        let first_segment = entry["segments"][0]["content"].as_str().unwrap_or_default();
        assert_eq!(first_segment, content, "segments carry the same bounded text");
    }

    #[test]
    fn tool_calls_and_segments_are_bounded() {
        let mut transcript = Transcript::new();
        let calls: Vec<ToolCallInfo> = (0..100).map(|i| call(&format!("c{i}"))).collect();
        transcript.record_tool_calls(&calls);
        transcript.record_tool_calls(&calls);
        let entry = transcript.entry(ResponseStatus::Complete).unwrap_or_default();
        assert_eq!(
            entry["toolCalls"].as_array().map(Vec::len),
            Some(MAX_TRANSCRIPT_TOOL_CALLS)
        );
        transcript.record_tool_calls(&calls);
        for i in 0..600 {
            let channel = if i % 2 == 0 {
                StreamChannel::Content
            } else {
                StreamChannel::Reasoning
            };
            transcript.record_batch(&[item(channel, "x")]);
        }
        let entry = transcript.entry(ResponseStatus::Complete).unwrap_or_default();
        assert_eq!(
            entry["segments"].as_array().map(Vec::len),
            Some(MAX_TRANSCRIPT_SEGMENTS)
        );
        assert_eq!(
            entry["content"].as_str().map(str::len),
            Some(300),
            "text is kept past the segment cap"
        );
    }
}
