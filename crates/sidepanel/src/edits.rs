//! What the panel shows and stores around editor writes: approval banners
//! (editor review with its diff, external calls), the Edits permission
//! control, the Revert control of a response, and the Snapshot list and
//! dialogs.
//!
//! Plain decisions only, tested natively: the wasm views draw exactly what
//! these functions return, and the controller uses the history helpers to
//! write receipts and editor-state updates into a chat before saving it.
//! Every input came from a worker, a model or storage, so nothing here
//! assumes a shape it did not check.

use crate::chat::labels::{StatusKind, ToolStatus};
use protocol::constants::EditorApprovalMode;
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffRowKind};
use protocol::document_snapshot::{PublicDocumentSnapshot, SnapshotKind, SnapshotRestoredUpdate};
use protocol::edit_checkpoint::{DEFAULT_EDIT_FILE_LABEL, PublicCheckpointStatus, PublicEditCheckpoint};
use protocol::js::truncate_utf16;
use protocol::payloads::{ApprovalAction, ApprovalRequired};
use serde_json::Value;

/// How many editor-state updates one message keeps (the oldest go first).
pub(crate) const MAX_EDITOR_STATE_UPDATES: usize = 16;
/// Characters of a preview notice the banner shows.
pub(crate) const PREVIEW_NOTICE_CHARS: usize = 500;
/// Characters of the argument summary the banner shows.
pub(crate) const ARGUMENT_CHARS_SHOWN: usize = 2_000;

// ------------------------------------------------------------------ approvals

/// One button of an approval banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ApprovalChoice {
    pub(crate) label: &'static str,
    pub(crate) action: ApprovalAction,
    /// Primary choices look like Retry; refusals like Skip.
    pub(crate) primary: bool,
}

/// The banner an `AI_TOOL_APPROVAL_REQUIRED` event shows in its tool block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApprovalView {
    /// An editor write with a diff: Apply changes / Reject and the diff.
    pub(crate) editor_review: bool,
    pub(crate) message: String,
    pub(crate) destination: String,
    /// Shown only for editor reviews, when the worker sent one.
    pub(crate) notice: Option<String>,
    pub(crate) arguments_summary: String,
    pub(crate) arguments: String,
    pub(crate) choices: Vec<ApprovalChoice>,
    pub(crate) preview: Option<DiffPreview>,
}

/// `1234567` → `1,234,567` (the English grouping the panel uses).
pub(crate) fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

impl ApprovalView {
    pub(crate) fn from_event(event: &ApprovalRequired) -> ApprovalView {
        let preview = (event.effect == "editor-write")
            .then(|| event.preview.clone())
            .flatten();
        let editor_review = preview.is_some();
        let name = if event.name.is_empty() { "Tool" } else { &event.name };
        let message = if editor_review {
            "Check the proposed change to the document before it is applied.".to_owned()
        } else if event.effect == "editor-write" {
            format!("{name} wants to change the document.")
        } else {
            format!("{name} wants to make an external call.")
        };
        let destination = if event.destination.is_empty() {
            "unknown"
        } else {
            &event.destination
        };
        let notice = event
            .preview_notice
            .as_deref()
            .map(|n| truncate_utf16(n, PREVIEW_NOTICE_CHARS).to_owned())
            .filter(|n| editor_review && !n.is_empty());
        let arguments_summary = if event.arguments_truncated {
            format!(
                "Tool arguments (first {} of {} characters)",
                group_thousands(ARGUMENT_CHARS_SHOWN as u64),
                group_thousands(event.argument_chars)
            )
        } else {
            format!("Tool arguments ({} characters)", group_thousands(event.argument_chars))
        };
        let choices = if editor_review {
            vec![
                ApprovalChoice {
                    label: "Apply changes",
                    action: ApprovalAction::ApproveOnce,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Reject",
                    action: ApprovalAction::Deny,
                    primary: false,
                },
            ]
        } else {
            vec![
                ApprovalChoice {
                    label: "Approve once",
                    action: ApprovalAction::ApproveOnce,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Allow for run",
                    action: ApprovalAction::AllowRun,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Deny",
                    action: ApprovalAction::Deny,
                    primary: false,
                },
            ]
        };
        ApprovalView {
            editor_review,
            message,
            destination: format!("Destination: {destination}"),
            notice,
            arguments_summary,
            arguments: truncate_utf16(&event.arguments, ARGUMENT_CHARS_SHOWN).to_owned(),
            choices,
            preview,
        }
    }
}

/// The status pill while an approval waits.
pub(crate) fn approval_waiting_status() -> ToolStatus {
    ToolStatus::with(StatusKind::Waiting, "approval…")
}

/// The status pill once the worker accepted the user's choice.
pub(crate) fn approval_submitted_status(editor_review: bool, action: ApprovalAction) -> ToolStatus {
    match (action, editor_review) {
        (ApprovalAction::Deny, true) => ToolStatus::with(StatusKind::Err, "rejected"),
        (ApprovalAction::Deny, false) => ToolStatus::with(StatusKind::Err, "denied"),
        (_, true) => ToolStatus::with(StatusKind::Pending, "applying…"),
        (_, false) => ToolStatus::with(StatusKind::Pending, "running…"),
    }
}

/// The banner message after a failed submission (the buttons come back).
pub(crate) fn approval_submit_error(message: &str) -> String {
    format!("The choice was not delivered: {message}")
}

/// The banner message when the call had stopped waiting (timed out, or the
/// run ended) before the choice arrived.
pub(crate) const APPROVAL_EXPIRED: &str = "This call is no longer waiting for an answer.";

// ------------------------------------------------------------------ diff

/// `+A` and `−D` (U+2212) for the diff header.
pub(crate) fn diff_stats(preview: &DiffPreview) -> (String, String) {
    (
        format!("+{}", preview.additions),
        format!("\u{2212}{}", preview.deletions),
    )
}

/// `@@ -oldStart,oldLines +newStart,newLines @@`.
pub(crate) fn hunk_header(hunk: &DiffHunk) -> String {
    format!(
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
    )
}

/// The marker column of a row.
pub(crate) const fn row_marker(kind: DiffRowKind) -> &'static str {
    match kind {
        DiffRowKind::Insert => "+",
        DiffRowKind::Delete => "\u{2212}",
        DiffRowKind::Context => " ",
    }
}

/// The CSS class suffix of a row (`edit-diff-<kind>`).
pub(crate) const fn row_kind(kind: DiffRowKind) -> &'static str {
    match kind {
        DiffRowKind::Insert => "insert",
        DiffRowKind::Delete => "delete",
        DiffRowKind::Context => "context",
    }
}

/// A line number cell: empty where the row has none.
pub(crate) fn line_number(value: Option<u64>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

/// The accessible name of a diff section.
pub(crate) fn diff_title(preview: &DiffPreview) -> String {
    format!("Proposed changes to {}", preview.file_label)
}

// ------------------------------------------------------------------ Edits control

/// What the Edits button says in each mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PermissionView {
    pub(crate) short: &'static str,
    pub(crate) aria_label: &'static str,
    pub(crate) title: &'static str,
}

pub(crate) const fn permission_view(mode: EditorApprovalMode) -> PermissionView {
    match mode {
        EditorApprovalMode::Auto => PermissionView {
            short: "Auto",
            aria_label: "Document edits: applied without review",
            title: "The agent's document edits are applied without asking",
        },
        EditorApprovalMode::Ask => PermissionView {
            short: "Ask",
            aria_label: "Document edits: review before applying",
            title: "You review each document edit before it is applied",
        },
    }
}

/// The toast after the mode was saved.
pub(crate) const fn permission_saved_status(mode: EditorApprovalMode) -> &'static str {
    match mode {
        EditorApprovalMode::Auto => "Document edits will be applied without asking",
        EditorApprovalMode::Ask => "Document edits will wait for your review",
    }
}

// ------------------------------------------------------------------ Revert

/// What a response's recovery control shows for its latest receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RevertView {
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

pub(crate) fn revert_view(checkpoint: &PublicEditCheckpoint, failed: bool) -> RevertView {
    let target = checkpoint_target(checkpoint);
    match checkpoint.status {
        PublicCheckpointStatus::Reverted => RevertView::Reverted {
            title: format!("{target} was put back as it was before this response."),
        },
        PublicCheckpointStatus::Unavailable => RevertView::Unavailable {
            reason: checkpoint
                .unavailable_reason
                .clone()
                .unwrap_or_else(|| protocol::edit_checkpoint::DEFAULT_UNAVAILABLE_REASON.to_owned()),
        },
        PublicCheckpointStatus::Applied => RevertView::Button {
            retry: failed,
            title: format!(
                "Put {target} back as it was before this response; later agent edits in this chat are undone first."
            ),
        },
    }
}

impl RevertView {
    pub(crate) fn label(&self) -> &'static str {
        match self {
            RevertView::Button { retry: false, .. } => "Revert",
            RevertView::Button { retry: true, .. } => "Try revert again",
            RevertView::Busy => "Reverting…",
            RevertView::Reverted { .. } => "Changes reverted",
            RevertView::Unavailable { .. } => "Revert unavailable",
        }
    }

    /// `data-revert-state` of the control.
    pub(crate) fn state(&self) -> &'static str {
        match self {
            RevertView::Button { retry: false, .. } => "available",
            RevertView::Button { retry: true, .. } => "error",
            RevertView::Busy => "busy",
            RevertView::Reverted { .. } => "success",
            RevertView::Unavailable { .. } => "unavailable",
        }
    }
}

/// The texts of the Revert confirmation dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RevertDialogView {
    pub(crate) subtitle: String,
    pub(crate) warning: String,
    pub(crate) detail: &'static str,
}

pub(crate) fn revert_dialog(checkpoint: &PublicEditCheckpoint) -> RevertDialogView {
    let target = checkpoint_target(checkpoint);
    RevertDialogView {
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

/// The texts of the restore preview dialog.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RestoreDialogView {
    pub(crate) title: &'static str,
    /// Shown instead of a diff.
    pub(crate) note: Option<(String, &'static str)>,
    pub(crate) preview: Option<DiffPreview>,
    pub(crate) safety: &'static str,
    pub(crate) confirm_label: &'static str,
    pub(crate) confirm_disabled: bool,
    pub(crate) snapshot: Option<PublicDocumentSnapshot>,
}

/// The dialog for a `DOCUMENT_SNAPSHOT_PREVIEW` answer.
pub(crate) fn restore_dialog(answer: &Value) -> RestoreDialogView {
    let no_changes = answer.get("noChanges").and_then(Value::as_bool) == Some(true);
    let preview = answer.get("preview").and_then(DiffPreview::parse);
    let snapshot = answer.get("snapshot").and_then(PublicDocumentSnapshot::parse_strict);
    let note = if no_changes {
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
    RestoreDialogView {
        title: if no_changes {
            "Already at this snapshot"
        } else {
            "Restore this snapshot?"
        },
        note,
        preview: if no_changes { None } else { preview },
        safety: "The current document is first kept as a \u{201c}Before restore\u{201d} copy.",
        confirm_label: if no_changes { "Already current" } else { "Restore" },
        confirm_disabled: no_changes,
        snapshot,
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
    use serde_json::json;

    fn preview() -> Value {
        json!({"kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
               "hunks": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "rows": [
                   {"kind": "context", "oldLine": 1, "newLine": 1, "text": "= Title"},
                   {"kind": "delete", "oldLine": 2, "newLine": null, "text": "old"},
                   {"kind": "insert", "oldLine": null, "newLine": 2, "text": "new"}]}]})
    }

    fn approval(effect: &str, with_preview: bool, truncated: bool) -> ApprovalRequired {
        let mut value = json!({"callId": "c1", "name": "replace_lines", "identity": "builtin:replace_lines",
            "effect": effect, "destination": "main.typ", "arguments": "{\n  \"a\": 1\n}",
            "argumentChars": if truncated { 12_345 } else { 14 }, "argumentsTruncated": truncated,
            "previewNotice": "Overlay unavailable"});
        if with_preview {
            value["preview"] = preview();
        }
        serde_json::from_value(value).expect("approval payload")
    }

    #[test]
    fn editor_reviews_offer_apply_and_reject_with_the_diff_and_notice() {
        let view = ApprovalView::from_event(&approval("editor-write", true, false));
        assert!(view.editor_review);
        assert_eq!(view.destination, "Destination: main.typ");
        assert_eq!(view.notice.as_deref(), Some("Overlay unavailable"));
        let actions: Vec<_> = view.choices.iter().map(|c| (c.label, c.action)).collect();
        assert_eq!(
            actions,
            [
                ("Apply changes", ApprovalAction::ApproveOnce),
                ("Reject", ApprovalAction::Deny)
            ]
        );
        assert_eq!(view.preview.as_ref().map(|p| p.hunks.len()), Some(1));
        assert_eq!(view.arguments_summary, "Tool arguments (14 characters)");
    }

    #[test]
    fn external_calls_offer_three_choices_and_no_diff() {
        let view = ApprovalView::from_event(&approval("external", false, true));
        assert!(!view.editor_review);
        assert!(view.notice.is_none());
        assert!(view.message.contains("replace_lines"));
        let actions: Vec<_> = view.choices.iter().map(|c| c.action).collect();
        assert_eq!(
            actions,
            [
                ApprovalAction::ApproveOnce,
                ApprovalAction::AllowRun,
                ApprovalAction::Deny
            ]
        );
        assert_eq!(
            view.arguments_summary,
            "Tool arguments (first 2,000 of 12,345 characters)"
        );
        // An editor write without a diff is not a review either.
        assert!(!ApprovalView::from_event(&approval("editor-write", false, false)).editor_review);
    }

    #[test]
    fn submitted_choices_set_the_pill() {
        assert_eq!(
            approval_submitted_status(true, ApprovalAction::ApproveOnce).text,
            "applying…"
        );
        assert_eq!(approval_submitted_status(true, ApprovalAction::Deny).text, "rejected");
        assert_eq!(
            approval_submitted_status(false, ApprovalAction::AllowRun).text,
            "running…"
        );
        assert_eq!(
            approval_submitted_status(false, ApprovalAction::Deny).kind,
            StatusKind::Err
        );
    }

    #[test]
    fn diff_parts_use_unified_headers_and_a_true_minus() {
        let preview = DiffPreview::parse(&preview()).expect("valid preview");
        assert_eq!(diff_stats(&preview), ("+1".to_owned(), "\u{2212}1".to_owned()));
        assert_eq!(hunk_header(&preview.hunks[0]), "@@ -1,2 +1,2 @@");
        let rows: Vec<_> = preview.hunks[0]
            .rows
            .iter()
            .map(|r| (line_number(r.old_line), line_number(r.new_line), row_marker(r.kind)))
            .collect();
        assert_eq!(
            rows,
            [
                ("1".to_owned(), "1".to_owned(), " "),
                ("2".to_owned(), String::new(), "\u{2212}"),
                (String::new(), "2".to_owned(), "+")
            ]
        );
        assert_eq!(diff_title(&preview), "Proposed changes to main.typ");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1_000), "1,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
    }

    fn receipt(id: &str, status: &str) -> Value {
        json!({"id": id, "status": status, "fileLabel": "main.typ", "createdAt": 5})
    }

    #[test]
    fn revert_views_follow_the_receipt() {
        let applied = PublicEditCheckpoint::normalize(&receipt("edit-1", "applied"), false, 0.0).expect("receipt");
        assert_eq!(revert_view(&applied, false).label(), "Revert");
        assert_eq!(revert_view(&applied, true).label(), "Try revert again");
        let reverted = PublicEditCheckpoint::normalize(&receipt("edit-1", "reverted"), false, 0.0).expect("receipt");
        assert_eq!(revert_view(&reverted, false).label(), "Changes reverted");
        let imported = PublicEditCheckpoint::normalize(&receipt("edit-1", "applied"), true, 0.0).expect("receipt");
        match revert_view(&imported, false) {
            RevertView::Unavailable { reason } => assert!(reason.contains("exports")),
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
        let with_diff = restore_dialog(&json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": false, "preview": preview()}));
        assert!(with_diff.preview.is_some() && with_diff.note.is_none() && !with_diff.confirm_disabled);
        assert_eq!(with_diff.confirm_label, "Restore");
        let notice = restore_dialog(&json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": false, "preview": null, "previewNotice": "Too large to show"}));
        assert_eq!(notice.note.map(|n| n.0).as_deref(), Some("Too large to show"));
        let same = restore_dialog(&json!({"ok": true, "snapshot": snapshot("snapshot-1"),
            "noChanges": true, "preview": null}));
        assert!(same.confirm_disabled);
        assert_eq!(
            (same.title, same.confirm_label),
            ("Already at this snapshot", "Already current")
        );
        assert!(same.safety.contains("Before restore"));
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
