//! `DOCUMENT_SNAPSHOT_LIST`, `_PREVIEW`, `_RESTORE` and `_DELETE` for the
//! file focused in the editor.
//!
//! Every request names its tab, project and chat; the tab must show that
//! project, and a snapshot is only reachable from its own project (an
//! automatic copy only from its own chat) and only while its file is the one
//! focused. A preview names the live document it diffed against
//! (`baseHash`, `baseLength`); a restore carries them back and is refused
//! with `STALE_EDIT_PREVIEW` when the live document is no longer that one,
//! so text typed after the preview is never overwritten by a diff nobody
//! saw. A restore never destroys the current text: it first saves it as a
//! protected "Before restore" rescue copy and refuses to go on if that copy
//! cannot be stored; then one guarded whole-document replacement swaps in
//! the saved text.

use crate::edits::{WholeDocumentEdit, whole_document_edit};
use crate::envelope::RequestError;
use crate::journals::{DocumentState, JournalStore, SnapshotInput, SnapshotMeta, SnapshotRecord, Snapshots};
use crate::platform::{Clock, Platform};
use crate::recovery::live::{
    Replacement, check_tab_scope, confirm_replaced, read_live_editor, replace_document, require_identified_files,
    run_active_on,
};
use crate::recovery_tabs::{RecoveryKind, RecoveryTabs};
use crate::runs::Runs;
use crate::sessions::SessionStore;
use protocol::ErrorCode;
use protocol::document_snapshot::{SnapshotKind, SnapshotRestoredUpdate};
use protocol::js;
use protocol::payloads::{SnapshotRequest, SnapshotRestore, SnapshotScope};
use serde_json::{Value, json};

const PROJECT_MISMATCH: ErrorCode = ErrorCode::DocumentSnapshotProjectMismatch;
const CONTEXT_UNAVAILABLE: ErrorCode = ErrorCode::DocumentSnapshotContextUnavailable;
/// Title of the copy of the live text a restore saves first.
const RESCUE_TITLE: &str = "Before restore";
/// Shown when a preview has no diff and the diff builder gave no reason.
const PREVIEW_UNAVAILABLE_NOTICE: &str =
    "No line diff is available for this snapshot; restoring replaces the whole current document.";
/// Longest `previewNotice`.
const MAX_PREVIEW_NOTICE_CHARS: usize = 500;

fn journal<'a, P: Platform>(platform: &'a P, store: &'a SessionStore) -> Snapshots<'a, P::Storage, P::Clock> {
    Snapshots::new(JournalStore::on(platform, &store.queue))
}

fn refuse_during_run(runs: &Runs, tab_id: u64) -> Result<(), RequestError> {
    if run_active_on(runs, tab_id) {
        return Err(RequestError::new(
            ErrorCode::DocumentSnapshotRunActive,
            "An agent run is working on this tab; change snapshots after it has finished.",
        ));
    }
    Ok(())
}

/// The snapshot, if the request may reach it.
async fn load_scoped<P: Platform>(
    platform: &P,
    store: &SessionStore,
    request: &SnapshotRequest,
) -> Result<SnapshotRecord, RequestError> {
    let record = journal(platform, store)
        .load(&request.snapshot_id)
        .await?
        .ok_or_else(|| {
            RequestError::new(
                ErrorCode::DocumentSnapshotNotFound,
                "This document snapshot has expired or is no longer stored.",
            )
        })?;
    let meta = &record.meta;
    if meta.project_id != request.project_id {
        return Err(RequestError::new(
            ErrorCode::DocumentSnapshotScopeMismatch,
            "This snapshot belongs to another Typst project.",
        ));
    }
    if meta.kind == SnapshotKind::Automatic && meta.session_id.as_deref() != Some(request.session_id.as_str()) {
        return Err(RequestError::new(
            ErrorCode::DocumentSnapshotScopeMismatch,
            "This automatic snapshot belongs to another chat.",
        ));
    }
    Ok(record)
}

/// The snapshot's text, after checking it against the hash and length
/// recorded when it was saved.
fn verified_text(record: &SnapshotRecord) -> Result<&str, RequestError> {
    let Some(text) = record.text.as_deref() else {
        return Err(RequestError::new(
            ErrorCode::DocumentSnapshotBodyMissing,
            "The saved document text is no longer available.",
        ));
    };
    if !record.meta.text.matches(&DocumentState::of(text)) {
        return Err(RequestError::new(
            ErrorCode::DocumentSnapshotBodyInvalid,
            "The saved document text failed its integrity check.",
        ));
    }
    Ok(text)
}

fn check_focused_file(meta: &SnapshotMeta, focused: &str) -> Result<(), RequestError> {
    if focused == meta.file_label {
        Ok(())
    } else {
        Err(RequestError::new(
            ErrorCode::DocumentSnapshotFileMismatch,
            format!("Open {} before restoring this snapshot.", meta.file_label),
        ))
    }
}

/// The checks of a write of a snapshot into the editor (its preview shows
/// that write): both sides name a file, and the same one.
fn check_restorable_file(meta: &SnapshotMeta, focused: &str) -> Result<(), RequestError> {
    require_identified_files(&meta.file_label, focused, "snapshot restore")?;
    check_focused_file(meta, focused)
}

fn public(meta: &SnapshotMeta) -> Value {
    meta.public().to_value()
}

/// Refuses a restore whose live document is not the one its preview showed
/// a diff against (the user typed, or another change landed, since).
fn check_reviewed_base(request: &SnapshotRestore, live: &str) -> Result<(), RequestError> {
    let reviewed = DocumentState {
        hash: request.base_hash.clone(),
        length: request.base_length,
    };
    if reviewed.matches(&DocumentState::of(live)) {
        Ok(())
    } else {
        Err(RequestError::new(
            ErrorCode::StaleEditPreview,
            "The document changed after this snapshot's preview was shown, so nothing was restored. Review the \
             snapshot again.",
        ))
    }
}

/// `DOCUMENT_SNAPSHOT_LIST`: the focused file's snapshots for this chat.
pub(crate) async fn list<P: Platform>(
    platform: &P,
    store: &SessionStore,
    scope: &SnapshotScope,
) -> Result<Value, RequestError> {
    check_tab_scope(platform.tabs(), scope.tab_id, &scope.project_id, PROJECT_MISMATCH).await?;
    let live = read_live_editor(platform, scope.tab_id, CONTEXT_UNAVAILABLE).await?;
    let snapshots = journal(platform, store)
        .list_for_file(&scope.project_id, &live.file_label, &scope.session_id)
        .await?;
    Ok(json!({
        "ok": true,
        "fileLabel": live.file_label,
        "snapshots": snapshots.iter().map(|s| s.to_value()).collect::<Vec<_>>(),
    }))
}

/// `DOCUMENT_SNAPSHOT_PREVIEW`: what a restore would change, and the hash
/// and length of the live document the diff was computed against.
pub(crate) async fn preview<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    request: &SnapshotRequest,
) -> Result<Value, RequestError> {
    refuse_during_run(runs, request.tab_id)?;
    check_tab_scope(platform.tabs(), request.tab_id, &request.project_id, PROJECT_MISMATCH).await?;
    let record = load_scoped(platform, store, request).await?;
    let live = read_live_editor(platform, request.tab_id, CONTEXT_UNAVAILABLE).await?;
    check_restorable_file(&record.meta, &live.file_label)?;
    let saved = verified_text(&record)?;
    let base = DocumentState::of(&live.text);
    let (preview, notice) = match whole_document_edit(&live.text, saved, &record.meta.file_label) {
        WholeDocumentEdit::Unchanged => {
            return Ok(json!({
                "ok": true, "snapshot": public(&record.meta), "noChanges": true, "preview": null,
                "baseHash": base.hash, "baseLength": base.length,
            }));
        }
        WholeDocumentEdit::Replace {
            preview: Some(preview), ..
        } => (preview.to_value(), None),
        WholeDocumentEdit::Replace { notice, .. } => (
            Value::Null,
            Some(notice.unwrap_or_else(|| PREVIEW_UNAVAILABLE_NOTICE.to_owned())),
        ),
    };
    let mut answer = json!({
        "ok": true, "snapshot": public(&record.meta), "noChanges": false, "preview": preview,
        "baseHash": base.hash, "baseLength": base.length,
    });
    if let (Some(notice), Some(map)) = (notice, answer.as_object_mut()) {
        map.insert(
            "previewNotice".into(),
            Value::from(js::truncate_utf16(&notice, MAX_PREVIEW_NOTICE_CHARS)),
        );
    }
    Ok(answer)
}

/// `DOCUMENT_SNAPSHOT_RESTORE`: the live document must still be the one
/// the preview was computed against; then rescue copy first, then one
/// guarded replacement (the page refuses it if the text changes even after
/// this check). The answer carries the editor-state update the panel stores
/// so later model turns know the document changed.
pub(crate) async fn restore<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    restore: &SnapshotRestore,
) -> Result<Value, RequestError> {
    let request = &restore.target;
    let _tab = recovery.begin(request.tab_id, RecoveryKind::SnapshotMutation)?;
    refuse_during_run(runs, request.tab_id)?;
    check_tab_scope(platform.tabs(), request.tab_id, &request.project_id, PROJECT_MISMATCH).await?;
    let record = load_scoped(platform, store, request).await?;
    let saved = verified_text(&record)?;
    let live = read_live_editor(platform, request.tab_id, CONTEXT_UNAVAILABLE).await?;
    let meta = &record.meta;
    check_restorable_file(meta, &live.file_label)?;
    check_reviewed_base(restore, &live.text)?;
    if saved == live.text {
        return Ok(json!({
            "ok": true, "snapshot": public(meta), "noChanges": true,
            "rescueSnapshot": null, "editorStateUpdate": null,
        }));
    }
    let rescue = journal(platform, store)
        .create(SnapshotInput {
            kind: SnapshotKind::Rescue,
            project_id: request.project_id.clone(),
            file_label: meta.file_label.clone(),
            title: Some(RESCUE_TITLE.to_owned()),
            text: live.text.clone(),
            session_id: None,
            run_id: None,
            protected_snapshot_id: Some(meta.id.clone()),
        })
        .await?;
    check_tab_scope(platform.tabs(), request.tab_id, &request.project_id, PROJECT_MISMATCH).await?;
    let replacement = Replacement {
        run_id: format!("snapshot-restore-{}", platform.clock().uuid()),
        call_id: format!("restore-{}", meta.id),
        file_label: &meta.file_label,
        text: saved,
        failure_code: ErrorCode::DocumentSnapshotRestoreFailed,
    };
    replace_document(platform, request.tab_id, &live, &replacement).await?;
    confirm_replaced(platform, request.tab_id, &replacement).await?;
    let now = platform.clock().now_ms();
    let update = SnapshotRestoredUpdate::for_snapshot(&meta.to_value(), now, now);
    Ok(json!({
        "ok": true,
        "snapshot": public(meta),
        "noChanges": false,
        "rescueSnapshot": rescue.snapshot.to_value(),
        "editorStateUpdate": update.map_or(Value::Null, |u| u.to_value()),
    }))
}

/// `DOCUMENT_SNAPSHOT_DELETE`: removes one snapshot of the focused file.
pub(crate) async fn delete<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    request: &SnapshotRequest,
) -> Result<Value, RequestError> {
    let _tab = recovery.begin(request.tab_id, RecoveryKind::SnapshotMutation)?;
    refuse_during_run(runs, request.tab_id)?;
    check_tab_scope(platform.tabs(), request.tab_id, &request.project_id, PROJECT_MISMATCH).await?;
    let record = load_scoped(platform, store, request).await?;
    let live = read_live_editor(platform, request.tab_id, CONTEXT_UNAVAILABLE).await?;
    check_focused_file(&record.meta, &live.file_label)?;
    let outcome = journal(platform, store)
        .delete(&record.meta.id, &request.project_id)
        .await?;
    let mut answer = json!({ "ok": true, "removed": u8::from(outcome.removed) });
    if let (Some(snapshot), Some(map)) = (outcome.snapshot, answer.as_object_mut()) {
        map.insert("snapshot".into(), snapshot.to_value());
    }
    Ok(answer)
}
