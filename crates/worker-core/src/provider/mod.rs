//! The model provider: OpenAI-compatible Chat Completions over HTTPS.
//!
//! One [`stream_round`] is one streamed request: the conversation and the
//! tool specs go out, text deltas come back through the [`StreamBatcher`]
//! while they arrive, and the round ends with the complete content,
//! reasoning and tool calls. Everything the server sends is untrusted and
//! bounded: error bodies, stream bytes, output characters, malformed
//! records and tool-call fragments. Cancellation is raced against every
//! wait, so Stop is prompt even when a server or the browser ignores it.

mod sse;
mod think;
mod tool_calls;

use crate::batcher::StreamBatcher;
use crate::cancel::Cancellation;
use crate::platform::{Clock, HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use crate::race::{Either, first_of};
use protocol::bounded_body::{BoundedText, check_content_length};
use protocol::constants::is_reasoning_effort_default;
use protocol::endpoint_policy::{Endpoint, EndpointErrorCode, InsecureConsent, validate_endpoint_value};
use protocol::payloads::StreamItem;
use protocol::{js, limits};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

pub(crate) use think::strip_inline_think;

/// The stable code of a provider failure (the original's codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ProviderErrorCode {
    /// No model record at all.
    ModelMissing,
    /// Base URL, API key or model id is blank.
    ModelIncomplete,
    /// The base URL failed the endpoint policy.
    Endpoint(EndpointErrorCode),
    /// The request body could not be encoded.
    RequestInvalid,
    /// `fetch` or a body read failed.
    NetworkError,
    /// A non-2xx answer.
    HttpError,
    StreamTooLarge,
    OutputTooLarge,
    MalformedSse,
    InvalidToolCall,
    DuplicateToolCallId,
    Cancelled,
    Timeout,
    TitleContextEmpty,
    TitleResponseTooLarge,
    TitleInvalidJson,
    TitleEmpty,
}

impl ProviderErrorCode {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ProviderErrorCode::ModelMissing => "MODEL_MISSING",
            ProviderErrorCode::ModelIncomplete => "MODEL_INCOMPLETE",
            ProviderErrorCode::Endpoint(code) => code.as_str(),
            ProviderErrorCode::RequestInvalid => "PROVIDER_REQUEST_INVALID",
            ProviderErrorCode::NetworkError => "PROVIDER_NETWORK_ERROR",
            ProviderErrorCode::HttpError => "PROVIDER_HTTP_ERROR",
            ProviderErrorCode::StreamTooLarge => "PROVIDER_STREAM_TOO_LARGE",
            ProviderErrorCode::OutputTooLarge => "PROVIDER_OUTPUT_TOO_LARGE",
            ProviderErrorCode::MalformedSse => "PROVIDER_MALFORMED_SSE",
            ProviderErrorCode::InvalidToolCall => "PROVIDER_INVALID_TOOL_CALL",
            ProviderErrorCode::DuplicateToolCallId => "PROVIDER_DUPLICATE_TOOL_CALL_ID",
            ProviderErrorCode::Cancelled => protocol::ErrorCode::Cancelled.as_str(),
            ProviderErrorCode::Timeout => protocol::ErrorCode::Timeout.as_str(),
            ProviderErrorCode::TitleContextEmpty => "TITLE_CONTEXT_EMPTY",
            ProviderErrorCode::TitleResponseTooLarge => "TITLE_RESPONSE_TOO_LARGE",
            ProviderErrorCode::TitleInvalidJson => "TITLE_INVALID_JSON",
            ProviderErrorCode::TitleEmpty => "TITLE_EMPTY",
        }
    }
}

/// A provider failure with its code and a message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderError {
    pub(crate) code: ProviderErrorCode,
    pub(crate) message: String,
}

impl ProviderError {
    pub(crate) fn new(code: ProviderErrorCode, message: impl Into<String>) -> Self {
        ProviderError {
            code,
            message: message.into(),
        }
    }

    /// The wire code (`PROVIDER_HTTP_ERROR`, `CANCELLED`, …).
    pub(crate) fn code_str(&self) -> &'static str {
        self.code.as_str()
    }

    pub(crate) fn cancelled() -> Self {
        ProviderError::new(ProviderErrorCode::Cancelled, "The request to the model was cancelled.")
    }

    fn network(message: &str) -> Self {
        ProviderError::new(
            ProviderErrorCode::NetworkError,
            format!("The model endpoint could not be reached: {message}"),
        )
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ProviderError {}

/// A model record checked for use: complete, and its URL accepted by the
/// endpoint policy with the record's own origin-bound acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelConfig {
    /// The record's `id` (`''` when absent).
    pub(crate) id: String,
    /// The record's display `name` (`''` when absent).
    pub(crate) name: String,
    pub(crate) api_key: String,
    pub(crate) model_id: String,
    pub(crate) supports_vision: bool,
    /// The trimmed effort to send; `None` means the provider's default.
    pub(crate) reasoning_effort: Option<String>,
    pub(crate) endpoint: Endpoint,
}

/// `String(value || '')`: falsy values are empty.
fn text_field(record: &Map<String, Value>, key: &str) -> String {
    let value = record.get(key);
    if js::is_truthy(value) {
        value.map(js::js_string).unwrap_or_default()
    } else {
        String::new()
    }
}

impl ModelConfig {
    /// Checks a stored model record
    /// (`{id, name, apiBaseUrl, apiKey, modelId, supportsVision, reasoningEffort,
    /// insecureTransportAcknowledged, insecureTransportAcknowledgedOrigin}`).
    /// Only the stored origin counts as cleartext consent: a bare boolean
    /// from an older version fails closed.
    pub(crate) fn from_record(record: &Value) -> Result<ModelConfig, ProviderError> {
        let empty = Map::new();
        let map = match record {
            Value::Null => {
                return Err(ProviderError::new(
                    ProviderErrorCode::ModelMissing,
                    "No model is configured. Add one in Settings → Models.",
                ));
            }
            Value::Object(map) => map,
            _ => &empty,
        };
        let base_url = text_field(map, "apiBaseUrl");
        let api_key = text_field(map, "apiKey");
        let model_id = text_field(map, "modelId");
        if [&base_url, &api_key, &model_id]
            .iter()
            .any(|field| !js::is_non_blank(field))
        {
            return Err(ProviderError::new(
                ProviderErrorCode::ModelIncomplete,
                "The model needs an API base URL, an API key and a model ID.",
            ));
        }
        let consent = InsecureConsent {
            confirmed: false,
            confirmed_origin: map.get("insecureTransportAcknowledgedOrigin").and_then(Value::as_str),
        };
        let endpoint = validate_endpoint_value(map.get("apiBaseUrl"), consent)
            .map_err(|error| ProviderError::new(ProviderErrorCode::Endpoint(error.code), error.message))?;
        let effort = js::js_trim(&text_field(map, "reasoningEffort")).to_owned();
        let reasoning_effort = (!is_reasoning_effort_default(Some(&Value::String(effort.clone())))).then_some(effort);
        Ok(ModelConfig {
            id: text_field(map, "id"),
            name: text_field(map, "name"),
            api_key,
            model_id,
            supports_vision: js::is_truthy(map.get("supportsVision")),
            reasoning_effort,
            endpoint,
        })
    }

    /// The normalised base URL without trailing slashes, plus
    /// `/chat/completions`.
    pub(crate) fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.url.trim_end_matches('/'))
    }

    /// A non-default reasoning effort is configured; such models expect
    /// `reasoning_content` on every assistant tool-call turn.
    pub(crate) fn reasoning_replay_enabled(&self) -> bool {
        self.reasoning_effort.is_some()
    }
}

/// What one round sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundRequest<'a> {
    pub(crate) model: &'a ModelConfig,
    pub(crate) messages: &'a [Value],
    /// OpenAI function specs; always sent, even when empty.
    pub(crate) tools: &'a [Value],
}

/// One call the model asked for; `raw_args` is the argument text exactly as
/// streamed (parsed and validated later, just before dispatch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) raw_args: String,
}

/// What one round produced. No tool calls means the model has answered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct RoundOutput {
    pub(crate) content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) tool_calls: Vec<ProviderToolCall>,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    stream: bool,
    messages: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [Value]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'a str>,
}

/// The POST to the model: exactly these two headers (redirects are refused
/// by the network adapter).
pub(crate) fn chat_request(
    model: &ModelConfig,
    stream: bool,
    messages: &[Value],
    tools: Option<&[Value]>,
) -> Result<HttpRequest, ProviderError> {
    let body = ChatBody {
        model: &model.model_id,
        stream,
        messages,
        tools,
        reasoning_effort: model.reasoning_effort.as_deref(),
    };
    let body = serde_json::to_string(&body).map_err(|error| {
        ProviderError::new(
            ProviderErrorCode::RequestInvalid,
            format!("The request could not be encoded: {error}"),
        )
    })?;
    Ok(HttpRequest {
        url: model.chat_completions_url(),
        method: "POST".to_owned(),
        headers: vec![
            ("Authorization".to_owned(), format!("Bearer {}", model.api_key)),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ],
        body: Some(body),
    })
}

/// Sends a request, racing the cancellation so an adapter that ignores it
/// cannot hold the caller.
pub(crate) async fn send<N: Network>(
    network: &N,
    request: HttpRequest,
    cancel: &Cancellation,
) -> Result<HttpResponse<N::Body>, ProviderError> {
    if cancel.is_cancelled() {
        return Err(ProviderError::cancelled());
    }
    match cancel.race(network.fetch(request, cancel)).await {
        Err(_) | Ok(Err(NetworkError::Cancelled)) => Err(ProviderError::cancelled()),
        Ok(Err(NetworkError::Failed(message))) => Err(ProviderError::network(&message)),
        Ok(Ok(response)) => Ok(response),
    }
}

/// Why a whole-body read ended without text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyError {
    TooLarge,
    Cancelled,
    Failed(String),
}

/// Reads a whole body of at most `max_bytes` (declared or streamed).
pub(crate) async fn read_bounded<B: ResponseBody>(
    response: &mut HttpResponse<B>,
    max_bytes: usize,
    cancel: &Cancellation,
) -> Result<String, BodyError> {
    check_content_length(response.header("content-length"), max_bytes).map_err(|_| BodyError::TooLarge)?;
    let mut text = BoundedText::new(max_bytes);
    loop {
        match cancel.race(response.body.next_chunk()).await {
            Err(_) | Ok(Some(Err(NetworkError::Cancelled))) => return Err(BodyError::Cancelled),
            Ok(None) => return Ok(text.finish()),
            Ok(Some(Err(NetworkError::Failed(message)))) => return Err(BodyError::Failed(message)),
            Ok(Some(Ok(bytes))) => text.push(&bytes).map_err(|_| BodyError::TooLarge)?,
        }
    }
}

/// `PROVIDER_HTTP_ERROR` "API <status>: <first `max_chars` of the body>".
pub(crate) async fn http_error<B: ResponseBody>(
    response: &mut HttpResponse<B>,
    max_chars: usize,
    cancel: &Cancellation,
) -> ProviderError {
    // An error body that is too large or breaks off still yields the status.
    let text = match read_bounded(response, limits::MAX_PROVIDER_ERROR_BYTES as usize, cancel).await {
        Ok(text) => text,
        Err(BodyError::Cancelled) => return ProviderError::cancelled(),
        Err(BodyError::TooLarge | BodyError::Failed(_)) => String::new(),
    };
    ProviderError::new(
        ProviderErrorCode::HttpError,
        format!("API {}: {}", response.status, js::truncate_utf16(&text, max_chars)),
    )
}

/// Characters of an error body quoted in a streaming round's error.
const ROUND_ERROR_BODY_CHARS: usize = 300;

/// Streams one Chat Completions round.
///
/// Text deltas go to `batcher` as they are parsed; a pending batch is
/// emitted when its 32 ms are up even while the server sends nothing, and
/// whatever is still pending is flushed before this returns, on every
/// outcome, so partial output is never lost. `CANCELLED` comes back as soon
/// as `cancel` fires, whatever the server or the adapter is doing.
pub(crate) async fn stream_round<N, C, F>(
    network: &N,
    clock: &C,
    request: &RoundRequest<'_>,
    cancel: &Cancellation,
    batcher: &mut StreamBatcher<F>,
) -> Result<RoundOutput, ProviderError>
where
    N: Network,
    C: Clock,
    F: FnMut(Vec<StreamItem>),
{
    let result = run_round(network, clock, request, cancel, batcher).await;
    batcher.flush();
    result
}

async fn run_round<N, C, F>(
    network: &N,
    clock: &C,
    request: &RoundRequest<'_>,
    cancel: &Cancellation,
    batcher: &mut StreamBatcher<F>,
) -> Result<RoundOutput, ProviderError>
where
    N: Network,
    C: Clock,
    F: FnMut(Vec<StreamItem>),
{
    let http = chat_request(request.model, true, request.messages, Some(request.tools))?;
    let mut response = send(network, http, cancel).await?;
    if !(200..300).contains(&response.status) {
        return Err(http_error(&mut response, ROUND_ERROR_BODY_CHARS, cancel).await);
    }
    check_content_length(
        response.header("content-length"),
        limits::MAX_PROVIDER_STREAM_BYTES as usize,
    )
    .map_err(|_| sse::stream_too_large())?;

    let mut round = sse::SseRound::new();
    loop {
        let chunk = next_chunk(&mut response.body, clock, cancel, batcher).await?;
        let bytes = match chunk {
            None => break,
            Some(Err(NetworkError::Cancelled)) => return Err(ProviderError::cancelled()),
            Some(Err(NetworkError::Failed(message))) => return Err(ProviderError::network(&message)),
            Some(Ok(bytes)) => bytes,
        };
        round.push_chunk(&bytes, &mut |channel, text| batcher.push(clock.now_ms(), channel, text))?;
        if cancel.is_cancelled() {
            return Err(ProviderError::cancelled());
        }
        // A server that never pauses must not delay batches until the end.
        batcher.flush_if_due(clock.now_ms());
        if round.is_done() {
            break;
        }
    }
    round.finish(&mut |channel, text| batcher.push(clock.now_ms(), channel, text))
}

/// The next body chunk, emitting the pending batch whenever its deadline
/// passes first. The read stays pinned across timer rounds: dropping it
/// would lose the chunk it was about to deliver; only timers are dropped.
async fn next_chunk<B, C, F>(
    body: &mut B,
    clock: &C,
    cancel: &Cancellation,
    batcher: &mut StreamBatcher<F>,
) -> Result<Option<Result<Vec<u8>, NetworkError>>, ProviderError>
where
    B: ResponseBody,
    C: Clock,
    F: FnMut(Vec<StreamItem>),
{
    let mut read = std::pin::pin!(body.next_chunk());
    loop {
        let Some(deadline) = batcher.deadline_ms() else {
            return cancel.race(read.as_mut()).await.map_err(|_| ProviderError::cancelled());
        };
        let wait = (deadline - clock.now_ms()).ceil().clamp(0.0, f64::from(u32::MAX)) as u32;
        match cancel.race(first_of(read.as_mut(), clock.sleep(wait))).await {
            Err(_) => return Err(ProviderError::cancelled()),
            Ok(Either::Left(chunk)) => return Ok(chunk),
            Ok(Either::Right(())) => batcher.flush(),
        }
    }
}

#[cfg(test)]
mod tests;
