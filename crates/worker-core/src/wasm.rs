//! The thin adapter between `chrome.*` and the core: bindings, value
//! conversion at the boundary, and the exports the JavaScript shim calls.

use crate::cancel::{CallbackGuard, Cancellation, Cancelled};
use crate::platform::{
    BrowserSender, Clock, HttpRequest, HttpResponse, Messenger, NetRules, Network, NetworkError, Pages, Platform,
    PlatformError, Registration, ResponseBody, Scripting, Storage, Tab, Tabs, World,
};
use crate::tabs;
use crate::worker::Worker;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cell::Cell;
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = get, catch)]
    async fn storage_get(keys: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = set, catch)]
    async fn storage_set(items: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = remove, catch)]
    async fn storage_remove(keys: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = getKeys, catch)]
    async fn storage_get_keys() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = getBytesInUse, catch)]
    async fn storage_bytes_in_use(keys: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "storage", "local"], js_name = setAccessLevel, catch)]
    async fn storage_set_access_level(options: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(thread_local_v2, js_namespace = ["chrome", "storage"], js_name = local)]
    static STORAGE_LOCAL: JsValue;

    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = query, catch)]
    async fn tabs_query(query: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = get, catch)]
    async fn tabs_get(tab_id: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = update, catch)]
    async fn tabs_update(tab_id: f64, properties: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = create, catch)]
    async fn tabs_create(properties: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "windows"], js_name = update, catch)]
    async fn windows_update(window_id: f64, properties: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "sidePanel"], js_name = setOptions, catch)]
    async fn side_panel_set_options(options: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "sidePanel"], js_name = open, catch)]
    async fn side_panel_open(options: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "sidePanel"], js_name = setPanelBehavior, catch)]
    async fn side_panel_set_panel_behavior(behavior: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = getRegisteredContentScripts, catch)]
    async fn scripting_registered(filter: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = registerContentScripts, catch)]
    async fn scripting_register(scripts: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = updateContentScripts, catch)]
    async fn scripting_update(scripts: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = unregisterContentScripts, catch)]
    async fn scripting_unregister(filter: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "scripting"], js_name = executeScript, catch)]
    async fn scripting_execute(injection: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = sendMessage, catch)]
    async fn tabs_send_message(tab_id: f64, message: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_name = fetch)]
    fn global_fetch(request: &web_sys::Request) -> js_sys::Promise;

    #[wasm_bindgen(js_namespace = Date, js_name = now)]
    fn date_now() -> f64;

    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = sendMessage, catch)]
    fn runtime_send_message(message: &JsValue) -> Result<js_sys::Promise, JsValue>;

    #[wasm_bindgen(js_namespace = crypto, js_name = randomUUID)]
    fn random_uuid() -> String;

    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_manifest() -> JsValue;
    #[wasm_bindgen(thread_local_v2, js_namespace = ["chrome", "runtime"], js_name = id)]
    static RUNTIME_ID: JsValue;

    #[wasm_bindgen(js_namespace = ["chrome", "declarativeNetRequest"], js_name = updateSessionRules, catch)]
    async fn dnr_update_session_rules(options: JsValue) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

/// Converts a Rust value for `chrome.*`: plain objects, never `Map`s.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, PlatformError> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|error| PlatformError(error.to_string()))
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Result<T, PlatformError> {
    serde_wasm_bindgen::from_value(value).map_err(|error| PlatformError(error.to_string()))
}

/// The message of a rejected browser call.
fn js_error(error: JsValue) -> PlatformError {
    let message = js_sys::Reflect::get(&error, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| error.as_string())
        .unwrap_or_else(|| "The browser reported an unknown error.".to_owned());
    PlatformError(message)
}

struct ChromeStorage;

impl Storage for ChromeStorage {
    async fn get(&self, key: &str) -> Result<Option<Value>, PlatformError> {
        let items: serde_json::Map<String, Value> =
            from_js(storage_get(JsValue::from_str(key)).await.map_err(js_error)?)?;
        Ok(items.get(key).cloned())
    }

    async fn set(&self, key: &str, value: Value) -> Result<(), PlatformError> {
        storage_set(to_js(&json!({ key: value }))?).await.map_err(js_error)?;
        Ok(())
    }

    async fn remove(&self, keys: &[String]) -> Result<(), PlatformError> {
        if keys.is_empty() {
            return Ok(());
        }
        storage_remove(to_js(keys)?).await.map_err(js_error)?;
        Ok(())
    }

    async fn keys(&self) -> Result<Vec<String>, PlatformError> {
        let has_get_keys = STORAGE_LOCAL.with(|local| {
            js_sys::Reflect::get(local, &JsValue::from_str("getKeys"))
                .map(|f| f.is_function())
                .unwrap_or(false)
        });
        if has_get_keys {
            return from_js(storage_get_keys().await.map_err(js_error)?);
        }
        let everything: serde_json::Map<String, Value> = from_js(storage_get(JsValue::NULL).await.map_err(js_error)?)?;
        Ok(everything.keys().cloned().collect())
    }

    async fn bytes_in_use(&self) -> Result<u64, PlatformError> {
        let bytes = storage_bytes_in_use(JsValue::NULL).await.map_err(js_error)?;
        Ok(bytes.as_f64().filter(|b| b.is_finite() && *b >= 0.0).unwrap_or(0.0) as u64)
    }

    async fn restrict_to_trusted_contexts(&self) -> Result<bool, PlatformError> {
        let supported = STORAGE_LOCAL.with(|local| {
            js_sys::Reflect::get(local, &JsValue::from_str("setAccessLevel"))
                .map(|f| f.is_function())
                .unwrap_or(false)
        });
        if !supported {
            return Ok(false);
        }
        storage_set_access_level(to_js(&json!({ "accessLevel": "TRUSTED_CONTEXTS" }))?)
            .await
            .map_err(js_error)?;
        Ok(true)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChromeTab {
    id: Option<i64>,
    window_id: Option<i64>,
    #[serde(default)]
    url: Option<String>,
}

impl From<ChromeTab> for Tab {
    fn from(tab: ChromeTab) -> Tab {
        Tab {
            id: tab.id,
            window_id: tab.window_id,
            url: tab.url.unwrap_or_default(),
        }
    }
}

struct ChromeTabs;

impl Tabs for ChromeTabs {
    async fn all(&self) -> Result<Vec<Tab>, PlatformError> {
        let tabs: Vec<ChromeTab> = from_js(tabs_query(to_js(&json!({}))?).await.map_err(js_error)?)?;
        Ok(tabs.into_iter().map(Tab::from).collect())
    }

    async fn active(&self) -> Result<Option<Tab>, PlatformError> {
        let query = to_js(&json!({ "active": true, "currentWindow": true }))?;
        let tabs: Vec<ChromeTab> = from_js(tabs_query(query).await.map_err(js_error)?)?;
        Ok(tabs.into_iter().next().map(Tab::from))
    }

    async fn get(&self, tab_id: i64) -> Result<Tab, PlatformError> {
        let tab: ChromeTab = from_js(tabs_get(tab_id as f64).await.map_err(js_error)?)?;
        Ok(tab.into())
    }

    async fn set_side_panel_enabled(&self, tab_id: i64, enabled: bool) -> Result<(), PlatformError> {
        let options = if enabled {
            json!({ "tabId": tab_id, "path": "src/sidepanel/index.html", "enabled": true })
        } else {
            json!({ "tabId": tab_id, "enabled": false })
        };
        side_panel_set_options(to_js(&options)?).await.map_err(js_error)?;
        Ok(())
    }

    async fn focus(&self, tab_id: i64, window_id: Option<i64>) -> Result<(), PlatformError> {
        tabs_update(tab_id as f64, to_js(&json!({ "active": true }))?)
            .await
            .map_err(js_error)?;
        if let Some(window_id) = window_id {
            windows_update(window_id as f64, to_js(&json!({ "focused": true }))?)
                .await
                .map_err(js_error)?;
        }
        Ok(())
    }

    async fn create(&self, url: &str) -> Result<Tab, PlatformError> {
        let tab: ChromeTab = from_js(tabs_create(to_js(&json!({ "url": url }))?).await.map_err(js_error)?)?;
        Ok(tab.into())
    }

    async fn open_side_panel(&self, window_id: i64) -> Result<(), PlatformError> {
        side_panel_open(to_js(&json!({ "windowId": window_id }))?)
            .await
            .map_err(js_error)?;
        Ok(())
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChromeRegistration {
    id: String,
    #[serde(default)]
    matches: Vec<String>,
    #[serde(default)]
    js: Vec<String>,
    #[serde(default)]
    run_at: String,
    #[serde(default)]
    world: String,
    #[serde(default = "persist_by_default")]
    persist_across_sessions: bool,
}

/// Chrome omits `persistAcrossSessions` when it is true (its default).
fn persist_by_default() -> bool {
    true
}

fn world_name(world: World) -> &'static str {
    match world {
        World::Isolated => "ISOLATED",
        World::Main => "MAIN",
    }
}

impl From<&Registration> for ChromeRegistration {
    fn from(r: &Registration) -> Self {
        ChromeRegistration {
            id: r.id.clone(),
            matches: r.matches.clone(),
            js: r.js.clone(),
            run_at: r.run_at.clone(),
            world: world_name(r.world).to_owned(),
            persist_across_sessions: r.persist_across_sessions,
        }
    }
}

impl From<ChromeRegistration> for Registration {
    fn from(r: ChromeRegistration) -> Self {
        Registration {
            id: r.id,
            matches: r.matches,
            js: r.js,
            run_at: r.run_at,
            world: if r.world == "MAIN" {
                World::Main
            } else {
                World::Isolated
            },
            persist_across_sessions: r.persist_across_sessions,
        }
    }
}

struct ChromeScripting;

impl Scripting for ChromeScripting {
    async fn registered(&self, ids: &[&str]) -> Result<Vec<Registration>, PlatformError> {
        let found: Vec<ChromeRegistration> = from_js(
            scripting_registered(to_js(&json!({ "ids": ids }))?)
                .await
                .map_err(js_error)?,
        )?;
        Ok(found.into_iter().map(Registration::from).collect())
    }

    async fn register(&self, registration: &Registration) -> Result<(), PlatformError> {
        scripting_register(to_js(&[ChromeRegistration::from(registration)])?)
            .await
            .map_err(js_error)?;
        Ok(())
    }

    async fn update(&self, registration: &Registration) -> Result<(), PlatformError> {
        scripting_update(to_js(&[ChromeRegistration::from(registration)])?)
            .await
            .map_err(js_error)?;
        Ok(())
    }

    async fn unregister(&self, ids: &[String]) -> Result<(), PlatformError> {
        scripting_unregister(to_js(&json!({ "ids": ids }))?)
            .await
            .map_err(js_error)?;
        Ok(())
    }

    async fn execute_files(&self, tab_id: i64, files: &[&str], world: World) -> Result<(), PlatformError> {
        let injection = json!({ "target": { "tabId": tab_id }, "files": files, "world": world_name(world) });
        scripting_execute(to_js(&injection)?).await.map_err(js_error)?;
        Ok(())
    }
}

struct ChromeMessenger;

impl Messenger for ChromeMessenger {
    fn broadcast(&self, message: Value) {
        // With no panel open there is no receiver; that is not a failure.
        let Ok(message) = to_js(&message) else { return };
        if let Ok(promise) = runtime_send_message(&message) {
            let ignore = Closure::<dyn FnMut(JsValue)>::new(|_| {});
            let _ = promise.catch(&ignore);
            ignore.forget();
        }
    }

    fn new_request_id(&self) -> String {
        format!("req-{}", random_uuid())
    }
}

struct BrowserClock;

impl Clock for BrowserClock {
    fn now_ms(&self) -> f64 {
        date_now()
    }

    async fn sleep(&self, ms: u32) {
        gloo_timers::future::TimeoutFuture::new(ms).await;
    }

    fn uuid(&self) -> String {
        random_uuid()
    }
}

struct ChromePages;

impl Pages for ChromePages {
    /// The answer crosses into wasm only as JSON text, never converted value
    /// by value: a page's answer nested 5,000 deep would exhaust the wasm
    /// stack in a recursive conversion. Its length is checked here first, in
    /// UTF-16 units: a string has at least as many UTF-8 bytes as UTF-16
    /// units, so a text cut to `max_bytes + 1` units still fails the byte
    /// check in Rust, and a 60 MB answer is never copied into wasm memory.
    async fn send(&self, tab_id: i64, message: Value, max_bytes: usize) -> Result<Option<String>, PlatformError> {
        let answer = tabs_send_message(tab_id as f64, to_js(&message)?)
            .await
            .map_err(js_error)?;
        if answer.is_undefined() || answer.is_null() {
            return Ok(None);
        }
        let text = js_sys::JSON::stringify(&answer).map_err(js_error)?;
        let keep = u32::try_from(max_bytes.saturating_add(1)).unwrap_or(u32::MAX);
        let text = if text.length() > keep {
            text.slice(0, keep)
        } else {
            text
        };
        Ok(Some(String::from(text)))
    }
}

/// `fetch` through web-sys; the run's cancellation aborts the request and
/// any body read in progress through one `AbortController`.
struct BrowserNetwork;

struct BrowserBody {
    reader: Option<web_sys::ReadableStreamDefaultReader>,
    _abort_on_cancel: Option<CallbackGuard>,
    cancel: Cancellation,
}

impl ResponseBody for BrowserBody {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, NetworkError>> {
        let reader = self.reader.as_ref()?;
        let read = self
            .cancel
            .race(wasm_bindgen_futures::JsFuture::from(reader.read()))
            .await;
        let result = match read {
            Err(Cancelled) => Err(NetworkError::Cancelled),
            Ok(Err(error)) => Err(NetworkError::Failed(js_error(error).0)),
            Ok(Ok(chunk)) => {
                let done = js_sys::Reflect::get(&chunk, &JsValue::from_str("done"))
                    .map(|d| d.is_truthy())
                    .unwrap_or(true);
                if done {
                    self.reader = None;
                    return None;
                }
                let value = js_sys::Reflect::get(&chunk, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
                Ok(js_sys::Uint8Array::new(&value).to_vec())
            }
        };
        if result.is_err() {
            self.reader = None;
        }
        Some(result)
    }
}

impl Drop for BrowserBody {
    fn drop(&mut self) {
        // A body dropped before its end (a byte cap, a parse error) stops the download.
        if let Some(reader) = self.reader.take() {
            let _ = reader.cancel();
        }
    }
}

impl Network for BrowserNetwork {
    type Body = BrowserBody;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancellation,
    ) -> Result<HttpResponse<BrowserBody>, NetworkError> {
        let failed = |error: JsValue| NetworkError::Failed(js_error(error).0);
        let controller = web_sys::AbortController::new().map_err(failed)?;
        let init = web_sys::RequestInit::new();
        init.set_method(&request.method);
        init.set_redirect(web_sys::RequestRedirect::Error);
        init.set_signal(Some(&controller.signal()));
        let headers = web_sys::Headers::new().map_err(failed)?;
        for (name, value) in &request.headers {
            headers.append(name, value).map_err(failed)?;
        }
        init.set_headers(&headers);
        if let Some(body) = &request.body {
            init.set_body(&JsValue::from_str(body));
        }
        let js_request = web_sys::Request::new_with_str_and_init(&request.url, &init).map_err(failed)?;
        let abort = controller.clone();
        let guard = cancel.on_cancel(move || abort.abort());
        let response = cancel
            .race(wasm_bindgen_futures::JsFuture::from(global_fetch(&js_request)))
            .await
            .map_err(|Cancelled| NetworkError::Cancelled)?
            .map_err(failed)?;
        let response: web_sys::Response = response.unchecked_into();
        let mut header_list = Vec::new();
        if let Ok(Some(entries)) = js_sys::try_iter(&response.headers()) {
            for entry in entries.flatten() {
                let pair = js_sys::Array::from(&entry);
                if let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                    header_list.push((name.to_ascii_lowercase(), value));
                }
            }
        }
        let reader = response.body().map(|stream| {
            stream
                .get_reader()
                .unchecked_into::<web_sys::ReadableStreamDefaultReader>()
        });
        Ok(HttpResponse {
            status: response.status(),
            headers: header_list,
            body: BrowserBody {
                reader,
                _abort_on_cancel: Some(guard),
                cancel: cancel.clone(),
            },
        })
    }
}

/// `chrome.declarativeNetRequest` session rules. A refused update is
/// logged here (the core only keeps it for the probe's hint).
struct ChromeNetRules;

impl NetRules for ChromeNetRules {
    fn extension_id(&self) -> String {
        RUNTIME_ID.with(|id| id.as_string()).unwrap_or_default()
    }

    async fn update_session_rules(&self, remove_ids: &[u32], add: &[Value]) -> Result<(), PlatformError> {
        let options = to_js(&json!({ "removeRuleIds": remove_ids, "addRules": add }))?;
        let outcome = dnr_update_session_rules(options).await.map(|_| ()).map_err(js_error);
        if let Err(error) = &outcome {
            console_warn(&format!("Typst Side Agent: the MCP Origin rules were not set: {error}"));
        }
        outcome
    }
}

/// The extension's version as its manifest says (`clientInfo.version` of
/// the MCP client).
fn manifest_version() -> String {
    js_sys::Reflect::get(&runtime_manifest(), &JsValue::from_str("version"))
        .ok()
        .and_then(|version| version.as_string())
        .unwrap_or_default()
}

/// The extension's platform: every adapter above.
struct ChromePlatform;

impl Platform for ChromePlatform {
    type Storage = ChromeStorage;
    type Tabs = ChromeTabs;
    type Scripting = ChromeScripting;
    type Messenger = ChromeMessenger;
    type Clock = BrowserClock;
    type Pages = ChromePages;
    type Network = BrowserNetwork;
    type NetRules = ChromeNetRules;

    fn storage(&self) -> &ChromeStorage {
        &ChromeStorage
    }
    fn tabs(&self) -> &ChromeTabs {
        &ChromeTabs
    }
    fn scripting(&self) -> &ChromeScripting {
        &ChromeScripting
    }
    fn messenger(&self) -> &ChromeMessenger {
        &ChromeMessenger
    }
    fn clock(&self) -> &BrowserClock {
        &BrowserClock
    }
    fn pages(&self) -> &ChromePages {
        &ChromePages
    }
    fn network(&self) -> &BrowserNetwork {
        &BrowserNetwork
    }
    fn net_rules(&self) -> &ChromeNetRules {
        &ChromeNetRules
    }
}

thread_local! {
    /// The one worker of this instance; run state lives as long as it does.
    static WORKER: Rc<Worker<ChromePlatform>> = Rc::new(Worker::new(ChromePlatform, &manifest_version()));
}

fn worker() -> Rc<Worker<ChromePlatform>> {
    WORKER.with(Rc::clone)
}

thread_local! {
    static BOOTSTRAP_RUNNING: Cell<bool> = const { Cell::new(false) };
    static BOOTSTRAP_AGAIN: Cell<bool> = const { Cell::new(false) };
}

/// Which start-up sequence a run of [`bootstrap_serialized`] begins with.
#[derive(Clone, Copy)]
enum Sequence {
    /// The woken instance's, ordered around the first answers ([`Worker::start_up`]).
    Wake,
    /// The install/browser-start repair ([`Worker::bootstrap`]).
    Repair,
}

/// Runs a start-up sequence; a request while one runs makes the repair run
/// once more when it ends instead of overlapping.
async fn bootstrap_serialized(first: Sequence) {
    if BOOTSTRAP_RUNNING.with(|running| running.replace(true)) {
        BOOTSTRAP_AGAIN.with(|again| again.set(true));
        return;
    }
    let mut sequence = first;
    loop {
        BOOTSTRAP_AGAIN.with(|again| again.set(false));
        let problems = match sequence {
            Sequence::Wake => worker().start_up().await,
            Sequence::Repair => worker().bootstrap().await,
        };
        for problem in problems {
            console_warn(&format!("Typst Side Agent start-up: {problem}"));
        }
        if !BOOTSTRAP_AGAIN.with(Cell::get) {
            break;
        }
        sequence = Sequence::Repair;
    }
    BOOTSTRAP_RUNNING.with(|running| running.set(false));
}

fn spawn(future: impl std::future::Future<Output = ()> + 'static) {
    wasm_bindgen_futures::spawn_local(future);
}

/// Called once by the shim when the module is ready, before it hands over
/// the messages that waited: the start-up sequence is marked begun here,
/// synchronously, so each of those messages sees what it must wait for
/// (and holds back what must wait for it; see `crate::startup`).
#[wasm_bindgen]
pub fn start() {
    worker().startup.begin();
    spawn(async {
        if let Ok(behavior) = to_js(&json!({ "openPanelOnActionClick": true })) {
            // Older browsers lack the setting; the panel still opens from its menu.
            let _ = side_panel_set_panel_behavior(behavior).await;
        }
    });
    spawn(bootstrap_serialized(Sequence::Wake));
}

/// `runtime.onInstalled` and `runtime.onStartup`.
#[wasm_bindgen]
pub fn bootstrap() {
    spawn(bootstrap_serialized(Sequence::Repair));
}

/// `runtime.onMessage`: resolves with the response envelope, or `undefined`
/// when the message is not the worker's to answer. `sender` is the browser's
/// `BrowserSender`; one that cannot be read counts as unknown.
///
/// The answer's first step runs here, inside the listener, rather than in a
/// later microtask: Chrome lets `chrome.sidePanel.open` through only while
/// the click's user gesture lasts, and measured in Chromium that is the
/// listener's own synchronous call (the same call one microtask later is
/// refused). Quick attach opens the panel before it awaits anything, so the
/// first poll reaches it; everything after the first await goes on as a
/// spawned task.
#[wasm_bindgen]
pub fn handle_message(message: JsValue, sender: JsValue) -> js_sys::Promise {
    let sender = from_js::<BrowserSender>(sender).unwrap_or_default();
    let mut answer = Box::pin(async move {
        let request_id = js_sys::Reflect::get(&message, &JsValue::from_str("requestId"))
            .ok()
            .and_then(|id| id.as_string());
        let message: Value = match from_js(message) {
            Ok(message) => message,
            // Not JSON-compatible: answered when it names a request, so the
            // sender's channel never waits for an answer that cannot come.
            Err(error) => {
                return match crate::envelope::unreadable(request_id.as_deref(), &error.0) {
                    Some(answer) => to_js(&answer).map_err(|error| JsValue::from_str(&error.0)),
                    None => Ok(JsValue::UNDEFINED),
                };
            }
        };
        match worker().handle_message_from(&message, &sender).await {
            Some(response) => to_js(&response).map_err(|error| JsValue::from_str(&error.0)),
            None => Ok(JsValue::UNDEFINED),
        }
    });
    // A waker that does nothing is enough for this one poll: a pending
    // answer is handed to the executor, which polls it again at once with
    // its own waker.
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match answer.as_mut().poll(&mut context) {
        std::task::Poll::Ready(Ok(value)) => js_sys::Promise::resolve(&value),
        std::task::Poll::Ready(Err(error)) => js_sys::Promise::reject(&error),
        std::task::Poll::Pending => future_to_promise(answer),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TabChange {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    status: Option<String>,
}

/// `tabs.onUpdated`.
#[wasm_bindgen]
pub fn tab_updated(tab_id: f64, change: JsValue, tab: JsValue) {
    let (Ok(change), Ok(tab)) = (from_js::<TabChange>(change), from_js::<ChromeTab>(tab)) else {
        return;
    };
    let url = tab.url.unwrap_or_default();
    spawn(async move {
        let complete = change.status.as_deref() == Some("complete");
        tabs::on_updated(
            &ChromeTabs,
            &ChromeMessenger,
            tab_id as i64,
            change.url.is_some(),
            complete,
            &url,
        )
        .await;
    });
}

/// `tabs.onActivated`.
#[wasm_bindgen]
pub fn tab_activated(tab_id: f64) {
    spawn(async move { tabs::on_activated(&ChromeTabs, &ChromeMessenger, tab_id as i64).await });
}

/// `webNavigation.onHistoryStateUpdated`.
#[wasm_bindgen]
pub fn history_state_updated(tab_id: f64, frame_id: f64, url: String) {
    spawn(async move {
        tabs::on_history_state_updated(&ChromeTabs, &ChromeMessenger, tab_id as i64, frame_id as i64, &url).await
    });
}
