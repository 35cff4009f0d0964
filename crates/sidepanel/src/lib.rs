//! The side panel of Typst Side Agent.
//!
//! Architecture invariant: what the panel does is decided by plain Rust,
//! tested natively. [`app`] holds every flow (tab gating, chats, settings,
//! attachments, the send pipeline, run events, Stop, reconnect) behind the
//! [`app::Shell`] trait; the pure models it uses live beside it ([`view`],
//! [`settings`], [`sessions`], [`attachments`], [`shortcut`], [`status`],
//! [`transitions`], [`run_ui`], [`history`]). The wasm-only modules build DOM
//! through web-sys, bind `chrome.*`, and implement the shell. The panel never
//! trusts a worker answer it did not ask for: responses must echo the
//! request's id, and run events must carry the active run's id.

pub mod app;
pub mod attachments;
pub mod chat;
pub mod edits;
pub mod history;
pub mod run_ui;
pub mod sessions;
pub mod settings;
pub mod shortcut;
pub mod status;
pub mod transitions;
pub mod view;
pub mod worker_client;

#[cfg(target_arch = "wasm32")]
pub mod dom;
#[cfg(target_arch = "wasm32")]
mod shell;
#[cfg(target_arch = "wasm32")]
mod wasm;
