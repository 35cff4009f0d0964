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

/// `chrome.storage.local`. Multi-key writes and removals are one call each,
/// so Chrome applies them together.
pub trait Storage {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError>;
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError>;
    /// The values of those `keys` that exist.
    async fn get_many(&self, keys: &[String]) -> Result<serde_json::Map<String, Value>, PlatformError>;
    async fn set_many(&self, items: serde_json::Map<String, Value>) -> Result<(), PlatformError>;
    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError>;
    /// Every stored key.
    async fn keys(&self) -> Result<Vec<String>, PlatformError>;
    /// Bytes in use by the whole store.
    async fn bytes_in_use(&self) -> Result<u64, PlatformError>;
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

/// Wall-clock time, timers and fresh ids.
pub trait Clock {
    /// Milliseconds since the Unix epoch (`Date.now()`).
    fn now_ms(&self) -> f64;
    /// Resolves after `ms` milliseconds. Callers race it with their
    /// cancellation; dropping the future clears the timer.
    async fn sleep(&self, ms: u32);
    /// A random UUID (`crypto.randomUUID()`).
    fn uuid(&self) -> String;
}

/// `chrome.tabs.sendMessage` to a tab's isolated-world content script.
pub trait Pages {
    /// The content script's answer; `Ok(None)` when it sent none.
    async fn send(&self, tab_id: i64, message: Value) -> Result<Option<Value>, PlatformError>;
}

/// One HTTP request the worker makes (model endpoints, tools, MCP servers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub url: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// Why an HTTP request produced no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkError {
    /// The run or operation was cancelled.
    Cancelled,
    /// The browser's `fetch` failed (DNS, TLS, refused, redirect refused, …).
    Failed(String),
}

/// A response whose body is read chunk by chunk, so callers can stop at a
/// byte cap without buffering the rest.
pub trait ResponseBody {
    /// The next chunk, `None` at the end.
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, NetworkError>>;
}

pub struct HttpResponse<B> {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: B,
}

impl<B> HttpResponse<B> {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// `fetch` with redirects refused; cancelling `cancel` aborts the request
/// and any body read in progress.
pub trait Network {
    type Body: ResponseBody;
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &crate::cancel::Cancellation,
    ) -> Result<HttpResponse<Self::Body>, NetworkError>;
}

/// Everything the worker reaches outside itself, bundled so the core is
/// generic over one type: Chrome in the extension, fakes in tests.
pub trait Platform {
    type Storage: Storage;
    type Tabs: Tabs;
    type Scripting: Scripting;
    type Messenger: Messenger;
    type Clock: Clock;
    type Pages: Pages;
    type Network: Network;

    fn storage(&self) -> &Self::Storage;
    fn tabs(&self) -> &Self::Tabs;
    fn scripting(&self) -> &Self::Scripting;
    fn messenger(&self) -> &Self::Messenger;
    fn clock(&self) -> &Self::Clock;
    fn pages(&self) -> &Self::Pages;
    fn network(&self) -> &Self::Network;
}
