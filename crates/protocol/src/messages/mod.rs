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

// The response reader lives beside the other reader-side rules; these paths
// stay for callers that name it through `messages`.
pub use crate::response::{Responder, UnwrapError, unwrap_response};
