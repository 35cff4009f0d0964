//! Envelope parsing: any JSON must parse or fail with a code, never panic, and
//! anything accepted must serialise back to JSON that parses to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::{ParseOptions, parse_envelope};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, json)) = data.split_first() else {
        return;
    };
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(json) else {
        return;
    };
    let options = ParseOptions {
        bridge: mode & 1 == 1,
        ..ParseOptions::default()
    };
    if let Ok(envelope) = parse_envelope(&value, &options) {
        let again = parse_envelope(&envelope.to_value(), &options);
        assert_eq!(again.as_ref(), Ok(&envelope), "accepted envelopes round-trip");
    }
    // The payload alone, under every type.
    if let Some(payload) = value.get("payload") {
        for &ty in protocol::MessageType::ALL {
            let _ = protocol::parse_payload(ty, payload);
        }
    }
});
