//! One call of a custom HTTP tool ([`call_custom_tool`]), as the original
//! makes it: `POST <endpoint>` with `{"tool": <name>, "arguments": <args>}`,
//! `Content-Type: application/json` and the configured headers, redirects
//! refused (by the network adapter), 30 s, at most 256 KiB of answer.
//!
//! The answer becomes the model's tool result: `{ok:true, result}` for a
//! 2xx, `{ok:false, code:'CUSTOM_HTTP_ERROR', error:'HTTP <status>', body}`
//! otherwise, where `result` and `body` are the parsed JSON or `{raw: <the
//! first 64,000 characters>}`. Every other failure is a result too
//! (`TIMEOUT`, `CUSTOM_RESPONSE_TOO_LARGE`, the endpoint policy's code,
//! `CUSTOM_TOOL_ERROR`); only Stop escapes, and it aborts the request.

use crate::cancel::{Cancellation, Cancelled};
use crate::platform::{Clock, HttpRequest, Network, NetworkError};
use crate::provider::{BodyError, read_bounded};
use crate::race::{Either, first_of};
use crate::runs::{ToolOutput, tool_failure};
use protocol::endpoint_policy::{InsecureConsent, validate_endpoint_url};
use protocol::registry_records::CustomTool;
use protocol::{ErrorCode, js, limits};
use serde_json::{Map, Value, json};

/// What one exchange gave: the status and the body, or a tool result that
/// already says why not.
enum Exchanged {
    Answer { status: u16, body: String },
    Failed(ToolOutput),
    Cancelled,
}

/// Calls `tool` with arguments already checked against its schema.
pub(crate) async fn call_custom_tool<N: Network, C: Clock>(
    network: &N,
    clock: &C,
    tool: &CustomTool,
    arguments: &Map<String, Value>,
    cancel: &Cancellation,
) -> Result<ToolOutput, Cancelled> {
    if cancel.is_cancelled() {
        return Err(Cancelled);
    }
    let consent = InsecureConsent {
        confirmed: false,
        confirmed_origin: tool.insecure_transport_acknowledged_origin(),
    };
    let endpoint = match validate_endpoint_url(&tool.endpoint(), consent) {
        Ok(endpoint) => endpoint,
        Err(refused) => return Ok(tool_failure(refused.code.code(), refused.message)),
    };
    let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
    headers.extend(
        tool.headers()
            .into_iter()
            .flatten()
            .map(|(name, value)| (name.clone(), js::js_string(value))),
    );
    let body = json!({ "tool": tool.name(), "arguments": arguments });
    let request = HttpRequest {
        url: endpoint.url,
        method: "POST".to_owned(),
        headers,
        body: Some(body.to_string()),
    };
    // A child of the run's cancellation: the timer cancels it (aborting the
    // request), and so does Stop through the parent.
    let (operation, _guard) = cancel.child();
    let timer = async {
        clock.sleep(limits::CUSTOM_TOOL_TIMEOUT_MS).await;
        operation.cancel();
    };
    let exchanged = match first_of(exchange(network, request, &operation), timer).await {
        Either::Left(exchanged) => exchanged,
        Either::Right(()) => return Ok(tool_failure(ErrorCode::Timeout, "Custom tool timed out.")),
    };
    match exchanged {
        Exchanged::Cancelled => Err(Cancelled),
        Exchanged::Failed(result) => Ok(result),
        Exchanged::Answer { status, body } => Ok(result_of(status, &body)),
    }
}

async fn exchange<N: Network>(network: &N, request: HttpRequest, operation: &Cancellation) -> Exchanged {
    let mut response = match operation.race(network.fetch(request, operation)).await {
        Err(_) | Ok(Err(NetworkError::Cancelled)) => return Exchanged::Cancelled,
        Ok(Err(NetworkError::Failed(message))) => {
            return Exchanged::Failed(tool_failure(ErrorCode::CustomToolError, message));
        }
        Ok(Ok(response)) => response,
    };
    let max = limits::to_usize(limits::MAX_CUSTOM_TOOL_RESPONSE_BYTES);
    match read_bounded(&mut response, max, operation).await {
        Ok(body) => Exchanged::Answer {
            status: response.status,
            body,
        },
        Err(BodyError::Cancelled) => Exchanged::Cancelled,
        Err(BodyError::TooLarge) => Exchanged::Failed(tool_failure(
            ErrorCode::CustomResponseTooLarge,
            "Custom-tool response exceeds the 256 KiB limit.",
        )),
        Err(BodyError::Failed(message)) => Exchanged::Failed(tool_failure(ErrorCode::CustomToolError, message)),
    }
}

/// The model's result of an answer with `status` and `text`.
fn result_of(status: u16, text: &str) -> ToolOutput {
    // `TextDecoder` drops a leading byte-order mark before `JSON.parse` sees the text.
    let unmarked = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let parsed = serde_json::from_str::<Value>(unmarked).unwrap_or_else(|_| {
        let raw = js::truncate_utf16(text, limits::to_usize(limits::MAX_CUSTOM_TOOL_RAW_CHARS));
        json!({ "raw": raw })
    });
    if (200..300).contains(&status) {
        let mut result = Map::new();
        result.insert("ok".to_owned(), Value::Bool(true));
        result.insert("result".to_owned(), parsed);
        return result;
    }
    let mut result = tool_failure(ErrorCode::CustomHttpError, format!("HTTP {status}"));
    result.insert("body".to_owned(), parsed);
    result
}
