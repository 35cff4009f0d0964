//! The narrow interfaces through which the core reaches the browser.
//!
//! Each trait mirrors the few `chrome.*` calls the core needs, with plain Rust
//! values, so the whole worker logic runs natively against in-memory fakes.
//! Futures are not `Send`: the worker is single-threaded.

use serde_json::Value;

/// A failure reported by the browser, kept as its message text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformError(pub String);

impl std::fmt::Display for PlatformError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// `chrome.storage.local`, key by key.
pub trait Storage {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError>;
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError>;
    /// Restricts storage to trusted extension contexts. `Ok(false)` when the
    /// browser has no such setting.
    async fn restrict_to_trusted_contexts(&self) -> Result<bool, PlatformError>;
}

/// One browser tab as the core sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tab {
    pub id: Option<i64>,
    pub window_id: Option<i64>,
    pub url: String,
}

/// `chrome.tabs` and `chrome.sidePanel`.
pub trait Tabs {
    async fn all(&self) -> Result<Vec<Tab>, PlatformError>;
    /// The active tab of the last focused window, if any.
    async fn active(&self) -> Result<Option<Tab>, PlatformError>;
    async fn get(&self, tab_id: i64) -> Result<Tab, PlatformError>;
    /// Enables the side panel on `tab_id` (with its page) or disables it.
    async fn set_side_panel_enabled(&self, tab_id: i64, enabled: bool) -> Result<(), PlatformError>;
}

/// The world a script runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    Isolated,
    Main,
}

/// A dynamic content-script registration, as `chrome.scripting` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    pub id: String,
    pub matches: Vec<String>,
    pub js: Vec<String>,
    pub run_at: String,
    pub world: World,
    pub persist_across_sessions: bool,
}

/// `chrome.scripting`.
pub trait Scripting {
    async fn registered(&self, ids: &[&str]) -> Result<Vec<Registration>, PlatformError>;
    async fn register(&self, registration: &Registration) -> Result<(), PlatformError>;
    async fn update(&self, registration: &Registration) -> Result<(), PlatformError>;
    async fn unregister(&self, ids: &[String]) -> Result<(), PlatformError>;
    async fn execute_files(&self, tab_id: i64, files: &[&str], world: World) -> Result<(), PlatformError>;
}

/// `chrome.runtime.sendMessage` to every extension page; undelivered
/// broadcasts (no panel open) are not errors.
pub trait Messenger {
    fn broadcast(&self, message: Value);
    /// A fresh, unique `requestId` for a broadcast envelope.
    fn new_request_id(&self) -> String;
}
