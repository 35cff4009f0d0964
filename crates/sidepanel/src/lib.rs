//! The side panel of Typst Side Agent.
//!
//! Architecture invariant: what the panel shows is decided by plain Rust in
//! [`view`] from plain values (the active tab, the theme, the worker's
//! answers), tested natively; the `wasm` module only builds DOM nodes through
//! web-sys and talks to the worker through `chrome.runtime` bindings. The
//! panel never trusts a worker answer it did not ask for: responses must echo
//! the request's id.

pub mod chat;
pub mod view;
pub mod worker_client;

#[cfg(target_arch = "wasm32")]
pub mod dom;
#[cfg(target_arch = "wasm32")]
mod wasm;
