//! The run the panel is showing: its immutable identity, which run events it
//! accepts, and a signal when it ends.
//!
//! Worker broadcasts reach every open panel, so run events are accepted only
//! when their `runId` is the active run's; anything else (another panel's run,
//! a run that already ended here) is ignored. Completion is by identity: a
//! stale handle cannot end a newer run.

use crate::history::History;
use futures::channel::oneshot;
use futures::future::{FutureExt, Shared};
use protocol::MessageType;
use std::rc::Rc;

/// The run event types whose `runId` must match the active run.
pub(crate) const RUN_EVENTS: [MessageType; 9] = [
    MessageType::AiStreamBatch,
    MessageType::AiStreamDone,
    MessageType::AiStreamCancelled,
    MessageType::AiStreamError,
    MessageType::AiToolCalls,
    MessageType::AiToolResult,
    MessageType::AiToolPreflightWaiting,
    MessageType::AiToolPreflightReady,
    MessageType::AiToolApprovalRequired,
];

/// What a run was started for; fixed for its lifetime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RunIdentity {
    pub(crate) run_id: String,
    pub(crate) tab_id: u64,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
    /// The history the answer is appended to (the chat it was sent from).
    pub(crate) history: History,
    /// Picked up after the panel reopened; its deltas are not shown.
    pub(crate) reconnected: bool,
}

/// Resolves when the run it belongs to completes.
pub(crate) type Terminal = Shared<oneshot::Receiver<()>>;

struct Active {
    run: Rc<RunIdentity>,
    done: oneshot::Sender<()>,
    terminal: Terminal,
}

/// Why a run could not begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunAlreadyActive;

/// The controller.
#[derive(Default)]
pub(crate) struct RunUi {
    active: Option<Active>,
}

impl RunUi {
    pub(crate) fn begin(&mut self, identity: RunIdentity) -> Result<Rc<RunIdentity>, RunAlreadyActive> {
        if self.active.is_some() {
            return Err(RunAlreadyActive);
        }
        let (done, receiver) = oneshot::channel();
        let run = Rc::new(identity);
        self.active = Some(Active {
            run: Rc::clone(&run),
            done,
            terminal: receiver.shared(),
        });
        Ok(run)
    }

    /// Whether a message of `message_type` with `run_id` is for this panel.
    pub(crate) fn accepts(&self, message_type: MessageType, run_id: Option<&str>) -> bool {
        if !RUN_EVENTS.contains(&message_type) {
            return true;
        }
        match (&self.active, run_id) {
            (Some(active), Some(id)) => active.run.run_id == id,
            _ => false,
        }
    }

    /// Ends `run` if it is the active one; signals its terminal.
    pub(crate) fn complete(&mut self, run: &Rc<RunIdentity>) -> bool {
        match self.active.take() {
            Some(active) if Rc::ptr_eq(&active.run, run) => {
                let _ = active.done.send(());
                true
            }
            other => {
                self.active = other;
                false
            }
        }
    }

    pub(crate) fn current(&self) -> Option<Rc<RunIdentity>> {
        self.active.as_ref().map(|a| Rc::clone(&a.run))
    }

    /// A future that resolves when `run` completes (at once if it is not
    /// the active run any more).
    pub(crate) fn terminal(&self, run: &Rc<RunIdentity>) -> Option<Terminal> {
        self.active
            .as_ref()
            .filter(|a| Rc::ptr_eq(&a.run, run))
            .map(|a| a.terminal.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn identity(run_id: &str) -> RunIdentity {
        RunIdentity {
            run_id: run_id.to_owned(),
            tab_id: 3,
            project_id: "p".to_owned(),
            session_id: "s".to_owned(),
            history: History::default(),
            reconnected: false,
        }
    }

    #[test]
    fn accepts_only_the_active_runs_events() {
        let mut ui = RunUi::default();
        assert!(!ui.accepts(MessageType::AiStreamBatch, Some("run-a")), "no run yet");
        assert!(ui.accepts(MessageType::ActiveTabChanged, None), "not a run event");
        let run = ui.begin(identity("run-a")).expect("begin");
        assert_eq!(ui.begin(identity("run-b")).err(), Some(RunAlreadyActive));
        assert!(!ui.accepts(MessageType::AiStreamBatch, Some("run-b")));
        assert!(!ui.accepts(MessageType::AiStreamDone, None));
        assert!(ui.accepts(MessageType::AiStreamBatch, Some("run-a")));
        assert!(ui.accepts(MessageType::AiToolApprovalRequired, Some("run-a")));
        assert_eq!(ui.current().map(|r| r.run_id.clone()).as_deref(), Some("run-a"));
        assert!(ui.complete(&run));
        assert!(
            !ui.accepts(MessageType::AiStreamBatch, Some("run-a")),
            "ended runs are stale"
        );
    }

    #[test]
    fn completes_only_the_exact_run_and_signals_its_terminal() {
        let mut ui = RunUi::default();
        let run = ui.begin(identity("run-a")).expect("begin");
        let terminal = ui.terminal(&run).expect("terminal of the active run");
        let lookalike = Rc::new(identity("run-a"));
        assert!(!ui.complete(&lookalike), "same id, other handle");
        assert!(ui.terminal(&lookalike).is_none());
        assert!(ui.complete(&run));
        assert!(block_on(terminal).is_ok());
        assert!(!ui.complete(&run));
        assert!(ui.current().is_none());
    }
}
