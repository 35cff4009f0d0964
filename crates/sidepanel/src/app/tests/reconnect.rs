//! A run still going when the panel opens.

use super::fakes::*;

/// The default worker, except that `ty` is answered by `answer` with the
/// number of the call (from 1); the count stays readable.
fn counting(
    ty: MessageType,
    answer: impl Fn(u32) -> Answer + 'static,
) -> (Rc<Cell<u32>>, impl FnMut(MessageType, &Value) -> Answer) {
    let calls = Rc::new(Cell::new(0));
    let counter = Rc::clone(&calls);
    let worker = move |asked: MessageType, payload: &Value| {
        if asked != ty {
            return default_worker()(asked, payload);
        }
        counter.set(counter.get() + 1);
        answer(counter.get())
    };
    (calls, worker)
}

#[test]
fn a_reopened_panel_shows_the_running_run_and_reloads_the_chat_at_its_end() {
    let statuses = Rc::new(Cell::new(0));
    let seen = Rc::clone(&statuses);
    let gets = Rc::new(Cell::new(0));
    let reloads = Rc::clone(&gets);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::AiRunStatus => {
            seen.set(seen.get() + 1);
            ok(json!([{"runId": "run-bg", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 5}]))
        }
        MessageType::SessionGet => {
            reloads.set(reloads.get() + 1);
            let messages = if reloads.get() > 1 {
                json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "Saved by the worker"}])
            } else {
                json!([{"role": "user", "content": "q"}])
            };
            ok(session("s1", "First", messages))
        }
        other => default_worker()(other, payload),
    });
    assert_eq!(statuses.get(), 2, "checked again after taking the run over");
    assert!(rig.streaming());
    assert!(rig.shell().composer().stop_mode, "Stop stays available");
    assert!(
        rig.shell()
            .statuses
            .borrow()
            .iter()
            .any(|(t, e, d)| t.contains("continuing in the background") && !e && *d == Some(0))
    );
    rig.event(
        "AI_STREAM_BATCH",
        Some("run-bg"),
        json!({"items": [{"channel": "content", "text": "live"}]}),
    );
    assert!(
        rig.shell().streamed.borrow().is_empty(),
        "no bubble for a reconnected run"
    );
    rig.event("AI_STREAM_DONE", Some("run-bg"), json!({}));
    assert!(!rig.streaming());
    assert_eq!(rig.history().len(), 2);
    assert_eq!(rig.history()[1]["content"], "Saved by the worker");
    assert_eq!(rig.shell().last_status(), Some(("Run completed".to_owned(), false)));
}

#[test]
fn a_run_that_ended_while_reconnecting_is_finished_at_once() {
    let (calls, worker) = counting(MessageType::AiRunStatus, |call| {
        if call == 1 {
            ok(json!([{"runId": "run-bg", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 1}]))
        } else {
            ok(json!([]))
        }
    });
    let mut rig = Rig::started(FIXTURE_URL, worker);
    // Taken over, checked again, found gone: finished without waiting for a
    // terminal event, and the chat reloaded.
    assert_eq!(calls.get(), 2, "checked again after taking the run over");
    assert!(
        rig.shell()
            .saw_status("The active run is continuing in the background…")
    );
    let types = rig.shell().types();
    assert_eq!(
        types[types.len() - 3..],
        [
            MessageType::AiRunStatus,
            MessageType::AiRunStatus,
            MessageType::SessionGet
        ],
        "the chat is reloaded at the run's end"
    );
    assert!(!rig.streaming());
    assert!(!rig.shell().composer().stop_mode, "Stop is gone");
    assert!(
        rig.app.with_state(|s| s.run_ui.current().is_none()),
        "the run is no longer the panel's"
    );
    assert_eq!(
        rig.shell().statuses.borrow().last().cloned(),
        Some(("Run completed".to_owned(), false, Some(2_000)))
    );
    // Its terminal event, arriving late, finds nothing to end.
    let (sent, shown) = (rig.shell().sent.borrow().len(), rig.shell().statuses.borrow().len());
    rig.event("AI_STREAM_DONE", Some("run-bg"), json!({}));
    assert_eq!(rig.shell().sent.borrow().len(), sent);
    assert_eq!(rig.shell().statuses.borrow().len(), shown);
}

#[test]
fn stopping_a_reconnected_run_cancels_it_in_the_worker() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::AiRunStatus => ok(json!([
            {"runId": "run-old", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 1},
            {"runId": "run-new", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 9}
        ])),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.send().await });
    assert_eq!(
        rig.shell()
            .last(MessageType::AiStreamCancel)
            .and_then(|s| s.run_id)
            .as_deref(),
        Some("run-new")
    );
    rig.event(
        "AI_STREAM_CANCELLED",
        Some("run-new"),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(rig.shell().last_status(), Some(("Stopped".to_owned(), false)));
}

/// Start-up ends by asking whether the chat's run still goes and, when none
/// does, reloading the chat. The composer is usable by then, so a message
/// can be sent while that reload is on its way; the reload was read before
/// the message and must not replace it (it used to wipe the new turn and
/// its streaming bubble, and the answer never showed).
#[test]
fn a_message_sent_while_start_up_reloads_the_chat_keeps_its_turn() {
    let (gets, worker) = counting(MessageType::SessionGet, |call| {
        if call == 2 {
            Answer::Hold
        } else {
            ok(session("s1", "First", json!([])))
        }
    });
    let mut rig = Rig::started(FIXTURE_URL, worker);
    assert_eq!(gets.get(), 2, "start-up's reload is on its way");
    assert!(!rig.shell().composer().input_disabled, "the composer is usable");
    rig.type_and_send("Quick question");
    let run = rig
        .shell()
        .last(MessageType::AiStreamStart)
        .and_then(|s| s.run_id)
        .expect("the run started");
    let rendered = rig.shell().rendered.borrow().len();
    rig.release(MessageType::SessionGet, Ok(session("s1", "First", json!([]))));
    assert!(rig.streaming(), "the run is still the panel's");
    assert_eq!(rig.history().len(), 1);
    assert_eq!(rig.history()[0]["content"], "Quick question");
    assert_eq!(
        rig.shell().rendered.borrow().len(),
        rendered,
        "the chat is not drawn again from the older copy"
    );
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Answer"}]}),
    );
    assert!(
        !rig.shell().streamed.borrow().is_empty(),
        "the answer streams into its bubble"
    );
}
