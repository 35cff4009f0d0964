//! The model provider: OpenAI-compatible Chat Completions over HTTPS.
//!
//! One [`stream_round`] is one streamed request: the conversation and the
//! tool specs go out, text deltas come back through the [`StreamBatcher`]
//! while they arrive, and the round ends with the complete content,
//! reasoning and tool calls. Everything the server sends is untrusted and
//! bounded: error bodies, stream bytes, output characters, malformed
//! records and tool-call fragments. Cancellation is raced against every
//! wait, so Stop is prompt even when a server or the browser ignores it.

mod error;
mod http;
mod model;
mod round;
mod sse;
mod think;
mod tool_calls;

#[cfg(test)]
mod tests;

pub(crate) use error::{ProviderError, ProviderErrorCode};
pub(crate) use http::{BodyError, chat_request, http_error, read_bounded, send};
pub(crate) use model::ModelConfig;
pub(crate) use round::{RoundRequest, stream_round};
pub(crate) use think::strip_inline_think;
pub(crate) use tool_calls::ProviderToolCall;
