//! Requests from the worker to a typst.app tab, and the three panel routes
//! that forward to one (`GET_EDITOR_CONTEXT`, `GET_PREVIEW`,
//! `GET_DIAGNOSTICS`).
//!
//! Every page request gets a fresh `page-<uuid>` id and travels through
//! [`Pages::send`] to the tab's isolated-world script, which relays it to the
//! main world. The wait races with the caller's [`Cancellation`]: Stop ends it
//! at once and tells the page to drop the request (`PAGE_CANCEL_REQUEST`), so
//! no page work outlives its run. Answers are checked by `content-bridge`
//! before anything here returns them; a page cannot hand the worker data of
//! the wrong shape, size or consistency.

use crate::cancel::Cancellation;
use crate::envelope::RequestError;
use crate::platform::{Clock, Pages, Platform, Tabs};
use crate::tabs::is_typst_app_url;
use content_bridge::context::PageContext;
use content_bridge::diagnostics::PageDiagnostics;
use content_bridge::edits::{self, EditApplied, EditError, PreviewOutcome};
use content_bridge::preview::PagePreview;
use content_bridge::probe::{PageProbe, parse_probe};
use content_bridge::request::CANCELLED;
use content_bridge::{PageError, page_request, unwrap_page_response};
use protocol::error::response_codes::REQUEST_FAILED;
use protocol::payloads::{ContextRequest, PageApplyEdit, PageShowEditPreview};
use protocol::{MessageType, Payload};
use serde::Serialize;
use serde_json::{Map, Value};
use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;

/// How long a Stop waits for the page to take its `PAGE_CANCEL_REQUEST`
/// before giving up on it (the isolated script answers at once; a tab that
/// closed fails at once; this only bounds a page that hangs).
pub(crate) const CANCEL_NOTICE_GRACE_MS: u32 = 1_000;

fn cancelled() -> PageError {
    PageError::new(CANCELLED, "The page request was cancelled.")
}

fn fresh_id(clock: &impl Clock) -> String {
    format!("page-{}", clock.uuid())
}

fn tab_key(tab_id: u64) -> Result<i64, PageError> {
    i64::try_from(tab_id).map_err(|_| PageError::new("INVALID_TAB_ID", "tabId must be a non-negative integer."))
}

/// Resolves when either future does (the other is dropped).
async fn either(first: impl Future, second: impl Future) {
    let mut first = pin!(first);
    let mut second = pin!(second);
    poll_fn(|cx| {
        if first.as_mut().poll(cx).is_ready() || second.as_mut().poll(cx).is_ready() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
}

/// Sends one page request to `tab_id` and returns the page's `data`.
///
/// `run_id` ties the request to a run (the page echoes it). When `cancel`
/// fires first, the page is told to drop the request — with the same run id,
/// or a synthetic one for requests outside a run, because the cancel message
/// is run-scoped — and the result is a `CANCELLED` error. A browser that
/// cannot deliver the message yields `REQUEST_FAILED` with its reason.
pub(crate) async fn send_page_request<P: Platform>(
    platform: &P,
    tab_id: u64,
    message_type: MessageType,
    payload: Map<String, Value>,
    run_id: Option<&str>,
    cancel: &Cancellation,
) -> Result<Value, PageError> {
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    let tab = tab_key(tab_id)?;
    let request_id = fresh_id(platform.clock());
    let envelope = page_request(message_type, &request_id, run_id, payload)?;
    match cancel.race(platform.pages().send(tab, envelope)).await {
        Ok(Ok(answer)) => unwrap_page_response(&request_id, answer.as_ref()),
        Ok(Err(failure)) => Err(PageError::new(REQUEST_FAILED, failure.0)),
        Err(_) => {
            notify_cancel(platform, tab, &request_id, run_id).await;
            Err(cancelled())
        }
    }
}

/// Best effort: a page that cannot be told simply times the request out.
async fn notify_cancel<P: Platform>(platform: &P, tab: i64, target: &str, run_id: Option<&str>) {
    let run_id = run_id.map_or_else(|| fresh_id(platform.clock()), str::to_owned);
    let mut payload = Map::new();
    payload.insert("targetRequestId".into(), Value::from(target));
    let Ok(envelope) = page_request(
        MessageType::PageCancelRequest,
        &fresh_id(platform.clock()),
        Some(&run_id),
        payload,
    ) else {
        return;
    };
    either(
        platform.pages().send(tab, envelope),
        platform.clock().sleep(CANCEL_NOTICE_GRACE_MS),
    )
    .await;
}

/// The wire payload of a typed request (absent options stay absent).
fn payload_of(value: &impl Serialize) -> Map<String, Value> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// `PAGE_GET_CONTEXT` (the request's `tabId`, if any, is not sent to the page).
pub(crate) async fn read_context<P: Platform>(
    platform: &P,
    tab_id: u64,
    request: &ContextRequest,
    run_id: Option<&str>,
    cancel: &Cancellation,
) -> Result<PageContext, PageError> {
    let page_form = ContextRequest {
        tab_id: None,
        ..*request
    };
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageGetContext,
        payload_of(&page_form),
        run_id,
        cancel,
    )
    .await?;
    PageContext::parse(&page_form, &data)
}

/// `PAGE_GET_DIAGNOSTICS`: one read of the lint underlines and Improve panel.
pub(crate) async fn read_diagnostics<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: Option<&str>,
    cancel: &Cancellation,
) -> Result<PageDiagnostics, PageError> {
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageGetDiagnostics,
        Map::new(),
        run_id,
        cancel,
    )
    .await?;
    PageDiagnostics::parse(&data)
}

/// `PAGE_GET_PROBE`: the page's capabilities for tool preflights.
pub(crate) async fn probe<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: Option<&str>,
    cancel: &Cancellation,
) -> Result<PageProbe, PageError> {
    let data = send_page_request(platform, tab_id, MessageType::PageGetProbe, Map::new(), run_id, cancel).await?;
    parse_probe(&data)
}

// ----- guarded editor writes -----

/// `PAGE_SHOW_EDIT_PREVIEW`: draws the proposal over the editor of `tab_id`,
/// bound to `run_id` and the request's call id. The request is checked
/// before it is sent (a bad change set is refused here with
/// `INVALID_PREPARED_EDIT` and reaches no page). The page refuses a stale
/// editor (`STALE_EDIT_PREVIEW` with its reason), a missing editor and a
/// preview owned by another call ([`EditError::Refused`]); an overlay that
/// could not be drawn is [`PreviewOutcome::Unavailable`], not an error.
pub(crate) async fn show_edit_preview<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: &str,
    request: &PageShowEditPreview,
    cancel: &Cancellation,
) -> Result<PreviewOutcome, EditError> {
    edits::check_run_id(run_id)?;
    let payload = edits::show_payload(request)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageShowEditPreview,
        payload,
        Some(run_id),
        cancel,
    )
    .await?;
    edits::parse_show_answer(request, &data)
}

/// `PAGE_APPLY_EDIT`: the page compares file label, editor token and the
/// exact text, then applies every change in one CodeMirror transaction and
/// removes this call's preview. A refusal changed nothing. A `CANCELLED`
/// result ([`EditError::is_cancelled`]) means the outcome is unknown: the
/// page may have applied the edit before the Stop reached it, so the caller
/// reads the document again before deciding.
pub(crate) async fn apply_edit<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: &str,
    request: &PageApplyEdit,
    cancel: &Cancellation,
) -> Result<EditApplied, EditError> {
    edits::check_run_id(run_id)?;
    let payload = edits::apply_payload(request)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageApplyEdit,
        payload,
        Some(run_id),
        cancel,
    )
    .await?;
    edits::parse_apply_answer(request, &data)
}

/// `PAGE_CLEAR_EDIT_PREVIEW`: removes the preview of `run_id`/`call_id`
/// (a preview of another call stays). It takes no cancellation on purpose:
/// clearing is the cleanup after Reject, Stop, timeouts and failures, so it
/// must still be sent when the run's cancellation has fired; the page's own
/// timeout bounds the wait. `Ok(false)`: there was nothing of that call.
pub(crate) async fn clear_edit_preview<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: &str,
    call_id: &str,
) -> Result<bool, EditError> {
    edits::check_run_id(run_id)?;
    let payload = edits::clear_payload(call_id)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageClearEditPreview,
        payload,
        Some(run_id),
        &Cancellation::new(),
    )
    .await?;
    Ok(edits::parse_clear_answer(&data)?)
}

// ----- which tab a panel request is for -----

/// The tab a panel request targets: the given `tab_id`, which must show a
/// typst.app page (`NOT_TYPST_TAB`), or else the active tab of the focused
/// window, which must too (`NO_TYPST_TAB`).
pub(crate) async fn resolve_typst_tab(tabs: &impl Tabs, tab_id: Option<u64>) -> Result<u64, PageError> {
    let Some(tab_id) = tab_id else {
        let active = tabs
            .active()
            .await
            .map_err(|failure| PageError::new(REQUEST_FAILED, failure.0))?;
        return active
            .filter(|tab| is_typst_app_url(&tab.url))
            .and_then(|tab| tab.id)
            .and_then(|id| u64::try_from(id).ok())
            .ok_or_else(|| PageError::new("NO_TYPST_TAB", "No active typst.app tab."));
    };
    let tab = tabs
        .get(tab_key(tab_id)?)
        .await
        .map_err(|failure| PageError::new(REQUEST_FAILED, failure.0))?;
    if !is_typst_app_url(&tab.url) {
        return Err(PageError::new(
            "NOT_TYPST_TAB",
            "The selected tab is not a typst.app page.",
        ));
    }
    Ok(tab_id)
}

// ----- the panel routes -----

/// Codes a page error may carry into a panel answer. The page is untrusted,
/// so an unknown code becomes `PAGE_REQUEST_FAILED` (the message is kept).
const PAGE_ERROR_CODES: &[&str] = &[
    "CANCELLED",
    "DUPLICATE_REQUEST_ID",
    "INVALID_PAGE_REQUEST",
    "INVALID_PAGE_RESPONSE",
    "INVALID_REQUEST_ID",
    "INVALID_TAB_ID",
    "NOT_A_PAGE_REQUEST",
    "NOT_TYPST_TAB",
    "NO_TYPST_TAB",
    "PAGE_PENDING_LIMIT",
    "PAGE_REQUEST_FAILED",
    "PAGE_REQUEST_TIMEOUT",
    "PAGE_UNLOADED",
    "REQUEST_FAILED",
    "UNSUPPORTED_PAGE_REQUEST",
];

fn request_error(error: PageError) -> RequestError {
    let code = PAGE_ERROR_CODES
        .iter()
        .find(|known| **known == error.code)
        .copied()
        .unwrap_or("PAGE_REQUEST_FAILED");
    RequestError::new(code, error.message)
}

/// Serves `GET_EDITOR_CONTEXT`, `GET_PREVIEW` and `GET_DIAGNOSTICS`: checks
/// the payload, picks the tab, forwards the page request and returns the
/// page's checked answer unchanged.
pub(crate) async fn route<P: Platform>(platform: &P, payload: &Payload) -> Result<Value, RequestError> {
    // Panel reads are not part of a run; nothing cancels them but the page's
    // own timeout.
    let never = Cancellation::new();
    let (tab_id, page_type, page_payload) = match payload {
        Payload::GetEditorContext(context) => (
            context.tab_id,
            MessageType::PageGetContext,
            payload_of(&ContextRequest {
                tab_id: None,
                ..*context
            }),
        ),
        Payload::GetPreview(preview) => (preview.tab_id, MessageType::PageGetPreview, payload_of(preview)),
        Payload::GetDiagnostics(diagnostics) => (diagnostics.tab_id, MessageType::PageGetDiagnostics, Map::new()),
        other => return Err(RequestError::unrouted(other.message_type())),
    };
    let tab = resolve_typst_tab(platform.tabs(), tab_id)
        .await
        .map_err(request_error)?;
    let data = send_page_request(platform, tab, page_type, page_payload, None, &never)
        .await
        .map_err(request_error)?;
    let checked = match payload {
        Payload::GetEditorContext(context) => PageContext::parse(
            &ContextRequest {
                tab_id: None,
                ..*context
            },
            &data,
        )
        .map(drop),
        Payload::GetPreview(_) => PagePreview::parse(&data).map(drop),
        _ => PageDiagnostics::parse(&data).map(drop),
    };
    checked.map_err(request_error)?;
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope;
    use crate::fakes::{FakeBrowser, FakePlatform, block_on};
    use crate::platform::PlatformError;
    use futures::FutureExt;
    use protocol::payloads::ContextProjection;
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
        };
        let read = block_on(read_context(
            &platform,
            7,
            &request,
            Some("run-1"),
            &Cancellation::new(),
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
        assert_eq!(envelope["runId"], "run-1");
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
        async fn send(&self, _tab_id: i64, message: Value) -> Result<Option<Value>, PlatformError> {
            self.sent.borrow_mut().push(message.clone());
            if message["type"] == "PAGE_CANCEL_REQUEST" {
                return Ok(Some(
                    json!({"type": "PROTOCOL_RESPONSE", "requestId": message["requestId"],
                    "payload": {"ok": true, "data": {"cancelled": true}}}),
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
                Some(run) => assert_eq!(sent[1]["runId"], run),
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
            expected_text: "old".to_owned(),
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
            expected_text: show.expected_text,
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
        assert!(sent.iter().all(|(tab, e)| *tab == 7 && e["runId"] == "run-1"));
        assert_eq!(sent[0].1["payload"]["callId"], "call-1");
        assert_eq!(sent[0].1["payload"]["preview"]["kind"], "unified-diff");
        assert_eq!(sent[1].1["payload"]["reviewedDiff"], true);
        assert_eq!(
            sent[1].1["payload"]["changes"],
            json!([{"from": 0, "to": 3, "insert": "new"}])
        );
        assert_eq!(sent[2].1["payload"], json!({"callId": "call-1"}));
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
        assert_eq!(error.as_ref().map(EditError::code), Some("STALE_EDIT_PREVIEW"));
        assert_eq!(
            error.and_then(|e| e.stale_reason()),
            Some(content_bridge::edits::StaleReason::Document)
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
        let code = |result: Result<EditApplied, EditError>| result.map_err(|e| e.code().to_owned());
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
        assert!(show.as_ref().is_err_and(EditError::is_cancelled), "{show:?}");
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
        let request = envelope::check(&message).map_err(|e| (e.code.to_owned(), e.message.clone()))?;
        block_on(route(platform, &request.payload)).map_err(|e| (e.code.to_owned(), e.message))
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
}
