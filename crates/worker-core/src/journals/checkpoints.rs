//! The edit-checkpoint journal (v1): one pre-run copy of the document per
//! agent run that wrote to the editor, so the response can be reverted.
//!
//! The journal is write-ahead. Before the run's first page commit the worker
//! stages the entry as `prepared` (the body holds the text before the run,
//! the index names the state the page is about to reach); only a durable
//! stage lets the edit go to the page. After the page confirms, the entry is
//! committed to `applied`; later writes of the run go through `prepared`
//! again with the previous final state kept, so a crash at any point leaves
//! an entry that says exactly which two document states are possible. A
//! revert moves `applied` → `reverting` → `reverted` (body removed) or back to
//! `applied` when the page refuses. The revert cascade reconciles entries left
//! `prepared` or `reverting` by comparing the live document with them.
//!
//! Storage: `typstAgent.editCheckpointIndex.v1` = `{version: 1, entries}` in
//! journal (response) order, bodies at
//! `typstAgent.editCheckpointBody.v1.<id>` = `{version: 1, id, beforeText}`.
//! At most 5 entries and 4 MiB of bodies; staging evicts reverted entries
//! first, then the oldest, but never an entry that is mid-transaction.

use crate::journals::records::{
    body_text, body_value, bounded_string, hash_value, index_entries, is_sha256, length_value, non_negative, nullable,
    optional_value, string_field,
};
use crate::journals::store::{
    DocumentState, JournalError, JournalStore, read_key, remove_best_effort, remove_orphans, write_key,
};
use crate::platform::{Clock, Storage};
use crate::storage::{StorageAction, StorageError, StorageErrorCode, json_bytes};
use protocol::ErrorCode;
use protocol::constants::{schema_versions, storage_keys};
use protocol::document_snapshot::is_valid_record_id;
use protocol::edit_checkpoint::{
    DEFAULT_EDIT_FILE_LABEL, EditCheckpointStatus, PublicCheckpointStatus, PublicEditCheckpoint,
};
use protocol::js;
use protocol::limits::{self, to_usize};
use serde_json::{Map, Value, json};

const VERSION: u32 = schema_versions::EDIT_CHECKPOINT_JOURNAL;
/// Longest run, chat, project and call id an entry keeps.
const MAX_IDENTITY_CHARS: u32 = 256;
/// A later write's call id is kept to this length (as the original did).
const MAX_UPDATED_CALL_ID_CHARS: usize = 128;

/// What a refused write of the checkpoint lifecycle (stage, update, commit,
/// rollback) tells the user was not saved.
const SAVE: StorageAction = StorageAction::SaveCheckpoint;

/// One entry of the index (`CheckpointMeta`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CheckpointMeta {
    pub(crate) id: String,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
    pub(crate) run_id: String,
    pub(crate) call_id: String,
    pub(crate) file_label: String,
    pub(crate) status: EditCheckpointStatus,
    /// `previousStatus: 'applied'`: a prepared entry that was applied before
    /// this write began, so rolling it back returns to `applied`.
    pub(crate) previously_applied: bool,
    /// The document before the run (what the body holds).
    pub(crate) before: DocumentState,
    /// The document after the run's last committed write.
    pub(crate) after: Option<DocumentState>,
    /// The state a prepared write will reach if the page applies it.
    pub(crate) pending_after: Option<DocumentState>,
    /// The state the document is in if the prepared write never landed.
    pub(crate) previous_after: Option<DocumentState>,
    pub(crate) created_at: f64,
    pub(crate) updated_at: f64,
    pub(crate) approx_bytes: f64,
    pub(crate) body_key: Option<String>,
}

/// An entry with its body's text (`None` when the body is gone or damaged).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CheckpointRecord {
    pub(crate) meta: CheckpointMeta,
    pub(crate) before_text: Option<String>,
}

/// What staging needs: the entry's identity, the text before the run's first
/// write, and the state that write will produce.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StageInput {
    /// `edit-<uuid>`.
    pub(crate) id: String,
    pub(crate) project_id: String,
    pub(crate) session_id: String,
    pub(crate) run_id: String,
    pub(crate) call_id: String,
    /// The focused file; empty means [`DEFAULT_EDIT_FILE_LABEL`].
    pub(crate) file_label: String,
    pub(crate) before_text: String,
    pub(crate) pending_after: DocumentState,
}

/// What [`Checkpoints::rollback_preparation`] did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rollback {
    /// No prepared entry with that id: nothing to undo.
    Unchanged,
    /// The entry went back to its previous `applied` state.
    Restored(PublicEditCheckpoint),
    /// The entry had never been applied and was removed with its body.
    Removed,
}

fn pair(map: &Map<String, Value>, hash_key: &str, length_key: &str) -> Result<Option<DocumentState>, ()> {
    let hash = nullable(map, hash_key, hash_value)?;
    let length = nullable(map, length_key, length_value)?;
    match (hash, length) {
        (Some(hash), Some(length)) => Ok(Some(DocumentState { hash, length })),
        (None, None) => Ok(None),
        // Half a state is never valid in any status.
        _ => Err(()),
    }
}

impl CheckpointMeta {
    /// Parses and validates one stored entry, including the invariants of
    /// its status; `None` for anything the journal could not have written.
    pub(crate) fn parse(value: &Value) -> Option<CheckpointMeta> {
        let map = value.as_object()?;
        let id = string_field(map, "id").filter(|id| is_valid_record_id(id))?;
        let status = EditCheckpointStatus::from_wire(string_field(map, "status")?)?;
        let previously_applied = match string_field(map, "previousStatus")? {
            "" => false,
            "applied" => true,
            _ => return None,
        };
        let body_key = nullable(map, "bodyKey", |v| {
            v.as_str()
                .filter(|key| key.starts_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX))
                .map(str::to_owned)
        })
        .ok()?;
        let identity = |key: &str| bounded_string(map, key, MAX_IDENTITY_CHARS);
        let before = DocumentState {
            hash: map.get("beforeHash").and_then(hash_value)?,
            length: map.get("beforeLength").and_then(length_value)?,
        };
        let meta = CheckpointMeta {
            id: id.to_owned(),
            project_id: identity("projectId")?,
            session_id: identity("sessionId")?,
            run_id: identity("runId")?,
            call_id: identity("callId")?,
            file_label: bounded_string(map, "fileLabel", limits::MAX_FILE_LABEL_CHARS)?,
            status,
            previously_applied,
            before,
            after: pair(map, "afterHash", "afterLength").ok()?,
            pending_after: pair(map, "pendingAfterHash", "pendingAfterLength").ok()?,
            previous_after: pair(map, "previousAfterHash", "previousAfterLength").ok()?,
            created_at: non_negative(map, "createdAt")?,
            updated_at: non_negative(map, "updatedAt")?,
            approx_bytes: non_negative(map, "approxBytes")?,
            body_key,
        };
        meta.satisfies_status_invariants().then_some(meta)
    }

    /// The invariants of §7.5: what each status must and must not carry.
    fn satisfies_status_invariants(&self) -> bool {
        let has_body = self.body_key.is_some();
        let transaction_clear =
            !self.previously_applied && self.pending_after.is_none() && self.previous_after.is_none();
        match self.status {
            EditCheckpointStatus::Prepared => {
                has_body
                    && self.pending_after.is_some()
                    && self.previous_after.is_some()
                    && self.after.is_some() == self.previously_applied
            }
            EditCheckpointStatus::Applied | EditCheckpointStatus::Reverting => {
                has_body && self.after.is_some() && transaction_clear
            }
            EditCheckpointStatus::Reverted => {
                !has_body && self.approx_bytes == 0.0 && self.after.is_some() && transaction_clear
            }
        }
    }

    /// The stored form (field names and `null`s as the original wrote them).
    pub(crate) fn to_value(&self) -> Value {
        let hash = |state: &Option<DocumentState>| optional_value(state.as_ref().map(|s| s.hash.clone()));
        let length = |state: &Option<DocumentState>| optional_value(state.as_ref().map(|s| s.length));
        json!({
            "id": self.id,
            "projectId": self.project_id,
            "sessionId": self.session_id,
            "runId": self.run_id,
            "callId": self.call_id,
            "fileLabel": self.file_label,
            "status": self.status.as_str(),
            "previousStatus": if self.previously_applied { "applied" } else { "" },
            "beforeHash": self.before.hash,
            "beforeLength": self.before.length,
            "afterHash": hash(&self.after),
            "afterLength": length(&self.after),
            "pendingAfterHash": hash(&self.pending_after),
            "pendingAfterLength": length(&self.pending_after),
            "previousAfterHash": hash(&self.previous_after),
            "previousAfterLength": length(&self.previous_after),
            "createdAt": js::number_value(self.created_at),
            "updatedAt": js::number_value(self.updated_at),
            "approxBytes": js::number_value(self.approx_bytes),
            "bodyKey": optional_value(self.body_key.clone()),
        })
    }

    /// The receipt the panel shows; only applied and reverted entries have one.
    pub(crate) fn receipt(&self) -> Option<PublicEditCheckpoint> {
        let status = match self.status {
            EditCheckpointStatus::Applied => PublicCheckpointStatus::Applied,
            EditCheckpointStatus::Reverted => PublicCheckpointStatus::Reverted,
            EditCheckpointStatus::Prepared | EditCheckpointStatus::Reverting => return None,
        };
        Some(PublicEditCheckpoint {
            id: self.id.clone(),
            status,
            file_label: self.file_label.clone(),
            created_at: self.created_at,
            unavailable_reason: None,
        })
    }

    fn is_in_flight(&self, now: f64) -> bool {
        matches!(
            self.status,
            EditCheckpointStatus::Prepared | EditCheckpointStatus::Reverting
        ) && now - self.updated_at < f64::from(limits::EDIT_CHECKPOINT_IN_FLIGHT_TTL_MS)
    }
}

/// The body key of checkpoint `id`.
pub(crate) fn body_key(id: &str) -> String {
    format!("{}{id}", storage_keys::EDIT_CHECKPOINT_BODY_PREFIX)
}

fn index_invalid() -> StorageError {
    StorageError::new(
        StorageErrorCode::EditCheckpointIndexInvalid,
        "The stored list of revert checkpoints is damaged or from an unsupported version. \
         The saved document copies were left untouched.",
    )
}

fn not_found() -> JournalError {
    JournalError::new(
        ErrorCode::EditCheckpointNotFound,
        "This revert checkpoint is no longer stored.",
    )
}

fn state_invalid(message: impl Into<String>) -> JournalError {
    JournalError::new(ErrorCode::EditCheckpointStateInvalid, message)
}

fn total_bytes(entries: &[CheckpointMeta]) -> f64 {
    entries.iter().map(|entry| entry.approx_bytes).sum()
}

const MAX_BYTES: f64 = limits::MAX_EDIT_CHECKPOINT_TOTAL_BYTES as f64;

/// Reads and validates the whole index; a missing index is an empty journal.
pub(crate) async fn load_index(storage: &impl Storage) -> Result<Vec<CheckpointMeta>, StorageError> {
    let Some(index) = read_key(storage, storage_keys::EDIT_CHECKPOINT_INDEX)
        .await?
        .filter(|value| !value.is_null())
    else {
        return Ok(Vec::new());
    };
    let entries = index_entries(&index, VERSION)
        .filter(|entries| entries.len() <= to_usize(limits::MAX_EDIT_CHECKPOINTS))
        .ok_or_else(index_invalid)?;
    let parsed = entries
        .iter()
        .map(CheckpointMeta::parse)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(index_invalid)?;
    if total_bytes(&parsed) > MAX_BYTES {
        return Err(index_invalid());
    }
    Ok(parsed)
}

async fn write_index(storage: &impl Storage, entries: &[CheckpointMeta]) -> Result<(), StorageError> {
    let entries: Vec<Value> = entries.iter().map(CheckpointMeta::to_value).collect();
    write_key(
        storage,
        storage_keys::EDIT_CHECKPOINT_INDEX,
        json!({ "version": VERSION, "entries": entries }),
    )
    .await
}

async fn read_body(storage: &impl Storage, meta: &CheckpointMeta) -> Result<Option<String>, StorageError> {
    let Some(key) = &meta.body_key else {
        return Ok(None);
    };
    let body = read_key(storage, key).await?;
    Ok(body_text(body, VERSION, &meta.id, "beforeText"))
}

/// Removes the entries `select` picks and their bodies, for a caller that
/// already holds the mutation queue (chat deletion). Returns how many.
pub(crate) async fn remove_where_unlocked(
    storage: &impl Storage,
    select: impl Fn(&CheckpointMeta) -> bool,
) -> Result<usize, StorageError> {
    let entries = load_index(storage).await?;
    let (removed, kept): (Vec<CheckpointMeta>, Vec<CheckpointMeta>) = entries.into_iter().partition(|e| select(e));
    if removed.is_empty() {
        return Ok(0);
    }
    write_index(storage, &kept).await?;
    for entry in &removed {
        if let Some(key) = &entry.body_key {
            remove_best_effort(storage, key).await;
        }
    }
    Ok(removed.len())
}

fn validate_stage(input: &StageInput) -> Result<(), JournalError> {
    let invalid = |message: &str| Err(JournalError::new(ErrorCode::InvalidEditCheckpoint, message));
    if !is_valid_record_id(&input.id) {
        return invalid("The revert checkpoint id is invalid.");
    }
    let identity_ok = [&input.project_id, &input.session_id, &input.run_id, &input.call_id]
        .iter()
        .all(|value| !value.is_empty() && js::utf16_len(value) <= to_usize(MAX_IDENTITY_CHARS));
    if !identity_ok {
        return invalid("The revert checkpoint's project, chat, run or call id is missing or too long.");
    }
    if js::utf16_len(&input.before_text) > to_usize(limits::MAX_EDITOR_TRANSACTION_CHARS) {
        return Err(too_large());
    }
    if !is_sha256(&input.pending_after.hash) {
        return invalid("The revert checkpoint's document hash is invalid.");
    }
    if input.pending_after.length > u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS) {
        return invalid("The revert checkpoint's document length is invalid.");
    }
    Ok(())
}

fn too_large() -> JournalError {
    JournalError::new(
        ErrorCode::EditCheckpointTooLarge,
        "The document is too large to keep a copy for Revert.",
    )
}

fn valid_pending(pending: &DocumentState) -> bool {
    is_sha256(&pending.hash) && pending.length <= u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS)
}

/// Chooses entries to evict so that one more entry of `incoming` bytes fits:
/// reverted entries first, then the oldest; never an entry in the middle of
/// an edit or a revert (unless it was abandoned for longer than the TTL).
fn prune(
    mut entries: Vec<CheckpointMeta>,
    incoming: f64,
    now: f64,
) -> Result<(Vec<CheckpointMeta>, Vec<CheckpointMeta>), JournalError> {
    let mut victims = Vec::new();
    let max_entries = to_usize(limits::MAX_EDIT_CHECKPOINTS);
    while entries.len() >= max_entries || total_bytes(&entries) + incoming > MAX_BYTES {
        let mut order: Vec<usize> = (0..entries.len()).collect();
        protocol::js::sort_by(&mut order, |&a, &b| {
            let rank = |i: usize| {
                u8::from(
                    entries
                        .get(i)
                        .is_some_and(|e| e.status != EditCheckpointStatus::Reverted),
                )
            };
            let created = |i: usize| entries.get(i).map_or(0.0, |e| e.created_at);
            rank(a).cmp(&rank(b)).then(created(a).total_cmp(&created(b)))
        });
        let victim = order
            .into_iter()
            .find(|&i| entries.get(i).is_some_and(|entry| !entry.is_in_flight(now)));
        let Some(victim) = victim else {
            return Err(JournalError::new(
                ErrorCode::EditCheckpointHistoryBusy,
                "Every kept revert checkpoint belongs to an edit or revert still in progress. \
                 Let those finish, then try again.",
            ));
        };
        victims.push(entries.remove(victim));
    }
    Ok((entries, victims))
}

/// The checkpoint journal over one storage, clock and the worker's queue.
pub(crate) struct Checkpoints<'a, S, C> {
    store: JournalStore<'a, S, C>,
}

impl<'a, S: Storage, C: Clock> Checkpoints<'a, S, C> {
    pub(crate) fn new(store: JournalStore<'a, S, C>) -> Self {
        Checkpoints { store }
    }

    fn storage(&self) -> &'a S {
        self.store.storage
    }

    fn now(&self) -> f64 {
        self.store.clock.now_ms()
    }

    /// Stages the run's checkpoint before its first page commit: removes
    /// orphaned bodies, makes room, writes the body, then publishes the entry
    /// as `prepared`. If this fails the edit must not be sent.
    pub(crate) async fn stage(&self, input: StageInput) -> Result<CheckpointMeta, JournalError> {
        validate_stage(&input)?;
        let _guard = self.store.queue.lock().await;
        let storage = self.storage();
        let entries = load_index(storage).await?;
        let referenced: Vec<&str> = entries.iter().filter_map(|e| e.body_key.as_deref()).collect();
        remove_orphans(storage, storage_keys::EDIT_CHECKPOINT_BODY_PREFIX, &referenced)
            .await
            .map_err(|error| error.during(SAVE))?;
        if entries.iter().any(|entry| entry.id == input.id) {
            return Err(JournalError::new(
                ErrorCode::DuplicateEditCheckpoint,
                "A revert checkpoint with this id already exists.",
            ));
        }
        let key = body_key(&input.id);
        let body = body_value(VERSION, &input.id, "beforeText", &input.before_text);
        #[allow(clippy::cast_precision_loss)]
        let bytes = json_bytes(&body) as f64;
        if bytes > MAX_BYTES {
            return Err(too_large());
        }
        let now = self.now();
        let before_count = entries.len();
        let (mut entries, victims) = prune(entries, bytes, now)?;
        if entries.len() != before_count {
            write_index(storage, &entries)
                .await
                .map_err(|error| error.during(SAVE))?;
            for victim in &victims {
                if let Some(key) = &victim.body_key {
                    remove_best_effort(storage, key).await;
                }
            }
        }
        let before = DocumentState::of(&input.before_text);
        let file_label = if input.file_label.is_empty() {
            DEFAULT_EDIT_FILE_LABEL.to_owned()
        } else {
            js::truncate_utf16(&input.file_label, to_usize(limits::MAX_FILE_LABEL_CHARS)).to_owned()
        };
        let meta = CheckpointMeta {
            id: input.id.clone(),
            project_id: input.project_id,
            session_id: input.session_id,
            run_id: input.run_id,
            call_id: input.call_id,
            file_label,
            status: EditCheckpointStatus::Prepared,
            previously_applied: false,
            previous_after: Some(before.clone()),
            before,
            after: None,
            pending_after: Some(input.pending_after),
            created_at: now,
            updated_at: now,
            approx_bytes: bytes,
            body_key: Some(key.clone()),
        };
        write_key(storage, &key, body)
            .await
            .map_err(|error| error.during(SAVE))?;
        entries.push(meta.clone());
        if let Err(error) = write_index(storage, &entries).await {
            remove_best_effort(storage, &key).await;
            return Err(error.during(SAVE).into());
        }
        Ok(meta)
    }

    /// Loads the index and the position of `id`, for one-entry updates.
    async fn locate(&self, id: &str) -> Result<(Vec<CheckpointMeta>, usize), JournalError> {
        let entries = load_index(self.storage()).await?;
        let position = entries.iter().position(|entry| entry.id == id).ok_or_else(not_found)?;
        Ok((entries, position))
    }

    /// Replaces entry `position` and publishes the index; a refused write
    /// names `action`.
    async fn replace(
        &self,
        mut entries: Vec<CheckpointMeta>,
        position: usize,
        next: CheckpointMeta,
        action: StorageAction,
    ) -> Result<CheckpointMeta, JournalError> {
        if let Some(slot) = entries.get_mut(position) {
            *slot = next.clone();
        }
        write_index(self.storage(), &entries)
            .await
            .map_err(|error| error.during(action))?;
        Ok(next)
    }

    /// Prepares a later write of the same run: the applied entry goes back to
    /// `prepared`, remembering its current final state in case the write
    /// never lands. `call_id` names the write (kept if `None`).
    pub(crate) async fn prepare_update(
        &self,
        id: &str,
        pending: &DocumentState,
        call_id: Option<&str>,
    ) -> Result<CheckpointMeta, JournalError> {
        let _guard = self.store.queue.lock().await;
        let (entries, position) = self.locate(id).await?;
        let current = entries.get(position).cloned().ok_or_else(not_found)?;
        if current.status != EditCheckpointStatus::Applied || !valid_pending(pending) {
            return Err(state_invalid(
                "This revert checkpoint cannot take another document change now.",
            ));
        }
        let call_id = call_id.filter(|c| !c.is_empty()).unwrap_or(&current.call_id);
        let next = CheckpointMeta {
            status: EditCheckpointStatus::Prepared,
            previously_applied: true,
            previous_after: current.after.clone(),
            pending_after: Some(pending.clone()),
            call_id: js::truncate_utf16(call_id, MAX_UPDATED_CALL_ID_CHARS).to_owned(),
            updated_at: self.now(),
            ..current
        };
        self.replace(entries, position, next, SAVE).await
    }

    /// The page applied the prepared write: the pending state becomes the
    /// final state.
    pub(crate) async fn commit(&self, id: &str) -> Result<PublicEditCheckpoint, JournalError> {
        let _guard = self.store.queue.lock().await;
        let (entries, position) = self.locate(id).await?;
        let current = entries.get(position).cloned().ok_or_else(not_found)?;
        if current.status != EditCheckpointStatus::Prepared || current.pending_after.is_none() {
            return Err(state_invalid(
                "This revert checkpoint has no write waiting to be committed.",
            ));
        }
        let next = CheckpointMeta {
            status: EditCheckpointStatus::Applied,
            previously_applied: false,
            after: current.pending_after.clone(),
            pending_after: None,
            previous_after: None,
            updated_at: self.now(),
            ..current
        };
        let next = self.replace(entries, position, next, SAVE).await?;
        next.receipt()
            .ok_or_else(|| state_invalid("The committed checkpoint has no receipt."))
    }

    /// The page did not apply the prepared write: back to `applied` when an
    /// earlier write of the run had landed, otherwise the entry and its body
    /// are removed.
    pub(crate) async fn rollback_preparation(&self, id: &str) -> Result<Rollback, JournalError> {
        let _guard = self.store.queue.lock().await;
        let storage = self.storage();
        let entries = load_index(storage).await?;
        let Some(position) = entries.iter().position(|entry| entry.id == id) else {
            return Ok(Rollback::Unchanged);
        };
        let Some(current) = entries.get(position).cloned() else {
            return Ok(Rollback::Unchanged);
        };
        if current.status != EditCheckpointStatus::Prepared {
            return Ok(Rollback::Unchanged);
        }
        if current.previously_applied {
            let next = CheckpointMeta {
                status: EditCheckpointStatus::Applied,
                previously_applied: false,
                after: current.previous_after.clone(),
                pending_after: None,
                previous_after: None,
                updated_at: self.now(),
                ..current
            };
            let next = self.replace(entries, position, next, SAVE).await?;
            return Ok(next.receipt().map_or(Rollback::Unchanged, Rollback::Restored));
        }
        let kept: Vec<CheckpointMeta> = entries.into_iter().filter(|entry| entry.id != id).collect();
        write_index(storage, &kept).await.map_err(|error| error.during(SAVE))?;
        if let Some(key) = &current.body_key {
            remove_best_effort(storage, key).await;
        }
        Ok(Rollback::Removed)
    }

    /// One entry with its body, or `None` when it is not stored.
    pub(crate) async fn load(&self, id: &str) -> Result<Option<CheckpointRecord>, JournalError> {
        let _guard = self.store.queue.lock().await;
        let entries = load_index(self.storage()).await?;
        let Some(meta) = entries.into_iter().find(|entry| entry.id == id) else {
            return Ok(None);
        };
        let before_text = read_body(self.storage(), &meta).await?;
        Ok(Some(CheckpointRecord { meta, before_text }))
    }

    /// The selected entry and every later entry of the same project and
    /// chat, in journal order (the order the responses were written; their
    /// timestamps may tie). `None` when the entry is not stored.
    pub(crate) async fn load_cascade(&self, id: &str) -> Result<Option<Vec<CheckpointRecord>>, JournalError> {
        let _guard = self.store.queue.lock().await;
        let entries = load_index(self.storage()).await?;
        let Some(position) = entries.iter().position(|entry| entry.id == id) else {
            return Ok(None);
        };
        let Some(selected) = entries.get(position).cloned() else {
            return Ok(None);
        };
        let mut records = Vec::new();
        for meta in entries.into_iter().skip(position) {
            if meta.project_id != selected.project_id || meta.session_id != selected.session_id {
                continue;
            }
            let before_text = read_body(self.storage(), &meta).await?;
            records.push(CheckpointRecord { meta, before_text });
        }
        Ok(Some(records))
    }

    async fn set_status(
        &self,
        id: &str,
        expected: EditCheckpointStatus,
        status: EditCheckpointStatus,
    ) -> Result<CheckpointMeta, JournalError> {
        let _guard = self.store.queue.lock().await;
        let (entries, position) = self.locate(id).await?;
        let current = entries.get(position).cloned().ok_or_else(not_found)?;
        if current.status != expected {
            return Err(state_invalid(format!(
                "This revert checkpoint is {}, not {}.",
                current.status.as_str(),
                expected.as_str()
            )));
        }
        let next = CheckpointMeta {
            status,
            updated_at: self.now(),
            ..current
        };
        self.replace(entries, position, next, StorageAction::RecordRevert).await
    }

    /// `applied` → `reverting`, written before the page is asked to restore.
    pub(crate) async fn begin_revert(&self, id: &str) -> Result<CheckpointMeta, JournalError> {
        self.set_status(id, EditCheckpointStatus::Applied, EditCheckpointStatus::Reverting)
            .await
    }

    /// `reverting` → `applied`: the page did not restore the document.
    pub(crate) async fn restore_applied(&self, id: &str) -> Result<CheckpointMeta, JournalError> {
        self.set_status(id, EditCheckpointStatus::Reverting, EditCheckpointStatus::Applied)
            .await
    }

    /// `applied`/`reverting` → `reverted`; the body is removed once the index
    /// no longer references it.
    pub(crate) async fn mark_reverted(&self, id: &str) -> Result<PublicEditCheckpoint, JournalError> {
        let _guard = self.store.queue.lock().await;
        let (entries, position) = self.locate(id).await?;
        let current = entries.get(position).cloned().ok_or_else(not_found)?;
        if !matches!(
            current.status,
            EditCheckpointStatus::Applied | EditCheckpointStatus::Reverting
        ) {
            return Err(state_invalid(format!(
                "This revert checkpoint is already {}.",
                current.status.as_str()
            )));
        }
        let old_key = current.body_key.clone();
        let next = CheckpointMeta {
            status: EditCheckpointStatus::Reverted,
            body_key: None,
            approx_bytes: 0.0,
            updated_at: self.now(),
            ..current
        };
        let next = self
            .replace(entries, position, next, StorageAction::RecordRevert)
            .await?;
        if let Some(key) = old_key {
            remove_best_effort(self.storage(), &key).await;
        }
        next.receipt()
            .ok_or_else(|| state_invalid("The reverted checkpoint has no receipt."))
    }
}
