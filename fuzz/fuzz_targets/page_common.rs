//! What the page-answer targets share: the answer text a fuzz input stands
//! for, and the check every first reading must pass.

use content_bridge::{PageError, max_answer_bytes, parse_page_answer};
use protocol::MessageType;
use serde_json::Value;

/// The request id every seed answers.
pub const REQUEST_ID: &str = "r";

/// The first reading of `bytes` as the answer to `request`, checked: an
/// accepted answer fitted its type's cap, and a refusal has a non-empty code.
pub fn read(request: MessageType, bytes: &[u8]) -> Result<Value, PageError> {
    let text = String::from_utf8_lossy(bytes);
    let result = parse_page_answer(request, REQUEST_ID, Some(&text));
    match &result {
        Ok(_) => assert!(
            text.len() <= max_answer_bytes(request),
            "an answer over the cap was read"
        ),
        Err(error) => assert!(!error.code.is_empty(), "a refusal without a code"),
    }
    result
}
