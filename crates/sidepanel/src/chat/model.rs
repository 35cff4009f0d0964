//! The streaming state of the answer being shown: which segment of its
//! [`AnswerRecord`] the view has open, how much of it the view already holds,
//! and the changes the view must make to mirror each run event.
//!
//! Why a state machine apart from the DOM: the moments a segment opens and
//! closes (a text segment's last Markdown blocks are rendered when it closes)
//! decide what the user sees. Kept here as plain Rust, they are tested
//! natively; `chat::view` only mirrors the changes this module reports into
//! elements.
//!
//! Why on top of protocol's record: the worker saves every answer it streams
//! with the same [`AnswerRecord`], and the two saves of one answer must be
//! identical. So the record alone decides what is kept (joining rules, the
//! character, segment and tool-call bounds, the one truncation marker), the
//! display entry is exactly [`AnswerRecord::entry`], and the view shows the
//! text the record kept, marker included.

use protocol::answer::{AnswerRecord, Placement, ResponseStatus, Segment};
use protocol::js::utf16_len;
use protocol::payloads::{StreamChannel, StreamItem, ToolCallInfo};
use serde_json::{Map, Value};

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
    /// New reasoning text, with the block's total length in UTF-16 units.
    pub(crate) reasoning: Option<(String, usize)>,
}

/// The record's segment that the view shows live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenSegment {
    channel: StreamChannel,
    /// Its index among the record's segments.
    index: usize,
    /// Byte offset in the segment's text where the view's block begins. It
    /// is 0 unless text joined a segment the view had already closed (the
    /// segment bound kept a tools segment out of the record, so the text
    /// after those calls continues the text before them).
    start: usize,
    /// Bytes of the segment's text already handed to the view.
    shown: usize,
}

/// The answer being streamed.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamModel {
    record: AnswerRecord,
    open: Option<OpenSegment>,
    /// Ids of the tool calls handed to the view. Every call gets its block,
    /// even past the record's tool-call bound, because approvals, preflight
    /// prompts and results attach to the blocks; the saved answer holds only
    /// the calls the record kept.
    calls: Vec<String>,
    finished: bool,
}

impl StreamModel {
    pub(crate) fn new() -> StreamModel {
        StreamModel::default()
    }

    /// True once anything was received that is worth keeping.
    pub(crate) fn has_output(&self) -> bool {
        !self.record.is_empty()
    }

    /// Appends an `AI_STREAM_BATCH`, item by item in order. Reasoning after
    /// text closes the text (it is rendered then); text after reasoning
    /// closes the reasoning block.
    pub(crate) fn apply_batch(&mut self, items: &[StreamItem]) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.finished {
            return changes;
        }
        for item in items {
            self.push(item, &mut changes);
        }
        changes
    }

    /// One streamed item. What the record kept decides the change: text
    /// that joined the open segment is picked up by the next frame, text in
    /// a new segment (or joining a closed one) opens a block after closing
    /// the open one, and text the record could not place shows nothing.
    fn push(&mut self, item: &StreamItem, changes: &mut Vec<Change>) {
        let channel = item.channel;
        let joins = self.record.joins(channel);
        let before = match self.record.segments().len().checked_sub(1) {
            Some(last) if joins => segment_text(&self.record, last).len(),
            _ => 0,
        };
        match self.record.push(channel, &item.text).placement {
            Placement::Nothing | Placement::Unsegmented => {}
            Placement::Joined if self.open.is_some_and(|open| open.channel == channel) => {}
            Placement::Joined | Placement::Opened => {
                self.close_open(changes);
                self.open = Some(OpenSegment {
                    channel,
                    index: self.record.segments().len().saturating_sub(1),
                    start: before,
                    shown: before,
                });
                changes.push(match channel {
                    StreamChannel::Content => Change::OpenText,
                    StreamChannel::Reasoning => Change::OpenReasoning,
                });
            }
        }
    }

    /// `AI_TOOL_CALLS`: closes the open segment and adds a block per call;
    /// the record keeps the calls its bound allows.
    pub(crate) fn add_tool_calls(&mut self, calls: &[ToolCallInfo]) -> Vec<Change> {
        let mut changes = Vec::new();
        if self.finished || calls.is_empty() {
            return changes;
        }
        self.close_open(&mut changes);
        self.record.add_tool_calls(calls);
        self.calls.extend(calls.iter().map(|call| call.id.clone()));
        changes.push(Change::AddTools(calls.to_vec()));
        changes
    }

    /// `AI_TOOL_RESULT`: records the result with its call. False when no
    /// call of this answer has that id (a stray or late event).
    pub(crate) fn set_tool_result(&mut self, call_id: &str, result: &Map<String, Value>) -> bool {
        if !self.calls.iter().any(|id| id == call_id) {
            return false;
        }
        // False for a call past the record's bounds: its block still shows
        // the result, the saved answer does not hold the call.
        let _ = self.record.set_tool_result(call_id, result);
        true
    }

    /// Whether a tool call with this id belongs to this answer.
    #[cfg(test)]
    pub(crate) fn has_call(&self, call_id: &str) -> bool {
        self.calls.iter().any(|id| id == call_id)
    }

    /// Text appended since the last call, for the open segment.
    pub(crate) fn take_pending(&mut self) -> Pending {
        let mut pending = Pending::default();
        let Some(open) = self.open.as_mut() else {
            return pending;
        };
        let text = segment_text(&self.record, open.index);
        let Some(new) = text.get(open.shown..).filter(|new| !new.is_empty()) else {
            return pending;
        };
        match open.channel {
            StreamChannel::Content => pending.text = Some(new.to_owned()),
            StreamChannel::Reasoning => {
                let total = utf16_len(text.get(open.start..).unwrap_or_default());
                pending.reasoning = Some((new.to_owned(), total));
            }
        }
        open.shown = text.len();
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
        let Some(open) = self.open.take() else { return };
        let text = segment_text(&self.record, open.index);
        changes.push(match open.channel {
            StreamChannel::Content => Change::CloseText {
                markdown: text.get(open.start..).unwrap_or_default().to_owned(),
            },
            StreamChannel::Reasoning => Change::CloseReasoning {
                pending: text.get(open.shown..).unwrap_or_default().to_owned(),
            },
        });
    }

    /// The display message saved with `SESSION_UPDATE`: exactly what the
    /// worker saves for the same answer ([`AnswerRecord::entry`]), or `None`
    /// when nothing arrived.
    pub(crate) fn display_entry(&self, status: ResponseStatus) -> Option<Value> {
        self.record.entry(status)
    }
}

/// The text of the record's text or reasoning segment at `index`.
fn segment_text(record: &AnswerRecord, index: usize) -> &str {
    match record.segments().get(index) {
        Some(Segment::Text(text) | Segment::Reasoning(text)) => text,
        _ => "",
    }
}

#[cfg(test)]
mod tests;
