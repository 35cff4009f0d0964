//! Edit checkpoints: the receipts an editor write leaves in a chat, the text
//! changes the page applies, and the hashes that guard reverts.
//!
//! Offsets are UTF-16 code units, as CodeMirror counts them; hashes are
//! SHA-256 over UTF-8. The panel only ever sees the public receipt
//! (`{id, status, fileLabel, createdAt}`); imported receipts are always
//! `unavailable` because exports carry no revert data.

use crate::constants::EDITOR_WRITE_TOOLS;
use crate::document_snapshot::{bounded_js_string, finite_timestamp, is_valid_record_id};
use crate::js;
use crate::limits::{self, to_usize};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// Label used when the edited file is unknown: the same fact as the active
/// file's default label, so a receipt of an unidentified file is recognised
/// by [`crate::active_file::is_identified_file_label`].
pub const DEFAULT_EDIT_FILE_LABEL: &str = crate::active_file::DEFAULT_ACTIVE_FILE_LABEL;

/// Reason shown on receipts restored from an export.
pub const IMPORTED_UNAVAILABLE_REASON: &str = "Revert data is not included in session exports.";

/// Reason shown on receipts marked unavailable without one.
pub const DEFAULT_UNAVAILABLE_REASON: &str = "Revert data is unavailable.";

/// States of a stored checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditCheckpointStatus {
    /// Staged before the write lands; no receipt shows it.
    Prepared,
    /// The write landed; it can be reverted.
    Applied,
    /// A revert is in progress.
    Reverting,
    /// The write was reverted.
    Reverted,
}

impl EditCheckpointStatus {
    /// The stored value.
    pub const fn as_str(self) -> &'static str {
        match self {
            EditCheckpointStatus::Prepared => "prepared",
            EditCheckpointStatus::Applied => "applied",
            EditCheckpointStatus::Reverting => "reverting",
            EditCheckpointStatus::Reverted => "reverted",
        }
    }

    /// Parses a stored value; `None` for anything else.
    pub fn from_wire(value: &str) -> Option<EditCheckpointStatus> {
        match value {
            "prepared" => Some(EditCheckpointStatus::Prepared),
            "applied" => Some(EditCheckpointStatus::Applied),
            "reverting" => Some(EditCheckpointStatus::Reverting),
            "reverted" => Some(EditCheckpointStatus::Reverted),
            _ => None,
        }
    }
}

/// Statuses a receipt may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PublicCheckpointStatus {
    /// The write landed and can be reverted.
    Applied,
    /// The write was reverted.
    Reverted,
    /// The write can no longer be reverted (see the reason).
    Unavailable,
}

impl PublicCheckpointStatus {
    fn from_wire(value: &str) -> Option<PublicCheckpointStatus> {
        match value {
            "applied" => Some(PublicCheckpointStatus::Applied),
            "reverted" => Some(PublicCheckpointStatus::Reverted),
            "unavailable" => Some(PublicCheckpointStatus::Unavailable),
            _ => None,
        }
    }
}

/// The receipt of an editor write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicEditCheckpoint {
    /// The checkpoint's record id.
    pub id: String,
    /// What the receipt shows.
    pub status: PublicCheckpointStatus,
    /// The file written, as the user knows it.
    pub file_label: String,
    /// When the write happened, in milliseconds since the epoch.
    pub created_at: f64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    /// Why a revert is impossible (unavailable receipts only).
    pub unavailable_reason: Option<String>,
}

/// Whether a built-in tool name is an editor write (and so leaves a receipt).
pub fn is_edit_checkpoint_tool_name(name: &str) -> bool {
    EDITOR_WRITE_TOOLS.contains(&name)
}

fn file_label_or_default(value: Option<&Value>) -> String {
    let source = js::or_else(value, &Value::Null);
    if js::is_truthy(Some(source)) {
        bounded_js_string(Some(source), to_usize(limits::MAX_FILE_LABEL_CHARS))
    } else {
        DEFAULT_EDIT_FILE_LABEL.to_owned()
    }
}

impl PublicEditCheckpoint {
    /// The receipt of a stored checkpoint (`publicEditCheckpoint`); only
    /// applied, reverted and unavailable records have one.
    pub fn from_record(record: &Value, now: f64) -> Option<PublicEditCheckpoint> {
        let map = record.as_object()?;
        let status = PublicCheckpointStatus::from_wire(map.get("status")?.as_str()?)?;
        let id = map.get("id")?.as_str().filter(|id| is_valid_record_id(id))?;
        Some(PublicEditCheckpoint {
            id: id.to_owned(),
            status,
            file_label: file_label_or_default(map.get("fileLabel")),
            created_at: finite_timestamp(map.get("createdAt"), now),
            unavailable_reason: None,
        })
    }

    /// `normalizePublicEditCheckpoint`: a receipt read from history; imported
    /// ones become `unavailable` with the export reason.
    pub fn normalize(value: &Value, imported: bool, now: f64) -> Option<PublicEditCheckpoint> {
        let map = value.as_object()?;
        let id = map.get("id")?.as_str().filter(|id| is_valid_record_id(id))?;
        let stored = PublicCheckpointStatus::from_wire(map.get("status")?.as_str()?)?;
        let status = if imported {
            PublicCheckpointStatus::Unavailable
        } else {
            stored
        };
        let unavailable_reason = (status == PublicCheckpointStatus::Unavailable).then(|| {
            let max = to_usize(limits::MAX_UNAVAILABLE_REASON_CHARS);
            if imported {
                IMPORTED_UNAVAILABLE_REASON.to_owned()
            } else {
                let reason = map.get("unavailableReason");
                if js::is_truthy(reason) {
                    bounded_js_string(reason, max)
                } else {
                    DEFAULT_UNAVAILABLE_REASON.to_owned()
                }
            }
        });
        Some(PublicEditCheckpoint {
            id: id.to_owned(),
            status,
            file_label: file_label_or_default(map.get("fileLabel")),
            created_at: finite_timestamp(map.get("createdAt"), now),
            unavailable_reason,
        })
    }

    /// The last valid editor-write receipt in an assistant display message
    /// (`segments[type=tools].results[callId].editCheckpoint`).
    pub fn latest_in_message(message: &Value, now: f64) -> Option<PublicEditCheckpoint> {
        let mut latest = None;
        let segments = message.get("segments").and_then(Value::as_array);
        for segment in segments.into_iter().flatten() {
            if segment.get("type").and_then(Value::as_str) != Some("tools") {
                continue;
            }
            let calls = segment.get("calls").and_then(Value::as_array);
            for call in calls.into_iter().flatten() {
                let Some(name) = call.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if !is_edit_checkpoint_tool_name(name) {
                    continue;
                }
                let call_id = call
                    .get("id")
                    .map(js::js_string)
                    .unwrap_or_else(|| "undefined".to_owned());
                let receipt = segment
                    .get("results")
                    .and_then(|results| results.get(call_id.as_str()))
                    .and_then(|result| result.get("editCheckpoint"));
                if let Some(checkpoint) = receipt.and_then(|r| PublicEditCheckpoint::normalize(r, false, now)) {
                    latest = Some(checkpoint);
                }
            }
        }
        latest
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }
}

/// One replacement in UTF-16 offsets of the original text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextChange {
    /// Start of the replaced range.
    pub from: u64,
    /// End of the replaced range (exclusive).
    pub to: u64,
    /// The text put in its place.
    pub insert: String,
}

/// Why a list of changes cannot be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextChangeError {
    /// Changes out of order, overlapping, past the end, or inside a
    /// surrogate pair.
    InvalidRange {
        /// The first change that does not fit.
        index: usize,
    },
}

impl std::fmt::Display for TextChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextChangeError::InvalidRange { index } => write!(
                f,
                "text change {index} is not sorted, non-overlapping and within the source text"
            ),
        }
    }
}

impl std::error::Error for TextChangeError {}

/// Applies sorted, non-overlapping changes (`applyTextChanges`). Offsets that
/// would split a surrogate pair are refused, since the result could not be a
/// valid string.
pub fn apply_text_changes(text: &str, changes: &[TextChange]) -> Result<String, TextChangeError> {
    let mut output = String::with_capacity(text.len());
    let mut cursor_units = 0u64;
    let mut cursor_byte = 0usize;
    for (index, change) in changes.iter().enumerate() {
        if change.from < cursor_units || change.to < change.from {
            return Err(TextChangeError::InvalidRange { index });
        }
        let invalid = TextChangeError::InvalidRange { index };
        let from = usize::try_from(change.from).map_err(|_| invalid)?;
        let to = usize::try_from(change.to).map_err(|_| invalid)?;
        let from_byte = js::utf16_offset_to_byte(text, from).ok_or(invalid)?;
        let to_byte = js::utf16_offset_to_byte(text, to).ok_or(invalid)?;
        output.push_str(text.get(cursor_byte..from_byte).ok_or(invalid)?);
        output.push_str(&change.insert);
        cursor_units = change.to;
        cursor_byte = to_byte;
    }
    output.push_str(text.get(cursor_byte..).unwrap_or_default());
    Ok(output)
}

/// Lower-case hex SHA-256 of the text's UTF-8 bytes (`sha256Text`).
pub fn sha256_text(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Whether a value is a stored hash: 64 lower-case hex digits.
pub fn is_sha256_hex(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(from: u64, to: u64, insert: &str) -> TextChange {
        TextChange {
            from,
            to,
            insert: insert.to_owned(),
        }
    }

    #[test]
    fn applies_sorted_changes_on_utf16_offsets() {
        assert_eq!(
            apply_text_changes("hello world", &[change(0, 5, "HELLO"), change(6, 11, "there")]),
            Ok("HELLO there".to_owned())
        );
        assert_eq!(apply_text_changes("a😀b", &[change(1, 3, "x")]), Ok("axb".to_owned()));
        assert_eq!(apply_text_changes("a😀b", &[change(3, 4, "")]), Ok("a😀".to_owned()));
        assert_eq!(apply_text_changes("abc", &[]), Ok("abc".to_owned()));
        assert_eq!(apply_text_changes("", &[change(0, 0, "new")]), Ok("new".to_owned()));
        for bad in [
            vec![change(2, 3, ""), change(0, 1, "")],
            vec![change(0, 2, ""), change(1, 3, "")],
            vec![change(2, 1, "")],
            vec![change(0, 5, "")],
            vec![change(2, 2, "x")],
        ] {
            assert!(apply_text_changes("a😀b", &bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            apply_text_changes("a😀b", &[change(2, 2, "x")]),
            Err(TextChangeError::InvalidRange { index: 0 })
        );
    }

    #[test]
    fn hashes_utf8_text() {
        assert_eq!(
            sha256_text(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            sha256_text("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(is_sha256_hex(&sha256_text("é😀")));
    }

    #[test]
    fn receipts_are_public_and_imports_unavailable() {
        let value = json!({"id": "edit-1", "status": "applied", "fileLabel": "main.typ", "createdAt": 4});
        assert_eq!(
            PublicEditCheckpoint::normalize(&value, false, 0.0).map(|c| c.to_value()),
            Some(json!({"id": "edit-1", "status": "applied", "fileLabel": "main.typ", "createdAt": 4.0}))
        );
        assert_eq!(
            PublicEditCheckpoint::normalize(&value, true, 0.0).map(|c| c.to_value()),
            Some(
                json!({"id": "edit-1", "status": "unavailable", "fileLabel": "main.typ", "createdAt": 4.0,
                "unavailableReason": IMPORTED_UNAVAILABLE_REASON})
            )
        );
        assert_eq!(
            PublicEditCheckpoint::normalize(&json!({"id": "x", "status": "prepared"}), false, 0.0),
            None
        );
        assert_eq!(
            PublicEditCheckpoint::from_record(&json!({"id": "x", "status": "reverted"}), 3.0)
                .map(|c| (c.file_label, c.created_at)),
            Some((DEFAULT_EDIT_FILE_LABEL.to_owned(), 3.0))
        );
    }

    #[test]
    fn latest_receipt_only_counts_editor_tools() {
        let message = json!({"segments": [
            {"type": "tools", "calls": [{"id": "a", "name": "search_replace"}, {"id": "b", "name": "custom"}],
             "results": {"a": {"editCheckpoint": {"id": "edit-a", "status": "applied"}},
                         "b": {"editCheckpoint": {"id": "edit-b", "status": "applied"}}}},
            {"type": "text", "content": "x"},
            {"type": "tools", "calls": [{"id": "c", "name": "replace_lines"}],
             "results": {"c": {"editCheckpoint": {"id": "edit-c", "status": "reverted"}}}}
        ]});
        assert_eq!(
            PublicEditCheckpoint::latest_in_message(&message, 0.0).map(|c| c.id),
            Some("edit-c".to_owned())
        );
        assert_eq!(PublicEditCheckpoint::latest_in_message(&json!({}), 0.0), None);
    }
}
