//! Editor reads: context, preview and diagnostics (`GET_EDITOR_CONTEXT`,
//! `GET_PREVIEW`, `GET_DIAGNOSTICS` and their `PAGE_GET_*` forms).
//!
//! The panel's form names a tab; the worker forwards the page form, which
//! has none, to the page script of that tab. Both share one struct so a
//! forwarded request carries exactly what the panel asked for.

use super::fields::{PAYLOAD, exact, fail, optional_tab_id};
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits;
use crate::wire::{self, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What part of the editor state a context request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextProjection {
    /// The document's text with the editor state (the default).
    Full,
    /// Like `Full`, but the page must send the whole document: an edit is
    /// never computed against a truncated text.
    Edit,
    /// A range of numbered lines with the editor state.
    Numbered,
    /// Only which file is open; the editor is not read.
    Identity,
}

/// `GET_EDITOR_CONTEXT` and `PAGE_GET_CONTEXT` (the page form has no `tabId`;
/// only the page form may carry `knownDocumentToken`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextRequest {
    /// The tab to read; when absent the worker picks the active typst.app tab.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
    /// What to read; everything when absent.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub projection: Option<ContextProjection>,
    /// The first line wanted (1-based).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub start_line: Option<u64>,
    /// The last line wanted (1-based, not before `start_line`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_line: Option<u64>,
    /// At most this many characters of text (1 to 64,000).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_chars: Option<u64>,
    /// Only with the `edit` projection, and only from the worker: the
    /// `documentToken` of an earlier `edit` answer whose text the worker
    /// still holds. While the editor holds that very document object the page
    /// leaves `fullText` out, so an unchanged document is not sent again.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub known_document_token: Option<String>,
}

impl ContextRequest {
    /// The panel's form, which may name a tab.
    pub(crate) fn parse_panel(p: &Map<String, Value>) -> Result<ContextRequest, ProtocolError> {
        let f = exact(p, &["tabId", "projection", "startLine", "endLine", "maxChars"], &[])?;
        let tab_id = optional_tab_id(&f)?;
        let range = ContextRequest::read_range(&f)?;
        Ok(ContextRequest { tab_id, ..range })
    }

    /// The page's form: the page script only ever reads its own tab.
    pub(crate) fn parse_page(p: &Map<String, Value>) -> Result<ContextRequest, ProtocolError> {
        let f = exact(
            p,
            &["projection", "startLine", "endLine", "maxChars", "knownDocumentToken"],
            &[],
        )?;
        let range = ContextRequest::read_range(&f)?;
        let known_document_token = wire::optional(f.raw("knownDocumentToken"), |v| {
            wire::bounded_non_blank(Some(v), limits::to_usize(limits::MAX_EDITOR_TOKEN_CHARS))
        })
        .ok()
        .filter(|token| token.is_none() || range.projection == Some(ContextProjection::Edit))
        .ok_or_else(|| {
            fail(
                ErrorCode::InvalidKnownDocumentToken,
                f.at("knownDocumentToken"),
                &format!(
                    "knownDocumentToken must be a non-blank token of at most {} characters, and only in an edit read",
                    limits::MAX_EDITOR_TOKEN_CHARS
                ),
            )
        })?;
        Ok(ContextRequest {
            known_document_token,
            ..range
        })
    }

    /// Everything but the tab.
    fn read_range(f: &Fields<'_>) -> Result<ContextRequest, ProtocolError> {
        let projection = wire::optional(f.raw("projection"), |v| match v.as_str()? {
            "full" => Some(ContextProjection::Full),
            "edit" => Some(ContextProjection::Edit),
            "numbered" => Some(ContextProjection::Numbered),
            "identity" => Some(ContextProjection::Identity),
            _ => None,
        })
        .map_err(|()| {
            fail(
                ErrorCode::InvalidContextProjection,
                f.at("projection"),
                "Context projection is invalid",
            )
        })?;
        let line = |key: &str| {
            wire::optional(f.raw(key), |v| js::as_safe_uint(v).filter(|n| *n >= 1)).map_err(|()| {
                fail(
                    ErrorCode::InvalidContextRange,
                    f.at(key),
                    &format!("{key} must be a positive integer"),
                )
            })
        };
        let start_line = line("startLine")?;
        let end_line = line("endLine")?;
        if let (Some(start), Some(end)) = (start_line, end_line)
            && end < start
        {
            return Err(fail(
                ErrorCode::InvalidContextRange,
                f.at("endLine"),
                "endLine must not precede startLine",
            ));
        }
        let max_chars = wire::optional(f.raw("maxChars"), |v| {
            js::as_safe_uint(v).filter(|n| (1..=u64::from(limits::MAX_CONTEXT_REQUEST_CHARS)).contains(n))
        })
        .map_err(|()| {
            fail(
                ErrorCode::InvalidContextLimit,
                f.at("maxChars"),
                "maxChars must be an integer from 1 to 64000",
            )
        })?;
        Ok(ContextRequest {
            tab_id: None,
            projection,
            start_line,
            end_line,
            max_chars,
            known_document_token: None,
        })
    }
}

/// `GET_DIAGNOSTICS` (`{tabId?}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsRequest {
    /// The tab to read; when absent the worker picks the active typst.app tab.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
}

impl DiagnosticsRequest {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<DiagnosticsRequest, ProtocolError> {
        let f = exact(p, &["tabId"], &[])?;
        Ok(DiagnosticsRequest {
            tab_id: optional_tab_id(&f)?,
        })
    }
}

/// `GET_PREVIEW` and `PAGE_GET_PREVIEW`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewRequest {
    /// The tab to read; when absent the worker picks the active typst.app tab.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
    /// Capture only typst.app's rendered canvas.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prefer_typst_canvas: Option<bool>,
    /// Capture only the large image open in the preview column.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prefer_asset_image: Option<bool>,
}

impl PreviewRequest {
    /// One parser for both forms: the page form accepts a `tabId` too.
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PreviewRequest, ProtocolError> {
        let f = exact(p, &["tabId", "preferTypstCanvas", "preferAssetImage"], &[])?;
        let invalid = || {
            fail(
                ErrorCode::InvalidPreviewRequest,
                PAYLOAD,
                "Preview options have invalid types",
            )
        };
        let tab_id = wire::optional(f.raw("tabId"), js::as_safe_uint).map_err(|()| invalid())?;
        let prefer_typst_canvas = wire::optional(f.raw("preferTypstCanvas"), Value::as_bool).map_err(|()| invalid())?;
        let prefer_asset_image = wire::optional(f.raw("preferAssetImage"), Value::as_bool).map_err(|()| invalid())?;
        Ok(PreviewRequest {
            tab_id,
            prefer_typst_canvas,
            prefer_asset_image,
        })
    }
}
