//! The side panel of Typst Side Agent.
//!
//! Architecture invariant: what the panel does is decided by plain Rust,
//! tested natively. `app` holds every flow (tab gating, chats, settings,
//! Settings → Tools and MCP, Settings → Sessions, attachments, the send
//! pipeline, run events,
//! Stop, reconnect, document recovery) behind its `Shell` trait. The
//! wasm-only modules build DOM through web-sys, bind `chrome.*` and
//! implement the shell. The panel never
//! trusts a worker answer it did not ask for: responses must echo the
//! request's id, and run events must carry the active run's id.
//!
//! A feature lives in up to three layers under one name: the plain decisions
//! at the crate root (`settings`, `integrations`, `integration_forms`,
//! `mcp_probe`, `sessions`, `session_manager`, `attachments`, `quick_attach`,
//! `recovery`, `edit_review`,
//! `tab_gate`, `toast`, `shortcut`, `transitions`, `run_ui`, `history`,
//! `worker_client`), its flow in `app/` (`app/settings.rs`,
//! `app/recovery.rs`, …) and its DOM in `shell/` or `chat/view/` (wasm
//! only). "View" names only DOM code (`chat/view/`, `ChatView`,
//! `ToastView`); a plain record is named for what it holds.
//!
//! Only these files touch wasm-bindgen, web-sys, js-sys or gloo: `wasm.rs`
//! (the one export), `dom.rs` (the element builder), `shell/` and
//! `chat/view/`.

#![warn(missing_docs, unreachable_pub)]
// Natively this crate is only its tests: nothing outside them reaches the
// modules, so dead-code analysis is left to the wasm build, where the panel's
// one export roots everything that ships and unused code is an error.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

mod about;
mod app;
mod attachments;
mod broadcast_gate;
mod chat;
mod edit_review;
mod history;
mod integration_forms;
mod integrations;
mod links;
mod mcp_probe;
mod quick_attach;
mod recovery;
mod run_ui;
mod session_manager;
mod sessions;
mod settings;
mod shortcut;
mod tab_gate;
mod toast;
mod transitions;
mod worker_client;

#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
mod shell;
#[cfg(target_arch = "wasm32")]
mod wasm;

#[cfg(target_arch = "wasm32")]
pub use wasm::start;
