//! Page requests against scripted pages: ids, cancellation and the
//! `PAGE_CANCEL_REQUEST` notice, typed reads, the guarded edit requests, tab
//! resolution and the three panel routes.

use super::*;
use crate::envelope;
use crate::fakes::{FakeBrowser, FakePlatform, block_on};
use crate::platform::PlatformError;
use futures::FutureExt;
use protocol::payloads::{ContextProjection, ExpectedDocument};
use serde_json::json;
use std::cell::RefCell;

const TYPST_URL: &str = "https://typst.app/project/p1";

fn platform_with(tabs: &[(i64, &str)], active: i64) -> FakePlatform {
    let platform = FakePlatform {
        browser: FakeBrowser::with_tabs(tabs),
        ..FakePlatform::default()
    };
    platform.browser.activate(active);
    platform
}

fn ok_answer(request: &Value, data: Value) -> Option<Value> {
    Some(
        json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"], "nonce": "n",
        "payload": {"ok": true, "data": data}}),
    )
}

fn numbered_answer() -> Value {
    json!({"cursorPos": 0, "cursorLine": 1, "cursorColumn": 1, "selectedText": "", "selectionTruncated": false,
        "selectionFrom": 0, "selectionTo": 0, "docLength": 20, "lineCount": 2, "editorToken": "t",
        "numberedDocument": "1|= Title\n2|Body text here", "startLine": 1, "endLine": 2, "truncated": false,
        "workspace": {"active_editor_file": {"relativePath": "main.typ", "source": "header_breadcrumb"}}})
}

#[test]
fn read_context_sends_a_fresh_page_request_and_checks_the_answer() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    platform
        .pages
        .set_responder(|_, request| Ok(ok_answer(request, numbered_answer())));
    let request = ContextRequest {
        tab_id: Some(99),
        projection: Some(ContextProjection::Numbered),
        start_line: Some(1),
        end_line: None,
        max_chars: Some(4_000),
        known_document_token: None,
    };
    let read = block_on(read_context(
        &platform,
        7,
        &request,
        Some("run-1"),
        &Cancellation::new(),
        None,
    ));
    let context = read.expect("a valid numbered answer");
    assert_eq!(context.numbered().map(|r| r.end_line), Some(2));
    assert_eq!(
        context.active_file().map(|f| f.relative_path.as_str()),
        Some("main.typ")
    );
    let sent = platform.pages.sent();
    assert_eq!(sent.len(), 1);
    let (tab, envelope) = &sent[0];
    assert_eq!(*tab, 7);
    assert_eq!(envelope["type"], "PAGE_GET_CONTEXT");
    assert_eq!(envelope["runId"], page_owner_id("run-1"), "the page sees no run id");
    assert_eq!(
        envelope["payload"],
        json!({"projection": "numbered", "startLine": 1, "maxChars": 4000})
    );
    let id = envelope["requestId"].as_str().unwrap_or_default();
    assert!(id.starts_with("page-") && id.len() > "page-".len(), "{id}");
}

#[test]
fn page_failures_keep_their_codes_and_bad_answers_are_refused() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    platform.pages.set_responder(|_, request| {
        Ok(Some(
            json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"],
            "payload": {"ok": false, "error": {"code": "PAGE_REQUEST_TIMEOUT", "message": "late"}}}),
        ))
    });
    let never = Cancellation::new();
    let timeout = block_on(read_diagnostics(&platform, 7, None, &never)).map_err(|e| e.code);
    assert_eq!(timeout, Err("PAGE_REQUEST_TIMEOUT".to_owned()));

    platform
        .pages
        .set_responder(|_, request| Ok(ok_answer(request, json!({"diagnostics": [{"message": "m", "x": 1}]}))));
    let invalid = block_on(read_diagnostics(&platform, 7, None, &never)).map_err(|e| e.code);
    assert_eq!(invalid, Err("INVALID_PAGE_RESPONSE".to_owned()));

    platform
        .pages
        .set_responder(|_, _| Err(PlatformError("Receiving end does not exist.".into())));
    let unreachable = block_on(probe(&platform, 7, None, &never));
    assert_eq!(
        unreachable,
        Err(PageError::new("REQUEST_FAILED", "Receiving end does not exist."))
    );

    platform.pages.set_responder(|_, request| {
        Ok(ok_answer(
            request,
            json!({"editor": true, "selection": false, "typstCanvas": true, "previewImage": false, "improvePanel": true}),
        ))
    });
    let caps = block_on(probe(&platform, 7, None, &never)).map(|p| (p.editor, p.improve_panel));
    assert_eq!(caps, Ok((true, true)));
}

#[test]
fn a_cancelled_run_sends_nothing() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    let cancel = Cancellation::new();
    cancel.cancel();
    let result = block_on(probe(&platform, 7, Some("run-1"), &cancel)).map_err(|e| e.code);
    assert_eq!(result, Err("CANCELLED".to_owned()));
    assert!(platform.pages.sent().is_empty());
}

/// A page that never answers requests but takes cancel messages.
#[derive(Default)]
struct SilentPages {
    sent: RefCell<Vec<Value>>,
}

impl Pages for SilentPages {
    async fn send(&self, _tab_id: i64, message: Value, _max_bytes: usize) -> Result<Option<String>, PlatformError> {
        self.sent.borrow_mut().push(message.clone());
        if message["type"] == "PAGE_CANCEL_REQUEST" {
            return Ok(Some(
                json!({"type": "PROTOCOL_RESPONSE", "requestId": message["requestId"],
                "payload": {"ok": true, "data": {"cancelled": true}}})
                .to_string(),
            ));
        }
        std::future::pending().await
    }
}

#[test]
fn stop_ends_the_wait_and_tells_the_page_to_drop_the_request() {
    for run_id in [Some("run-9"), None] {
        let platform = FakePlatform::<SilentPages>::default();
        let cancel = Cancellation::new();
        let mut read = Box::pin(read_diagnostics(&platform, 3, run_id, &cancel));
        assert!(read.as_mut().now_or_never().is_none(), "the page has not answered");
        cancel.cancel();
        let result = block_on(read).map_err(|e| e.code);
        assert_eq!(result, Err("CANCELLED".to_owned()));
        let sent = platform.pages.sent.borrow().clone();
        assert_eq!(sent.len(), 2);
        assert_eq!(sent[1]["type"], "PAGE_CANCEL_REQUEST");
        assert_eq!(sent[1]["payload"], json!({"targetRequestId": sent[0]["requestId"]}));
        assert_ne!(sent[1]["requestId"], sent[0]["requestId"]);
        match run_id {
            Some(run) => {
                assert_eq!(sent[0]["runId"], page_owner_id(run));
                assert_eq!(sent[1]["runId"], page_owner_id(run));
            }
            None => assert!(sent[1]["runId"].as_str().is_some_and(|id| id.starts_with("page-"))),
        }
    }
}

fn prepared_show() -> PageShowEditPreview {
    let preview = protocol::diff_preview::DiffPreview::parse(&json!({
        "kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
        "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "rows": [
            {"kind": "delete", "oldLine": 1, "newLine": null, "text": "old"},
            {"kind": "insert", "oldLine": null, "newLine": 1, "text": "new"}]}]
    }));
    PageShowEditPreview {
        expected: ExpectedDocument::Text { text: "old".to_owned() },
        expected_editor_token: "token-1".to_owned(),
        expected_file_label: "main.typ".to_owned(),
        changes: vec![protocol::edit_checkpoint::TextChange {
            from: 0,
            to: 3,
            insert: "new".to_owned(),
        }],
        call_id: "call-1".to_owned(),
        preview: preview.expect("a valid diff"),
    }
}

fn prepared_apply(reviewed_diff: bool) -> PageApplyEdit {
    let show = prepared_show();
    PageApplyEdit {
        expected_text: "old".to_owned(),
        expected_editor_token: show.expected_editor_token,
        expected_file_label: show.expected_file_label,
        changes: show.changes,
        call_id: show.call_id,
        reviewed_diff,
    }
}

#[test]
fn edit_requests_carry_the_run_and_call_and_read_typed_answers() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    platform.pages.set_responder(|_, request| {
        let result = match request["type"].as_str() {
            Some("PAGE_SHOW_EDIT_PREVIEW") => json!({"ok": true, "shown": true,
                "presentation": "editor-diff-surface", "changes_previewed": 1, "additions_rendered": 1,
                "deletions_rendered": 1, "truncated": false}),
            Some("PAGE_APPLY_EDIT") => json!({"ok": true, "edits_applied": 1, "reviewed_diff": true}),
            _ => json!({"ok": true, "cleared": true}),
        };
        Ok(ok_answer(request, json!({ "result": result })))
    });
    let never = Cancellation::new();
    let shown = block_on(show_edit_preview(&platform, 7, "run-1", &prepared_show(), &never));
    assert_eq!(shown.map(|outcome| outcome.shown()), Ok(true));
    let applied = block_on(apply_edit(&platform, 7, "run-1", &prepared_apply(true), &never));
    assert_eq!(
        applied,
        Ok(EditApplied {
            edits_applied: 1,
            reviewed_diff: true
        })
    );
    assert_eq!(block_on(clear_edit_preview(&platform, 7, "run-1", "call-1")), Ok(true));
    let sent = platform.pages.sent();
    let types: Vec<&str> = sent.iter().filter_map(|(_, e)| e["type"].as_str()).collect();
    assert_eq!(
        types,
        ["PAGE_SHOW_EDIT_PREVIEW", "PAGE_APPLY_EDIT", "PAGE_CLEAR_EDIT_PREVIEW"]
    );
    let (owner, call) = (page_owner_id("run-1"), page_call_id("run-1", "call-1"));
    assert!(sent.iter().all(|(tab, e)| *tab == 7 && e["runId"] == owner.as_str()));
    assert!(sent.iter().all(|(_, e)| e["payload"]["callId"] == call.as_str()));
    assert!(
        !sent
            .iter()
            .any(|(_, e)| e.to_string().contains("run-1") || e.to_string().contains("call-1"))
    );
    assert_eq!(sent[0].1["payload"]["preview"]["kind"], "unified-diff");
    assert_eq!(sent[1].1["payload"]["reviewedDiff"], true);
    assert_eq!(
        sent[1].1["payload"]["changes"],
        json!([{"from": 0, "to": 3, "insert": "new"}])
    );
    assert_eq!(sent[2].1["payload"], json!({ "callId": call }));
}

#[test]
fn a_stale_editor_is_a_refusal_with_its_reason() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    platform.pages.set_responder(|_, request| {
        Ok(ok_answer(
            request,
            json!({"result": {"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": "document",
                "error": "The document was modified."}}),
        ))
    });
    let refused = block_on(apply_edit(
        &platform,
        7,
        "run-1",
        &prepared_apply(false),
        &Cancellation::new(),
    ));
    let error = refused.err();
    assert_eq!(error.as_ref().map(PageEditError::code), Some("STALE_EDIT_PREVIEW"));
    assert_eq!(
        error.and_then(|e| e.stale_reason()),
        Some(content_bridge::edit_requests::StaleReason::Document)
    );
}

#[test]
fn bad_edit_requests_reach_no_page() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    let never = Cancellation::new();
    let mut overlapping = prepared_apply(true);
    overlapping.changes.push(protocol::edit_checkpoint::TextChange {
        from: 1,
        to: 2,
        insert: String::new(),
    });
    let code = |result: Result<EditApplied, PageEditError>| result.map_err(|e| e.code().to_owned());
    assert_eq!(
        code(block_on(apply_edit(&platform, 7, "run-1", &overlapping, &never))),
        Err("INVALID_PREPARED_EDIT".to_owned())
    );
    assert_eq!(
        code(block_on(apply_edit(&platform, 7, " ", &prepared_apply(true), &never))),
        Err("INVALID_RUN_ID".to_owned())
    );
    let clear = block_on(clear_edit_preview(&platform, 7, "run-1", "")).map_err(|e| e.code().to_owned());
    assert_eq!(clear, Err("INVALID_CALL_ID".to_owned()));
    assert!(platform.pages.sent().is_empty());
}

#[test]
fn clearing_is_sent_even_after_the_run_was_stopped() {
    let platform = platform_with(&[(7, TYPST_URL)], 7);
    platform
        .pages
        .set_responder(|_, request| Ok(ok_answer(request, json!({"result": {"ok": true, "cleared": false}}))));
    let stopped = Cancellation::new();
    stopped.cancel();
    let show = block_on(show_edit_preview(&platform, 7, "run-1", &prepared_show(), &stopped));
    assert!(show.as_ref().is_err_and(PageEditError::is_cancelled), "{show:?}");
    assert_eq!(block_on(clear_edit_preview(&platform, 7, "run-1", "call-1")), Ok(false));
    let sent = platform.pages.sent();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1["type"], "PAGE_CLEAR_EDIT_PREVIEW");
}

#[test]
fn tabs_are_resolved_like_the_original() {
    let platform = platform_with(&[(1, "https://example.com/"), (2, TYPST_URL)], 1);
    let tabs = platform.tabs();
    assert_eq!(block_on(resolve_typst_tab(tabs, Some(2))), Ok(2));
    let code = |result: Result<u64, PageError>| result.map_err(|e| e.code);
    assert_eq!(
        code(block_on(resolve_typst_tab(tabs, Some(1)))),
        Err("NOT_TYPST_TAB".to_owned())
    );
    assert_eq!(
        code(block_on(resolve_typst_tab(tabs, None))),
        Err("NO_TYPST_TAB".to_owned())
    );
    assert_eq!(
        code(block_on(resolve_typst_tab(tabs, Some(5)))),
        Err("REQUEST_FAILED".to_owned())
    );
    assert_eq!(
        code(block_on(resolve_typst_tab(tabs, Some(u64::MAX)))),
        Err("INVALID_TAB_ID".to_owned())
    );
    platform.browser.activate(2);
    assert_eq!(block_on(resolve_typst_tab(tabs, None)), Ok(2));
}

/// The answer of a panel read as the worker's door and route give it.
fn routed(platform: &FakePlatform, message: Value) -> Result<Value, (String, String)> {
    let request = envelope::check(&message).map_err(|e| (e.code.as_str().to_owned(), e.message.clone()))?;
    block_on(route(platform, &request.payload)).map_err(|e| (e.code.as_str().to_owned(), e.message))
}

#[test]
fn get_editor_context_forwards_without_tab_id_and_returns_the_checked_answer() {
    let platform = platform_with(&[(4, TYPST_URL)], 4);
    platform
        .pages
        .set_responder(|_, request| Ok(ok_answer(request, numbered_answer())));
    let data = routed(
        &platform,
        json!({"type": "GET_EDITOR_CONTEXT", "requestId": "r1",
            "payload": {"tabId": 4, "projection": "numbered", "maxChars": 4000}}),
    );
    assert_eq!(data, Ok(numbered_answer()));
    let sent = platform.pages.sent();
    assert_eq!(
        sent[0].1["payload"],
        json!({"projection": "numbered", "maxChars": 4000})
    );
    assert!(sent[0].1.get("runId").is_none());

    // A numbered answer that does not match the request is refused.
    let wrong = routed(
        &platform,
        json!({"type": "GET_EDITOR_CONTEXT", "requestId": "r2", "payload": {"projection": "numbered", "startLine": 2}}),
    );
    assert_eq!(wrong.map_err(|e| e.0), Err("INVALID_PAGE_RESPONSE".to_owned()));
}

#[test]
fn routes_check_payloads_and_tabs_first() {
    let platform = platform_with(&[(4, TYPST_URL), (5, "https://example.com/")], 5);
    let code = |message: Value| routed(&platform, message).map_err(|e| e.0);
    assert_eq!(
        code(json!({"type": "GET_EDITOR_CONTEXT", "requestId": "a", "payload": {"projection": "everything"}})),
        Err("INVALID_CONTEXT_PROJECTION".to_owned())
    );
    assert_eq!(
        code(json!({"type": "GET_DIAGNOSTICS", "requestId": "b", "payload": {"tabId": -1}})),
        Err("INVALID_TAB_ID".to_owned())
    );
    assert_eq!(
        code(json!({"type": "GET_PREVIEW", "requestId": "c", "payload": {"tabId": 5}})),
        Err("NOT_TYPST_TAB".to_owned())
    );
    assert_eq!(
        code(json!({"type": "GET_DIAGNOSTICS", "requestId": "d", "payload": {}})),
        Err("NO_TYPST_TAB".to_owned())
    );
    assert!(platform.pages.sent().is_empty(), "nothing reached a page");
}

#[test]
fn get_preview_and_diagnostics_forward_and_pass_page_codes_through_a_closed_set() {
    let platform = platform_with(&[(4, TYPST_URL)], 4);
    platform
        .pages
        .set_responder(|_, request| Ok(ok_answer(request, json!({"error": "No Typst render canvas found"}))));
    let preview = routed(
        &platform,
        json!({"type": "GET_PREVIEW", "requestId": "p", "payload": {"preferTypstCanvas": true}}),
    );
    assert_eq!(preview, Ok(json!({"error": "No Typst render canvas found"})));
    assert_eq!(
        platform.pages.sent()[0].1["payload"],
        json!({"preferTypstCanvas": true})
    );

    platform.pages.set_responder(|_, request| {
        Ok(Some(
            json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"],
            "payload": {"ok": false, "error": {"code": "MADE_UP_BY_PAGE", "message": "nope"}}}),
        ))
    });
    let failed = routed(
        &platform,
        json!({"type": "GET_DIAGNOSTICS", "requestId": "d", "payload": {}}),
    );
    assert_eq!(failed, Err(("PAGE_REQUEST_FAILED".to_owned(), "nope".to_owned())));
    platform.pages.set_responder(|_, request| {
        Ok(Some(
            json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"],
            "payload": {"ok": false, "error": {"code": "PAGE_UNLOADED", "message": "gone"}}}),
        ))
    });
    let unloaded = routed(
        &platform,
        json!({"type": "GET_DIAGNOSTICS", "requestId": "e", "payload": {}}),
    );
    assert_eq!(unloaded.map_err(|e| e.0), Err("PAGE_UNLOADED".to_owned()));
}

#[test]
fn opaque_page_ids_are_stable_per_run_and_call_and_name_neither() {
    let owner = page_owner_id("run-1");
    assert_eq!(owner, page_owner_id("run-1"));
    assert_ne!(owner, page_owner_id("run-2"));
    assert!(
        owner.starts_with("page-run-") && owner.len() == "page-run-".len() + 32,
        "{owner}"
    );
    let call = page_call_id("run-1", "call-1");
    assert_eq!(call, page_call_id("run-1", "call-1"));
    assert_ne!(
        call,
        page_call_id("run-2", "call-1"),
        "one call id in two runs stays apart"
    );
    assert_ne!(call, page_call_id("run-1", "call-2"));
    // Length prefixes keep the two parts apart.
    assert_ne!(page_call_id("run-1c", "all-1"), page_call_id("run-1", "call-1"));
    assert!(!call.contains("run-1") && !call.contains("call-1"));
}
