//! The run state of one worker instance ([`Runs`]): reservations and
//! admission (the `coordinator`), the runs in progress with their
//! cancellation, the banners they wait on, and the document each tab's
//! runs last received.
//!
//! Handlers run concurrently on one thread, so the state sits in `RefCell`s
//! that are only borrowed between awaits, never across one.

use crate::cancel::Cancellation;
use crate::page_client::DocumentMemory;
use crate::runs::coordinator::{AdmissionError, RunCoordinator, RunIdentity};
use crate::runs::waiters::Waiters;
use protocol::payloads::{ApprovalAction, PreflightAction, RunSummary};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// How many tabs' last documents are kept (a large document is 600 KB).
const REMEMBERED_TABS: usize = 4;

struct ActiveRun {
    summary: RunSummary,
    cancel: Cancellation,
}

/// What `AI_STREAM_CANCEL` answers: whether the id was known, and whether
/// nothing is left to stop (`terminal`: no run was active, so no terminal
/// event will follow).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CancelReport {
    pub(crate) ok: bool,
    pub(crate) found: bool,
    pub(crate) terminal: bool,
}

/// The run state of one worker instance.
#[derive(Default)]
pub(crate) struct Runs {
    coordinator: RefCell<RunCoordinator>,
    active: RefCell<HashMap<String, ActiveRun>>,
    /// Open preflight banners (Retry / Skip).
    pub(crate) preflight: Waiters<PreflightAction>,
    /// Open approval banners.
    pub(crate) approvals: Waiters<ApprovalAction>,
    /// The document the runs of a tab last received, the most recently used
    /// tab last: a run ends with a read of the document, so the next run in
    /// that tab names it when it starts and, while nothing was typed, gets
    /// no text back. Only the page's token of the very document object
    /// stands for the text, and a reloaded page hands out new tokens.
    documents: RefCell<Vec<(u64, Rc<DocumentMemory>)>>,
}

impl Runs {
    pub(crate) fn new() -> Self {
        Runs::default()
    }

    /// The document memory of `tab_id`'s runs (shared by runs in the same
    /// tab; the least recently used tab beyond [`REMEMBERED_TABS`] is
    /// forgotten).
    pub(crate) fn document_memory(&self, tab_id: u64) -> Rc<DocumentMemory> {
        let mut documents = self.documents.borrow_mut();
        let memory = match documents.iter().position(|(tab, _)| *tab == tab_id) {
            Some(position) => documents.remove(position).1,
            None => Rc::default(),
        };
        documents.push((tab_id, Rc::clone(&memory)));
        if documents.len() > REMEMBERED_TABS {
            documents.remove(0);
        }
        memory
    }

    /// `AI_RUN_RESERVE`: the reservation's expiry.
    pub(crate) fn reserve(&self, identity: &RunIdentity, now: f64) -> Result<f64, AdmissionError> {
        self.coordinator.borrow_mut().reserve(identity, now)
    }

    /// Admits a reserved run and returns the cancellation every await of the
    /// run races with.
    pub(crate) fn admit(&self, identity: &RunIdentity, now: f64) -> Result<Cancellation, AdmissionError> {
        self.coordinator.borrow_mut().admit(identity, now)?;
        let cancel = Cancellation::new();
        self.active.borrow_mut().insert(
            identity.run_id.clone(),
            ActiveRun {
                summary: RunSummary {
                    run_id: identity.run_id.clone(),
                    tab_id: identity.tab_id,
                    project_id: identity.project_id.clone(),
                    session_id: identity.session_id.clone(),
                    started_at: now,
                },
                cancel: cancel.clone(),
            },
        );
        Ok(cancel)
    }

    /// Ends a run: its waiters are answered, its chat is released.
    pub(crate) fn finish(&self, run_id: &str, now: f64) {
        self.active.borrow_mut().remove(run_id);
        self.preflight.resolve_run(run_id, PreflightAction::Cancel);
        self.approvals.resolve_run(run_id, ApprovalAction::Deny);
        self.coordinator.borrow_mut().complete(run_id, now);
    }

    /// `AI_STREAM_CANCEL`: stops an active run (every await ends, open
    /// banners are answered Skip / Deny) or leaves a tombstone so a start
    /// that is still on its way is refused.
    pub(crate) fn cancel(&self, run_id: &str, now: f64) -> CancelReport {
        let ownership = self.coordinator.borrow_mut().cancel(run_id, now);
        let cancel = self.active.borrow().get(run_id).map(|run| run.cancel.clone());
        let Some(cancel) = cancel else {
            return CancelReport {
                ok: true,
                found: ownership.found,
                terminal: true,
            };
        };
        cancel.cancel();
        self.preflight.resolve_run(run_id, PreflightAction::Cancel);
        self.approvals.resolve_run(run_id, ApprovalAction::Deny);
        CancelReport {
            ok: true,
            found: true,
            terminal: false,
        }
    }

    /// Every active run.
    pub(crate) fn summaries(&self) -> Vec<RunSummary> {
        let mut runs: Vec<RunSummary> = self.active.borrow().values().map(|run| run.summary.clone()).collect();
        protocol::js::sort_by(&mut runs, |a, b| {
            a.started_at.total_cmp(&b.started_at).then(a.run_id.cmp(&b.run_id))
        });
        runs
    }

    /// `AI_RUN_STATUS`: the active runs of one chat.
    pub(crate) fn status(&self, project_id: &str, session_id: &str) -> Vec<RunSummary> {
        self.summaries()
            .into_iter()
            .filter(|run| run.project_id == project_id && run.session_id == session_id)
            .collect()
    }

    /// `AI_TOOL_PREFLIGHT_RESOLVE`: whether a banner of that run and call was waiting.
    pub(crate) fn resolve_preflight(&self, run_id: &str, call_id: &str, action: PreflightAction) -> bool {
        self.preflight.resolve(run_id, call_id, action)
    }

    /// `AI_TOOL_APPROVAL_RESOLVE`: whether a banner of that run and call was waiting.
    pub(crate) fn resolve_approval(&self, run_id: &str, call_id: &str, action: ApprovalAction) -> bool {
        self.approvals.resolve(run_id, call_id, action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::block_on;

    fn identity(run_id: &str, session_id: &str) -> RunIdentity {
        RunIdentity {
            run_id: run_id.into(),
            tab_id: 3,
            project_id: "p".into(),
            session_id: session_id.into(),
        }
    }

    #[test]
    fn cancelling_an_active_run_stops_it_and_answers_its_banners() {
        let runs = Runs::new();
        assert!(runs.reserve(&identity("run-a", "s1"), 0.0).is_ok());
        let Ok(cancel) = runs.admit(&identity("run-a", "s1"), 5.0) else {
            panic!("not admitted");
        };
        let banner = runs.approvals.wait("run-a", "call-1");
        assert_eq!(runs.status("p", "s1").len(), 1);
        assert!(runs.status("p", "s2").is_empty());
        let report = runs.cancel("run-a", 6.0);
        assert_eq!(
            report,
            CancelReport {
                ok: true,
                found: true,
                terminal: false
            }
        );
        assert!(cancel.is_cancelled());
        assert_eq!(block_on(banner), ApprovalAction::Deny);
        runs.finish("run-a", 7.0);
        assert!(runs.summaries().is_empty());
        assert!(
            runs.reserve(&identity("run-b", "s1"), 8.0).is_ok(),
            "the chat is free again"
        );
    }

    #[test]
    fn cancelling_before_start_reports_terminal_and_refuses_the_start() {
        let runs = Runs::new();
        assert!(runs.reserve(&identity("run-a", "s1"), 0.0).is_ok());
        let report = runs.cancel("run-a", 1.0);
        assert!(report.found && report.terminal);
        let refused = runs.admit(&identity("run-a", "s1"), 2.0).err();
        assert!(refused.is_some_and(|e| e.is_cancelled()));
        let unknown = runs.cancel("stale-run", 3.0);
        assert!(!unknown.found && unknown.terminal);
    }

    #[test]
    fn each_tab_keeps_one_document_memory_and_the_least_recent_tabs_are_forgotten() {
        let runs = Runs::new();
        let first = runs.document_memory(1);
        assert!(Rc::ptr_eq(&first, &runs.document_memory(1)), "one memory per tab");
        assert!(!Rc::ptr_eq(&first, &runs.document_memory(2)));
        for tab in 3..=5 {
            let _ = runs.document_memory(tab);
        }
        // Tabs 2..=5 are the four most recent now: tab 1 was forgotten.
        assert!(!Rc::ptr_eq(&first, &runs.document_memory(1)));
        let kept = runs.document_memory(5);
        let _ = runs.document_memory(6);
        assert!(Rc::ptr_eq(&kept, &runs.document_memory(5)), "a recent tab is kept");
    }
}
