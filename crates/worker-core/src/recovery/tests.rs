//! Recovery through the router, against the fake typst.app page
//! ([`FakeTypstPages`]), which answers `PAGE_GET_CONTEXT` and
//! `PAGE_APPLY_EDIT` as the page script does (with its file, editor and
//! exact-text guards).

use crate::fakes::{FakeBrowser, FakeClock, FakeNetwork, FakePlatform, FakeTypstPages, TypstPage, ask, block_on};
use crate::journals::{Checkpoints, DocumentState, JournalStore, SnapshotInput, Snapshots, StageInput};
use crate::platform::Platform;
use crate::recovery_tabs::RecoveryKind;
use crate::runs::RunIdentity;
use crate::worker::Worker;
use protocol::active_file::DEFAULT_ACTIVE_FILE_LABEL;
use protocol::constants::storage_keys;
use protocol::document_snapshot::SnapshotKind;
use protocol::js;
use serde_json::{Value, json};
use std::cell::RefMut;

const TAB: u64 = 7;
const URL: &str = "https://typst.app/project/p";

/// The worker of these tests, on the fake typst.app page.
type RecoveryWorker = Worker<FakePlatform<FakeTypstPages>>;

/// A worker whose tab [`TAB`] shows `text` in `main.typ` of project `p`
/// (tab 8 shows another site).
fn worker_with(text: &str) -> RecoveryWorker {
    let worker = Worker::new(
        FakePlatform {
            browser: FakeBrowser::with_tabs(&[(7, URL), (8, "https://example.com/project/p")]),
            clock: FakeClock::default(),
            pages: FakeTypstPages::default(),
            network: FakeNetwork::default(),
        },
        crate::fakes::VERSION,
    );
    {
        let mut page = page(&worker);
        page.doc = text.into();
        page.files_open = false;
    }
    worker
}

fn page(worker: &RecoveryWorker) -> RefMut<'_, TypstPage> {
    worker.platform.pages.page.borrow_mut()
}

/// The page requests the worker sent, by type, in order.
fn calls(worker: &RecoveryWorker) -> Vec<String> {
    let sent = worker.platform.pages.sent.borrow();
    sent.iter()
        .map(|(_, message)| message["type"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The payloads of every `PAGE_APPLY_EDIT` the worker sent.
fn applied(worker: &RecoveryWorker) -> Vec<Value> {
    worker
        .platform
        .pages
        .sent_of("PAGE_APPLY_EDIT")
        .iter()
        .map(|message| message["payload"].clone())
        .collect()
}

/// Sends a panel request; a recovery reads and writes only its own tab and
/// asks the page for nothing but the context and one guarded apply.
fn send(worker: &RecoveryWorker, message_type: &str, payload: Value) -> Value {
    let answer = ask(worker, message_type, payload);
    for (tab, message) in worker.platform.pages.sent.borrow().iter() {
        assert_eq!(*tab, 7, "{message}");
        let kind = message["type"].as_str().unwrap_or_default();
        assert!(
            ["PAGE_GET_CONTEXT", "PAGE_APPLY_EDIT"].contains(&kind),
            "unexpected page request {kind}"
        );
    }
    answer
}

fn revert(worker: &RecoveryWorker, id: &str) -> Value {
    send(
        worker,
        "EDIT_CHECKPOINT_REVERT",
        json!({"checkpointId": id, "tabId": TAB, "projectId": "p", "sessionId": "s"}),
    )
}

fn checkpoints(worker: &RecoveryWorker) -> Checkpoints<'_, crate::fakes::MemoryStorage, crate::fakes::FakeClock> {
    let p = &worker.platform;
    Checkpoints::new(JournalStore::on(p, &worker.store.queue))
}

fn snapshots(worker: &RecoveryWorker) -> Snapshots<'_, crate::fakes::MemoryStorage, crate::fakes::FakeClock> {
    let p = &worker.platform;
    Snapshots::new(JournalStore::on(p, &worker.store.queue))
}

/// One agent response that changed the page from `before` to `after`, as
/// the run engine records it: staged, applied on the page, committed.
fn response_edit(worker: &RecoveryWorker, id: &str, session: &str, after: &str) {
    let before = page(worker).doc.clone();
    let staged = block_on(checkpoints(worker).stage(StageInput {
        id: id.into(),
        project_id: "p".into(),
        session_id: session.into(),
        run_id: format!("run-{id}"),
        call_id: "call-1".into(),
        file_label: "main.typ".into(),
        before_text: before,
        pending_after: DocumentState::of(after),
    }));
    assert!(staged.is_ok());
    page(worker).doc = after.into();
    assert!(block_on(checkpoints(worker).commit(id)).is_ok());
    worker.platform.clock.advance(1_000.0);
}

fn status_of(worker: &RecoveryWorker, id: &str) -> Option<String> {
    let index = worker.platform.storage().value(storage_keys::EDIT_CHECKPOINT_INDEX)?;
    index["entries"]
        .as_array()?
        .iter()
        .find(|e| e["id"] == id)
        .and_then(|e| e["status"].as_str().map(str::to_owned))
}

fn error_code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("(success)")
}

// ----- revert -----

#[test]
fn a_revert_replaces_the_exact_final_document_in_one_guarded_transaction() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    let answer = revert(&worker, "edit-1");
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["checkpoint"]["status"], "reverted");
    assert_eq!(data["checkpoint"]["id"], "edit-1");
    assert_eq!(data["revertedCount"], 1);
    assert_eq!(data["alreadyReverted"], false);
    assert_eq!(page(&worker).doc, "= Before");
    assert_eq!(
        calls(&worker),
        ["PAGE_GET_CONTEXT", "PAGE_APPLY_EDIT", "PAGE_GET_CONTEXT"],
        "read, one guarded write, and the read-back that confirms it"
    );
    let sent = worker.platform.pages.sent.borrow().clone();
    let apply = &sent[1].1;
    // The page sees opaque ids, never the synthetic run or the checkpoint id.
    assert!(
        apply["runId"].as_str().is_some_and(|r| r.starts_with("page-run-")),
        "{apply}"
    );
    let call = apply["payload"]["callId"].as_str().unwrap_or_default().to_owned();
    assert!(call.starts_with("page-call-") && !call.contains("edit-1"), "{call}");
    assert_eq!(
        apply["payload"],
        json!({"expectedText": "= After", "expectedEditorToken": "editor-1", "expectedFileLabel": "main.typ",
               "changes": [{"from": 0, "to": 7, "insert": "= Before"}], "callId": call,
               "reviewedDiff": false})
    );
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("reverted"));
    assert!(
        worker
            .platform
            .storage()
            .value(&format!("{}edit-1", storage_keys::EDIT_CHECKPOINT_BODY_PREFIX))
            .is_none()
    );
    // Reverting again changes nothing.
    let again = revert(&worker, "edit-1");
    assert_eq!(again["data"]["alreadyReverted"], true);
    assert_eq!(again["data"]["revertedCount"], 0);
}

#[test]
fn reverting_an_older_response_cascades_newest_first_within_the_chat() {
    let worker = worker_with("= Base");
    response_edit(&worker, "edit-first", "s", "= First");
    response_edit(&worker, "edit-second", "s", "= Second");
    response_edit(&worker, "edit-third", "s", "= Third");
    let answer = revert(&worker, "edit-first");
    assert_eq!(answer["ok"], true, "{answer}");
    let ids: Vec<&str> = answer["data"]["checkpoints"]
        .as_array()
        .map(|c| c.iter().filter_map(|x| x["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, ["edit-third", "edit-second", "edit-first"]);
    assert_eq!(answer["data"]["revertedCount"], 3);
    assert_eq!(answer["data"]["checkpoint"]["id"], "edit-first");
    assert_eq!(page(&worker).doc, "= Base");
    let inserts: Vec<Value> = applied(&worker)
        .iter()
        .map(|p| p["changes"][0]["insert"].clone())
        .collect();
    assert_eq!(inserts, [json!("= Second"), json!("= First"), json!("= Base")]);
}

#[test]
fn the_cascade_leaves_other_chats_alone() {
    let worker = worker_with("= Base");
    response_edit(&worker, "edit-mine", "s", "= Mine");
    response_edit(&worker, "edit-theirs", "other", "= Theirs");
    // The other chat's later edit is not part of this chat's cascade, so the
    // live document does not match this response's final state.
    let answer = revert(&worker, "edit-mine");
    assert_eq!(error_code(&answer), "EDIT_REVERT_CONFLICT");
    assert_eq!(page(&worker).doc, "= Theirs");
    assert_eq!(status_of(&worker, "edit-theirs").as_deref(), Some("applied"));
    let foreign = revert(&worker, "edit-theirs");
    assert_eq!(error_code(&foreign), "EDIT_REVERT_SCOPE_MISMATCH");
}

#[test]
fn the_cascade_stops_at_the_first_refused_step_and_reports_partial_progress() {
    let worker = worker_with("= First");
    response_edit(&worker, "edit-first", "s", "= Second");
    response_edit(&worker, "edit-second", "s", "= Third");
    response_edit(&worker, "edit-third", "s", "= Fourth");
    // The page accepts the newest step and refuses the next one.
    page(&worker).on_apply = Some(Box::new(|page: &mut TypstPage| {
        page.refuse_next_apply = Some("EDITOR_UNAVAILABLE");
    }));
    let answer = revert(&worker, "edit-first");
    assert_eq!(error_code(&answer), "EDITOR_UNAVAILABLE");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("1 newer response was reverted"), "{message}");
    let details = &answer["error"]["details"];
    assert_eq!(details["selectedCheckpointId"], "edit-first");
    assert_eq!(details["failedCheckpointId"], "edit-second");
    assert_eq!(details["revertedCount"], 1);
    assert_eq!(details["totalCount"], 3);
    assert_eq!(details["checkpoints"][0]["id"], "edit-third");
    assert_eq!(details["checkpoints"][0]["status"], "reverted");
    assert_eq!(page(&worker).doc, "= Third");
    assert_eq!(status_of(&worker, "edit-third").as_deref(), Some("reverted"));
    assert_eq!(
        status_of(&worker, "edit-second").as_deref(),
        Some("applied"),
        "restored after the refusal"
    );
    assert_eq!(
        status_of(&worker, "edit-first").as_deref(),
        Some("applied"),
        "older work untouched"
    );
    assert_eq!(applied(&worker).len(), 2, "the refused step was the second apply");
}

#[test]
fn a_revert_refuses_to_overwrite_a_document_changed_after_the_response() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    page(&worker).doc = "= Newer user work".into();
    let answer = revert(&worker, "edit-1");
    assert_eq!(error_code(&answer), "EDIT_REVERT_CONFLICT");
    assert_eq!(answer["error"]["details"]["revertedCount"], 0);
    assert_eq!(page(&worker).doc, "= Newer user work");
    assert_eq!(calls(&worker), ["PAGE_GET_CONTEXT"]);
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("applied"));
}

#[test]
fn a_revert_checks_the_focused_file_and_the_stored_copy() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    page(&worker).file = Some("chapter.typ".into());
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_REVERT_FILE_MISMATCH");
    page(&worker).file = Some("main.typ".into());
    let key = format!("{}edit-1", storage_keys::EDIT_CHECKPOINT_BODY_PREFIX);
    worker
        .platform
        .storage()
        .put(&key, json!({"version": 1, "id": "edit-1", "beforeText": "= Tampered"}));
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_CHECKPOINT_BODY_INVALID");
    worker
        .platform
        .storage()
        .put(&key, json!({"version": 1, "id": "edit-x", "beforeText": "= Before"}));
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_CHECKPOINT_BODY_MISSING");
    assert_eq!(page(&worker).doc, "= After");
    assert_eq!(
        error_code(&revert(&worker, "edit-unknown")),
        "EDIT_CHECKPOINT_NOT_FOUND"
    );
}

#[test]
fn a_revert_needs_a_known_file_on_both_sides() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    // The page names no file: the label would be the default on any file.
    page(&worker).file = None;
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_FILE_UNKNOWN");
    assert!(applied(&worker).is_empty());
    assert_eq!(page(&worker).doc, "= After");
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("applied"));
}

#[test]
fn a_revert_of_a_checkpoint_saved_without_a_file_name_is_refused() {
    let worker = worker_with("= Before");
    let staged = block_on(checkpoints(&worker).stage(StageInput {
        id: "edit-1".into(),
        project_id: "p".into(),
        session_id: "s".into(),
        run_id: "run-edit-1".into(),
        call_id: "call-1".into(),
        file_label: String::new(),
        before_text: "= Before".into(),
        pending_after: DocumentState::of("= After"),
    }));
    assert!(staged.is_ok());
    page(&worker).doc = "= After".into();
    assert!(block_on(checkpoints(&worker).commit("edit-1")).is_ok());
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_FILE_UNKNOWN");
    assert!(applied(&worker).is_empty());
    assert_eq!(page(&worker).doc, "= After");
}

#[test]
fn a_revert_reconciles_a_stage_whose_page_commit_won_the_race() {
    let worker = worker_with("= Before");
    // Staged; the page applied the write, but the commit never happened.
    let staged = block_on(checkpoints(&worker).stage(StageInput {
        id: "edit-1".into(),
        project_id: "p".into(),
        session_id: "s".into(),
        run_id: "run-1".into(),
        call_id: "call-1".into(),
        file_label: "main.typ".into(),
        before_text: "= Before".into(),
        pending_after: DocumentState::of("= After"),
    }));
    assert!(staged.is_ok());
    page(&worker).doc = "= After".into();
    let answer = revert(&worker, "edit-1");
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(page(&worker).doc, "= Before");
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("reverted"));
}

#[test]
fn a_revert_of_a_stage_that_never_reached_the_page_removes_it() {
    let worker = worker_with("= Before");
    let staged = block_on(checkpoints(&worker).stage(StageInput {
        id: "edit-1".into(),
        project_id: "p".into(),
        session_id: "s".into(),
        run_id: "run-1".into(),
        call_id: "call-1".into(),
        file_label: "main.typ".into(),
        before_text: "= Before".into(),
        pending_after: DocumentState::of("= After"),
    }));
    assert!(staged.is_ok());
    let answer = revert(&worker, "edit-1");
    assert_eq!(error_code(&answer), "EDIT_CHECKPOINT_NOT_APPLIED");
    assert_eq!(status_of(&worker, "edit-1"), None);
    assert_eq!(page(&worker).doc, "= Before");
    // A later write of the run that never landed only rolls back that write.
    response_edit(&worker, "edit-2", "s", "= One");
    let pending = DocumentState::of("= Two");
    assert!(block_on(checkpoints(&worker).prepare_update("edit-2", &pending, None)).is_ok());
    let answer = revert(&worker, "edit-2");
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(page(&worker).doc, "= Before");
}

#[test]
fn a_revert_finishes_an_interrupted_restore() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    assert!(block_on(checkpoints(&worker).begin_revert("edit-1")).is_ok());
    // The page already reached the original text before the worker stopped.
    page(&worker).doc = "= Before".into();
    let answer = revert(&worker, "edit-1");
    assert_eq!(answer["data"]["alreadyReverted"], true, "{answer}");
    assert_eq!(answer["data"]["checkpoint"]["status"], "reverted");
    assert_eq!(calls(&worker), ["PAGE_GET_CONTEXT"]);
    // Interrupted before the page changed: back to applied, then reverted.
    response_edit(&worker, "edit-2", "s", "= Again");
    assert!(block_on(checkpoints(&worker).begin_revert("edit-2")).is_ok());
    let answer = revert(&worker, "edit-2");
    assert_eq!(answer["data"]["alreadyReverted"], false, "{answer}");
    assert_eq!(page(&worker).doc, "= Before");
}

fn run_on_tab(worker: &RecoveryWorker) {
    let identity = RunIdentity {
        run_id: "run-live".into(),
        tab_id: TAB,
        project_id: "p".into(),
        session_id: "s".into(),
    };
    assert!(worker.runs.reserve(&identity, 0.0).is_ok());
    assert!(worker.runs.admit(&identity, 1.0).is_ok());
}

#[test]
fn recovery_is_refused_before_any_page_access_while_an_agent_run_owns_the_tab() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    run_on_tab(&worker);
    assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_REVERT_RUN_ACTIVE");
    let target = json!({"snapshotId": "snapshot-x", "tabId": TAB, "projectId": "p", "sessionId": "s"});
    for kind in [
        "DOCUMENT_SNAPSHOT_PREVIEW",
        "DOCUMENT_SNAPSHOT_RESTORE",
        "DOCUMENT_SNAPSHOT_DELETE",
    ] {
        let payload = if kind == "DOCUMENT_SNAPSHOT_RESTORE" {
            with_base(target.clone(), "= After")
        } else {
            target.clone()
        };
        assert_eq!(
            error_code(&send(&worker, kind, payload)),
            "DOCUMENT_SNAPSHOT_RUN_ACTIVE",
            "{kind}"
        );
    }
    assert!(calls(&worker).is_empty());
    assert!(worker.platform.pages.sent.borrow().is_empty());
}

#[test]
fn one_recovery_per_tab_and_no_agent_run_meanwhile() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    let target = json!({"snapshotId": "snapshot-x", "tabId": TAB, "projectId": "p", "sessionId": "s"});
    {
        let _held = worker.recovery.begin(TAB, RecoveryKind::Revert).expect("free tab");
        assert!(worker.recovery.is_recovering(TAB));
        assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_REVERT_ACTIVE");
        assert_eq!(
            error_code(&send(
                &worker,
                "DOCUMENT_SNAPSHOT_RESTORE",
                with_base(target.clone(), "= After")
            )),
            "DOCUMENT_SNAPSHOT_ACTIVE"
        );
        assert_eq!(
            error_code(&send(&worker, "DOCUMENT_SNAPSHOT_DELETE", target.clone())),
            "DOCUMENT_SNAPSHOT_ACTIVE"
        );
        let reserve = json!({"type": "AI_RUN_RESERVE", "requestId": "r", "runId": "run-9",
                             "payload": {"tabId": TAB, "projectId": "p", "sessionId": "s"}});
        let answer = block_on(worker.handle_message(&reserve)).expect("answered");
        assert_eq!(answer["payload"]["error"]["code"], "DOCUMENT_RECOVERY_ACTIVE");
        let start = json!({"type": "AI_STREAM_START", "requestId": "r", "runId": "run-9",
                           "payload": {"tabId": TAB, "projectId": "p", "sessionId": "s", "messages": []}});
        let answer = block_on(worker.handle_message(&start)).expect("answered");
        assert_eq!(answer["payload"]["error"]["code"], "DOCUMENT_RECOVERY_ACTIVE");
        // Another tab is not affected.
        assert!(!worker.recovery.is_recovering(8));
    }
    {
        let _held = worker
            .recovery
            .begin(TAB, RecoveryKind::SnapshotMutation)
            .expect("free tab");
        assert_eq!(error_code(&revert(&worker, "edit-1")), "EDIT_REVERT_ACTIVE");
    }
    assert!(!worker.recovery.is_recovering(TAB));
    assert_eq!(revert(&worker, "edit-1")["ok"], true);
    assert!(
        !worker.recovery.is_recovering(TAB),
        "the tab is free again after the revert"
    );
}

#[test]
fn recovery_needs_the_projects_typst_tab() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    let answer = send(
        &worker,
        "EDIT_CHECKPOINT_REVERT",
        json!({"checkpointId": "edit-1", "tabId": 8, "projectId": "p", "sessionId": "s"}),
    );
    assert_eq!(error_code(&answer), "NOT_TYPST_TAB");
    let answer = send(
        &worker,
        "EDIT_CHECKPOINT_REVERT",
        json!({"checkpointId": "edit-1", "tabId": TAB, "projectId": "q", "sessionId": "s"}),
    );
    assert_eq!(error_code(&answer), "EDIT_REVERT_PROJECT_MISMATCH");
    let list = send(
        &worker,
        "DOCUMENT_SNAPSHOT_LIST",
        json!({"tabId": TAB, "projectId": "q", "sessionId": "s"}),
    );
    assert_eq!(error_code(&list), "DOCUMENT_SNAPSHOT_PROJECT_MISMATCH");
}

// ----- snapshots -----

fn automatic_snapshot(worker: &RecoveryWorker, session: &str, file: &str, text: &str) -> String {
    worker.platform.clock.advance(1_000.0);
    let created = block_on(snapshots(worker).create_automatic("p", session, "run-1", file, text));
    created.expect("saved").snapshot.id
}

fn target(id: &str) -> Value {
    json!({"snapshotId": id, "tabId": TAB, "projectId": "p", "sessionId": "s"})
}

/// A restore `target` that names `text` as the document its preview showed.
fn with_base(mut target: Value, text: &str) -> Value {
    let base = DocumentState::of(text);
    target["baseHash"] = json!(base.hash);
    target["baseLength"] = json!(base.length);
    target
}

/// What the panel sends after the user reviewed snapshot `id`: the target
/// with the base the preview answer named.
fn reviewed(worker: &RecoveryWorker, id: &str) -> Value {
    let preview = send(worker, "DOCUMENT_SNAPSHOT_PREVIEW", target(id));
    assert_eq!(preview["ok"], true, "{preview}");
    let mut restore = target(id);
    restore["baseHash"] = preview["data"]["baseHash"].clone();
    restore["baseLength"] = preview["data"]["baseLength"].clone();
    restore
}

#[test]
fn the_list_shows_the_focused_files_snapshots_for_this_chat() {
    let worker = worker_with("= Now");
    let mine = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    automatic_snapshot(&worker, "s2", "main.typ", "= Theirs");
    let rescue = block_on(snapshots(&worker).create(SnapshotInput {
        kind: SnapshotKind::Rescue,
        project_id: "p".into(),
        file_label: "main.typ".into(),
        title: Some("Before restore".into()),
        text: "= Rescue".into(),
        session_id: None,
        run_id: None,
        protected_snapshot_id: None,
    }))
    .expect("saved");
    let answer = send(
        &worker,
        "DOCUMENT_SNAPSHOT_LIST",
        json!({"tabId": TAB, "projectId": "p", "sessionId": "s"}),
    );
    assert_eq!(answer["data"]["fileLabel"], "main.typ");
    let ids: Vec<&str> = answer["data"]["snapshots"]
        .as_array()
        .map(|s| s.iter().filter_map(|x| x["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, [rescue.snapshot.id.as_str(), mine.as_str()]);
    assert_eq!(answer["data"]["snapshots"][1]["kind"], "automatic");
    page(&worker).file = Some("other.typ".into());
    let other = send(
        &worker,
        "DOCUMENT_SNAPSHOT_LIST",
        json!({"tabId": TAB, "projectId": "p", "sessionId": "s"}),
    );
    assert_eq!(other["data"]["snapshots"], json!([]));
}

#[test]
fn a_preview_compares_the_live_document_with_the_snapshot() {
    let worker = worker_with("= Now");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_PREVIEW", target(&id));
    assert_eq!(answer["ok"], true, "{answer}");
    assert_eq!(answer["data"]["noChanges"], false);
    assert_eq!(answer["data"]["snapshot"]["id"], id.as_str());
    let preview = &answer["data"]["preview"];
    assert_eq!(preview["kind"], "unified-diff");
    assert_eq!(preview["fileLabel"], "main.typ");
    assert_eq!(
        (preview["additions"].clone(), preview["deletions"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        preview["hunks"][0]["rows"][0]["text"], "= Now",
        "current first, saved second"
    );
    assert!(answer["data"].get("previewNotice").is_none());
    let base = DocumentState::of("= Now");
    assert_eq!(
        answer["data"]["baseHash"],
        base.hash.as_str(),
        "the live text it diffed against"
    );
    assert_eq!(answer["data"]["baseLength"], base.length);
    page(&worker).doc = "= Saved".into();
    let same = send(&worker, "DOCUMENT_SNAPSHOT_PREVIEW", target(&id));
    assert_eq!(same["data"]["noChanges"], true);
    assert_eq!(same["data"]["baseHash"], DocumentState::of("= Saved").hash.as_str());
    assert!(applied(&worker).is_empty(), "a preview never writes");
    // A diff too large to review still allows the restore, with a notice.
    let lines = |prefix: &str| {
        (0..5_000)
            .map(|i| format!("{prefix}{i}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let big = automatic_snapshot(&worker, "s", "main.typ", &lines("old "));
    page(&worker).doc = lines("new ");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_PREVIEW", target(&big));
    assert_eq!(answer["data"]["noChanges"], false, "{answer}");
    assert_eq!(answer["data"]["preview"], Value::Null);
    let notice = answer["data"]["previewNotice"].as_str().unwrap_or_default();
    assert!(!notice.is_empty() && js::utf16_len(notice) <= 500, "{notice}");
}

#[test]
fn a_restore_saves_a_rescue_copy_first_then_replaces_the_document() {
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", reviewed(&worker, &id));
    assert_eq!(answer["ok"], true, "{answer}");
    let data = &answer["data"];
    assert_eq!(data["noChanges"], false);
    assert_eq!(page(&worker).doc, "= Saved");
    assert_eq!(data["rescueSnapshot"]["kind"], "rescue");
    assert_eq!(data["rescueSnapshot"]["title"], "Before restore");
    assert_eq!(data["editorStateUpdate"]["kind"], "snapshot-restored");
    assert_eq!(data["editorStateUpdate"]["snapshotId"], id.as_str());
    assert_eq!(data["editorStateUpdate"]["fileLabel"], "main.typ");
    let rescue_id = data["rescueSnapshot"]["id"].as_str().unwrap_or_default().to_owned();
    let rescue = block_on(snapshots(&worker).load(&rescue_id))
        .expect("loaded")
        .expect("stored");
    assert_eq!(rescue.text.as_deref(), Some("= Current work"));
    let sent = worker.platform.pages.sent.borrow().clone();
    let apply = sent
        .iter()
        .find(|(_, m)| m["type"] == "PAGE_APPLY_EDIT")
        .map(|(_, m)| m.clone());
    let apply = apply.expect("one apply");
    assert!(apply["runId"].as_str().is_some_and(|r| r.starts_with("page-run-")));
    assert!(
        apply["payload"]["callId"]
            .as_str()
            .is_some_and(|c| c.starts_with("page-call-") && !c.contains(id.as_str()))
    );
    assert_eq!(apply["payload"]["reviewedDiff"], false);
    assert_eq!(apply["payload"]["expectedText"], "= Current work");
    // Restoring the rescue copy brings the work back.
    let back = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", reviewed(&worker, &rescue_id));
    assert_eq!(back["ok"], true, "{back}");
    assert_eq!(page(&worker).doc, "= Current work");
    // Already at the snapshot: nothing is written.
    let same = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", reviewed(&worker, &rescue_id));
    assert_eq!(same["data"]["noChanges"], true);
    assert_eq!(same["data"]["rescueSnapshot"], Value::Null);
}

#[test]
fn text_typed_after_the_preview_makes_the_restore_fail_closed() {
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let restore = reviewed(&worker, &id);
    page(&worker).doc = "= Current work\nTyped after the preview".into();
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", restore.clone());
    assert_eq!(error_code(&answer), "STALE_EDIT_PREVIEW", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Review the snapshot again")),
        "{answer}"
    );
    assert_eq!(page(&worker).doc, "= Current work\nTyped after the preview");
    assert!(applied(&worker).is_empty(), "nothing was sent to the editor");
    let list = block_on(snapshots(&worker).list_for_file("p", "main.typ", "s")).expect("listed");
    assert!(
        list.iter().all(|s| s.kind != SnapshotKind::Rescue),
        "no rescue copy for a restore that never started"
    );
    // The same length with other text is refused too.
    page(&worker).doc = "= Current wonk".into();
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", restore);
    assert_eq!(error_code(&answer), "STALE_EDIT_PREVIEW");
    // Reviewing again gives a restore of what is there now.
    let again = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", reviewed(&worker, &id));
    assert_eq!(again["ok"], true, "{again}");
    assert_eq!(page(&worker).doc, "= Saved");
    let rescue = again["data"]["rescueSnapshot"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let kept = block_on(snapshots(&worker).load(&rescue))
        .expect("read")
        .expect("stored");
    assert_eq!(kept.text.as_deref(), Some("= Current wonk"));
}

#[test]
fn a_write_the_read_back_does_not_confirm_is_reported_and_keeps_what_can_reconcile_it() {
    // A restore whose page reports success but left other text.
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let restore = reviewed(&worker, &id);
    page(&worker).after_apply = Some(Box::new(|page: &mut crate::fakes::TypstPage| {
        page.doc = "= Other".into()
    }));
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", restore);
    assert_eq!(error_code(&answer), "EDIT_APPLY_UNVERIFIED", "{answer}");
    let list = block_on(snapshots(&worker).list_for_file("p", "main.typ", "s")).expect("listed");
    assert!(
        list.iter().any(|s| s.kind == SnapshotKind::Rescue),
        "the rescue copy stays"
    );

    // A revert step that is not confirmed stays `reverting` for the next
    // attempt to reconcile, instead of claiming either state.
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    page(&worker).after_apply = Some(Box::new(|page: &mut crate::fakes::TypstPage| {
        page.doc = "= Other".into()
    }));
    let answer = revert(&worker, "edit-1");
    assert_eq!(error_code(&answer), "EDIT_APPLY_UNVERIFIED", "{answer}");
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("reverting"));
}

#[test]
fn a_restore_without_the_reviewed_base_is_refused_before_any_page_access() {
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", target(&id));
    assert_eq!(error_code(&answer), "INVALID_DOCUMENT_SNAPSHOT_BASE");
    assert!(worker.platform.pages.sent.borrow().is_empty());
    assert_eq!(page(&worker).doc, "= Current work");
}

#[test]
fn a_restore_that_cannot_store_its_rescue_copy_changes_nothing() {
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let restore = reviewed(&worker, &id);
    worker.platform.storage().fail_writes("QUOTA_BYTES quota exceeded");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", restore);
    assert_eq!(error_code(&answer), "STORAGE_QUOTA_EXCEEDED");
    assert_eq!(page(&worker).doc, "= Current work");
    assert!(applied(&worker).is_empty());
}

#[test]
fn snapshot_requests_check_file_chat_project_and_integrity() {
    let worker = worker_with("= Now");
    let other_chat = automatic_snapshot(&worker, "s2", "main.typ", "= Theirs");
    assert_eq!(
        error_code(&send(
            &worker,
            "DOCUMENT_SNAPSHOT_RESTORE",
            with_base(target(&other_chat), "= Now")
        )),
        "DOCUMENT_SNAPSHOT_SCOPE_MISMATCH"
    );
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    page(&worker).file = Some("chapter.typ".into());
    let wrong_file = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", with_base(target(&id), "= Now"));
    assert_eq!(error_code(&wrong_file), "DOCUMENT_SNAPSHOT_FILE_MISMATCH");
    assert_eq!(
        wrong_file["error"]["message"],
        "Open main.typ before restoring this snapshot."
    );
    page(&worker).file = Some("main.typ".into());
    let key = format!("{}{id}", storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX);
    worker
        .platform
        .storage()
        .put(&key, json!({"version": 1, "id": id, "text": "= Tampered"}));
    assert_eq!(
        error_code(&send(
            &worker,
            "DOCUMENT_SNAPSHOT_RESTORE",
            with_base(target(&id), "= Now")
        )),
        "DOCUMENT_SNAPSHOT_BODY_INVALID"
    );
    assert_eq!(
        error_code(&send(&worker, "DOCUMENT_SNAPSHOT_PREVIEW", target("snapshot-gone"))),
        "DOCUMENT_SNAPSHOT_NOT_FOUND"
    );
    assert_eq!(page(&worker).doc, "= Now");
    assert!(applied(&worker).is_empty());
}

#[test]
fn a_stale_editor_refuses_the_restore_and_keeps_the_rescue_copy() {
    let worker = worker_with("= Current work");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let restore = reviewed(&worker, &id);
    page(&worker).refuse_next_apply = Some("STALE_EDIT_PREVIEW");
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_RESTORE", restore);
    assert_eq!(error_code(&answer), "STALE_EDIT_PREVIEW");
    assert_eq!(page(&worker).doc, "= Current work");
    let list = block_on(snapshots(&worker).list_for_file("p", "main.typ", "s")).expect("listed");
    assert!(list.iter().any(|s| s.kind == SnapshotKind::Rescue));
}

#[test]
fn a_snapshot_of_an_unidentified_file_is_never_restored_into_another() {
    let worker = worker_with("= Other unnamed file");
    let id = automatic_snapshot(&worker, "s", DEFAULT_ACTIVE_FILE_LABEL, "= Saved from an unnamed file");
    page(&worker).file = None;
    let preview = send(&worker, "DOCUMENT_SNAPSHOT_PREVIEW", target(&id));
    assert_eq!(error_code(&preview), "EDIT_FILE_UNKNOWN", "{preview}");
    let restore = send(
        &worker,
        "DOCUMENT_SNAPSHOT_RESTORE",
        with_base(target(&id), "= Other unnamed file"),
    );
    assert_eq!(error_code(&restore), "EDIT_FILE_UNKNOWN", "{restore}");
    // A named snapshot is not restored into an unnamed editor either.
    let named = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    let answer = send(
        &worker,
        "DOCUMENT_SNAPSHOT_RESTORE",
        with_base(target(&named), "= Other unnamed file"),
    );
    assert_eq!(error_code(&answer), "EDIT_FILE_UNKNOWN", "{answer}");
    assert!(applied(&worker).is_empty());
    assert_eq!(page(&worker).doc, "= Other unnamed file");
}

#[test]
fn deleting_a_snapshot_needs_its_file_focused() {
    let worker = worker_with("= Now");
    let id = automatic_snapshot(&worker, "s", "main.typ", "= Saved");
    page(&worker).file = Some("chapter.typ".into());
    assert_eq!(
        error_code(&send(&worker, "DOCUMENT_SNAPSHOT_DELETE", target(&id))),
        "DOCUMENT_SNAPSHOT_FILE_MISMATCH"
    );
    page(&worker).file = Some("main.typ".into());
    let answer = send(&worker, "DOCUMENT_SNAPSHOT_DELETE", target(&id));
    assert_eq!(answer["data"]["removed"], 1, "{answer}");
    assert_eq!(answer["data"]["snapshot"]["id"], id.as_str());
    assert!(block_on(snapshots(&worker).load(&id)).expect("read").is_none());
    assert!(!worker.recovery.is_recovering(TAB));
}

#[test]
fn a_revert_whose_journal_cannot_be_written_leaves_the_page_untouched() {
    let worker = worker_with("= Before");
    response_edit(&worker, "edit-1", "s", "= After");
    worker.platform.storage().fail_writes("IO error");
    let answer = revert(&worker, "edit-1");
    assert_eq!(error_code(&answer), "STORAGE_WRITE_FAILED");
    assert_eq!(answer["error"]["details"]["failedCheckpointId"], "edit-1");
    assert_eq!(page(&worker).doc, "= After");
    assert!(applied(&worker).is_empty());
    assert_eq!(status_of(&worker, "edit-1").as_deref(), Some("applied"));
}
