//! The two recovery journals the worker keeps beside the chats: edit
//! checkpoints (one pre-run copy of the document per agent run that wrote to
//! the editor, so the response can be reverted) and document snapshots
//! (automatic copies after completed runs and rescue copies before a restore).
//!
//! Both follow the chat repository's discipline: an index key lists the
//! entries, each body lives under its own key, bodies are written before the
//! index publishes them and removed only after it stopped referencing them.
//! Every read-modify-write holds the worker's one [`MutationQueue`], and an
//! index that fails validation stops every operation on that journal without
//! touching anything (the bodies may be the only copy of the user's work).
//! The storage formats are the original's, so existing users keep their data.

mod cascade;
mod checkpoints;
mod records;
mod snapshots;
mod store;

#[cfg(test)]
mod tests;

pub(crate) use cascade::forget_chats_unlocked;
pub(crate) use checkpoints::{CheckpointRecord, Checkpoints, StageInput};
pub(crate) use snapshots::{SnapshotInput, SnapshotMeta, SnapshotRecord, Snapshots};
pub(crate) use store::{DocumentState, JournalError, JournalStore};
