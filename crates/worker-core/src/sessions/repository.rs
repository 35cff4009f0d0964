//! Index and body storage of the chat repository and its chat operations:
//! create, list, get, update, delete, the grouped list, storage status, and
//! the run engine's transcript save.
//!
//! Every public operation holds the mutation queue for its whole duration
//! and first makes sure this worker instance has checked the repository
//! (missing-index guard, legacy migration, summary backfill, orphan cleanup).

use crate::journals;
use crate::platform::{Clock, Storage};
use crate::sessions::limits::{MAX_NAME_CHARS, MAX_PREVIEW_CHARS, MAX_SEARCH_TEXT_CHARS, NEW_CHAT_NAME};
use crate::sessions::normalize::{self, Origin};
use crate::sessions::store::Sessions;
use crate::storage::{QueueGuard, StorageAction, StorageError, StorageErrorCode, json_bytes};
use protocol::constants::{schema_versions, storage_keys};
use protocol::js;
use protocol::limits::{MAX_SESSION_BODY_BYTES, STORAGE_WARNING_BYTES};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

const VERSION: u32 = schema_versions::SESSION_REPOSITORY;

/// One entry of the index.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionMeta {
    pub(crate) id: String,
    pub(crate) project_id: String,
    pub(crate) name: String,
    pub(crate) created_at: f64,
    pub(crate) updated_at: f64,
    pub(crate) message_count: u64,
    pub(crate) approx_bytes: f64,
    pub(crate) body_key: Option<String>,
    pub(crate) preview: Option<String>,
    pub(crate) search_text: Option<String>,
    pub(crate) user_renamed: bool,
}

/// A timestamp ≥ 0, else `now`.
fn time_or_now(time: f64, now: f64) -> f64 {
    if time.is_finite() && time >= 0.0 { time } else { now }
}

fn finite(value: Option<&Value>) -> Option<f64> {
    value.and_then(js::as_number).filter(|n| n.is_finite())
}

impl SessionMeta {
    /// The entry if it passes the index checks, else `None`.
    fn parse(value: &Value) -> Option<SessionMeta> {
        let map = value.as_object()?;
        let id = map.get("id")?.as_str().filter(|id| !id.is_empty())?;
        let body_key = match map.get("bodyKey") {
            None | Some(Value::Null) => None,
            Some(Value::String(key)) if key.starts_with(storage_keys::SESSION_BODY_PREFIX) => Some(key.clone()),
            Some(_) => return None,
        };
        let approx_bytes = finite(map.get("approxBytes")).filter(|n| *n >= 0.0)?;
        Some(SessionMeta {
            id: id.to_owned(),
            project_id: map.get("projectId")?.as_str()?.to_owned(),
            name: map.get("name")?.as_str()?.to_owned(),
            created_at: finite(map.get("createdAt"))?,
            updated_at: finite(map.get("updatedAt"))?,
            message_count: map.get("messageCount").and_then(js::as_safe_uint)?,
            approx_bytes,
            body_key,
            preview: map.get("preview").and_then(Value::as_str).map(str::to_owned),
            search_text: map.get("searchText").and_then(Value::as_str).map(str::to_owned),
            user_renamed: js::is_truthy(map.get("userRenamed")),
        })
    }

    /// The metadata of a chat about to be stored.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn describe(
        id: &str,
        project_id: &str,
        name: &str,
        created_at: f64,
        updated_at: f64,
        messages: &[Value],
        bytes: u64,
        body_key: String,
        user_renamed: bool,
        now: f64,
    ) -> SessionMeta {
        let (preview, search_text) = summary(messages);
        SessionMeta {
            id: id.to_owned(),
            project_id: project_id.to_owned(),
            name: chat_name(name),
            created_at: time_or_now(created_at, now),
            updated_at: time_or_now(updated_at, now),
            message_count: messages.len() as u64,
            approx_bytes: bytes as f64,
            body_key: Some(body_key),
            preview: Some(preview),
            search_text: Some(search_text),
            user_renamed,
        }
    }

    /// The full index record (also what `SESSION_GET` returns, plus messages).
    pub(crate) fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert("id".into(), Value::from(self.id.as_str()));
        map.insert("projectId".into(), Value::from(self.project_id.as_str()));
        map.insert("name".into(), Value::from(self.name.as_str()));
        map.insert("createdAt".into(), js::number_value(self.created_at));
        map.insert("updatedAt".into(), js::number_value(self.updated_at));
        map.insert("messageCount".into(), Value::from(self.message_count));
        map.insert("approxBytes".into(), js::number_value(self.approx_bytes));
        if let Some(key) = &self.body_key {
            map.insert("bodyKey".into(), Value::from(key.as_str()));
        }
        if let Some(preview) = &self.preview {
            map.insert("preview".into(), Value::from(preview.as_str()));
        }
        if let Some(search) = &self.search_text {
            map.insert("searchText".into(), Value::from(search.as_str()));
        }
        map.insert("userRenamed".into(), Value::Bool(self.user_renamed));
        Value::Object(map)
    }

    /// The record with its messages (`SESSION_GET`, `SESSION_UPDATE`).
    pub(crate) fn with_messages(&self, messages: Vec<Value>) -> Value {
        let mut value = self.to_value();
        if let Some(map) = value.as_object_mut() {
            map.insert("messages".into(), Value::Array(messages));
        }
        value
    }

    /// What lists show: no body key, and the search text only when asked.
    pub(crate) fn public(&self, with_search_text: bool) -> Value {
        let mut map = Map::new();
        map.insert("id".into(), Value::from(self.id.as_str()));
        map.insert("projectId".into(), Value::from(self.project_id.as_str()));
        map.insert("name".into(), Value::from(self.name.as_str()));
        map.insert("createdAt".into(), js::number_value(self.created_at));
        map.insert("updatedAt".into(), js::number_value(self.updated_at));
        map.insert("messageCount".into(), Value::from(self.message_count));
        map.insert("approxBytes".into(), js::number_value(self.approx_bytes));
        if let Some(preview) = &self.preview {
            map.insert("preview".into(), Value::from(preview.as_str()));
        }
        if with_search_text && let Some(search) = &self.search_text {
            map.insert("searchText".into(), Value::from(search.as_str()));
        }
        map.insert("userRenamed".into(), Value::Bool(self.user_renamed));
        Value::Object(map)
    }

    /// The storage key of the current body.
    pub(crate) fn body_key(&self) -> String {
        self.body_key.clone().unwrap_or_else(|| legacy_body_key(&self.id))
    }
}

/// The body key of an index entry written before keys were versioned.
fn legacy_body_key(id: &str) -> String {
    format!("{}{id}", storage_keys::SESSION_BODY_PREFIX)
}

/// A chat name as stored: at most 200 units, `New chat` when empty.
pub(crate) fn chat_name(name: &str) -> String {
    if name.is_empty() {
        NEW_CHAT_NAME.to_owned()
    } else {
        js::truncate_utf16(name, MAX_NAME_CHARS).to_owned()
    }
}

/// The index's `preview` (first user text, whitespace collapsed) and
/// `searchText` (the chat's texts, lower-cased, bounded).
pub(crate) fn summary(messages: &[Value]) -> (String, String) {
    let mut preview = String::new();
    let mut parts: Vec<String> = Vec::new();
    let mut remaining = MAX_SEARCH_TEXT_CHARS;
    for message in messages {
        let Some(content) = message.get("content").and_then(Value::as_str) else {
            continue;
        };
        let text = js::collapse_whitespace(content);
        if text.is_empty() {
            continue;
        }
        if preview.is_empty() && message.get("role").and_then(Value::as_str) == Some("user") {
            preview = js::truncate_utf16(&text, MAX_PREVIEW_CHARS).to_owned();
        }
        if remaining > 0 {
            let part = js::truncate_utf16(&text, remaining);
            let used = js::utf16_len(part);
            // A surrogate pair that does not fit ends the search text.
            remaining = if used == 0 { 0 } else { remaining - used };
            if !part.is_empty() {
                parts.push(part.to_owned());
            }
        }
        if !preview.is_empty() && remaining == 0 {
            break;
        }
    }
    (preview, parts.join(" ").to_lowercase())
}

/// `12 KiB` or `1.50 MiB`.
pub(crate) fn format_bytes(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB {
        format!("{:.2} MiB", bytes as f64 / MIB as f64)
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

/// A body ready to store.
pub(crate) struct BuiltBody {
    pub(crate) body: Value,
    pub(crate) bytes: u64,
    pub(crate) messages: Vec<Value>,
}

/// Normalises the messages and builds the body, refusing one over 1 MiB.
pub(crate) fn build_body(id: &str, messages: &[Value], now: f64) -> Result<BuiltBody, StorageError> {
    let messages = normalize::normalize_message_list(messages, Origin::Local, now)?;
    let body = json!({ "version": VERSION, "id": id, "messages": messages });
    let bytes = json_bytes(&body);
    if bytes > u64::from(MAX_SESSION_BODY_BYTES) {
        return Err(StorageError::new(
            StorageErrorCode::TooLarge,
            format!(
                "This chat is {}, more than the 1 MiB one saved chat may use. Its text is still shown in the \
                 panel but was not saved.",
                format_bytes(bytes)
            ),
        ));
    }
    Ok(BuiltBody { body, bytes, messages })
}

/// The index as read: absent (fresh install) or valid.
pub(crate) enum IndexState {
    Missing,
    Valid(Vec<SessionMeta>),
}

/// What a SESSION_UPDATE changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SessionChanges {
    /// A new name (`New chat` when empty).
    pub(crate) name: Option<String>,
    /// The chat's full new message list.
    pub(crate) messages: Option<Vec<Value>>,
    pub(crate) user_renamed: Option<bool>,
    /// A generated title: ignored once the user renamed the chat.
    pub(crate) auto_name: bool,
}

/// What [`Sessions::persist_run_transcript`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TranscriptOutcome {
    /// The chat (or its body) no longer exists; nothing was written.
    SessionMissing,
    /// The chat already ends with this answer in this state.
    Unchanged,
    /// The chat ended with this answer; only its response status changed.
    StatusUpdated,
    /// The answer was appended.
    Appended,
}

impl<'a, S: Storage, C: Clock> Sessions<'a, S, C> {
    // ----- Storage primitives -----

    pub(crate) async fn read_key(&self, key: &str) -> Result<Option<Value>, StorageError> {
        self.storage.get(key).await.map_err(|error| StorageError::read(&error))
    }

    pub(crate) async fn write_key(&self, key: &str, value: Value) -> Result<(), StorageError> {
        self.storage
            .set(key, value)
            .await
            .map_err(|error| StorageError::write(&error))
    }

    pub(crate) async fn remove_keys(&self, keys: &[String]) -> Result<(), StorageError> {
        self.storage
            .remove(keys)
            .await
            .map_err(|error| StorageError::write(&error))
    }

    /// Removes a body no index references any more; a failure only leaves an
    /// orphan that the next worker instance removes.
    pub(crate) async fn remove_best_effort(&self, key: &str) {
        // Ignoring the error is the point: the data is already unreferenced.
        let _ = self.storage.remove(&[key.to_owned()]).await;
    }

    pub(crate) async fn list_keys(&self) -> Result<Vec<String>, StorageError> {
        self.storage.keys().await.map_err(|error| StorageError::read(&error))
    }

    pub(crate) async fn body_keys(&self) -> Result<Vec<String>, StorageError> {
        let keys = self.list_keys().await?;
        Ok(keys
            .into_iter()
            .filter(|key| key.starts_with(storage_keys::SESSION_BODY_PREFIX))
            .collect())
    }

    pub(crate) async fn read_index(&self) -> Result<IndexState, StorageError> {
        let Some(index) = self.read_key(storage_keys::SESSION_INDEX).await? else {
            return Ok(IndexState::Missing);
        };
        let invalid = || {
            StorageError::new(
                StorageErrorCode::IndexInvalid,
                "The list of saved chats is damaged or from an unsupported version. The chats themselves were \
                 left untouched; export or repair the stored data before continuing.",
            )
        };
        if index.is_null() {
            return Ok(IndexState::Missing);
        }
        if index.get("version").and_then(js::as_number) != Some(f64::from(VERSION)) {
            return Err(invalid());
        }
        let entries = index.get("sessions").and_then(Value::as_array).ok_or_else(invalid)?;
        let sessions = entries
            .iter()
            .map(SessionMeta::parse)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(invalid)?;
        Ok(IndexState::Valid(sessions))
    }

    /// The index entries; a missing index is an empty one.
    pub(crate) async fn load_index(&self) -> Result<Vec<SessionMeta>, StorageError> {
        Ok(match self.read_index().await? {
            IndexState::Missing => Vec::new(),
            IndexState::Valid(sessions) => sessions,
        })
    }

    pub(crate) async fn write_index(&self, sessions: &[SessionMeta]) -> Result<(), StorageError> {
        let entries: Vec<Value> = sessions.iter().map(SessionMeta::to_value).collect();
        self.write_key(
            storage_keys::SESSION_INDEX,
            json!({ "version": VERSION, "sessions": entries }),
        )
        .await
    }

    /// The messages of an entry's body, `None` when it is missing or does not
    /// belong to the entry.
    pub(crate) async fn read_body(&self, meta: &SessionMeta) -> Result<Option<Vec<Value>>, StorageError> {
        let Some(body) = self.read_key(&meta.body_key()).await? else {
            return Ok(None);
        };
        let valid = body.get("version").and_then(js::as_number) == Some(f64::from(VERSION))
            && body.get("id").and_then(Value::as_str) == Some(meta.id.as_str());
        Ok(match body.get("messages") {
            Some(Value::Array(messages)) if valid => Some(messages.clone()),
            _ => None,
        })
    }

    /// A fresh versioned body key.
    pub(crate) fn new_body_key(&self, id: &str) -> String {
        format!("{}{id}.{}", storage_keys::SESSION_BODY_PREFIX, self.clock.uuid())
    }

    pub(crate) fn now(&self) -> f64 {
        self.clock.now_ms()
    }

    // ----- Repository checks, once per worker instance -----

    /// Holds the queue and makes sure the repository is ready.
    pub(crate) async fn begin(&self) -> Result<QueueGuard<'a>, StorageError> {
        let guard = self.store.queue.lock().await;
        self.ensure_ready().await?;
        Ok(guard)
    }

    /// The checks once per instance. A refused write names the migration
    /// or the preparation, not the request that happened to come first.
    async fn ensure_ready(&self) -> Result<(), StorageError> {
        if self.store.ready.get() {
            return Ok(());
        }
        self.assert_missing_index_recoverable().await?;
        self.migrate_legacy()
            .await
            .map_err(|error| error.during(StorageAction::MigrateChats))?;
        let prepare = |error: StorageError| error.during(StorageAction::PrepareChats);
        self.backfill_summaries().await.map_err(prepare)?;
        self.remove_orphan_bodies().await.map_err(prepare)?;
        self.store.ready.set(true);
        Ok(())
    }

    /// Gives entries written before `preview`/`searchText` existed their
    /// summaries, once.
    async fn backfill_summaries(&self) -> Result<(), StorageError> {
        let IndexState::Valid(mut sessions) = self.read_index().await? else {
            return Ok(());
        };
        let mut changed = false;
        for meta in &mut sessions {
            if meta.preview.is_some() && meta.search_text.is_some() {
                continue;
            }
            if let Some(messages) = self.read_body(meta).await? {
                let (preview, search_text) = summary(&messages);
                meta.preview = Some(preview);
                meta.search_text = Some(search_text);
                changed = true;
            }
        }
        if changed {
            self.write_index(&sessions).await?;
        }
        Ok(())
    }

    /// Removes bodies no index entry references (left by interrupted writes).
    /// Only with a valid index: a missing one may be the lost half of a
    /// repository whose bodies are the user's only copy.
    async fn remove_orphan_bodies(&self) -> Result<(), StorageError> {
        let IndexState::Valid(sessions) = self.read_index().await? else {
            return Ok(());
        };
        let referenced: HashSet<String> = sessions.iter().map(SessionMeta::body_key).collect();
        let orphans: Vec<String> = self
            .body_keys()
            .await?
            .into_iter()
            .filter(|key| !referenced.contains(key))
            .collect();
        if !orphans.is_empty() {
            self.remove_keys(&orphans).await?;
        }
        Ok(())
    }

    // ----- Chat operations -----

    /// `SESSION_LIST`: the public metadata of a project's chats, newest first.
    pub(crate) async fn list(&self, project_id: &str) -> Result<Vec<Value>, StorageError> {
        let _guard = self.begin().await?;
        let mut sessions: Vec<SessionMeta> = self
            .load_index()
            .await?
            .into_iter()
            .filter(|meta| meta.project_id == project_id)
            .collect();
        protocol::js::sort_by(&mut sessions, |a, b| b.updated_at.total_cmp(&a.updated_at));
        Ok(sessions.iter().map(|meta| meta.public(false)).collect())
    }

    /// `SESSION_CREATE`: an empty chat. Its body is stored before the index
    /// names it, and removed again if the index cannot be written.
    pub(crate) async fn create(&self, project_id: &str, name: Option<&str>) -> Result<Value, StorageError> {
        let _guard = self.begin().await?;
        let mut sessions = self.load_index().await?;
        let now = self.now();
        let id = self.clock.uuid();
        let name = chat_name(name.unwrap_or_default());
        let built = build_body(&id, &[], now)?;
        let key = self.new_body_key(&id);
        self.write_key(&key, built.body).await?;
        sessions.push(SessionMeta::describe(
            &id,
            project_id,
            &name,
            now,
            now,
            &[],
            built.bytes,
            key.clone(),
            false,
            now,
        ));
        if let Err(error) = self.write_index(&sessions).await {
            self.remove_best_effort(&key).await;
            return Err(error);
        }
        Ok(json!({
            "id": id,
            "projectId": project_id,
            "name": name,
            "messages": [],
            "createdAt": js::number_value(now),
            "updatedAt": js::number_value(now),
            "userRenamed": false,
        }))
    }

    /// `SESSION_GET`: the full record with messages, `None` when unknown or
    /// when its body is missing.
    pub(crate) async fn get(&self, session_id: &str) -> Result<Option<Value>, StorageError> {
        let _guard = self.begin().await?;
        self.get_locked(session_id).await
    }

    async fn get_locked(&self, session_id: &str) -> Result<Option<Value>, StorageError> {
        let sessions = self.load_index().await?;
        let Some(meta) = sessions.iter().find(|meta| meta.id == session_id) else {
            return Ok(None);
        };
        Ok(self.read_body(meta).await?.map(|messages| meta.with_messages(messages)))
    }

    /// `SESSION_UPDATE`: the updated record with messages, `None` when the
    /// chat is unknown.
    pub(crate) async fn update(
        &self,
        session_id: &str,
        changes: SessionChanges,
    ) -> Result<Option<Value>, StorageError> {
        let _guard = self.begin().await?;
        self.update_locked(session_id, changes).await
    }

    async fn update_locked(&self, session_id: &str, changes: SessionChanges) -> Result<Option<Value>, StorageError> {
        let mut sessions = self.load_index().await?;
        let Some(position) = sessions.iter().position(|meta| meta.id == session_id) else {
            return Ok(None);
        };
        let Some(old) = sessions.get(position).cloned() else {
            return Ok(None);
        };
        let Some(old_messages) = self.read_body(&old).await? else {
            return Err(StorageError::new(
                StorageErrorCode::BodyMissing,
                "The saved messages of this chat are missing.",
            ));
        };
        if changes.auto_name && old.user_renamed {
            return Ok(Some(old.with_messages(old_messages)));
        }
        let now = self.now();
        let name = changes.name.unwrap_or_else(|| old.name.clone());
        let messages = changes.messages.unwrap_or(old_messages);
        let built = build_body(session_id, &messages, now)?;
        let key = self.new_body_key(session_id);
        self.write_key(&key, built.body).await?;
        let next = SessionMeta::describe(
            session_id,
            &old.project_id,
            &name,
            old.created_at,
            now,
            &built.messages,
            built.bytes,
            key.clone(),
            changes.user_renamed.unwrap_or(old.user_renamed),
            now,
        );
        if let Some(slot) = sessions.get_mut(position) {
            *slot = next.clone();
        }
        if let Err(error) = self.write_index(&sessions).await {
            self.remove_best_effort(&key).await;
            return Err(error);
        }
        let old_key = old.body_key();
        if old_key != key {
            self.remove_best_effort(&old_key).await;
        }
        Ok(Some(next.with_messages(built.messages)))
    }

    /// `SESSION_DELETE`: removes the chat, its edit checkpoints and its
    /// automatic snapshots (manual and rescue snapshots stay).
    pub(crate) async fn delete(&self, session_id: &str) -> Result<Value, StorageError> {
        self.delete_where("sessionId", session_id, |meta| meta.id == session_id)
            .await
    }

    /// `SESSION_DELETE_BY_PROJECT`: every chat of a project, with their
    /// checkpoints and automatic snapshots.
    pub(crate) async fn delete_by_project(&self, project_id: &str) -> Result<Value, StorageError> {
        self.delete_where("projectId", project_id, |meta| meta.project_id == project_id)
            .await
    }

    /// Removes the chats `selected` picks, then the journal entries whose
    /// `field` equals `value`, then writes the index; bodies go last, best
    /// effort (a leftover is an orphan the next start cleans up).
    async fn delete_where(
        &self,
        field: &str,
        value: &str,
        selected: impl Fn(&SessionMeta) -> bool,
    ) -> Result<Value, StorageError> {
        let _guard = self.begin().await?;
        let sessions = self.load_index().await?;
        let (removed, kept): (Vec<SessionMeta>, Vec<SessionMeta>) =
            sessions.into_iter().partition(|meta| selected(meta));
        journals::forget_chats_unlocked(self.storage, field, value).await?;
        self.write_index(&kept).await?;
        for meta in &removed {
            self.remove_best_effort(&meta.body_key()).await;
        }
        Ok(json!({ "ok": true, "removed": removed.len() }))
    }

    /// `SESSION_LIST_ALL_GROUPED`: chats grouped by project (with search
    /// text), groups by last activity, newest first.
    pub(crate) async fn list_all_grouped(&self) -> Result<Vec<Value>, StorageError> {
        let _guard = self.begin().await?;
        let mut groups: Vec<(String, Vec<SessionMeta>)> = Vec::new();
        for meta in self.load_index().await? {
            match groups.iter_mut().find(|(project, _)| *project == meta.project_id) {
                Some((_, members)) => members.push(meta),
                None => groups.push((meta.project_id.clone(), vec![meta])),
            }
        }
        let mut summaries: Vec<(f64, Value)> = groups
            .into_iter()
            .map(|(project_id, mut members)| {
                protocol::js::sort_by(&mut members, |a, b| b.updated_at.total_cmp(&a.updated_at));
                let last_activity = members.iter().fold(0.0_f64, |max, meta| max.max(meta.updated_at));
                let total_messages: u64 = members.iter().map(|meta| meta.message_count).sum();
                let approx_bytes: f64 = members.iter().map(|meta| meta.approx_bytes).sum();
                let sessions: Vec<Value> = members.iter().map(|meta| meta.public(true)).collect();
                let value = json!({
                    "projectId": project_id,
                    "sessions": sessions,
                    "lastActivity": js::number_value(last_activity),
                    "totalMessages": total_messages,
                    "approxBytes": js::number_value(approx_bytes),
                });
                (last_activity, value)
            })
            .collect();
        protocol::js::sort_by(&mut summaries, |a, b| b.0.total_cmp(&a.0));
        Ok(summaries.into_iter().map(|(_, value)| value).collect())
    }

    /// `SESSION_STORAGE_STATUS`: bytes used by all local data, and whether
    /// that is past the warning threshold; while the migration backup holds
    /// old chats the schema refused, also `legacyBackup: {key, records}`.
    pub(crate) async fn storage_status(&self) -> Result<Value, StorageError> {
        let _guard = self.begin().await?;
        let bytes = self
            .storage
            .bytes_in_use()
            .await
            .map_err(|error| StorageError::read(&error))?;
        let mut status = json!({
            "bytes": bytes,
            "warning": bytes >= u64::from(STORAGE_WARNING_BYTES),
            "warningThreshold": STORAGE_WARNING_BYTES,
        });
        let backup = self.read_key(storage_keys::SESSION_MIGRATION_BACKUP).await?;
        let records = backup
            .as_ref()
            .and_then(|b| b.get("records"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if records > 0
            && let Some(map) = status.as_object_mut()
        {
            map.insert(
                "legacyBackup".into(),
                json!({ "key": storage_keys::SESSION_MIGRATION_BACKUP, "records": records }),
            );
        }
        Ok(status)
    }

    /// Saves a run's answer to the chat it was started from (not the chat the
    /// panel shows now), for runs that end while no panel saves them.
    ///
    /// `run_start_messages` are the chat's display messages when the run
    /// started and `entry` is the assistant display message the run
    /// produced. The chat keeps whichever is longer of its stored messages
    /// and `run_start_messages`; if that list already ends with the same
    /// answer (same content, reasoning and tool calls) only its
    /// `responseStatus` is updated, otherwise `entry` is appended. Load,
    /// decision and write happen under one hold of the queue, so a panel
    /// save cannot slip in between.
    pub(crate) async fn persist_run_transcript(
        &self,
        session_id: &str,
        run_start_messages: &[Value],
        entry: &Value,
    ) -> Result<TranscriptOutcome, StorageError> {
        let _guard = self.begin().await?;
        self.persist_run_transcript_locked(session_id, run_start_messages, entry)
            .await
            .map_err(|error| error.during(StorageAction::SaveRunAnswer))
    }

    async fn persist_run_transcript_locked(
        &self,
        session_id: &str,
        run_start_messages: &[Value],
        entry: &Value,
    ) -> Result<TranscriptOutcome, StorageError> {
        let now = self.now();
        let entry = normalize::normalize_message(entry, Origin::Local, now)
            .map_err(|reason| StorageError::invalid_record(format!("The run's answer cannot be saved: {reason}")))?;
        let sessions = self.load_index().await?;
        let Some(meta) = sessions.iter().find(|meta| meta.id == session_id) else {
            return Ok(TranscriptOutcome::SessionMissing);
        };
        let Some(stored) = self.read_body(meta).await? else {
            return Ok(TranscriptOutcome::SessionMissing);
        };
        let mut messages = if stored.len() >= run_start_messages.len() {
            stored
        } else {
            run_start_messages.to_vec()
        };
        let empty = Value::Array(Vec::new());
        let same_answer = messages.last().is_some_and(|last| {
            last.get("role").and_then(Value::as_str) == Some("assistant")
                && last.get("content") == entry.get("content")
                && last.get("reasoning") == entry.get("reasoning")
                && js::deep_equal(
                    last.get("toolCalls").unwrap_or(&empty),
                    entry.get("toolCalls").unwrap_or(&empty),
                )
        });
        let outcome = if same_answer {
            let Some(Value::Object(last)) = messages.last_mut() else {
                return Ok(TranscriptOutcome::Unchanged);
            };
            if last.get("responseStatus") == entry.get("responseStatus") {
                return Ok(TranscriptOutcome::Unchanged);
            }
            match entry.get("responseStatus") {
                Some(status) => last.insert("responseStatus".into(), status.clone()),
                None => last.remove("responseStatus"),
            };
            TranscriptOutcome::StatusUpdated
        } else {
            messages.push(entry);
            TranscriptOutcome::Appended
        };
        let changes = SessionChanges {
            messages: Some(messages),
            ..SessionChanges::default()
        };
        Ok(match self.update_locked(session_id, changes).await? {
            Some(_) => outcome,
            None => TranscriptOutcome::SessionMissing,
        })
    }
}
