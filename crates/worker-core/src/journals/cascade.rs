//! What deleting chats also deletes: their edit checkpoints and their
//! automatic document snapshots (manual and rescue snapshots belong to the
//! file, not the chat, and stay).
//!
//! The chat repository calls this while it already holds the mutation
//! queue, before it publishes the shorter chat index. Both journals validate
//! their whole index first and fail closed on anything they could not have
//! written — the chat is then not deleted either — because rewriting an
//! index they cannot read could drop other chats' recovery data.

use crate::journals::{checkpoints, snapshots};
use crate::platform::Storage;
use crate::storage::StorageError;
use protocol::document_snapshot::SnapshotKind;
use serde_json::Value;

/// Whether a journal entry, in its stored form, has `field` equal to
/// `value` (the same field names the storage format uses: `sessionId`,
/// `projectId`).
fn stored_field_is(entry: &Value, field: &str, value: &str) -> bool {
    entry.get(field).and_then(Value::as_str) == Some(value)
}

/// Drops the edit checkpoints and automatic snapshots whose `field` is
/// `value`. The caller holds the mutation queue.
pub(crate) async fn forget_chats_unlocked(
    storage: &impl Storage,
    field: &str,
    value: &str,
) -> Result<(), StorageError> {
    checkpoints::remove_where_unlocked(storage, |meta| stored_field_is(&meta.to_value(), field, value)).await?;
    snapshots::remove_where_unlocked(storage, |meta| {
        meta.kind == SnapshotKind::Automatic && stored_field_is(&meta.to_value(), field, value)
    })
    .await?;
    Ok(())
}
