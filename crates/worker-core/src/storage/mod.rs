//! What every write to `chrome.storage.local` shares, whoever makes it
//! (settings, the chat repository, the recovery journals): the one
//! serialized mutation queue ([`MutationQueue`]), the typed storage error
//! with the original's stable codes ([`StorageError`]), and the action a
//! refused write names to the user ([`StorageAction`]).

mod action;
mod error;
mod queue;

#[cfg(test)]
mod fault_tests;

pub(crate) use action::{StorageAction, is_write_failure};
pub(crate) use error::{StorageError, StorageErrorCode};
pub(crate) use queue::{MutationQueue, QueueGuard};

use protocol::js;
use serde_json::Value;

/// Bytes of a stored value as the original counted them (its size limits
/// and the storage warning): the UTF-8 size of its JSON text.
pub(crate) fn json_bytes(value: &Value) -> u64 {
    u64::try_from(js::json_stringify(value).len()).unwrap_or(u64::MAX)
}
