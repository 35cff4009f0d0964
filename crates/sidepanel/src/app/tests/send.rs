//! The send pipeline: its request order, what it captures, and every way it stops before or after the reservation.

use super::fakes::*;

#[test]
fn send_follows_the_pipeline_and_streams_into_the_captured_chat() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let before = rig.shell().sent.borrow().len();
    rig.type_and_send("  Explain this file  ");
    let shell = rig.shell();
    let sequence: Vec<MessageType> = shell.sent.borrow()[before..].iter().map(|s| s.ty).collect();
    assert_eq!(
        sequence,
        [
            MessageType::GetEditorContext,
            MessageType::AiRunReserve,
            MessageType::SessionUpdate,
            MessageType::AiStreamStart
        ]
    );
    assert_eq!(
        shell.last(MessageType::GetEditorContext).map(|s| s.payload),
        Some(json!({"tabId": 7, "projection": "identity"}))
    );
    let reserve = shell.last(MessageType::AiRunReserve).expect("reserve");
    assert_eq!(
        reserve.payload,
        json!({"tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let run = reserve.run_id.expect("run id");
    let saved = shell.last(MessageType::SessionUpdate).expect("user turn saved").payload;
    let user = &saved["messages"][0];
    assert_eq!(user["content"], "Explain this file");
    assert_eq!(user["activeEditorFile"]["relativePath"], "main.typ");
    assert!(user.get("sentAttachments").is_none());
    let start = shell.last(MessageType::AiStreamStart).expect("start");
    assert_eq!(start.run_id.as_deref(), Some(run.as_str()));
    assert_eq!(start.payload["messages"], saved["messages"]);
    assert_eq!(start.payload["modelConfig"]["id"], "m1");
    assert_eq!(start.payload["settings"]["maxHistoryMessages"], 40);
    assert_eq!(start.payload["activeEditorFile"]["basename"], "main.typ");
    assert_eq!(start.payload["attachments"], json!({}));
    assert!(shell.composer().stop_mode, "Send became Stop");
    assert!(shell.composer().input_disabled);
    assert!(shell.input.borrow().is_empty());
    assert!(shell.log.borrow().contains(&"begin".to_owned()));

    rig.event(
        "AI_STREAM_BATCH",
        Some("run-other"),
        json!({"items": [{"channel": "content", "text": "NOT MINE"}]}),
    );
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Hello"}]}),
    );
    rig.event("AI_STREAM_DONE", Some("run-other"), json!({}));
    assert!(rig.streaming(), "another run's end is ignored");
    rig.event("AI_STREAM_DONE", Some(&run), json!({}));
    assert!(!rig.streaming());
    let history = rig.history();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["content"], "Hello");
    assert_eq!(history[1]["responseStatus"], "complete");
    let final_save = rig.shell().last(MessageType::SessionUpdate).expect("final save");
    assert_eq!(final_save.payload["messages"].as_array().map(Vec::len), Some(2));
    assert!(!rig.shell().composer().stop_mode);
    // The start request answering afterwards changes nothing.
    rig.release(MessageType::AiStreamStart, Ok(json!({"ok": true, "runId": run})));
    assert_eq!(rig.history().len(), 2);
}

#[test]
fn an_unidentified_file_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => ok(json!({"workspace": {}})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    let shell = rig.shell();
    assert_eq!(shell.count(MessageType::AiRunReserve), 0);
    assert!(
        shell
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("could not be identified"))
    );
    assert!(rig.history().is_empty());
    assert!(!shell.composer().input_disabled, "the composer unlocks again");
}

#[test]
fn a_tab_that_left_the_project_while_preparing_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.shell()
        .tabs
        .borrow_mut()
        .extend([tab(FIXTURE_URL), tab("https://typst.app/project/p9")]);
    rig.type_and_send("hello");
    assert_eq!(rig.shell().count(MessageType::AiRunReserve), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, _)| t.contains("while the message was being prepared"))
    );
}

#[test]
fn no_model_no_text_or_a_second_send_do_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => ok(json!({"models": []})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("   ");
    assert_eq!(rig.shell().count(MessageType::GetEditorContext), 0);
    rig.type_and_send("hello");
    assert_eq!(rig.shell().count(MessageType::GetEditorContext), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("Add a model"))
    );

    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.type_and_send("first");
    rig.type_and_send("second");
    assert_eq!(
        rig.shell().count(MessageType::GetEditorContext),
        1,
        "one send at a time"
    );
    assert!(rig.shell().composer().send_disabled);
}

/// The worker runs on the stored settings; when the panel's copy is stale
/// it refuses the start, and the panel reads the settings again.
#[test]
fn a_start_refused_for_stale_settings_reloads_them() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let loads = rig.shell().count(MessageType::LoadSettings);
    rig.type_and_send("hello");
    rig.release(
        MessageType::AiStreamStart,
        Ok(json!({"ok": false, "code": "RUN_CONFIG_MISMATCH", "error": "The settings changed.", "runId": run_id(1)})),
    );
    rig.settle();
    assert!(!rig.streaming());
    assert_eq!(rig.shell().count(MessageType::LoadSettings), loads + 1);
    assert!(rig.shell().saw_status("The settings changed."));
}

#[test]
fn a_refused_or_failed_start_ends_the_bubble() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("hello");
    rig.release(
        MessageType::AiStreamStart,
        Ok(json!({"ok": false, "code": "MODEL_MISSING", "error": "No model is configured.", "runId": run_id(1)})),
    );
    assert!(!rig.streaming());
    assert_eq!(
        rig.shell().last_status(),
        Some(("No model is configured.".to_owned(), true))
    );

    rig.type_and_send("again");
    rig.release(
        MessageType::AiStreamStart,
        Err(WorkerError {
            code: "RUN_NOT_RESERVED".to_owned(),
            message: "The run was not reserved.".to_owned(),
            details: None,
        }),
    );
    assert!(!rig.streaming());
    let cancel = rig
        .shell()
        .last(MessageType::AiStreamCancel)
        .expect("cancel after a refusal");
    assert_eq!(cancel.run_id, Some(run_id(2)));
}

#[test]
fn a_failed_reservation_shows_the_error_and_releases_the_composer() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::AiRunReserve => err("SESSION_RUN_ACTIVE", "This chat already has a run."),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert_eq!(
        rig.shell().last_status(),
        Some(("This chat already has a run.".to_owned(), true))
    );
    assert!(rig.history().is_empty());
    assert_eq!(
        rig.shell().count(MessageType::AiStreamCancel),
        0,
        "nothing was reserved"
    );
    assert!(!rig.shell().composer().input_disabled);
}

#[test]
fn a_failed_user_turn_save_cancels_the_reserved_run() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionUpdate => err("STORAGE_QUOTA_EXCEEDED", "Quota exceeded."),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert_eq!(
        rig.shell().last(MessageType::AiStreamCancel).and_then(|s| s.run_id),
        Some(run_id(1))
    );
    assert_eq!(rig.shell().count(MessageType::AiStreamStart), 0);
    assert!(!rig.streaming());
    assert!(rig.shell().saw_status("Quota exceeded."));
}
