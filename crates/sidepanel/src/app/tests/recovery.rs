//! Revert and snapshots: receipts written into the chat and saved, partial progress, stale scopes.

use super::fakes::*;
use crate::app::RestoreRefusal;
use crate::app::recovery::SCOPE_CHANGED;
use crate::recovery::ReviewedBase;

/// The hash of the document a preview diffed against, as the worker sends it.
const BASE_HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn base() -> ReviewedBase {
    ReviewedBase {
        hash: BASE_HASH.to_owned(),
        length: 14,
    }
}

fn edited_answer(call: &str, checkpoint: &str) -> Value {
    json!({"role": "assistant", "content": "Done.", "responseStatus": "complete", "segments": [
        {"type": "tools", "calls": [{"id": call, "name": "replace_lines", "arguments": "{}"}],
         "results": {(call): {"ok": true, "edits_applied": 1, "reviewed_diff": true,
            "editCheckpoint": {"id": checkpoint, "status": "applied", "fileLabel": "main.typ", "createdAt": 1}}}},
        {"type": "text", "content": "Done."}]})
}

fn edited_chat() -> Value {
    json!([{"role": "user", "content": "one"}, edited_answer("c1", "edit-1"),
           {"role": "user", "content": "two"}, edited_answer("c2", "edit-2")])
}

fn receipt_status(history: &[Value], message: usize, call: &str) -> String {
    history[message]["segments"][0]["results"][call]["editCheckpoint"]["status"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn checkpoint(id: &str) -> PublicEditCheckpoint {
    PublicEditCheckpoint::normalize(
        &json!({"id": id, "status": "applied", "fileLabel": "main.typ", "createdAt": 1}),
        false,
        0.0,
    )
    .expect("receipt")
}

#[test]
fn a_revert_writes_every_reverted_receipt_into_the_chat_and_saves_it() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::EditCheckpointRevert => ok(json!({"ok": true, "revertedCount": 2, "alreadyReverted": false,
            "checkpoint": {"id": "edit-1", "status": "reverted", "fileLabel": "main.typ", "createdAt": 1},
            "checkpoints": [{"id": "edit-2", "status": "reverted", "fileLabel": "main.typ", "createdAt": 2},
                            {"id": "edit-1", "status": "reverted", "fileLabel": "main.typ", "createdAt": 1}]})),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.save_error, None);
    assert_eq!(outcome.checkpoint.status, PublicCheckpointStatus::Reverted);
    let sent = rig
        .shell()
        .last(MessageType::EditCheckpointRevert)
        .expect("sent")
        .payload;
    assert_eq!(
        sent,
        json!({"checkpointId": "edit-1", "tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let history = rig.history();
    assert_eq!(receipt_status(&history, 1, "c1"), "reverted");
    assert_eq!(receipt_status(&history, 3, "c2"), "reverted");
    let saved = rig.shell().last(MessageType::SessionUpdate).expect("saved").payload;
    assert_eq!(saved["sessionId"], "s1");
    assert_eq!(
        receipt_status(saved["messages"].as_array().expect("messages"), 1, "c1"),
        "reverted"
    );
    let log = rig.shell().log.borrow().clone();
    assert!(log.contains(&"checkpoint:edit-2:Reverted".to_owned()));
}

#[test]
fn a_stopped_revert_keeps_its_partial_progress_and_reports_the_error() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::EditCheckpointRevert => Answer::Now(Err(WorkerError {
            code: "EDIT_CHECKPOINT_CONFLICT".to_owned(),
            message: "1 newer response was reverted, but the cascade stopped: the document changed.".to_owned(),
            details: Some(json!({"selectedCheckpointId": "edit-1", "failedCheckpointId": "edit-1",
                "revertedCount": 1, "totalCount": 2,
                "checkpoints": [{"id": "edit-2", "status": "reverted", "fileLabel": "main.typ", "createdAt": 2}]})),
        })),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert!(outcome.error.as_deref().is_some_and(|e| e.contains("cascade stopped")));
    assert_eq!(outcome.checkpoint.status, PublicCheckpointStatus::Applied);
    let history = rig.history();
    assert_eq!(receipt_status(&history, 3, "c2"), "reverted");
    assert_eq!(receipt_status(&history, 1, "c1"), "applied");
    assert_eq!(rig.shell().count(MessageType::SessionUpdate), 1);
}

#[test]
fn a_revert_for_a_chat_that_is_no_longer_open_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session(
            payload["sessionId"].as_str().unwrap_or("s1"),
            "First",
            edited_chat(),
        )),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    // The chat is reloaded: a new history, so the dialog's scope is stale.
    let meta = rig.app.with_state(|s| s.session.clone()).expect("session");
    rig.run(|app| async move {
        app.switch_session(SessionMeta {
            id: "s2".to_owned(),
            ..meta
        })
        .await;
    });
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert_eq!(outcome.error.as_deref(), Some(SCOPE_CHANGED));
    assert_eq!(rig.shell().count(MessageType::EditCheckpointRevert), 0);
}

#[test]
fn recovery_is_refused_off_typst() {
    let rig = Rig::started("https://example.com/", default_worker());
    assert!(rig.app.recovery_scope().is_err());
    assert!(rig.shell().composer().recovery_disabled);
}

#[test]
fn a_restore_notes_the_editor_state_on_the_last_message_and_saves_the_chat() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::DocumentSnapshotList => ok(json!({"ok": true, "fileLabel": "main.typ", "snapshots": [
            {"id": "snapshot-1", "kind": "automatic", "projectId": "p1", "fileLabel": "main.typ",
             "title": "After latest response", "createdAt": 1, "textLength": 20, "sessionId": "s1"}]})),
        MessageType::DocumentSnapshotRestore => ok(json!({"ok": true, "noChanges": false,
            "snapshot": {"id": "snapshot-1"}, "rescueSnapshot": {"id": "snapshot-2"},
            "editorStateUpdate": {"kind": "snapshot-restored", "snapshotId": "snapshot-1",
                                  "fileLabel": "main.typ", "restoredAt": 99}})),
        MessageType::DocumentSnapshotDelete => ok(json!({"ok": true, "removed": 1})),
        other => default_worker()(other, payload),
    });
    let listed = Rc::new(RefCell::new(None));
    let out = Rc::clone(&listed);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.list_snapshots().await);
    });
    let (scope, file, snapshots) = listed.borrow_mut().take().expect("listed").expect("ok");
    assert_eq!((file.as_str(), snapshots.len()), ("main.typ", 1));
    assert_eq!(
        rig.shell()
            .last(MessageType::DocumentSnapshotList)
            .expect("sent")
            .payload,
        json!({"tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let restore_scope = scope.clone();
    rig.run(move |app| async move {
        app.restore_snapshot(&restore_scope, "snapshot-1", &base())
            .await
            .expect("restored");
    });
    assert_eq!(
        rig.shell()
            .last(MessageType::DocumentSnapshotRestore)
            .expect("sent")
            .payload,
        json!({"tabId": 7, "projectId": "p1", "sessionId": "s1", "snapshotId": "snapshot-1",
               "baseHash": BASE_HASH, "baseLength": 14}),
        "the restore names the document its preview showed"
    );
    let history = rig.history();
    let updates = history[3]["editorStateUpdates"].as_array().cloned().unwrap_or_default();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0]["snapshotId"], "snapshot-1");
    let saved = rig.shell().last(MessageType::SessionUpdate).expect("saved").payload;
    assert_eq!(
        saved["messages"][3]["editorStateUpdates"][0]["restoredAt"].as_f64(),
        Some(99.0)
    );
    assert!(!rig.shell().last_status().expect("status").1);

    rig.run(move |app| async move {
        app.delete_snapshot(&scope, "snapshot-1").await.expect("deleted");
    });
    assert_eq!(
        rig.shell()
            .last(MessageType::DocumentSnapshotDelete)
            .expect("sent")
            .payload["snapshotId"],
        "snapshot-1"
    );
    assert!(rig.shell().saw_status("Snapshot deleted"));
}

#[test]
fn a_restore_refused_because_the_document_changed_brings_back_a_fresh_preview_to_review() {
    let fresh_hash = "f".repeat(64);
    let fresh = json!({"ok": true, "snapshot": {"id": "snapshot-1", "kind": "automatic", "projectId": "p1",
        "fileLabel": "main.typ", "title": "After latest response", "createdAt": 1, "textLength": 20,
        "sessionId": "s1"}, "noChanges": false, "preview": null, "previewNotice": "Large",
        "baseHash": fresh_hash, "baseLength": 40});
    let answer = fresh.clone();
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::DocumentSnapshotRestore => err(
            "STALE_EDIT_PREVIEW",
            "The document changed after this snapshot's preview was shown, so nothing was restored.",
        ),
        MessageType::DocumentSnapshotPreview => ok(answer.clone()),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.restore_snapshot(&scope, "snapshot-1", &base()).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert_eq!(outcome, Err(RestoreRefusal::Changed(fresh.clone())));
    let dialog = crate::recovery::restore_dialog(&fresh, true);
    assert_eq!(
        dialog.base.map(|b| b.length),
        Some(40),
        "the next restore sends the new base"
    );
    assert!(
        dialog
            .note
            .is_some_and(|n| n.0.starts_with(crate::recovery::RESTORE_CHANGED_NOTE))
    );
    let preview = rig
        .shell()
        .last(MessageType::DocumentSnapshotPreview)
        .expect("previewed again")
        .payload;
    assert_eq!(preview["snapshotId"], "snapshot-1");
    assert_eq!(
        rig.shell().count(MessageType::SessionUpdate),
        0,
        "nothing is noted in the chat"
    );
    assert!(rig.history()[3].get("editorStateUpdates").is_none());
    assert!(rig.shell().last_status().expect("status").1, "shown as an error");
}
