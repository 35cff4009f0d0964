//! The message contract of Typst Side Agent.
//!
//! Architecture invariant: this crate is plain Rust with no knowledge of the
//! browser — no web-sys, no wasm exports, no I/O, no clock and no randomness
//! (callers pass `now` and fresh ids in). Everything that crosses a boundary
//! between the side panel, the service worker and the page is defined and
//! validated here, so every other crate agrees on one wire format and the
//! whole contract is tested natively.

pub mod active_file;
pub mod constants;
pub mod diff_preview;
pub mod document_snapshot;
pub mod edit_checkpoint;
pub mod endpoint_policy;
pub mod error;
pub mod js;
pub mod js_regex;
pub mod limits;
pub mod message_type;
pub mod messages;
pub mod page_bridge;
pub mod payloads;
pub mod project_tree;
pub mod quick_attach;
pub mod tool_schema;
pub mod trust_policy;
mod wire;

pub use error::{ErrorCode, ProtocolError};
pub use message_type::{MessageKind, MessageType};
pub use messages::{Envelope, ParseOptions, Payload, parse_envelope, parse_payload};
