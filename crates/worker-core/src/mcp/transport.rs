//! One JSON-RPC POST to an MCP server ([`send`]) and the reading of its
//! answer, whatever the era: the body is parsed by its `Content-Type`
//! (one JSON object, or the matching event of an event stream), capped at
//! 2 MiB either way, and turned into the answer or a [`Failure`] that keeps
//! the HTTP status and the JSON-RPC error for the era negotiation.
//!
//! The whole exchange (request, headers, body) runs against one timer and
//! the caller's cancellation through a child [`Cancellation`]: a timeout
//! cancels the child, which aborts the browser's request; Stop cancels the
//! parent, which does the same. Either way nothing keeps reading.

use crate::cancel::Cancellation;
use crate::mcp::error::{Failure, McpError};
use crate::mcp::sse::{Message, SseScanner, answers};
use crate::platform::{Clock, HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use crate::race::{Either, first_of};
use protocol::bounded_body::{BoundedText, check_content_length};
use protocol::{ErrorCode, js, limits};
use serde_json::{Value, json};

/// One request to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Post {
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
    /// The JSON-RPC id; `None` for a notification.
    pub(crate) id: Option<u64>,
    /// The protocol version the request speaks (named in `-32022` errors).
    pub(crate) version: &'static str,
    pub(crate) timeout_ms: u32,
}

/// A successful answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    /// The JSON-RPC message; `None` for an accepted notification.
    pub(crate) message: Option<Message>,
    /// The `Mcp-Session-Id` response header, unchecked.
    pub(crate) session_id: Option<String>,
}

/// Sends `post` and reads its answer within its timeout (`TIMEOUT`), unless
/// `cancel` fires first (`CANCELLED`).
pub(crate) async fn send<N: Network, C: Clock>(
    network: &N,
    clock: &C,
    post: Post,
    cancel: &Cancellation,
) -> Result<Answer, Failure> {
    if cancel.is_cancelled() {
        return Err(Failure::bare(McpError::cancelled()));
    }
    let (operation, _guard) = cancel.child();
    let timeout_ms = post.timeout_ms;
    let timer = async {
        clock.sleep(timeout_ms).await;
        // Aborts the request before the exchange is dropped.
        operation.cancel();
    };
    match first_of(exchange(network, post, &operation), timer).await {
        Either::Left(outcome) => outcome,
        Either::Right(()) => Err(Failure::bare(McpError::timeout())),
    }
}

async fn exchange<N: Network>(network: &N, post: Post, operation: &Cancellation) -> Result<Answer, Failure> {
    let request = HttpRequest {
        url: post.url,
        method: "POST".to_owned(),
        headers: post.headers,
        body: Some(post.body),
    };
    let mut response = match operation.race(network.fetch(request, operation)).await {
        Err(_) | Ok(Err(NetworkError::Cancelled)) => return Err(Failure::bare(McpError::cancelled())),
        Ok(Err(NetworkError::Failed(message))) => return Err(Failure::bare(unreachable(&message))),
        Ok(Ok(response)) => response,
    };
    let status = response.status;
    let session_id = response.header("mcp-session-id").map(str::to_owned);
    let success = (200..300).contains(&status);
    if post.id.is_none() && success {
        // An accepted notification (202, empty body): nothing to read.
        return Ok(Answer {
            message: None,
            session_id,
        });
    }
    let message = match read_message(&mut response, post.id, operation).await {
        Ok(message) => message,
        Err(error) if post.id.is_none() && error.code != ErrorCode::Cancelled => {
            return Err(Failure::answered(status, http_error(status)));
        }
        Err(error) => return Err(Failure::answered(status, error)),
    };
    let error = message.value.get("error").filter(|error| js::is_truthy(Some(error)));
    if !success {
        return Err(match error {
            Some(error) => Failure::from_rpc_error(error, status, post.version),
            None => Failure::answered(status, http_error(status)),
        });
    }
    if let Some(error) = error {
        return Err(Failure::from_rpc_error(error, status, post.version));
    }
    if let Some(id) = post.id
        && !answers(&message.value, Some(id))
    {
        return Err(Failure::answered(
            status,
            McpError::new(
                ErrorCode::McpResponseIdMismatch,
                format!("MCP response id mismatch (expected {id})."),
            ),
        ));
    }
    Ok(Answer {
        message: Some(message),
        session_id,
    })
}

/// Reads the answer to request `id` (`None`: a notification's error) from
/// a JSON body or an event stream, at most 2 MiB of either.
async fn read_message<B: ResponseBody>(
    response: &mut HttpResponse<B>,
    id: Option<u64>,
    operation: &Cancellation,
) -> Result<Message, McpError> {
    let max = limits::to_usize(limits::MAX_MCP_RESPONSE_BYTES);
    check_content_length(response.header("content-length"), max).map_err(|_| too_large())?;
    let event_stream = response
        .header("content-type")
        .is_some_and(|kind| kind.to_ascii_lowercase().contains("text/event-stream"));
    let mut scanner = event_stream.then(|| SseScanner::new(id));
    let mut text = BoundedText::new(max);
    let mut received = 0usize;
    loop {
        let chunk = match operation.race(response.body.next_chunk()).await {
            Err(_) | Ok(Some(Err(NetworkError::Cancelled))) => return Err(McpError::cancelled()),
            Ok(Some(Err(NetworkError::Failed(message)))) => return Err(unreachable(&message)),
            Ok(None) => break,
            Ok(Some(Ok(bytes))) => bytes,
        };
        received = received.saturating_add(chunk.len());
        if received > max {
            return Err(too_large());
        }
        match scanner.as_mut() {
            Some(scanner) => {
                if let Some(found) = scanner.push(&chunk)? {
                    return Ok(found);
                }
            }
            None => text.push(&chunk).map_err(|_| too_large())?,
        }
    }
    match scanner.as_mut() {
        Some(scanner) => scanner.finish(),
        None => parse_json(text.finish(), response.status),
    }
}

fn parse_json(text: String, status: u16) -> Result<Message, McpError> {
    // `TextDecoder` drops a leading byte-order mark before `JSON.parse` sees the text.
    let body = text.strip_prefix('\u{FEFF}').unwrap_or(&text);
    match serde_json::from_str::<Value>(body) {
        Ok(value) => Ok(Message {
            value,
            raw: body.to_owned(),
        }),
        Err(_) => {
            let excerpt = js::truncate_utf16(&text, limits::to_usize(limits::MCP_INVALID_JSON_EXCERPT_CHARS));
            Err(McpError::new(
                ErrorCode::McpInvalidJson,
                format!("Unexpected MCP response ({status}): {excerpt}"),
            ))
        }
    }
}

fn too_large() -> McpError {
    McpError::new(ErrorCode::McpResponseTooLarge, "MCP response exceeds the 2 MiB limit.")
}

fn http_error(status: u16) -> McpError {
    McpError::new(ErrorCode::McpHttpError, format!("MCP HTTP {status}.")).with_details(json!({ "status": status }))
}

fn unreachable(message: &str) -> McpError {
    McpError::new(
        ErrorCode::McpNetworkError,
        format!("The MCP server could not be reached: {message}"),
    )
}
