//! Where a model's reasoning text is found in a streamed delta.
//!
//! OpenAI-compatible servers disagree on where reasoning goes: some send a
//! separate delta field (several spellings), others wrap it in
//! `<think>…</think>` inside the ordinary content. Both must end up on the
//! reasoning channel and never in the answer, and the tags can be split at
//! any character across deltas, so the splitter is a small state machine
//! that holds back only the characters that might still become a tag.

use protocol::payloads::StreamChannel;
use serde_json::{Map, Value};

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// The reasoning text of one delta, from the first field that carries a
/// string: `reasoning_content`, `reasoning`, `reasoning.content`,
/// `thinking`. A present but empty `reasoning_content` still wins, so a
/// server that sends it alongside another spelling is read one way only.
pub(crate) fn extract_reasoning(delta: &Map<String, Value>) -> &str {
    if let Some(Value::String(text)) = delta.get("reasoning_content") {
        return text;
    }
    match delta.get("reasoning") {
        Some(Value::String(text)) => return text,
        Some(Value::Object(inner)) => {
            if let Some(Value::String(text)) = inner.get("content") {
                return text;
            }
        }
        _ => {}
    }
    if let Some(Value::String(text)) = delta.get("thinking") {
        return text;
    }
    ""
}

/// Length in bytes of the longest proper prefix of `token` that `text` ends
/// with (a tag that may be completed by the next delta).
fn partial_tag_len(text: &str, token: &str) -> usize {
    let longest = text.len().min(token.len() - 1);
    (1..=longest)
        .rev()
        .find(|&len| text.ends_with(&token[..len]))
        .unwrap_or(0)
}

/// Splits streamed content at inline `<think>` tags.
///
/// Text outside a block is content and text inside is reasoning; both are
/// released as soon as they cannot be part of a tag, so reasoning streams
/// while the model thinks instead of arriving only at `</think>`. A stray
/// `</think>` outside a block is ordinary content.
#[derive(Debug, Default, Clone)]
pub(crate) struct InlineThink {
    inside: bool,
    held: String,
}

impl InlineThink {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds content text; returns the pieces that are now certain, in order.
    pub(crate) fn push(&mut self, text: &str) -> Vec<(StreamChannel, String)> {
        let mut out = Vec::new();
        let mut rest = std::mem::take(&mut self.held);
        rest.push_str(text);
        loop {
            let (token, channel) = if self.inside {
                (CLOSE, StreamChannel::Reasoning)
            } else {
                (OPEN, StreamChannel::Content)
            };
            if let Some(at) = rest.find(token) {
                emit(&mut out, channel, &rest[..at]);
                rest.drain(..at + token.len());
                self.inside = !self.inside;
                continue;
            }
            let keep = partial_tag_len(&rest, token);
            let cut = rest.len() - keep;
            emit(&mut out, channel, &rest[..cut]);
            rest.drain(..cut);
            self.held = rest;
            return out;
        }
    }

    /// The held-back text at the end of the stream: reasoning when a block
    /// is still open, otherwise content (a lone `<thi` is just text).
    pub(crate) fn finish(&mut self) -> Option<(StreamChannel, String)> {
        let held = std::mem::take(&mut self.held);
        let channel = if self.inside {
            StreamChannel::Reasoning
        } else {
            StreamChannel::Content
        };
        self.inside = false;
        (!held.is_empty()).then_some((channel, held))
    }
}

fn emit(out: &mut Vec<(StreamChannel, String)>, channel: StreamChannel, text: &str) {
    if !text.is_empty() {
        out.push((channel, text.to_owned()));
    }
}

/// The content of a complete text with its `<think>` blocks removed; an
/// unfinished block or tag at the end is dropped (used for titles, where
/// only the final answer counts).
pub(crate) fn strip_inline_think(text: &str) -> String {
    InlineThink::new()
        .push(text)
        .into_iter()
        .filter(|(channel, _)| *channel == StreamChannel::Content)
        .map(|(_, piece)| piece)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn delta(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn reads_every_reasoning_dialect_in_priority_order() {
        assert_eq!(extract_reasoning(&delta(json!({"reasoning_content": "a"}))), "a");
        assert_eq!(extract_reasoning(&delta(json!({"reasoning": "b"}))), "b");
        assert_eq!(extract_reasoning(&delta(json!({"reasoning": {"content": "c"}}))), "c");
        assert_eq!(extract_reasoning(&delta(json!({"thinking": "d"}))), "d");
        assert_eq!(
            extract_reasoning(&delta(json!({"reasoning_content": "", "reasoning": "x"}))),
            ""
        );
        assert_eq!(
            extract_reasoning(&delta(json!({"reasoning": {"content": 5}, "thinking": "t"}))),
            "t"
        );
        assert_eq!(extract_reasoning(&delta(json!({"content": "answer"}))), "");
    }

    fn totals(pieces: &[(StreamChannel, String)]) -> (String, String) {
        let mut content = String::new();
        let mut reasoning = String::new();
        for (channel, text) in pieces {
            match channel {
                StreamChannel::Content => content.push_str(text),
                StreamChannel::Reasoning => reasoning.push_str(text),
            }
        }
        (content, reasoning)
    }

    #[test]
    fn splits_blocks_and_holds_back_a_partial_opener() {
        let mut think = InlineThink::new();
        let pieces = think.push("a<think>b</think>c<thi");
        assert_eq!(
            pieces,
            vec![
                (StreamChannel::Content, "a".to_owned()),
                (StreamChannel::Reasoning, "b".to_owned()),
                (StreamChannel::Content, "c".to_owned()),
            ]
        );
        assert_eq!(think.finish(), Some((StreamChannel::Content, "<thi".to_owned())));
    }

    #[test]
    fn a_block_split_across_deltas_streams_as_reasoning() {
        let mut think = InlineThink::new();
        let mut pieces = think.push("before<think>sec");
        pieces.extend(think.push("ret</thi"));
        pieces.extend(think.push("nk>after"));
        assert_eq!(totals(&pieces), ("beforeafter".to_owned(), "secret".to_owned()));
        assert_eq!(think.finish(), None);
    }

    #[test]
    fn an_unclosed_block_ends_as_reasoning_and_a_stray_closer_is_content() {
        let mut think = InlineThink::new();
        let mut pieces = think.push("x</think>y<think>still thinking</th");
        pieces.extend(think.finish());
        assert_eq!(
            totals(&pieces),
            ("x</think>y".to_owned(), "still thinking</th".to_owned())
        );
    }

    #[test]
    fn titles_keep_only_the_answer() {
        assert_eq!(strip_inline_think("<think>plan</think>\"Title.\""), "\"Title.\"");
        assert_eq!(strip_inline_think("Title<think>unfinished"), "Title");
        assert_eq!(strip_inline_think("Title<thi"), "Title");
    }

    /// The original's whole-buffer algorithm, used as the oracle: split the
    /// complete text once, then route the remainder by its opening tag.
    fn reference(text: &str) -> (String, String) {
        let (mut content, mut reasoning, mut remainder) = (String::new(), String::new(), "");
        let mut offset = 0;
        while offset < text.len() {
            let Some(open) = text[offset..].find(OPEN).map(|at| at + offset) else {
                let tail = partial_tag_len(&text[offset..], OPEN);
                content.push_str(&text[offset..text.len() - tail]);
                remainder = &text[text.len() - tail..];
                break;
            };
            content.push_str(&text[offset..open]);
            let Some(close) = text[open + OPEN.len()..].find(CLOSE).map(|at| at + open + OPEN.len()) else {
                remainder = &text[open..];
                break;
            };
            reasoning.push_str(&text[open + OPEN.len()..close]);
            offset = close + CLOSE.len();
        }
        match remainder.strip_prefix(OPEN) {
            Some(inner) => reasoning.push_str(inner),
            None => content.push_str(remainder),
        }
        (content, reasoning)
    }

    proptest! {
        #[test]
        fn any_split_of_the_content_gives_the_same_channels(
            text in "[<>/thinkaé😀 ]{0,40}",
            cuts in proptest::collection::vec(0usize..60, 0..6),
        ) {
            let mut bounds: Vec<usize> = cuts
                .into_iter()
                .map(|cut| cut.min(text.len()))
                .filter(|&cut| text.is_char_boundary(cut))
                .collect();
            bounds.sort_unstable();
            let mut think = InlineThink::new();
            let mut pieces = Vec::new();
            let mut start = 0;
            for end in bounds.into_iter().chain([text.len()]) {
                pieces.extend(think.push(&text[start..end]));
                start = end;
            }
            pieces.extend(think.finish());
            prop_assert_eq!(totals(&pieces), reference(&text));
        }
    }
}
