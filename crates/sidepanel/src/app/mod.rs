//! The panel's behaviour: tab gating, chats, settings, attachments, the send
//! pipeline, run events, Stop and reconnect, and document recovery.
//!
//! Everything here is plain Rust behind the `Shell` trait (`shell.rs`),
//! which bundles what the browser provides. `controller.rs` holds the
//! `Controller` and its state; each flow has its own file, all of them
//! methods on the one controller: `tab_sync.rs` (following the active tab),
//! `chats.rs` (opening, creating, renaming, deleting chats), `chat_names.rs`
//! (automatic names), `settings.rs` (theme, General, models, the Edits
//! mode), `integrations.rs` (Settings → Tools and MCP: the two registries,
//! their forms and the probe), `turns.rs` (one registry change at a time),
//! `session_manager.rs` (Settings → Sessions: every project's chats,
//! export and import), `attachments.rs` (the Context menu), `quick_attach.rs`
//! (the page's "Add to agent" buttons), `send.rs` (the send pipeline),
//! `run_events.rs` (a run's events and its end), `stop.rs` (Stop,
//! and stopping before navigation), `reconnect.rs` (a run still going when
//! the panel opens) and `recovery.rs` (Revert and snapshots).
//!
//! Rules that keep the asynchronous flows honest: no `RefCell` borrow is
//! held across an `await` or a call into the shell (a shell call may re-enter
//! the controller through a DOM event); every flow that awaits re-checks the
//! identity it captured (tab, project, chat, history) through
//! `Transitions` epochs and send tokens before it acts on the answer.

mod attachments;
mod chat_names;
mod chats;
mod controller;
mod integrations;
mod quick_attach;
mod reconnect;
mod recovery;
mod run_events;
mod send;
mod session_manager;
mod settings;
mod shell;
mod stop;
mod tab_sync;
mod turns;

#[cfg(test)]
mod tests;

/// What the rest of the panel names of `app/`: the wasm shell implements
/// the shell's traits and drives the controller, and the tests do the same
/// with fakes. Natively, outside the tests, nothing does.
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) use controller::Controller;
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) use recovery::RestoreRefusal;
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) use shell::{BrowserTab, Chat, ComposerState, Integrations, Ports, SessionManager, SettingsTab, Ui};
