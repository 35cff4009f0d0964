//! The worker's sender door: a content script of this extension (what a
//! compromised typst.app renderer could run) is refused every privileged
//! request before its payload is read, nothing is stored, fetched or leaked,
//! and each refusal is counted; the panel's same requests are served.

use crate::fakes::{EXTENSION_ID, FakePlatform, block_on, content_sender, panel_sender, top_frame_sender};
use crate::platform::{BrowserSender, BrowserSenderTab, Tab};
use crate::worker::Worker;
use protocol::constants::storage_keys;
use serde_json::{Value, json};

const PAGE: &str = "https://typst.app/project/p1";

fn worker() -> Worker<FakePlatform> {
    Worker::new(FakePlatform::default(), crate::fakes::VERSION)
}

fn typst_tab() -> Tab {
    Tab {
        id: Some(17),
        window_id: Some(1),
        url: PAGE.to_owned(),
    }
}

fn send(worker: &Worker<FakePlatform>, kind: &str, payload: Value, sender: &BrowserSender) -> Value {
    let message = json!({"type": kind, "requestId": "gate-1", "runId": "run-1", "payload": payload});
    let reply = block_on(worker.handle_message_from(&message, sender)).expect("answered");
    assert_eq!(reply["requestId"], json!("gate-1"), "{reply}");
    reply["payload"].clone()
}

/// A model whose key must never reach a content script.
fn model() -> Value {
    json!({"id": "m1", "name": "M", "apiBaseUrl": "https://api.example/v1", "apiKey": "sk-secret",
        "modelId": "x", "supportsVision": false, "reasoningEffort": "default"})
}

/// The privileged requests of issue 11, each with a payload that the panel
/// could send.
fn privileged() -> Vec<(&'static str, Value)> {
    let evil = json!({"id": "m1", "name": "M", "apiBaseUrl": "https://evil.test/v1", "modelId": "x"});
    vec![
        ("LOAD_SETTINGS", json!({})),
        (
            "SAVE_SETTINGS",
            json!({"settings": {}, "modelMutation": {"type": "upsert", "record": evil}}),
        ),
        (
            "AI_STREAM_START",
            json!({"tabId": 17, "projectId": "p1", "sessionId": "s1", "messages": [],
                "settings": {"editorApprovalMode": "auto"}, "modelConfig": evil}),
        ),
        ("GENERATE_SESSION_TITLE", json!({"modelConfig": evil, "messages": []})),
        ("SESSION_EXPORT", json!({})),
        ("SESSION_DELETE", json!({"sessionId": "s1"})),
        ("SESSION_DELETE_BY_PROJECT", json!({"projectId": "p1"})),
        (
            "AI_TOOL_APPROVAL_RESOLVE",
            json!({"callId": "c1", "action": "approve_once"}),
        ),
        ("SAVE_CUSTOM_TOOLS", json!({"tools": []})),
        ("SAVE_MCP_SERVERS", json!({"servers": []})),
        ("LOAD_CUSTOM_TOOLS", json!({})),
        ("LOAD_MCP_SERVERS", json!({})),
        ("DOCUMENT_SNAPSHOT_DELETE", json!({"snapshotId": "x"})),
        ("OPEN_PROJECT_TAB", json!({"projectId": "p9"})),
        ("QUICK_ATTACH_DRAIN", json!({"windowId": 1})),
    ]
}

fn stored(worker: &Worker<FakePlatform>) -> Vec<Option<Value>> {
    let storage = &worker.platform.browser.storage;
    [
        storage_keys::SETTINGS,
        storage_keys::CUSTOM_TOOLS,
        storage_keys::MCP_SERVERS,
        storage_keys::SESSION_INDEX,
    ]
    .iter()
    .map(|key| storage.value(key))
    .collect()
}

#[test]
fn a_content_script_is_refused_every_privileged_request_and_changes_nothing() {
    let worker = worker();
    let saved = crate::fakes::data(
        &worker,
        "SAVE_SETTINGS",
        json!({"settings": {}, "modelMutation": {"type": "upsert", "record": model()}}),
    );
    assert_eq!(saved["ok"], json!(true));
    let before = stored(&worker);
    let senders = [
        ("top frame", top_frame_sender(typst_tab())),
        ("sub-frame", content_sender(typst_tab(), "https://typst.app/embed", 4)),
        ("no sender", BrowserSender::default()),
        (
            "other extension",
            BrowserSender {
                id: Some("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz".to_owned()),
                ..panel_sender("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz")
            },
        ),
    ];
    for (who, sender) in &senders {
        for (kind, payload) in privileged() {
            let answer = send(&worker, kind, payload, sender);
            assert_eq!(answer["ok"], json!(false), "{who} {kind}: {answer}");
            assert_eq!(answer["error"]["code"], json!("SENDER_NOT_ALLOWED"), "{who} {kind}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.starts_with(kind), "{who}: the refusal names {kind}: {message}");
            assert!(!answer.to_string().contains("sk-secret"), "{who} {kind}: {answer}");
        }
    }
    assert_eq!(stored(&worker), before, "nothing stored changed");
    assert!(worker.platform.network.requests().is_empty(), "nothing was fetched");
    assert!(worker.platform.browser.tab_urls().iter().all(|url| !url.contains("p9")));
    let per_sender = privileged().len() as u64;
    let status = crate::fakes::data(&worker, "SESSION_STORAGE_STATUS", json!({}));
    assert_eq!(
        status["senderRefusals"],
        json!({"unknownSender": per_sender, "otherExtension": per_sender, "notExtensionPage": 2 * per_sender,
            "notWorker": 0, "notTopFrame": 0, "notTypstApp": 0, "neverSent": 0})
    );
}

#[test]
fn the_payload_of_a_refused_sender_is_never_read() {
    let worker = worker();
    let sender = top_frame_sender(typst_tab());
    // A payload the envelope check would refuse with its own code.
    let answer = send(&worker, "SAVE_SETTINGS", json!({"bogus": [[[[1]]]]}), &sender);
    assert_eq!(answer["error"]["code"], json!("SENDER_NOT_ALLOWED"), "{answer}");
    let from_panel = send(
        &worker,
        "SAVE_SETTINGS",
        json!({"bogus": 1}),
        &panel_sender(EXTENSION_ID),
    );
    assert_eq!(
        from_panel["error"]["code"],
        json!("UNKNOWN_PAYLOAD_FIELD"),
        "{from_panel}"
    );
}

#[test]
fn the_panel_and_an_extension_page_in_a_tab_are_served() {
    let worker = worker();
    let in_tab = BrowserSender {
        tab: Some(BrowserSenderTab {
            id: Some(30),
            window_id: Some(1),
            url: Some(format!("chrome-extension://{EXTENSION_ID}/src/sidepanel/index.html")),
        }),
        frame_id: Some(0),
        ..panel_sender(EXTENSION_ID)
    };
    for sender in [panel_sender(EXTENSION_ID), in_tab] {
        for (kind, payload) in [
            ("LOAD_SETTINGS", json!({})),
            ("SESSION_EXPORT", json!({})),
            (
                "AI_TOOL_APPROVAL_RESOLVE",
                json!({"callId": "c1", "action": "approve_once"}),
            ),
            ("SAVE_CUSTOM_TOOLS", json!({"tools": []})),
        ] {
            let answer = send(&worker, kind, payload, &sender);
            assert_eq!(answer["ok"], json!(true), "{kind}: {answer}");
        }
    }
    let status = crate::fakes::data(&worker, "SESSION_STORAGE_STATUS", json!({}));
    let refusals = status["senderRefusals"].as_object().expect("counts");
    assert!(refusals.values().all(|count| count == &json!(0)), "{status}");
}

#[test]
fn types_nobody_sends_to_the_worker_stay_unrouted_and_are_counted() {
    let worker = worker();
    for sender in [panel_sender(EXTENSION_ID), top_frame_sender(typst_tab())] {
        let answer = send(&worker, "PAGE_APPLY_EDIT", json!({"not": "read"}), &sender);
        assert_eq!(answer["error"]["code"], json!("UNROUTED_MESSAGE"), "{answer}");
    }
    let status = crate::fakes::data(&worker, "SESSION_STORAGE_STATUS", json!({}));
    assert_eq!(status["senderRefusals"]["neverSent"], json!(2));
}
