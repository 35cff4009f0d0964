//! The move of version-1 chats (`typstAgent.sessions`, one array of whole
//! chats) into the v2 repository, and the guard against a missing index.
//!
//! The migration can stop at any write (quota, a worker stopped by Chrome)
//! and resumes from its marker (`typstAgent.sessionMigration.v2`): each chat
//! is written, read back and compared, added to the index and only then
//! marked done. Ids are deterministic and the original's, so a resumed run
//! recognises what an earlier one wrote and the same data gives the same ids:
//! a record's own id, or `legacy-<i>-<stableId(projectId NUL name)>`, with a
//! longer collision-safe id (`<base>-legacy-<i>-<fingerprint>`) when two
//! records would share one ([`fingerprint`](super::fingerprint)).
//!
//! No chat is lost, which is where this differs from the original. A record
//! that fails the display schema is still counted as rejected in the marker
//! (`legacy-index-<i>`, as the original counts it), but it is also
//! (1) copied exactly as stored into the backup key
//! (`typstAgent.sessionMigrationBackup.v2`, written and read back before
//! anything else of it), and (2) migrated in a repaired form ([`repair`](super::repair))
//! whose body is marked `repairedLegacy`. The version-1 array is removed only
//! after every chat it held is readable in v2 and every refused record is in
//! the backup. A completed marker with a version-1 array still present (an
//! interrupted cleanup, or chats written by an older version afterwards)
//! runs the migration again instead of deleting the array unseen; chats
//! already moved are recognised and not copied twice.

use crate::platform::{Clock, Storage};
use crate::sessions::fingerprint::{record_text, stable_id};
use crate::sessions::normalize::{ImportedRecord, normalize_imported_record};
use crate::sessions::repair::repair_record;
use crate::sessions::repository::{IndexState, SessionMeta, build_body};
use crate::sessions::store::Sessions;
use crate::storage::{StorageError, StorageErrorCode, json_bytes};
use protocol::constants::{schema_versions, storage_keys};
use protocol::js;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// Longest prefix of a base id kept in a collision-safe id.
const COLLISION_BASE_CHARS: usize = 80;
/// Attempts at a collision-free id before giving up.
const COLLISION_ATTEMPTS: u32 = 100;

/// The id a version-1 record migrates to, before collision handling.
fn legacy_session_id(record: &ImportedRecord, index: usize) -> String {
    if record.id.is_empty() {
        let key = format!("{}\u{0}{}", record.project_id, record.name);
        format!("legacy-{index}-{}", stable_id(&key))
    } else {
        record.id.clone()
    }
}

/// An id for one of several records sharing a base id, fingerprinted by
/// content as the original fingerprints it.
fn collision_safe_id(base: &str, record: &ImportedRecord, index: usize, attempt: u32) -> String {
    let fingerprint = stable_id(&record_text(&record.project_id, &record.name, &record.messages));
    let base = js::truncate_utf16(base, COLLISION_BASE_CHARS);
    if attempt == 0 {
        format!("{base}-legacy-{index}-{fingerprint}")
    } else {
        format!("{base}-legacy-{index}-{fingerprint}-{attempt}")
    }
}

/// The body a record migrates to. Version-1 chats may exceed today's 1 MiB
/// cap; they are kept whole and marked `oversizedLegacy` rather than cut. A
/// repaired chat is marked `repairedLegacy`.
fn legacy_body(id: &str, messages: &[Value], repaired: bool, now: f64) -> Result<(Value, u64), StorageError> {
    let mut body = match build_body(id, messages, now) {
        Ok(built) => built.body,
        Err(error) if error.code == StorageErrorCode::TooLarge => json!({
            "version": schema_versions::SESSION_REPOSITORY,
            "id": id,
            "messages": messages,
            "oversizedLegacy": true,
        }),
        Err(error) => return Err(error),
    };
    if repaired && let Some(map) = body.as_object_mut() {
        map.insert("repairedLegacy".into(), Value::Bool(true));
    }
    let bytes = json_bytes(&body);
    Ok((body, bytes))
}

fn verify_failed(message: impl Into<String>) -> StorageError {
    StorageError::new(StorageErrorCode::MigrationVerifyFailed, message)
}

struct Marker {
    completed: Vec<String>,
    rejected: f64,
}

impl Marker {
    fn read(stored: Option<&Value>) -> Marker {
        Marker {
            completed: stored
                .and_then(|m| m.get("completedIds"))
                .and_then(Value::as_array)
                .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            rejected: stored
                .and_then(|m| m.get("rejected"))
                .and_then(js::as_number)
                .filter(|n| n.is_finite())
                .unwrap_or(0.0),
        }
    }

    fn add(&mut self, id: &str) {
        if !self.completed.iter().any(|done| done == id) {
            self.completed.push(id.to_owned());
        }
    }

    fn has(&self, id: &str) -> bool {
        self.completed.iter().any(|done| done == id)
    }
}

/// A version-1 record the display schema refused, and what became of it.
struct Refused<'r> {
    index: usize,
    raw: &'r Value,
    reason: String,
    repaired: Option<ImportedRecord>,
    migrated_as: Option<String>,
}

impl Refused<'_> {
    fn backup_entry(&self) -> Value {
        json!({
            "legacyIndex": self.index,
            "reason": self.reason,
            "migratedAs": self.migrated_as,
            "record": self.raw,
        })
    }
}

/// The body each record of the aggregate migrates to, by the id it gets
/// while the index is still empty (`None` when two different bodies would
/// take one id). The repaired forms of refused records get theirs the same
/// way, among themselves.
fn planned_bodies(records: &[Value], now: f64) -> Result<HashMap<String, Option<Value>>, StorageError> {
    let mut good = Vec::new();
    let mut repaired = Vec::new();
    for (index, raw) in records.iter().enumerate() {
        match normalize_imported_record(raw, now) {
            Ok(record) => good.push((index, record)),
            Err(_) => repaired.extend(repair_record(raw, now).map(|record| (index, record))),
        }
    }
    let mut planned: HashMap<String, Option<Value>> = HashMap::new();
    for (group, is_repaired) in [(good, false), (repaired, true)] {
        let shared = shared_bases(group.iter().map(|(index, record)| (*index, record)));
        for (index, record) in &group {
            let base = legacy_session_id(record, *index);
            let id = if shared.contains(&base) {
                collision_safe_id(&base, record, *index, 0)
            } else {
                base
            };
            let (body, _) = legacy_body(&id, &record.messages, is_repaired, now)?;
            let clash = planned
                .get(&id)
                .is_some_and(|other| !other.as_ref().is_some_and(|o| js::deep_equal(o, &body)));
            planned.insert(id, if clash { None } else { Some(body) });
        }
    }
    Ok(planned)
}

/// Base ids that more than one of `records` would take.
fn shared_bases<'r>(records: impl Iterator<Item = (usize, &'r ImportedRecord)>) -> HashSet<String> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (index, record) in records {
        *counts.entry(legacy_session_id(record, index)).or_default() += 1;
    }
    counts.into_iter().filter(|(_, n)| *n > 1).map(|(id, _)| id).collect()
}

impl<S: Storage, C: Clock> Sessions<'_, S, C> {
    async fn write_marker(&self, marker: &Marker, completed_at: Option<f64>) -> Result<(), StorageError> {
        let mut value = json!({
            "version": schema_versions::SESSION_REPOSITORY,
            "complete": completed_at.is_some(),
            "completedIds": marker.completed,
            "rejected": js::number_value(marker.rejected),
        });
        if let (Some(at), Some(map)) = (completed_at, value.as_object_mut()) {
            map.insert("completedAt".into(), js::number_value(at));
        }
        self.write_key(storage_keys::SESSION_MIGRATION, value).await
    }

    /// Refuses to go on when the index is missing but chat bodies exist —
    /// unless every body is exactly what the pending version-1 migration
    /// itself writes (an interrupted first migration).
    pub(super) async fn assert_missing_index_recoverable(&self) -> Result<(), StorageError> {
        if let IndexState::Valid(_) = self.read_index().await? {
            return Ok(());
        }
        let body_keys = self.body_keys().await?;
        if body_keys.is_empty() {
            return Ok(());
        }
        let marker = self.read_key(storage_keys::SESSION_MIGRATION).await?;
        let legacy = self.read_key(storage_keys::SESSIONS).await?;
        let complete = js::is_truthy(marker.as_ref().and_then(|m| m.get("complete")));
        let records = legacy.as_ref().and_then(Value::as_array).filter(|r| !r.is_empty());
        if let (false, Some(records)) = (complete, records) {
            let expected = planned_bodies(records, self.now())?;
            let mut unambiguous = true;
            for key in &body_keys {
                let body = self.read_key(key).await?;
                let matches = body.as_ref().is_some_and(|body| {
                    body.get("id")
                        .and_then(Value::as_str)
                        .and_then(|id| expected.get(id))
                        .is_some_and(|wanted| wanted.as_ref().is_some_and(|wanted| js::deep_equal(wanted, body)))
                });
                unambiguous &= matches;
            }
            if unambiguous {
                return Ok(());
            }
        }
        Err(StorageError::new(
            StorageErrorCode::IndexMissing,
            "The list of saved chats is missing although saved chats exist. They were left untouched; recover or \
             remove them before creating new chats.",
        ))
    }

    async fn legacy_record_matches(&self, meta: &SessionMeta, record: &ImportedRecord) -> Result<bool, StorageError> {
        let Some(messages) = self.read_body(meta).await? else {
            return Ok(false);
        };
        Ok(meta.project_id == record.project_id
            && meta.name == crate::sessions::repository::chat_name(&record.name)
            && js::deep_equal(&Value::Array(messages), &Value::Array(record.messages.clone())))
    }

    /// An id for the record that no other chat holds, reusing an existing
    /// entry only if it is this very record (written by an earlier attempt).
    async fn resolve_legacy_id(
        &self,
        record: &ImportedRecord,
        index: usize,
        duplicated: bool,
        sessions: &[SessionMeta],
    ) -> Result<String, StorageError> {
        let base = legacy_session_id(record, index);
        let mut candidate = if duplicated {
            collision_safe_id(&base, record, index, 0)
        } else {
            base.clone()
        };
        for attempt in 0..COLLISION_ATTEMPTS {
            match sessions.iter().find(|meta| meta.id == candidate) {
                None => return Ok(candidate),
                Some(existing) if self.legacy_record_matches(existing, record).await? => return Ok(candidate),
                Some(_) => candidate = collision_safe_id(&base, record, index, attempt + 1),
            }
        }
        Err(StorageError::new(
            StorageErrorCode::MigrationIdCollision,
            "No free id could be found for an old chat; nothing was changed.",
        ))
    }

    /// Stores one record under `id` unless it is there already: body, read
    /// back and compared, then the index, then the marker.
    async fn store_legacy(
        &self,
        id: &str,
        record: &ImportedRecord,
        repaired: bool,
        sessions: &mut Vec<SessionMeta>,
        marker: &mut Marker,
    ) -> Result<(), StorageError> {
        let exists = sessions.iter().any(|meta| meta.id == id);
        if marker.has(id) && exists {
            return Ok(());
        }
        if !exists {
            let now = self.now();
            let (body, bytes) = legacy_body(id, &record.messages, repaired, now)?;
            let key = self.new_body_key(id);
            self.write_key(&key, body.clone()).await?;
            let meta = SessionMeta::describe(
                id,
                &record.project_id,
                &record.name,
                record.created_at,
                record.updated_at,
                &record.messages,
                bytes,
                key,
                record.user_renamed,
                now,
            );
            let read_back = self.read_body(&meta).await?.map(Value::Array);
            if !read_back.is_some_and(|messages| Some(&messages) == body.get("messages")) {
                return Err(verify_failed(
                    "An old chat could not be read back after it was moved; nothing was removed.",
                ));
            }
            sessions.push(meta);
            self.write_index(sessions).await?;
        }
        marker.add(id);
        self.write_marker(marker, None).await
    }

    /// Adds the refused records to the backup (as stored, beside the id of
    /// their repaired form) and checks that it reads back whole.
    async fn back_up_refused(&self, refused: &[Refused<'_>]) -> Result<(), StorageError> {
        let stored = self.read_key(storage_keys::SESSION_MIGRATION_BACKUP).await?;
        let mut entries: Vec<Value> = stored
            .as_ref()
            .and_then(|b| b.get("records"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for item in refused {
            let entry = item.backup_entry();
            let same = |kept: &Value| {
                kept.get("legacyIndex") == entry.get("legacyIndex")
                    && kept
                        .get("record")
                        .is_some_and(|record| js::deep_equal(record, item.raw))
            };
            match entries.iter_mut().find(|kept| same(kept)) {
                Some(kept) => *kept = entry,
                None => entries.push(entry),
            }
        }
        let backup = json!({ "version": 1, "records": entries });
        self.write_key(storage_keys::SESSION_MIGRATION_BACKUP, backup.clone())
            .await?;
        let read_back = self.read_key(storage_keys::SESSION_MIGRATION_BACKUP).await?;
        if !read_back.is_some_and(|value| js::deep_equal(&value, &backup)) {
            return Err(verify_failed(
                "The backup of old chats could not be read back; the old chats were kept.",
            ));
        }
        Ok(())
    }

    /// Moves version-1 chats into the repository (see the module docs).
    pub(super) async fn migrate_legacy(&self) -> Result<(), StorageError> {
        let stored_marker = self.read_key(storage_keys::SESSION_MIGRATION).await?;
        let legacy = self.read_key(storage_keys::SESSIONS).await?;
        if legacy.is_none() && js::is_truthy(stored_marker.as_ref().and_then(|m| m.get("complete"))) {
            return Ok(());
        }
        let records: Vec<Value> = legacy.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
        let mut sessions = self.load_index().await?;
        let mut marker = Marker::read(stored_marker.as_ref());
        let now = self.now();
        let outcomes: Vec<Result<ImportedRecord, StorageError>> =
            records.iter().map(|raw| normalize_imported_record(raw, now)).collect();
        let shared = shared_bases(
            outcomes
                .iter()
                .enumerate()
                .filter_map(|(index, outcome)| outcome.as_ref().ok().map(|record| (index, record))),
        );
        let mut expected: Vec<String> = Vec::new();
        let mut refused: Vec<Refused<'_>> = Vec::new();
        for ((index, outcome), raw) in outcomes.into_iter().enumerate().zip(&records) {
            match outcome {
                Ok(record) => {
                    let duplicated = shared.contains(&legacy_session_id(&record, index));
                    let id = self.resolve_legacy_id(&record, index, duplicated, &sessions).await?;
                    self.store_legacy(&id, &record, false, &mut sessions, &mut marker)
                        .await?;
                    expected.push(id);
                }
                Err(error) => {
                    let rejection = format!("legacy-index-{index}");
                    if !marker.has(&rejection) {
                        marker.rejected += 1.0;
                    }
                    marker.add(&rejection);
                    self.write_marker(&marker, None).await?;
                    let repaired = repair_record(raw, now);
                    refused.push(Refused {
                        index,
                        raw,
                        reason: error.message,
                        repaired,
                        migrated_as: None,
                    });
                }
            }
        }
        self.migrate_refused(&mut refused, &mut sessions, &mut marker, &mut expected)
            .await?;
        self.finish_migration(&expected, &marker, legacy.as_ref().is_none_or(Value::is_array))
            .await
    }

    /// Backs the refused records up, then migrates their repaired forms.
    async fn migrate_refused(
        &self,
        refused: &mut [Refused<'_>],
        sessions: &mut Vec<SessionMeta>,
        marker: &mut Marker,
        expected: &mut Vec<String>,
    ) -> Result<(), StorageError> {
        if refused.is_empty() {
            return Ok(());
        }
        let shared = shared_bases(
            refused
                .iter()
                .filter_map(|item| item.repaired.as_ref().map(|record| (item.index, record))),
        );
        for item in refused.iter_mut() {
            if let Some(record) = &item.repaired {
                let duplicated = shared.contains(&legacy_session_id(record, item.index));
                item.migrated_as = Some(self.resolve_legacy_id(record, item.index, duplicated, sessions).await?);
            }
        }
        self.back_up_refused(refused).await?;
        for item in refused.iter() {
            if let (Some(record), Some(id)) = (&item.repaired, &item.migrated_as) {
                self.store_legacy(id, record, true, sessions, marker).await?;
                expected.push(id.clone());
            }
        }
        Ok(())
    }

    /// Checks that every moved chat is readable, marks the migration
    /// complete and only then removes the version-1 array.
    async fn finish_migration(&self, expected: &[String], marker: &Marker, remove: bool) -> Result<(), StorageError> {
        let final_sessions = self.load_index().await?;
        for id in expected {
            let readable = match final_sessions.iter().find(|meta| &meta.id == id) {
                Some(meta) => self.read_body(meta).await?.is_some(),
                None => false,
            };
            if !readable {
                return Err(verify_failed(format!(
                    "The moved chat {id} failed its final check; the old chats were kept."
                )));
            }
        }
        self.write_marker(marker, Some(self.now())).await?;
        if remove {
            self.remove_keys(&[storage_keys::SESSIONS.to_owned()]).await?;
        }
        Ok(())
    }
}
