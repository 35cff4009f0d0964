//! The portable chat format: `SESSION_EXPORT` and `SESSION_IMPORT`.
//!
//! An export holds chats only — no settings, keys, headers, tools, servers,
//! trust decisions, checkpoints or snapshots — and drops each message's local
//! editor-state updates. Each chat carries `userRenamed` (the original's
//! exports do not, so a chat the user named was auto-named again after an
//! import; a file without it imports as not renamed). An import accepts
//! that document (version 2), the version-1 `{version: 1, sessions}` form or
//! a bare array, within the original's bounds (16 MiB of JSON, 500 records,
//! 8 MiB of stored bodies), normalises every record as imported (no local
//! state, receipts unavailable), counts records it cannot keep as rejected
//! and ids it had to replace as renamed, never touches an existing chat,
//! and publishes all accepted chats with one index write: if a body or that
//! write fails, the bodies already written are removed again and the
//! repository is as before.

use crate::platform::{Clock, Storage};
use crate::sessions::normalize::normalize_imported_record;
use crate::sessions::repository::{SessionMeta, build_body, format_bytes};
use crate::sessions::store::Sessions;
use crate::storage::{StorageError, StorageErrorCode, json_bytes};
use protocol::constants::schema_versions;
use protocol::js;
use protocol::limits::{
    MAX_PERSISTED_PREVIEW_CHARS, MAX_PERSISTED_TOOL_RESULT_CHARS, MAX_SESSION_BODY_BYTES,
    MAX_SESSION_IMPORT_BODY_BYTES, MAX_SESSION_IMPORT_FILE_BYTES, MAX_SESSION_IMPORT_RECORDS,
};
use serde_json::{Value, json};
use std::collections::HashSet;

/// The import `version` (a bare array is version 1; a missing version too).
fn import_version(data: &Value) -> Option<f64> {
    if data.is_array() {
        return Some(1.0);
    }
    let version = data.get("version");
    if !js::is_truthy(version) {
        return Some(1.0);
    }
    match version? {
        Value::Number(_) => version.and_then(js::as_number),
        Value::String(text) => js::js_trim(text).parse::<f64>().ok(),
        _ => None,
    }
}

/// A message as exported: everything but local editor-state updates.
fn portable(message: &Value) -> Value {
    let mut message = message.clone();
    if let Some(map) = message.as_object_mut() {
        map.remove("editorStateUpdates");
    }
    message
}

impl<S: Storage, C: Clock> Sessions<'_, S, C> {
    /// `SESSION_EXPORT`: every readable chat in the portable format.
    pub(crate) async fn export(&self) -> Result<Value, StorageError> {
        let _guard = self.begin().await?;
        let mut sessions = Vec::new();
        for meta in self.load_index().await? {
            let Some(messages) = self.read_body(&meta).await? else {
                continue;
            };
            sessions.push(json!({
                "id": meta.id,
                "projectId": meta.project_id,
                "name": meta.name,
                "createdAt": js::number_value(meta.created_at),
                "updatedAt": js::number_value(meta.updated_at),
                "messages": messages.iter().map(portable).collect::<Vec<_>>(),
                "userRenamed": meta.user_renamed,
            }));
        }
        Ok(json!({
            "format": schema_versions::SESSION_EXPORT_FORMAT,
            "version": schema_versions::SESSION_EXPORT,
            "exportedAt": js::number_value(self.now()),
            "retention": {
                "previewMaxBytes": MAX_PERSISTED_PREVIEW_CHARS,
                "toolResultMaxChars": MAX_PERSISTED_TOOL_RESULT_CHARS,
                "sessionMaxBytes": MAX_SESSION_BODY_BYTES,
            },
            "sessions": sessions,
        }))
    }

    /// `SESSION_IMPORT`: `{ok: true, imported, rejected, renamed}` — `renamed`
    /// counts the imported chats whose id was taken and that got a fresh one.
    pub(crate) async fn import(&self, data: &Value) -> Result<Value, StorageError> {
        let _guard = self.begin().await?;
        if json_bytes(data) > u64::from(MAX_SESSION_IMPORT_FILE_BYTES) {
            return Err(StorageError::new(
                StorageErrorCode::ImportSizeLimit,
                format!(
                    "The import is larger than {}; nothing was imported.",
                    format_bytes(u64::from(MAX_SESSION_IMPORT_FILE_BYTES))
                ),
            ));
        }
        let records = match (import_version(data), data) {
            (_, Value::Array(records)) => records,
            (Some(version), _) if version == 1.0 || version == 2.0 => match data.get("sessions") {
                Some(Value::Array(records)) => records,
                _ => return Err(unsupported()),
            },
            _ => return Err(unsupported()),
        };
        if records.len() > MAX_SESSION_IMPORT_RECORDS as usize {
            return Err(StorageError::new(
                StorageErrorCode::ImportRecordLimit,
                format!("An import may hold at most {MAX_SESSION_IMPORT_RECORDS} chats; nothing was imported."),
            ));
        }
        let mut sessions = self.load_index().await?;
        let mut taken: HashSet<String> = sessions.iter().map(|meta| meta.id.clone()).collect();
        let now = self.now();
        let mut prepared: Vec<(String, Value, SessionMeta)> = Vec::new();
        let mut rejected = 0_u64;
        let mut renamed = 0_u64;
        let mut total_bytes = 0_u64;
        for record in records {
            let Ok(record) = normalize_imported_record(record, now) else {
                rejected += 1;
                continue;
            };
            let mut id = if record.id.is_empty() {
                self.clock.uuid()
            } else {
                record.id.clone()
            };
            if taken.contains(&id) {
                id = self.clock.uuid();
                renamed += 1;
            }
            taken.insert(id.clone());
            let built = match build_body(&id, &record.messages, now) {
                Ok(built) => built,
                Err(error) if matches!(error.code, StorageErrorCode::TooLarge | StorageErrorCode::InvalidRecord) => {
                    rejected += 1;
                    continue;
                }
                Err(error) => return Err(error),
            };
            total_bytes += built.bytes;
            if total_bytes > u64::from(MAX_SESSION_IMPORT_BODY_BYTES) {
                return Err(StorageError::new(
                    StorageErrorCode::ImportSizeLimit,
                    format!(
                        "The imported chats together exceed {}; nothing was imported.",
                        format_bytes(u64::from(MAX_SESSION_IMPORT_BODY_BYTES))
                    ),
                ));
            }
            let key = self.new_body_key(&id);
            let meta = SessionMeta::describe(
                &id,
                &record.project_id,
                &record.name,
                record.created_at,
                record.updated_at,
                &built.messages,
                built.bytes,
                key.clone(),
                record.user_renamed,
                now,
            );
            prepared.push((key, built.body, meta));
        }
        let imported = prepared.len();
        let mut written: Vec<String> = Vec::new();
        let mut published = Ok(());
        for (key, body, meta) in prepared {
            if let Err(error) = self.write_key(&key, body).await {
                published = Err(error);
                break;
            }
            written.push(key);
            sessions.push(meta);
        }
        if published.is_ok() {
            published = self.write_index(&sessions).await;
        }
        if let Err(error) = published {
            for key in &written {
                self.remove_best_effort(key).await;
            }
            return Err(error);
        }
        Ok(json!({ "ok": true, "imported": imported, "rejected": rejected, "renamed": renamed }))
    }
}

fn unsupported() -> StorageError {
    StorageError::new(
        StorageErrorCode::UnsupportedImportVersion,
        "Only chat exports of version 1 or 2 can be imported.",
    )
}
