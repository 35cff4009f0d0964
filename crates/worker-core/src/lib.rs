//! The service worker of Typst Side Agent.
//!
//! Architecture invariant: the logic here is plain Rust behind small traits
//! ([`Storage`], [`Tabs`], [`Scripting`], [`Messenger`], [`Clock`], [`Pages`],
//! [`Network`], [`NetRules`], bundled as [`Platform`]) and is tested natively with `cargo
//! test`. Only the `wasm` module touches `chrome.*`, and it stays a thin
//! adapter: it converts values at the boundary and calls into the core. The
//! JavaScript shim (`src/background/service-worker.js`) registers the
//! listeners and queues events until this module is ready; it holds no logic
//! of its own.
//!
//! Every module is private. What the crate offers is only what an adapter
//! needs to host the worker, named below: the [`Worker`], the platform it
//! runs on, the cancellation its network adapter honours, and the tab
//! events. The `wasm` module is that adapter in the extension; a native
//! build sees the same surface.

// The platform traits use `async fn`; the worker is single-threaded, so the
// futures never need a `Send` bound.
#![allow(async_fn_in_trait)]
#![warn(missing_docs, unreachable_pub)]

mod agent;
mod batcher;
mod bootstrap;
mod cancel;
mod context;
mod edits;
mod envelope;
mod integrations;
mod journals;
mod mcp;
mod page_client;
mod platform;
mod provider;
mod quick_attach;
mod race;
mod recovery;
mod recovery_tabs;
mod registries;
mod run_config;
mod runs;
mod sender_gate;
mod sessions;
mod settings;
mod startup;
mod storage;
mod tabs;
mod theme;
mod title;
mod tools;
mod typst_reference;
mod worker;

#[cfg(test)]
mod fakes;
#[cfg(test)]
mod panel_contract_tests;

#[cfg(target_arch = "wasm32")]
mod wasm;

pub use cancel::{CallbackGuard, Cancellation, Cancelled};
pub use platform::{
    BrowserSender, BrowserSenderTab, Clock, HttpRequest, HttpResponse, Messenger, NetRules, Network, NetworkError,
    Pages, Platform, PlatformError, Registration, ResponseBody, Scripting, Storage, Tab, Tabs, World,
};
pub use tabs::{on_activated, on_history_state_updated, on_updated};
pub use worker::Worker;
// The exports the JavaScript shim calls, named as the crate's own surface
// rather than left as public items of a private module.
#[cfg(target_arch = "wasm32")]
pub use wasm::{bootstrap, handle_message, history_state_updated, start, tab_activated, tab_updated};
