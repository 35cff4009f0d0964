//! Editor writes in whole runs, through the worker's message router (the
//! shared [`Harness`]), against the fake typst.app page ([`FakeTypstPages`]):
//! it holds a document, draws (and tracks) one overlay, applies changes only
//! when the text, the editor token and the focused file are exactly the
//! ones the proposal was computed for, and clears the overlay of the call
//! that asks. Approval banners really wait: the clock holds every sleep of
//! 100 s and more.

use crate::fakes::{FakeClock, FakeTypstPages, Harness, Pending, TAB, TypstPage, calls, next_reply, text};
use crate::page_client::{page_call_id, page_owner_id};
use crate::platform::NetworkError;
use protocol::constants::storage_keys;
use protocol::js;
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

const DOC: &str = "= Thesis\nWe cite @knuth here.\n\n== Method\nSome text.";

/// A worker on a page that shows [`DOC`] in `main.typ` with the Files
/// sidebar closed; approval banners really wait (the clock holds every
/// sleep of 100 s and more), and the page can fail the worker's storage.
fn harness() -> Harness<FakeTypstPages> {
    let clock = FakeClock::default();
    clock.hold_sleeps_from(Some(100_000));
    let h = Harness::new(FakeTypstPages::default(), clock);
    let storage = h.platform().browser.storage.clone();
    *h.platform().pages.worker_storage.borrow_mut() = Some(storage);
    {
        let mut page = h.platform().pages.page.borrow_mut();
        page.doc = DOC.to_owned();
        page.files_open = false;
    }
    h
}

/// What only this suite looks at.
impl Harness<FakeTypstPages> {
    fn editor(&self) -> std::cell::RefMut<'_, TypstPage> {
        self.platform().pages.page.borrow_mut()
    }

    /// Reserves and starts a run that asks to edit, in approval `mode`.
    fn start_in(&mut self, run_id: &str, session_id: &str, mode: &str) -> Pending {
        self.start(
            run_id,
            session_id,
            json!([{"role": "user", "content": "Please edit"}]),
            json!({"settings": {"editorApprovalMode": mode}}),
        )
    }

    fn result(&self, run_id: &str, call_id: &str) -> Value {
        self.payloads(run_id, "AI_TOOL_RESULT")
            .into_iter()
            .find(|payload| payload["callId"] == call_id)
            .map(|payload| payload["result"].clone())
            .unwrap_or(Value::Null)
    }

    fn page_sent(&self, kind: &str) -> Vec<Value> {
        self.platform().pages.sent_of(kind)
    }

    fn stored(&self, key: &str) -> Value {
        self.platform().browser.storage.value(key).unwrap_or(Value::Null)
    }

    fn checkpoints(&self) -> Vec<Value> {
        self.stored(storage_keys::EDIT_CHECKPOINT_INDEX)["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn snapshots(&self) -> Vec<Value> {
        self.stored(storage_keys::DOCUMENT_SNAPSHOT_INDEX)["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

fn rename_title() -> Value {
    json!({"search": "= Thesis", "replace": "= Dissertation"})
}

impl Harness<FakeTypstPages> {
    /// Starts run-1 in Ask mode; its model renames the title once, then
    /// answers "Renamed.".
    fn ask_to_rename(&mut self) -> Pending {
        self.script(
            "run-1",
            vec![calls(&[("e1", "search_replace", rename_title())]), text("Renamed.")],
        );
        self.start_in("run-1", "s1", "ask")
    }
}

// ----- Ask mode -----

#[test]
fn ask_approve_applies_exactly_the_reviewed_change_and_the_receipt_says_so() {
    let mut h = harness();
    let run = h.ask_to_rename();
    assert!(!run.is_done(), "the run waits for the review");
    let banners = h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED");
    assert_eq!(banners.len(), 1);
    assert_eq!(banners[0]["callId"], "e1");
    assert_eq!(banners[0]["effect"], "editor-write");
    assert_eq!(banners[0]["preview"]["fileLabel"], "main.typ");
    assert_eq!(banners[0]["preview"]["additions"], 1);
    assert_eq!(banners[0]["preview"]["deletions"], 1);
    assert!(banners[0].get("previewNotice").is_none(), "the overlay was drawn");
    assert_eq!(
        h.editor().overlay,
        Some((page_owner_id("run-1"), page_call_id("run-1", "e1"))),
        "the overlay is on screen during the review"
    );
    assert_eq!(h.editor().doc, DOC, "nothing changes before Apply");
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());

    assert_eq!(h.resolve("run-1", "e1", "approve_once")["ok"], true);
    assert_eq!(run.data(), json!({"ok": true, "runId": "run-1"}));
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
    assert_eq!(h.editor().overlay, None);
    let applied = h.page_sent("PAGE_APPLY_EDIT");
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0]["payload"]["reviewedDiff"], true);
    assert_eq!(applied[0]["payload"]["expectedText"], DOC);
    assert_eq!(applied[0]["runId"], page_owner_id("run-1"));
    assert_eq!(applied[0]["payload"]["callId"], page_call_id("run-1", "e1"));

    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], true);
    assert_eq!(result["edits_applied"], 1);
    assert_eq!(result["reviewed_diff"], true);
    assert_eq!(result["editCheckpoint"]["status"], "applied");
    assert_eq!(result["editCheckpoint"]["fileLabel"], "main.typ");
    let id = result["editCheckpoint"]["id"].as_str().unwrap_or_default().to_owned();
    assert!(id.starts_with("edit-"), "{id}");
    let entries = h.checkpoints();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["id"], id.as_str());
    assert_eq!(entries[0]["status"], "applied");
    assert_eq!(
        h.stored(&format!("{}{id}", storage_keys::EDIT_CHECKPOINT_BODY_PREFIX))["beforeText"],
        DOC,
        "the pre-run copy is kept for Revert"
    );
    assert_eq!(
        h.page_sent("PAGE_CLEAR_EDIT_PREVIEW").len(),
        1,
        "the overlay is cleared after Apply too"
    );
}

#[test]
fn ask_reject_leaves_the_document_and_clears_the_overlay() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Kept it.")],
    );
    let run = h.start_in("run-1", "s1", "");
    assert!(h.editor().overlay.is_some(), "an empty mode means Ask");
    h.resolve("run-1", "e1", "deny");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["code"], "TOOL_DENIED");
    assert_eq!(h.editor().doc, DOC);
    assert_eq!(h.editor().overlay, None);
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
    assert_eq!(h.page_sent("PAGE_CLEAR_EDIT_PREVIEW").len(), 1);
    assert!(h.checkpoints().is_empty(), "nothing was staged");
}

#[test]
fn a_review_that_times_out_is_a_denial() {
    let mut h = harness();
    h.platform().clock.hold_sleeps_from(None);
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("No answer.")],
    );
    let run = h.start_in("run-1", "s1", "ask");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["code"], "TOOL_DENIED");
    assert_eq!(h.editor().doc, DOC);
    assert_eq!(h.editor().overlay, None);
}

#[test]
fn stop_during_the_review_clears_the_overlay_and_changes_nothing() {
    let mut h = harness();
    h.script("run-1", vec![calls(&[("e1", "search_replace", rename_title())])]);
    let run = h.start_in("run-1", "s1", "ask");
    assert!(h.editor().overlay.is_some());
    h.send("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data()["cancelled"], true);
    assert_eq!(h.editor().overlay, None);
    assert_eq!(h.editor().doc, DOC);
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
    assert!(h.payloads("run-1", "AI_STREAM_DONE").is_empty());
}

#[test]
fn typing_between_proposal_and_apply_fails_closed() {
    let mut h = harness();
    h.editor().on_show = Some(Box::new(|editor: &mut TypstPage| {
        editor.doc.push_str("\nTyped by the user.")
    }));
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("It changed.")],
    );
    let run = h.start_in("run-1", "s1", "ask");
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], false);
    assert_eq!(result["code"], "STALE_EDIT_PREVIEW");
    assert_eq!(result["staleReason"], "document");
    assert_eq!(
        h.editor().doc,
        format!("{DOC}\nTyped by the user."),
        "only the user's typing"
    );
    assert_eq!(h.editor().overlay, None, "a stale proposal is cleared too");
    assert!(h.checkpoints().is_empty(), "the preparation was rolled back");
}

#[test]
fn the_preview_names_the_document_by_its_token_and_the_apply_sends_the_text() {
    let mut h = harness();
    let run = h.ask_to_rename();
    let shows = h.page_sent("PAGE_SHOW_EDIT_PREVIEW");
    assert_eq!(shows.len(), 1);
    let payload = &shows[0]["payload"];
    assert_eq!(payload["expectedDocumentToken"], "document-1", "the edit read's token");
    assert_eq!(payload["expectedTextLength"], js::utf16_len(DOC));
    assert!(payload.get("expectedText").is_none(), "the text does not travel back");
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    let applied = h.page_sent("PAGE_APPLY_EDIT");
    assert_eq!(
        applied[0]["payload"]["expectedText"], DOC,
        "a write compares the whole text"
    );
    assert!(applied[0]["payload"].get("expectedDocumentToken").is_none());
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
}

impl Harness<FakeTypstPages> {
    /// The `knownDocumentToken` of each `edit` read sent so far (`None` for
    /// a read that named no document).
    fn edit_reads(&self) -> Vec<Option<String>> {
        self.page_sent("PAGE_GET_CONTEXT")
            .into_iter()
            .filter(|read| read["payload"]["projection"] == "edit")
            .map(|read| read["payload"]["knownDocumentToken"].as_str().map(str::to_owned))
            .collect()
    }
}

#[test]
fn a_run_receives_its_document_once_while_the_editor_holds_it() {
    let mut h = harness();
    let run = h.ask_to_rename();
    assert_eq!(
        h.edit_reads(),
        [None, Some("document-1".to_owned())],
        "the run's first read, then the write's read naming it"
    );
    assert_eq!(h.editor().text_left_out, 1, "the write's read came without the text");
    let banner = &h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED")[0];
    assert_eq!(
        (
            banner["preview"]["additions"].clone(),
            banner["preview"]["deletions"].clone()
        ),
        (json!(1), json!(1))
    );
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    let applied = h.page_sent("PAGE_APPLY_EDIT");
    assert_eq!(
        applied[0]["payload"]["expectedText"], DOC,
        "resolved against the remembered text"
    );
    let edited = DOC.replacen("= Thesis", "= Dissertation", 1);
    assert_eq!(h.editor().doc, edited);
    assert_eq!(
        h.result("run-1", "e1")["editCheckpoint"]["status"],
        "applied",
        "the read-back saw the edit"
    );
    assert_eq!(
        h.edit_reads(),
        [
            None,
            Some("document-1".to_owned()),
            Some("document-1".to_owned()),
            Some("document-2".to_owned())
        ],
        "the read-back named the old document and got the new one; the end of the run named that"
    );
    assert_eq!(h.editor().text_left_out, 2);
    let snapshot = h.snapshots()[0]["id"].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        h.stored(&format!("{}{snapshot}", storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX))["text"],
        edited.as_str(),
        "the run's snapshot is the edited text"
    );
}

#[test]
fn the_next_run_in_the_tab_names_the_document_the_last_one_ended_with() {
    let mut h = harness();
    let run = h.ask_to_rename();
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    let before = h.editor().text_left_out;
    h.script("run-2", vec![text("Nothing to change.")]);
    let second = h.start_in("run-2", "s1", "ask");
    assert_eq!(second.data()["ok"], true);
    let reads = h.edit_reads();
    assert_eq!(
        reads[reads.len() - 2..],
        [Some("document-2".to_owned()), Some("document-2".to_owned())],
        "run-2 starts and ends naming the document run-1 ended with"
    );
    assert_eq!(
        h.editor().text_left_out,
        before + 2,
        "and receives its text neither time"
    );
}

#[test]
fn a_document_changed_since_the_last_read_is_sent_again_and_the_write_uses_it() {
    let mut h = harness();
    let typed = format!("{DOC}\nTyped while the model answered.");
    let edit_reads = Rc::new(Cell::new(0));
    let seen = edit_reads.clone();
    let typing = typed.clone();
    h.editor().before_context = Some(Box::new(move |editor: &mut TypstPage, payload: &Value| {
        if payload["projection"] == "edit" {
            seen.set(seen.get() + 1);
            if seen.get() == 2 {
                editor.doc = typing.clone();
            }
        }
    }));
    let run = h.ask_to_rename();
    assert_eq!(h.edit_reads()[1], Some("document-1".to_owned()));
    assert_eq!(h.editor().text_left_out, 0, "the editor no longer held document-1");
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(
        h.page_sent("PAGE_APPLY_EDIT")[0]["payload"]["expectedText"],
        typed.as_str()
    );
    assert_eq!(h.editor().doc, typed.replacen("= Thesis", "= Dissertation", 1));
}

#[test]
fn a_new_document_object_of_the_same_text_is_drawn_again_with_the_whole_text() {
    let mut h = harness();
    // Typed and undone between the read and the preview: the page holds
    // another document object, so the token is stale, but the text is the
    // one the proposal was computed for.
    h.editor().before_show = Some(Box::new(|editor: &mut TypstPage| {
        editor.document_object_replaced = true;
    }));
    let run = h.ask_to_rename();
    let shows = h.page_sent("PAGE_SHOW_EDIT_PREVIEW");
    assert_eq!(shows.len(), 2, "refused by token, then drawn by text");
    assert!(shows[0]["payload"].get("expectedDocumentToken").is_some());
    assert_eq!(shows[1]["payload"]["expectedText"], DOC);
    assert!(shows[1]["payload"].get("expectedDocumentToken").is_none());
    assert_eq!(h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").len(), 1, "one review");
    assert!(h.editor().overlay.is_some());
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["reviewed_diff"], true);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
}

#[test]
fn typing_between_the_read_and_the_preview_fails_closed_on_the_text() {
    let mut h = harness();
    h.editor().before_show = Some(Box::new(|editor: &mut TypstPage| {
        editor.doc.push_str("\nTyped by the user.");
    }));
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("It changed.")],
    );
    let run = h.start_in("run-1", "s1", "ask");
    assert_eq!(run.data()["ok"], true, "the refusal withdrew the review");
    let shows = h.page_sent("PAGE_SHOW_EDIT_PREVIEW");
    assert_eq!(shows.len(), 2, "refused by token, then by the whole text");
    assert_eq!(shows[1]["payload"]["expectedText"], DOC);
    let result = h.result("run-1", "e1");
    assert_eq!(result["code"], "STALE_EDIT_PREVIEW");
    assert_eq!(result["staleReason"], "document");
    assert_eq!(
        h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").len(),
        1,
        "shown beside the drawing, then taken down by the result"
    );
    assert_eq!(
        h.resolve("run-1", "e1", "approve_once")["ok"],
        false,
        "a late Apply finds nothing waiting"
    );
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
    assert_eq!(h.editor().doc, format!("{DOC}\nTyped by the user."));
    assert_eq!(h.editor().overlay, None);
}

#[test]
fn an_editor_that_opens_late_drops_the_early_read_and_reads_after_the_wait() {
    let mut h = harness();
    // The probe sent beside the first edit read finds no editor, and so
    // does the wait's first probe (a banner); the editor opens after it.
    {
        let mut page = h.editor();
        page.editor = false;
        page.editor_after_probes = 2;
    }
    let run = h.ask_to_rename();
    let waiting = h.payloads("run-1", "AI_TOOL_PREFLIGHT_WAITING");
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(h.payloads("run-1", "AI_TOOL_PREFLIGHT_READY").len(), 1);
    let edit_reads: Vec<Value> = h
        .page_sent("PAGE_GET_CONTEXT")
        .into_iter()
        .filter(|message| message["payload"]["projection"] == "edit")
        .collect();
    assert!(
        edit_reads.len() >= 2,
        "the early read was dropped and read again: {edit_reads:?}"
    );
    let banners = h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED");
    assert_eq!(banners.len(), 1);
    assert_eq!(banners[0]["preview"]["additions"], 1);
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["reviewed_diff"], true);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
}

#[test]
fn a_tab_that_navigated_during_the_review_gets_no_write() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Moved.")],
    );
    let run = h.start_in("run-1", "s1", "ask");
    assert!(h.editor().overlay.is_some());
    h.platform().browser.navigate(TAB, "https://typst.app/project/other");
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["code"], "STALE_RUN_TAB");
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
    assert_eq!(
        h.page_sent("PAGE_CLEAR_EDIT_PREVIEW").len(),
        1,
        "the overlay is still cleared"
    );
    assert_eq!(h.editor().doc, DOC);
    let done = h.payloads("run-1", "AI_STREAM_DONE");
    assert!(
        done[0]["snapshotWarning"]
            .as_str()
            .is_some_and(|w| w.contains("navigated")),
        "no snapshot is taken from another page: {done:?}"
    );
    assert!(h.snapshots().is_empty());
}

#[test]
fn an_overlay_the_page_cannot_draw_becomes_a_notice_on_the_review() {
    let mut h = harness();
    h.editor().cannot_draw = true;
    let run = h.ask_to_rename();
    let banners = h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED");
    assert_eq!(
        banners.len(),
        2,
        "the review, then the same review with the drawing's notice"
    );
    assert!(
        banners[0].get("previewNotice").is_none(),
        "sent before the page answered"
    );
    assert_eq!(
        banners[1]["previewNotice"],
        "Inline editor preview is unavailable: no scroller."
    );
    assert_eq!(banners[1]["callId"], banners[0]["callId"]);
    assert_eq!(banners[1]["preview"], banners[0]["preview"]);
    assert_eq!(banners[1]["preview"]["additions"], 1, "the panel's diff is complete");
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["reviewed_diff"], true);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
}

#[test]
fn an_answer_given_while_the_drawing_is_on_its_way_waits_for_it() {
    let mut h = harness();
    h.editor().stall.insert("PAGE_SHOW_EDIT_PREVIEW");
    let run = h.ask_to_rename();
    assert_eq!(
        h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").len(),
        1,
        "the review does not wait for the page"
    );
    assert_eq!(h.page_sent("PAGE_SHOW_EDIT_PREVIEW").len(), 1);
    assert_eq!(h.resolve("run-1", "e1", "approve_once")["ok"], true);
    assert!(!run.is_done(), "the commit waits for the drawing");
    assert!(
        h.page_sent("PAGE_APPLY_EDIT").is_empty(),
        "nothing is applied while a preview is on its way"
    );
    h.call("AI_STREAM_CANCEL", Some("run-1"), json!({}));
    assert_eq!(run.data()["cancelled"], true);
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
    assert_eq!(
        h.page_sent("PAGE_CLEAR_EDIT_PREVIEW").len(),
        1,
        "Stop still clears the overlay"
    );
    assert_eq!(h.editor().doc, DOC);
}

#[test]
fn another_file_focused_at_apply_time_waits_for_the_file_and_retries() {
    let mut h = harness();
    // When the apply arrives the user is on notes.typ; the next context read
    // still shows it (a banner), the one after shows main.typ again.
    h.editor().on_apply = Some(Box::new(|editor: &mut TypstPage| {
        editor.files.push_back("notes.typ".into());
    }));
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Renamed.")],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(h.page_sent("PAGE_APPLY_EDIT").len(), 2, "refused once, then applied");
    let waiting = h.payloads("run-1", "AI_TOOL_PREFLIGHT_WAITING");
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0]["missing"], json!(["open file: main.typ"]));
    assert_eq!(h.payloads("run-1", "AI_TOOL_PREFLIGHT_READY").len(), 1);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
    let entries = h.checkpoints();
    assert_eq!(entries.len(), 1, "the rolled-back preparation was staged again once");
    assert_eq!(entries[0]["status"], "applied");
}

#[test]
fn another_file_focused_when_the_proposal_is_drawn_waits_for_the_file_and_draws_again() {
    let mut h = harness();
    // The run's first read and the edit snapshot show main.typ; when the
    // proposal is drawn the user is on notes.typ, so the page refuses it
    // (`staleReason: file`); the next context read still shows notes.typ (a
    // banner), the one after main.typ again, and the proposal is drawn and
    // reviewed then.
    h.editor().files = ["main.typ", "main.typ", "notes.typ", "main.typ"]
        .into_iter()
        .map(String::from)
        .collect();
    let run = h.ask_to_rename();
    let shows = h.page_sent("PAGE_SHOW_EDIT_PREVIEW");
    assert_eq!(shows.len(), 2, "refused once for the other file, then drawn");
    let waiting = h.payloads("run-1", "AI_TOOL_PREFLIGHT_WAITING");
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0]["missing"], json!(["open file: main.typ"]));
    // The review went up before the drawing; the file's banner took its
    // place, so it is shown again once the file is back.
    let review_events: Vec<String> = h
        .event_types("run-1")
        .into_iter()
        .filter(|kind| kind.starts_with("AI_TOOL_APPROVAL") || kind.starts_with("AI_TOOL_PREFLIGHT"))
        .collect();
    assert_eq!(
        review_events,
        [
            "AI_TOOL_APPROVAL_REQUIRED",
            "AI_TOOL_PREFLIGHT_WAITING",
            "AI_TOOL_PREFLIGHT_READY",
            "AI_TOOL_APPROVAL_REQUIRED"
        ]
    );
    let banners = h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED");
    assert_eq!(banners[0], banners[1], "the same review, shown again");
    assert!(h.editor().overlay.is_some());
    h.resolve("run-1", "e1", "approve_once");
    assert_eq!(run.data()["ok"], true);
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], true, "{result}");
    assert_eq!(result["reviewed_diff"], true);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
}

#[test]
fn a_commit_that_cannot_be_stored_is_a_warning_on_an_applied_change() {
    let mut h = harness();
    h.platform().pages.fail_storage_after_apply.set(true);
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Renamed.")],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert!(run.is_done());
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], true);
    assert!(
        result["warning"]
            .as_str()
            .is_some_and(|w| w.starts_with("The change was applied, but its revert point is not final yet")),
        "{result}"
    );
    assert_eq!(result["editCheckpoint"]["status"], "applied");
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
    assert_eq!(
        h.checkpoints()[0]["status"],
        "prepared",
        "the write-ahead record stays for Revert to reconcile"
    );
}

#[test]
fn a_receipt_the_document_does_not_confirm_commits_nothing() {
    // The page says it applied the change but the text is as before.
    let mut h = harness();
    h.editor().after_apply = Some(Box::new(|page: &mut TypstPage| page.doc = DOC.to_owned()));
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Renamed.")],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert!(run.is_done());
    let result = h.result("run-1", "e1");
    assert_eq!(result["code"], "EDIT_APPLY_UNVERIFIED", "{result}");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("Nothing was applied"))
    );
    assert!(result.get("editCheckpoint").is_none(), "{result}");
    assert!(h.checkpoints().is_empty(), "the preparation was undone");
    assert_eq!(h.editor().doc, DOC);

    // The text read back is neither before nor after: the record stays
    // prepared for Revert to reconcile.
    let mut h = harness();
    h.editor().after_apply = Some(Box::new(|page: &mut TypstPage| page.doc.push_str("\nInjected.")));
    h.script(
        "run-2",
        vec![calls(&[("e2", "search_replace", rename_title())]), text("Renamed.")],
    );
    let run = h.start_in("run-2", "s1", "auto");
    assert!(run.is_done());
    let result = h.result("run-2", "e2");
    assert_eq!(result["code"], "EDIT_APPLY_UNVERIFIED", "{result}");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.contains("not counted as applied")),
        "{result}"
    );
    assert!(result.get("editCheckpoint").is_none());
    assert_eq!(h.checkpoints().len(), 1);
    assert_eq!(h.checkpoints()[0]["status"], "prepared");
    let reads = h.page_sent("PAGE_GET_CONTEXT");
    assert_eq!(
        reads.last().map(|r| r["payload"]["projection"].clone()),
        Some(json!("edit")),
        "the document is read back after the apply"
    );
}

#[test]
fn a_second_chat_cannot_draw_over_a_review_in_progress() {
    let mut h = harness();
    h.script(
        "run-a",
        vec![calls(&[("a1", "search_replace", rename_title())]), text("A.")],
    );
    h.script(
        "run-b",
        vec![
            calls(&[(
                "b1",
                "search_replace",
                json!({"search": "Method", "replace": "Approach"}),
            )]),
            text("B."),
        ],
    );
    let first = h.start_in("run-a", "chat-a", "ask");
    let second = h.start_in("run-b", "chat-b", "ask");
    assert_eq!(second.data()["ok"], true);
    let refused = h.result("run-b", "b1");
    assert_eq!(refused["code"], "EDIT_PREVIEW_BUSY");
    assert_eq!(
        h.editor().overlay,
        Some((page_owner_id("run-a"), page_call_id("run-a", "a1"))),
        "the other chat's cleanup leaves the open review alone"
    );
    h.resolve("run-a", "a1", "approve_once");
    assert_eq!(first.data()["ok"], true);
    assert_eq!(h.editor().doc, DOC.replacen("= Thesis", "= Dissertation", 1));
    assert_eq!(h.editor().overlay, None);
}

// ----- Auto approve -----

#[test]
fn auto_approve_applies_without_a_review() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[(
                "e1",
                "replace_lines",
                json!({"start_line": 5, "end_line": 5, "new_content": "More text."}),
            )]),
            text("Done."),
        ],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    assert!(h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").is_empty());
    assert!(h.page_sent("PAGE_SHOW_EDIT_PREVIEW").is_empty());
    assert_eq!(h.editor().doc, DOC.replace("Some text.", "More text."));
    let result = h.result("run-1", "e1");
    assert_eq!(result["reviewed_diff"], false);
    assert_eq!(result["editCheckpoint"]["status"], "applied");
    assert_eq!(h.page_sent("PAGE_APPLY_EDIT")[0]["payload"]["reviewedDiff"], false);
}

#[test]
fn a_page_that_names_no_file_gets_no_write_in_either_mode() {
    for mode in ["ask", "auto"] {
        let mut h = harness();
        h.editor().file = None;
        h.script(
            "run-1",
            vec![
                calls(&[(
                    "e1",
                    "replace_lines",
                    json!({"start_line": 5, "end_line": 5, "new_content": "More text."}),
                )]),
                text("Could not."),
            ],
        );
        let run = h.start_in("run-1", "s1", mode);
        assert_eq!(run.data()["ok"], true);
        let result = h.result("run-1", "e1");
        assert_eq!(result["code"], "EDIT_FILE_UNKNOWN", "{mode}: {result}");
        assert!(h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").is_empty(), "{mode}");
        assert!(h.page_sent("PAGE_SHOW_EDIT_PREVIEW").is_empty(), "{mode}");
        assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty(), "{mode}");
        assert!(
            h.checkpoints().is_empty(),
            "{mode}: no checkpoint for a write that never happened"
        );
        assert_eq!(h.editor().doc, DOC);
    }
}

#[test]
fn a_document_over_the_edit_limit_is_refused_at_once_without_a_banner() {
    let mut h = harness();
    h.editor().doc = format!("{}\n", "x".repeat(1_100_000));
    h.script(
        "run-1",
        vec![
            calls(&[("e1", "search_replace", json!({"search": "xx", "replace": "yy"}))]),
            text("Too large."),
        ],
    );
    let run = h.start_in("run-1", "s1", "ask");
    assert_eq!(run.data()["ok"], true);
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], false);
    assert_eq!(result["code"], "EDIT_PREVIEW_TOO_LARGE", "{result}");
    assert!(
        h.payloads("run-1", "AI_TOOL_PREFLIGHT_WAITING").is_empty(),
        "the right file is open: no banner"
    );
    assert!(h.page_sent("PAGE_SHOW_EDIT_PREVIEW").is_empty());
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
}

#[test]
fn a_change_that_changes_nothing_needs_no_review_and_no_write() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[("e1", "search_replace", json!({"search": "Method", "replace": "Method"}))]),
            text("Nothing to do."),
        ],
    );
    let run = h.start_in("run-1", "s1", "ask");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1"), json!({"ok": true, "no_changes": true}));
    assert!(h.payloads("run-1", "AI_TOOL_APPROVAL_REQUIRED").is_empty());
    assert!(h.page_sent("PAGE_SHOW_EDIT_PREVIEW").is_empty());
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty());
}

#[test]
fn a_checkpoint_that_cannot_be_staged_keeps_the_edit_off_the_page() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Could not.")],
    );
    h.platform().browser.storage.fail_writes("QUOTA_BYTES quota exceeded");
    let run = h.start_in("run-1", "s1", "auto");
    assert!(run.is_done());
    let result = h.result("run-1", "e1");
    assert_eq!(result["ok"], false);
    assert_eq!(result["code"], "STORAGE_QUOTA_EXCEEDED");
    assert!(
        result["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("The change was not applied because a safe revert point")),
        "{result}"
    );
    assert!(h.page_sent("PAGE_APPLY_EDIT").is_empty(), "nothing was sent");
    assert_eq!(h.editor().doc, DOC);
}

#[test]
fn writes_of_one_run_share_one_checkpoint_and_stay_on_its_file() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[
                ("e1", "search_replace", rename_title()),
                (
                    "e2",
                    "search_replace",
                    json!({"search": "Some text.", "replace": "Other text."}),
                ),
            ]),
            calls(&[(
                "e3",
                "search_replace",
                json!({"search": "@knuth", "replace": "@lamport"}),
            )]),
            text("Three edits."),
        ],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    let ids: Vec<Value> = ["e1", "e2", "e3"]
        .iter()
        .map(|id| h.result("run-1", id)["editCheckpoint"]["id"].clone())
        .collect();
    assert!(ids.iter().all(|id| *id == ids[0] && id.is_string()), "{ids:?}");
    let entries = h.checkpoints();
    assert_eq!(entries.len(), 1);
    let body = h.stored(&format!(
        "{}{}",
        storage_keys::EDIT_CHECKPOINT_BODY_PREFIX,
        ids[0].as_str().unwrap_or_default()
    ));
    assert_eq!(body["beforeText"], DOC, "the copy from before the first write");
    assert_eq!(
        entries[0]["afterHash"],
        protocol::edit_checkpoint::sha256_text(&h.editor().doc),
        "the final state is the document now"
    );

    // The next run of the chat gets its own checkpoint.
    h.script(
        "run-2",
        vec![
            calls(&[(
                "f1",
                "search_replace",
                json!({"search": "@lamport", "replace": "@dijkstra"}),
            )]),
            calls(&[(
                "f2",
                "search_replace",
                json!({"search": "Method", "replace": "Approach"}),
            )]),
            text("Tried."),
        ],
    );
    let second = h.start_in("run-2", "s1", "auto");
    assert_eq!(second.data()["ok"], true);
    assert_eq!(h.result("run-2", "f1")["ok"], true);
    assert_eq!(h.checkpoints().len(), 2);
    assert_ne!(h.result("run-2", "f1")["editCheckpoint"]["id"], ids[0]);
    assert_eq!(
        h.result("run-2", "f2")["editCheckpoint"]["id"],
        h.result("run-2", "f1")["editCheckpoint"]["id"]
    );
}

#[test]
fn a_run_that_meets_another_editor_instance_refuses_to_write() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![
            calls(&[("e1", "search_replace", rename_title())]),
            calls(&[(
                "e2",
                "search_replace",
                json!({"search": "Method", "replace": "Approach"}),
            )]),
            text("Tried."),
        ],
    );
    // The user reopens the file between the two rounds: a new editor view.
    let network_scripts = h.scripts.clone();
    let worker = h.worker.clone();
    let calls_seen = Rc::new(Cell::new(0));
    let seen = calls_seen.clone();
    h.platform().network.set_responder(move |request| {
        seen.set(seen.get() + 1);
        if seen.get() == 2 {
            worker.platform.pages.page.borrow_mut().token = "editor-2".into();
        }
        next_reply(&network_scripts, request)
    });
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    assert_eq!(h.result("run-1", "e1")["ok"], true);
    assert_eq!(h.result("run-1", "e2")["code"], "EDIT_CHECKPOINT_CONFLICT");
    assert!(
        h.editor().doc.contains("== Method"),
        "the second write never reached the page"
    );
}

// ----- automatic snapshots -----

#[test]
fn a_complete_run_leaves_one_automatic_snapshot_of_the_document() {
    let mut h = harness();
    h.script(
        "run-1",
        vec![calls(&[("e1", "search_replace", rename_title())]), text("Renamed.")],
    );
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    let done = h.payloads("run-1", "AI_STREAM_DONE");
    assert_eq!(done.len(), 1);
    let snapshot = &done[0]["snapshot"];
    assert_eq!(snapshot["kind"], "automatic");
    assert_eq!(snapshot["fileLabel"], "main.typ");
    let entries = h.snapshots();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["sessionId"], "s1");
    let body = h.stored(&format!(
        "{}{}",
        storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX,
        entries[0]["id"].as_str().unwrap_or_default()
    ));
    assert_eq!(body["text"], h.editor().doc.as_str(), "the document after the run");

    // The next complete run of the chat replaces it.
    h.script("run-2", vec![text("Just talking.")]);
    h.editor().doc.push_str("\nTyped later.");
    let second = h.start_in("run-2", "s1", "auto");
    assert_eq!(second.data()["ok"], true);
    let entries = h.snapshots();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["runId"], "run-2");
}

#[test]
fn failed_and_stopped_runs_get_no_snapshot_and_drop_a_diverged_one() {
    let mut h = harness();
    h.script("run-1", vec![text("First answer.")]);
    assert_eq!(h.start_in("run-1", "s1", "auto").data()["ok"], true);
    assert_eq!(h.snapshots().len(), 1);

    // A failing run: the model endpoint has no reply. The document did not
    // change, so the snapshot stays.
    let failed = h.start_in("run-2", "s1", "auto");
    assert_eq!(failed.data()["ok"], false);
    assert!(h.payloads("run-2", "AI_STREAM_DONE").is_empty());
    assert_eq!(h.snapshots().len(), 1);
    assert_eq!(h.snapshots()[0]["runId"], "run-1");

    // The user types while the model is asked, and the model fails: the
    // end of the failed run finds the snapshot stale and removes it.
    let worker = h.worker.clone();
    h.platform().network.set_responder(move |_| {
        worker
            .platform
            .pages
            .page
            .borrow_mut()
            .doc
            .push_str("\nTyped during the run.");
        Err(NetworkError::Failed("offline".into()))
    });
    let typed = h.start_in("run-typed", "s1", "auto");
    assert_eq!(typed.data()["ok"], false);
    assert!(h.snapshots().is_empty(), "the failed run dropped the stale snapshot");
    let scripts = h.scripts.clone();
    h.platform()
        .network
        .set_responder(move |request| next_reply(&scripts, request));
    h.script("run-again", vec![text("Again.")]);
    assert_eq!(h.start_in("run-again", "s1", "auto").data()["ok"], true);
    assert_eq!(h.snapshots().len(), 1);

    // A run that edits and is then stopped: the snapshot no longer matches
    // the document and is removed; the stopped run leaves none.
    h.script("run-3", vec![calls(&[("e1", "search_replace", rename_title())])]);
    h.editor().doc.push_str("\nThe user typed this.");
    let stopped = h.start_in("run-3", "s1", "ask");
    assert!(h.snapshots().is_empty(), "the run start saw the divergence");
    h.send("AI_STREAM_CANCEL", Some("run-3"), json!({}));
    assert_eq!(stopped.data()["cancelled"], true);
    assert!(h.snapshots().is_empty());
}

#[test]
fn a_snapshot_that_cannot_be_saved_becomes_a_warning() {
    let mut h = harness();
    h.editor().doc = "x".repeat(10);
    h.platform().browser.storage.put(
        storage_keys::DOCUMENT_SNAPSHOT_INDEX,
        json!({"version": 1, "entries": "broken"}),
    );
    h.script("run-1", vec![text("Answer.")]);
    let run = h.start_in("run-1", "s1", "auto");
    assert_eq!(run.data()["ok"], true);
    let done = h.payloads("run-1", "AI_STREAM_DONE");
    let warning = done[0]["snapshotWarning"].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("The response completed, but its document snapshot was not saved: "),
        "{warning}"
    );
    assert!(js::utf16_len(warning) <= 500);
    assert!(done[0].get("snapshot").is_none());
}
