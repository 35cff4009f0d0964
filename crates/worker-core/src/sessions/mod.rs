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
//! Version-1 chats are moved in on first use ([`migration`]) without losing
//! one: a record the schema refuses is backed up as stored
//! (`typstAgent.sessionMigrationBackup.v2`) and migrated repaired
//! ([`repair`]), under the ids the original derives ([`fingerprint`]).
//! `original_tests` holds this to profiles the original itself wrote.

mod fingerprint;
mod limits;
mod migration;
mod normalize;
#[cfg(test)]
mod original_tests;
mod repair;
mod repository;
mod routes;
mod store;
#[cfg(test)]
mod tests;
mod transfer;

pub(crate) use routes::{route, storage_status};
pub(crate) use store::{SessionStore, Sessions};
