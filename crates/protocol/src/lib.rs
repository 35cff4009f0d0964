//! The message contract of Typst Side Agent.
//!
//! Architecture invariant: this crate is plain Rust with no knowledge of the
//! browser — no web-sys, no wasm exports, no I/O. Everything that crosses a
//! boundary between the side panel, the service worker and the page is defined
//! and validated here, so every other crate agrees on one wire format and the
//! whole contract is tested natively.

pub mod message_type;

pub use message_type::{MessageKind, MessageType};
pub mod page_bridge;
