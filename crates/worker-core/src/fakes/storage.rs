//! An in-memory `chrome.storage.local` with injectable write failures.
//! Clones share one store, so a fake page can make the worker's storage fail
//! at the moment the page applies an edit.
//!
//! Faults come in two forms: every write fails ([`MemoryStorage::fail_writes`]),
//! or the N-th write from now fails ([`MemoryStorage::fail_write_at`]) — the
//! one the storage-fault tests iterate over every write of an action. A write
//! is one `set` or one `remove` call, as Chrome counts them.

use crate::platform::{PlatformError, Storage};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A write failure armed by [`MemoryStorage::fail_write_at`].
#[derive(Debug, Clone)]
struct WriteFault {
    /// The number of the write (1-based, counted from arming) that fails.
    at: u64,
    /// Whether every later `set` fails too, as on a disk that stays full
    /// (removals still succeed: they free space).
    sticky: bool,
    message: String,
    /// Writes seen since arming.
    seen: u64,
    /// Whether the armed write has failed.
    fired: bool,
}

#[derive(Default, Clone)]
pub(crate) struct MemoryStorage {
    values: Rc<RefCell<BTreeMap<String, Value>>>,
    write_failure: Rc<RefCell<Option<String>>>,
    fault: Rc<RefCell<Option<WriteFault>>>,
    /// Every `set` and `remove` call since the store was made.
    write_calls: Rc<Cell<u64>>,
    restricted: Rc<Cell<bool>>,
    /// Like a browser without `storage.local.setAccessLevel`.
    no_access_level: Rc<Cell<bool>>,
}

impl MemoryStorage {
    pub(crate) fn value(&self, key: &str) -> Option<Value> {
        self.values.borrow().get(key).cloned()
    }
    pub(crate) fn put(&self, key: &str, value: Value) {
        self.values.borrow_mut().insert(key.to_owned(), value);
    }
    pub(crate) fn fail_writes(&self, message: &str) {
        *self.write_failure.borrow_mut() = Some(message.to_owned());
    }
    /// Fails the `at`-th write call from now (1-based) with `message`; with
    /// `sticky` every later `set` fails as well, until [`Self::lift_faults`].
    pub(crate) fn fail_write_at(&self, at: u64, sticky: bool, message: &str) {
        *self.fault.borrow_mut() = Some(WriteFault {
            at,
            sticky,
            message: message.to_owned(),
            seen: 0,
            fired: false,
        });
    }
    /// Whether the write armed by [`Self::fail_write_at`] has failed.
    pub(crate) fn fault_fired(&self) -> bool {
        self.fault.borrow().as_ref().is_some_and(|fault| fault.fired)
    }
    /// Ends every injected failure.
    pub(crate) fn lift_faults(&self) {
        *self.write_failure.borrow_mut() = None;
        *self.fault.borrow_mut() = None;
    }
    /// How many `set` and `remove` calls the store has seen.
    pub(crate) fn write_calls(&self) -> u64 {
        self.write_calls.get()
    }
    pub(crate) fn is_restricted(&self) -> bool {
        self.restricted.get()
    }

    /// Counts one write call and decides whether it fails.
    fn check_write(&self, is_set: bool) -> Result<(), PlatformError> {
        self.write_calls.set(self.write_calls.get() + 1);
        if let Some(message) = self.write_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        let mut fault = self.fault.borrow_mut();
        let Some(fault) = fault.as_mut() else {
            return Ok(());
        };
        fault.seen += 1;
        let fails = fault.seen == fault.at || (fault.sticky && fault.fired && is_set);
        if fails {
            fault.fired = true;
            return Err(PlatformError(fault.message.clone()));
        }
        Ok(())
    }

    pub(crate) fn lack_access_level(&self) {
        self.no_access_level.set(true);
    }
}

impl Storage for MemoryStorage {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError> {
        Ok(self.value(key))
    }
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError> {
        self.check_write(true)?;
        self.put(key, value);
        Ok(())
    }
    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError> {
        self.check_write(false)?;
        let mut values = self.values.borrow_mut();
        for key in keys {
            values.remove(key);
        }
        Ok(())
    }
    async fn keys(&self) -> Result<Vec<String>, PlatformError> {
        Ok(self.values.borrow().keys().cloned().collect())
    }
    async fn bytes_in_use(&self) -> Result<u64, PlatformError> {
        let values = self.values.borrow();
        Ok(values.iter().map(|(k, v)| (k.len() + v.to_string().len()) as u64).sum())
    }
    async fn restrict_to_trusted_contexts(&self) -> Result<bool, PlatformError> {
        if self.no_access_level.get() {
            return Ok(false);
        }
        self.restricted.set(true);
        Ok(true)
    }
}

impl<T: Storage> Storage for &T {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError> {
        (**self).get(key).await
    }
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError> {
        (**self).set(key, value).await
    }
    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError> {
        (**self).remove(keys).await
    }
    async fn keys(&self) -> Result<Vec<String>, PlatformError> {
        (**self).keys().await
    }
    async fn bytes_in_use(&self) -> Result<u64, PlatformError> {
        (**self).bytes_in_use().await
    }
    async fn restrict_to_trusted_contexts(&self) -> Result<bool, PlatformError> {
        (**self).restrict_to_trusted_contexts().await
    }
}
