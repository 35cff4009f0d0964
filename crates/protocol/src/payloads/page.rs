//! Page requests that change the editor (`PAGE_SHOW_EDIT_PREVIEW`,
//! `PAGE_APPLY_EDIT`) and the cancellation of a page request
//! (`PAGE_CANCEL_REQUEST`).
//!
//! A prepared edit names the exact text, editor token and file it was
//! computed for; the page refuses it when the editor shows anything else, so
//! a change set never lands on a document it was not made for. A preview may
//! name the text by the page's document token instead (see
//! [`ExpectedDocument`]): the page then compares the document object it
//! answered the `edit` read with, and the 600 KB text does not travel back.

use super::fields::{exact, fail, non_blank_field};
use crate::diff_preview::DiffPreview;
use crate::edit_checkpoint::TextChange;
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire::{self, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The document a preview was computed against, as `PAGE_SHOW_EDIT_PREVIEW`
/// names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpectedDocument {
    /// The whole text, compared exactly (`expectedText`).
    Text {
        /// The whole document.
        #[serde(rename = "expectedText")]
        text: String,
    },
    /// The page's token of the document it answered the `edit` read with
    /// (`documentToken`), and that document's UTF-16 length. The page
    /// accepts it only while the editor still holds that very document
    /// object; it refuses it as stale otherwise, even for an equal text
    /// (the worker then sends the whole text).
    Token {
        /// The read's `documentToken`.
        #[serde(rename = "expectedDocumentToken")]
        token: String,
        /// The document's length in UTF-16 units.
        #[serde(rename = "expectedTextLength")]
        length: u64,
    },
}

impl ExpectedDocument {
    /// The named document's length in UTF-16 units.
    pub fn utf16_len(&self) -> usize {
        match self {
            ExpectedDocument::Text { text } => js::utf16_len(text),
            ExpectedDocument::Token { length, .. } => usize::try_from(*length).unwrap_or(usize::MAX),
        }
    }

    /// Reads either form: exactly one of `expectedText` and
    /// `expectedDocumentToken` (with `expectedTextLength`) is present; with
    /// neither, `expectedText` is the missing field, as before the token.
    fn read(f: &Fields<'_>) -> Result<ExpectedDocument, ProtocolError> {
        let invalid = |key: &str| {
            fail(
                ErrorCode::InvalidPreparedEdit,
                f.at(key),
                "Prepared edit request is invalid",
            )
        };
        let max = to_usize(limits::MAX_EDITOR_TRANSACTION_CHARS);
        match (
            f.raw("expectedText"),
            f.raw("expectedDocumentToken"),
            f.raw("expectedTextLength"),
        ) {
            (None, None, None) => Err(ProtocolError::new(
                ErrorCode::MissingPayloadField,
                f.at("expectedText"),
                "Missing payload field: expectedText",
            )),
            (Some(text), None, None) => wire::bounded_string(Some(text), max)
                .map(|text| ExpectedDocument::Text { text })
                .ok_or_else(|| invalid("expectedText")),
            (None, Some(token), Some(length)) => {
                let token = wire::bounded_non_blank(Some(token), to_usize(limits::MAX_EDITOR_TOKEN_CHARS))
                    .ok_or_else(|| invalid("expectedDocumentToken"))?;
                let length = js::as_safe_uint(length)
                    .filter(|length| *length <= u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS))
                    .ok_or_else(|| invalid("expectedTextLength"))?;
                Ok(ExpectedDocument::Token { token, length })
            }
            (Some(_), _, _) => Err(invalid("expectedText")),
            _ => Err(invalid("expectedDocumentToken")),
        }
    }
}

/// `PAGE_SHOW_EDIT_PREVIEW`: draw a prepared edit over the editor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageShowEditPreview {
    /// The document the changes were computed against.
    #[serde(flatten)]
    pub expected: ExpectedDocument,
    /// The editor token read with that text.
    pub expected_editor_token: String,
    /// The file that text belongs to.
    pub expected_file_label: String,
    /// The changes, sorted and not overlapping.
    pub changes: Vec<TextChange>,
    /// The tool call that owns the preview.
    pub call_id: String,
    /// The diff to draw.
    pub preview: DiffPreview,
}

impl PageShowEditPreview {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PageShowEditPreview, ProtocolError> {
        let keys = [
            "expectedText",
            "expectedDocumentToken",
            "expectedTextLength",
            "expectedEditorToken",
            "expectedFileLabel",
            "changes",
            "callId",
            "preview",
        ];
        let f = exact(p, &keys, &keys[3..])?;
        let expected = ExpectedDocument::read(&f)?;
        let edit = PreparedEdit::read(&f, expected.utf16_len())?;
        let preview = f.raw("preview").and_then(DiffPreview::parse).ok_or_else(|| {
            fail(
                ErrorCode::InvalidPreparedEdit,
                f.at("preview"),
                "Prepared edit preview request is invalid",
            )
        })?;
        Ok(PageShowEditPreview {
            expected,
            expected_editor_token: edit.expected_editor_token,
            expected_file_label: edit.expected_file_label,
            changes: edit.changes,
            call_id: edit.call_id,
            preview,
        })
    }
}

/// `PAGE_APPLY_EDIT`: apply a prepared edit atomically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageApplyEdit {
    /// The whole document the changes were computed against.
    pub expected_text: String,
    /// The editor token read with that text.
    pub expected_editor_token: String,
    /// The file that text belongs to.
    pub expected_file_label: String,
    /// The changes, sorted and not overlapping.
    pub changes: Vec<TextChange>,
    /// The tool call that makes the edit.
    pub call_id: String,
    /// Whether the user approved this edit from its diff.
    pub reviewed_diff: bool,
}

impl PageApplyEdit {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PageApplyEdit, ProtocolError> {
        let keys = [
            "expectedText",
            "expectedEditorToken",
            "expectedFileLabel",
            "changes",
            "callId",
            "reviewedDiff",
        ];
        let f = exact(p, &keys, &keys)?;
        let expected_text = wire::bounded_string(f.raw("expectedText"), to_usize(limits::MAX_EDITOR_TRANSACTION_CHARS))
            .ok_or_else(|| {
                fail(
                    ErrorCode::InvalidPreparedEdit,
                    f.at("expectedText"),
                    "Prepared edit request is invalid",
                )
            })?;
        let edit = PreparedEdit::read(&f, js::utf16_len(&expected_text))?;
        let reviewed_diff = f.raw("reviewedDiff").and_then(Value::as_bool).ok_or_else(|| {
            fail(
                ErrorCode::InvalidPreparedEdit,
                f.at("reviewedDiff"),
                "Prepared edit request is invalid",
            )
        })?;
        Ok(PageApplyEdit {
            expected_text,
            expected_editor_token: edit.expected_editor_token,
            expected_file_label: edit.expected_file_label,
            changes: edit.changes,
            call_id: edit.call_id,
            reviewed_diff,
        })
    }
}

/// The fields both prepared-edit requests share (besides the document).
struct PreparedEdit {
    expected_editor_token: String,
    expected_file_label: String,
    changes: Vec<TextChange>,
    call_id: String,
}

impl PreparedEdit {
    /// Reads them for a document of `text_units` UTF-16 units.
    fn read(f: &Fields<'_>, text_units: usize) -> Result<PreparedEdit, ProtocolError> {
        let invalid = |key: &str| {
            fail(
                ErrorCode::InvalidPreparedEdit,
                f.at(key),
                "Prepared edit request is invalid",
            )
        };
        let expected_editor_token =
            wire::bounded_non_blank(f.raw("expectedEditorToken"), to_usize(limits::MAX_EDITOR_TOKEN_CHARS))
                .ok_or_else(|| invalid("expectedEditorToken"))?;
        let expected_file_label =
            wire::bounded_non_blank(f.raw("expectedFileLabel"), to_usize(limits::MAX_FILE_LABEL_CHARS))
                .ok_or_else(|| invalid("expectedFileLabel"))?;
        let changes = prepared_changes(f.raw("changes"), text_units).ok_or_else(|| invalid("changes"))?;
        let call_id = wire::bounded_non_blank(f.raw("callId"), to_usize(limits::MAX_ENVELOPE_ID_CHARS))
            .ok_or_else(|| invalid("callId"))?;
        Ok(PreparedEdit {
            expected_editor_token,
            expected_file_label,
            changes,
            call_id,
        })
    }
}

/// Changes in document order, inside a text of `text_units` UTF-16 units,
/// not overlapping, with a bounded count and inserted length.
fn prepared_changes(value: Option<&Value>, text_units: usize) -> Option<Vec<TextChange>> {
    let raw = value?.as_array()?;
    if raw.is_empty() || raw.len() > to_usize(limits::MAX_PREPARED_CHANGES) {
        return None;
    }
    let mut inserted = 0usize;
    let mut previous_to = 0u64;
    let mut changes = Vec::with_capacity(raw.len());
    for (index, change) in raw.iter().enumerate() {
        let map = change.as_object()?;
        if map.keys().any(|k| !matches!(k.as_str(), "from" | "to" | "insert")) {
            return None;
        }
        let from = js::as_safe_uint(map.get("from")?)?;
        let to = js::as_safe_uint(map.get("to")?)?;
        let insert = map.get("insert")?.as_str()?;
        if to < from || to > u64::try_from(text_units).ok()? || (index > 0 && from < previous_to) {
            return None;
        }
        previous_to = to;
        inserted += js::utf16_len(insert);
        if inserted > to_usize(limits::MAX_PREPARED_INSERT_CHARS) {
            return None;
        }
        changes.push(TextChange {
            from,
            to,
            insert: insert.to_owned(),
        });
    }
    Some(changes)
}

/// `PAGE_CANCEL_REQUEST`: stop a page request still in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCancelRequest {
    /// The `requestId` of the request to stop.
    pub target_request_id: String,
}

impl PageCancelRequest {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PageCancelRequest, ProtocolError> {
        let f = exact(p, &["targetRequestId"], &["targetRequestId"])?;
        let target_request_id = non_blank_field(
            &f,
            "targetRequestId",
            limits::MAX_ENVELOPE_ID_CHARS,
            ErrorCode::InvalidCancelTarget,
            "targetRequestId is required",
        )?;
        Ok(PageCancelRequest { target_request_id })
    }
}
