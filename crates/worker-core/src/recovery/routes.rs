//! The recovery messages the router hands over: `EDIT_CHECKPOINT_REVERT`
//! and the four `DOCUMENT_SNAPSHOT_*` requests, their payloads already
//! parsed with the protocol's exact, fail-closed rules.

use crate::envelope::RequestError;
use crate::platform::Platform;
use crate::recovery::{revert, snapshot_ops};
use crate::recovery_tabs::RecoveryTabs;
use crate::runs::Runs;
use crate::sessions::SessionStore;
use protocol::Payload;
use serde_json::Value;

/// Answers one recovery message.
pub(crate) async fn route<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    payload: Payload,
) -> Result<Value, RequestError> {
    match payload {
        Payload::EditCheckpointRevert(revert) => revert::revert(platform, runs, store, recovery, &revert).await,
        Payload::DocumentSnapshotList(scope) => snapshot_ops::list(platform, store, &scope).await,
        Payload::DocumentSnapshotPreview(target) => snapshot_ops::preview(platform, runs, store, &target).await,
        Payload::DocumentSnapshotRestore(target) => {
            snapshot_ops::restore(platform, runs, store, recovery, &target).await
        }
        Payload::DocumentSnapshotDelete(target) => snapshot_ops::delete(platform, runs, store, recovery, &target).await,
        other => Err(RequestError::unrouted(other.message_type())),
    }
}
