//! One streamed Chat Completions round ([`stream_round`]): the request goes
//! out, the body is fed to the SSE parser chunk by chunk while pending text
//! is batched to the panel, and Stop is raced against every wait.

use crate::batcher::StreamBatcher;
use crate::cancel::Cancellation;
use crate::platform::{Clock, Network, NetworkError, ResponseBody};
use crate::provider::error::ProviderError;
use crate::provider::http::{chat_request, http_error, send};
use crate::provider::model::ModelConfig;
use crate::provider::sse::{RoundOutput, SseRound, stream_too_large};
use crate::race::{Either, first_of};
use protocol::bounded_body::check_content_length;
use protocol::limits;
use protocol::payloads::StreamItem;
use serde_json::Value;

/// What one round sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RoundRequest<'a> {
    pub(crate) model: &'a ModelConfig,
    pub(crate) messages: &'a [Value],
    /// OpenAI function specs; always sent, even when empty.
    pub(crate) tools: &'a [Value],
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
    .map_err(|_| stream_too_large())?;

    let mut round = SseRound::new();
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
