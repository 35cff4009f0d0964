//! Document snapshots as the panel sees them, and the "snapshot restored"
//! editor-state update stored with a chat.
//!
//! Snapshot bodies never leave the worker; only this bounded public metadata
//! does (in `AI_STREAM_DONE` and snapshot responses). Imported history can
//! never assert an editor-state transition.

use crate::js;
use crate::limits::{self, to_usize};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a snapshot exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotKind {
    /// Taken by the user.
    Manual,
    /// Taken after a response that edited the document.
    Automatic,
    /// Taken just before a restore, so the restore itself can be undone.
    Rescue,
}

impl SnapshotKind {
    /// Parses a wire string; `None` for anything else.
    pub fn from_wire(value: &str) -> Option<SnapshotKind> {
        match value {
            "manual" => Some(SnapshotKind::Manual),
            "automatic" => Some(SnapshotKind::Automatic),
            "rescue" => Some(SnapshotKind::Rescue),
            _ => None,
        }
    }

    /// Title used when a snapshot has none.
    pub const fn default_title(self) -> &'static str {
        match self {
            SnapshotKind::Automatic => "After latest response",
            SnapshotKind::Rescue => "Before restore",
            SnapshotKind::Manual => "Manual snapshot",
        }
    }
}

/// `kind` of the only editor-state update.
pub const SNAPSHOT_RESTORED_UPDATE_KIND: &str = "snapshot-restored";

/// Public snapshot metadata. `sessionId` only appears on automatic snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicDocumentSnapshot {
    /// The snapshot's record id.
    pub id: String,
    /// Why it was taken.
    pub kind: SnapshotKind,
    /// The project whose document it holds.
    pub project_id: String,
    /// The file it holds, as the user knows it.
    pub file_label: String,
    /// Its title (a default per kind when none was given).
    pub title: String,
    /// When it was taken, in milliseconds since the epoch.
    pub created_at: f64,
    /// Length of the held text.
    pub text_length: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    /// The chat whose response it follows (automatic snapshots only).
    pub session_id: Option<String>,
}

/// Ids of snapshots, checkpoints and models: 1–128 of `[A-Za-z0-9._:-]`.
pub fn is_valid_record_id(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= to_usize(limits::MAX_RECORD_ID_CHARS)
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

fn valid_id(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|s| is_valid_record_id(s))
}

/// `String(value ?? '').slice(0, max)`.
pub(crate) fn bounded_js_string(value: Option<&Value>, max: usize) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(v) => js::truncate_utf16(&js::js_string(v), max).to_owned(),
    }
}

/// A finite timestamp ≥ 0, else `now`.
pub(crate) fn finite_timestamp(value: Option<&Value>, now: f64) -> f64 {
    match value.and_then(js::as_number) {
        Some(n) if n.is_finite() && n >= 0.0 => n,
        _ => now,
    }
}

impl PublicDocumentSnapshot {
    /// Public metadata of a stored snapshot record (`publicDocumentSnapshot`);
    /// `now` stands in for a missing or invalid `createdAt`.
    pub fn from_record(record: &Value, now: f64) -> Option<PublicDocumentSnapshot> {
        let map = record.as_object()?;
        let id = valid_id(map.get("id"))?;
        let kind = SnapshotKind::from_wire(map.get("kind")?.as_str()?)?;
        let project_id = map.get("projectId")?.as_str()?;
        if project_id.is_empty() || js::utf16_len(project_id) > to_usize(limits::MAX_SCOPE_ID_CHARS) {
            return None;
        }
        let file_label = bounded_js_string(map.get("fileLabel"), to_usize(limits::MAX_FILE_LABEL_CHARS));
        if file_label.is_empty() {
            return None;
        }
        let title_source = js::or_else(map.get("title"), &Value::Null);
        let title = if js::is_truthy(Some(title_source)) {
            bounded_js_string(Some(title_source), to_usize(limits::MAX_SNAPSHOT_TITLE_CHARS))
        } else {
            kind.default_title().to_owned()
        };
        let text_length = map.get("textLength").and_then(js::as_safe_uint).unwrap_or(0);
        let session_id = (kind == SnapshotKind::Automatic)
            .then(|| valid_id(map.get("sessionId")).map(str::to_owned))
            .flatten();
        Some(PublicDocumentSnapshot {
            id: id.to_owned(),
            kind,
            project_id: project_id.to_owned(),
            file_label,
            title,
            created_at: finite_timestamp(map.get("createdAt"), now),
            text_length,
            session_id,
        })
    }

    /// Strict check of metadata received in a message (`AI_STREAM_DONE`):
    /// exact fields and bounds, nothing filled in.
    pub fn parse_strict(value: &Value) -> Option<PublicDocumentSnapshot> {
        let map = value.as_object()?;
        let allowed = [
            "id",
            "kind",
            "projectId",
            "fileLabel",
            "title",
            "createdAt",
            "textLength",
            "sessionId",
        ];
        if map.keys().any(|key| !allowed.contains(&key.as_str())) {
            return None;
        }
        let non_blank = |key: &str, max: u32| {
            map.get(key)
                .and_then(Value::as_str)
                .filter(|s| js::is_non_blank(s) && js::utf16_len(s) <= to_usize(max))
        };
        let id = non_blank("id", limits::MAX_RECORD_ID_CHARS)?;
        let kind = SnapshotKind::from_wire(map.get("kind")?.as_str()?)?;
        let project_id = non_blank("projectId", limits::MAX_SCOPE_ID_CHARS)?;
        let file_label = non_blank("fileLabel", limits::MAX_FILE_LABEL_CHARS)?;
        let title = map.get("title")?.as_str()?;
        if js::utf16_len(title) > to_usize(limits::MAX_SNAPSHOT_TITLE_CHARS) {
            return None;
        }
        let created_at = js::as_number(map.get("createdAt")?)?;
        if !created_at.is_finite() || created_at < 0.0 {
            return None;
        }
        let text_length = js::as_safe_uint(map.get("textLength")?)?;
        if text_length > u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS) {
            return None;
        }
        let session_id = match map.get("sessionId") {
            None | Some(Value::Null) => None,
            Some(_) => Some(non_blank("sessionId", limits::MAX_SCOPE_ID_CHARS)?.to_owned()),
        };
        Some(PublicDocumentSnapshot {
            id: id.to_owned(),
            kind,
            project_id: project_id.to_owned(),
            file_label: file_label.to_owned(),
            title: title.to_owned(),
            created_at,
            text_length,
            session_id,
        })
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }
}

/// `{kind:'snapshot-restored', snapshotId, fileLabel, restoredAt}`, stored
/// with a chat message so the model learns the document was restored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRestoredUpdate {
    /// Always `snapshot-restored`.
    pub kind: String,
    /// The snapshot that was restored.
    pub snapshot_id: String,
    /// The file it was restored into.
    pub file_label: String,
    /// When, in milliseconds since the epoch.
    pub restored_at: f64,
}

impl SnapshotRestoredUpdate {
    /// The update for restoring `snapshot` at `timestamp`
    /// (`createSnapshotRestoredEditorUpdate`).
    pub fn for_snapshot(snapshot: &Value, timestamp: f64, now: f64) -> Option<SnapshotRestoredUpdate> {
        let normalized = PublicDocumentSnapshot::from_record(snapshot, now)?;
        Some(SnapshotRestoredUpdate {
            kind: SNAPSHOT_RESTORED_UPDATE_KIND.to_owned(),
            snapshot_id: normalized.id,
            file_label: normalized.file_label,
            restored_at: if timestamp.is_finite() && timestamp >= 0.0 {
                timestamp
            } else {
                now
            },
        })
    }

    /// `normalizeEditorStateUpdate`: imported history never yields an update.
    pub fn normalize(value: &Value, imported: bool, now: f64) -> Option<SnapshotRestoredUpdate> {
        if imported {
            return None;
        }
        let map = value.as_object()?;
        if map.get("kind")?.as_str()? != SNAPSHOT_RESTORED_UPDATE_KIND {
            return None;
        }
        let snapshot_id = valid_id(map.get("snapshotId"))?;
        let file_label = bounded_js_string(map.get("fileLabel"), to_usize(limits::MAX_FILE_LABEL_CHARS));
        if file_label.is_empty() {
            return None;
        }
        Some(SnapshotRestoredUpdate {
            kind: SNAPSHOT_RESTORED_UPDATE_KIND.to_owned(),
            snapshot_id: snapshot_id.to_owned(),
            file_label,
            restored_at: finite_timestamp(map.get("restoredAt"), now),
        })
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn public_metadata_is_bounded_and_defaults_fill_in() {
        let snapshot = PublicDocumentSnapshot::from_record(
            &json!({"id": "snapshot-1", "kind": "automatic", "projectId": "p", "fileLabel": "main.typ",
                "createdAt": -4, "textLength": 1.0, "sessionId": "s", "text": "body", "runId": "r"}),
            99.0,
        );
        assert_eq!(
            snapshot.map(|s| s.to_value()),
            Some(
                json!({"id": "snapshot-1", "kind": "automatic", "projectId": "p", "fileLabel": "main.typ",
                "title": "After latest response", "createdAt": 99.0, "textLength": 1, "sessionId": "s"})
            )
        );
        let rescue = PublicDocumentSnapshot::from_record(
            &json!({"id": "x", "kind": "rescue", "projectId": "p", "fileLabel": "f", "sessionId": "s"}),
            1.0,
        );
        assert_eq!(rescue.as_ref().map(|s| s.session_id.is_none()), Some(true));
        assert_eq!(rescue.map(|s| s.title), Some("Before restore".to_owned()));
        for bad in [
            json!({"id": "bad id", "kind": "manual", "projectId": "p", "fileLabel": "f"}),
            json!({"id": "x", "kind": "other", "projectId": "p", "fileLabel": "f"}),
            json!({"id": "x", "kind": "manual", "projectId": "", "fileLabel": "f"}),
            json!({"id": "x", "kind": "manual", "projectId": "p", "fileLabel": ""}),
        ] {
            assert_eq!(PublicDocumentSnapshot::from_record(&bad, 0.0), None, "{bad}");
        }
    }

    #[test]
    fn editor_state_updates_are_never_imported() {
        let value =
            json!({"kind": "snapshot-restored", "snapshotId": "snap-1", "fileLabel": "main.typ", "restoredAt": 5});
        assert_eq!(
            SnapshotRestoredUpdate::normalize(&value, false, 0.0).map(|u| u.to_value()),
            Some(
                json!({"kind": "snapshot-restored", "snapshotId": "snap-1", "fileLabel": "main.typ", "restoredAt": 5.0})
            )
        );
        assert_eq!(SnapshotRestoredUpdate::normalize(&value, true, 0.0), None);
        let update = SnapshotRestoredUpdate::for_snapshot(
            &json!({"id": "snap-1", "kind": "manual", "projectId": "p", "fileLabel": "main.typ"}),
            7.0,
            0.0,
        );
        assert_eq!(update.map(|u| u.restored_at), Some(7.0));
    }
}
