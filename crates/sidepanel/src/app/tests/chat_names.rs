//! Automatic chat names.

use super::fakes::*;

#[test]
fn auto_naming_runs_when_configured_and_keeps_only_the_newest_title() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => {
            let mut settings = model_settings();
            settings["autoNameModelId"] = json!("m1");
            ok(settings)
        }
        MessageType::GenerateSessionTitle => Answer::Hold,
        MessageType::SessionUpdate if payload["autoName"] == true => ok(json!({
            "id": "s1", "projectId": "p1", "name": payload["name"], "userRenamed": false, "messages": []
        })),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("Fix my table");
    let title = rig
        .shell()
        .last(MessageType::GenerateSessionTitle)
        .expect("title request");
    assert_eq!(title.payload["modelConfig"]["id"], "m1");
    assert_eq!(
        title.payload["messages"],
        json!([{"role": "user", "content": "Fix my table"}])
    );
    assert!(
        rig.shell().types().contains(&MessageType::AiStreamStart),
        "the run does not wait for the title"
    );
    let run = rig
        .shell()
        .last(MessageType::AiRunReserve)
        .and_then(|s| s.run_id)
        .expect("run");
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Done"}]}),
    );
    rig.event("AI_STREAM_DONE", Some(&run), json!({}));
    rig.type_and_send("And the caption");
    assert_eq!(rig.shell().count(MessageType::GenerateSessionTitle), 2);
    // The older answer arrives last-but-one: it is discarded.
    rig.release(
        MessageType::GenerateSessionTitle,
        Ok(json!({"ok": true, "title": "Stale title"})),
    );
    assert_ne!(*rig.shell().session_name.borrow(), "Stale title");
    rig.release(
        MessageType::GenerateSessionTitle,
        Ok(json!({"ok": true, "title": "Table fixes"})),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Table fixes");
    let update = rig
        .shell()
        .last(MessageType::SessionUpdate)
        .expect("name saved")
        .payload;
    assert_eq!(
        update,
        json!({"sessionId": "s1", "name": "Table fixes", "autoName": true})
    );
}

#[test]
fn auto_naming_errors_are_shown_without_touching_the_run() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => {
            let mut settings = model_settings();
            settings["autoNameModelId"] = json!("m1");
            ok(settings)
        }
        MessageType::GenerateSessionTitle => err("PROVIDER_HTTP_ERROR", "API 503: from the naming model"),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert!(
        rig.shell()
            .saw_status("Chat auto-naming failed: API 503: from the naming model")
    );
    assert!(rig.streaming());
}
