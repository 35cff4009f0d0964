//! The run's tool budget: how many tool calls it may execute
//! ([`MAX_RUN_TOOL_CALLS`]) and how many tool-result bytes it may send to
//! the model ([`MAX_RUN_TOOL_RESULT_BYTES`]), and its read cache.
//!
//! The cache answers a repeated read by reference instead of sending the
//! same text again: the model already holds every earlier result of the run
//! (nothing is dropped from a run's conversation), so resending it only
//! costs memory and tokens in every later round. A read is still executed
//! each time, because only reading proves the page unchanged (the user may
//! type while a run works, and the page offers no cheaper proof); what the
//! cache decides is what the model is sent. A result is answered by
//! reference when it is a successful built-in read
//! ([`Route::is_repeatable_read`]) with the same name, canonical arguments
//! and target file as an earlier call, and the text the model would get is
//! byte for byte the earlier one. Every editor write empties the cache, so
//! the first read after a write is always sent in full. A reference counts
//! as a call but adds no result bytes.
//!
//! Once the budget is spent no further tool runs: each call gets a
//! `TOOL_BUDGET_EXHAUSTED` result telling the model to answer with what it
//! has, and the first such refusal is announced to the user in an
//! `AI_RUN_NOTICE` (the event for what the user should know about a run
//! that goes on; the panel shows it at once and again when the run
//! completes). A model that asks for tools again in a later round ends the
//! run with that code, so a budget cannot become 32 rounds of refusals.

use crate::context::tool_result_message;
use crate::runs::{ToolOutput, tool_failure};
use crate::tools::{Effect, Route};
use protocol::ErrorCode;
use protocol::edit_checkpoint::sha256_text;
use protocol::js;
use protocol::limits::{MAX_RUN_TOOL_CALLS, MAX_RUN_TOOL_RESULT_BYTES, to_usize};
use protocol::payloads::RunNotice;
use protocol::tool_schema::parse_tool_arguments;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Which limit a run reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Calls,
    ResultBytes,
}

impl Limit {
    fn describe(self) -> String {
        match self {
            Limit::Calls => format!("{MAX_RUN_TOOL_CALLS} tool calls"),
            Limit::ResultBytes => format!("{} MiB of tool results", MAX_RUN_TOOL_RESULT_BYTES / (1024 * 1024)),
        }
    }
}

/// The read a call would repeat: its tool, arguments and file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ReadKey(String);

impl ReadKey {
    /// The key of a call to `route` with `raw_args` on `file` (the run's
    /// target file when the call is made), if the route is a repeatable read
    /// and the arguments parse. The key is a hash, so the cache holds no
    /// argument text (arguments may be 256 KiB).
    pub(crate) fn of(route: Option<&Route>, raw_args: &str, file: Option<&str>) -> Option<ReadKey> {
        let route = route.filter(|route| route.is_repeatable_read())?;
        let args = parse_tool_arguments(raw_args).ok()?;
        let canonical = js::canonical_json(&json!([route.name, Value::Object(args), file]));
        Some(ReadKey(sha256_text(&canonical)))
    }
}

/// What the model already holds of one read.
#[derive(Debug, Clone)]
struct CachedRead {
    call_id: String,
    content_hash: String,
}

/// The budget of one run; it lives as long as the run's rounds.
#[derive(Debug, Default)]
pub(crate) struct RunBudget {
    calls: u32,
    result_bytes: usize,
    reads: HashMap<ReadKey, CachedRead>,
    spent: Option<Limit>,
    /// A call was refused, so the model has been told.
    told: bool,
}

impl RunBudget {
    /// Admits one more call, or answers why not (the first refusal also
    /// returns the user's notice).
    pub(crate) fn admit(&mut self) -> Result<(), (ToolOutput, Option<RunNotice>)> {
        if self.spent.is_none() && self.calls >= MAX_RUN_TOOL_CALLS {
            self.spent = Some(Limit::Calls);
        }
        let Some(limit) = self.spent else {
            self.calls += 1;
            return Ok(());
        };
        let notice = (!std::mem::replace(&mut self.told, true)).then(|| RunNotice {
            code: ErrorCode::ToolBudgetExhausted.as_str().to_owned(),
            message: format!(
                "This run reached its tool budget ({}): further tool calls were not run, and the model was asked \
                 to answer with what it has. Send a new message to continue.",
                limit.describe()
            ),
        });
        let refusal = tool_failure(
            ErrorCode::ToolBudgetExhausted,
            format!(
                "This run's tool budget is spent ({}), so this call was not executed and no further tool will run \
                 in this run. Answer the user now with what you have, and say what is left undone so they can \
                 continue in a new message.",
                limit.describe()
            ),
        );
        Err((refusal, notice))
    }

    /// Whether the model was told that the budget is spent.
    pub(crate) fn model_was_told(&self) -> bool {
        self.told
    }

    /// The `tool` message answering an executed call: the result as the
    /// model gets it, or a reference to an identical earlier one; its bytes
    /// are counted against the budget. An editor write empties the cache.
    pub(crate) fn answer(
        &mut self,
        call_id: &str,
        route: Option<&Route>,
        key: Option<ReadKey>,
        result: &ToolOutput,
    ) -> Value {
        let message = tool_result_message(call_id, &Value::Object(result.clone()));
        let content = message.get("content").and_then(Value::as_str).unwrap_or_default();
        if route.is_some_and(|route| route.effect == Effect::EditorWrite) {
            self.reads.clear();
        }
        let succeeded = result.get("ok") == Some(&Value::Bool(true));
        if let Some(key) = key.filter(|_| succeeded) {
            let content_hash = sha256_text(content);
            if let Some(earlier) = self.reads.get(&key).filter(|read| read.content_hash == content_hash) {
                return tool_result_message(call_id, &Value::Object(reference(&earlier.call_id)));
            }
            let call_id = call_id.to_owned();
            self.reads.insert(key, CachedRead { call_id, content_hash });
        }
        self.result_bytes = self.result_bytes.saturating_add(content.len());
        if self.spent.is_none() && self.result_bytes >= to_usize(MAX_RUN_TOOL_RESULT_BYTES) {
            self.spent = Some(Limit::ResultBytes);
        }
        message
    }
}

/// The answer to a read whose result the model already holds.
fn reference(call_id: &str) -> Map<String, Value> {
    let mut result = Map::new();
    result.insert("ok".into(), Value::Bool(true));
    result.insert("unchanged".into(), Value::Bool(true));
    result.insert("same_as_call_id".into(), Value::String(call_id.to_owned()));
    result.insert(
        "note".into(),
        Value::String(format!(
            "This read returned exactly the result of your earlier call {call_id} (same tool, same arguments, \
             nothing written since), so it is not repeated: that result is still current."
        )),
    );
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_after_the_last_admitted_one_is_refused_and_announced_once() {
        let mut budget = RunBudget::default();
        for _ in 0..MAX_RUN_TOOL_CALLS {
            assert!(budget.admit().is_ok());
        }
        assert!(!budget.model_was_told());
        let Err((refusal, notice)) = budget.admit() else {
            panic!("the budget is spent");
        };
        assert_eq!(refusal["code"], "TOOL_BUDGET_EXHAUSTED");
        assert!(
            refusal["error"]
                .as_str()
                .is_some_and(|e| e.contains("Answer the user now"))
        );
        assert!(notice.is_some_and(|n| n.message.contains("128 tool calls")));
        assert!(matches!(budget.admit(), Err((_, None))), "the user is told once");
        assert!(budget.model_was_told());
    }

    #[test]
    fn result_bytes_spend_the_budget_and_the_crossing_result_is_still_answered() {
        let mut budget = RunBudget::default();
        let mut big = Map::new();
        big.insert("ok".into(), Value::Bool(true));
        big.insert("text".into(), Value::String("é".repeat(30_000)));
        let mut sent = 0;
        while budget.admit().is_ok() {
            let message = budget.answer(&format!("c{sent}"), None, None, &big);
            assert!(message["content"].as_str().is_some_and(|c| c.contains("ééé")));
            sent += 1;
        }
        // Each answer is 60,000+ bytes: the 35th crosses 2 MiB.
        assert_eq!(sent, 35);
        assert!(budget.result_bytes >= to_usize(MAX_RUN_TOOL_RESULT_BYTES));
    }
}
