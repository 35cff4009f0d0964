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
