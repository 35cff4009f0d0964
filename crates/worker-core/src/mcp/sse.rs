//! The event-stream framing of an MCP answer: finds the one event whose
//! JSON-RPC `id` answers the request, across arbitrary chunk boundaries.
//!
//! Pure and synchronous, so tests can feed any split of the same bytes.
//! Lines end with `\n`, `\r\n` or `\r`; a `\r` that ends a chunk waits for
//! the next one (it may be half of `\r\n`). Lines are found on bytes (line
//! breaks never occur inside a UTF-8 sequence) and only `data:` lines are
//! decoded; `:` comments and other fields are skipped. The scan is linear:
//! each byte is looked at once, and consumed lines are dropped from the
//! buffer, so a server that sends one byte at a time costs no more than one
//! that sends everything at once. The byte cap is the reader's.

use crate::mcp::error::McpError;
use protocol::{ErrorCode, js, limits};
use serde_json::Value;

/// The answer found in a stream (or a JSON body): the JSON-RPC message and
/// the text it was parsed from (rendering a tool result keeps its key order).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub(crate) value: Value,
    pub(crate) raw: String,
}

/// Whether `message` answers request `id`: the same number, or an error
/// whose id is `null` (the server could not read the request's id; a
/// notification, `id: None`, can only get such an answer).
pub(crate) fn answers(message: &Value, id: Option<u64>) -> bool {
    match (message.get("id"), id) {
        (Some(Value::Null), _) => message.get("error").is_some(),
        (Some(other), Some(id)) => js::as_number(other).is_some_and(|n| n == id as f64),
        _ => false,
    }
}

/// The scanner of one response stream.
#[derive(Debug)]
pub(crate) struct SseScanner {
    request_id: Option<u64>,
    /// Bytes not yet consumed; always starts at the beginning of a line.
    buffer: Vec<u8>,
    /// Where the search for the next line break resumes.
    scan: usize,
    /// The current event's `data:` lines, joined with `\n`.
    data: String,
    has_data: bool,
    malformed: u32,
    first_line: bool,
}

impl SseScanner {
    pub(crate) fn new(request_id: Option<u64>) -> SseScanner {
        SseScanner {
            request_id,
            buffer: Vec::new(),
            scan: 0,
            data: String::new(),
            has_data: false,
            malformed: 0,
            first_line: true,
        }
    }

    /// Feeds one chunk; `Some` as soon as the answer is complete.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Result<Option<Message>, McpError> {
        self.buffer.extend_from_slice(chunk);
        self.consume_lines(false)
    }

    /// The stream ended: a last unterminated line and a last event without
    /// its blank line still count (`MCP_STREAM_ENDED` when none answered).
    pub(crate) fn finish(&mut self) -> Result<Message, McpError> {
        if let Some(found) = self.consume_lines(true)? {
            return Ok(found);
        }
        if !self.buffer.is_empty() {
            let line = std::mem::take(&mut self.buffer);
            if let Some(found) = self.line(&line)? {
                return Ok(found);
            }
        }
        if let Some(found) = self.dispatch()? {
            return Ok(found);
        }
        Err(McpError::new(
            ErrorCode::McpStreamEnded,
            "MCP stream ended before the matching response.",
        ))
    }

    fn consume_lines(&mut self, done: bool) -> Result<Option<Message>, McpError> {
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut start = 0;
        let mut outcome = Ok(None);
        loop {
            let Some(offset) = buffer[self.scan..].iter().position(|&b| b == b'\n' || b == b'\r') else {
                self.scan = buffer.len();
                break;
            };
            let at = self.scan + offset;
            let width = match (buffer[at], buffer.get(at + 1)) {
                (b'\r', Some(b'\n')) => 2,
                (b'\r', None) if !done => {
                    // Perhaps half of a `\r\n`: the next chunk tells.
                    self.scan = at;
                    break;
                }
                _ => 1,
            };
            let line = self.line(&buffer[start..at]);
            start = at + width;
            self.scan = start;
            if !matches!(line, Ok(None)) {
                outcome = line;
                break;
            }
        }
        buffer.drain(..start);
        self.scan -= start;
        self.buffer = buffer;
        outcome
    }

    fn line(&mut self, line: &[u8]) -> Result<Option<Message>, McpError> {
        let mut line = line;
        if std::mem::take(&mut self.first_line) {
            // `TextDecoder` drops a byte-order mark at the start of the stream.
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if let Some(value) = line.strip_prefix(b"data:") {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            if self.has_data {
                self.data.push('\n');
            }
            self.data.push_str(&String::from_utf8_lossy(value));
            self.has_data = true;
        }
        Ok(None)
    }

    /// A blank line ends an event: parse its data, count it if it is not
    /// JSON, keep it if it answers the request.
    fn dispatch(&mut self) -> Result<Option<Message>, McpError> {
        if !std::mem::take(&mut self.has_data) {
            return Ok(None);
        }
        let raw = std::mem::take(&mut self.data);
        match serde_json::from_str::<Value>(&raw) {
            Ok(value) if answers(&value, self.request_id) => Ok(Some(Message { value, raw })),
            Ok(_) => Ok(None),
            Err(_) => {
                self.malformed += 1;
                if self.malformed > limits::MAX_MCP_MALFORMED_SSE_EVENTS {
                    Err(McpError::new(
                        ErrorCode::McpMalformedSse,
                        "Too many malformed MCP SSE events.",
                    ))
                } else {
                    Ok(None)
                }
            }
        }
    }
}
