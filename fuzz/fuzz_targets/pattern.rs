//! Schema patterns: any pattern text is compiled or refused (syntax or unsafe)
//! without panicking, and compiled patterns search without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::js_regex::{MAX_PATTERN_CHARS, compile_pattern, is_linear_pattern_subset};

fuzz_target!(|data: &[u8]| {
    let pattern = String::from_utf8_lossy(data);
    if pattern.encode_utf16().count() > MAX_PATTERN_CHARS {
        return;
    }
    let linear = is_linear_pattern_subset(&pattern);
    if let Ok(regex) = compile_pattern(&pattern) {
        assert!(linear, "a compiled pattern is inside the linear subset");
        for haystack in ["", "abc", "A1_ \n\u{2028}😀é", &pattern] {
            let _ = regex.is_match(haystack);
        }
    }
});
