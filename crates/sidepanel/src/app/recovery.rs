//! The controller's document-recovery flows: a response's Revert and the
//! document snapshots (list, preview, restore, delete).
//!
//! The shell owns the controls and dialogs; these flows do the requests,
//! re-check the tab, project, chat and history they were opened for (a
//! dialog can stay open while the user switches chats), write what the
//! worker returned into the chat and save it. Results are returned so the
//! shell can update the control that started the flow.

use super::controller::Controller;
use super::shell::Shell;
use crate::recovery::{self, RecoveryScope, RevertOutcome, ReviewedBase};
use protocol::document_snapshot::PublicDocumentSnapshot;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::{ErrorCode, MessageType};
use serde_json::{Value, json};
use std::rc::Rc;

/// Refused before a revert or snapshot action when the panel is not on the
/// chat's project.
pub(crate) const SCOPE_UNAVAILABLE: &str = "Open the Typst project and chat of this response first.";
/// Shown when the tab, project or chat changed while a dialog was open.
pub(crate) const SCOPE_CHANGED: &str = "The Typst project or chat changed in the meantime. Open the action again.";

/// Why a confirmed restore did not happen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RestoreRefusal {
    /// The document changed after the preview (`STALE_EDIT_PREVIEW`):
    /// nothing was restored, and this fresh preview answer is what the user
    /// reviews next.
    Changed(Value),
    /// Any other failure, as the status line shows it.
    Failed(String),
}

impl<S: Shell + 'static> Controller<S> {
    /// The scope a Revert or Snapshot action acts on, when one is allowed now.
    pub(crate) fn recovery_scope(&self) -> Result<RecoveryScope, &'static str> {
        let state = self.state.borrow();
        let session = state.session.as_ref();
        match (state.tab_id, state.project_id.as_ref(), session) {
            (Some(tab_id), Some(project_id), Some(session))
                if state.on_typst
                    && !state.streaming
                    && !state.transitions.has_active_send()
                    && !project_id.is_empty()
                    && session.project_id == *project_id =>
            {
                Ok(RecoveryScope::new(
                    tab_id,
                    project_id.clone(),
                    session.id.clone(),
                    state.history.clone(),
                ))
            }
            _ => Err(SCOPE_UNAVAILABLE),
        }
    }

    /// Whether `scope` is still what the panel shows.
    fn scope_is_current(&self, scope: &RecoveryScope) -> bool {
        self.recovery_scope().is_ok_and(|now| now == *scope)
    }

    /// The confirmed Revert of `checkpoint`: `EDIT_CHECKPOINT_REVERT`, then
    /// every reverted receipt (also the partial progress of a failure) is
    /// written into the chat, shown, and the chat saved.
    pub(crate) async fn revert_checkpoint(
        self: &Rc<Self>,
        scope: RecoveryScope,
        checkpoint: PublicEditCheckpoint,
    ) -> RevertOutcome {
        let mut outcome = RevertOutcome {
            checkpoints: Vec::new(),
            checkpoint: checkpoint.clone(),
            error: None,
            save_error: None,
        };
        if !self.scope_is_current(&scope) {
            outcome.error = Some(SCOPE_CHANGED.to_owned());
            return outcome;
        }
        let mut payload = scope.payload();
        payload.insert("checkpointId".to_owned(), json!(checkpoint.id));
        let answer = self
            .request(MessageType::EditCheckpointRevert, Value::Object(payload))
            .await;
        let now = self.shell.now_ms();
        match answer {
            Ok(data) => {
                let mut fallback = checkpoint.clone();
                fallback.status = protocol::edit_checkpoint::PublicCheckpointStatus::Reverted;
                let fallback = data
                    .get("checkpoint")
                    .filter(|c| c.is_object())
                    .cloned()
                    .unwrap_or_else(|| fallback.to_value());
                outcome.checkpoints = recovery::checkpoint_summaries(data.get("checkpoints"), Some(&fallback), now);
            }
            Err(error) => {
                let partial = error.details.as_ref().and_then(|d| d.get("checkpoints")).cloned();
                outcome.checkpoints = recovery::checkpoint_summaries(partial.as_ref(), None, now);
                outcome.error = Some(if error.message.is_empty() {
                    "The changes could not be reverted.".to_owned()
                } else {
                    error.message
                });
            }
        }
        if let Some(current) = outcome.checkpoints.iter().find(|c| c.id == checkpoint.id) {
            outcome.checkpoint = current.clone();
        }
        if outcome.checkpoints.is_empty() {
            return outcome;
        }
        let messages = scope.history().update(|messages| {
            for summary in &outcome.checkpoints {
                recovery::update_checkpoint_in_history(messages, summary);
            }
        });
        self.shell.show_checkpoints(&outcome.checkpoints);
        if let Err(error) = self.save_messages(&scope.session_id, messages).await {
            outcome.save_error = Some(if outcome.error.is_some() {
                format!("The reverted steps were not saved in the chat: {}", error.message)
            } else {
                format!(
                    "The changes were reverted, but the chat was not saved: {}",
                    error.message
                )
            });
        }
        outcome
    }

    /// `DOCUMENT_SNAPSHOT_LIST` for the open chat: the file and its snapshots.
    pub(crate) async fn list_snapshots(&self) -> Result<(RecoveryScope, String, Vec<PublicDocumentSnapshot>), String> {
        let scope = self.recovery_scope().map_err(str::to_owned)?;
        let answer = self
            .request(MessageType::DocumentSnapshotList, Value::Object(scope.payload()))
            .await
            .map_err(|e| e.message)?;
        if !self.scope_is_current(&scope) {
            return Err(SCOPE_CHANGED.to_owned());
        }
        let (file, snapshots) = recovery::snapshot_list(&answer);
        Ok((scope, file, snapshots))
    }

    /// `DOCUMENT_SNAPSHOT_PREVIEW`: the answer the restore dialog shows.
    pub(crate) async fn preview_snapshot(&self, scope: &RecoveryScope, snapshot_id: &str) -> Result<Value, String> {
        if !self.scope_is_current(scope) {
            return Err(SCOPE_CHANGED.to_owned());
        }
        self.shell.status("Preparing the snapshot preview…", false, Some(0));
        let mut payload = scope.payload();
        payload.insert("snapshotId".to_owned(), json!(snapshot_id));
        let answer = self
            .request(MessageType::DocumentSnapshotPreview, Value::Object(payload))
            .await;
        match answer {
            Ok(data) => {
                self.status("", false);
                Ok(data)
            }
            Err(error) => {
                let message = format!("The snapshot preview failed: {}", error.message);
                self.status(&message, true);
                Err(message)
            }
        }
    }

    /// The confirmed restore of what the preview showed: `DOCUMENT_SNAPSHOT_RESTORE`
    /// with the preview's base, then the returned editor-state update goes
    /// onto the chat's last message and the chat is saved (later turns then
    /// know the document was replaced). When the document changed after the
    /// preview the worker restores nothing, and the answer of a fresh
    /// preview comes back for the user to review again.
    pub(crate) async fn restore_snapshot(
        self: &Rc<Self>,
        scope: &RecoveryScope,
        snapshot_id: &str,
        base: &ReviewedBase,
    ) -> Result<(), RestoreRefusal> {
        if !self.scope_is_current(scope) {
            self.status(SCOPE_CHANGED, true);
            return Err(RestoreRefusal::Failed(SCOPE_CHANGED.to_owned()));
        }
        let mut payload = scope.payload();
        payload.insert("snapshotId".to_owned(), json!(snapshot_id));
        base.insert_into(&mut payload);
        let answer = self
            .request(MessageType::DocumentSnapshotRestore, Value::Object(payload))
            .await;
        let data = match answer {
            Ok(data) => data,
            Err(error) if ErrorCode::from_wire(&error.code) == Some(ErrorCode::StaleEditPreview) => {
                return Err(match self.preview_snapshot(scope, snapshot_id).await {
                    Ok(fresh) => {
                        self.shell.status(recovery::RESTORE_CHANGED_NOTE, true, Some(0));
                        RestoreRefusal::Changed(fresh)
                    }
                    Err(message) => RestoreRefusal::Failed(message),
                });
            }
            Err(error) => {
                let message = format!("The snapshot was not restored: {}", error.message);
                self.status(&message, true);
                return Err(RestoreRefusal::Failed(message));
            }
        };
        let no_changes = data.get("noChanges").and_then(Value::as_bool) == Some(true);
        let context_error = match data.get("editorStateUpdate").filter(|u| !u.is_null()) {
            Some(update) => self.record_editor_state_update(scope, update).await.err(),
            None => None,
        };
        match context_error {
            Some(error) => self.shell.status(
                &format!("The snapshot was restored, but the chat does not know it yet: {error}"),
                true,
                Some(0),
            ),
            None if no_changes => self
                .shell
                .status("The document already matched this snapshot", false, Some(2_800)),
            None => self.shell.status(
                "Snapshot restored; the document before it was kept as a copy",
                false,
                Some(2_800),
            ),
        }
        Ok(())
    }

    async fn record_editor_state_update(&self, scope: &RecoveryScope, update: &Value) -> Result<(), String> {
        if !self.scope_is_current(scope) {
            return Err("the Typst project or chat changed before it could be noted.".to_owned());
        }
        let now = self.shell.now_ms();
        let mut valid = true;
        let messages = scope.history().update(|messages| {
            if let Some(last) = messages.last_mut() {
                valid = recovery::append_editor_state_update(last, update, now);
            }
        });
        if !valid {
            return Err("the worker's restore note was not valid.".to_owned());
        }
        if messages.is_empty() {
            return Ok(());
        }
        self.save_messages(&scope.session_id, messages)
            .await
            .map_err(|e| e.message)
    }

    /// The confirmed delete: `DOCUMENT_SNAPSHOT_DELETE`.
    pub(crate) async fn delete_snapshot(&self, scope: &RecoveryScope, snapshot_id: &str) -> Result<(), String> {
        if !self.scope_is_current(scope) {
            self.status(SCOPE_CHANGED, true);
            return Err(SCOPE_CHANGED.to_owned());
        }
        let mut payload = scope.payload();
        payload.insert("snapshotId".to_owned(), json!(snapshot_id));
        match self
            .request(MessageType::DocumentSnapshotDelete, Value::Object(payload))
            .await
        {
            Ok(_) => {
                self.shell.status("Snapshot deleted", false, Some(1_800));
                Ok(())
            }
            Err(error) => {
                let message = format!("The snapshot was not deleted: {}", error.message);
                self.status(&message, true);
                Err(message)
            }
        }
    }
}
