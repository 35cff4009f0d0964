//! The panel's flows driven natively, one file per flow, over the fake shell
//! and worker of `fakes.rs`.

mod fakes;
mod recorded;

mod attachments;
mod chat_names;
mod chats;
mod integrations;
mod quick_attach;
mod reconnect;
mod recovery;
mod run_events;
mod send;
mod session_manager;
mod settings;
mod start;
mod stop;
