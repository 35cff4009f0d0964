//! `PAGE_GET_PREVIEW` answers: the first reading, then the preview
//! interpreter (the image bytes are decoded and measured). Nothing may panic.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::preview::PagePreview;
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = page_common::read(MessageType::PageGetPreview, data) else {
        return;
    };
    let _ = PagePreview::parse(&value);
});
