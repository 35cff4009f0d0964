//! The byte-capped, depth-limited first reading of a page answer, under every
//! answer type: any text must be read or refused with a code, never panic,
//! and nothing over the type's cap is ever accepted.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use libfuzzer_sys::fuzz_target;
use protocol::MessageType;

const TYPES: [MessageType; 8] = [
    MessageType::PageGetContext,
    MessageType::PageGetPreview,
    MessageType::PageGetDiagnostics,
    MessageType::PageGetProbe,
    MessageType::PageShowEditPreview,
    MessageType::PageClearEditPreview,
    MessageType::PageApplyEdit,
    MessageType::PageCancelRequest,
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, answer)) = data.split_first() else {
        return;
    };
    let request = TYPES[usize::from(selector) % TYPES.len()];
    let _ = page_common::read(request, answer);
});
