//! What deleting chats also deletes: their edit checkpoints and their
//! automatic document snapshots (manual and rescue snapshots belong to the
//! file, not the chat, and stay).
//!
//! Both journals are owned by the editing features; this module only drops
//! entries of deleted chats from their indexes and removes the entries'
//! bodies. It checks just the journal envelope (`{version, entries: [..]}`)
//! and fails closed on anything else — the chat is then not deleted either —
//! because rewriting an index it cannot read could drop other chats'
//! recovery data.

use super::{Sessions, StorageError, StorageErrorCode};
use crate::platform::{Clock, Storage};
use protocol::constants::{schema_versions, storage_keys};
use protocol::js;
use serde_json::{Map, Value};

struct Journal {
    index_key: &'static str,
    version: u32,
    code: StorageErrorCode,
    label: &'static str,
}

const EDIT_CHECKPOINTS: Journal = Journal {
    index_key: storage_keys::EDIT_CHECKPOINT_INDEX,
    version: schema_versions::EDIT_CHECKPOINT_JOURNAL,
    code: StorageErrorCode::EditCheckpointIndexInvalid,
    label: "edit-checkpoint",
};

const DOCUMENT_SNAPSHOTS: Journal = Journal {
    index_key: storage_keys::DOCUMENT_SNAPSHOT_INDEX,
    version: schema_versions::DOCUMENT_SNAPSHOT_JOURNAL,
    code: StorageErrorCode::DocumentSnapshotIndexInvalid,
    label: "document-snapshot",
};

impl<S: Storage, C: Clock> Sessions<'_, S, C> {
    /// Removes the entries `remove` selects; returns how many.
    async fn remove_journal_entries(
        &self,
        journal: &Journal,
        remove: impl Fn(&Map<String, Value>) -> bool,
    ) -> Result<usize, StorageError> {
        let Some(index) = self.read_key(journal.index_key).await?.filter(|v| !v.is_null()) else {
            return Ok(0);
        };
        let entries = index
            .get("version")
            .and_then(js::as_number)
            .filter(|v| *v == f64::from(journal.version))
            .and_then(|_| index.get("entries"))
            .and_then(Value::as_array)
            .and_then(|entries| entries.iter().map(Value::as_object).collect::<Option<Vec<_>>>());
        let Some(entries) = entries else {
            return Err(StorageError::new(
                journal.code,
                format!(
                    "The stored {} list is damaged or from an unsupported version, so the chat was not deleted. \
                     Its data was left untouched.",
                    journal.label
                ),
            ));
        };
        type Entries<'e> = Vec<&'e Map<String, Value>>;
        let (removed, kept): (Entries<'_>, Entries<'_>) = entries.into_iter().partition(|entry| remove(entry));
        if removed.is_empty() {
            return Ok(0);
        }
        let mut next = index.as_object().cloned().unwrap_or_default();
        next.insert(
            "entries".into(),
            Value::Array(kept.into_iter().cloned().map(Value::Object).collect()),
        );
        self.write_key(journal.index_key, Value::Object(next)).await?;
        for entry in &removed {
            if let Some(key) = entry.get("bodyKey").and_then(Value::as_str) {
                self.remove_best_effort(key).await;
            }
        }
        Ok(removed.len())
    }

    pub(super) async fn remove_edit_checkpoints(
        &self,
        select: impl Fn(&Map<String, Value>) -> bool,
    ) -> Result<usize, StorageError> {
        self.remove_journal_entries(&EDIT_CHECKPOINTS, select).await
    }

    /// Removes automatic snapshots among those `select` picks.
    pub(super) async fn remove_automatic_snapshots(
        &self,
        select: impl Fn(&Map<String, Value>) -> bool,
    ) -> Result<usize, StorageError> {
        self.remove_journal_entries(&DOCUMENT_SNAPSHOTS, |entry| {
            entry.get("kind").and_then(Value::as_str) == Some("automatic") && select(entry)
        })
        .await
    }
}
