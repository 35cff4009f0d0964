//! Stop, and the stop before a chat switch: the answer is kept and saved to the run's own chat.

use super::fakes::*;

#[test]
fn stop_cancels_the_run_and_a_cancelled_event_keeps_the_partial_answer() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("long answer please");
    let run = run_id(1);
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Part"}]}),
    );
    rig.run(|app| async move { app.send().await });
    let cancel = rig.shell().last(MessageType::AiStreamCancel).expect("cancel");
    assert_eq!(cancel.run_id.as_deref(), Some(run.as_str()));
    assert_eq!(cancel.payload, json!({}));
    rig.event(
        "AI_STREAM_CANCELLED",
        Some(&run),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(rig.history()[1]["responseStatus"], "incomplete");
    assert_eq!(rig.shell().last_status(), Some(("Stopped".to_owned(), false)));
    assert!(!rig.shell().composer().stop_mode);
}

#[test]
fn stop_before_the_start_is_sticky_and_no_run_starts() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionUpdate => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert!(rig.streaming());
    rig.run(|app| async move { app.stop().await });
    assert_eq!(rig.shell().count(MessageType::AiStreamCancel), 1);
    rig.release(MessageType::SessionUpdate, Ok(session("s1", "First", json!([]))));
    assert_eq!(rig.shell().count(MessageType::AiStreamStart), 0);
    assert!(!rig.streaming());
    assert!(rig.shell().saw_status("Stopped"));
    assert!(rig.shell().log.borrow().contains(&"finalize:false".to_owned()));
}

#[test]
fn switching_chats_during_a_run_stops_it_and_saves_the_answer_to_its_own_chat() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet if payload["sessionId"] == "s2" => ok(session("s2", "Second", json!([]))),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("question");
    let run = run_id(1);
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Half"}]}),
    );
    let target = SessionMeta {
        id: "s2".to_owned(),
        project_id: "p1".to_owned(),
        name: "Second".to_owned(),
        user_renamed: false,
    };
    rig.run(move |app| async move {
        app.switch_session(target).await;
    });
    assert!(rig.shell().saw_status("Stopping the current run…"));
    assert_eq!(
        rig.shell().last(MessageType::AiStreamCancel).and_then(|s| s.run_id),
        Some(run.clone())
    );
    assert_eq!(
        rig.shell().count(MessageType::SessionGet),
        2,
        "still waiting for the terminal event"
    );
    rig.event(
        "AI_STREAM_CANCELLED",
        Some(&run),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Second");
    assert!(rig.history().is_empty(), "the new chat is shown");
    let saves: Vec<Value> = rig
        .shell()
        .sent
        .borrow()
        .iter()
        .filter(|s| s.ty == MessageType::SessionUpdate && s.payload["sessionId"] == "s1")
        .map(|s| s.payload["messages"].clone())
        .collect();
    assert!(
        saves
            .iter()
            .any(|m| m.as_array().is_some_and(|a| a.len() == 2 && a[1]["content"] == "Half")),
        "the partial answer was saved to the run's chat: {saves:?}"
    );
}

#[test]
fn a_run_that_never_ends_is_finished_locally_after_the_wait() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet if payload["sessionId"] == "s2" => ok(session("s2", "Second", json!([]))),
        other => default_worker()(other, payload),
    });
    rig.shell().sleeps_finish.set(true);
    rig.type_and_send("question");
    let target = SessionMeta {
        id: "s2".to_owned(),
        project_id: "p1".to_owned(),
        name: "Second".to_owned(),
        user_renamed: false,
    };
    rig.run(move |app| async move {
        app.switch_session(target).await;
    });
    assert_eq!(
        rig.shell().last(MessageType::AiStreamCancel).and_then(|s| s.run_id),
        Some(run_id(1))
    );
    assert!(!rig.streaming());
    assert!(
        rig.shell().log.borrow().contains(&"finalize:false".to_owned()),
        "the bubble is ended here, as incomplete"
    );
    assert!(rig.app.with_state(|s| s.run_ui.current().is_none()));
    assert_eq!(*rig.shell().session_name.borrow(), "Second");
    // A late event of the old run is ignored.
    let (sent, shown) = (rig.shell().sent.borrow().len(), rig.shell().statuses.borrow().len());
    rig.event("AI_STREAM_DONE", Some(&run_id(1)), json!({}));
    assert!(rig.history().is_empty());
    assert_eq!(rig.shell().sent.borrow().len(), sent);
    assert_eq!(rig.shell().statuses.borrow().len(), shown);
}
