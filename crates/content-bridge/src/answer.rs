//! The first reading of a page's answer: its JSON text, before anything else
//! looks at it.
//!
//! A page answer is the least trusted input the worker takes. A script of the
//! page can answer a bridge request before the real runtime does, with 5,000
//! nested arrays or a 60 MB error string; converted without bounds, either
//! would exhaust the wasm stack or memory and end every run in every tab.
//! So the worker's adapter hands the answer over as JSON text, and this
//! module, in order:
//!
//! 1. checks the text's UTF-8 length against the cap of the request type
//!    ([`max_answer_bytes`], from `protocol::limits`) — nothing over the cap
//!    is parsed (`PAGE_ANSWER_TOO_LARGE`);
//! 2. parses it with serde_json, whose recursion limit (128, kept on) turns
//!    deep nesting into an error instead of a stack overflow
//!    (`PAGE_ANSWER_MALFORMED`);
//! 3. unwraps the envelope with [`unwrap_page_response`] (the page's own
//!    error codes, its error text cut to the bound).
//!
//! The `data` it returns is then read by the interpreter of the request type
//! ([`crate::context`], [`crate::diagnostics`], …). Every failure is a
//! [`PageError`] of that one request: the tab's request fails, nothing else.

use crate::request::{PageError, unwrap_page_response};
use protocol::limits::{self, to_usize};
use protocol::{ErrorCode, MessageType};
use serde_json::Value;

/// The largest answer, in UTF-8 bytes of JSON text, a page may give to a
/// request of `request` type. Types that are not page requests get the
/// smallest cap (they are refused later anyway).
pub fn max_answer_bytes(request: MessageType) -> usize {
    let cap = match request {
        MessageType::PageGetContext => limits::MAX_CONTEXT_ANSWER_BYTES,
        MessageType::PageGetPreview => limits::MAX_PREVIEW_ANSWER_BYTES,
        MessageType::PageGetDiagnostics => limits::MAX_DIAGNOSTICS_ANSWER_BYTES,
        MessageType::PageGetProbe => limits::MAX_PROBE_ANSWER_BYTES,
        MessageType::PageShowEditPreview | MessageType::PageClearEditPreview | MessageType::PageApplyEdit => {
            limits::MAX_EDIT_ANSWER_BYTES
        }
        _ => limits::MAX_CANCEL_ANSWER_BYTES,
    };
    to_usize(cap)
}

/// Reads the page's answer `text` to the `request` sent as `request_id` and
/// returns its `data`. `None` is a page that sent no answer.
///
/// # Errors
/// `PAGE_ANSWER_TOO_LARGE` over the type's byte cap (checked before any
/// parsing), `PAGE_ANSWER_MALFORMED` for text that is not JSON or nests too
/// deep, `INVALID_PAGE_RESPONSE` for a missing answer or a wrong envelope,
/// and the page's own code for an `ok:false` answer.
pub fn parse_page_answer(request: MessageType, request_id: &str, text: Option<&str>) -> Result<Value, PageError> {
    let text = text.ok_or_else(|| PageError::invalid("The page did not answer."))?;
    let cap = max_answer_bytes(request);
    if text.len() > cap {
        return Err(PageError::new(
            ErrorCode::PageAnswerTooLarge.as_str(),
            format!(
                "The page's answer to {} is larger than {cap} bytes; it was not read.",
                request.as_str()
            ),
        ));
    }
    // serde_json's recursion limit is on unless its `unbounded_depth`
    // feature is enabled, which no crate of this workspace does.
    let answer: Value = serde_json::from_str(text).map_err(|error| {
        PageError::new(
            ErrorCode::PageAnswerMalformed.as_str(),
            format!(
                "The page's answer to {} is not JSON the worker reads ({}).",
                request.as_str(),
                error_kind(&error)
            ),
        )
    })?;
    unwrap_page_response(request_id, Some(&answer))
}

/// A short, page-independent reason: serde_json's message may quote the
/// page's text, which stays out of errors.
fn error_kind(error: &serde_json::Error) -> String {
    let line = error.line();
    let column = error.column();
    let what = if error.to_string().starts_with("recursion limit exceeded") {
        format!("nested deeper than {}", limits::MAX_PAGE_ANSWER_DEPTH)
    } else {
        match error.classify() {
            serde_json::error::Category::Eof => "cut short".to_owned(),
            serde_json::error::Category::Syntax => "not valid JSON".to_owned(),
            serde_json::error::Category::Data | serde_json::error::Category::Io => "not readable".to_owned(),
        }
    };
    format!("{what} at line {line}, column {column}")
}

#[cfg(test)]
mod tests;
