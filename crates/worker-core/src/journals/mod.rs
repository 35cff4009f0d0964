//! The two recovery journals the worker keeps beside the chats: edit
//! checkpoints (one pre-run copy of the document per agent run that wrote to
//! the editor, so the response can be reverted) and document snapshots
//! (automatic copies after completed runs and rescue copies before a restore).
//!
//! Both follow the chat repository's discipline: an index key lists the
//! entries, each body lives under its own key, bodies are written before the
//! index publishes them and removed only after it stopped referencing them.
//! Every read-modify-write holds the worker's one [`MutationQueue`], and an
//! index that fails validation stops every operation on that journal without
//! touching anything (the bodies may be the only copy of the user's work).
//! The storage formats are the original's, so existing users keep their data.

mod cascade;
mod checkpoints;
mod snapshots;

#[cfg(test)]
mod tests;

use crate::envelope::RequestError;
use crate::platform::{Clock, Platform, Storage};
use crate::storage::{MutationQueue, StorageError};
use protocol::edit_checkpoint::sha256_text;
use protocol::js;
use protocol::limits;
use serde_json::{Map, Value, json};

pub(crate) use cascade::forget_chats_unlocked;
pub(crate) use checkpoints::{CheckpointRecord, Checkpoints, StageInput};
pub(crate) use snapshots::{SnapshotInput, SnapshotMeta, SnapshotRecord, Snapshots};

/// A refused or failed journal operation, with the original's stable code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JournalError {
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

impl JournalError {
    pub(crate) fn new(code: &'static str, message: impl Into<String>) -> Self {
        JournalError {
            code,
            message: message.into(),
        }
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
        JournalError::new(error.code.as_str(), error.message)
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

/// A `u32` limit as a `usize` bound.
pub(crate) fn limit(value: u32) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
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

// ----- storage calls, with the repository's error mapping -----

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

// ----- field checks shared by both journals -----

pub(crate) fn is_sha256(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

pub(crate) fn string_field<'m>(map: &'m Map<String, Value>, key: &str) -> Option<&'m str> {
    map.get(key).and_then(Value::as_str)
}

/// A string of 1..=`max` UTF-16 code units.
pub(crate) fn bounded_string(map: &Map<String, Value>, key: &str, max: u32) -> Option<String> {
    string_field(map, key)
        .filter(|value| !value.is_empty() && js::utf16_len(value) <= limit(max))
        .map(str::to_owned)
}

/// `null`/absent, or else `Some(valid)`; an invalid present value is `Err`.
pub(crate) fn nullable<T>(
    map: &Map<String, Value>,
    key: &str,
    parse: impl Fn(&Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => parse(value).map(Some).ok_or(()),
    }
}

pub(crate) fn hash_value(value: &Value) -> Option<String> {
    value.as_str().filter(|s| is_sha256(s)).map(str::to_owned)
}

/// A document length: an integer 0..=1,000,000 (JSON `1.0` counts).
pub(crate) fn length_value(value: &Value) -> Option<u64> {
    js::as_safe_uint(value).filter(|n| *n <= u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS))
}

/// A finite number ≥ 0 (timestamps, byte counts).
pub(crate) fn non_negative(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key)
        .and_then(js::as_number)
        .filter(|n| n.is_finite() && *n >= 0.0)
}

pub(crate) fn optional_value<T: Into<Value>>(value: Option<T>) -> Value {
    value.map_or(Value::Null, Into::into)
}

/// The body record `{version, id, <field>: text}` of one entry.
pub(crate) fn body_value(version: u32, id: &str, field: &str, text: &str) -> Value {
    let mut body = json!({ "version": version, "id": id });
    if let Some(map) = body.as_object_mut() {
        map.insert(field.to_owned(), Value::from(text));
    }
    body
}

/// The text of a body record, if it is the right version and belongs to `id`.
pub(crate) fn body_text(body: Option<Value>, version: u32, id: &str, field: &str) -> Option<String> {
    let body = body?;
    let map = body.as_object()?;
    let version_ok = map.get("version").and_then(js::as_number) == Some(f64::from(version));
    if !version_ok || string_field(map, "id") != Some(id) {
        return None;
    }
    string_field(map, field).map(str::to_owned)
}

/// The entries of a stored `{version, entries: [..]}` index; `None` when the
/// envelope is not this journal's version and shape.
pub(crate) fn index_entries(index: &Value, version: u32) -> Option<&Vec<Value>> {
    let map = index.as_object()?;
    if map.get("version").and_then(js::as_number) != Some(f64::from(version)) {
        return None;
    }
    map.get("entries").and_then(Value::as_array)
}
