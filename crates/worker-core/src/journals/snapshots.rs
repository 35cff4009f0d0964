//! The document-snapshot journal (v1): saved copies of one file of a
//! project, so the user can go back to a known document.
//!
//! Three kinds exist. `automatic` copies are taken after each completed run
//! and belong to that chat: one per chat, replaced by the next one, and
//! dropped as soon as the live document diverges from them or an agent write
//! changes the file. `rescue` copies ("Before restore") are taken of the live
//! document right before a restore replaces it, so a restore is never the
//! only way back. `manual` copies only come from promotion or older data.
//! The same text of the same file is stored once: a manual or rescue save of
//! a text that is already kept promotes or reuses that entry.
//!
//! Storage: `typstAgent.documentSnapshotIndex.v1` = `{version: 1, entries}`,
//! bodies at `typstAgent.documentSnapshotBody.v1.<id>` = `{version: 1, id,
//! text}`. At most 6 entries and 4 MiB; pruning drops automatic copies
//! first, then rescue, then manual, oldest first, never the snapshot being
//! restored, and an automatic copy never pushes out a manual one.

use crate::journals::records::{
    body_text, body_value, bounded_string, hash_value, index_entries, is_sha256, length_value, non_negative,
    optional_value, string_field,
};
use crate::journals::store::{
    DocumentState, JournalError, JournalStore, read_key, remove_best_effort, remove_orphans, write_key,
};
use crate::platform::{Clock, Storage};
use crate::storage::{StorageAction, StorageError, StorageErrorCode, json_bytes};
use protocol::ErrorCode;
use protocol::constants::{schema_versions, storage_keys};
use protocol::document_snapshot::{PublicDocumentSnapshot, SnapshotKind, is_valid_record_id};
use protocol::js;
use protocol::limits::{self, to_usize};
use serde_json::{Value, json};

const VERSION: u32 = schema_versions::DOCUMENT_SNAPSHOT_JOURNAL;
const MAX_BYTES: f64 = limits::MAX_DOCUMENT_SNAPSHOT_TOTAL_BYTES as f64;

/// One entry of the index (`SnapshotMeta`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SnapshotMeta {
    /// `snapshot-<uuid>`.
    pub(crate) id: String,
    pub(crate) kind: SnapshotKind,
    pub(crate) project_id: String,
    pub(crate) file_label: String,
    pub(crate) title: String,
    /// Hash and UTF-16 length of the saved text.
    pub(crate) text: DocumentState,
    pub(crate) created_at: f64,
    pub(crate) approx_bytes: f64,
    pub(crate) body_key: String,
    /// The chat and run of an automatic copy; `None` for the other kinds.
    pub(crate) session_id: Option<String>,
    pub(crate) run_id: Option<String>,
}

/// An entry with its body's text (`None` when the body is gone or damaged).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SnapshotRecord {
    pub(crate) meta: SnapshotMeta,
    pub(crate) text: Option<String>,
}

/// A snapshot to save.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SnapshotInput {
    pub(crate) kind: SnapshotKind,
    pub(crate) project_id: String,
    pub(crate) file_label: String,
    /// `None` or empty: the kind's default title.
    pub(crate) title: Option<String>,
    pub(crate) text: String,
    /// Required for automatic copies, ignored otherwise.
    pub(crate) session_id: Option<String>,
    pub(crate) run_id: Option<String>,
    /// A rescue copy taken for a restore names the snapshot being restored,
    /// so pruning cannot evict it in the same call.
    pub(crate) protected_snapshot_id: Option<String>,
}

/// What [`Snapshots::create`] did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CreateOutcome {
    pub(crate) snapshot: PublicDocumentSnapshot,
    /// The text was already kept; no new body was written.
    pub(crate) deduplicated: bool,
    /// An existing entry of the same text took the new kind and title.
    pub(crate) promoted: bool,
}

/// What [`Snapshots::delete`] did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeleteOutcome {
    pub(crate) removed: bool,
    pub(crate) snapshot: Option<PublicDocumentSnapshot>,
}

fn kind_rank(kind: SnapshotKind) -> u8 {
    match kind {
        SnapshotKind::Automatic => 0,
        SnapshotKind::Rescue => 1,
        SnapshotKind::Manual => 2,
    }
}

fn kind_str(kind: SnapshotKind) -> &'static str {
    match kind {
        SnapshotKind::Manual => "manual",
        SnapshotKind::Automatic => "automatic",
        SnapshotKind::Rescue => "rescue",
    }
}

fn title_for(kind: SnapshotKind, title: Option<&str>) -> String {
    match title.filter(|t| !t.is_empty()) {
        Some(title) => js::truncate_utf16(title, to_usize(limits::MAX_SNAPSHOT_TITLE_CHARS)).to_owned(),
        None => kind.default_title().to_owned(),
    }
}

impl SnapshotMeta {
    /// Parses and validates one stored entry.
    pub(crate) fn parse(value: &Value) -> Option<SnapshotMeta> {
        let map = value.as_object()?;
        let id = string_field(map, "id").filter(|id| is_valid_record_id(id))?;
        let kind = SnapshotKind::from_wire(string_field(map, "kind")?)?;
        let body_key =
            string_field(map, "bodyKey").filter(|key| key.starts_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX))?;
        let scope = |key: &str| bounded_string(map, key, limits::MAX_SCOPE_ID_CHARS);
        let absent = |key: &str| matches!(map.get(key), None | Some(Value::Null));
        let (session_id, run_id) = if kind == SnapshotKind::Automatic {
            (Some(scope("sessionId")?), Some(scope("runId")?))
        } else if absent("sessionId") && absent("runId") {
            (None, None)
        } else {
            return None;
        };
        Some(SnapshotMeta {
            id: id.to_owned(),
            kind,
            project_id: scope("projectId")?,
            file_label: bounded_string(map, "fileLabel", limits::MAX_FILE_LABEL_CHARS)?,
            title: bounded_string(map, "title", limits::MAX_SNAPSHOT_TITLE_CHARS)?,
            text: DocumentState {
                hash: map.get("textHash").and_then(hash_value)?,
                length: map.get("textLength").and_then(length_value)?,
            },
            created_at: non_negative(map, "createdAt")?,
            approx_bytes: non_negative(map, "approxBytes")?,
            body_key: body_key.to_owned(),
            session_id,
            run_id,
        })
    }

    /// The stored form.
    pub(crate) fn to_value(&self) -> Value {
        json!({
            "id": self.id,
            "kind": kind_str(self.kind),
            "projectId": self.project_id,
            "fileLabel": self.file_label,
            "title": self.title,
            "textHash": self.text.hash,
            "textLength": self.text.length,
            "createdAt": js::number_value(self.created_at),
            "approxBytes": js::number_value(self.approx_bytes),
            "bodyKey": self.body_key,
            "sessionId": optional_value(self.session_id.clone()),
            "runId": optional_value(self.run_id.clone()),
        })
    }

    /// The metadata the panel sees (no body key, hash or run id; the chat
    /// only for automatic copies).
    pub(crate) fn public(&self) -> PublicDocumentSnapshot {
        PublicDocumentSnapshot {
            id: self.id.clone(),
            kind: self.kind,
            project_id: self.project_id.clone(),
            file_label: self.file_label.clone(),
            title: self.title.clone(),
            created_at: self.created_at,
            text_length: self.text.length,
            session_id: if self.kind == SnapshotKind::Automatic {
                self.session_id.clone()
            } else {
                None
            },
        }
    }

    fn is_automatic_of(&self, project_id: &str, session_id: &str) -> bool {
        self.kind == SnapshotKind::Automatic
            && self.project_id == project_id
            && self.session_id.as_deref() == Some(session_id)
    }
}

/// The body key of snapshot `id`.
pub(crate) fn body_key(id: &str) -> String {
    format!("{}{id}", storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX)
}

fn index_invalid() -> StorageError {
    StorageError::new(
        StorageErrorCode::DocumentSnapshotIndexInvalid,
        "The stored list of document snapshots is damaged or from an unsupported version. \
         The saved document copies were left untouched.",
    )
}

fn total_bytes(entries: &[SnapshotMeta]) -> f64 {
    entries.iter().map(|entry| entry.approx_bytes).sum()
}

/// Reads and validates the whole index; a missing index is an empty journal.
pub(crate) async fn load_index(storage: &impl Storage) -> Result<Vec<SnapshotMeta>, StorageError> {
    let Some(index) = read_key(storage, storage_keys::DOCUMENT_SNAPSHOT_INDEX)
        .await?
        .filter(|value| !value.is_null())
    else {
        return Ok(Vec::new());
    };
    let entries = index_entries(&index, VERSION)
        .filter(|entries| entries.len() <= to_usize(limits::MAX_DOCUMENT_SNAPSHOTS))
        .ok_or_else(index_invalid)?;
    let parsed = entries
        .iter()
        .map(SnapshotMeta::parse)
        .collect::<Option<Vec<_>>>()
        .ok_or_else(index_invalid)?;
    if total_bytes(&parsed) > MAX_BYTES {
        return Err(index_invalid());
    }
    Ok(parsed)
}

async fn write_index(storage: &impl Storage, entries: &[SnapshotMeta]) -> Result<(), StorageError> {
    let entries: Vec<Value> = entries.iter().map(SnapshotMeta::to_value).collect();
    write_key(
        storage,
        storage_keys::DOCUMENT_SNAPSHOT_INDEX,
        json!({ "version": VERSION, "entries": entries }),
    )
    .await
}

/// Removes the entries `select` picks and their bodies, for a caller that
/// already holds the mutation queue. Returns how many.
pub(crate) async fn remove_where_unlocked(
    storage: &impl Storage,
    select: impl Fn(&SnapshotMeta) -> bool,
) -> Result<usize, StorageError> {
    let entries = load_index(storage).await?;
    let (removed, kept): (Vec<SnapshotMeta>, Vec<SnapshotMeta>) = entries.into_iter().partition(|e| select(e));
    if removed.is_empty() {
        return Ok(0);
    }
    write_index(storage, &kept).await?;
    for entry in &removed {
        remove_best_effort(storage, &entry.body_key).await;
    }
    Ok(removed.len())
}

fn invalid(message: &str) -> JournalError {
    JournalError::new(ErrorCode::InvalidDocumentSnapshot, message)
}

fn too_large() -> JournalError {
    JournalError::new(
        ErrorCode::DocumentSnapshotTooLarge,
        "The document is too large to keep as a snapshot.",
    )
}

fn validate(input: &SnapshotInput) -> Result<(), JournalError> {
    let scope_ok = |value: &str| !value.is_empty() && js::utf16_len(value) <= to_usize(limits::MAX_SCOPE_ID_CHARS);
    if !scope_ok(&input.project_id) {
        return Err(invalid("The snapshot's project id is missing or too long."));
    }
    if input.file_label.is_empty() || js::utf16_len(&input.file_label) > to_usize(limits::MAX_FILE_LABEL_CHARS) {
        return Err(invalid("The snapshot's file name is missing or too long."));
    }
    if js::utf16_len(&input.text) > to_usize(limits::MAX_EDITOR_TRANSACTION_CHARS) {
        return Err(too_large());
    }
    if let Some(protected) = &input.protected_snapshot_id
        && (input.kind != SnapshotKind::Rescue || !is_valid_record_id(protected))
    {
        return Err(invalid(
            "Only a rescue copy may shield the snapshot being restored from pruning.",
        ));
    }
    if input.kind == SnapshotKind::Automatic {
        let chat = input.session_id.as_deref().is_some_and(scope_ok);
        let run = input.run_id.as_deref().is_some_and(scope_ok);
        if !(chat && run) {
            return Err(invalid("An automatic snapshot needs the chat and run it belongs to."));
        }
    }
    Ok(())
}

/// Chooses entries to evict so one more entry of `incoming` bytes fits.
fn prune_plan(
    entries: Vec<SnapshotMeta>,
    incoming: f64,
    incoming_kind: SnapshotKind,
    protected: Option<&str>,
) -> Result<(Vec<SnapshotMeta>, Vec<SnapshotMeta>), JournalError> {
    let mut kept = entries;
    let mut removed = Vec::new();
    let max_entries = to_usize(limits::MAX_DOCUMENT_SNAPSHOTS);
    while kept.len() >= max_entries || total_bytes(&kept) + incoming > MAX_BYTES {
        let mut candidates: Vec<usize> = (0..kept.len())
            .filter(|&i| kept.get(i).is_some_and(|e| Some(e.id.as_str()) != protected))
            .collect();
        protocol::js::sort_by(&mut candidates, |&a, &b| {
            let key = |i: usize| kept.get(i).map_or((0, 0.0), |e| (kind_rank(e.kind), e.created_at));
            let (rank_a, time_a) = key(a);
            let (rank_b, time_b) = key(b);
            rank_a.cmp(&rank_b).then(time_a.total_cmp(&time_b))
        });
        let victim = candidates.into_iter().find(|&i| {
            incoming_kind != SnapshotKind::Automatic || kept.get(i).is_some_and(|e| e.kind != SnapshotKind::Manual)
        });
        let Some(victim) = victim else {
            return Err(JournalError::new(
                ErrorCode::DocumentSnapshotBudgetFull,
                "Saved snapshots fill the whole local snapshot budget. Delete one before another \
                 automatic snapshot can be kept.",
            ));
        };
        removed.push(kept.remove(victim));
    }
    Ok((kept, removed))
}

/// What a new or refreshed entry records: the text's state, its title and
/// the time of the save.
struct Fresh {
    state: DocumentState,
    title: String,
    now: f64,
}

/// What became of the chat's automatic copies when an automatic snapshot
/// is saved.
enum ChatCopy {
    /// The chat's copy already held this text and was refreshed in place.
    Refreshed(CreateOutcome),
    /// The chat's copies (`chat`) give way to a new entry among `others`.
    Replaced {
        chat: Vec<SnapshotMeta>,
        others: Vec<SnapshotMeta>,
    },
}

/// A manual or rescue snapshot of text the journal already holds for that
/// file: a manual copy (or a rescue copy over a rescue) is kept as it is,
/// anything else is promoted to the new kind. `None`: no such copy.
async fn reuse_exact_copy(
    storage: &impl Storage,
    entries: &mut [SnapshotMeta],
    input: &SnapshotInput,
    fresh: &Fresh,
) -> Result<Option<CreateOutcome>, JournalError> {
    let exact = entries.iter().position(|e| {
        e.project_id == input.project_id && e.file_label == input.file_label && e.text.matches(&fresh.state)
    });
    let Some(existing) = exact.and_then(|position| entries.get(position).cloned()) else {
        return Ok(None);
    };
    let keep_as_is = existing.kind == SnapshotKind::Manual
        || (input.kind == SnapshotKind::Rescue && existing.kind == SnapshotKind::Rescue);
    if keep_as_is {
        return Ok(Some(CreateOutcome {
            snapshot: existing.public(),
            deduplicated: true,
            promoted: false,
        }));
    }
    let promoted = SnapshotMeta {
        kind: input.kind,
        title: fresh.title.clone(),
        session_id: None,
        run_id: None,
        created_at: fresh.now,
        ..existing
    };
    if let Some(slot) = exact.and_then(|position| entries.get_mut(position)) {
        *slot = promoted.clone();
    }
    write_index(storage, entries).await?;
    Ok(Some(CreateOutcome {
        snapshot: promoted.public(),
        deduplicated: true,
        promoted: true,
    }))
}

/// An automatic snapshot: when the chat's copy holds the same text it is
/// refreshed in place (journal order kept) and the chat's other automatic
/// copies are dropped; otherwise all of them give way to the new entry.
async fn refresh_chat_copy(
    storage: &impl Storage,
    entries: Vec<SnapshotMeta>,
    input: &SnapshotInput,
    fresh: &Fresh,
) -> Result<ChatCopy, JournalError> {
    let session_id = input.session_id.clone().unwrap_or_default();
    let of_chat = |e: &SnapshotMeta| e.is_automatic_of(&input.project_id, &session_id);
    let same = entries
        .iter()
        .find(|e| of_chat(e) && e.file_label == input.file_label && e.text.matches(&fresh.state))
        .map(|e| e.id.clone());
    let Some(same) = same else {
        let (chat, others) = entries.into_iter().partition(|e| of_chat(e));
        return Ok(ChatCopy::Replaced { chat, others });
    };
    let mut index = Vec::new();
    let mut discarded = Vec::new();
    let mut refreshed = None;
    for entry in entries {
        if entry.id == same {
            let next = SnapshotMeta {
                run_id: input.run_id.clone(),
                title: fresh.title.clone(),
                created_at: fresh.now,
                ..entry
            };
            refreshed = Some(next.clone());
            index.push(next);
        } else if of_chat(&entry) {
            discarded.push(entry);
        } else {
            index.push(entry);
        }
    }
    let Some(refreshed) = refreshed else {
        return Err(invalid(
            "The chat's automatic snapshot disappeared while refreshing it.",
        ));
    };
    write_index(storage, &index).await?;
    for entry in &discarded {
        remove_best_effort(storage, &entry.body_key).await;
    }
    Ok(ChatCopy::Refreshed(CreateOutcome {
        snapshot: refreshed.public(),
        deduplicated: true,
        promoted: false,
    }))
}

/// Stores a new entry `id`: its body first, then the index without what
/// pruning (and a replaced chat copy) gives up, whose bodies go last.
async fn store_new(
    storage: &impl Storage,
    entries: Vec<SnapshotMeta>,
    replaced: &[SnapshotMeta],
    input: SnapshotInput,
    fresh: Fresh,
    id: String,
) -> Result<CreateOutcome, JournalError> {
    let key = body_key(&id);
    let body = body_value(VERSION, &id, "text", &input.text);
    #[allow(clippy::cast_precision_loss)]
    let bytes = json_bytes(&body) as f64;
    if bytes > MAX_BYTES {
        return Err(too_large());
    }
    let (mut kept, pruned) = prune_plan(entries, bytes, input.kind, input.protected_snapshot_id.as_deref())?;
    let automatic = input.kind == SnapshotKind::Automatic;
    let meta = SnapshotMeta {
        id,
        kind: input.kind,
        project_id: input.project_id,
        file_label: input.file_label,
        title: fresh.title,
        text: fresh.state,
        created_at: fresh.now,
        approx_bytes: bytes,
        body_key: key.clone(),
        session_id: if automatic { input.session_id } else { None },
        run_id: if automatic { input.run_id } else { None },
    };
    write_key(storage, &key, body).await?;
    kept.push(meta.clone());
    if let Err(error) = write_index(storage, &kept).await {
        remove_best_effort(storage, &key).await;
        return Err(error.into());
    }
    for entry in replaced.iter().chain(&pruned) {
        remove_best_effort(storage, &entry.body_key).await;
    }
    Ok(CreateOutcome {
        snapshot: meta.public(),
        deduplicated: false,
        promoted: false,
    })
}

/// The snapshot journal over one storage, clock and the worker's queue.
pub(crate) struct Snapshots<'a, S, C> {
    store: JournalStore<'a, S, C>,
}

impl<'a, S: Storage, C: Clock> Snapshots<'a, S, C> {
    pub(crate) fn new(store: JournalStore<'a, S, C>) -> Self {
        Snapshots { store }
    }

    fn storage(&self) -> &'a S {
        self.store.storage
    }

    fn now(&self) -> f64 {
        self.store.clock.now_ms()
    }

    /// Saves a snapshot (see the module documentation for deduplication,
    /// promotion, replacement of a chat's automatic copy, and pruning); a
    /// refused write names the snapshot.
    pub(crate) async fn create(&self, input: SnapshotInput) -> Result<CreateOutcome, JournalError> {
        self.create_unnamed(input)
            .await
            .map_err(|error| error.during(StorageAction::SaveSnapshot))
    }

    async fn create_unnamed(&self, input: SnapshotInput) -> Result<CreateOutcome, JournalError> {
        validate(&input)?;
        let _guard = self.store.queue.lock().await;
        let storage = self.storage();
        let mut entries = load_index(storage).await?;
        let referenced: Vec<&str> = entries.iter().map(|e| e.body_key.as_str()).collect();
        remove_orphans(storage, storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX, &referenced).await?;
        let fresh = Fresh {
            state: DocumentState::of(&input.text),
            title: title_for(input.kind, input.title.as_deref()),
            now: self.now(),
        };
        let mut replaced = Vec::new();
        if input.kind == SnapshotKind::Automatic {
            match refresh_chat_copy(storage, entries, &input, &fresh).await? {
                ChatCopy::Refreshed(outcome) => return Ok(outcome),
                ChatCopy::Replaced { chat, others } => {
                    replaced = chat;
                    entries = others;
                }
            }
        } else if let Some(outcome) = reuse_exact_copy(storage, &mut entries, &input, &fresh).await? {
            return Ok(outcome);
        }
        let id = format!("snapshot-{}", self.store.clock.uuid());
        store_new(storage, entries, &replaced, input, fresh, id).await
    }

    /// After a completed run: the chat's automatic copy of the focused file.
    pub(crate) async fn create_automatic(
        &self,
        project_id: &str,
        session_id: &str,
        run_id: &str,
        file_label: &str,
        text: &str,
    ) -> Result<CreateOutcome, JournalError> {
        self.create(SnapshotInput {
            kind: SnapshotKind::Automatic,
            project_id: project_id.to_owned(),
            file_label: file_label.to_owned(),
            title: None,
            text: text.to_owned(),
            session_id: Some(session_id.to_owned()),
            run_id: Some(run_id.to_owned()),
            protected_snapshot_id: None,
        })
        .await
    }

    /// The snapshots the editor may offer for a file: same project and file,
    /// automatic copies only of this chat, newest first.
    pub(crate) async fn list_for_file(
        &self,
        project_id: &str,
        file_label: &str,
        session_id: &str,
    ) -> Result<Vec<PublicDocumentSnapshot>, JournalError> {
        let _guard = self.store.queue.lock().await;
        let mut entries: Vec<SnapshotMeta> = load_index(self.storage())
            .await?
            .into_iter()
            .filter(|e| {
                e.project_id == project_id
                    && e.file_label == file_label
                    && (e.kind != SnapshotKind::Automatic || e.session_id.as_deref() == Some(session_id))
            })
            .collect();
        protocol::js::sort_by(&mut entries, |a, b| b.created_at.total_cmp(&a.created_at));
        Ok(entries.iter().map(SnapshotMeta::public).collect())
    }

    /// One entry with its body, or `None` when it is not stored.
    pub(crate) async fn load(&self, id: &str) -> Result<Option<SnapshotRecord>, JournalError> {
        let _guard = self.store.queue.lock().await;
        let storage = self.storage();
        let Some(meta) = load_index(storage).await?.into_iter().find(|e| e.id == id) else {
            return Ok(None);
        };
        let body = read_key(storage, &meta.body_key).await?;
        let text = body_text(body, VERSION, &meta.id, "text");
        Ok(Some(SnapshotRecord { meta, text }))
    }

    /// Deletes snapshot `id` if it belongs to `project_id`.
    pub(crate) async fn delete(&self, id: &str, project_id: &str) -> Result<DeleteOutcome, JournalError> {
        let _guard = self.store.queue.lock().await;
        let storage = self.storage();
        let entries = load_index(storage).await?;
        let Some(target) = entries
            .iter()
            .find(|e| e.id == id && e.project_id == project_id)
            .cloned()
        else {
            return Ok(DeleteOutcome {
                removed: false,
                snapshot: None,
            });
        };
        let kept: Vec<SnapshotMeta> = entries.into_iter().filter(|e| e.id != id).collect();
        write_index(storage, &kept)
            .await
            .map_err(|error| error.during(StorageAction::DeleteSnapshot))?;
        remove_best_effort(storage, &target.body_key).await;
        Ok(DeleteOutcome {
            removed: true,
            snapshot: Some(target.public()),
        })
    }

    /// After an agent write: the chat's automatic copies of that file (or of
    /// every file when `file_label` is `None`) no longer describe the result.
    pub(crate) async fn delete_automatic_for_file(
        &self,
        project_id: &str,
        session_id: &str,
        file_label: Option<&str>,
    ) -> Result<usize, JournalError> {
        let _guard = self.store.queue.lock().await;
        let removed = remove_where_unlocked(self.storage(), |e| {
            e.is_automatic_of(project_id, session_id) && file_label.is_none_or(|label| e.file_label == label)
        })
        .await?;
        Ok(removed)
    }

    /// At run start and after a failed or cancelled run: drops the chat's
    /// automatic copy of the file if the live document no longer matches it.
    pub(crate) async fn invalidate_diverged_automatic(
        &self,
        project_id: &str,
        session_id: &str,
        file_label: &str,
        live: &DocumentState,
    ) -> Result<usize, JournalError> {
        if !is_sha256(&live.hash) {
            return Err(JournalError::new(
                ErrorCode::InvalidDocumentSnapshotState,
                "The live document's state is not a valid hash and length.",
            ));
        }
        let _guard = self.store.queue.lock().await;
        let removed = remove_where_unlocked(self.storage(), |e| {
            e.is_automatic_of(project_id, session_id) && e.file_label == file_label && !e.text.matches(live)
        })
        .await?;
        Ok(removed)
    }
}
