//! The recovery messages the router hands over: `EDIT_CHECKPOINT_REVERT`
//! and the four `DOCUMENT_SNAPSHOT_*` requests. Payloads are parsed with the
//! protocol's exact, fail-closed rules before anything is read or written.

use super::{RecoveryTabs, revert, snapshot_ops};
use crate::envelope::{Request, RequestError};
use crate::platform::Platform;
use crate::runs::Runs;
use crate::sessions::SessionStore;
use protocol::{MessageType, Payload};
use serde_json::Value;

/// Whether `message_type` is a recovery message.
pub fn is_routed(message_type: MessageType) -> bool {
    matches!(
        message_type,
        MessageType::EditCheckpointRevert
            | MessageType::DocumentSnapshotList
            | MessageType::DocumentSnapshotPreview
            | MessageType::DocumentSnapshotRestore
            | MessageType::DocumentSnapshotDelete
    )
}

/// Answers one recovery message.
pub async fn handle<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    request: &Request,
) -> Result<Value, RequestError> {
    let payload = protocol::parse_payload(request.message_type, &Value::Object(request.payload.clone()))
        .map_err(|error| RequestError::new(error.code.as_str(), error.message))?;
    match payload {
        Payload::EditCheckpointRevert(revert) => revert::revert(platform, runs, store, recovery, &revert).await,
        Payload::DocumentSnapshotList(scope) => snapshot_ops::list(platform, store, &scope).await,
        Payload::DocumentSnapshotPreview(target) => snapshot_ops::preview(platform, runs, store, &target).await,
        Payload::DocumentSnapshotRestore(target) => {
            snapshot_ops::restore(platform, runs, store, recovery, &target).await
        }
        Payload::DocumentSnapshotDelete(target) => snapshot_ops::delete(platform, runs, store, recovery, &target).await,
        other => Err(RequestError::new(
            "UNROUTED_MESSAGE",
            format!("{} is not a recovery message.", other.message_type().as_str()),
        )),
    }
}
