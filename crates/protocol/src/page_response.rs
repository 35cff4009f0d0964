//! What the main-world page may answer to each page request.
//!
//! The page is the least trusted participant: its answers pass through the
//! isolated script to the worker and then into prompts. Each answer's `data`
//! has exact fields and size bounds per request type (`INVALID_PAGE_RESPONSE`
//! otherwise). Failed responses (`ok:false`) carry no data and are checked by
//! the envelope parser alone.

use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::message_type::MessageType;
use crate::page_bridge::PROBE_FIELDS;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Whole `PAGE_GET_CONTEXT` answer, as JSON text.
const MAX_CONTEXT_RESPONSE_CHARS: usize = to_usize(limits::MAX_CONTEXT_RESPONSE_CHARS);
/// `numberedDocument` of a context answer.
pub const MAX_NUMBERED_DOCUMENT_CHARS: usize = 65_000;
/// Any `error` text from the page ([`limits::MAX_PAGE_ERROR_CHARS`] as a length).
const MAX_PAGE_ERROR_CHARS: usize = to_usize(limits::MAX_PAGE_ERROR_CHARS);
/// `{result}` of an edit preview, clear or apply, as JSON text.
const MAX_EDIT_RESULT_CHARS: usize = to_usize(limits::MAX_EDIT_RESULT_CHARS);
/// Largest preview side in pixels.
pub const MAX_PREVIEW_SIDE_PX: u64 = 4_096;

/// The editor state a `PAGE_GET_CONTEXT` returns (every field optional).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageContext {
    /// Why the editor could not be read (the other fields are then absent).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// The whole document text (the `full` and `edit` projections).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub full_text: Option<String>,
    /// Lines prefixed `N|` (the `numbered` projection).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub numbered_document: Option<String>,
    /// The cursor as a UTF-16 offset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cursor_pos: Option<u64>,
    /// The cursor's line, 1-based.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cursor_line: Option<u64>,
    /// The cursor's column, 1-based.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cursor_column: Option<u64>,
    /// The selected text, possibly cut (see `selection_truncated`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selected_text: Option<String>,
    /// Start of the selection as a UTF-16 offset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selection_from: Option<u64>,
    /// End of the selection as a UTF-16 offset.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selection_to: Option<u64>,
    /// The document's length in UTF-16 units.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub doc_length: Option<u64>,
    /// The document's number of lines.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub line_count: Option<u64>,
    /// The identity of this `EditorView` instance, which guarded edits must name.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub editor_token: Option<String>,
    /// The identity of the document object the text was read from (`edit`
    /// answers), which a preview may name instead of the whole text.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub document_token: Option<String>,
    /// Workspace hints (untrusted; read with [`crate::active_file`] and
    /// [`crate::project_tree`]).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub workspace: Option<Value>,
    /// The text or numbered lines were cut to the request's limit.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub truncated: Option<bool>,
    /// The selection was cut to its bound.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub selection_truncated: Option<bool>,
    /// First line of a numbered range.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub start_line: Option<u64>,
    /// Last line of a numbered range.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_line: Option<u64>,
    /// Where the next page of a cut numbered range starts.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub next_start_line: Option<u64>,
}

/// A captured preview image, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PagePreview {
    /// The preview as a `data:` URL with its declared size.
    Image {
        /// The image as a `data:` URL.
        #[serde(rename = "dataUrl")]
        data_url: String,
        /// Declared width in pixels.
        width: u64,
        /// Declared height in pixels.
        height: u64,
        /// Declared image type.
        #[serde(rename = "mimeType", skip_serializing_if = "Option::is_none", default)]
        mime_type: Option<String>,
    },
    /// No image: why.
    Error {
        /// The page's reason.
        error: String,
    },
}

/// One diagnostic row from the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageDiagnostic {
    /// `error`, `warning`, …, as the page shows it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub severity: Option<String>,
    /// The diagnostic's text.
    pub message: String,
    /// Its line, 1-based; absent for project-level rows.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub line: Option<u64>,
    /// Its column, 1-based.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub column: Option<u64>,
    /// `typst`, `typst-summary`, `typst-status` or `spelling`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub kind: Option<String>,
    /// For spelling rows: the word flagged.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub original: Option<String>,
    /// For spelling rows: the suggested word.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub suggestion: Option<String>,
}

/// A `PAGE_GET_DIAGNOSTICS` answer: the Improve panel's rows and lint marks.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageDiagnostics {
    /// The rows, at most the diagnostics bound.
    pub diagnostics: Vec<PageDiagnostic>,
    /// Why the diagnostics could not be read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// More rows existed than were sent.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub truncated: Option<bool>,
    /// How many rows the page saw.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub total_count: Option<u64>,
}

/// Which page capabilities a tool's preflight may need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageProbe {
    /// A CodeMirror editor is reachable.
    pub editor: bool,
    /// The editor has a non-empty selection.
    pub selection: bool,
    /// The compiled preview is rendered.
    pub typst_canvas: bool,
    /// A preview image can be captured.
    pub preview_image: bool,
    /// The Improve panel (diagnostics) is open.
    pub improve_panel: bool,
}

/// The validated `data` of a successful page response.
#[derive(Debug, Clone, PartialEq)]
pub enum PageResponseData {
    /// `PAGE_GET_CONTEXT`.
    Context(Box<PageContext>),
    /// `PAGE_GET_PREVIEW`.
    Preview(PagePreview),
    /// `PAGE_GET_DIAGNOSTICS`.
    Diagnostics(PageDiagnostics),
    /// `PAGE_GET_PROBE`.
    Probe(PageProbe),
    /// `{result}` of `PAGE_SHOW_EDIT_PREVIEW`, `PAGE_CLEAR_EDIT_PREVIEW` or
    /// `PAGE_APPLY_EDIT`.
    EditResult(Map<String, Value>),
    /// `PAGE_CANCEL_REQUEST`: whether a pending request was cancelled.
    Cancel {
        /// True when the target was still pending.
        cancelled: bool,
    },
}

fn invalid(message: &str) -> ProtocolError {
    ProtocolError::new(ErrorCode::InvalidPageResponse, "$.payload.data", message)
}

fn json_chars(value: &Value) -> usize {
    js::json_utf16_len(value)
}

fn only(map: &Map<String, Value>, allowed: &[&str]) -> bool {
    map.keys().all(|k| allowed.contains(&k.as_str()))
}

fn opt_text(map: &Map<String, Value>, key: &str, max: usize) -> Result<Option<String>, ()> {
    crate::wire::optional(map.get(key), |v| {
        v.as_str().filter(|s| js::utf16_len(s) <= max).map(str::to_owned)
    })
}

fn opt_uint(map: &Map<String, Value>, key: &str) -> Result<Option<u64>, ()> {
    crate::wire::optional(map.get(key), js::as_safe_uint)
}

fn opt_bool(map: &Map<String, Value>, key: &str) -> Result<Option<bool>, ()> {
    crate::wire::optional(map.get(key), Value::as_bool)
}

fn context(map: &Map<String, Value>, whole: &Value) -> Result<PageContext, ()> {
    let allowed = [
        "error",
        "fullText",
        "numberedDocument",
        "cursorPos",
        "cursorLine",
        "cursorColumn",
        "selectedText",
        "selectionFrom",
        "selectionTo",
        "docLength",
        "lineCount",
        "editorToken",
        "documentToken",
        "workspace",
        "truncated",
        "selectionTruncated",
        "startLine",
        "endLine",
        "nextStartLine",
    ];
    if !only(map, &allowed) || json_chars(whole) > MAX_CONTEXT_RESPONSE_CHARS {
        return Err(());
    }
    let token = |key: &str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() && js::utf16_len(s) <= to_usize(limits::MAX_EDITOR_TOKEN_CHARS) => {
            Ok(Some(s.clone()))
        }
        Some(_) => Err(()),
    };
    let editor_token = token("editorToken")?;
    let document_token = token("documentToken")?;
    let workspace = map.get("workspace").filter(|v| !v.is_null()).cloned();
    if workspace
        .as_ref()
        .is_some_and(|w| json_chars(w) > to_usize(limits::MAX_PAGE_WORKSPACE_CHARS))
    {
        return Err(());
    }
    Ok(PageContext {
        error: opt_text(map, "error", MAX_PAGE_ERROR_CHARS)?,
        full_text: opt_text(map, "fullText", to_usize(limits::MAX_PAGE_DOCUMENT_CHARS))?,
        numbered_document: opt_text(map, "numberedDocument", MAX_NUMBERED_DOCUMENT_CHARS)?,
        cursor_pos: opt_uint(map, "cursorPos")?,
        cursor_line: opt_uint(map, "cursorLine")?,
        cursor_column: opt_uint(map, "cursorColumn")?,
        selected_text: opt_text(map, "selectedText", to_usize(limits::MAX_PAGE_SELECTION_CHARS))?,
        selection_from: opt_uint(map, "selectionFrom")?,
        selection_to: opt_uint(map, "selectionTo")?,
        doc_length: opt_uint(map, "docLength")?,
        line_count: opt_uint(map, "lineCount")?,
        editor_token,
        document_token,
        workspace,
        truncated: opt_bool(map, "truncated")?,
        selection_truncated: opt_bool(map, "selectionTruncated")?,
        start_line: opt_uint(map, "startLine")?,
        end_line: opt_uint(map, "endLine")?,
        next_start_line: opt_uint(map, "nextStartLine")?,
    })
}

/// `data:image/(png|jpeg|webp);base64,…` (prefix case-insensitive).
fn is_image_data_url(url: &str) -> bool {
    let Some(colon) = url.get(..5).filter(|p| p.eq_ignore_ascii_case("data:")) else {
        return false;
    };
    let rest = &url[colon.len()..];
    let Some((media, data)) = rest.split_once(',') else {
        return false;
    };
    let media_ok = ["image/png;base64", "image/jpeg;base64", "image/webp;base64"]
        .iter()
        .any(|m| media.eq_ignore_ascii_case(m));
    media_ok
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

fn preview(map: &Map<String, Value>) -> Result<PagePreview, ()> {
    if !only(map, &["error", "dataUrl", "width", "height", "mimeType"]) {
        return Err(());
    }
    if crate::js::is_present(map.get("error")) {
        return opt_text(map, "error", MAX_PAGE_ERROR_CHARS)?
            .map(|error| PagePreview::Error { error })
            .ok_or(());
    }
    let data_url = map.get("dataUrl").and_then(Value::as_str).ok_or(())?;
    if js::utf16_len(data_url) > to_usize(limits::MAX_PREVIEW_DATA_URL_CHARS) || !is_image_data_url(data_url) {
        return Err(());
    }
    let side = |key: &str| {
        map.get(key)
            .and_then(js::as_safe_uint)
            .filter(|n| (1..=MAX_PREVIEW_SIDE_PX).contains(n))
            .ok_or(())
    };
    let mime_type = crate::wire::optional(map.get("mimeType"), |v| {
        v.as_str()
            .filter(|m| matches!(*m, "image/png" | "image/jpeg" | "image/webp"))
            .map(str::to_owned)
    })?;
    Ok(PagePreview::Image {
        data_url: data_url.to_owned(),
        width: side("width")?,
        height: side("height")?,
        mime_type,
    })
}

fn diagnostics(map: &Map<String, Value>, whole: &Value) -> Result<PageDiagnostics, ()> {
    if !only(map, &["diagnostics", "error", "truncated", "totalCount"])
        || json_chars(whole) > to_usize(limits::MAX_PAGE_DIAGNOSTICS_CHARS)
    {
        return Err(());
    }
    let raw = map.get("diagnostics").and_then(Value::as_array).ok_or(())?;
    if raw.len() > to_usize(limits::MAX_PAGE_DIAGNOSTICS) {
        return Err(());
    }
    let mut rows = Vec::with_capacity(raw.len());
    for item in raw {
        let item = item.as_object().ok_or(())?;
        if !only(
            item,
            &[
                "severity",
                "message",
                "line",
                "column",
                "kind",
                "original",
                "suggestion",
            ],
        ) {
            return Err(());
        }
        let message = item
            .get("message")
            .and_then(Value::as_str)
            .filter(|m| js::utf16_len(m) <= to_usize(limits::MAX_DIAGNOSTIC_MESSAGE_CHARS))
            .ok_or(())?;
        rows.push(PageDiagnostic {
            severity: opt_text(item, "severity", to_usize(limits::MAX_DIAGNOSTIC_SEVERITY_CHARS))?,
            message: message.to_owned(),
            line: opt_uint(item, "line")?,
            column: opt_uint(item, "column")?,
            kind: opt_text(item, "kind", to_usize(limits::MAX_DIAGNOSTIC_KIND_CHARS))?,
            original: opt_text(item, "original", to_usize(limits::MAX_DIAGNOSTIC_TEXT_CHARS))?,
            suggestion: opt_text(item, "suggestion", to_usize(limits::MAX_DIAGNOSTIC_TEXT_CHARS))?,
        });
    }
    let total_count = opt_uint(map, "totalCount")?;
    if total_count.is_some_and(|n| n < rows.len() as u64) {
        return Err(());
    }
    Ok(PageDiagnostics {
        diagnostics: rows,
        error: opt_text(map, "error", MAX_PAGE_ERROR_CHARS)?,
        truncated: opt_bool(map, "truncated")?,
        total_count,
    })
}

impl PageResponseData {
    /// Validates the `data` of a successful answer to `request` (the
    /// isolated script's `validResponseData`).
    pub fn parse(request: MessageType, data: &Value) -> Result<PageResponseData, ProtocolError> {
        let map = data
            .as_object()
            .ok_or_else(|| invalid("Page response data must be an object."))?;
        let parsed = match request {
            MessageType::PageGetContext => context(map, data).map(|c| PageResponseData::Context(Box::new(c))),
            MessageType::PageGetPreview => preview(map).map(PageResponseData::Preview),
            MessageType::PageGetDiagnostics => diagnostics(map, data).map(PageResponseData::Diagnostics),
            MessageType::PageGetProbe => {
                let flag = |key: &str| map.get(key).and_then(Value::as_bool).ok_or(());
                if only(map, PROBE_FIELDS) {
                    (|| {
                        Ok(PageResponseData::Probe(PageProbe {
                            editor: flag("editor")?,
                            selection: flag("selection")?,
                            typst_canvas: flag("typstCanvas")?,
                            preview_image: flag("previewImage")?,
                            improve_panel: flag("improvePanel")?,
                        }))
                    })()
                } else {
                    Err(())
                }
            }
            MessageType::PageShowEditPreview | MessageType::PageClearEditPreview | MessageType::PageApplyEdit => {
                match map.get("result") {
                    Some(Value::Object(result)) if map.len() == 1 && json_chars(data) <= MAX_EDIT_RESULT_CHARS => {
                        Ok(PageResponseData::EditResult(result.clone()))
                    }
                    _ => Err(()),
                }
            }
            MessageType::PageCancelRequest => match map.get("cancelled") {
                Some(Value::Bool(cancelled)) if map.len() == 1 => {
                    Ok(PageResponseData::Cancel { cancelled: *cancelled })
                }
                _ => Err(()),
            },
            _ => Err(()),
        };
        parsed.map_err(|()| invalid(&format!("The page's answer to {} is invalid.", request.as_str())))
    }

    /// The exact wire JSON of the data.
    pub fn to_value(&self) -> Value {
        match self {
            PageResponseData::Context(context) => crate::wire::to_value(context),
            PageResponseData::Preview(preview) => crate::wire::to_value(preview),
            PageResponseData::Diagnostics(diagnostics) => crate::wire::to_value(diagnostics),
            PageResponseData::Probe(probe) => crate::wire::to_value(probe),
            PageResponseData::EditResult(result) => serde_json::json!({ "result": result }),
            PageResponseData::Cancel { cancelled } => serde_json::json!({ "cancelled": cancelled }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(request: MessageType, data: Value) -> Option<&'static str> {
        PageResponseData::parse(request, &data).err().map(|e| e.code.as_str())
    }

    #[test]
    fn accepts_bounded_answers_and_round_trips() {
        for (request, data) in [
            (
                MessageType::PageGetContext,
                json!({"fullText": "= Title", "cursorPos": 2, "editorToken": "t", "truncated": false,
                    "workspace": {"active_editor_file": {"relativePath": "main.typ"}}}),
            ),
            (
                MessageType::PageGetContext,
                json!({"error": "EditorView not found", "workspace": {}}),
            ),
            (
                MessageType::PageGetPreview,
                json!({"dataUrl": "data:image/webp;base64,AAAA", "width": 10, "height": 4096, "mimeType": "image/webp"}),
            ),
            (
                MessageType::PageGetPreview,
                json!({"error": "No Typst render canvas found"}),
            ),
            (
                MessageType::PageGetDiagnostics,
                json!({"diagnostics": [{"severity": "error", "message": "unknown variable", "line": 3, "column": null, "kind": "typst"}],
                    "totalCount": 1, "truncated": false}),
            ),
            (
                MessageType::PageGetProbe,
                json!({"editor": true, "selection": false, "typstCanvas": true, "previewImage": false, "improvePanel": false}),
            ),
            (
                MessageType::PageApplyEdit,
                json!({"result": {"ok": true, "edits_applied": 1, "reviewed_diff": true}}),
            ),
            (MessageType::PageCancelRequest, json!({"cancelled": true})),
        ] {
            let parsed = PageResponseData::parse(request, &data);
            assert!(parsed.is_ok(), "{data}");
            let parsed = parsed.expect("checked");
            assert_eq!(PageResponseData::parse(request, &parsed.to_value()), Ok(parsed.clone()));
        }
    }

    #[test]
    fn refuses_oversized_or_unexpected_answers() {
        let bad = "INVALID_PAGE_RESPONSE";
        assert_eq!(code(MessageType::PageGetContext, json!({"fullText": 1})), Some(bad));
        assert_eq!(code(MessageType::PageGetContext, json!({"extra": 1})), Some(bad));
        assert_eq!(code(MessageType::PageGetContext, json!({"cursorPos": -1})), Some(bad));
        assert_eq!(code(MessageType::PageGetContext, json!({"editorToken": ""})), Some(bad));
        assert_eq!(
            code(
                MessageType::PageGetContext,
                json!({"workspace": {"x": "y".repeat(65_536)}})
            ),
            Some(bad)
        );
        assert_eq!(
            code(
                MessageType::PageGetPreview,
                json!({"dataUrl": "https://example.com/a.png", "width": 1, "height": 1})
            ),
            Some(bad)
        );
        assert_eq!(
            code(
                MessageType::PageGetPreview,
                json!({"dataUrl": "data:image/gif;base64,AA", "width": 1, "height": 1})
            ),
            Some(bad)
        );
        assert_eq!(
            code(
                MessageType::PageGetPreview,
                json!({"dataUrl": "data:image/png;base64,AA", "width": 4097, "height": 1})
            ),
            Some(bad)
        );
        let many: Vec<Value> = (0..201).map(|_| json!({"message": "m"})).collect();
        assert_eq!(
            code(MessageType::PageGetDiagnostics, json!({"diagnostics": many})),
            Some(bad)
        );
        assert_eq!(
            code(
                MessageType::PageGetDiagnostics,
                json!({"diagnostics": [{"message": "m"}], "totalCount": 0})
            ),
            Some(bad)
        );
        assert_eq!(code(MessageType::PageGetProbe, json!({"editor": true})), Some(bad));
        assert_eq!(
            code(MessageType::PageApplyEdit, json!({"result": {"x": "y".repeat(64_000)}})),
            Some(bad)
        );
        assert_eq!(
            code(MessageType::PageCancelRequest, json!({"cancelled": "yes"})),
            Some(bad)
        );
        assert_eq!(code(MessageType::LoadSettings, json!({})), Some(bad));
    }
}
