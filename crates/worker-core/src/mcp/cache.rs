//! The discovery cache: a listing per server configuration until its
//! lifetime ends, in worker memory only (a fresh worker discovers again).

use crate::mcp::discovery::Listing;
use crate::mcp::memory::BoundedMap;
use std::rc::Rc;

#[derive(Debug)]
struct Cached {
    server_id: String,
    expires_at: f64,
    listing: Rc<Listing>,
}

/// Listings by configuration key, at most [`protocol::limits::MAX_MCP_CACHED_SERVERS`].
#[derive(Debug, Default)]
pub(crate) struct DiscoveryCache(BoundedMap<Cached>);

impl DiscoveryCache {
    /// The listing under `key` and its expiry, while `now` is before it.
    pub(crate) fn get(&self, key: &str, now: f64) -> Option<(Rc<Listing>, f64)> {
        self.0
            .get(key)
            .filter(|cached| cached.expires_at > now)
            .map(|cached| (cached.listing.clone(), cached.expires_at))
    }

    pub(crate) fn put(&mut self, key: &str, server_id: &str, expires_at: f64, listing: Rc<Listing>) {
        let cached = Cached {
            server_id: server_id.to_owned(),
            expires_at,
            listing,
        };
        self.0.insert(key, cached);
    }

    /// Drops every listing of server `server_id`, whatever its configuration.
    pub(crate) fn invalidate(&mut self, server_id: &str) {
        self.0.retain(|cached| cached.server_id != server_id);
    }
}
