//! What one run carries while it works: its identity captured at Send, its
//! cancellation, its event stream, the file its tools target and the
//! checkpoint its editor writes share; and what every tool call is known by.
//!
//! Events go out as run events (`{type, runId, payload}`, no requestId) to
//! every extension page; panels keep only their own run's. After the terminal
//! event nothing else is sent, so a late batch or tool result can never
//! reopen a finished answer. Every event the panel renders is also recorded
//! in the run's [`AnswerRecord`] (protocol's, the same record the panel
//! builds), which is what the worker saves.

use crate::cancel::Cancellation;
use crate::mcp::McpClient;
use crate::page_client::DocumentMemory;
use crate::platform::{Messenger, Platform, PlatformError, Tab};
use crate::runs::active::Runs;
use crate::runs::coordinator::RunIdentity;
use crate::sessions::SessionStore;
use protocol::Payload;
use protocol::active_file::ActiveEditorFile;
use protocol::answer::{AnswerRecord, ResponseStatus};
use protocol::constants::{EditorApprovalMode, is_typst_app_url};
use protocol::{Envelope, ErrorCode};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

/// A tool's answer to the model: always a JSON object with `ok`.
pub(crate) type ToolOutput = Map<String, Value>;

/// `{ok:false, code, error}` with one of the worker's own codes.
pub(crate) fn tool_failure(code: ErrorCode, message: impl Into<String>) -> ToolOutput {
    page_tool_failure(code.as_str(), message)
}

/// `{ok:false, code, error}` with the code the page answered. The page is
/// untrusted, but its code reaches the model exactly as the page gave it (as
/// in the original), because it is the model's clue what went wrong there.
pub(crate) fn page_tool_failure(code: &str, message: impl Into<String>) -> ToolOutput {
    let mut result = Map::new();
    result.insert("ok".into(), Value::Bool(false));
    result.insert("code".into(), Value::String(code.to_owned()));
    result.insert("error".into(), Value::String(message.into()));
    result
}

/// The call a tool result, a banner or a page request belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallInfo<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
}

/// What a run remembers of its checkpoint between two writes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunCheckpoint {
    pub(crate) id: String,
    /// The document as the run's last write left it.
    pub(crate) after_hash: String,
    pub(crate) after_length: u64,
    pub(crate) editor_token: String,
    pub(crate) file_label: String,
    pub(crate) created_at: f64,
    /// The last commit could not be stored; it is retried before the next
    /// write of the run.
    pub(crate) needs_commit: bool,
}

/// The event stream of one run.
pub(crate) struct RunEvents<'a, M: Messenger> {
    messenger: &'a M,
    run_id: String,
    terminal: Cell<bool>,
    /// What the panel was shown, the answer the worker saves.
    answer: RefCell<AnswerRecord>,
}

impl<'a, M: Messenger> RunEvents<'a, M> {
    pub(crate) fn new(messenger: &'a M, run_id: &str) -> Self {
        RunEvents {
            messenger,
            run_id: run_id.to_owned(),
            terminal: Cell::new(false),
            answer: RefCell::new(AnswerRecord::new()),
        }
    }

    /// Records what the panel renders of `payload` in the run's answer (the
    /// record keeps the stream's order and bounds; a result for a call it
    /// does not hold is dropped).
    fn record(&self, payload: &Payload) {
        let mut answer = self.answer.borrow_mut();
        match payload {
            Payload::AiStreamBatch(batch) => {
                for item in &batch.items {
                    answer.push(item.channel, &item.text);
                }
            }
            Payload::AiToolCalls(calls) => {
                answer.add_tool_calls(&calls.calls);
            }
            Payload::AiToolResult(result) => {
                answer.set_tool_result(&result.call_id, &result.result);
            }
            _ => {}
        }
    }

    fn send(&self, payload: Payload) {
        self.record(&payload);
        self.messenger
            .broadcast(Envelope::run_event(payload, self.run_id.clone()).to_value());
    }

    /// Sends a non-terminal event; after the terminal event it is dropped.
    pub(crate) fn emit(&self, payload: Payload) {
        if !self.terminal.get() {
            self.send(payload);
        }
    }

    /// Sends the one terminal event (`AI_STREAM_DONE`, `AI_STREAM_CANCELLED`
    /// or `AI_STREAM_ERROR`); a second one is dropped.
    pub(crate) fn emit_terminal(&self, payload: Payload) {
        if !self.terminal.replace(true) {
            self.send(payload);
        }
    }

    /// The display entry of what was shown so far.
    pub(crate) fn answer_entry(&self, status: ResponseStatus) -> Option<Value> {
        self.answer.borrow().entry(status)
    }
}

/// Everything a tool needs from its run.
pub(crate) struct RunContext<'a, P: Platform> {
    pub(crate) platform: &'a P,
    pub(crate) runs: &'a Runs,
    /// The worker's storage queue: journal writes take their turn in it.
    pub(crate) store: &'a SessionStore,
    /// The worker's MCP client (the run calls its servers' tools through it).
    pub(crate) mcp: &'a McpClient,
    pub(crate) run_id: String,
    pub(crate) tab_id: u64,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
    pub(crate) cancel: Cancellation,
    pub(crate) events: RunEvents<'a, P::Messenger>,
    /// Normalised fail-closed: only an exact `auto` skips reviews.
    pub(crate) approval_mode: Cell<EditorApprovalMode>,
    /// The tab's URL when the run started; writes require it unchanged.
    pub(crate) tab_url: RefCell<Option<String>>,
    /// The file the user's message was about; `open_project_file` retargets it.
    pub(crate) message_file: RefCell<Option<ActiveEditorFile>>,
    /// Identities the user allowed for the rest of this run.
    pub(crate) allowed: RefCell<HashSet<String>>,
    /// The checkpoint of the run's first applied write; it binds the run to
    /// that file and editor instance.
    pub(crate) checkpoint: RefCell<Option<RunCheckpoint>>,
    /// The document the last `edit` read in this tab returned (the run's
    /// `edit` reads name it instead of receiving it again; see
    /// [`Runs::document_memory`]).
    pub(crate) document: Rc<DocumentMemory>,
}

impl<'a, P: Platform> RunContext<'a, P> {
    /// A run as it is admitted: in Ask mode until its settings are read, its
    /// tab URL not yet checked, nothing allowed and nothing written.
    pub(crate) fn new(
        platform: &'a P,
        runs: &'a Runs,
        store: &'a SessionStore,
        mcp: &'a McpClient,
        identity: &RunIdentity,
        cancel: Cancellation,
        message_file: Option<ActiveEditorFile>,
    ) -> Self {
        RunContext {
            platform,
            runs,
            store,
            mcp,
            run_id: identity.run_id.clone(),
            tab_id: identity.tab_id,
            project_id: identity.project_id.clone(),
            session_id: identity.session_id.clone(),
            cancel,
            events: RunEvents::new(platform.messenger(), &identity.run_id),
            approval_mode: Cell::new(EditorApprovalMode::Ask),
            tab_url: RefCell::new(None),
            message_file: RefCell::new(message_file),
            allowed: RefCell::new(HashSet::new()),
            checkpoint: RefCell::new(None),
            document: runs.document_memory(identity.tab_id),
        }
    }

    /// The message file now (cloned so no borrow outlives the call).
    pub(crate) fn message_file(&self) -> Option<ActiveEditorFile> {
        self.message_file.borrow().clone()
    }

    pub(crate) fn set_message_file(&self, file: Option<ActiveEditorFile>) {
        *self.message_file.borrow_mut() = file;
    }

    /// Whether `tab` still shows the typst.app URL the run started on (a
    /// tab that navigated since Send must not be read or written).
    pub(crate) fn shows_start_page(&self, tab: &Result<Tab, PlatformError>) -> bool {
        match (tab, self.tab_url.borrow().as_deref()) {
            (Ok(tab), Some(expected)) => is_typst_app_url(&tab.url) && tab.url == expected,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::FakeBrowser;
    use protocol::payloads::{
        RunTerminal, StreamBatch, StreamChannel, StreamDone, StreamItem, ToolCallInfo, ToolCalls, ToolResult,
    };
    use serde_json::json;

    #[test]
    fn events_are_run_scoped_recorded_and_end_with_one_terminal() {
        let browser = FakeBrowser::default();
        let events = RunEvents::new(&browser, "run-1");
        events.emit(Payload::AiStreamBatch(StreamBatch {
            items: vec![StreamItem {
                channel: StreamChannel::Content,
                text: "hi".into(),
            }],
        }));
        events.emit_terminal(Payload::AiStreamDone(StreamDone::default()));
        events.emit_terminal(Payload::AiStreamError(RunTerminal {
            code: "X".into(),
            message: "late".into(),
        }));
        events.emit(Payload::AiStreamBatch(StreamBatch {
            items: vec![StreamItem {
                channel: StreamChannel::Content,
                text: "late".into(),
            }],
        }));
        let sent = browser.broadcasts();
        assert_eq!(
            sent,
            vec![
                json!({"type": "AI_STREAM_BATCH", "runId": "run-1", "payload": {"items": [{"channel": "content", "text": "hi"}]}}),
                json!({"type": "AI_STREAM_DONE", "runId": "run-1", "payload": {}}),
            ]
        );
        let entry = events.answer_entry(ResponseStatus::Complete);
        assert_eq!(entry.map(|e| e["content"].clone()), Some(json!("hi")));
    }

    #[test]
    fn the_answer_records_batches_calls_and_results_in_stream_order() {
        let browser = FakeBrowser::default();
        let events = RunEvents::new(&browser, "run-1");
        let batch = |channel, text: &str| {
            Payload::AiStreamBatch(StreamBatch {
                items: vec![StreamItem {
                    channel,
                    text: text.into(),
                }],
            })
        };
        let call = ToolCallInfo {
            id: "c1".into(),
            name: "read_document".into(),
            args: Map::new(),
        };
        events.emit(batch(StreamChannel::Reasoning, "think"));
        events.emit(batch(StreamChannel::Content, "Reading."));
        events.emit(Payload::AiToolCalls(ToolCalls { calls: vec![call] }));
        for call_id in ["c1", "stray"] {
            events.emit(Payload::AiToolResult(ToolResult {
                call_id: call_id.into(),
                name: "read_document".into(),
                result: tool_failure(ErrorCode::UnknownTool, "x"),
            }));
        }
        events.emit(batch(StreamChannel::Content, "Done."));
        assert_eq!(
            events.answer_entry(ResponseStatus::Incomplete),
            Some(json!({
                "role": "assistant",
                "content": "Reading.Done.",
                "segments": [
                    {"type": "reasoning", "content": "think"},
                    {"type": "text", "content": "Reading."},
                    {"type": "tools", "calls": [{"id": "c1", "name": "read_document", "args": {}}],
                     "results": {"c1": {"ok": false, "code": "UNKNOWN_TOOL", "error": "x"}}},
                    {"type": "text", "content": "Done."}
                ],
                "responseStatus": "incomplete",
                "toolCalls": [{"id": "c1", "name": "read_document", "args": {}}],
                "reasoning": "think"
            }))
        );
    }

    #[test]
    fn tool_failures_have_the_fixed_shape() {
        assert_eq!(
            Value::Object(tool_failure(ErrorCode::UnknownTool, "Unknown tool: x")),
            json!({"ok": false, "code": "UNKNOWN_TOOL", "error": "Unknown tool: x"})
        );
    }
}
