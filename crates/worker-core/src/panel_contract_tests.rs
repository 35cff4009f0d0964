//! The panel's fake worker, checked against the real one.
//!
//! The side panel's tests answer their requests from a fake worker. Its
//! answers are not typed by hand: they are the recorded answers of
//! `crates/protocol/tests/vectors/worker-answers.json`, and this test replays
//! every case of that file on a fresh worker (fake browser with the typst.app
//! tab of [`Harness`], virtual time, deterministic ids) and requires exactly
//! the recorded answer. A change in what the worker answers therefore fails
//! here until the file is regenerated (`TSA_BLESS=1 cargo test -p worker-core
//! panel_contract`), and the panel's tests then run against the new answers.

use crate::fakes::{FakeChunk, FakeClock, FakeTypstPages, Harness, sse, text};
use serde_json::Value;

const CONTRACT_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../protocol/tests/vectors/worker-answers.json"
);

/// Sends one recorded request and returns the answer's payload. A step with
/// `"fromTab": true` comes from the typst.app tab's content script (the
/// page's quick attach), every other one from an extension page.
fn send(harness: &mut Harness<FakeTypstPages>, request: &Value) -> Value {
    let kind = request["type"].as_str().unwrap_or_default();
    let run_id = request["runId"].as_str();
    let sender = if request["fromTab"] == Value::Bool(true) {
        Harness::<FakeTypstPages>::tab_sender()
    } else {
        crate::fakes::panel_sender(crate::fakes::EXTENSION_ID)
    };
    let pending = harness.send_as(kind, run_id, request["payload"].clone(), sender);
    let answer = pending.answer().expect("answered at once");
    answer["payload"].clone()
}

/// What the real worker answers to one case: its setup first (each step must
/// succeed), then the request.
fn replay(case: &Value) -> Value {
    let mut harness = Harness::new(FakeTypstPages::default(), FakeClock::default());
    for (model, reply) in case["models"].as_object().into_iter().flatten() {
        let reply = match reply.as_str().unwrap_or_default() {
            "stall" => sse(&[], Some(FakeChunk::Stall)),
            content => text(content),
        };
        harness.script(model, vec![reply]);
    }
    for step in case["setup"].as_array().into_iter().flatten() {
        if step["await"] == Value::Bool(false) {
            let kind = step["type"].as_str().unwrap_or_default();
            harness.send(kind, step["runId"].as_str(), step["payload"].clone());
            continue;
        }
        let answer = send(&mut harness, step);
        assert_eq!(
            answer["ok"],
            Value::Bool(true),
            "{}: setup {step} failed: {answer}",
            case["name"]
        );
    }
    send(&mut harness, &case["request"])
}

fn contract() -> Value {
    let text = std::fs::read_to_string(CONTRACT_PATH).expect("the contract file is readable");
    serde_json::from_str(&text).expect("the contract file is JSON")
}

#[test]
fn panel_contract_answers_are_the_real_workers() {
    let mut file = contract();
    let bless = std::env::var_os("TSA_BLESS").is_some();
    let mut drift = Vec::new();
    for case in file["cases"].as_array_mut().into_iter().flatten() {
        let actual = replay(case);
        if bless {
            case["answer"] = actual;
        } else if case["answer"] != actual {
            drift.push(format!(
                "{}:\n  recorded {}\n  worker   {actual}",
                case["name"], case["answer"]
            ));
        }
    }
    if bless {
        let text = serde_json::to_string_pretty(&file).expect("serialisable") + "\n";
        std::fs::write(CONTRACT_PATH, text).expect("the contract file is writable");
        return;
    }
    assert!(
        drift.is_empty(),
        "the worker no longer answers as recorded (regenerate with TSA_BLESS=1):\n{}",
        drift.join("\n")
    );
}

#[test]
fn every_case_has_a_name_and_a_recorded_answer() {
    let file = contract();
    let cases = file["cases"].as_array().cloned().unwrap_or_default();
    assert!(cases.len() >= 10, "the contract covers the panel's default worker");
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap_or_default();
        assert!(!name.is_empty() && names.insert(name.to_owned()), "{case}");
        assert!(case["answer"]["ok"].is_boolean(), "{name} has no recorded answer");
    }
}
