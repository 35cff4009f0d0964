//! The `chrome.*` and browser calls the panel makes, bound with an extern
//! block; values cross as plain JSON objects. Runtime messages arrive with
//! the browser's `sender`, read here and judged by the controller
//! (`broadcast_gate`).

use crate::app::BrowserTab;
use crate::worker_client::{self, WorkerError};
use protocol::sender_policy::{BrowserSender, Sender};
use protocol::{ErrorCode, MessageType};
use serde::Deserialize;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = sendMessage, catch)]
    async fn runtime_send_message(message: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["chrome", "runtime", "onMessage"], js_name = addListener)]
    fn add_runtime_listener(listener: &Closure<dyn FnMut(JsValue, JsValue) -> JsValue>);
    #[wasm_bindgen(thread_local_v2, js_namespace = ["chrome", "runtime"], js_name = id)]
    static RUNTIME_ID: JsValue;
    #[wasm_bindgen(js_namespace = ["chrome", "runtime"], js_name = getManifest)]
    fn runtime_manifest() -> JsValue;
    #[wasm_bindgen(js_namespace = ["chrome", "tabs"], js_name = query, catch)]
    async fn tabs_query(query: JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = crypto, js_name = randomUUID)]
    pub(crate) fn random_uuid() -> String;
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    pub(crate) fn console_error(message: &str);
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

pub(crate) fn to_js(value: &Value) -> JsValue {
    serde::Serialize::serialize(value, &serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::NULL)
}

pub(crate) fn from_js<T: for<'de> Deserialize<'de>>(value: JsValue) -> Option<T> {
    serde_wasm_bindgen::from_value(value).ok()
}

/// Sends one request to the worker and returns its checked data.
pub(crate) async fn ask_worker(
    message_type: MessageType,
    payload: Value,
    run_id: Option<String>,
) -> Result<Value, WorkerError> {
    let request_id = format!("req-{}", random_uuid());
    let request = worker_client::run_request(message_type, &request_id, run_id.as_deref(), payload);
    let answer = runtime_send_message(to_js(&request)).await.map_err(|error| {
        let message = js_sys::Reflect::get(&error, &JsValue::from_str("message"))
            .ok()
            .and_then(|m| m.as_string())
            .or_else(|| error.as_string())
            .unwrap_or_else(|| "The extension's worker did not answer.".to_owned());
        WorkerError::panel(ErrorCode::WorkerUnreachable, message)
    })?;
    let answer: Value = from_js(answer).unwrap_or(Value::Null);
    worker_client::unwrap_response(&request_id, &answer)
}

/// The manifest's version string.
pub(crate) fn manifest_version() -> String {
    js_sys::Reflect::get(&runtime_manifest(), &JsValue::from_str("version"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChromeTab {
    id: Option<f64>,
    window_id: Option<f64>,
    #[serde(default)]
    url: Option<String>,
}

fn whole(number: Option<f64>) -> Option<u64> {
    number
        .filter(|n| n.is_finite() && *n >= 0.0 && n.fract() == 0.0 && *n <= protocol::js::MAX_SAFE_INTEGER)
        .map(|n| n as u64)
}

/// The active tab of the panel's window.
pub(crate) async fn active_tab() -> Option<BrowserTab> {
    let tabs = tabs_query(to_js(&json!({ "active": true, "currentWindow": true })))
        .await
        .ok()?;
    let tab = from_js::<Vec<ChromeTab>>(tabs)?.into_iter().next()?;
    Some(BrowserTab {
        id: whole(tab.id),
        window_id: whole(tab.window_id),
        url: tab.url.unwrap_or_default(),
    })
}

/// Calls `listener` with every runtime message, its sender and this
/// extension's id; the listener decides (by the sender policy) and may hand
/// back one warning for the console. The panel never answers: the listener
/// returns `false` so Chrome does not keep a channel open.
pub(crate) fn listen(mut listener: impl FnMut(&Value, &Sender<'_>, &str) -> Option<String> + 'static) {
    let runtime_id = RUNTIME_ID.with(JsValue::as_string).unwrap_or_default();
    let closure = Closure::<dyn FnMut(JsValue, JsValue) -> JsValue>::new(move |message: JsValue, sender: JsValue| {
        if let Some(value) = from_js::<Value>(message) {
            let sender = from_js::<BrowserSender>(sender).unwrap_or_default();
            if let Some(warning) = listener(&value, &sender.facts(), &runtime_id) {
                console_warn(&warning);
            }
        }
        JsValue::FALSE
    });
    add_runtime_listener(&closure);
    closure.forget();
}
