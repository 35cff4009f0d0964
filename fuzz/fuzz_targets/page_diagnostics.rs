//! `PAGE_GET_DIAGNOSTICS` answers: the first reading, then the diagnostics
//! interpreter. Nothing may panic; accepted rows stay inside their bound.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::diagnostics::PageDiagnostics;
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;
use protocol::limits::{MAX_PAGE_DIAGNOSTICS, to_usize};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = page_common::read(MessageType::PageGetDiagnostics, data) else {
        return;
    };
    if let Ok(diagnostics) = PageDiagnostics::parse(&value) {
        assert!(diagnostics.items.len() <= to_usize(MAX_PAGE_DIAGNOSTICS));
        let _ = diagnostics.counts();
        let _ = diagnostics.items_value();
    }
});
