//! What the panel shows and stores for document recovery: a response's
//! Revert control and confirmation, the receipts a revert returns, and the
//! Snapshot list and dialogs. The flows that use these are in
//! `app/recovery.rs`; the DOM in `chat/view/` and `shell/recovery.rs`.
//!
//! Plain decisions only, tested natively: the DOM draws exactly what these
//! functions return, and the controller uses the history helpers to write
//! receipts and editor-state updates into a chat before saving it. Every
//! input came from a worker or storage, so nothing here assumes a shape it
//! did not check.

use crate::edit_review::PREVIEW_NOTICE_CHARS;
use crate::history::History;
use protocol::diff_preview::DiffPreview;
use protocol::document_snapshot::{PublicDocumentSnapshot, SnapshotKind, SnapshotRestoredUpdate};
use protocol::edit_checkpoint::{DEFAULT_EDIT_FILE_LABEL, PublicCheckpointStatus, PublicEditCheckpoint, is_sha256_hex};
use protocol::js::truncate_utf16;
use serde_json::{Map, Value, json};

/// How many editor-state updates one message keeps (the oldest go first).
pub(crate) const MAX_EDITOR_STATE_UPDATES: usize = 16;

/// The tab, project, chat and history a revert or snapshot action belongs
/// to: captured when the action opens, compared again before each request
/// (a dialog can stay open while the user switches chats).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RecoveryScope {
    pub(crate) tab_id: u64,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
    history: History,
}

impl RecoveryScope {
    pub(crate) fn new(tab_id: u64, project_id: String, session_id: String, history: History) -> RecoveryScope {
        RecoveryScope {
            tab_id,
            project_id,
            session_id,
            history,
        }
    }

    /// The chat's history the action writes its results into.
    pub(crate) fn history(&self) -> &History {
        &self.history
    }

    /// `{tabId, projectId, sessionId}`, the start of every recovery request.
    pub(crate) fn payload(&self) -> Map<String, Value> {
        let mut map = Map::new();
        map.insert("tabId".to_owned(), json!(self.tab_id));
        map.insert("projectId".to_owned(), json!(self.project_id));
        map.insert("sessionId".to_owned(), json!(self.session_id));
        map
    }
}

/// How a revert ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RevertOutcome {
    /// Every receipt the worker reverted (also on a partial failure).
    pub(crate) checkpoints: Vec<PublicEditCheckpoint>,
    /// The selected receipt as it stands now.
    pub(crate) checkpoint: PublicEditCheckpoint,
    /// The revert failed (or stopped part-way) with this message.
    pub(crate) error: Option<String>,
    /// The chat could not be saved with the new states.
    pub(crate) save_error: Option<String>,
}

// ------------------------------------------------------------------ Revert

/// What a response's recovery control shows for its latest receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RevertState {
    /// A Revert button (`retry` after an error, with `note` beneath).
    Button { retry: bool, title: String },
    /// The request is under way.
    Busy,
    /// "Changes reverted", with the restored file in the tooltip.
    Reverted { title: String },
    /// "Revert unavailable", with the reason in the tooltip.
    Unavailable { reason: String },
}

/// The file a receipt names, in words.
pub(crate) fn checkpoint_target(checkpoint: &PublicEditCheckpoint) -> String {
    if checkpoint.file_label == DEFAULT_EDIT_FILE_LABEL || checkpoint.file_label.is_empty() {
        "the current Typst document".to_owned()
    } else {
        checkpoint.file_label.clone()
    }
}

pub(crate) fn revert_state(checkpoint: &PublicEditCheckpoint, failed: bool) -> RevertState {
    let target = checkpoint_target(checkpoint);
    match checkpoint.status {
        PublicCheckpointStatus::Reverted => RevertState::Reverted {
            title: format!("{target} was put back as it was before this response."),
        },
        PublicCheckpointStatus::Unavailable => RevertState::Unavailable {
            reason: checkpoint
                .unavailable_reason
                .clone()
                .unwrap_or_else(|| protocol::edit_checkpoint::DEFAULT_UNAVAILABLE_REASON.to_owned()),
        },
        PublicCheckpointStatus::Applied => RevertState::Button {
            retry: failed,
            title: format!(
                "Put {target} back as it was before this response; later agent edits in this chat are undone first."
            ),
        },
    }
}

impl RevertState {
    pub(crate) fn label(&self) -> &'static str {
        match self {
            RevertState::Button { retry: false, .. } => "Revert",
            RevertState::Button { retry: true, .. } => "Try revert again",
            RevertState::Busy => "Reverting…",
            RevertState::Reverted { .. } => "Changes reverted",
            RevertState::Unavailable { .. } => "Revert unavailable",
        }
    }

    /// `data-revert-state` of the control.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            RevertState::Button { retry: false, .. } => "available",
            RevertState::Button { retry: true, .. } => "error",
            RevertState::Busy => "busy",
            RevertState::Reverted { .. } => "success",
            RevertState::Unavailable { .. } => "unavailable",
        }
    }
}

/// The texts of the Revert confirmation dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RevertDialogText {
    pub(crate) subtitle: String,
    pub(crate) warning: String,
    pub(crate) detail: &'static str,
}

pub(crate) fn revert_dialog(checkpoint: &PublicEditCheckpoint) -> RevertDialogText {
    let target = checkpoint_target(checkpoint);
    RevertDialogText {
        warning: format!("{target} goes back to how it was before this response."),
        subtitle: target,
        detail: "Later agent edits in this chat are undone first, newest first. If a step no longer matches the document in the editor, reverting stops there.",
    }
}

/// Receipts from a revert answer (`checkpoints`, plus the selected
/// `checkpoint` or the fallback), valid ones only, each id once.
pub(crate) fn checkpoint_summaries(
    values: Option<&Value>,
    fallback: Option<&Value>,
    now: f64,
) -> Vec<PublicEditCheckpoint> {
    let mut out: Vec<PublicEditCheckpoint> = Vec::new();
    let listed = values.and_then(Value::as_array).into_iter().flatten();
    for value in listed.chain(fallback) {
        if let Some(checkpoint) = PublicEditCheckpoint::normalize(value, false, now)
            && !out.iter().any(|c| c.id == checkpoint.id)
        {
            out.push(checkpoint);
        }
    }
    out
}

/// Writes `checkpoint` over every stored receipt with its id (editor-write
/// results only). Returns how many receipts changed.
pub(crate) fn update_checkpoint_in_history(history: &mut [Value], checkpoint: &PublicEditCheckpoint) -> usize {
    let mut updated = 0;
    let fresh = checkpoint.to_value();
    for message in history.iter_mut() {
        let Some(segments) = message.get_mut("segments").and_then(Value::as_array_mut) else {
            continue;
        };
        for segment in segments.iter_mut() {
            if segment.get("type").and_then(Value::as_str) != Some("tools") {
                continue;
            }
            let ids: Vec<String> = segment
                .get("calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|call| {
                    call.get("name")
                        .and_then(Value::as_str)
                        .is_some_and(protocol::edit_checkpoint::is_edit_checkpoint_tool_name)
                })
                .filter_map(|call| call.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect();
            let Some(results) = segment.get_mut("results").and_then(Value::as_object_mut) else {
                continue;
            };
            for id in ids {
                let Some(receipt) = results
                    .get_mut(&id)
                    .and_then(|r| r.get_mut("editCheckpoint"))
                    .and_then(Value::as_object_mut)
                else {
                    continue;
                };
                if receipt.get("id").and_then(Value::as_str) != Some(checkpoint.id.as_str()) {
                    continue;
                }
                if let Some(fresh) = fresh.as_object() {
                    for (key, value) in fresh {
                        receipt.insert(key.clone(), value.clone());
                    }
                }
                updated += 1;
            }
        }
    }
    updated
}

// ------------------------------------------------------------------ Snapshots

/// The badge of a snapshot kind.
pub(crate) const fn snapshot_badge(kind: SnapshotKind) -> &'static str {
    match kind {
        SnapshotKind::Manual => "Saved",
        SnapshotKind::Automatic => "Response",
        SnapshotKind::Rescue => "Recovery",
    }
}

pub(crate) const fn snapshot_kind_class(kind: SnapshotKind) -> &'static str {
    match kind {
        SnapshotKind::Manual => "manual",
        SnapshotKind::Automatic => "automatic",
        SnapshotKind::Rescue => "rescue",
    }
}

const MINUTE_MS: f64 = 60_000.0;
const HOUR_MS: f64 = 60.0 * MINUTE_MS;
const DAY_MS: f64 = 24.0 * HOUR_MS;

/// A snapshot time relative to `now`, or `None` when it is a day or more
/// old (the view then shows the browser's local date and time).
pub(crate) fn relative_date(created_at: f64, now: f64) -> Option<String> {
    if !created_at.is_finite() {
        return Some("Saved recently".to_owned());
    }
    let delta = (now - created_at).max(0.0);
    if delta < MINUTE_MS {
        Some("Just now".to_owned())
    } else if delta < HOUR_MS {
        Some(format!("{} min ago", (delta / MINUTE_MS).floor()))
    } else if delta < DAY_MS {
        Some(format!("{} hr ago", (delta / HOUR_MS).floor()))
    } else {
        None
    }
}

/// `N chars`, `N.Nk chars` below 10,000, `Nk chars` above.
pub(crate) fn character_count(count: u64) -> String {
    if count < 1_000 {
        format!("{count} chars")
    } else if count < 10_000 {
        // One decimal, halves rounded up (as `toFixed` does for these).
        let tenths = (count + 50) / 100;
        format!("{}.{}k chars", tenths / 10, tenths % 10)
    } else {
        format!("{}k chars", (count + 500) / 1_000)
    }
}

/// The live document a snapshot preview was computed against (its
/// `baseHash` and `baseLength`). The restore sends it back, so the worker
/// refuses to apply the diff once the document has changed since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReviewedBase {
    pub(crate) hash: String,
    pub(crate) length: u64,
}

impl ReviewedBase {
    /// The base a `DOCUMENT_SNAPSHOT_PREVIEW` answer names, if it is valid.
    pub(crate) fn of_preview(answer: &Value) -> Option<ReviewedBase> {
        let hash = answer
            .get("baseHash")
            .and_then(Value::as_str)
            .filter(|h| is_sha256_hex(h))?;
        let length = answer.get("baseLength").and_then(Value::as_u64)?;
        Some(ReviewedBase {
            hash: hash.to_owned(),
            length,
        })
    }

    /// Adds `baseHash` and `baseLength` to a restore request.
    pub(crate) fn insert_into(&self, payload: &mut Map<String, Value>) {
        payload.insert("baseHash".to_owned(), json!(self.hash));
        payload.insert("baseLength".to_owned(), json!(self.length));
    }
}

/// Leads the dialog that is opened again because the document changed
/// after the first preview.
pub(crate) const RESTORE_CHANGED_NOTE: &str = "The document changed after the preview, so nothing was restored. This is the diff against the document as it is now.";

/// Shown when a preview answer names no valid base: without it the restore
/// could not prove it applies what is shown.
const BASE_MISSING_NOTE: &str =
    "This preview does not say which document it compared, so it cannot be restored. Open it again.";

/// The texts of the restore preview dialog.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RestoreDialogContent {
    pub(crate) title: &'static str,
    /// Shown instead of a diff.
    pub(crate) note: Option<(String, &'static str)>,
    pub(crate) preview: Option<DiffPreview>,
    pub(crate) safety: &'static str,
    pub(crate) confirm_label: &'static str,
    pub(crate) confirm_disabled: bool,
    pub(crate) snapshot: Option<PublicDocumentSnapshot>,
    /// What the restore sends back; `None` disables it.
    pub(crate) base: Option<ReviewedBase>,
}

/// The dialog for a `DOCUMENT_SNAPSHOT_PREVIEW` answer; `changed` when it
/// replaces a preview the document no longer matched.
pub(crate) fn restore_dialog(answer: &Value, changed: bool) -> RestoreDialogContent {
    let no_changes = answer.get("noChanges").and_then(Value::as_bool) == Some(true);
    let preview = answer.get("preview").and_then(DiffPreview::parse);
    let snapshot = answer.get("snapshot").and_then(PublicDocumentSnapshot::parse_strict);
    let base = ReviewedBase::of_preview(answer);
    let note = if base.is_none() && !no_changes {
        Some((BASE_MISSING_NOTE.to_owned(), "is-warning"))
    } else if no_changes {
        Some(("The document already matches this saved copy.".to_owned(), "is-success"))
    } else if preview.is_some() {
        None
    } else {
        let notice = answer
            .get("previewNotice")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
            .map(|n| truncate_utf16(n, PREVIEW_NOTICE_CHARS).to_owned())
            .unwrap_or_else(|| "No diff can be shown. Restoring replaces the whole current document.".to_owned());
        Some((notice, "is-warning"))
    };
    let note = match (changed, note) {
        (false, note) => note,
        (true, None) => Some((RESTORE_CHANGED_NOTE.to_owned(), "is-warning")),
        (true, Some((text, _))) => Some((format!("{RESTORE_CHANGED_NOTE} {text}"), "is-warning")),
    };
    RestoreDialogContent {
        title: if no_changes {
            "Already at this snapshot"
        } else {
            "Restore this snapshot?"
        },
        note,
        preview: if no_changes { None } else { preview },
        safety: "The current document is first kept as a \u{201c}Before restore\u{201d} copy.",
        confirm_label: if no_changes { "Already current" } else { "Restore" },
        confirm_disabled: no_changes || base.is_none(),
        snapshot,
        base,
    }
}

/// The warning of the delete confirmation.
pub(crate) const DELETE_WARNING: &str =
    "The saved copy of the document is removed for good; it cannot be restored afterwards.";

/// Snapshots of a `DOCUMENT_SNAPSHOT_LIST` answer (invalid rows are skipped)
/// and its file label.
pub(crate) fn snapshot_list(answer: &Value) -> (String, Vec<PublicDocumentSnapshot>) {
    let file = answer
        .get("fileLabel")
        .and_then(Value::as_str)
        .filter(|f| !f.is_empty())
        .unwrap_or(DEFAULT_EDIT_FILE_LABEL)
        .to_owned();
    let snapshots = answer
        .get("snapshots")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(PublicDocumentSnapshot::parse_strict)
        .collect();
    (file, snapshots)
}

/// Appends a restore's editor-state update to `message` (deduplicated by
/// snapshot id and time, the newest 16 kept). False when the value is not
/// a valid update.
pub(crate) fn append_editor_state_update(message: &mut Value, value: &Value, now: f64) -> bool {
    let Some(update) = SnapshotRestoredUpdate::normalize(value, false, now) else {
        return false;
    };
    let Some(map) = message.as_object_mut() else {
        return false;
    };
    let mut updates: Vec<Value> = map
        .get("editorStateUpdates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let duplicate = updates.iter().any(|existing| {
        existing.get("snapshotId").and_then(Value::as_str) == Some(update.snapshot_id.as_str())
            && existing.get("restoredAt").and_then(Value::as_f64) == Some(update.restored_at)
    });
    if !duplicate {
        updates.push(update.to_value());
    }
    let excess = updates.len().saturating_sub(MAX_EDITOR_STATE_UPDATES);
    updates.drain(..excess);
    map.insert("editorStateUpdates".to_owned(), Value::Array(updates));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff_preview() -> Value {
        json!({"kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
               "hunks": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "rows": [
                   {"kind": "context", "oldLine": 1, "newLine": 1, "text": "= Title"},
                   {"kind": "delete", "oldLine": 2, "newLine": null, "text": "old"},
                   {"kind": "insert", "oldLine": null, "newLine": 2, "text": "new"}]}]})
    }

    fn receipt(id: &str, status: &str) -> Value {
        json!({"id": id, "status": status, "fileLabel": "main.typ", "createdAt": 5})
    }

    #[test]
    fn revert_states_follow_the_receipt() {
        let applied = PublicEditCheckpoint::normalize(&receipt("edit-1", "applied"), false, 0.0).expect("receipt");
        assert_eq!(revert_state(&applied, false).label(), "Revert");
        assert_eq!(revert_state(&applied, true).label(), "Try revert again");
        let reverted = PublicEditCheckpoint::normalize(&receipt("edit-1", "reverted"), false, 0.0).expect("receipt");
        assert_eq!(revert_state(&reverted, false).label(), "Changes reverted");
        let imported = PublicEditCheckpoint::normalize(&receipt("edit-1", "applied"), true, 0.0).expect("receipt");
        match revert_state(&imported, false) {
            RevertState::Unavailable { reason } => assert!(reason.contains("exports")),
            other => panic!("unexpected {other:?}"),
        }
        let unnamed = PublicEditCheckpoint::normalize(&json!({"id": "edit-2", "status": "applied"}), false, 0.0)
            .expect("receipt");
        assert_eq!(revert_dialog(&unnamed).subtitle, "the current Typst document");
    }

    fn history_with(receipts: &[(&str, &str)]) -> Vec<Value> {
        receipts
            .iter()
            .enumerate()
            .map(|(index, (call, id))| {
                json!({"role": "assistant", "content": "", "segments": [{"type": "tools",
                    "calls": [{"id": call, "name": "replace_lines", "arguments": "{}"},
                              {"id": format!("r{index}"), "name": "read_document", "arguments": "{}"}],
                    "results": {(*call): {"ok": true, "editCheckpoint": receipt(id, "applied")},
                                format!("r{index}"): {"ok": true, "editCheckpoint": receipt(id, "applied")}}}]})
            })
            .collect()
    }

    #[test]
    fn reverted_receipts_are_written_into_every_matching_editor_result() {
        let mut history = history_with(&[("c1", "edit-1"), ("c2", "edit-2")]);
        let reverted = PublicEditCheckpoint::normalize(&receipt("edit-2", "reverted"), false, 0.0).expect("receipt");
        assert_eq!(update_checkpoint_in_history(&mut history, &reverted), 1);
        let status = |m: usize, call: &str| {
            history[m]["segments"][0]["results"][call]["editCheckpoint"]["status"]
                .as_str()
                .map(str::to_owned)
        };
        assert_eq!(status(1, "c2").as_deref(), Some("reverted"));
        assert_eq!(status(0, "c1").as_deref(), Some("applied"));
        // A read tool's result is never treated as a receipt.
        assert_eq!(status(1, "r1").as_deref(), Some("applied"));
        let latest = PublicEditCheckpoint::latest_in_message(&history[1], 0.0).expect("latest");
        assert_eq!(latest.status, PublicCheckpointStatus::Reverted);
    }

    #[test]
    fn revert_answers_and_partial_progress_yield_each_receipt_once() {
        let listed = json!([receipt("edit-3", "reverted"), receipt("edit-2", "reverted"), {"id": "bad id!"}]);
        let fallback = receipt("edit-2", "reverted");
        let ids: Vec<_> = checkpoint_summaries(Some(&listed), Some(&fallback), 0.0)
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, ["edit-3", "edit-2"]);
        assert!(checkpoint_summaries(None, None, 0.0).is_empty());
    }

    #[test]
    fn snapshot_labels() {
        assert_eq!(snapshot_badge(SnapshotKind::Automatic), "Response");
        assert_eq!(snapshot_badge(SnapshotKind::Rescue), "Recovery");
        assert_eq!(snapshot_badge(SnapshotKind::Manual), "Saved");
        assert_eq!(character_count(999), "999 chars");
        assert_eq!(character_count(1_250), "1.3k chars");
        assert_eq!(character_count(9_999), "10.0k chars");
        assert_eq!(character_count(12_600), "13k chars");
        let now = 10.0 * DAY_MS;
        assert_eq!(relative_date(now - 30_000.0, now).as_deref(), Some("Just now"));
        assert_eq!(relative_date(now - 5.5 * MINUTE_MS, now).as_deref(), Some("5 min ago"));
        assert_eq!(relative_date(now - 3.0 * HOUR_MS, now).as_deref(), Some("3 hr ago"));
        assert_eq!(relative_date(now + 5_000.0, now).as_deref(), Some("Just now"));
        assert_eq!(relative_date(now - 2.0 * DAY_MS, now), None);
    }

    fn snapshot(id: &str) -> Value {
        json!({"id": id, "kind": "automatic", "projectId": "p1", "fileLabel": "main.typ",
               "title": "After latest response", "createdAt": 1, "textLength": 20, "sessionId": "s1"})
    }

    #[test]
    fn restore_dialogs_show_a_diff_a_notice_or_nothing_to_do() {
        let with_diff = restore_dialog(
            &json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": false, "preview": diff_preview(), "baseHash": HASH, "baseLength": 9}),
            false,
        );
        assert!(with_diff.preview.is_some() && with_diff.note.is_none() && !with_diff.confirm_disabled);
        assert_eq!(with_diff.confirm_label, "Restore");
        assert_eq!(
            with_diff.base,
            Some(ReviewedBase {
                hash: HASH.to_owned(),
                length: 9
            })
        );
        let notice = restore_dialog(
            &json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": false, "preview": null, "previewNotice": "Too large to show",
            "baseHash": HASH, "baseLength": 9}),
            false,
        );
        assert_eq!(notice.note.map(|n| n.0).as_deref(), Some("Too large to show"));
        let same = restore_dialog(
            &json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": true, "preview": null, "baseHash": HASH, "baseLength": 9}),
            false,
        );
        assert!(same.confirm_disabled);
        assert_eq!(
            (same.title, same.confirm_label),
            ("Already at this snapshot", "Already current")
        );
        assert!(same.safety.contains("Before restore"));
    }

    const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_restore_dialog_needs_the_base_its_preview_named() {
        for base in [
            json!({}),
            json!({"baseHash": "XYZ", "baseLength": 9}),
            json!({"baseHash": HASH}),
        ] {
            let mut answer = json!({"ok": true, "snapshot": snapshot("snapshot-1"),
                "noChanges": false, "preview": diff_preview()});
            for (key, value) in base.as_object().into_iter().flatten() {
                answer[key] = value.clone();
            }
            let dialog = restore_dialog(&answer, false);
            assert!(dialog.confirm_disabled && dialog.base.is_none(), "{answer}");
            assert!(dialog.note.is_some_and(|n| n.0.contains("cannot be restored")));
        }
        let again = restore_dialog(
            &json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": false, "preview": diff_preview(), "baseHash": HASH, "baseLength": 12}),
            true,
        );
        assert_eq!(again.note.map(|n| n.0).as_deref(), Some(RESTORE_CHANGED_NOTE));
        assert!(!again.confirm_disabled);
        let mut payload = Map::new();
        again.base.expect("base").insert_into(&mut payload);
        assert_eq!(Value::Object(payload), json!({"baseHash": HASH, "baseLength": 12}));
    }

    #[test]
    fn snapshot_lists_keep_valid_rows() {
        let (file, rows) = snapshot_list(&json!({"ok": true, "fileLabel": "main.typ",
            "snapshots": [snapshot("snapshot-1"), {"id": "x"}]}));
        assert_eq!(file, "main.typ");
        assert_eq!(rows.len(), 1);
        let (file, rows) = snapshot_list(&json!({}));
        assert_eq!(file, DEFAULT_EDIT_FILE_LABEL);
        assert!(rows.is_empty());
    }

    #[test]
    fn editor_state_updates_are_deduplicated_and_capped() {
        let mut message = json!({"role": "assistant", "content": "x"});
        let update = |n: u32| json!({"kind": "snapshot-restored", "snapshotId": format!("snapshot-{n}"), "fileLabel": "main.typ", "restoredAt": n});
        assert!(append_editor_state_update(&mut message, &update(1), 0.0));
        assert!(append_editor_state_update(&mut message, &update(1), 0.0));
        assert_eq!(message["editorStateUpdates"].as_array().map(Vec::len), Some(1));
        for n in 2..=20 {
            assert!(append_editor_state_update(&mut message, &update(n), 0.0));
        }
        let kept = message["editorStateUpdates"].as_array().expect("updates");
        assert_eq!(kept.len(), MAX_EDITOR_STATE_UPDATES);
        assert_eq!(kept[0]["snapshotId"], "snapshot-5");
        assert!(!append_editor_state_update(
            &mut message,
            &json!({"kind": "other"}),
            0.0
        ));
    }
}
