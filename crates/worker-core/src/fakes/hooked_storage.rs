//! A test storage over [`MemoryStorage`] that yields at every call (so
//! concurrent operations really interleave), records which keys were read,
//! and can fail chosen writes or removals.

use super::{MemoryStorage, yield_now};
use crate::platform::{PlatformError, Storage};
use serde_json::Value;
use std::cell::RefCell;

type WriteHook = Box<dyn Fn(&str) -> Result<(), PlatformError>>;

#[derive(Default)]
pub(crate) struct HookedStorage {
    pub(crate) inner: MemoryStorage,
    /// Every key read, in order.
    pub(crate) reads: RefCell<Vec<String>>,
    /// Every key written, in order.
    pub(crate) writes: RefCell<Vec<String>>,
    before_set: RefCell<Option<WriteHook>>,
    before_remove: RefCell<Option<WriteHook>>,
    /// A key whose next read is held back for this many extra yields.
    slow_read: RefCell<Option<(String, usize)>>,
}

impl HookedStorage {
    pub(crate) fn with(values: &[(&str, Value)]) -> Self {
        let storage = HookedStorage::default();
        for (key, value) in values {
            storage.inner.put(key, value.clone());
        }
        storage
    }

    /// Runs before every write; an error fails that write.
    pub(crate) fn before_set(&self, hook: impl Fn(&str) -> Result<(), PlatformError> + 'static) {
        *self.before_set.borrow_mut() = Some(Box::new(hook));
    }

    /// Runs before every removal, once per key; an error fails the removal.
    pub(crate) fn before_remove(&self, hook: impl Fn(&str) -> Result<(), PlatformError> + 'static) {
        *self.before_remove.borrow_mut() = Some(Box::new(hook));
    }

    /// Holds the next read of `key` back for `yields` turns of the executor.
    pub(crate) fn delay_reads_of(&self, key: &str, yields: usize) {
        *self.slow_read.borrow_mut() = Some((key.to_owned(), yields));
    }

    pub(crate) fn clear_hooks(&self) {
        *self.before_set.borrow_mut() = None;
        *self.before_remove.borrow_mut() = None;
    }

    pub(crate) fn value(&self, key: &str) -> Option<Value> {
        self.inner.value(key)
    }

    pub(crate) fn put(&self, key: &str, value: Value) {
        self.inner.put(key, value);
    }

    /// Stored keys starting with `prefix`, sorted.
    pub(crate) fn keys_with(&self, prefix: &str) -> Vec<String> {
        let keys = futures::executor::block_on(self.inner.keys()).unwrap_or_default();
        keys.into_iter().filter(|key| key.starts_with(prefix)).collect()
    }
}

impl Storage for HookedStorage {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError> {
        yield_now().await;
        let delay = {
            let mut slow = self.slow_read.borrow_mut();
            match slow.as_ref() {
                Some((slow_key, n)) if slow_key == key => {
                    let n = *n;
                    *slow = None;
                    Some(n)
                }
                _ => None,
            }
        };
        for _ in 0..delay.unwrap_or(0) {
            yield_now().await;
        }
        self.reads.borrow_mut().push(key.to_owned());
        self.inner.get(key).await
    }
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError> {
        yield_now().await;
        if let Some(hook) = self.before_set.borrow().as_ref() {
            hook(key)?;
        }
        self.writes.borrow_mut().push(key.to_owned());
        self.inner.set(key, value).await
    }
    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError> {
        yield_now().await;
        if let Some(hook) = self.before_remove.borrow().as_ref() {
            for key in keys {
                hook(key)?;
            }
        }
        self.inner.remove(keys).await
    }
    async fn keys(&self) -> Result<Vec<String>, PlatformError> {
        yield_now().await;
        self.inner.keys().await
    }
    async fn bytes_in_use(&self) -> Result<u64, PlatformError> {
        self.inner.bytes_in_use().await
    }
    async fn restrict_to_trusted_contexts(&self) -> Result<bool, PlatformError> {
        self.inner.restrict_to_trusted_contexts().await
    }
}
