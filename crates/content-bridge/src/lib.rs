//! The page contract of Typst Side Agent.
//!
//! Architecture invariant: the page scripts only read raw facts from typst.app
//! and CodeMirror; every decision about those facts is made here, in plain
//! Rust that the worker calls and that is tested natively. This crate builds
//! the requests the worker sends to a page and checks and interprets each
//! answer. It knows nothing of `chrome.*` and exports nothing to wasm.
//!
//! Layers: `protocol::page_response` checks each answer's fields and bounds;
//! the modules here check what only the request and the answer together can
//! tell (a numbered range is the one asked for, an image is what it claims)
//! and turn the answer into the values the worker works with.
//!
//! - [`answer`]: the byte-capped, depth-limited first reading of an answer's
//!   JSON text ([`parse_page_answer`]).
//! - [`request`]: request envelopes, answer unwrapping, [`PageError`].
//! - [`context`]: `PAGE_GET_CONTEXT` ([`context::PageContext`]).
//! - [`workspace`]: the file identity, Files tree and panel state in a context.
//! - [`diagnostics`]: `PAGE_GET_DIAGNOSTICS` ([`diagnostics::PageDiagnostics`]).
//! - [`preview`]: `PAGE_GET_PREVIEW` ([`preview::PagePreview`]).
//! - [`probe`]: `PAGE_GET_PROBE` ([`probe::PageProbe`]).
//! - [`edit_requests`]: `PAGE_SHOW_EDIT_PREVIEW`, `PAGE_APPLY_EDIT` and
//!   `PAGE_CLEAR_EDIT_PREVIEW` (request checks, [`edit_requests::PageEditError`]).
//!
//! The page scripts enforce the same bounds: they read them from
//! `protocol-constants.js`, which `cargo xtask codegen` generates from the
//! `protocol` crate (and `cargo xtask verify` keeps current).

#![warn(missing_docs, unreachable_pub)]

pub mod answer;
pub mod context;
pub mod diagnostics;
pub mod edit_requests;
pub mod preview;
pub mod probe;
pub mod request;
pub mod workspace;

pub use answer::{max_answer_bytes, parse_page_answer};
pub use request::{PageError, page_request, unwrap_page_response};
