//! An in-memory `chrome.storage.local` with injectable write failures.

use crate::platform::{PlatformError, Storage};
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

#[derive(Default)]
pub struct MemoryStorage {
    values: RefCell<BTreeMap<String, Value>>,
    write_failure: RefCell<Option<String>>,
    restricted: Cell<bool>,
}

impl MemoryStorage {
    pub fn value(&self, key: &str) -> Option<Value> {
        self.values.borrow().get(key).cloned()
    }
    pub fn put(&self, key: &str, value: Value) {
        self.values.borrow_mut().insert(key.to_owned(), value);
    }
    pub fn fail_writes(&self, message: &str) {
        *self.write_failure.borrow_mut() = Some(message.to_owned());
    }
    pub fn is_restricted(&self) -> bool {
        self.restricted.get()
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
    async fn get_many(&self, keys: &[String]) -> Result<Map<String, Value>, PlatformError> {
        let values = self.values.borrow();
        Ok(keys
            .iter()
            .filter_map(|k| values.get(k).map(|v| (k.clone(), v.clone())))
            .collect())
    }
    async fn set_many(&self, items: Map<String, Value>) -> Result<(), PlatformError> {
        if let Some(message) = self.write_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        self.values.borrow_mut().extend(items);
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
    async fn get_many(&self, keys: &[String]) -> Result<Map<String, Value>, PlatformError> {
        (**self).get_many(keys).await
    }
    async fn set_many(&self, items: Map<String, Value>) -> Result<(), PlatformError> {
        (**self).set_many(items).await
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
