//! Recovery requests: reverting an edit checkpoint and the document
//! snapshots (`EDIT_CHECKPOINT_REVERT`, `DOCUMENT_SNAPSHOT_*`).
//!
//! Each names the exact tab, project and chat it acts in, so a panel can only
//! touch the recovery records of the chat it shows. A restore also names the
//! document its preview was computed against (`baseHash`, `baseLength`), so
//! the worker applies only the diff the user reviewed.

use super::fields::{SCOPE_ID, exact, fail, non_blank_field, project_id, session_id, tab_id};
use crate::edit_checkpoint::is_sha256_hex;
use crate::error::{ErrorCode, ProtocolError};
use crate::limits::{self, to_usize};
use crate::wire::{self, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `EDIT_CHECKPOINT_REVERT`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditCheckpointRevert {
    /// The checkpoint to revert.
    pub checkpoint_id: String,
    /// The tab whose editor is reverted.
    pub tab_id: u64,
    /// The project the checkpoint belongs to.
    pub project_id: String,
    /// The chat the checkpoint belongs to.
    pub session_id: String,
}

impl EditCheckpointRevert {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<EditCheckpointRevert, ProtocolError> {
        let keys = ["checkpointId", "tabId", "projectId", "sessionId"];
        let f = exact(p, &keys, &keys)?;
        let checkpoint_id = non_blank_field(
            &f,
            "checkpointId",
            limits::MAX_RECORD_ID_CHARS,
            ErrorCode::InvalidCheckpointId,
            "checkpointId is required",
        )?;
        let tab_id = tab_id(&f)?;
        let project_id = project_id(&f)?;
        let session_id = session_id(&f)?;
        Ok(EditCheckpointRevert {
            checkpoint_id,
            tab_id,
            project_id,
            session_id,
        })
    }
}

/// The exact tab, project and chat a snapshot request is scoped to
/// (`DOCUMENT_SNAPSHOT_LIST`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotScope {
    /// The tab whose document the snapshots are of.
    pub tab_id: u64,
    /// The project.
    pub project_id: String,
    /// The chat.
    pub session_id: String,
}

impl SnapshotScope {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SnapshotScope, ProtocolError> {
        let keys = ["tabId", "projectId", "sessionId"];
        let f = exact(p, &keys, &keys)?;
        SnapshotScope::read(&f)
    }

    /// Every scope failure has the one code `INVALID_DOCUMENT_SNAPSHOT_SCOPE`
    /// rather than the generic id codes.
    fn read(f: &Fields<'_>) -> Result<SnapshotScope, ProtocolError> {
        let message = "Document snapshot requests require an exact tab, project, and chat scope.";
        let invalid = |key: &str| fail(ErrorCode::InvalidDocumentSnapshotScope, f.at(key), message);
        let tab_id = wire::uint(f.raw("tabId")).ok_or_else(|| invalid("tabId"))?;
        let project_id =
            wire::bounded_non_blank(f.raw("projectId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("projectId"))?;
        let session_id =
            wire::bounded_non_blank(f.raw("sessionId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("sessionId"))?;
        Ok(SnapshotScope {
            tab_id,
            project_id,
            session_id,
        })
    }
}

/// The keys of a snapshot request.
const SNAPSHOT_KEYS: [&str; 4] = ["snapshotId", "tabId", "projectId", "sessionId"];

/// One snapshot in its scope (`DOCUMENT_SNAPSHOT_PREVIEW`, `_DELETE`, and
/// the target of `_RESTORE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRequest {
    /// The snapshot.
    pub snapshot_id: String,
    /// The tab whose document the snapshot is of.
    pub tab_id: u64,
    /// The project.
    pub project_id: String,
    /// The chat.
    pub session_id: String,
}

impl SnapshotRequest {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SnapshotRequest, ProtocolError> {
        let f = exact(p, &SNAPSHOT_KEYS, &SNAPSHOT_KEYS)?;
        SnapshotRequest::read(&f)
    }

    fn read(f: &Fields<'_>) -> Result<SnapshotRequest, ProtocolError> {
        let snapshot_id = non_blank_field(
            f,
            "snapshotId",
            limits::MAX_RECORD_ID_CHARS,
            ErrorCode::InvalidDocumentSnapshotId,
            "snapshotId is required",
        )?;
        let scope = SnapshotScope::read(f)?;
        Ok(SnapshotRequest {
            snapshot_id,
            tab_id: scope.tab_id,
            project_id: scope.project_id,
            session_id: scope.session_id,
        })
    }
}

/// `DOCUMENT_SNAPSHOT_RESTORE`: the snapshot, and the live document its
/// preview was computed against. Both base fields are required: the panel
/// ships with the worker and always sends what its preview answer carried,
/// so a restore without them names no reviewed diff and is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRestore {
    /// The snapshot and its scope.
    #[serde(flatten)]
    pub target: SnapshotRequest,
    /// Lower-case hex SHA-256 of the UTF-8 text the preview diffed against.
    pub base_hash: String,
    /// That text's length in UTF-16 code units.
    pub base_length: u64,
}

impl SnapshotRestore {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SnapshotRestore, ProtocolError> {
        // The base fields are not in the required set: the scope is checked
        // first with the original's codes, and a missing base has its own.
        let allowed = [
            "snapshotId",
            "tabId",
            "projectId",
            "sessionId",
            "baseHash",
            "baseLength",
        ];
        let f = exact(p, &allowed, &SNAPSHOT_KEYS)?;
        let target = SnapshotRequest::read(&f)?;
        let message =
            "A snapshot restore needs the baseHash and baseLength of the document its preview was computed against.";
        let invalid = |key: &str| fail(ErrorCode::InvalidDocumentSnapshotBase, f.at(key), message);
        let base_hash = f
            .raw("baseHash")
            .and_then(Value::as_str)
            .filter(|hash| is_sha256_hex(hash))
            .ok_or_else(|| invalid("baseHash"))?
            .to_owned();
        let base_length = wire::uint(f.raw("baseLength")).ok_or_else(|| invalid("baseLength"))?;
        Ok(SnapshotRestore {
            target,
            base_hash,
            base_length,
        })
    }
}
