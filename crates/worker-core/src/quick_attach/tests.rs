//! Quick attach in the worker: the origin comes from the sender only, the
//! queue keeps 30 seconds and 32 events per worker, the panel is opened in
//! the sender's window, and a drain takes one window's events once.

use crate::fakes::{EXTENSION_ID, FakePlatform, block_on, content_sender, panel_sender, top_frame_sender};
use crate::platform::{BrowserSender, Tab};
use crate::worker::Worker;
use serde_json::{Value, json};

const PROJECT_URL: &str = "https://typst.app/project/p1";

fn worker() -> Worker<FakePlatform> {
    Worker::new(FakePlatform::default(), crate::fakes::VERSION)
}

/// The content script in the top frame of tab `id` of window `window_id`.
fn from_tab(id: i64, window_id: i64, url: &str) -> BrowserSender {
    top_frame_sender(tab(id, Some(window_id), url))
}

fn tab(id: i64, window_id: Option<i64>, url: &str) -> Tab {
    Tab {
        id: Some(id),
        window_id,
        url: url.to_owned(),
    }
}

fn panel() -> BrowserSender {
    panel_sender(EXTENSION_ID)
}

/// The answer payload of `kind` with `payload`, sent by `sender`.
fn send(worker: &Worker<FakePlatform>, kind: &str, payload: Value, sender: &BrowserSender) -> Value {
    let message = json!({"type": kind, "requestId": "quick-req", "payload": payload});
    let reply = block_on(worker.handle_message_from(&message, sender)).unwrap_or_default();
    assert_eq!(reply["requestId"], json!("quick-req"), "{reply}");
    reply["payload"].clone()
}

fn drain(worker: &Worker<FakePlatform>, window_id: u64) -> Value {
    let answer = send(worker, "QUICK_ATTACH_DRAIN", json!({"windowId": window_id}), &panel());
    assert_eq!(answer["ok"], json!(true), "{answer}");
    answer["data"].clone()
}

#[test]
fn a_click_is_queued_opens_the_senders_panel_and_is_broadcast_with_its_origin() {
    let worker = worker();
    let answer = send(
        &worker,
        "QUICK_ATTACH_SELECTION",
        json!({}),
        &from_tab(17, 3, PROJECT_URL),
    );
    let event_id = "quick-00000000-0000-4000-8000-000000000001";
    assert_eq!(answer, json!({"ok": true, "data": {"ok": true, "eventId": event_id}}));
    assert_eq!(worker.platform.browser.opened_panels(), vec![3]);
    let broadcasts = worker.platform.browser.broadcasts();
    assert_eq!(broadcasts.len(), 1);
    assert_eq!(broadcasts[0]["type"], json!("QUICK_ATTACH_SELECTION"));
    assert_eq!(
        broadcasts[0]["payload"],
        json!({"tabId": 17, "windowId": 3, "eventId": event_id})
    );
    assert!(
        broadcasts[0]["requestId"].is_string(),
        "a request type carries a requestId"
    );
    // The broadcast is a valid envelope of its type, so panels can parse it.
    assert!(protocol::parse_envelope(&broadcasts[0], &protocol::messages::ParseOptions::default()).is_ok());
    assert_eq!(
        drain(&worker, 3),
        json!([{"type": "QUICK_ATTACH_SELECTION", "payload": {"tabId": 17, "windowId": 3, "eventId": event_id}}])
    );
    assert_eq!(drain(&worker, 3), json!([]), "a drain removes what it answers");
}

#[test]
fn the_origin_comes_from_the_sender_never_from_the_payload() {
    let worker = worker();
    let answer = send(
        &worker,
        "QUICK_ATTACH_IMAGE_PREVIEW",
        json!({"tabId": 99, "windowId": 98, "eventId": "quick-forged"}),
        &from_tab(5, 2, PROJECT_URL),
    );
    assert_eq!(answer["ok"], json!(true), "{answer}");
    assert_ne!(answer["data"]["eventId"], json!("quick-forged"));
    assert_eq!(worker.platform.browser.opened_panels(), vec![2]);
    assert_eq!(drain(&worker, 98), json!([]));
    let queued = drain(&worker, 2);
    assert_eq!(queued[0]["type"], json!("QUICK_ATTACH_IMAGE_PREVIEW"));
    assert_eq!(
        (
            queued[0]["payload"]["tabId"].clone(),
            queued[0]["payload"]["windowId"].clone()
        ),
        (json!(5), json!(2))
    );
}

#[test]
fn senders_that_are_not_typst_project_tabs_are_refused_and_nothing_happens() {
    let worker = worker();
    let no_window = top_frame_sender(tab(4, None, PROJECT_URL));
    let negative = from_tab(-1, 1, PROJECT_URL);
    // The tab's URL hidden while the frame's is the project's: the policy
    // admits the frame, the queue still needs the project tab.
    let hidden_tab_url = content_sender(tab(4, Some(1), ""), PROJECT_URL, 0);
    let sub_frame = content_sender(tab(4, Some(1), PROJECT_URL), "https://typst.app/embed", 2);
    for (sender, code) in [
        (BrowserSender::default(), "SENDER_NOT_ALLOWED"),
        (panel(), "SENDER_NOT_ALLOWED"),
        (sub_frame, "SENDER_NOT_ALLOWED"),
        (no_window, "QUICK_ATTACH_SOURCE_MISSING"),
        (negative, "QUICK_ATTACH_SOURCE_MISSING"),
        (from_tab(4, 1, "https://example.test/project/p1"), "SENDER_NOT_ALLOWED"),
        (from_tab(4, 1, "https://typst.app/"), "INVALID_QUICK_ATTACH_SOURCE"),
        (
            from_tab(4, 1, "https://typst.app/project/"),
            "INVALID_QUICK_ATTACH_SOURCE",
        ),
        (hidden_tab_url, "INVALID_QUICK_ATTACH_SOURCE"),
    ] {
        let answer = send(&worker, "QUICK_ATTACH_SELECTION", json!({}), &sender);
        assert_eq!(answer["error"]["code"], json!(code), "{sender:?}");
    }
    assert!(worker.platform.browser.opened_panels().is_empty());
    assert!(worker.platform.browser.broadcasts().is_empty());
    assert_eq!(drain(&worker, 1), json!([]));
}

#[test]
fn a_refused_panel_open_is_reported_but_the_event_still_reaches_panels() {
    let worker = worker();
    worker
        .platform
        .browser
        .fail_panel_open("`sidePanel.open()` may only be called in response to a user gesture.");
    let answer = send(
        &worker,
        "QUICK_ATTACH_SELECTION",
        json!({}),
        &from_tab(7, 1, PROJECT_URL),
    );
    assert_eq!(answer["error"]["code"], json!("REQUEST_FAILED"), "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("user gesture"))
    );
    assert_eq!(worker.platform.browser.broadcasts().len(), 1);
    assert_eq!(drain(&worker, 1).as_array().map(Vec::len), Some(1));
}

#[test]
fn events_expire_after_thirty_seconds() {
    let worker = worker();
    send(
        &worker,
        "QUICK_ATTACH_SELECTION",
        json!({}),
        &from_tab(1, 1, PROJECT_URL),
    );
    worker.platform.clock.advance(20_000.0);
    send(
        &worker,
        "QUICK_ATTACH_IMAGE_PREVIEW",
        json!({}),
        &from_tab(1, 1, PROJECT_URL),
    );
    worker.platform.clock.advance(10_001.0);
    let left = drain(&worker, 1);
    assert_eq!(left.as_array().map(Vec::len), Some(1), "{left}");
    assert_eq!(left[0]["type"], json!("QUICK_ATTACH_IMAGE_PREVIEW"));
}

#[test]
fn at_most_32_events_are_kept_oldest_dropped_and_drains_keep_other_windows() {
    let worker = worker();
    for index in 0..40 {
        let window = if index % 2 == 0 { 1 } else { 2 };
        send(
            &worker,
            "QUICK_ATTACH_SELECTION",
            json!({}),
            &from_tab(10, window, PROJECT_URL),
        );
    }
    let first = drain(&worker, 1);
    let second = drain(&worker, 2);
    let ids = |events: &Value| -> Vec<String> {
        events
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e["payload"]["eventId"].as_str().map(str::to_owned))
            .collect()
    };
    assert_eq!(ids(&first).len() + ids(&second).len(), 32);
    assert_eq!(ids(&first).len(), 16);
    // The eight oldest (ids 1–8) were dropped; window 1 kept 9, 11, …, 39.
    assert_eq!(
        ids(&first).first().map(String::as_str),
        Some("quick-00000000-0000-4000-8000-000000000009")
    );
    assert_eq!(
        ids(&second).last().map(String::as_str),
        Some("quick-00000000-0000-4000-8000-000000000028")
    );
}

#[test]
fn a_drain_needs_a_valid_window_id() {
    let worker = worker();
    let answer = send(&worker, "QUICK_ATTACH_DRAIN", json!({"windowId": -1}), &panel());
    assert_eq!(answer["error"]["code"], json!("INVALID_WINDOW_ID"));
}
