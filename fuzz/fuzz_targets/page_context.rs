//! `PAGE_GET_CONTEXT` answers: the first reading, then the context
//! interpreter for a request shape chosen by the first byte. Nothing may
//! panic; an accepted context's text stays inside the page document bound.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::context::PageContext;
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;
use protocol::limits::{MAX_PAGE_DOCUMENT_CHARS, to_usize};
use protocol::payloads::{ContextProjection, ContextRequest};

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
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, answer)) = data.split_first() else {
        return;
    };
    let Ok(value) = page_common::read(MessageType::PageGetContext, answer) else {
        return;
    };
    if let Ok(context) = PageContext::parse(&request(selector), &value) {
        let _ = context.file_label();
        let _ = context.active_file();
        if let Some(text) = context.text() {
            assert!(text.encode_utf16().count() <= to_usize(MAX_PAGE_DOCUMENT_CHARS));
        }
    }
});
