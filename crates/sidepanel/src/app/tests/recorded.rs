//! The real worker's answers, as recorded in
//! `crates/protocol/tests/vectors/worker-answers.json`.
//!
//! worker-core's `panel_contract` test replays every case of that file on a
//! real worker and fails when an answer differs, so the fake worker of these
//! tests answers what the worker really answers rather than hand-typed JSON.
//! Tests that need another chat or another model start from a recorded
//! answer and change only the fields their story is about.

use protocol::{ErrorCode, MessageType};
use serde_json::Value;
use std::sync::OnceLock;

const CONTRACT: &str = include_str!("../../../../protocol/tests/vectors/worker-answers.json");

fn cases() -> &'static Value {
    static CASES: OnceLock<Value> = OnceLock::new();
    CASES.get_or_init(|| serde_json::from_str(CONTRACT).expect("the contract file is JSON"))
}

/// The recorded answer payload (`{ok, data}` or `{ok, error}`) of a case.
pub(super) fn answer(name: &str) -> &'static Value {
    cases()["cases"]
        .as_array()
        .and_then(|cases| cases.iter().find(|case| case["name"] == name))
        .map(|case| &case["answer"])
        .unwrap_or_else(|| panic!("no recorded case {name}"))
}

/// The `data` of a recorded success.
pub(super) fn data(name: &str) -> Value {
    let answer = answer(name);
    assert_eq!(answer["ok"], Value::Bool(true), "{name} is not a success");
    answer["data"].clone()
}

/// A code a fake worker error may carry: one of the catalogue's, as the
/// real worker's would be.
pub(super) fn real_code(code: &str) -> &str {
    assert!(
        ErrorCode::from_wire(code).is_some(),
        "{code} is not a code the worker can answer"
    );
    code
}

/// Whether `fake` could be an answer of the worker's shape `real`: every
/// field the fake gives exists in the real answer with the same JSON type
/// (recursively; a fake may leave fields out, since a test gives only what
/// its story needs), and items of arrays are compared with the real items.
fn fits(fake: &Value, real: &Value) -> bool {
    match (fake, real) {
        (Value::Object(fake), Value::Object(real)) => fake.iter().all(|(key, value)| {
            real.get(key)
                .is_some_and(|real| value.is_null() || real.is_null() || fits(value, real))
        }),
        (Value::Array(fake), Value::Array(real)) => match real.first() {
            Some(item) => fake.iter().all(|value| fits(value, item)),
            None => true,
        },
        (Value::Number(_), Value::Number(_))
        | (Value::String(_), Value::String(_))
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Null, Value::Null) => true,
        _ => false,
    }
}

/// Fails the test when a fake answer to `message_type` has a shape the real
/// worker never answers with (for the types the contract file records).
pub(super) fn check_shape(message_type: MessageType, fake: &Value) {
    let real: Vec<&Value> = cases()["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|case| case["request"]["type"] == message_type.as_str() && case["answer"]["ok"] == Value::Bool(true))
        .map(|case| &case["answer"]["data"])
        .collect();
    if real.is_empty() {
        return;
    }
    assert!(
        real.iter().any(|real| fits(fake, real)),
        "the fake worker answers {} with {fake}, a shape the real worker never gives (recorded: {real:?})",
        message_type.as_str()
    );
}

#[test]
fn shapes_are_compared_field_by_field() {
    use serde_json::json;
    let real = json!({"ok": true, "items": [{"id": "a", "n": 1}], "note": null});
    assert!(fits(&json!({"ok": false}), &real));
    assert!(fits(&json!({"items": [{"id": "b"}], "note": "x"}), &real));
    assert!(!fits(&json!({"ok": "yes"}), &real), "a wrong type");
    assert!(!fits(&json!({"invented": 1}), &real), "a field the worker never sends");
    assert!(
        !fits(&json!({"items": [{"id": 3}]}), &real),
        "a wrong type inside an item"
    );
    assert!(!fits(&json!(null), &real), "no answer where the worker sends an object");
}

#[test]
fn the_recorded_answers_cover_what_the_fake_worker_serves() {
    for name in [
        "load_theme",
        "load_settings",
        "session_list",
        "session_get",
        "session_update",
        "run_status_idle",
        "run_reserve",
        "run_cancel_active",
        "run_start_complete",
        "identity_context",
        "quick_attach_drain_empty",
        "unrouted",
    ] {
        assert!(answer(name)["ok"].is_boolean(), "{name}");
    }
    assert_eq!(answer("unrouted")["error"]["code"], ErrorCode::UnroutedMessage.as_str());
}
