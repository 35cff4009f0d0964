//! Agent runs: admission, the run loop, the waits for the user, and the
//! transcript the worker saves.
//!
//! [`Runs`] is the run state of one worker instance, shared by every message
//! handler: `AI_RUN_RESERVE` and `AI_STREAM_START` go through the
//! [`coordinator`], `AI_STREAM_START` then drives the [`engine`] until the
//! run ends, while `AI_STREAM_CANCEL`, `AI_RUN_STATUS` and the two resolve
//! messages are answered at once from other handlers. Handlers run
//! concurrently on one thread, so the state sits in `RefCell`s that are only
//! borrowed between awaits, never across one.

pub mod coordinator;
pub mod transcript;
pub mod waiters;
