//! Guarded editor writes on the page: `PAGE_SHOW_EDIT_PREVIEW`,
//! `PAGE_APPLY_EDIT` and `PAGE_CLEAR_EDIT_PREVIEW`.
//!
//! The worker computes a change set against one editor snapshot; the page
//! applies it only if the editor still shows that snapshot (same file label,
//! same `EditorView` token, same text) and otherwise refuses with a
//! structured reason. This module checks the request before it leaves the
//! worker (through the protocol crate's payload rules, so a bad change set
//! never reaches a page) and reads the page's answer into typed values. The
//! page is untrusted: an answer whose shape, code or counts do not fit the
//! request it answers is an `INVALID_PAGE_RESPONSE`, never a success.
//!
//! Every answer arrives as `{result}` inside a successful page response; a
//! refusal is `{result:{ok:false, code, error, staleReason?}}` so that the
//! worker can tell "the page said no" (nothing changed) from "the bridge
//! failed" ([`PageError`]).

use crate::request::PageError;
use protocol::diff_preview::DiffRowKind;
use protocol::error::ErrorCode;
use protocol::js;
use protocol::limits::{self, MAX_EDIT_WARNING_CHARS, MAX_INLINE_DIFF_ROWS};
use protocol::page_response::PageResponseData;
use protocol::payloads::{CallRef, PageApplyEdit, PageShowEditPreview};
use protocol::{MessageType, parse_payload};
use serde_json::{Map, Value};

/// No CodeMirror `EditorView` could be found on the page.
pub const EDITOR_UNAVAILABLE: &str = ErrorCode::EditorUnavailable.as_str();
/// The editor no longer shows what the change set was computed for.
pub const STALE_EDIT_PREVIEW: &str = ErrorCode::StaleEditPreview.as_str();
/// Another run or tool call owns the page's inline preview.
pub const EDIT_PREVIEW_BUSY: &str = ErrorCode::EditPreviewBusy.as_str();
/// The change set does not fit the live document (or the bounds).
pub const INVALID_PREPARED_EDIT: &str = ErrorCode::InvalidPreparedEdit.as_str();
/// A run id the page bridge would refuse.
pub const INVALID_RUN_ID: &str = ErrorCode::InvalidRunId.as_str();
/// A call id the page bridge would refuse.
pub const INVALID_CALL_ID: &str = ErrorCode::InvalidCallId.as_str();
/// The page cannot name the focused file, or the change set names none.
pub const EDIT_FILE_UNKNOWN: &str = ErrorCode::EditFileUnknown.as_str();

/// The only presentation the page draws: a read-only surface over the
/// editor's viewport, outside CodeMirror's own DOM.
pub const EDITOR_DIFF_SURFACE: &str = "editor-diff-surface";

/// What changed on the page since the change set was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StaleReason {
    /// Another file is focused. The worker may wait for the message's file
    /// and try again, since the proposal itself is still valid.
    File,
    /// Another `EditorView` (the editor was rebuilt or replaced).
    Editor,
    /// The text differs (the user typed, or another edit landed).
    Document,
}

impl StaleReason {
    /// The page's `staleReason` string.
    pub const fn as_str(self) -> &'static str {
        match self {
            StaleReason::File => "file",
            StaleReason::Editor => "editor",
            StaleReason::Document => "document",
        }
    }

    /// The reason a `staleReason` string names, if any.
    pub fn from_wire(value: &str) -> Option<StaleReason> {
        [StaleReason::File, StaleReason::Editor, StaleReason::Document]
            .into_iter()
            .find(|reason| reason.as_str() == value)
    }
}

/// The page declined the request; the document was not changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditRefusal {
    /// No editor on the page ([`EDITOR_UNAVAILABLE`]).
    EditorUnavailable {
        /// The page's sentence.
        message: String,
    },
    /// The editor moved on ([`STALE_EDIT_PREVIEW`]).
    Stale {
        /// What moved on.
        reason: StaleReason,
        /// The page's sentence.
        message: String,
    },
    /// Another run or call owns the overlay ([`EDIT_PREVIEW_BUSY`]).
    Busy {
        /// The page's sentence.
        message: String,
    },
    /// The change set does not fit the live text ([`INVALID_PREPARED_EDIT`]).
    InvalidPreparedEdit {
        /// The page's sentence.
        message: String,
    },
    /// The focused file, or the one the change set was made for, has no
    /// name ([`EDIT_FILE_UNKNOWN`]); two such files cannot be told apart.
    FileUnknown {
        /// The page's sentence.
        message: String,
    },
}

impl EditRefusal {
    /// The page's code for this refusal.
    pub fn code(&self) -> &'static str {
        match self {
            EditRefusal::EditorUnavailable { .. } => EDITOR_UNAVAILABLE,
            EditRefusal::Stale { .. } => STALE_EDIT_PREVIEW,
            EditRefusal::Busy { .. } => EDIT_PREVIEW_BUSY,
            EditRefusal::InvalidPreparedEdit { .. } => INVALID_PREPARED_EDIT,
            EditRefusal::FileUnknown { .. } => EDIT_FILE_UNKNOWN,
        }
    }

    /// The page's sentence.
    pub fn message(&self) -> &str {
        match self {
            EditRefusal::EditorUnavailable { message }
            | EditRefusal::Stale { message, .. }
            | EditRefusal::Busy { message }
            | EditRefusal::InvalidPreparedEdit { message }
            | EditRefusal::FileUnknown { message } => message,
        }
    }

    /// What moved on, for a stale refusal.
    pub fn stale_reason(&self) -> Option<StaleReason> {
        match self {
            EditRefusal::Stale { reason, .. } => Some(*reason),
            _ => None,
        }
    }
}

/// Why a show or apply produced no success: the page refused (nothing
/// changed), or the request never got a trustworthy answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageEditError {
    /// The page said no; nothing changed.
    Refused(EditRefusal),
    /// The bridge failed, or the answer broke the contract.
    Page(PageError),
}

impl PageEditError {
    /// The refusal's or the page error's code.
    pub fn code(&self) -> &str {
        match self {
            PageEditError::Refused(refusal) => refusal.code(),
            PageEditError::Page(error) => &error.code,
        }
    }

    /// The refusal's or the page error's sentence.
    pub fn message(&self) -> &str {
        match self {
            PageEditError::Refused(refusal) => refusal.message(),
            PageEditError::Page(error) => &error.message,
        }
    }

    /// What moved on, for a stale refusal.
    pub fn stale_reason(&self) -> Option<StaleReason> {
        match self {
            PageEditError::Refused(refusal) => refusal.stale_reason(),
            PageEditError::Page(_) => None,
        }
    }

    /// The request was stopped. For an apply this means "outcome unknown":
    /// the page may have dispatched before the cancel reached it.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, PageEditError::Page(error) if error.is_cancelled())
    }
}

impl From<PageError> for PageEditError {
    fn from(error: PageError) -> Self {
        PageEditError::Page(error)
    }
}

impl std::fmt::Display for PageEditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for PageEditError {}

/// The page drew the proposal over the editor (or tried to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewDrawn {
    /// At least one changed row is visible.
    pub shown: bool,
    /// Changes of the prepared edit the drawing stands for.
    pub changes_previewed: u64,
    /// Inserted rows drawn.
    pub additions_rendered: u64,
    /// Deleted rows drawn.
    pub deletions_rendered: u64,
    /// Only the first [`MAX_INLINE_DIFF_ROWS`] rows are drawn.
    pub truncated: bool,
    /// Present exactly when nothing changed is visible or the drawing is
    /// truncated: the panel's diff is then the only complete review.
    pub warning: Option<String>,
}

/// The answer to `PAGE_SHOW_EDIT_PREVIEW`. Neither case is a failure: the
/// panel's diff is the review; the page overlay only mirrors it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewOutcome {
    /// The overlay is on the page.
    Drawn(PreviewDrawn),
    /// Drawing failed on the page; nothing of it is left behind.
    Unavailable {
        /// Why, for the approval banner.
        warning: String,
    },
}

impl PreviewOutcome {
    /// Whether at least one changed row is visible over the editor.
    pub fn shown(&self) -> bool {
        matches!(self, PreviewOutcome::Drawn(drawn) if drawn.shown)
    }

    /// The notice for the approval banner, if any.
    pub fn warning(&self) -> Option<&str> {
        match self {
            PreviewOutcome::Drawn(drawn) => drawn.warning.as_deref(),
            PreviewOutcome::Unavailable { warning } => Some(warning),
        }
    }
}

/// The answer to `PAGE_APPLY_EDIT`: one CodeMirror transaction was dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditApplied {
    /// Changes in the dispatched transaction.
    pub edits_applied: u64,
    /// Echoes the request: the user approved this exact diff in Ask mode.
    pub reviewed_diff: bool,
}

fn bridge_id_ok(value: &str) -> bool {
    js::is_non_blank(value) && js::utf16_len(value) <= limits::MAX_ENVELOPE_ID_CHARS as usize
}

/// The edit requests are run-scoped: the page binds its preview to the run id
/// and refuses an envelope without one.
pub fn check_run_id(run_id: &str) -> Result<(), PageEditError> {
    if bridge_id_ok(run_id) {
        Ok(())
    } else {
        Err(PageEditError::Page(PageError::new(
            INVALID_RUN_ID,
            "An editor edit request needs a run id of at most 200 characters.",
        )))
    }
}

fn prepared_edit_payload(message_type: MessageType, value: Value) -> Result<Map<String, Value>, PageEditError> {
    match parse_payload(message_type, &value) {
        Ok(_) => match value {
            Value::Object(map) => Ok(map),
            _ => Err(PageEditError::Page(PageError::invalid(
                "A prepared edit must be an object.",
            ))),
        },
        Err(error) => Err(PageEditError::Refused(EditRefusal::InvalidPreparedEdit {
            message: format!("{} ({})", error.message, error.path),
        })),
    }
}

/// The wire payload of a `PAGE_SHOW_EDIT_PREVIEW`, checked by the same rules
/// the page applies (bounded text, 1..128 sorted in-range changes, a valid
/// diff), so a refusal costs no page round trip.
pub fn show_payload(request: &PageShowEditPreview) -> Result<Map<String, Value>, PageEditError> {
    prepared_edit_payload(MessageType::PageShowEditPreview, protocol_value(request))
}

/// The wire payload of a `PAGE_APPLY_EDIT`, checked like [`show_payload`].
pub fn apply_payload(request: &PageApplyEdit) -> Result<Map<String, Value>, PageEditError> {
    prepared_edit_payload(MessageType::PageApplyEdit, protocol_value(request))
}

/// The wire payload of a `PAGE_CLEAR_EDIT_PREVIEW`.
pub fn clear_payload(call_id: &str) -> Result<Map<String, Value>, PageEditError> {
    if !bridge_id_ok(call_id) {
        return Err(PageEditError::Page(PageError::new(
            INVALID_CALL_ID,
            "A preview is cleared by its call id (at most 200 characters).",
        )));
    }
    match protocol_value(&CallRef {
        call_id: call_id.to_owned(),
    }) {
        Value::Object(map) => Ok(map),
        _ => Err(PageEditError::Page(PageError::invalid(
            "A call reference must be an object.",
        ))),
    }
}

fn protocol_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn invalid(request: MessageType, why: &str) -> PageError {
    PageError::invalid(format!("The page's answer to {} is invalid: {why}", request.as_str()))
}

/// The `result` object of an edit answer (exact `{result}`, bounded size).
fn result_of(request: MessageType, data: &Value) -> Result<Map<String, Value>, PageError> {
    match PageResponseData::parse(request, data) {
        Ok(PageResponseData::EditResult(result)) => Ok(result),
        Ok(_) => Err(invalid(request, "not an edit result")),
        Err(error) => Err(PageError::invalid(error.message)),
    }
}

fn only(map: &Map<String, Value>, allowed: &[&str]) -> bool {
    map.keys().all(|key| allowed.contains(&key.as_str()))
}

fn count(map: &Map<String, Value>, key: &str) -> Option<u64> {
    map.get(key).and_then(js::as_safe_uint)
}

fn flag(map: &Map<String, Value>, key: &str) -> Option<bool> {
    map.get(key).and_then(Value::as_bool)
}

fn bounded_text(map: &Map<String, Value>, key: &str, max: usize) -> Option<String> {
    map.get(key)
        .and_then(Value::as_str)
        .filter(|text| js::is_non_blank(text) && js::utf16_len(text) <= max)
        .map(str::to_owned)
}

/// Reads `{ok:false, code, error, staleReason?}`: a closed set of codes, a
/// stale reason exactly with `STALE_EDIT_PREVIEW`.
fn refusal(request: MessageType, result: &Map<String, Value>) -> Result<EditRefusal, PageError> {
    if !only(result, &["ok", "code", "error", "staleReason"]) {
        return Err(invalid(request, "unexpected refusal fields"));
    }
    let message = bounded_text(result, "error", limits::to_usize(limits::MAX_PAGE_ERROR_CHARS))
        .ok_or_else(|| invalid(request, "a refusal needs an error message"))?;
    let code = result.get("code").and_then(Value::as_str).unwrap_or_default();
    let stale_reason = match result.get("staleReason") {
        None => None,
        Some(value) => Some(
            value
                .as_str()
                .and_then(StaleReason::from_wire)
                .ok_or_else(|| invalid(request, "unknown stale reason"))?,
        ),
    };
    let refusal = match (code, stale_reason) {
        (STALE_EDIT_PREVIEW, Some(reason)) => EditRefusal::Stale { reason, message },
        (EDITOR_UNAVAILABLE, None) => EditRefusal::EditorUnavailable { message },
        (EDIT_PREVIEW_BUSY, None) => EditRefusal::Busy { message },
        (INVALID_PREPARED_EDIT, None) => EditRefusal::InvalidPreparedEdit { message },
        (EDIT_FILE_UNKNOWN, None) => EditRefusal::FileUnknown { message },
        _ => return Err(invalid(request, "unknown refusal code or misplaced stale reason")),
    };
    Ok(refusal)
}

/// Splits `{ok:true, …}` from a refusal.
fn success(request: MessageType, data: &Value) -> Result<Map<String, Value>, PageEditError> {
    let result = result_of(request, data)?;
    match result.get("ok") {
        Some(Value::Bool(true)) => Ok(result),
        Some(Value::Bool(false)) => Err(PageEditError::Refused(refusal(request, &result)?)),
        _ => Err(PageEditError::Page(invalid(request, "ok must be a boolean"))),
    }
}

/// Counts of what the request's diff holds: inserted rows, deleted rows, all rows.
fn preview_rows(request: &PageShowEditPreview) -> (u64, u64, u64) {
    let mut counts = (0u64, 0u64, 0u64);
    for row in request.preview.hunks.iter().flat_map(|hunk| hunk.rows.iter()) {
        match row.kind {
            DiffRowKind::Insert => counts.0 += 1,
            DiffRowKind::Delete => counts.1 += 1,
            DiffRowKind::Context => {}
        }
        counts.2 += 1;
    }
    counts
}

/// Reads the page's answer to `request` (a `PAGE_SHOW_EDIT_PREVIEW`). The
/// counts must be what drawing this exact diff yields: all its changed rows,
/// or — when truncated — no more than it holds, and only if it has more than
/// [`MAX_INLINE_DIFF_ROWS`] rows.
pub fn parse_show_answer(request: &PageShowEditPreview, data: &Value) -> Result<PreviewOutcome, PageEditError> {
    let ty = MessageType::PageShowEditPreview;
    let result = success(ty, data)?;
    let warning = match result.get("warning") {
        None => None,
        Some(_) => Some(
            bounded_text(&result, "warning", MAX_EDIT_WARNING_CHARS as usize)
                .ok_or_else(|| invalid(ty, "warning must be short non-blank text"))?,
        ),
    };
    if !result.contains_key("presentation") {
        // The page could not draw; it says why and keeps nothing.
        return match (
            only(&result, &["ok", "shown", "warning"]),
            flag(&result, "shown"),
            warning,
        ) {
            (true, Some(false), Some(warning)) => Ok(PreviewOutcome::Unavailable { warning }),
            _ => Err(PageEditError::Page(invalid(
                ty,
                "an undrawn preview needs shown:false and a warning",
            ))),
        };
    }
    let allowed = [
        "ok",
        "shown",
        "presentation",
        "changes_previewed",
        "additions_rendered",
        "deletions_rendered",
        "truncated",
        "warning",
    ];
    if !only(&result, &allowed) || result.get("presentation").and_then(Value::as_str) != Some(EDITOR_DIFF_SURFACE) {
        return Err(PageEditError::Page(invalid(ty, "unexpected fields or presentation")));
    }
    let (Some(shown), Some(changes_previewed), Some(additions), Some(deletions), Some(truncated)) = (
        flag(&result, "shown"),
        count(&result, "changes_previewed"),
        count(&result, "additions_rendered"),
        count(&result, "deletions_rendered"),
        flag(&result, "truncated"),
    ) else {
        return Err(PageEditError::Page(invalid(ty, "missing or mistyped counts")));
    };
    let (inserted_rows, deleted_rows, all_rows) = preview_rows(request);
    let consistent = changes_previewed == request.changes.len() as u64
        && additions <= inserted_rows
        && deletions <= deleted_rows
        && shown == (additions + deletions > 0)
        && if truncated {
            all_rows > u64::from(MAX_INLINE_DIFF_ROWS)
        } else {
            additions == inserted_rows && deletions == deleted_rows && all_rows <= u64::from(MAX_INLINE_DIFF_ROWS)
        }
        && warning.is_some() == (!shown || truncated);
    if !consistent {
        return Err(PageEditError::Page(invalid(
            ty,
            "the counts do not match the requested diff",
        )));
    }
    Ok(PreviewOutcome::Drawn(PreviewDrawn {
        shown,
        changes_previewed,
        additions_rendered: additions,
        deletions_rendered: deletions,
        truncated,
        warning,
    }))
}

/// Reads the page's answer to `request` (a `PAGE_APPLY_EDIT`): every change
/// was applied in one transaction and the review flag is the one sent.
pub fn parse_apply_answer(request: &PageApplyEdit, data: &Value) -> Result<EditApplied, PageEditError> {
    let ty = MessageType::PageApplyEdit;
    let result = success(ty, data)?;
    if !only(&result, &["ok", "edits_applied", "reviewed_diff"]) {
        return Err(PageEditError::Page(invalid(ty, "unexpected fields")));
    }
    match (count(&result, "edits_applied"), flag(&result, "reviewed_diff")) {
        (Some(edits_applied), Some(reviewed_diff))
            if edits_applied == request.changes.len() as u64 && reviewed_diff == request.reviewed_diff =>
        {
            Ok(EditApplied {
                edits_applied,
                reviewed_diff,
            })
        }
        _ => Err(PageEditError::Page(invalid(
            ty,
            "the receipt does not match the request",
        ))),
    }
}

/// Reads the page's answer to a `PAGE_CLEAR_EDIT_PREVIEW`: whether a preview
/// of that run and call was removed (false: there was none, or it belongs to
/// another call and stays).
pub fn parse_clear_answer(data: &Value) -> Result<bool, PageError> {
    let ty = MessageType::PageClearEditPreview;
    let result = result_of(ty, data)?;
    match (result.get("ok"), flag(&result, "cleared")) {
        (Some(Value::Bool(true)), Some(cleared)) if only(&result, &["ok", "cleared"]) => Ok(cleared),
        _ => Err(invalid(ty, "expected {ok:true, cleared}")),
    }
}

#[cfg(test)]
mod tests;
