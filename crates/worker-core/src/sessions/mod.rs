//! The chat repository (schema v2) and the `SESSION_*` requests.
//!
//! Chats are stored exactly as the original stored them, so existing users
//! keep their history:
//!
//! * `typstAgent.sessionIndex.v2` = `{version: 2, sessions: [SessionMeta]}`,
//!   the only list of chats (metadata, no messages);
//! * `typstAgent.sessionBody.v2.<sessionId>.<uuid>` = `{version: 2, id,
//!   messages}`, one immutable body per saved version of a chat (a body
//!   without `.<uuid>` is a legacy key used when the index has no `bodyKey`).
//!
//! A write stores a new body first and then publishes it by rewriting the
//! index; the previous body is removed only afterwards. So a failure at any
//! point leaves the previously published chat readable, and what it leaves
//! behind is an unreferenced body, removed the next time a worker instance
//! first uses the repository. Every operation runs inside the one
//! [`MutationQueue`] of the worker, so concurrent requests never interleave
//! their reads and writes. An index that is corrupt or missing while bodies
//! exist stops every chat operation (`SESSION_INDEX_INVALID`,
//! `SESSION_INDEX_MISSING`) and touches nothing: guessing would risk
//! deleting the user's chats.
//!
//! Messages are normalised to the display schema on every save and import
//! ([`normalize`]); `export`/`import` read and write the portable format.

mod migration;
mod normalize;
mod repository;
mod routes;
#[cfg(test)]
mod tests;
mod transfer;

pub(crate) use routes::route;

use crate::platform::{Clock, Storage};
use crate::storage::MutationQueue;
use std::cell::Cell;

/// Name of a chat created without one.
pub(crate) const NEW_CHAT_NAME: &str = "New chat";
/// Name of an imported chat that has none.
pub(crate) const IMPORTED_CHAT_NAME: &str = "Imported chat";
/// Longest chat name.
pub(crate) const MAX_NAME_CHARS: usize = 200;
/// Longest project id kept from an imported record.
pub(crate) const MAX_PROJECT_ID_CHARS: usize = 256;
/// Longest preview (the first user message) in the index.
pub(crate) const MAX_PREVIEW_CHARS: usize = 160;
/// Longest search text in the index.
pub(crate) const MAX_SEARCH_TEXT_CHARS: usize = 4_000;

/// What lives as long as the worker instance: the mutation queue and whether
/// this instance has already checked and repaired the repository.
#[derive(Default)]
pub(crate) struct SessionStore {
    /// The one queue of every stored-data mutation (settings use it too).
    pub(crate) queue: MutationQueue,
    ready: Cell<bool>,
}

impl SessionStore {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

/// The chat repository over a storage and a clock (time and fresh ids).
pub(crate) struct Sessions<'a, S, C> {
    storage: &'a S,
    clock: &'a C,
    store: &'a SessionStore,
}

impl<'a, S: Storage, C: Clock> Sessions<'a, S, C> {
    pub(crate) fn new(storage: &'a S, clock: &'a C, store: &'a SessionStore) -> Self {
        Sessions { storage, clock, store }
    }
}
