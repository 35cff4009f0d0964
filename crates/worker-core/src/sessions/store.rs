//! The chat repository's handle ([`Sessions`]: a storage, a clock and the
//! worker's [`SessionStore`]) and what lives as long as the worker instance.
//! The repository's operations are `impl Sessions` blocks in `repository`,
//! `migration` and `transfer`, which is why the fields are the folder's.

use crate::platform::{Clock, Storage};
use crate::storage::MutationQueue;
use std::cell::Cell;

/// What lives as long as the worker instance: the mutation queue and whether
/// this instance has already checked and repaired the repository.
#[derive(Default)]
pub(crate) struct SessionStore {
    /// The one queue of every stored-data mutation (settings use it too).
    pub(crate) queue: MutationQueue,
    pub(crate) ready: Cell<bool>,
}

impl SessionStore {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

/// The chat repository over a storage and a clock (time and fresh ids).
pub(crate) struct Sessions<'a, S, C> {
    pub(crate) storage: &'a S,
    pub(crate) clock: &'a C,
    pub(crate) store: &'a SessionStore,
}

impl<'a, S: Storage, C: Clock> Sessions<'a, S, C> {
    pub(crate) fn new(storage: &'a S, clock: &'a C, store: &'a SessionStore) -> Self {
        Sessions { storage, clock, store }
    }
}
