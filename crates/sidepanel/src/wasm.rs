//! DOM construction and `chrome.*` bindings for the panel.

use crate::view::{self, ActiveTab, TabGate};
use crate::worker_client::{self, WorkerError};
use protocol::MessageType;
use serde::Deserialize;
use serde_json::{Value, json};
use std::cell::Cell;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = sendMessage, catch)]
    async fn runtime_send_message(message: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "runtime", "onMessage"], js_name = addListener)]
    fn add_runtime_listener(listener: &Closure<dyn FnMut(JsValue) -> JsValue>);
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_manifest() -> JsValue;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = query, catch)]
    async fn tabs_query(query: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = crypto, js_name = randomUUID)]
    fn random_uuid() -> String;
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

fn to_js(value: &Value) -> JsValue {
    serde::Serialize::serialize(value, &serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Option<T> {
    serde_wasm_bindgen::from_value(value).ok()
}

/// Sends one request to the worker and returns its checked data.
async fn ask_worker(message_type: MessageType, payload: Value) -> Result<Value, WorkerError> {
    let request_id = format!("req-{}", random_uuid());
    let request = worker_client::request(message_type, &request_id, payload);
    let answer = runtime_send_message(to_js(&request))
        .await
        .map_err(|error| WorkerError {
            code: "WORKER_UNREACHABLE".to_owned(),
            message: error
                .as_string()
                .unwrap_or_else(|| "The worker did not answer.".to_owned()),
        })?;
    let answer: Value = from_js(answer).unwrap_or(Value::Null);
    worker_client::unwrap_response(&request_id, &answer)
}

fn document() -> Option<Document> {
    web_sys::window()?.document()
}

fn element(document: &Document, tag: &str, id: Option<&str>, class: &str, text: &str) -> Result<Element, JsValue> {
    let node = document.create_element(tag)?;
    if let Some(id) = id {
        node.set_id(id);
    }
    if !class.is_empty() {
        node.set_class_name(class);
    }
    node.set_text_content(Some(text));
    Ok(node)
}

fn manifest_version() -> String {
    let manifest = runtime_manifest();
    js_sys::Reflect::get(&manifest, &JsValue::from_str("version"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

/// Builds the panel's static structure under `#app`.
fn build(document: &Document) -> Result<(), JsValue> {
    let app = document
        .get_element_by_id("app")
        .ok_or_else(|| JsValue::from_str("#app is missing"))?;
    let header = element(document, "header", None, "app-header", "")?;
    let title = element(document, "h1", Some("app-title"), "app-title", "Typst Side Agent")?;
    header.append_child(&title)?;
    let version = element(
        document,
        "span",
        Some("app-version"),
        "app-version",
        &format!("v{}", manifest_version()),
    )?;
    header.append_child(&version)?;
    app.append_child(&header)?;

    let banner = element(
        document,
        "div",
        Some("tab-gate-banner"),
        "tab-gate-banner",
        view::TAB_GATE_TEXT,
    )?;
    banner.set_attribute("role", "status")?;
    banner.set_attribute("hidden", "")?;
    app.append_child(&banner)?;

    let region = element(document, "div", Some("status-region"), "status-region", "")?;
    region.set_attribute("aria-live", "polite")?;
    let status = element(document, "div", Some("status"), "status", "")?;
    status.set_attribute("hidden", "")?;
    let message = element(document, "span", Some("status-message"), "status-message", "")?;
    status.append_child(&message)?;
    region.append_child(&status)?;
    app.append_child(&region)?;
    Ok(())
}

fn set_hidden(document: &Document, id: &str, hidden: bool) -> Result<(), JsValue> {
    if let Some(node) = document.get_element_by_id(id) {
        if hidden {
            node.set_attribute("hidden", "")?;
        } else {
            node.remove_attribute("hidden")?;
        }
    }
    Ok(())
}

fn apply_gate(document: &Document, gate: &TabGate) -> Result<(), JsValue> {
    set_hidden(document, "tab-gate-banner", !gate.banner_visible)?;
    let status = gate.status.as_ref();
    if let Some(message) = document.get_element_by_id("status-message") {
        message.set_text_content(status.map(|s| s.text.as_str()));
    }
    if let Some(node) = document.get_element_by_id("status") {
        node.class_list()
            .toggle_with_force("error", status.is_some_and(|s| s.is_error))?;
    }
    set_hidden(document, "status", status.is_none())?;
    if let Some(root) = document.document_element() {
        match &gate.project_id {
            Some(id) => root.set_attribute("data-project-id", id)?,
            None => root.remove_attribute("data-project-id")?,
        }
    }
    Ok(())
}

#[derive(Deserialize)]
struct ChromeTab {
    id: Option<i64>,
    #[serde(default)]
    url: Option<String>,
}

thread_local! {
    /// Each tab refresh takes a number; only the newest one may paint, so a
    /// slow earlier query cannot overwrite a later answer.
    static TAB_EPOCH: Cell<u64> = const { Cell::new(0) };
}

async fn refresh_tab_gate() -> Result<(), JsValue> {
    let epoch = TAB_EPOCH.with(|e| {
        e.set(e.get() + 1);
        e.get()
    });
    let tabs = tabs_query(to_js(&json!({ "active": true, "currentWindow": true }))).await?;
    let tab = from_js::<Vec<ChromeTab>>(tabs)
        .and_then(|tabs| tabs.into_iter().next())
        .map(|tab| ActiveTab {
            id: tab.id,
            url: tab.url.unwrap_or_default(),
        })
        .unwrap_or_default();
    if TAB_EPOCH.with(Cell::get) != epoch {
        return Ok(());
    }
    let document = document().ok_or_else(|| JsValue::from_str("no document"))?;
    apply_gate(&document, &view::tab_gate(&tab))
}

fn listen_to_worker() {
    let listener = Closure::<dyn FnMut(JsValue) -> JsValue>::new(|message: JsValue| {
        let message_type = js_sys::Reflect::get(&message, &JsValue::from_str("type"))
            .ok()
            .and_then(|t| t.as_string());
        if message_type.as_deref() == Some(MessageType::ActiveTabChanged.as_str()) {
            wasm_bindgen_futures::spawn_local(async {
                if let Err(error) = refresh_tab_gate().await {
                    console_error(&format!("Typst Side Agent: tab check failed: {error:?}"));
                }
            });
        }
        // The panel never answers runtime messages; the worker does.
        JsValue::FALSE
    });
    add_runtime_listener(&listener);
    listener.forget();
}

async fn run() -> Result<(), JsValue> {
    let document = document().ok_or_else(|| JsValue::from_str("no document"))?;
    build(&document)?;
    listen_to_worker();
    let theme = ask_worker(MessageType::LoadTheme, json!({})).await;
    let root = document
        .document_element()
        .ok_or_else(|| JsValue::from_str("no root element"))?;
    root.set_attribute(
        "data-theme",
        view::theme_name(theme.as_ref().ok().and_then(Value::as_str)),
    )?;
    if let Err(error) = &theme {
        console_error(&format!("Typst Side Agent: loading the theme failed: {error}"));
    }
    refresh_tab_gate().await?;
    root.set_attribute("data-panel-ready", "true")?;
    Ok(())
}

#[wasm_bindgen(start)]
pub fn start() {
    wasm_bindgen_futures::spawn_local(async {
        if let Err(error) = run().await {
            console_error(&format!("Typst Side Agent: the panel failed to start: {error:?}"));
        }
    });
}
