//! The run the panel is showing ([`PanelRun`]: what it was started for),
//! which run events it accepts, and a signal when it ends.
//!
//! Not the worker's admission identity (`worker-core`'s `RunIdentity`): a
//! `PanelRun` is the panel's own record of the run it shows, with the chat
//! history its answer goes to.
//!
//! Worker broadcasts reach every open panel, so run events are accepted only
//! when their `runId` is the active run's; anything else (another panel's run,
//! a run that already ended here) is ignored. Completion is by identity: a
//! stale handle cannot end a newer run.

use crate::history::History;
use futures::channel::oneshot;
use futures::future::{FutureExt, Shared};
use protocol::MessageType;
use protocol::payloads::RunNotice;
use std::rc::Rc;

/// The run event types whose `runId` must match the active run.
pub(crate) const RUN_EVENTS: [MessageType; 10] = [
    MessageType::AiStreamBatch,
    MessageType::AiStreamDone,
    MessageType::AiStreamCancelled,
    MessageType::AiStreamError,
    MessageType::AiToolCalls,
    MessageType::AiToolResult,
    MessageType::AiToolPreflightWaiting,
    MessageType::AiToolPreflightReady,
    MessageType::AiToolApprovalRequired,
    MessageType::AiRunNotice,
];

/// The status line of a run's `AI_RUN_NOTICE`: its sentences, in order.
pub(crate) fn notice_text(notices: &[RunNotice]) -> String {
    notices
        .iter()
        .map(|notice| notice.message.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The run the panel shows: what it was started for, fixed for its lifetime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PanelRun {
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
pub(crate) type EndSignal = Shared<oneshot::Receiver<()>>;

struct Active {
    run: Rc<PanelRun>,
    done: oneshot::Sender<()>,
    ended: EndSignal,
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
    pub(crate) fn begin(&mut self, run: PanelRun) -> Result<Rc<PanelRun>, RunAlreadyActive> {
        if self.active.is_some() {
            return Err(RunAlreadyActive);
        }
        let (done, receiver) = oneshot::channel();
        let run = Rc::new(run);
        self.active = Some(Active {
            run: Rc::clone(&run),
            done,
            ended: receiver.shared(),
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

    /// Ends `run` if it is the active one; signals its end.
    pub(crate) fn complete(&mut self, run: &Rc<PanelRun>) -> bool {
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

    pub(crate) fn current(&self) -> Option<Rc<PanelRun>> {
        self.active.as_ref().map(|a| Rc::clone(&a.run))
    }

    /// A future that resolves when `run` completes (at once if it is not
    /// the active run any more).
    pub(crate) fn ended(&self, run: &Rc<PanelRun>) -> Option<EndSignal> {
        self.active
            .as_ref()
            .filter(|a| Rc::ptr_eq(&a.run, run))
            .map(|a| a.ended.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn panel_run(run_id: &str) -> PanelRun {
        PanelRun {
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
        let run = ui.begin(panel_run("run-a")).expect("begin");
        assert_eq!(ui.begin(panel_run("run-b")).err(), Some(RunAlreadyActive));
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
    fn completes_only_the_exact_run_and_signals_its_end() {
        let mut ui = RunUi::default();
        let run = ui.begin(panel_run("run-a")).expect("begin");
        let ended = ui.ended(&run).expect("end signal of the active run");
        let lookalike = Rc::new(panel_run("run-a"));
        assert!(!ui.complete(&lookalike), "same id, other handle");
        assert!(ui.ended(&lookalike).is_none());
        assert!(ui.complete(&run));
        assert!(block_on(ended).is_ok());
        assert!(!ui.complete(&run));
        assert!(ui.current().is_none());
    }
}
