//! The server-sent-event body of one streamed Chat Completions round.
//!
//! Pure and synchronous so it can be fed any split of the same bytes in
//! tests: [`SseRound::push_chunk`] takes whatever the network delivered —
//! a chunk may end inside a UTF-8 sequence, inside a line or between the
//! `\r` and `\n` of a line break — and reports text deltas as soon as they
//! are certain. Each `data:` line is one JSON record (multi-line events are
//! not joined; `event:` and `id:` fields are ignored), `[DONE]` ends the
//! round, and every quantity a server controls is bounded.
//!
//! Lines end with `\n` (a `\r` before it is dropped), as the original's
//! `split(/\r?\n/)`; a lone `\r` is not a line end here. The scan is
//! linear ([`LineBuffer`]): each decoded byte is searched for a line break
//! once, so a server that sends a long line one byte at a time costs no
//! more than one that sends it at once.

use crate::provider::error::{ProviderError, ProviderErrorCode};
use crate::provider::think::{InlineThink, extract_reasoning};
use crate::provider::tool_calls::{ProviderToolCall, ToolCallAccumulator};
use protocol::payloads::StreamChannel;
use protocol::{js, limits};
use serde_json::Value;

/// What one round produced. No tool calls means the model has answered.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct RoundOutput {
    pub(crate) content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) tool_calls: Vec<ProviderToolCall>,
}

/// Unparseable `data:` records tolerated per round; one more fails it.
const MAX_MALFORMED_RECORDS: u32 = 16;

/// Streaming UTF-8 decoding as `TextDecoder` does it: a sequence split
/// across chunks waits for its end, malformed bytes become U+FFFD, a leading
/// byte-order mark is dropped.
// Belongs in protocol: `bounded_body::BoundedText` decodes the same way but
// only hands out the whole text at the end.
#[derive(Debug, Default)]
struct Utf8Stream {
    pending: Vec<u8>,
    started: bool,
}

impl Utf8Stream {
    fn decode(&mut self, chunk: &[u8], out: &mut String) {
        let start = out.len();
        self.pending.extend_from_slice(chunk);
        let bytes = std::mem::take(&mut self.pending);
        let mut input = bytes.as_slice();
        loop {
            match std::str::from_utf8(input) {
                Ok(valid) => {
                    out.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, rest) = input.split_at(error.valid_up_to());
                    out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(len) => {
                            out.push('\u{FFFD}');
                            input = rest.get(len..).unwrap_or_default();
                        }
                        None => {
                            self.pending = rest.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        if !self.started && out.len() > start {
            self.started = true;
            if out[start..].starts_with('\u{FEFF}') {
                out.replace_range(start..start + '\u{FEFF}'.len_utf8(), "");
            }
        }
    }

    fn finish(&mut self, out: &mut String) {
        if !std::mem::take(&mut self.pending).is_empty() {
            out.push('\u{FFFD}');
        }
    }
}

/// Decoded text split into lines, each byte searched once: the search for
/// the next `\n` resumes where the last one stopped, and handed-out lines
/// are dropped only when more text arrives (so the tail that moves is never
/// longer than the newest chunk).
#[derive(Debug, Default)]
struct LineBuffer {
    utf8: Utf8Stream,
    /// Decoded text; `text[start..]` is not yet handed out as lines.
    text: String,
    start: usize,
    /// `text[start..searched]` holds no `\n`.
    searched: usize,
    /// Bytes the line search has looked at, for the linearity test.
    #[cfg(test)]
    scanned: usize,
}

impl LineBuffer {
    /// Appends a network chunk (decoded; an incomplete UTF-8 sequence waits).
    fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 {
            self.text.drain(..self.start);
            self.searched -= self.start;
            self.start = 0;
        }
        self.utf8.decode(chunk, &mut self.text);
    }

    /// The next complete line, without its `\n` (nor a `\r` before it).
    fn next_line(&mut self) -> Option<&str> {
        let unsearched = &self.text[self.searched..];
        let found = unsearched.find('\n');
        #[cfg(test)]
        {
            self.scanned += found.map_or(unsearched.len(), |at| at + 1);
        }
        let Some(offset) = found else {
            self.searched = self.text.len();
            return None;
        };
        let end = self.searched + offset;
        let line = &self.text[self.start..end];
        self.start = end + 1;
        self.searched = self.start;
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The unterminated rest at the end of the body (an incomplete UTF-8
    /// sequence becomes U+FFFD).
    fn finish(&mut self) -> String {
        let mut rest = self.text.split_off(self.start);
        self.utf8.finish(&mut rest);
        rest
    }
}

/// Parser state of one round.
#[derive(Debug)]
pub(crate) struct SseRound {
    /// Decoded text not yet consumed as complete lines.
    lines: LineBuffer,
    bytes: usize,
    malformed: u32,
    done: bool,
    content: String,
    reasoning: String,
    /// UTF-16 units of `content` plus `reasoning`.
    output_units: usize,
    think: InlineThink,
    tools: ToolCallAccumulator,
}

impl Default for SseRound {
    fn default() -> Self {
        Self::new()
    }
}

impl SseRound {
    pub(crate) fn new() -> Self {
        SseRound {
            lines: LineBuffer::default(),
            bytes: 0,
            malformed: 0,
            done: false,
            content: String::new(),
            reasoning: String::new(),
            output_units: 0,
            think: InlineThink::new(),
            tools: ToolCallAccumulator::new(),
        }
    }

    /// `[DONE]` was seen: nothing more is read.
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// Feeds one network chunk; `sink` receives each certain text delta in
    /// stream order (a record's reasoning field before its content).
    pub(crate) fn push_chunk(
        &mut self,
        chunk: &[u8],
        sink: &mut impl FnMut(StreamChannel, &str),
    ) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        self.bytes = self.bytes.saturating_add(chunk.len());
        if self.bytes > limits::MAX_PROVIDER_STREAM_BYTES as usize {
            return Err(stream_too_large());
        }
        // The buffer leaves `self` while its lines are processed (they
        // borrow it), and always comes back.
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(chunk);
        let mut outcome = Ok(());
        while let Some(line) = lines.next_line() {
            outcome = self.process_line(js::js_trim(line), sink);
            if outcome.is_err() || self.done {
                break;
            }
        }
        self.lines = lines;
        outcome
    }

    /// Ends the round at the end of the body (or after `[DONE]`): an
    /// unterminated last line still counts, held-back think text is
    /// released and the tool calls are validated.
    pub(crate) fn finish(mut self, sink: &mut impl FnMut(StreamChannel, &str)) -> Result<RoundOutput, ProviderError> {
        if !self.done {
            let text = self.lines.finish();
            let line = js::js_trim(&text);
            if !line.is_empty() {
                let line = line.to_owned();
                self.process_line(&line, sink)?;
            }
        }
        if let Some((channel, text)) = self.think.finish() {
            self.emit(channel, &text, sink)?;
        }
        let tool_calls = self.tools.finish()?;
        Ok(RoundOutput {
            content: (!self.content.is_empty()).then_some(self.content),
            reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
            tool_calls,
        })
    }

    fn process_line(&mut self, line: &str, sink: &mut impl FnMut(StreamChannel, &str)) -> Result<(), ProviderError> {
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(());
        };
        let data = data.strip_prefix(' ').unwrap_or(data);
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let Ok(record) = serde_json::from_str::<Value>(data) else {
            self.malformed += 1;
            if self.malformed > MAX_MALFORMED_RECORDS {
                return Err(ProviderError::new(
                    ProviderErrorCode::MalformedSse,
                    "The model endpoint sent too many unreadable stream records.",
                ));
            }
            return Ok(());
        };
        let Some(delta) = record
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
            .and_then(|choice| choice.get("delta"))
            .and_then(Value::as_object)
        else {
            return Ok(());
        };
        let reasoning = extract_reasoning(delta);
        self.emit(StreamChannel::Reasoning, reasoning, sink)?;
        if let Some(Value::String(content)) = delta.get("content") {
            for (channel, piece) in self.think.push(content) {
                self.emit(channel, &piece, sink)?;
            }
        }
        self.tools.apply(delta.get("tool_calls"))
    }

    fn emit(
        &mut self,
        channel: StreamChannel,
        text: &str,
        sink: &mut impl FnMut(StreamChannel, &str),
    ) -> Result<(), ProviderError> {
        if text.is_empty() {
            return Ok(());
        }
        self.output_units += js::utf16_len(text);
        if self.output_units > limits::MAX_PROVIDER_OUTPUT_CHARS as usize {
            return Err(ProviderError::new(
                ProviderErrorCode::OutputTooLarge,
                "The model's answer exceeds the 1 MiB limit for one round.",
            ));
        }
        match channel {
            StreamChannel::Content => self.content.push_str(text),
            StreamChannel::Reasoning => self.reasoning.push_str(text),
        }
        sink(channel, text);
        Ok(())
    }
}

pub(crate) fn stream_too_large() -> ProviderError {
    ProviderError::new(
        ProviderErrorCode::StreamTooLarge,
        "The model's stream exceeds the 4 MiB limit for one round.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(delta: Value) -> String {
        format!("data: {}\n", json!({"choices": [{"delta": delta}]}))
    }

    fn parse(chunks: &[&[u8]]) -> (Result<RoundOutput, ProviderError>, Vec<(StreamChannel, String)>) {
        let mut events = Vec::new();
        let mut sink = |channel: StreamChannel, text: &str| events.push((channel, text.to_owned()));
        let mut round = SseRound::new();
        for chunk in chunks {
            if let Err(error) = round.push_chunk(chunk, &mut sink) {
                return (Err(error), events);
            }
            if round.is_done() {
                break;
            }
        }
        let result = round.finish(&mut sink);
        (result, events)
    }

    fn output(chunks: &[&[u8]]) -> RoundOutput {
        parse(chunks).0.map_err(|e| e.message).expect("round parses")
    }

    #[test]
    fn applies_the_line_rules() {
        let body = [
            ": keep-alive comment\n",
            "event: message\n",
            "id: 7\n",
            "\n",
            "   data:{\"choices\":[{\"delta\":{\"content\":\"a\"}}]}   \r\n",
            "data:  {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n",
            "data: {\"choices\":[]}\n",
            "data: {\"choices\":[{\"delta\":null}]}\n",
            "data: {\"choices\":[{\"delta\":\"text\"}]}\n",
            "data: {\"other\":1}\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}",
        ]
        .concat();
        let out = output(&[body.as_bytes()]);
        assert_eq!(out.content.as_deref(), Some("abc"));
        assert_eq!(out.reasoning, None);
        assert!(out.tool_calls.is_empty());
    }

    #[test]
    fn stops_at_done_and_ignores_what_follows() {
        let body = format!(
            "{}data: [DONE]\n{}",
            record(json!({"content": "kept"})),
            record(json!({"content": "dropped"}))
        );
        let out = output(&[body.as_bytes()]);
        assert_eq!(out.content.as_deref(), Some("kept"));
        let split = output(&[b"data: [DO", b"NE]\n", record(json!({"content": "late"})).as_bytes()]);
        assert_eq!(split.content, None);
    }

    #[test]
    fn handles_crlf_and_utf8_split_across_chunks() {
        let line = record(json!({"content": "é😀"})).replace('\n', "\r\n");
        let bytes = line.as_bytes();
        let emoji_start = line.find('😀').unwrap_or(0);
        let cr = line.len() - 2;
        let out = output(&[
            &bytes[..emoji_start + 1],
            &bytes[emoji_start + 1..=cr],
            &bytes[cr + 1..],
        ]);
        assert_eq!(out.content.as_deref(), Some("é😀"));
    }

    #[test]
    fn reasoning_fields_come_before_content_of_the_same_record() {
        let body = [
            record(json!({"reasoning_content": "think ", "content": "answer"})),
            record(json!({"reasoning": {"content": "more"}})),
            record(json!({"thinking": "!", "content": "<think>inline</think>."})),
        ]
        .concat();
        let (result, events) = parse(&[body.as_bytes()]);
        let out = result.map_err(|e| e.message).expect("round parses");
        assert_eq!(out.content.as_deref(), Some("answer."));
        assert_eq!(out.reasoning.as_deref(), Some("think more!inline"));
        assert_eq!(
            events,
            vec![
                (StreamChannel::Reasoning, "think ".to_owned()),
                (StreamChannel::Content, "answer".to_owned()),
                (StreamChannel::Reasoning, "more".to_owned()),
                (StreamChannel::Reasoning, "!".to_owned()),
                (StreamChannel::Reasoning, "inline".to_owned()),
                (StreamChannel::Content, ".".to_owned()),
            ]
        );
    }

    #[test]
    fn tolerates_sixteen_malformed_records_but_not_seventeen() {
        let sixteen = "data: not-json\n".repeat(16);
        assert!(parse(&[sixteen.as_bytes()]).0.is_ok());
        let seventeen = "data: not-json\n".repeat(17);
        assert_eq!(
            parse(&[seventeen.as_bytes()]).0.err().map(|e| e.code),
            Some(ProviderErrorCode::MalformedSse)
        );
    }

    #[test]
    fn bounds_stream_bytes_and_output_characters() {
        let max = limits::MAX_PROVIDER_STREAM_BYTES as usize;
        let mut round = SseRound::new();
        let mut sink = |_: StreamChannel, _: &str| {};
        assert!(round.push_chunk(&vec![b'\n'; max], &mut sink).is_ok());
        assert_eq!(
            round.push_chunk(b"\n", &mut sink).err().map(|e| e.code),
            Some(ProviderErrorCode::StreamTooLarge)
        );

        let limit = limits::MAX_PROVIDER_OUTPUT_CHARS as usize;
        let half = "😀".repeat(limit / 4);
        let body = [
            record(json!({"content": half})),
            record(json!({"reasoning_content": half})),
        ]
        .concat();
        assert!(parse(&[body.as_bytes()]).0.is_ok(), "exactly the limit in UTF-16 units");
        let over = format!("{body}{}", record(json!({"content": "x"})));
        assert_eq!(
            parse(&[over.as_bytes()]).0.err().map(|e| e.code),
            Some(ProviderErrorCode::OutputTooLarge)
        );
    }

    #[test]
    fn a_long_line_sent_one_byte_at_a_time_is_scanned_once() {
        // One 1 MiB record, then a short one, each byte its own chunk. A
        // scan that restarts at the buffer's start on every chunk looks at
        // about n²/2 bytes (5·10¹¹ here); this one looks at each byte once.
        let long = record(json!({"content": "x".repeat((1 << 20) - 1)})).replace('\n', "\r\n");
        let body = format!("{long}{}", record(json!({"content": "!"})));
        let mut round = SseRound::new();
        let mut sink = |_: StreamChannel, _: &str| {};
        for byte in body.as_bytes() {
            round
                .push_chunk(std::slice::from_ref(byte), &mut sink)
                .map_err(|e| e.message)
                .expect("the stream parses");
        }
        assert_eq!(round.lines.scanned, body.len(), "each byte is searched exactly once");
        let out = round.finish(&mut sink).map_err(|e| e.message).expect("round parses");
        assert_eq!(out.content.map(|c| c.len()), Some(1 << 20));
    }

    #[test]
    fn many_lines_in_one_chunk_and_a_split_line_are_each_searched_once() {
        let body = [record(json!({"content": "a"})), record(json!({"content": "b"}))].concat();
        let tail = record(json!({"content": "c"}));
        let (head, rest) = tail.split_at(10);
        let mut round = SseRound::new();
        let mut sink = |_: StreamChannel, _: &str| {};
        for chunk in [body.as_str(), head, rest] {
            assert!(round.push_chunk(chunk.as_bytes(), &mut sink).is_ok());
        }
        assert_eq!(round.lines.scanned, body.len() + tail.len());
        let out = round.finish(&mut sink).map_err(|e| e.message).expect("round parses");
        assert_eq!(out.content.as_deref(), Some("abc"));
    }

    #[test]
    fn a_lone_carriage_return_does_not_end_a_line() {
        // As the original's `split(/\r?\n/)`: the two records are one line,
        // which is not JSON.
        let body = format!(
            "{}\r{}",
            record(json!({"content": "a"})).trim_end(),
            record(json!({"content": "b"}))
        );
        assert_eq!(output(&[body.as_bytes()]).content, None);
        let split = record(json!({"content": "ok"})).replace('\n', "\r\n");
        let cr = split.len() - 1;
        let out = output(&[&split.as_bytes()[..cr], &split.as_bytes()[cr..]]);
        assert_eq!(
            out.content.as_deref(),
            Some("ok"),
            "a \\r that ends a chunk waits for its \\n"
        );
    }

    #[test]
    fn a_truncated_final_sequence_becomes_a_replacement_character() {
        let line = record(json!({"content": "ok"}));
        let mut bytes = line.trim_end().as_bytes().to_vec();
        bytes.truncate(bytes.len() - 4);
        bytes.extend_from_slice(b"\xF0\x9F");
        // The record is no longer valid JSON: it counts as malformed.
        assert_eq!(output(&[&bytes]).content, None);
        let mut decoder = Utf8Stream::default();
        let mut text = String::new();
        decoder.decode(b"\xEF\xBB\xBFa\xFFb\xF0\x9F", &mut text);
        decoder.finish(&mut text);
        assert_eq!(text, "a\u{FFFD}b\u{FFFD}");
    }
}
