//! Tool calls assembled from streamed deltas.
//!
//! A server streams each call as fragments keyed by `index`: the id arrives
//! once (or is replaced), the name and the argument text arrive in pieces.
//! Everything here is bounded while it accumulates, because the fragments
//! come from a server and end up in tool dispatch, and the finished calls are
//! checked before any of them can run.

use crate::provider::error::{ProviderError, ProviderErrorCode};
use protocol::js;
use serde_json::{Map, Value};

/// Calls per round.
pub(crate) const MAX_TOOL_CALLS: usize = 64;
/// UTF-16 units of a call id.
pub(crate) const MAX_TOOL_CALL_ID_CHARS: usize = 128;
/// UTF-16 units of a function name.
const MAX_TOOL_NAME_CHARS: usize = 128;
/// UTF-16 units of the raw argument text.
const MAX_TOOL_ARGUMENT_CHARS: usize = 256_000;

/// One call the model asked for; `raw_args` is the argument text exactly as
/// streamed (parsed and validated later, just before dispatch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) raw_args: String,
}

fn invalid(message: impl Into<String>) -> ProviderError {
    ProviderError::new(ProviderErrorCode::InvalidToolCall, message)
}

#[derive(Debug, Default)]
struct Partial {
    id: String,
    name: String,
    arguments: String,
    name_units: usize,
    argument_units: usize,
}

/// The calls of one round in the order their first fragment arrived.
#[derive(Debug, Default)]
pub(crate) struct ToolCallAccumulator {
    calls: Vec<(u64, Partial)>,
}

impl ToolCallAccumulator {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Merges a delta's `tool_calls` (absent or `null` is nothing; anything
    /// but an array of objects is refused).
    pub(crate) fn apply(&mut self, tool_calls: Option<&Value>) -> Result<(), ProviderError> {
        let items = match tool_calls {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(items)) => items,
            Some(_) => return Err(invalid("The model sent a malformed tool-call list.")),
        };
        for item in items {
            let Value::Object(call) = item else {
                return Err(invalid("The model sent a malformed tool call."));
            };
            self.apply_one(call)?;
        }
        Ok(())
    }

    fn apply_one(&mut self, call: &Map<String, Value>) -> Result<(), ProviderError> {
        // A fragment without an integer index starts the next call, as the
        // original keyed such fragments by the number of calls so far.
        let index = match call.get("index") {
            Some(value) if js::is_integer(value) => js::as_number(value).unwrap_or(-1.0),
            _ => self.calls.len() as f64,
        };
        if !(0.0..MAX_TOOL_CALLS as f64).contains(&index) {
            return Err(invalid(format!(
                "Tool-call indexes must be between 0 and {}.",
                MAX_TOOL_CALLS - 1
            )));
        }
        let key = index as u64;
        let position = match self.calls.iter().position(|(k, _)| *k == key) {
            Some(position) => position,
            None => {
                self.calls.push((key, Partial::default()));
                self.calls.len() - 1
            }
        };
        let Some((_, partial)) = self.calls.get_mut(position) else {
            return Err(invalid("The model sent a malformed tool call."));
        };
        match call.get("id") {
            None | Some(Value::Null) => {}
            Some(Value::String(id)) => partial.id.clone_from(id),
            Some(_) => return Err(invalid("A tool-call id must be a string.")),
        }
        if let Some(Value::Object(function)) = call.get("function") {
            match function.get("name") {
                None | Some(Value::Null) => {}
                Some(Value::String(name)) => {
                    partial.name.push_str(name);
                    partial.name_units += js::utf16_len(name);
                }
                Some(_) => return Err(invalid("A tool name must be a string.")),
            }
            match function.get("arguments") {
                None | Some(Value::Null) => {}
                Some(Value::String(arguments)) => {
                    partial.argument_units += js::utf16_len(arguments);
                    if partial.argument_units > MAX_TOOL_ARGUMENT_CHARS {
                        return Err(too_large());
                    }
                    partial.arguments.push_str(arguments);
                }
                Some(_) => return Err(invalid("Tool arguments must be a string.")),
            }
        }
        if js::utf16_len(&partial.id) > MAX_TOOL_CALL_ID_CHARS || partial.name_units > MAX_TOOL_NAME_CHARS {
            return Err(too_large());
        }
        Ok(())
    }

    /// The finished calls: each needs a non-empty id without control
    /// characters and a name of 1–128 `[A-Za-z0-9_-]`; ids are unique.
    pub(crate) fn finish(self) -> Result<Vec<ProviderToolCall>, ProviderError> {
        let mut out: Vec<ProviderToolCall> = Vec::with_capacity(self.calls.len());
        for (_, partial) in self.calls {
            let id_ok = !partial.id.is_empty() && !partial.id.chars().any(|c| (c as u32) < 32 || c as u32 == 127);
            let name_ok = (1..=MAX_TOOL_NAME_CHARS).contains(&partial.name.len())
                && partial
                    .name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !id_ok || !name_ok {
                return Err(invalid("The model sent a tool call with an invalid id or name."));
            }
            if out.iter().any(|call| call.id == partial.id) {
                return Err(ProviderError::new(
                    ProviderErrorCode::DuplicateToolCallId,
                    "The model used the same tool-call id twice.",
                ));
            }
            out.push(ProviderToolCall {
                id: partial.id,
                name: partial.name,
                raw_args: partial.arguments,
            });
        }
        Ok(out)
    }
}

fn too_large() -> ProviderError {
    invalid("A tool call exceeds the size limits (id and name 128 characters, arguments 256,000).")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(deltas: &[Value]) -> Result<Vec<ProviderToolCall>, ProviderError> {
        let mut accumulator = ToolCallAccumulator::new();
        for delta in deltas {
            accumulator.apply(Some(delta))?;
        }
        accumulator.finish()
    }

    fn code(result: Result<Vec<ProviderToolCall>, ProviderError>) -> Option<ProviderErrorCode> {
        result.err().map(|error| error.code)
    }

    #[test]
    fn concatenates_names_and_arguments_and_replaces_ids() {
        let calls = run(&[
            json!([{"index": 0, "id": "first", "function": {"name": "read_", "arguments": "{\"a\""}}]),
            json!([{"index": 1.0, "id": "call-2", "function": {"name": "read_diagnostics"}}]),
            json!([{"index": 0, "id": "call-1", "function": {"name": "document", "arguments": ":1}"}}]),
        ])
        .map_err(|e| e.message)
        .expect("valid calls");
        assert_eq!(
            calls,
            vec![
                ProviderToolCall {
                    id: "call-1".into(),
                    name: "read_document".into(),
                    raw_args: "{\"a\":1}".into()
                },
                ProviderToolCall {
                    id: "call-2".into(),
                    name: "read_diagnostics".into(),
                    raw_args: String::new()
                },
            ]
        );
    }

    #[test]
    fn fragments_without_an_index_start_the_next_call() {
        let calls = run(&[json!([
            {"id": "a", "function": {"name": "one"}},
            {"id": "b", "function": {"name": "two"}},
        ])])
        .map_err(|e| e.message)
        .expect("valid calls");
        assert_eq!(
            calls.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["one", "two"]
        );
    }

    #[test]
    fn refuses_malformed_fragments() {
        for delta in [
            json!({}),
            json!(["not an object"]),
            json!([{"index": 0, "id": 7, "function": {"name": "x"}}]),
            json!([{"index": 0, "id": "a", "function": {"name": 7}}]),
            json!([{"index": 0, "id": "a", "function": {"name": "x", "arguments": {}}}]),
            json!([{"index": 64, "id": "a", "function": {"name": "x"}}]),
            json!([{"index": -1, "id": "a", "function": {"name": "x"}}]),
        ] {
            assert_eq!(
                code(run(std::slice::from_ref(&delta))),
                Some(ProviderErrorCode::InvalidToolCall),
                "{delta}"
            );
        }
    }

    #[test]
    fn bounds_ids_names_and_arguments_while_accumulating() {
        let long_id = "i".repeat(MAX_TOOL_CALL_ID_CHARS + 1);
        assert_eq!(
            code(run(&[json!([{"index": 0, "id": long_id, "function": {"name": "x"}}])])),
            Some(ProviderErrorCode::InvalidToolCall)
        );
        let half = "n".repeat(MAX_TOOL_NAME_CHARS / 2 + 1);
        assert_eq!(
            code(run(&[
                json!([{"index": 0, "id": "a", "function": {"name": half}}]),
                json!([{"index": 0, "function": {"name": half}}]),
            ])),
            Some(ProviderErrorCode::InvalidToolCall)
        );
        let chunk = "x".repeat(MAX_TOOL_ARGUMENT_CHARS / 2);
        let ok = run(&[
            json!([{"index": 0, "id": "a", "function": {"name": "f", "arguments": chunk}}]),
            json!([{"index": 0, "function": {"arguments": chunk}}]),
        ]);
        assert_eq!(ok.map(|calls| calls.len()), Ok(1));
        assert_eq!(
            code(run(&[
                json!([{"index": 0, "id": "a", "function": {"name": "f", "arguments": chunk}}]),
                json!([{"index": 0, "function": {"arguments": chunk}}]),
                json!([{"index": 0, "function": {"arguments": "x"}}]),
            ])),
            Some(ProviderErrorCode::InvalidToolCall)
        );
    }

    #[test]
    fn validates_finished_calls() {
        for delta in [
            json!([{"index": 0, "function": {"name": "no_id"}}]),
            json!([{"index": 0, "id": "bad\u{7f}", "function": {"name": "x"}}]),
            json!([{"index": 0, "id": "line\nbreak", "function": {"name": "x"}}]),
            json!([{"index": 0, "id": "a", "function": {"name": "bad tool name"}}]),
            json!([{"index": 0, "id": "a"}]),
        ] {
            assert_eq!(
                code(run(std::slice::from_ref(&delta))),
                Some(ProviderErrorCode::InvalidToolCall),
                "{delta}"
            );
        }
        assert_eq!(
            code(run(&[json!([
                {"index": 0, "id": "same-id", "function": {"name": "read_document", "arguments": "{}"}},
                {"index": 1, "id": "same-id", "function": {"name": "read_diagnostics", "arguments": "{}"}},
            ])])),
            Some(ProviderErrorCode::DuplicateToolCallId)
        );
        assert_eq!(run(&[json!(null)]).map(|calls| calls.len()), Ok(0));
    }
}
