//! `PAGE_GET_PROBE` answers: the first reading, then the probe interpreter.
//! Nothing may panic.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::probe::parse_probe;
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = page_common::read(MessageType::PageGetProbe, data) else {
        return;
    };
    let _ = parse_probe(&value);
});
