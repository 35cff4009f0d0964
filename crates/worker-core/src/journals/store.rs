//! What both recovery journals stand on: their error ([`JournalError`]), the
//! document state they compare ([`DocumentState`]), the storage, clock and
//! queue of one operation ([`JournalStore`]) and the storage calls with the
//! chat repository's error mapping.

use crate::envelope::RequestError;
use crate::platform::{Clock, Platform, Storage};
use crate::storage::{MutationQueue, StorageAction, StorageError, is_write_failure};
use protocol::ErrorCode;
use protocol::edit_checkpoint::sha256_text;
use protocol::js;
use serde_json::Value;

/// A refused or failed journal operation, with the original's stable code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JournalError {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    /// The action a refused write named (see [`JournalError::during`]).
    action: Option<StorageAction>,
}

impl JournalError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        JournalError {
            code,
            message: message.into(),
            action: None,
        }
    }

    /// A refused write names `action` ("Saving the edit checkpoint failed:
    /// …"), as [`StorageError::during`] does; the first name given stays.
    #[must_use]
    pub(crate) fn during(mut self, action: StorageAction) -> Self {
        if self.action.is_none() && is_write_failure(self.code) {
            self.message = action.failed(&self.message);
            self.action = Some(action);
        }
        self
    }
}

impl std::fmt::Display for JournalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for JournalError {}

impl From<StorageError> for JournalError {
    fn from(error: StorageError) -> Self {
        JournalError {
            code: error.code(),
            message: error.message,
            action: error.action,
        }
    }
}

impl From<JournalError> for RequestError {
    fn from(error: JournalError) -> Self {
        RequestError::new(error.code, error.message)
    }
}

/// The hash and UTF-16 length of a document text: what the journals compare
/// instead of keeping every intermediate text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocumentState {
    /// Lower-case hex SHA-256 of the UTF-8 text.
    pub(crate) hash: String,
    /// Length in UTF-16 code units, as the editor counts it.
    pub(crate) length: u64,
}

impl DocumentState {
    pub(crate) fn of(text: &str) -> DocumentState {
        DocumentState {
            hash: sha256_text(text),
            length: utf16_len_u64(text),
        }
    }

    /// Whether `text` is exactly the state recorded here.
    pub(crate) fn matches(&self, other: &DocumentState) -> bool {
        self.hash == other.hash && self.length == other.length
    }
}

fn utf16_len_u64(text: &str) -> u64 {
    u64::try_from(js::utf16_len(text)).unwrap_or(u64::MAX)
}

/// The storage, clock and queue one journal operation needs. Cheap to build
/// per request; the queue is the worker's one [`MutationQueue`].
pub(crate) struct JournalStore<'a, S, C> {
    pub(crate) storage: &'a S,
    pub(crate) clock: &'a C,
    pub(crate) queue: &'a MutationQueue,
}

impl<'a, S: Storage, C: Clock> JournalStore<'a, S, C> {
    pub(crate) fn new(storage: &'a S, clock: &'a C, queue: &'a MutationQueue) -> Self {
        JournalStore { storage, clock, queue }
    }

    /// The platform's storage and clock with the worker's queue.
    pub(crate) fn on<P: Platform<Storage = S, Clock = C>>(platform: &'a P, queue: &'a MutationQueue) -> Self {
        JournalStore::new(platform.storage(), platform.clock(), queue)
    }
}

/// Reads one key, with the repository's error mapping (as every call here).
pub(crate) async fn read_key(storage: &impl Storage, key: &str) -> Result<Option<Value>, StorageError> {
    storage.get(key).await.map_err(|error| StorageError::read(&error))
}

pub(crate) async fn write_key(storage: &impl Storage, key: &str, value: Value) -> Result<(), StorageError> {
    storage
        .set(key, value)
        .await
        .map_err(|error| StorageError::write(&error))
}

pub(crate) async fn remove_keys(storage: &impl Storage, keys: &[String]) -> Result<(), StorageError> {
    storage.remove(keys).await.map_err(|error| StorageError::write(&error))
}

/// Removes a key nothing references any more; a failure only leaves an
/// orphan that the next stage or create cleans up.
pub(crate) async fn remove_best_effort(storage: &impl Storage, key: &str) {
    let _ = storage.remove(&[key.to_owned()]).await;
}

/// Removes every stored key under `prefix` that `referenced` does not list.
pub(crate) async fn remove_orphans(
    storage: &impl Storage,
    prefix: &str,
    referenced: &[&str],
) -> Result<(), StorageError> {
    let keys = storage.keys().await.map_err(|error| StorageError::read(&error))?;
    let orphans: Vec<String> = keys
        .into_iter()
        .filter(|key| key.starts_with(prefix) && !referenced.contains(&key.as_str()))
        .collect();
    if orphans.is_empty() {
        return Ok(());
    }
    remove_keys(storage, &orphans).await
}
