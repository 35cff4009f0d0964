//! A small map that forgets its oldest entry past a fixed size: what the
//! client remembers per server configuration (discoveries, eras) must not
//! grow with every configuration a user ever tried.

use protocol::limits;

/// Entries by key, oldest first; a write makes its entry the newest.
#[derive(Debug)]
pub(crate) struct BoundedMap<T> {
    entries: Vec<(String, T)>,
    capacity: usize,
}

impl<T> Default for BoundedMap<T> {
    fn default() -> Self {
        BoundedMap::with_capacity(limits::to_usize(limits::MAX_MCP_CACHED_SERVERS))
    }
}

impl<T> BoundedMap<T> {
    pub(crate) fn with_capacity(capacity: usize) -> BoundedMap<T> {
        BoundedMap {
            entries: Vec::new(),
            capacity: capacity.max(1),
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, value)| value)
    }

    pub(crate) fn insert(&mut self, key: &str, value: T) {
        self.remove(key);
        if self.entries.len() >= self.capacity {
            self.entries.remove(0);
        }
        self.entries.push((key.to_owned(), value));
    }

    pub(crate) fn remove(&mut self, key: &str) {
        self.entries.retain(|(k, _)| k != key);
    }

    /// Keeps only the entries `keep` accepts.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.entries.retain(|(_, value)| keep(value));
    }
}
