//! What every write to `chrome.storage.local` shares, whoever makes it
//! (settings, the chat repository, the recovery journals): the one
//! serialized mutation queue ([`MutationQueue`]) and the typed storage error
//! with the original's stable codes ([`StorageError`]).

mod error;
mod queue;

pub(crate) use error::{StorageError, StorageErrorCode};
pub(crate) use queue::{MutationQueue, QueueGuard};
