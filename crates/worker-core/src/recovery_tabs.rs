//! Which tabs a document recovery holds (a revert, or a snapshot restore or
//! delete), shared by the recovery requests and the run admission.
//!
//! On one tab at most one recovery runs at a time, and no agent run is
//! reserved or started there meanwhile (`DOCUMENT_RECOVERY_ACTIVE`): a
//! whole-document replacement and a run's edits must never interleave. The
//! state lives as long as the worker instance; a worker stopped
//! mid-recovery loses nothing durable, since the checkpoint journal records
//! where a revert stopped.

use crate::envelope::RequestError;
use protocol::ErrorCode;
use std::cell::RefCell;
use std::collections::HashSet;

/// Which recovery holds a tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecoveryKind {
    /// `EDIT_CHECKPOINT_REVERT`.
    Revert,
    /// `DOCUMENT_SNAPSHOT_RESTORE` and `DOCUMENT_SNAPSHOT_DELETE`.
    SnapshotMutation,
}

/// The tabs on which a recovery is running (the original's `revertingTabs`
/// and `snapshotMutationTabs`).
#[derive(Default)]
pub(crate) struct RecoveryTabs {
    reverting: RefCell<HashSet<u64>>,
    mutating: RefCell<HashSet<u64>>,
}

/// Holds a tab for one recovery; dropping it frees the tab.
pub(crate) struct RecoveryGuard<'a> {
    tabs: &'a RecoveryTabs,
    tab_id: u64,
    kind: RecoveryKind,
}

impl Drop for RecoveryGuard<'_> {
    fn drop(&mut self) {
        self.tabs.set(self.kind).borrow_mut().remove(&self.tab_id);
    }
}

impl RecoveryTabs {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn set(&self, kind: RecoveryKind) -> &RefCell<HashSet<u64>> {
        match kind {
            RecoveryKind::Revert => &self.reverting,
            RecoveryKind::SnapshotMutation => &self.mutating,
        }
    }

    /// Whether a revert, restore or delete is running on `tab_id`; agent
    /// runs are refused meanwhile (`DOCUMENT_RECOVERY_ACTIVE`).
    pub(crate) fn is_recovering(&self, tab_id: u64) -> bool {
        self.reverting.borrow().contains(&tab_id) || self.mutating.borrow().contains(&tab_id)
    }

    /// Takes `tab_id` for one recovery, or refuses because another one runs
    /// there (`EDIT_REVERT_ACTIVE` for a revert, `DOCUMENT_SNAPSHOT_ACTIVE`
    /// for a restore or delete).
    pub(crate) fn begin(&self, tab_id: u64, kind: RecoveryKind) -> Result<RecoveryGuard<'_>, RequestError> {
        if self.is_recovering(tab_id) {
            let code = match kind {
                RecoveryKind::Revert => ErrorCode::EditRevertActive,
                RecoveryKind::SnapshotMutation => ErrorCode::DocumentSnapshotActive,
            };
            return Err(RequestError::new(
                code,
                "Another document recovery is already running on this tab.",
            ));
        }
        self.set(kind).borrow_mut().insert(tab_id);
        Ok(RecoveryGuard {
            tabs: self,
            tab_id,
            kind,
        })
    }
}

/// The refusal of `AI_RUN_RESERVE` / `AI_STREAM_START` during a recovery.
pub(crate) fn recovery_active_error() -> RequestError {
    RequestError::new(
        ErrorCode::DocumentRecoveryActive,
        "A document recovery is running on this tab; start the agent again when it has finished.",
    )
}
