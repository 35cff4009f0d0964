//! `PAGE_GET_CONTEXT` answers: the first reading, then the context
//! interpreter for a request shape chosen by the first byte (which may name
//! a known document, as a run's later `edit` reads do). Nothing may panic;
//! an accepted context's text stays inside the page document bound.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::context::{KnownDocument, PageContext};
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;
use protocol::limits::{MAX_PAGE_DOCUMENT_CHARS, to_usize};
use protocol::payloads::{ContextProjection, ContextRequest};
use serde_json::json;

fn request(selector: u8) -> ContextRequest {
    let projection = match selector & 7 {
        0 => None,
        1 => Some(ContextProjection::Full),
        2 => Some(ContextProjection::Edit),
        3 => Some(ContextProjection::Identity),
        _ => Some(ContextProjection::Numbered),
    };
    let ranged = selector & 8 != 0;
    ContextRequest {
        tab_id: None,
        projection,
        start_line: ranged.then_some(u64::from(selector >> 4) + 1),
        end_line: ranged.then_some(u64::from(selector >> 4) + 3),
        max_chars: (selector & 16 != 0).then_some(8),
        known_document_token: (selector & 32 != 0).then(|| "document-1".to_owned()),
    }
}

/// The document an earlier `edit` read returned, under `document-1`.
fn known_document() -> Option<KnownDocument> {
    let answer = json!({
        "cursorPos": 0, "cursorLine": 1, "cursorColumn": 1, "selectedText": "", "selectionTruncated": false,
        "selectionFrom": 0, "selectionTo": 0, "docLength": 5, "lineCount": 1, "editorToken": "editor-1",
        "documentToken": "document-1", "fullText": "hello", "truncated": false
    });
    let request = ContextRequest {
        projection: Some(ContextProjection::Edit),
        ..ContextRequest::default()
    };
    PageContext::parse(&request, &answer)
        .ok()
        .as_ref()
        .and_then(KnownDocument::of)
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, answer)) = data.split_first() else {
        return;
    };
    let Ok(value) = page_common::read(MessageType::PageGetContext, answer) else {
        return;
    };
    let known = known_document();
    if let Ok(context) = PageContext::parse_known(&request(selector), &value, known.as_ref()) {
        let _ = context.file_label();
        let _ = context.active_file();
        if let Some(text) = context.text() {
            assert!(text.encode_utf16().count() <= to_usize(MAX_PAGE_DOCUMENT_CHARS));
        }
    }
});
