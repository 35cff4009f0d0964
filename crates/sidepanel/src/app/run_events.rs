//! The events of the run the panel shows: its stream into the chat, its
//! tool calls, preflights and approvals (and the approval answers), and
//! its one terminal event, which ends the bubble and saves the answer to
//! the chat the run started from. Its `on_runtime_message` is the panel's
//! one listener, so it also hands on tab changes and quick attachments.

use super::controller::Controller;
use super::shell::Shell;
use crate::broadcast_gate::Verdict;
use crate::quick_attach::QuickAttachEvent;
use crate::run_ui::{PanelRun, notice_text};
use crate::worker_client::WorkerError;
use protocol::MessageType;
use protocol::messages::{ParseOptions, Payload, parse_envelope};
use protocol::payloads::ApprovalAction;
use protocol::sender_policy::Sender;
use serde_json::{Value, json};
use std::rc::Rc;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Terminal {
    Done { snapshot_warning: Option<String> },
    Cancelled,
    Error { message: String },
}

impl<S: Shell + 'static> Controller<S> {
    /// A `chrome.runtime` message with the browser's account of its sender:
    /// taken only when it is the worker's broadcast (`broadcast_gate`).
    /// Returns a warning for the console on the first refusal.
    pub(crate) fn on_runtime_message_from(
        self: &Rc<Self>,
        message: &Value,
        sender: &Sender<'_>,
        runtime_id: &str,
    ) -> Option<String> {
        let verdict = self.broadcasts.borrow_mut().admit(message, sender, runtime_id);
        match verdict {
            Verdict::Accept => {
                self.on_runtime_message(message);
                None
            }
            Verdict::NotForPanel => None,
            Verdict::Refused { reason, first } => first.then(|| {
                let kind = message.get("type").and_then(Value::as_str).unwrap_or_default();
                format!(
                    "Typst Side Agent: ignored {kind}: {}; later ones are ignored and counted silently.",
                    reason.explanation()
                )
            }),
        }
    }

    /// A `chrome.runtime` message. Invalid envelopes and other panels' run
    /// events are ignored; the panel never answers.
    pub(crate) fn on_runtime_message(self: &Rc<Self>, message: &Value) {
        let Ok(envelope) = parse_envelope(message, &ParseOptions::default()) else {
            return;
        };
        let message_type = envelope.payload.message_type();
        let run = {
            let state = self.state.borrow();
            if !state.run_ui.accepts(message_type, envelope.run_id.as_deref()) {
                return;
            }
            state.run_ui.current()
        };
        let reconnected = run.as_ref().is_some_and(|r| r.reconnected);
        let streaming = self.state.borrow().streaming;
        let run_id = envelope.run_id.clone().unwrap_or_default();
        match envelope.payload {
            Payload::ActiveTabChanged(_) => {
                let this = Rc::clone(self);
                self.spawn(async move {
                    if let Err(error) = this.sync_tab().await {
                        this.status(&error.message, true);
                    }
                });
            }
            ref quick @ (Payload::QuickAttachSelection(_) | Payload::QuickAttachImagePreview(_)) => {
                if let Some(event) = QuickAttachEvent::from_payload(quick) {
                    self.on_quick_attach(event);
                }
            }
            Payload::AiStreamDone(done) => self.on_terminal(
                run,
                Terminal::Done {
                    snapshot_warning: done.snapshot_warning.filter(|w| !w.is_empty()),
                },
            ),
            Payload::AiStreamCancelled(_) => self.on_terminal(run, Terminal::Cancelled),
            Payload::AiStreamError(error) => self.on_terminal(run, Terminal::Error { message: error.message }),
            // A reconnected run shows no bubble: only its end matters.
            _ if reconnected || !streaming => {}
            Payload::AiStreamBatch(batch) => self.shell.stream_items(&batch.items),
            Payload::AiToolCalls(calls) => self.shell.tool_calls(&calls.calls),
            Payload::AiToolResult(result) => self.shell.tool_result(&result),
            Payload::AiToolPreflightWaiting(waiting) => self.shell.preflight_waiting(&run_id, &waiting),
            Payload::AiToolPreflightReady(ready) => self.shell.preflight_ready(&ready.call_id),
            Payload::AiToolApprovalRequired(approval) => self.shell.approval_required(&run_id, &approval),
            Payload::AiRunNotice(notice) => {
                let text = notice_text(&notice.notices);
                self.status(&text, true);
                // A run may send several notices (a server left out at the
                // start, the budget spent later): the end repeats them all.
                let mut state = self.state.borrow_mut();
                state.run_notice = Some(match state.run_notice.take() {
                    Some(earlier) => format!("{earlier} {text}"),
                    None => text,
                });
            }
            _ => {}
        }
    }

    fn on_terminal(self: &Rc<Self>, run: Option<Rc<PanelRun>>, terminal: Terminal) {
        let Some(run) = run else {
            return;
        };
        if run.reconnected {
            let this = Rc::clone(self);
            self.spawn(async move { this.finish_reconnected_run(run, terminal).await });
            return;
        }
        let streaming = self.state.borrow().streaming;
        match &terminal {
            Terminal::Done { .. } | Terminal::Cancelled => {
                if streaming {
                    self.finalize_stream(Some(&run), matches!(terminal, Terminal::Done { .. }));
                }
            }
            Terminal::Error { message } => {
                if streaming {
                    if self.shell.has_partial_output() {
                        self.finalize_stream(Some(&run), false);
                    } else {
                        self.fail_stream(message);
                    }
                }
            }
        }
        self.state.borrow_mut().run_ui.complete(&run);
        let notice = self.state.borrow_mut().run_notice.take();
        self.update_composer();
        match terminal {
            Terminal::Done {
                snapshot_warning: Some(warning),
            } => self.status(&warning, true),
            Terminal::Done { .. } => {
                if let Some(notice) = notice {
                    self.status(&notice, true);
                }
            }
            Terminal::Cancelled => self.status("Stopped", false),
            Terminal::Error { message } => self.status(
                if message.is_empty() {
                    "The run failed."
                } else {
                    &message
                },
                true,
            ),
        }
    }

    /// Ends the bubble, stores the answer in the run's history and saves it
    /// to the run's chat (which may no longer be the visible one).
    pub(super) fn finalize_stream(self: &Rc<Self>, run: Option<&Rc<PanelRun>>, complete: bool) {
        let entry = self.shell.finalize(complete);
        let (history, session_id) = {
            let state = self.state.borrow();
            match run {
                Some(run) => (run.history.clone(), Some(run.session_id.clone())),
                None => (state.history.clone(), state.session.as_ref().map(|s| s.id.clone())),
            }
        };
        if let Some(entry) = entry {
            history.push(entry);
        }
        self.state.borrow_mut().streaming = false;
        if let Some(session_id) = session_id {
            let this = Rc::clone(self);
            let messages = history.snapshot();
            self.spawn(async move {
                if let Err(error) = this.save_messages(&session_id, messages).await {
                    this.status(&error.message, true);
                }
            });
        }
        self.status("", false);
        self.shell.focus_input();
        self.update_composer();
    }

    pub(super) fn fail_stream(&self, message: &str) {
        self.shell.fail();
        self.state.borrow_mut().streaming = false;
        self.update_composer();
        self.status(
            if message.is_empty() {
                "Streaming failed"
            } else {
                message
            },
            true,
        );
    }

    /// An approval banner's button: `AI_TOOL_APPROVAL_RESOLVE` for exactly
    /// this run and call. `Ok(false)`: the call no longer waits (it timed
    /// out or the run ended), so the choice changed nothing.
    pub(crate) async fn resolve_approval(
        &self,
        run_id: &str,
        call_id: &str,
        action: ApprovalAction,
    ) -> Result<bool, WorkerError> {
        let answer = self
            .shell
            .request(
                MessageType::AiToolApprovalResolve,
                json!({ "callId": call_id, "action": action }),
                Some(run_id.to_owned()),
            )
            .await?;
        Ok(answer.get("ok").and_then(Value::as_bool) == Some(true))
    }
}
