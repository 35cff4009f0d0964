//! Envelopes and payload parsing: the exact, fail-closed message contract.
//!
//! Every message is `{type, requestId?, runId?, payload}` (the page bridge adds
//! `nonce`). [`parse_envelope`] turns untrusted JSON into an [`Envelope`] with a
//! typed [`Payload`], or a [`ProtocolError`] carrying the original's code and
//! the JSON path of the first problem. [`Envelope::to_value`] writes the exact
//! wire JSON back. Nothing here panics, whatever the input.

mod envelope;
mod payload;

pub use envelope::{Envelope, ParseOptions, parse_envelope};
pub use payload::{Payload, parse_payload};

use crate::error::{ErrorCode, ProtocolError};
use crate::message_type::MessageType;
use crate::payloads::ResponseError;
use serde_json::Value;

/// Why [`unwrap_response`] produced no data.
#[derive(Debug, Clone, PartialEq)]
pub enum UnwrapError {
    /// The message is not a valid `PROTOCOL_RESPONSE`.
    Invalid(ProtocolError),
    /// The response reports a failure.
    Failed(ResponseError),
}

/// `unwrapResponse`: the `data` of a successful response.
pub fn unwrap_response(value: &Value) -> Result<Value, UnwrapError> {
    let envelope =
        parse_envelope(value, &ParseOptions::expecting(MessageType::Response)).map_err(UnwrapError::Invalid)?;
    match envelope.payload {
        Payload::Response(response) => response.into_result().map_err(UnwrapError::Failed),
        _ => Err(UnwrapError::Invalid(ProtocolError::new(
            ErrorCode::UnexpectedMessageType,
            "$.type",
            "Expected PROTOCOL_RESPONSE",
        ))),
    }
}
