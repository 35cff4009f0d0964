//! The service worker of Typst Side Agent.
//!
//! Architecture invariant: the logic here is plain Rust behind small traits
//! ([`platform::Storage`], [`platform::Tabs`], [`platform::Scripting`],
//! [`platform::Messenger`]) and is tested natively with `cargo test`. Only the
//! `wasm` module touches `chrome.*`, and it stays a thin adapter: it converts
//! values at the boundary and calls into the core. The JavaScript shim
//! (`src/background/service-worker.js`) registers the listeners and queues
//! events until this module is ready; it holds no logic of its own.

// The platform traits use `async fn`; the worker is single-threaded, so the
// futures never need a `Send` bound.
#![allow(async_fn_in_trait)]

pub mod batcher;
pub mod bootstrap;
pub mod cancel;
pub mod context;
pub mod edits;
pub mod envelope;
pub mod journals;
pub mod page_client;
pub mod platform;
pub mod provider;
pub mod recovery;
pub mod runs;
pub mod sessions;
pub mod settings;
pub mod tabs;
pub mod theme;
pub mod title;
pub mod tools;
pub mod typst_reference;
pub mod worker;

#[cfg(test)]
mod fakes;

#[cfg(target_arch = "wasm32")]
mod wasm;
