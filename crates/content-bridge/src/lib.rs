//! The page contract of Typst Side Agent.
//!
//! Architecture invariant: the page scripts only read raw facts from typst.app
//! and CodeMirror; every decision about those facts is made here, in plain
//! Rust that the worker calls and that is tested natively. This crate builds
//! the requests the worker sends to a page and checks and interprets each
//! answer. It knows nothing of `chrome.*` and exports nothing to wasm.

pub mod probe;
pub mod request;

pub use request::{PageError, page_request, unwrap_page_response};
