//! A scripted model endpoint for whole-run tests: replies are queued per
//! model name (so concurrent runs each get their own) and written as the
//! Chat Completions SSE stream a provider sends.

use super::network::{FakeChunk, FakeReply};
use crate::platform::{HttpRequest, NetworkError};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fmt::Display;
use std::rc::Rc;

/// Queued replies by model name.
pub(crate) type Scripts = Rc<RefCell<HashMap<String, VecDeque<FakeReply>>>>;

/// The next scripted reply of the model a request names.
pub(crate) fn next_reply(scripts: &Scripts, request: &HttpRequest) -> Result<FakeReply, NetworkError> {
    let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or_default();
    let name = body["model"].as_str().unwrap_or_default().to_owned();
    scripts
        .borrow_mut()
        .get_mut(&name)
        .and_then(VecDeque::pop_front)
        .ok_or_else(|| NetworkError::Failed(format!("no scripted reply for {name}")))
}

/// One `data:` event per delta, then `[DONE]` — or `then` instead of it
/// (a stall, a broken stream).
pub(crate) fn sse(deltas: &[Value], then: Option<FakeChunk>) -> FakeReply {
    let mut chunks: Vec<FakeChunk> = deltas
        .iter()
        .map(|delta| FakeChunk::Data(format!("data: {}\n\n", json!({"choices": [{"delta": delta}]})).into_bytes()))
        .collect();
    chunks.push(then.unwrap_or_else(|| FakeChunk::Data(b"data: [DONE]\n\n".to_vec())));
    FakeReply {
        status: 200,
        headers: vec![("content-type".into(), "text/event-stream".into())],
        chunks,
    }
}

/// A reply with only content.
pub(crate) fn text(content: &str) -> FakeReply {
    sse(&[json!({"content": content})], None)
}

/// A reply with tool calls `(id, name, arguments)`; the arguments are sent
/// as their text (a JSON value, or a raw string that may be invalid JSON).
pub(crate) fn calls<A: Display>(list: &[(&str, &str, A)]) -> FakeReply {
    let deltas: Vec<Value> = list
        .iter()
        .enumerate()
        .map(|(index, (id, name, args))| {
            json!({"tool_calls": [{"index": index, "id": id, "function": {"name": name, "arguments": args.to_string()}}]})
        })
        .collect();
    sse(&deltas, None)
}
