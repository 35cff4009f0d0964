//! An in-memory `chrome.storage.local` with injectable write failures.
//! Clones share one store, so a fake page can make the worker's storage fail
//! at the moment the page applies an edit.

use crate::platform::{PlatformError, Storage};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Default, Clone)]
pub(crate) struct MemoryStorage {
    values: Rc<RefCell<BTreeMap<String, Value>>>,
    write_failure: Rc<RefCell<Option<String>>>,
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
    pub(crate) fn is_restricted(&self) -> bool {
        self.restricted.get()
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
        if let Some(message) = self.write_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        self.put(key, value);
        Ok(())
    }
    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError> {
        if let Some(message) = self.write_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
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
