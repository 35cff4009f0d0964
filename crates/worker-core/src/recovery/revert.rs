//! `EDIT_CHECKPOINT_REVERT`: restores the document to its state before an
//! agent response, first reverting every later agent-edited response of the
//! same chat, newest first.
//!
//! Each step reads the live document and proves it is in the state the
//! checkpoint recorded after the response before replacing it: the body's
//! SHA-256 and length must match what was staged, and the live text must be
//! the response's final state (or already the state before it, which needs
//! no write). Entries a crash left `prepared` or `reverting` are reconciled
//! against the live text first. The first step that cannot be proven stops
//! the cascade; older responses stay untouched, and the error carries the
//! receipts of the steps that did complete so the panel can show them.

use crate::envelope::RequestError;
use crate::journals::{CheckpointRecord, Checkpoints, DocumentState, JournalStore};
use crate::platform::{Clock, Platform};
use crate::recovery::live::{
    LiveEditor, Replacement, check_tab_scope, confirm_replaced, read_live_editor, replace_document,
    require_identified_files, run_active_on,
};
use crate::recovery_tabs::{RecoveryKind, RecoveryTabs};
use crate::runs::Runs;
use crate::sessions::SessionStore;
use protocol::ErrorCode;
use protocol::edit_checkpoint::{EditCheckpointStatus, PublicEditCheckpoint};
use protocol::payloads::EditCheckpointRevert;
use serde_json::{Value, json};

const PROJECT_MISMATCH: ErrorCode = ErrorCode::EditRevertProjectMismatch;

fn conflict() -> RequestError {
    RequestError::new(
        ErrorCode::EditRevertConflict,
        "The document is not in the state this revert step expects, so the revert stopped and left \
         older changes untouched.",
    )
}

fn not_found() -> RequestError {
    RequestError::new(
        ErrorCode::EditCheckpointNotFound,
        "This response's revert data has expired or is no longer stored.",
    )
}

fn scope_mismatch() -> RequestError {
    RequestError::new(
        ErrorCode::EditRevertScopeMismatch,
        "This revert checkpoint belongs to another project or chat.",
    )
}

fn check_scope(record: &CheckpointRecord, request: &EditCheckpointRevert) -> Result<(), RequestError> {
    let meta = &record.meta;
    if meta.project_id == request.project_id && meta.session_id == request.session_id {
        Ok(())
    } else {
        Err(scope_mismatch())
    }
}

fn receipt_value(receipt: &PublicEditCheckpoint) -> Value {
    receipt.to_value()
}

/// What one step of the cascade did.
struct StepOutcome {
    receipt: Option<PublicEditCheckpoint>,
    /// The entry is reverted now (by this step or a reconciled earlier one).
    reverted: bool,
    /// This step changed the document.
    changed: bool,
}

struct Cascade<'a, P: Platform> {
    platform: &'a P,
    journal: Checkpoints<'a, P::Storage, P::Clock>,
    request: &'a EditCheckpointRevert,
}

/// Where reconciliation left an entry.
enum Reconciled {
    /// Ready for a normal revert step (status `applied`).
    Ready(Box<CheckpointRecord>),
    /// The live document already showed the state before the response.
    AlreadyReverted(PublicEditCheckpoint),
}

impl<P: Platform> Cascade<'_, P> {
    async fn reload(&self, id: &str) -> Result<CheckpointRecord, RequestError> {
        let record = self.journal.load(id).await?.ok_or_else(not_found)?;
        check_scope(&record, self.request)?;
        Ok(record)
    }

    /// Settles an entry a crash or a failed write left mid-transaction,
    /// using the live document as the witness of what really happened.
    async fn reconcile(&self, record: CheckpointRecord, live: &DocumentState) -> Result<Reconciled, RequestError> {
        let mut record = record;
        let matches = |state: &Option<DocumentState>| state.as_ref().is_some_and(|s| s.matches(live));
        if record.meta.status == EditCheckpointStatus::Prepared {
            if matches(&record.meta.pending_after) {
                // The page applied the write; the commit was lost.
                self.journal.commit(&record.meta.id).await?;
            } else if matches(&record.meta.previous_after) {
                // The write never landed.
                let was_applied = record.meta.previously_applied;
                self.journal.rollback_preparation(&record.meta.id).await?;
                if !was_applied {
                    return Err(RequestError::new(
                        ErrorCode::EditCheckpointNotApplied,
                        "This response's editor change never reached the document, so there is nothing to revert.",
                    ));
                }
            } else {
                return Err(conflict());
            }
            record = self.reload(&record.meta.id).await?;
        }
        if record.meta.status == EditCheckpointStatus::Reverting {
            if record.meta.before.matches(live) {
                // The page restored the document; marking it was lost.
                let receipt = self.journal.mark_reverted(&record.meta.id).await?;
                return Ok(Reconciled::AlreadyReverted(receipt));
            }
            if !matches(&record.meta.after) {
                return Err(conflict());
            }
            self.journal.restore_applied(&record.meta.id).await?;
            record = self.reload(&record.meta.id).await?;
        }
        Ok(Reconciled::Ready(Box::new(record)))
    }

    async fn step(&self, record: CheckpointRecord) -> Result<StepOutcome, RequestError> {
        let tab_id = self.request.tab_id;
        let live: LiveEditor = read_live_editor(self.platform, tab_id, ErrorCode::EditContextUnavailable).await?;
        let meta_label = record.meta.file_label.clone();
        require_identified_files(&meta_label, &live.file_label, "revert")?;
        if live.file_label != meta_label {
            return Err(RequestError::new(
                ErrorCode::EditRevertFileMismatch,
                format!("This revert step is for {meta_label}. Open that file in the editor and try again."),
            ));
        }
        let live_state = DocumentState::of(&live.text);
        let record = match self.reconcile(record, &live_state).await? {
            Reconciled::AlreadyReverted(receipt) => {
                return Ok(StepOutcome {
                    receipt: Some(receipt),
                    reverted: true,
                    changed: false,
                });
            }
            Reconciled::Ready(record) => *record,
        };
        let meta = &record.meta;
        if meta.status != EditCheckpointStatus::Applied {
            return Err(RequestError::new(
                ErrorCode::EditCheckpointStateInvalid,
                "This revert checkpoint cannot be reverted in its current state.",
            ));
        }
        let Some(before_text) = record.before_text.as_deref() else {
            return Err(RequestError::new(
                ErrorCode::EditCheckpointBodyMissing,
                "The saved copy of the document before this response is no longer available.",
            ));
        };
        if !meta.before.matches(&DocumentState::of(before_text)) {
            return Err(RequestError::new(
                ErrorCode::EditCheckpointBodyInvalid,
                "The saved copy of the document before this response failed its integrity check.",
            ));
        }
        if meta.before.matches(&live_state) {
            let receipt = self.journal.mark_reverted(&meta.id).await?;
            return Ok(StepOutcome {
                receipt: Some(receipt),
                reverted: true,
                changed: false,
            });
        }
        if !meta.after.as_ref().is_some_and(|after| after.matches(&live_state)) {
            return Err(conflict());
        }
        let platform = self.platform;
        check_tab_scope(platform.tabs(), tab_id, &self.request.project_id, PROJECT_MISMATCH).await?;
        self.journal.begin_revert(&meta.id).await?;
        let replacement = Replacement {
            run_id: format!("revert-{}", platform.clock().uuid()),
            call_id: format!("revert-{}", meta.id),
            file_label: &meta.file_label,
            text: before_text,
            failure_code: ErrorCode::EditRevertFailed,
        };
        if let Err(error) = replace_document(platform, tab_id, &live, &replacement).await {
            // The page changed nothing; the entry is applied again. If even
            // that write fails, the next attempt reconciles `reverting`.
            let _ = self.journal.restore_applied(&meta.id).await;
            return Err(error);
        }
        // An unconfirmed write leaves the entry `reverting`: the next attempt
        // compares the live document with both states it may be in.
        confirm_replaced(platform, tab_id, &replacement).await?;
        // A failure here leaves the entry `reverting` over a restored
        // document, which the next attempt reconciles to `reverted`.
        let receipt = self.journal.mark_reverted(&meta.id).await?;
        Ok(StepOutcome {
            receipt: Some(receipt),
            reverted: true,
            changed: true,
        })
    }
}

fn cascade_failure(
    error: RequestError,
    request: &EditCheckpointRevert,
    failed_id: &str,
    completed: &[PublicEditCheckpoint],
    reverted_count: usize,
    total: usize,
) -> RequestError {
    let prefix = match reverted_count {
        0 => String::new(),
        1 => "1 newer response was reverted, but the revert then stopped: ".to_owned(),
        n => format!("{n} newer responses were reverted, but the revert then stopped: "),
    };
    let details = json!({
        "selectedCheckpointId": request.checkpoint_id,
        "failedCheckpointId": failed_id,
        "checkpoints": completed.iter().map(receipt_value).collect::<Vec<_>>(),
        "revertedCount": reverted_count,
        "totalCount": total,
    });
    RequestError::new(error.code, format!("{prefix}{}", error.message)).with_details(details)
}

/// Serves `EDIT_CHECKPOINT_REVERT`.
pub(crate) async fn revert<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    request: &EditCheckpointRevert,
) -> Result<Value, RequestError> {
    let _tab = recovery.begin(request.tab_id, RecoveryKind::Revert)?;
    if run_active_on(runs, request.tab_id) {
        return Err(RequestError::new(
            ErrorCode::EditRevertRunActive,
            "An agent run is working on this tab; revert after it has finished.",
        ));
    }
    check_tab_scope(platform.tabs(), request.tab_id, &request.project_id, PROJECT_MISMATCH).await?;
    let journal = Checkpoints::new(JournalStore::on(platform, &store.queue));
    let cascade = journal.load_cascade(&request.checkpoint_id).await?.unwrap_or_default();
    match cascade.first() {
        Some(first) if first.meta.id == request.checkpoint_id => {}
        _ => return Err(not_found()),
    }
    for record in &cascade {
        check_scope(record, request)?;
    }
    let selected_receipt = cascade.first().and_then(|r| r.meta.receipt());
    let total = cascade.len();
    let runner = Cascade {
        platform,
        journal,
        request,
    };
    let mut completed: Vec<PublicEditCheckpoint> = Vec::new();
    let mut reverted_count = 0usize;
    let mut changed_count = 0usize;
    for record in cascade.into_iter().rev() {
        if record.meta.status == EditCheckpointStatus::Reverted {
            completed.extend(record.meta.receipt());
            continue;
        }
        let id = record.meta.id.clone();
        match runner.step(record).await {
            Ok(outcome) => {
                completed.extend(outcome.receipt);
                reverted_count += usize::from(outcome.reverted);
                changed_count += usize::from(outcome.changed);
            }
            Err(error) => {
                return Err(cascade_failure(error, request, &id, &completed, reverted_count, total));
            }
        }
    }
    let checkpoint = completed
        .iter()
        .find(|receipt| receipt.id == request.checkpoint_id)
        .cloned()
        .or(selected_receipt);
    Ok(json!({
        "ok": true,
        "checkpoint": checkpoint.as_ref().map_or(Value::Null, receipt_value),
        "checkpoints": completed.iter().map(receipt_value).collect::<Vec<_>>(),
        "revertedCount": reverted_count,
        "alreadyReverted": changed_count == 0,
    }))
}
