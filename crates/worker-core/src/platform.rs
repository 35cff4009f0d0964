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

/// `chrome.storage.local`. A removal of several keys is one call, so Chrome
/// applies it at once.
pub trait Storage {
    /// The value under `key`, `None` when nothing is stored there.
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError>;
    /// Stores `value` under `key`.
    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError>;
    /// Removes every key of `keys` (absent ones are no error).
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
    /// Chrome's tab id (absent for some special tabs).
    pub id: Option<i64>,
    /// The window the tab belongs to.
    pub window_id: Option<i64>,
    /// The URL the tab shows; empty when the extension may not see it.
    pub url: String,
}

/// Who sent a runtime message (`chrome.runtime.onMessage`'s `sender`), as
/// the browser names it, in the one shape the panel reads too. The browser
/// fills it in, so, unlike the message, a page cannot choose it; whatever
/// the adapter could not read stays `None`, and a sender without an id is
/// refused everything (`protocol::sender_policy`).
pub use protocol::sender_policy::{BrowserSender, BrowserSenderTab};

/// `chrome.tabs` and `chrome.sidePanel`.
pub trait Tabs {
    /// Every open tab.
    async fn all(&self) -> Result<Vec<Tab>, PlatformError>;
    /// The active tab of the last focused window, if any.
    async fn active(&self) -> Result<Option<Tab>, PlatformError>;
    /// One tab; an error when it no longer exists.
    async fn get(&self, tab_id: i64) -> Result<Tab, PlatformError>;
    /// Enables the side panel on `tab_id` (with its page) or disables it.
    async fn set_side_panel_enabled(&self, tab_id: i64, enabled: bool) -> Result<(), PlatformError>;
    /// Makes `tab_id` the active tab of its window and focuses that window
    /// (`tabs.update` and `windows.update`).
    async fn focus(&self, tab_id: i64, window_id: Option<i64>) -> Result<(), PlatformError>;
    /// Opens `url` in a new tab (`tabs.create`).
    async fn create(&self, url: &str) -> Result<Tab, PlatformError>;
    /// Opens the side panel in window `window_id`
    /// (`chrome.sidePanel.open({windowId})`). Chrome allows it only while the
    /// user gesture that led to the call lasts, so callers make it before
    /// anything else they await.
    async fn open_side_panel(&self, window_id: i64) -> Result<(), PlatformError>;
}

/// The world a script runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    /// The extension's isolated world (`ISOLATED`).
    Isolated,
    /// The page's own world (`MAIN`), where CodeMirror lives.
    Main,
}

/// A dynamic content-script registration, as `chrome.scripting` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// The registration's own id.
    pub id: String,
    /// URL match patterns of the pages it runs on.
    pub matches: Vec<String>,
    /// Script files, in load order.
    pub js: Vec<String>,
    /// When it runs (`document_start`, `document_idle`, …).
    pub run_at: String,
    /// The world it runs in.
    pub world: World,
    /// Whether Chrome keeps it across browser sessions.
    pub persist_across_sessions: bool,
}

/// `chrome.scripting`.
pub trait Scripting {
    /// The registrations among `ids` that exist.
    async fn registered(&self, ids: &[&str]) -> Result<Vec<Registration>, PlatformError>;
    /// Registers a new content script.
    async fn register(&self, registration: &Registration) -> Result<(), PlatformError>;
    /// Replaces the registration with the same id.
    async fn update(&self, registration: &Registration) -> Result<(), PlatformError>;
    /// Removes the registrations with these ids.
    async fn unregister(&self, ids: &[String]) -> Result<(), PlatformError>;
    /// Runs `files` once in tab `tab_id` (pages that were open before the
    /// extension started).
    async fn execute_files(&self, tab_id: i64, files: &[&str], world: World) -> Result<(), PlatformError>;
}

/// `chrome.runtime.sendMessage` to every extension page; undelivered
/// broadcasts (no panel open) are not errors.
pub trait Messenger {
    /// Sends `message` to every extension page, without waiting.
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
    /// The content script's answer as JSON text; `Ok(None)` when it sent
    /// none. The answer is untrusted, so it stays text until
    /// `content_bridge::parse_page_answer` has checked its byte length and
    /// parsed it with a depth limit. An answer longer than `max_bytes` may
    /// come back cut to a little over `max_bytes` (it is refused anyway),
    /// so an oversized answer is never copied whole.
    async fn send(&self, tab_id: i64, message: Value, max_bytes: usize) -> Result<Option<String>, PlatformError>;
}

/// One HTTP request the worker makes (model endpoints, custom tools, MCP
/// servers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// The absolute URL, already checked by the endpoint policy.
    pub url: String,
    /// `GET` or `POST`.
    pub method: String,
    /// Header names and values, in the order they are sent.
    pub headers: Vec<(String, String)>,
    /// The request body, if any.
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

/// The status and headers of a response, and its body still to be read.
pub struct HttpResponse<B> {
    /// The HTTP status code.
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body, read chunk by chunk.
    pub body: B,
}

impl<B> HttpResponse<B> {
    /// The first header named `name` (in any case).
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
    /// The body of a response.
    type Body: ResponseBody;
    /// Sends `request`; resolves once the status and headers arrived.
    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &crate::cancel::Cancellation,
    ) -> Result<HttpResponse<Self::Body>, NetworkError>;
}

/// `chrome.declarativeNetRequest` session rules of this extension. Chrome
/// keeps them while the browser runs (across worker restarts) and drops
/// them when it closes, so the worker sets them again at every start.
pub trait NetRules {
    /// This extension's id (`chrome.runtime.id`): a rule names it in
    /// `initiatorDomains`, so it matches only requests the extension sends.
    fn extension_id(&self) -> String;
    /// Removes the rules with `remove_ids` (an id without a rule is no
    /// error) and adds `add` (rule objects), in one update.
    async fn update_session_rules(&self, remove_ids: &[u32], add: &[Value]) -> Result<(), PlatformError>;
}

/// Everything the worker reaches outside itself, bundled so the core is
/// generic over one type: Chrome in the extension, fakes in tests.
pub trait Platform {
    /// `chrome.storage.local`.
    type Storage: Storage;
    /// `chrome.tabs` and `chrome.sidePanel`.
    type Tabs: Tabs;
    /// `chrome.scripting`.
    type Scripting: Scripting;
    /// Broadcasts to the extension's pages.
    type Messenger: Messenger;
    /// Time, timers and fresh ids.
    type Clock: Clock;
    /// Messages to a tab's content script.
    type Pages: Pages;
    /// `fetch`.
    type Network: Network;
    /// Session rules of `chrome.declarativeNetRequest`.
    type NetRules: NetRules;

    /// The storage.
    fn storage(&self) -> &Self::Storage;
    /// The tabs and the side panel.
    fn tabs(&self) -> &Self::Tabs;
    /// Content-script registration and injection.
    fn scripting(&self) -> &Self::Scripting;
    /// Broadcasts to the extension's pages.
    fn messenger(&self) -> &Self::Messenger;
    /// Time, timers and fresh ids.
    fn clock(&self) -> &Self::Clock;
    /// Messages to a tab's content script.
    fn pages(&self) -> &Self::Pages;
    /// HTTP requests.
    fn network(&self) -> &Self::Network;
    /// Request-modifying session rules.
    fn net_rules(&self) -> &Self::NetRules;
}
