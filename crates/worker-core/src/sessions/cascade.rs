//! What deleting chats also deletes: their edit checkpoints and their
//! automatic document snapshots (manual and rescue snapshots belong to the
//! file, not the chat, and stay).
//!
//! The journals themselves live in [`crate::journals`]; this module only
//! asks them to drop the entries of deleted chats while the caller already
//! holds the mutation queue. The journals validate their whole index first
//! and fail closed on anything they could not have written — the chat is
//! then not deleted either — because rewriting an index they cannot read
//! could drop other chats' recovery data.

use super::{Sessions, StorageError};
use crate::journals::{checkpoints, snapshots};
use crate::platform::{Clock, Storage};
use protocol::document_snapshot::SnapshotKind;
use serde_json::{Map, Value};

/// Runs `select` on the stored form of an entry, so callers can match on
/// the same field names the storage format uses.
fn selects(value: &Value, select: &impl Fn(&Map<String, Value>) -> bool) -> bool {
    value.as_object().is_some_and(select)
}

impl<S: Storage, C: Clock> Sessions<'_, S, C> {
    pub(super) async fn remove_edit_checkpoints(
        &self,
        select: impl Fn(&Map<String, Value>) -> bool,
    ) -> Result<usize, StorageError> {
        checkpoints::remove_where_unlocked(self.storage, |meta| selects(&meta.to_value(), &select)).await
    }

    /// Removes automatic snapshots among those `select` picks.
    pub(super) async fn remove_automatic_snapshots(
        &self,
        select: impl Fn(&Map<String, Value>) -> bool,
    ) -> Result<usize, StorageError> {
        snapshots::remove_where_unlocked(self.storage, |meta| {
            meta.kind == SnapshotKind::Automatic && selects(&meta.to_value(), &select)
        })
        .await
    }
}
