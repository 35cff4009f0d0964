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
use protocol::page_response::{MAX_PAGE_ERROR_CHARS, PageResponseData};
use protocol::payloads::{CallRef, PageApplyEdit, PageShowEditPreview};
use protocol::{MessageType, parse_payload};
use serde_json::{Map, Value};

/// No CodeMirror `EditorView` could be found on the page.
pub const EDITOR_UNAVAILABLE: &str = "EDITOR_UNAVAILABLE";
/// The editor no longer shows what the change set was computed for.
pub const STALE_EDIT_PREVIEW: &str = "STALE_EDIT_PREVIEW";
/// Another run or tool call owns the page's inline preview.
pub const EDIT_PREVIEW_BUSY: &str = "EDIT_PREVIEW_BUSY";
/// The change set does not fit the live document (or the bounds).
pub const INVALID_PREPARED_EDIT: &str = ErrorCode::InvalidPreparedEdit.as_str();
/// A run id the page bridge would refuse.
pub const INVALID_RUN_ID: &str = ErrorCode::InvalidRunId.as_str();
/// A call id the page bridge would refuse.
pub const INVALID_CALL_ID: &str = ErrorCode::InvalidCallId.as_str();

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
}

impl EditRefusal {
    /// The page's code for this refusal.
    pub fn code(&self) -> &'static str {
        match self {
            EditRefusal::EditorUnavailable { .. } => EDITOR_UNAVAILABLE,
            EditRefusal::Stale { .. } => STALE_EDIT_PREVIEW,
            EditRefusal::Busy { .. } => EDIT_PREVIEW_BUSY,
            EditRefusal::InvalidPreparedEdit { .. } => INVALID_PREPARED_EDIT,
        }
    }

    /// The page's sentence.
    pub fn message(&self) -> &str {
        match self {
            EditRefusal::EditorUnavailable { message }
            | EditRefusal::Stale { message, .. }
            | EditRefusal::Busy { message }
            | EditRefusal::InvalidPreparedEdit { message } => message,
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
pub enum EditError {
    /// The page said no; nothing changed.
    Refused(EditRefusal),
    /// The bridge failed, or the answer broke the contract.
    Page(PageError),
}

impl EditError {
    /// The refusal's or the page error's code.
    pub fn code(&self) -> &str {
        match self {
            EditError::Refused(refusal) => refusal.code(),
            EditError::Page(error) => &error.code,
        }
    }

    /// The refusal's or the page error's sentence.
    pub fn message(&self) -> &str {
        match self {
            EditError::Refused(refusal) => refusal.message(),
            EditError::Page(error) => &error.message,
        }
    }

    /// What moved on, for a stale refusal.
    pub fn stale_reason(&self) -> Option<StaleReason> {
        match self {
            EditError::Refused(refusal) => refusal.stale_reason(),
            EditError::Page(_) => None,
        }
    }

    /// The request was stopped. For an apply this means "outcome unknown":
    /// the page may have dispatched before the cancel reached it.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, EditError::Page(error) if error.is_cancelled())
    }
}

impl From<PageError> for EditError {
    fn from(error: PageError) -> Self {
        EditError::Page(error)
    }
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message(), self.code())
    }
}

impl std::error::Error for EditError {}

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
pub fn check_run_id(run_id: &str) -> Result<(), EditError> {
    if bridge_id_ok(run_id) {
        Ok(())
    } else {
        Err(EditError::Page(PageError::new(
            INVALID_RUN_ID,
            "An editor edit request needs a run id of at most 200 characters.",
        )))
    }
}

fn prepared_edit_payload(message_type: MessageType, value: Value) -> Result<Map<String, Value>, EditError> {
    match parse_payload(message_type, &value) {
        Ok(_) => match value {
            Value::Object(map) => Ok(map),
            _ => Err(EditError::Page(PageError::invalid(
                "A prepared edit must be an object.",
            ))),
        },
        Err(error) => Err(EditError::Refused(EditRefusal::InvalidPreparedEdit {
            message: format!("{} ({})", error.message, error.path),
        })),
    }
}

/// The wire payload of a `PAGE_SHOW_EDIT_PREVIEW`, checked by the same rules
/// the page applies (bounded text, 1..128 sorted in-range changes, a valid
/// diff), so a refusal costs no page round trip.
pub fn show_payload(request: &PageShowEditPreview) -> Result<Map<String, Value>, EditError> {
    prepared_edit_payload(MessageType::PageShowEditPreview, protocol_value(request))
}

/// The wire payload of a `PAGE_APPLY_EDIT`, checked like [`show_payload`].
pub fn apply_payload(request: &PageApplyEdit) -> Result<Map<String, Value>, EditError> {
    prepared_edit_payload(MessageType::PageApplyEdit, protocol_value(request))
}

/// The wire payload of a `PAGE_CLEAR_EDIT_PREVIEW`.
pub fn clear_payload(call_id: &str) -> Result<Map<String, Value>, EditError> {
    if !bridge_id_ok(call_id) {
        return Err(EditError::Page(PageError::new(
            INVALID_CALL_ID,
            "A preview is cleared by its call id (at most 200 characters).",
        )));
    }
    match protocol_value(&CallRef {
        call_id: call_id.to_owned(),
    }) {
        Value::Object(map) => Ok(map),
        _ => Err(EditError::Page(PageError::invalid(
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
    let message = bounded_text(result, "error", MAX_PAGE_ERROR_CHARS)
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
        _ => return Err(invalid(request, "unknown refusal code or misplaced stale reason")),
    };
    Ok(refusal)
}

/// Splits `{ok:true, …}` from a refusal.
fn success(request: MessageType, data: &Value) -> Result<Map<String, Value>, EditError> {
    let result = result_of(request, data)?;
    match result.get("ok") {
        Some(Value::Bool(true)) => Ok(result),
        Some(Value::Bool(false)) => Err(EditError::Refused(refusal(request, &result)?)),
        _ => Err(EditError::Page(invalid(request, "ok must be a boolean"))),
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
pub fn parse_show_answer(request: &PageShowEditPreview, data: &Value) -> Result<PreviewOutcome, EditError> {
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
            _ => Err(EditError::Page(invalid(
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
        return Err(EditError::Page(invalid(ty, "unexpected fields or presentation")));
    }
    let (Some(shown), Some(changes_previewed), Some(additions), Some(deletions), Some(truncated)) = (
        flag(&result, "shown"),
        count(&result, "changes_previewed"),
        count(&result, "additions_rendered"),
        count(&result, "deletions_rendered"),
        flag(&result, "truncated"),
    ) else {
        return Err(EditError::Page(invalid(ty, "missing or mistyped counts")));
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
        return Err(EditError::Page(invalid(
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
pub fn parse_apply_answer(request: &PageApplyEdit, data: &Value) -> Result<EditApplied, EditError> {
    let ty = MessageType::PageApplyEdit;
    let result = success(ty, data)?;
    if !only(&result, &["ok", "edits_applied", "reviewed_diff"]) {
        return Err(EditError::Page(invalid(ty, "unexpected fields")));
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
        _ => Err(EditError::Page(invalid(ty, "the receipt does not match the request"))),
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
mod tests {
    use super::*;
    use protocol::diff_preview::{DiffHunk, DiffPreview, DiffPreviewKind, DiffRow};
    use protocol::edit_checkpoint::TextChange;
    use serde_json::json;

    fn change(from: u64, to: u64, insert: &str) -> TextChange {
        TextChange {
            from,
            to,
            insert: insert.to_owned(),
        }
    }

    fn row(kind: DiffRowKind, old_line: Option<u64>, new_line: Option<u64>, text: &str) -> DiffRow {
        DiffRow {
            kind,
            old_line,
            new_line,
            text: text.to_owned(),
        }
    }

    /// One hunk replacing line 2 of "a\nb\nc" by "B", as the worker builds it.
    fn preview() -> DiffPreview {
        DiffPreview {
            kind: DiffPreviewKind::UnifiedDiff,
            file_label: "main.typ".to_owned(),
            additions: 1,
            deletions: 1,
            hunks: vec![DiffHunk {
                old_start: 1,
                old_lines: 3,
                new_start: 1,
                new_lines: 3,
                rows: vec![
                    row(DiffRowKind::Context, Some(1), Some(1), "a"),
                    row(DiffRowKind::Delete, Some(2), None, "b"),
                    row(DiffRowKind::Insert, None, Some(2), "B"),
                    row(DiffRowKind::Context, Some(3), Some(3), "c"),
                ],
            }],
        }
    }

    fn show_request() -> PageShowEditPreview {
        PageShowEditPreview {
            expected_text: "a\nb\nc".to_owned(),
            expected_editor_token: "token-1".to_owned(),
            expected_file_label: "main.typ".to_owned(),
            changes: vec![change(2, 3, "B")],
            call_id: "call-1".to_owned(),
            preview: preview(),
        }
    }

    fn apply_request(reviewed_diff: bool) -> PageApplyEdit {
        PageApplyEdit {
            expected_text: "a\nb\nc".to_owned(),
            expected_editor_token: "token-1".to_owned(),
            expected_file_label: "main.typ".to_owned(),
            changes: vec![change(2, 3, "B")],
            call_id: "call-1".to_owned(),
            reviewed_diff,
        }
    }

    fn drawn() -> Value {
        json!({"result": {"ok": true, "shown": true, "presentation": "editor-diff-surface", "changes_previewed": 1,
            "additions_rendered": 1, "deletions_rendered": 1, "truncated": false}})
    }

    fn code_of<T: std::fmt::Debug>(result: Result<T, EditError>) -> String {
        match result {
            Ok(value) => format!("ok: {value:?}"),
            Err(error) => error.code().to_owned(),
        }
    }

    #[test]
    fn payloads_are_the_wire_shape_and_pass_the_protocol_rules() {
        let show = show_payload(&show_request()).map(Value::Object);
        assert_eq!(
            show,
            Ok(
                json!({"expectedText": "a\nb\nc", "expectedEditorToken": "token-1", "expectedFileLabel": "main.typ",
                "changes": [{"from": 2, "to": 3, "insert": "B"}], "callId": "call-1", "preview": preview().to_value()})
            )
        );
        let apply = apply_payload(&apply_request(true)).map(|map| map.get("reviewedDiff").cloned());
        assert_eq!(apply, Ok(Some(json!(true))));
        assert_eq!(
            clear_payload("call-1").map(Value::Object),
            Ok(json!({"callId": "call-1"}))
        );
    }

    #[test]
    fn bad_requests_are_refused_before_any_page_sees_them() {
        let mut past_end = apply_request(false);
        past_end.changes = vec![change(2, 9, "")];
        let mut overlapping = apply_request(false);
        overlapping.changes = vec![change(0, 3, "x"), change(2, 4, "y")];
        let mut none = apply_request(false);
        none.changes.clear();
        let mut too_many = apply_request(false);
        too_many.changes = (0..129).map(|_| change(0, 0, "")).collect();
        let mut too_much = apply_request(false);
        too_much.changes = vec![change(0, 0, &"x".repeat(1_000_001))];
        let mut blank_token = apply_request(false);
        blank_token.expected_editor_token = " ".to_owned();
        for request in [past_end, overlapping, none, too_many, too_much, blank_token] {
            assert_eq!(
                code_of(apply_payload(&request)),
                INVALID_PREPARED_EDIT,
                "{:?}",
                request.changes.len()
            );
        }
        let mut no_rows = show_request();
        no_rows.preview.hunks.clear();
        assert_eq!(code_of(show_payload(&no_rows)), INVALID_PREPARED_EDIT);
        assert_eq!(code_of(clear_payload(" ")), INVALID_CALL_ID);
        assert_eq!(code_of(check_run_id("")), INVALID_RUN_ID);
        assert_eq!(code_of(check_run_id(&"r".repeat(201))), INVALID_RUN_ID);
        assert_eq!(check_run_id("run-1"), Ok(()));
    }

    #[test]
    fn a_drawn_preview_is_read_with_its_counts() {
        let outcome = parse_show_answer(&show_request(), &drawn());
        assert_eq!(
            outcome,
            Ok(PreviewOutcome::Drawn(PreviewDrawn {
                shown: true,
                changes_previewed: 1,
                additions_rendered: 1,
                deletions_rendered: 1,
                truncated: false,
                warning: None
            }))
        );
        assert!(outcome.as_ref().is_ok_and(PreviewOutcome::shown));
        let unavailable = json!({"result": {"ok": true, "shown": false, "warning": "Drawing failed: no body."}});
        let outcome = parse_show_answer(&show_request(), &unavailable);
        assert_eq!(
            outcome.as_ref().map(PreviewOutcome::warning),
            Ok(Some("Drawing failed: no body."))
        );
        assert_eq!(outcome.map(|o| o.shown()), Ok(false));
    }

    #[test]
    fn a_truncated_drawing_is_accepted_only_for_a_diff_longer_than_the_page_draws() {
        let mut request = show_request();
        let rows: Vec<DiffRow> = (1..=2_500)
            .map(|n| row(DiffRowKind::Insert, None, Some(n), "x"))
            .collect();
        request.preview.hunks[0].rows = rows;
        request.preview.additions = 2_500;
        request.preview.deletions = 0;
        let truncated = json!({"result": {"ok": true, "shown": true, "presentation": "editor-diff-surface",
            "changes_previewed": 1, "additions_rendered": 2000, "deletions_rendered": 0, "truncated": true,
            "warning": "Only part of the proposal is drawn here."}});
        assert!(matches!(
            parse_show_answer(&request, &truncated),
            Ok(PreviewOutcome::Drawn(PreviewDrawn {
                truncated: true,
                additions_rendered: 2000,
                ..
            }))
        ));
        // The short diff cannot be truncated, and a truncation needs its warning.
        assert_eq!(
            code_of(parse_show_answer(&show_request(), &truncated)),
            "INVALID_PAGE_RESPONSE"
        );
        let mut silent = truncated.clone();
        silent["result"].as_object_mut().map(|r| r.remove("warning"));
        assert_eq!(code_of(parse_show_answer(&request, &silent)), "INVALID_PAGE_RESPONSE");
    }

    #[test]
    fn show_answers_that_do_not_fit_the_request_are_invalid() {
        type Mutation = Box<dyn Fn(&mut Value)>;
        let cases: Vec<Mutation> = vec![
            Box::new(|v| v["result"]["changes_previewed"] = json!(2)),
            Box::new(|v| v["result"]["additions_rendered"] = json!(2)),
            Box::new(|v| v["result"]["deletions_rendered"] = json!(0)),
            Box::new(|v| v["result"]["shown"] = json!(false)),
            Box::new(|v| v["result"]["presentation"] = json!("inline-decorations")),
            Box::new(|v| v["result"]["script"] = json!("alert(1)")),
            Box::new(|v| v["result"]["warning"] = json!("x".repeat(501))),
            Box::new(|v| v["result"]["truncated"] = json!("no")),
            Box::new(|v| v["result"]["ok"] = json!(1)),
            Box::new(|v| v["extra"] = json!(1)),
            Box::new(|v| *v = json!({"result": {"ok": true, "shown": true, "warning": "w"}})),
            Box::new(|v| *v = json!({"result": {"ok": true, "shown": false}})),
        ];
        for (index, case) in cases.iter().enumerate() {
            let mut data = drawn();
            case(&mut data);
            assert_eq!(
                code_of(parse_show_answer(&show_request(), &data)),
                "INVALID_PAGE_RESPONSE",
                "case {index}"
            );
        }
    }

    #[test]
    fn refusals_keep_their_code_and_stale_reason() {
        for reason in ["file", "editor", "document"] {
            let data = json!({"result": {"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": reason,
                "error": "The editor changed."}});
            let error = parse_apply_answer(&apply_request(true), &data).err();
            assert_eq!(error.as_ref().map(EditError::code), Some(STALE_EDIT_PREVIEW));
            assert_eq!(
                error.and_then(|e| e.stale_reason()).map(StaleReason::as_str),
                Some(reason)
            );
        }
        for code in [EDITOR_UNAVAILABLE, EDIT_PREVIEW_BUSY, INVALID_PREPARED_EDIT] {
            let data = json!({"result": {"ok": false, "code": code, "error": "No."}});
            let error = parse_show_answer(&show_request(), &data).err();
            assert!(matches!(&error, Some(EditError::Refused(r)) if r.code() == code && r.message() == "No."));
            assert_eq!(error.and_then(|e| e.stale_reason()), None);
        }
    }

    #[test]
    fn malformed_refusals_are_invalid_answers_not_refusals() {
        for result in [
            json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "error": "no reason"}),
            json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": "weather", "error": "x"}),
            json!({"ok": false, "code": "EDIT_PREVIEW_BUSY", "staleReason": "file", "error": "x"}),
            json!({"ok": false, "code": "PAGE_DECIDED_OTHERWISE", "error": "x"}),
            json!({"ok": false, "code": "EDITOR_UNAVAILABLE", "error": " "}),
            json!({"ok": false, "code": "EDITOR_UNAVAILABLE", "error": "x", "hint": "y"}),
        ] {
            let data = json!({ "result": result });
            assert!(
                matches!(parse_apply_answer(&apply_request(false), &data), Err(EditError::Page(ref e)) if e.code == "INVALID_PAGE_RESPONSE"),
                "{data}"
            );
        }
    }

    #[test]
    fn an_apply_receipt_must_echo_the_request() {
        let receipt = json!({"result": {"ok": true, "edits_applied": 1, "reviewed_diff": true}});
        assert_eq!(
            parse_apply_answer(&apply_request(true), &receipt),
            Ok(EditApplied {
                edits_applied: 1,
                reviewed_diff: true
            })
        );
        // Claimed review of an unreviewed edit, wrong count, extra field.
        assert_eq!(
            code_of(parse_apply_answer(&apply_request(false), &receipt)),
            "INVALID_PAGE_RESPONSE"
        );
        for result in [
            json!({"ok": true, "edits_applied": 2, "reviewed_diff": true}),
            json!({"ok": true, "edits_applied": 1, "reviewed_diff": true, "text": "x"}),
            json!({"ok": true, "edits_applied": 1}),
        ] {
            let data = json!({ "result": result });
            assert_eq!(
                code_of(parse_apply_answer(&apply_request(true), &data)),
                "INVALID_PAGE_RESPONSE"
            );
        }
        assert_eq!(
            code_of(parse_apply_answer(&apply_request(true), &json!({"receipt": {}}))),
            "INVALID_PAGE_RESPONSE"
        );
    }

    #[test]
    fn clear_answers_say_whether_a_preview_was_removed() {
        assert_eq!(
            parse_clear_answer(&json!({"result": {"ok": true, "cleared": true}})),
            Ok(true)
        );
        assert_eq!(
            parse_clear_answer(&json!({"result": {"ok": true, "cleared": false}})),
            Ok(false)
        );
        for data in [
            json!({"result": {"ok": true}}),
            json!({"result": {"ok": false, "cleared": false}}),
            json!({"result": {"ok": true, "cleared": true, "x": 1}}),
            json!({"cleared": true}),
        ] {
            assert_eq!(
                parse_clear_answer(&data).map_err(|e| e.code),
                Err("INVALID_PAGE_RESPONSE".to_owned()),
                "{data}"
            );
        }
    }
}
