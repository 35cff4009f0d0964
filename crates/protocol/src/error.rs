//! Typed validation errors, and the catalogue's place in the public API.
//!
//! [`ErrorCode`] (defined in `codes.rs`) is the one catalogue of wire codes.
//! A rejected message carries a code, the JSON path of the offending value
//! (`$`, `$.payload` or `$.payload.field[2].x`) and a human sentence
//! ([`ProtocolError`]). Callers branch on the code; the sentence is for people.

pub use crate::codes::ErrorCode;
use serde::Serialize;
use std::fmt;

/// A rejected message: `{code, path, message}` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtocolError {
    /// What kind of failure it is; callers branch on this.
    pub code: ErrorCode,
    /// The JSON path of the offending value (`$`, `$.payload.x[2]`).
    pub path: String,
    /// A sentence for people.
    pub message: String,
}

impl ProtocolError {
    /// A rejection at `path`.
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The stable code string.
    pub fn code_str(&self) -> &'static str {
        self.code.as_str()
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.code, self.path, self.message)
    }
}

impl std::error::Error for ProtocolError {}

/// The general response codes as `&str`, for callers that build error
/// bodies by hand. Each is the [`ErrorCode`] variant's string, not a copy.
pub mod response_codes {
    use super::ErrorCode;

    /// An error without a code of its own.
    pub const INTERNAL_ERROR: &str = ErrorCode::InternalError.as_str();
    /// Default code when a failed response carries none.
    pub const REQUEST_FAILED: &str = ErrorCode::RequestFailed.as_str();
    /// A valid message type the worker has no route for.
    pub const UNROUTED_MESSAGE: &str = ErrorCode::UnroutedMessage.as_str();
    /// The run was cancelled.
    pub const CANCELLED: &str = ErrorCode::Cancelled.as_str();
    /// An operation ran out of time.
    pub const TIMEOUT: &str = ErrorCode::Timeout.as_str();
}
