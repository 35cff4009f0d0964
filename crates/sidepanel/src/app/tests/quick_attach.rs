//! Quick attach in the panel: the drain at start, broadcasts for this tab and
//! window only, each event once, and chips read from the originating tab.

use super::fakes::*;
use super::recorded;

const PNG: &str = "data:image/png;base64,QUICK";

/// The worker of `default_worker`, with a selection and an image to read
/// and `drained` as the window's queue.
fn worker_with(drained: Value) -> impl FnMut(MessageType, &Value) -> Answer {
    let mut default = default_worker();
    move |ty, payload| match ty {
        MessageType::QuickAttachDrain => ok(drained.clone()),
        MessageType::GetPreview => ok(json!({"dataUrl": PNG, "width": 1, "height": 1, "mimeType": "image/png"})),
        MessageType::GetEditorContext if payload.get("projection").is_none() => ok(json!({
            "selectedText": "= Quick heading",
            "workspace": {"active_editor_file": {"relativePath": "main.typ"}}
        })),
        other => default(other, payload),
    }
}

fn event(kind: &str, tab: u64, window: u64, id: &str) -> Value {
    json!({"type": kind, "requestId": format!("b-{id}"),
        "payload": {"tabId": tab, "windowId": window, "eventId": id}})
}

#[test]
fn a_started_panel_drains_its_windows_queue_and_shows_the_chips() {
    let drained = recorded::data("quick_attach_drain");
    let rig = Rig::started(FIXTURE_URL, worker_with(drained));
    let shell = rig.shell();
    assert_eq!(
        shell.last(MessageType::QuickAttachDrain).map(|s| s.payload),
        Some(json!({"windowId": 1}))
    );
    // The recorded events name tab 17 (the worker fake's tab): not this
    // panel's tab 7, so nothing is read.
    assert_eq!(shell.count(MessageType::GetPreview), 0);
    assert!(shell.attachments.borrow().is_empty());
}

#[test]
fn drained_events_of_this_tab_become_chips_in_order() {
    let drained = json!([
        {"type": "QUICK_ATTACH_SELECTION", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-1"}},
        {"type": "QUICK_ATTACH_IMAGE_PREVIEW", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-2"}}
    ]);
    let rig = Rig::started(FIXTURE_URL, worker_with(drained));
    let shell = rig.shell();
    let types = shell.types();
    let drain = types
        .iter()
        .position(|t| *t == MessageType::QuickAttachDrain)
        .expect("drained");
    let reads: Vec<MessageType> = types[drain + 1..]
        .iter()
        .copied()
        .filter(|t| matches!(t, MessageType::GetEditorContext | MessageType::GetPreview))
        .collect();
    assert_eq!(reads, [MessageType::GetEditorContext, MessageType::GetPreview]);
    assert_eq!(
        shell.last(MessageType::GetEditorContext).map(|s| s.payload),
        Some(json!({"tabId": 7}))
    );
    assert_eq!(
        shell.last(MessageType::GetPreview).map(|s| s.payload),
        Some(json!({"tabId": 7})),
        "the image is captured without preferences"
    );
    let attachments = shell.attachments.borrow();
    assert_eq!(attachments.selections[0].text, "= Quick heading");
    assert_eq!(attachments.previews[0].data_url, PNG);
    assert_eq!(attachments.previews[0].capture_mode, CaptureMode::Auto);
    assert!(shell.saw_status("Selection added"));
    assert!(shell.saw_status("Image added"));
}

#[test]
fn a_broadcast_is_taken_once_and_only_for_this_tab_and_window() {
    let mut rig = Rig::started(FIXTURE_URL, worker_with(json!([])));
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-a"));
    rig.settle();
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-a"));
    rig.settle();
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_SELECTION", 8, 1, "quick-b"));
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_IMAGE_PREVIEW", 7, 2, "quick-c"));
    // The page's own request reaches the panel too; it has no origin.
    rig.app
        .on_runtime_message(&json!({"type": "QUICK_ATTACH_SELECTION", "requestId": "quick-page", "payload": {}}));
    rig.settle();
    let shell = rig.shell();
    let full_reads = shell
        .sent
        .borrow()
        .iter()
        .filter(|s| s.ty == MessageType::GetEditorContext && s.payload.get("projection").is_none())
        .count();
    assert_eq!(full_reads, 1);
    assert_eq!(shell.count(MessageType::GetPreview), 0);
    assert_eq!(shell.attachments.borrow().selections.len(), 1);
    // Each broadcast of this window also empties the window's queue: one
    // drain at start, one per broadcast of window 1 (quick-a twice, quick-b).
    assert_eq!(shell.count(MessageType::QuickAttachDrain), 4);
}

#[test]
fn a_broadcast_also_drains_so_the_queued_copy_is_not_taken_again() {
    let queued = json!([
        {"type": "QUICK_ATTACH_SELECTION", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-b1"}}
    ]);
    let mut drains = 0;
    let mut worker = worker_with(json!([]));
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::QuickAttachDrain => {
            drains += 1;
            ok(if drains == 2 { queued.clone() } else { json!([]) })
        }
        other => worker(other, payload),
    });
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-b1"));
    rig.settle();
    assert_eq!(rig.shell().count(MessageType::QuickAttachDrain), 2);
    assert_eq!(
        rig.shell().attachments.borrow().selections.len(),
        1,
        "one chip for one event"
    );
}

#[test]
fn an_event_that_came_before_the_start_finished_waits_and_is_not_taken_twice() {
    let drained = json!([
        {"type": "QUICK_ATTACH_IMAGE_PREVIEW", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-early"}}
    ]);
    let mut rig = Rig::new(FIXTURE_URL, worker_with(drained));
    // The broadcast arrives before the panel knows its tab.
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_IMAGE_PREVIEW", 7, 1, "quick-early"));
    rig.settle();
    assert_eq!(rig.shell().count(MessageType::GetPreview), 0, "not before the start");
    rig.run(|app| async move { app.start().await });
    assert_eq!(
        rig.shell().count(MessageType::GetPreview),
        1,
        "the broadcast and the drain are one event"
    );
    assert_eq!(rig.shell().attachments.borrow().previews.len(), 1);
}

/// A click that wakes the worker opens the panel while the worker's own
/// start-up tells panels the active tab: that broadcast can arrive while
/// the panel's start waits for its settings, so start's tab read is stale
/// and the window is first known after start's drain had none to ask for.
#[test]
fn a_tab_change_during_start_still_drains_the_windows_queue_once_the_window_is_known() {
    let drained = json!([
        {"type": "QUICK_ATTACH_SELECTION", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-woken"}}
    ]);
    let mut worker = worker_with(drained);
    let mut rig = Rig::new(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::LoadSettings => Answer::Hold,
        other => worker(other, payload),
    });
    rig.run(|app| async move { app.start().await });
    rig.shell().hold_tab_lookups.set(true);
    rig.event(
        "ACTIVE_TAB_CHANGED",
        None,
        json!({"onTypst": true, "url": FIXTURE_URL, "tabId": 7}),
    );
    rig.release(MessageType::LoadSettings, Ok(model_settings()));
    rig.release_tab_lookup();
    assert_eq!(
        rig.shell().count(MessageType::QuickAttachDrain),
        1,
        "drained once the window was known"
    );
    assert_eq!(
        rig.shell().attachments.borrow().selections.len(),
        1,
        "the queued event became a chip"
    );
}

#[test]
fn read_failures_are_shown_and_add_no_chip() {
    let mut default = default_worker();
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::GetPreview => ok(json!({"error": "No canvas found"})),
        MessageType::GetEditorContext if payload.get("projection").is_none() => ok(json!({"selectedText": "  "})),
        other => default(other, payload),
    });
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_IMAGE_PREVIEW", 7, 1, "quick-i"));
    rig.settle();
    assert_eq!(
        rig.shell().last_status(),
        Some(("Image attach failed: No canvas found".to_owned(), true))
    );
    rig.app
        .on_runtime_message(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-s"));
    rig.settle();
    assert_eq!(
        rig.shell().last_status(),
        Some(("No text is selected.".to_owned(), true))
    );
    assert!(rig.shell().attachments.borrow().is_empty());
}

#[test]
fn a_failed_drain_is_reported() {
    let mut default = default_worker();
    let rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::QuickAttachDrain => err("WORKER_UNREACHABLE", "gone"),
        other => default(other, payload),
    });
    assert!(rig.shell().saw_status("Quick attachments could not be collected: gone"));
}

/// A content script of this extension can post a broadcast-shaped quick
/// attach (with a forged origin) to every extension page: the panel takes
/// only the worker's, and warns once for what it ignores.
#[test]
fn a_broadcast_is_taken_only_from_the_worker() {
    use protocol::sender_policy::Sender;
    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";
    let worker = Sender {
        id: Some(ID),
        url: Some("chrome-extension://abcdefghijklmnopabcdefghijklmnop/src/background/service-worker.js"),
        origin: Some("chrome-extension://abcdefghijklmnopabcdefghijklmnop"),
        ..Sender::default()
    };
    let page = Sender {
        id: Some(ID),
        url: Some(FIXTURE_URL),
        origin: Some("https://typst.app"),
        frame_id: Some(0),
        has_tab: true,
        tab_url: Some(FIXTURE_URL),
    };
    let mut rig = Rig::started(FIXTURE_URL, worker_with(json!([])));
    let reads_at_start = rig.shell().count(MessageType::GetEditorContext);
    let first = rig
        .app
        .on_runtime_message_from(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-forged"), &page, ID);
    let second =
        rig.app
            .on_runtime_message_from(&event("QUICK_ATTACH_IMAGE_PREVIEW", 7, 1, "quick-forged-2"), &page, ID);
    rig.settle();
    assert!(first.is_some_and(|warning| warning.contains("QUICK_ATTACH_SELECTION")));
    assert_eq!(second, None, "one warning only");
    assert!(
        rig.shell().attachments.borrow().is_empty(),
        "nothing forged was attached"
    );
    assert_eq!(
        rig.shell().count(MessageType::GetEditorContext),
        reads_at_start,
        "the forged event read nothing"
    );
    let taken = rig
        .app
        .on_runtime_message_from(&event("QUICK_ATTACH_SELECTION", 7, 1, "quick-real"), &worker, ID);
    rig.settle();
    assert_eq!(taken, None);
    assert_eq!(rig.shell().attachments.borrow().selections.len(), 1);
}
