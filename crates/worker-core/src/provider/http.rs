//! The HTTP side of a provider request: the Chat Completions POST, sending
//! it with Stop raced against the adapter, and bounded whole-body reads
//! (the title request's answer, error bodies).

use crate::cancel::Cancellation;
use crate::platform::{HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use crate::provider::error::{ProviderError, ProviderErrorCode};
use crate::provider::model::ModelConfig;
use protocol::bounded_body::{BoundedText, check_content_length};
use protocol::{js, limits};
use serde::Serialize;
use serde_json::Value;

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
