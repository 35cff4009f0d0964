//! The move of version-1 chats (`typstAgent.sessions`, one array of whole
//! chats) into the v2 repository, and the guard against a missing index.
//!
//! The migration can stop at any write (quota, a worker stopped by Chrome)
//! and resumes from its marker (`typstAgent.sessionMigration.v2`): each chat
//! is written, read back, added to the index and only then marked done, and
//! the version-1 array is removed only after every migrated chat was
//! verified. Records that fail the display schema are counted as rejected
//! (marker id `legacy-index-<i>`) instead of stopping the migration. Ids are
//! deterministic, so a resumed run recognises what an earlier one wrote:
//! a record's own id, or `legacy-<i>-<stableId(projectId NUL name)>`, with a
//! longer collision-safe id when two records would share one.

use crate::platform::{Clock, Storage};
use crate::sessions::normalize::{ImportedRecord, normalize_imported_record};
use crate::sessions::repository::{IndexState, SessionMeta, build_body};
use crate::sessions::store::Sessions;
use crate::storage::{StorageError, StorageErrorCode, json_bytes};
use protocol::constants::{schema_versions, storage_keys};
use protocol::js;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Longest prefix of a base id kept in a collision-safe id.
const COLLISION_BASE_CHARS: usize = 80;
/// Attempts at a collision-free id before giving up.
const COLLISION_ATTEMPTS: u32 = 100;

/// FNV-1a (32-bit, seeded 2166136261) over the first UTF-16 unit of every
/// code point, printed in unpadded base 36 — the original's `stableId`, so
/// ids derived from the same record match across versions.
pub(crate) fn stable_id(text: &str) -> String {
    let mut hash: u32 = 2_166_136_261;
    for ch in text.chars() {
        let mut units = [0u16; 2];
        let first = ch.encode_utf16(&mut units).first().copied().unwrap_or_default();
        hash = (hash ^ u32::from(first)).wrapping_mul(16_777_619);
    }
    to_base36(hash)
}

fn to_base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS.get((value % 36) as usize).copied().unwrap_or(b'0'));
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

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
/// content. (Object keys are fingerprinted in sorted order, so an id can
/// differ from the one the JavaScript version would have derived for a
/// migration it started and this version resumes; the record is then
/// migrated under the new id and nothing is lost.)
fn collision_safe_id(base: &str, record: &ImportedRecord, index: usize, attempt: u32) -> String {
    let fingerprint = stable_id(&js::json_stringify(&json!({
        "projectId": record.project_id,
        "name": record.name,
        "messages": record.messages,
    })));
    let base = js::truncate_utf16(base, COLLISION_BASE_CHARS);
    if attempt == 0 {
        format!("{base}-legacy-{index}-{fingerprint}")
    } else {
        format!("{base}-legacy-{index}-{fingerprint}-{attempt}")
    }
}

/// The body a record migrates to. Version-1 chats may exceed today's 1 MiB
/// cap; they are kept whole and marked `oversizedLegacy` rather than cut.
fn legacy_body(id: &str, messages: &[Value], now: f64) -> Result<(Value, u64), StorageError> {
    match build_body(id, messages, now) {
        Ok(built) => Ok((built.body, built.bytes)),
        Err(error) if error.code == StorageErrorCode::TooLarge => {
            let body = json!({
                "version": schema_versions::SESSION_REPOSITORY,
                "id": id,
                "messages": messages,
                "oversizedLegacy": true,
            });
            let bytes = json_bytes(&body);
            Ok((body, bytes))
        }
        Err(error) => Err(error),
    }
}

struct Marker {
    completed: Vec<String>,
    rejected: f64,
}

impl Marker {
    fn add(&mut self, id: &str) {
        if !self.completed.iter().any(|done| done == id) {
            self.completed.push(id.to_owned());
        }
    }

    fn has(&self, id: &str) -> bool {
        self.completed.iter().any(|done| done == id)
    }
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
            let now = self.now();
            let mut expected: HashMap<String, Value> = HashMap::new();
            let mut unambiguous = true;
            for (index, raw) in records.iter().enumerate() {
                let Ok(record) = normalize_imported_record(raw, now) else {
                    continue;
                };
                let id = legacy_session_id(&record, index);
                let (body, _) = legacy_body(&id, &record.messages, now)?;
                if expected.get(&id).is_some_and(|other| !js::deep_equal(other, &body)) {
                    unambiguous = false;
                }
                expected.insert(id, body);
            }
            for key in &body_keys {
                let body = self.read_key(key).await?;
                let matches = body.as_ref().is_some_and(|body| {
                    body.get("id")
                        .and_then(Value::as_str)
                        .and_then(|id| expected.get(id))
                        .is_some_and(|wanted| js::deep_equal(wanted, body))
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

    /// Moves version-1 chats into the repository (see the module docs).
    pub(super) async fn migrate_legacy(&self) -> Result<(), StorageError> {
        let stored_marker = self.read_key(storage_keys::SESSION_MIGRATION).await?;
        if js::is_truthy(stored_marker.as_ref().and_then(|m| m.get("complete"))) {
            // Finish a cleanup an earlier instance could not complete.
            return self.remove_keys(&[storage_keys::SESSIONS.to_owned()]).await;
        }
        let legacy = self.read_key(storage_keys::SESSIONS).await?;
        let legacy_is_list = legacy.as_ref().is_none_or(Value::is_array);
        let records: Vec<Value> = legacy.as_ref().and_then(Value::as_array).cloned().unwrap_or_default();
        let mut sessions = self.load_index().await?;
        let mut marker = Marker {
            completed: stored_marker
                .as_ref()
                .and_then(|m| m.get("completedIds"))
                .and_then(Value::as_array)
                .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
            rejected: stored_marker
                .as_ref()
                .and_then(|m| m.get("rejected"))
                .and_then(js::as_number)
                .filter(|n| n.is_finite())
                .unwrap_or(0.0),
        };
        let now = self.now();
        let normalized: Vec<Option<ImportedRecord>> = records
            .iter()
            .map(|raw| normalize_imported_record(raw, now).ok())
            .collect();
        let mut base_counts: HashMap<String, usize> = HashMap::new();
        for (index, record) in normalized.iter().enumerate() {
            if let Some(record) = record {
                *base_counts.entry(legacy_session_id(record, index)).or_default() += 1;
            }
        }
        let mut expected: Vec<String> = Vec::new();
        for (index, record) in normalized.iter().enumerate() {
            let Some(record) = record else {
                let rejection = format!("legacy-index-{index}");
                if !marker.has(&rejection) {
                    marker.rejected += 1.0;
                }
                marker.add(&rejection);
                self.write_marker(&marker, None).await?;
                continue;
            };
            let duplicated = base_counts
                .get(&legacy_session_id(record, index))
                .is_some_and(|count| *count > 1);
            let id = self.resolve_legacy_id(record, index, duplicated, &sessions).await?;
            expected.push(id.clone());
            let exists = sessions.iter().any(|meta| meta.id == id);
            if marker.has(&id) && exists {
                continue;
            }
            if !exists {
                let (body, bytes) = legacy_body(&id, &record.messages, now)?;
                let key = self.new_body_key(&id);
                self.write_key(&key, body).await?;
                let meta = SessionMeta::describe(
                    &id,
                    &record.project_id,
                    &record.name,
                    record.created_at,
                    record.updated_at,
                    &record.messages,
                    bytes,
                    key,
                    false,
                    now,
                );
                if self.read_body(&meta).await?.is_none() {
                    return Err(StorageError::new(
                        StorageErrorCode::MigrationVerifyFailed,
                        "An old chat could not be read back after it was moved; nothing was removed.",
                    ));
                }
                sessions.push(meta);
                self.write_index(&sessions).await?;
            }
            marker.add(&id);
            self.write_marker(&marker, None).await?;
        }
        let final_sessions = self.load_index().await?;
        for id in &expected {
            let readable = match final_sessions.iter().find(|meta| &meta.id == id) {
                Some(meta) => self.read_body(meta).await?.is_some(),
                None => false,
            };
            if !readable {
                return Err(StorageError::new(
                    StorageErrorCode::MigrationVerifyFailed,
                    format!("The moved chat {id} failed its final check; the old chats were kept."),
                ));
            }
        }
        self.write_marker(&marker, Some(now)).await?;
        if legacy_is_list {
            self.remove_keys(&[storage_keys::SESSIONS.to_owned()]).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stable_ids_match_the_original_hash() {
        // FNV-1a of the empty string is the seed itself.
        assert_eq!(stable_id(""), to_base36(2_166_136_261));
        // "a": (2166136261 ^ 97) * 16777619 mod 2^32 = 0xe40c292c.
        assert_eq!(stable_id("a"), to_base36(0xe40c_292c));
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(35), "z");
        assert_eq!(to_base36(36), "10");
        // Astral characters hash by their high surrogate only.
        // Astral characters hash by their high surrogate only (U+1F600 and
        // U+1F601 share 0xD83D).
        assert_eq!(stable_id("\u{1F600}"), stable_id("\u{1F601}"));
        assert_ne!(stable_id("ab"), stable_id("ba"));
    }
}
