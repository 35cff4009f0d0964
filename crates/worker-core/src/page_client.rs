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
//!
//! The page never sees a run id or a tool-call id: scripts of the page can
//! read everything the bridge posts on `window`, and those ids name the run
//! to the worker's panel routes. What travels as `runId` is an opaque owner
//! id ([`page_owner_id`]) and as `callId` an opaque id of the call
//! ([`page_call_id`]): one-way digests, stable for one run and call, so the
//! page can still tell which run's preview it shows, and nothing it sees
//! can be replayed to the worker.

use crate::cancel::Cancellation;
use crate::envelope::RequestError;
use crate::platform::{Clock, Pages, Platform, Tabs};
use crate::race::first_of;
use content_bridge::context::{KnownDocument, PageContext};
use content_bridge::diagnostics::PageDiagnostics;
use content_bridge::edit_requests::{self, EditApplied, PageEditError, PreviewOutcome};
use content_bridge::preview::PagePreview;
use content_bridge::probe::{PageProbe, parse_probe};
use content_bridge::request::CANCELLED;
use content_bridge::{PageError, max_answer_bytes, page_request, parse_page_answer};
use protocol::ErrorCode;
use protocol::constants::is_typst_app_url;
use protocol::edit_checkpoint::sha256_text;
use protocol::payloads::{ContextProjection, ContextRequest, PageApplyEdit, PageShowEditPreview};
use protocol::{MessageType, Payload};
use serde::Serialize;
use serde_json::{Map, Value};
use std::cell::RefCell;

/// How long a Stop waits for the page to take its `PAGE_CANCEL_REQUEST`
/// before giving up on it (the isolated script answers at once; a tab that
/// closed fails at once; this only bounds a page that hangs).
const CANCEL_NOTICE_GRACE_MS: u32 = 1_000;

fn cancelled() -> PageError {
    PageError::new(CANCELLED, "The page request was cancelled.")
}

fn fresh_id(clock: &impl Clock) -> String {
    format!("page-{}", clock.uuid())
}

/// Hex digits of the digest an opaque page id keeps (128 bits).
const OPAQUE_ID_HEX: usize = 32;

/// A one-way digest of `parts` under `domain`, length-prefixed so no two
/// part lists share an input.
fn opaque(domain: &str, parts: &[&str]) -> String {
    let mut input = String::from(domain);
    for part in parts {
        input.push_str(&format!(":{}:{part}", part.len()));
    }
    let digest = sha256_text(&input);
    format!("{domain}-{}", digest.get(..OPAQUE_ID_HEX).unwrap_or(&digest))
}

/// What the page sees as the `runId` of `run_id`'s requests.
pub(crate) fn page_owner_id(run_id: &str) -> String {
    opaque("page-run", &[run_id])
}

/// What the page sees as the `callId` of `call_id` in `run_id`.
pub(crate) fn page_call_id(run_id: &str, call_id: &str) -> String {
    opaque("page-call", &[run_id, call_id])
}

/// The page form of `call_id`, after checking that the call id itself is
/// one the bridge takes (a digest would hide a blank or oversized one).
fn checked_page_call_id(run_id: &str, call_id: &str) -> Result<String, PageEditError> {
    edit_requests::clear_payload(call_id)?;
    Ok(page_call_id(run_id, call_id))
}

fn tab_key(tab_id: u64) -> Result<i64, PageError> {
    i64::try_from(tab_id).map_err(|_| {
        PageError::new(
            ErrorCode::InvalidTabId.as_str(),
            "tabId must be a non-negative integer.",
        )
    })
}

/// Sends one page request to `tab_id` and returns the page's `data`, read
/// by [`parse_page_answer`]: an answer over the type's byte cap or nested too
/// deep fails this request alone (`PAGE_ANSWER_TOO_LARGE`,
/// `PAGE_ANSWER_MALFORMED`), never the worker.
///
/// `run_id` ties the request to a run; the page sees only its opaque owner
/// id. When `cancel` fires first, the page is told to drop the request —
/// under the same owner id, or a fresh one for requests outside a run — and
/// the result is a `CANCELLED` error. A browser that
/// cannot deliver the message yields `REQUEST_FAILED` with its reason.
async fn send_page_request<P: Platform>(
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
    let owner = run_id.map(page_owner_id);
    let envelope = page_request(message_type, &request_id, owner.as_deref(), payload)?;
    let cap = max_answer_bytes(message_type);
    match cancel.race(platform.pages().send(tab, envelope, cap)).await {
        Ok(Ok(answer)) => parse_page_answer(message_type, &request_id, answer.as_deref()),
        Ok(Err(failure)) => Err(PageError::new(ErrorCode::RequestFailed.as_str(), failure.0)),
        Err(_) => {
            notify_cancel(platform, tab, &request_id, owner.as_deref()).await;
            Err(cancelled())
        }
    }
}

/// Best effort: a page that cannot be told simply times the request out.
async fn notify_cancel<P: Platform>(platform: &P, tab: i64, target: &str, owner: Option<&str>) {
    let owner = owner.map_or_else(|| fresh_id(platform.clock()), str::to_owned);
    let mut payload = Map::new();
    payload.insert("targetRequestId".into(), Value::from(target));
    let Ok(envelope) = page_request(
        MessageType::PageCancelRequest,
        &fresh_id(platform.clock()),
        Some(&owner),
        payload,
    ) else {
        return;
    };
    // Whichever ends first ends the wait; the loser is dropped.
    first_of(
        platform
            .pages()
            .send(tab, envelope, max_answer_bytes(MessageType::PageCancelRequest)),
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

/// The smallest context read that names the focused file and proves its
/// text is readable: one character of line 1, numbered. (The `identity`
/// projection names the file too, but says nothing about the editor.)
pub(crate) fn file_identity_request() -> ContextRequest {
    ContextRequest {
        tab_id: None,
        projection: Some(ContextProjection::Numbered),
        start_line: Some(1),
        end_line: Some(1),
        max_chars: Some(1),
        known_document_token: None,
    }
}

/// The `edit` snapshot: the whole text with the editor token, as an editor
/// write is resolved against and a document snapshot copies.
pub(crate) fn edit_snapshot_request() -> ContextRequest {
    ContextRequest {
        projection: Some(ContextProjection::Edit),
        ..ContextRequest::default()
    }
}

/// The document the last `edit` read in a tab returned (one per tab, shared
/// by its runs: `Runs::document_memory`). A run reads the whole document
/// when it starts, again for each editor write and once more when it ends;
/// while the editor holds the same document object, those reads name it and
/// the page leaves the text out ([`KnownDocument`]), so a large document
/// crosses the page bridge only after it changed.
#[derive(Debug, Default)]
pub(crate) struct DocumentMemory(RefCell<Option<KnownDocument>>);

/// `PAGE_GET_CONTEXT` (the request's `tabId`, if any, is not sent to the page).
/// With a `memory`, an `edit` read names the document it holds, and the
/// document read becomes the one it holds.
pub(crate) async fn read_context<P: Platform>(
    platform: &P,
    tab_id: u64,
    request: &ContextRequest,
    run_id: Option<&str>,
    cancel: &Cancellation,
    memory: Option<&DocumentMemory>,
) -> Result<PageContext, PageError> {
    let memory = memory.filter(|_| request.projection == Some(ContextProjection::Edit));
    let known = memory.and_then(|memory| memory.0.borrow().clone());
    let page_form = ContextRequest {
        tab_id: None,
        known_document_token: known.as_ref().map(|known| known.token().to_owned()),
        ..request.clone()
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
    let context = PageContext::parse_known(&page_form, &data, known.as_ref())?;
    if let Some(memory) = memory {
        let same = known.is_some_and(|known| {
            context.state().and_then(|state| state.document_token.as_deref()) == Some(known.token())
        });
        if !same {
            *memory.0.borrow_mut() = KnownDocument::of(&context);
        }
    }
    Ok(context)
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
/// preview owned by another call ([`PageEditError::Refused`]); an overlay that
/// could not be drawn is [`PreviewOutcome::Unavailable`], not an error.
pub(crate) async fn show_edit_preview<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: &str,
    request: &PageShowEditPreview,
    cancel: &Cancellation,
) -> Result<PreviewOutcome, PageEditError> {
    edit_requests::check_run_id(run_id)?;
    let page_form = PageShowEditPreview {
        call_id: checked_page_call_id(run_id, &request.call_id)?,
        ..request.clone()
    };
    let payload = edit_requests::show_payload(&page_form)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageShowEditPreview,
        payload,
        Some(run_id),
        cancel,
    )
    .await?;
    edit_requests::parse_show_answer(&page_form, &data)
}

/// `PAGE_APPLY_EDIT`: the page compares file label, editor token and the
/// exact text, then applies every change in one CodeMirror transaction and
/// removes this call's preview. A refusal changed nothing. A `CANCELLED`
/// result ([`PageEditError::is_cancelled`]) means the outcome is unknown: the
/// page may have applied the edit before the Stop reached it, so the caller
/// reads the document again before deciding.
pub(crate) async fn apply_edit<P: Platform>(
    platform: &P,
    tab_id: u64,
    run_id: &str,
    request: &PageApplyEdit,
    cancel: &Cancellation,
) -> Result<EditApplied, PageEditError> {
    edit_requests::check_run_id(run_id)?;
    let page_form = PageApplyEdit {
        call_id: checked_page_call_id(run_id, &request.call_id)?,
        ..request.clone()
    };
    let payload = edit_requests::apply_payload(&page_form)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageApplyEdit,
        payload,
        Some(run_id),
        cancel,
    )
    .await?;
    edit_requests::parse_apply_answer(&page_form, &data)
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
) -> Result<bool, PageEditError> {
    edit_requests::check_run_id(run_id)?;
    let payload = edit_requests::clear_payload(&checked_page_call_id(run_id, call_id)?)?;
    let data = send_page_request(
        platform,
        tab_id,
        MessageType::PageClearEditPreview,
        payload,
        Some(run_id),
        &Cancellation::new(),
    )
    .await?;
    Ok(edit_requests::parse_clear_answer(&data)?)
}

// ----- which tab a panel request is for -----

/// The tab a panel request targets: the given `tab_id`, which must show a
/// typst.app page (`NOT_TYPST_TAB`), or else the active tab of the focused
/// window, which must too (`NO_TYPST_TAB`).
async fn resolve_typst_tab(tabs: &impl Tabs, tab_id: Option<u64>) -> Result<u64, PageError> {
    let Some(tab_id) = tab_id else {
        let active = tabs
            .active()
            .await
            .map_err(|failure| PageError::new(ErrorCode::RequestFailed.as_str(), failure.0))?;
        return active
            .filter(|tab| is_typst_app_url(&tab.url))
            .and_then(|tab| tab.id)
            .and_then(|id| u64::try_from(id).ok())
            .ok_or_else(|| PageError::new(ErrorCode::NoTypstTab.as_str(), "No active typst.app tab."));
    };
    let tab = tabs
        .get(tab_key(tab_id)?)
        .await
        .map_err(|failure| PageError::new(ErrorCode::RequestFailed.as_str(), failure.0))?;
    if !is_typst_app_url(&tab.url) {
        return Err(PageError::new(
            ErrorCode::NotTypstTab.as_str(),
            "The selected tab is not a typst.app page.",
        ));
    }
    Ok(tab_id)
}

// ----- the panel routes -----

/// Codes a page error may carry into a panel answer. The page is untrusted,
/// so an unknown code becomes `PAGE_REQUEST_FAILED` (the message is kept).
const PAGE_ERROR_CODES: &[ErrorCode] = &[
    ErrorCode::Cancelled,
    ErrorCode::DuplicateRequestId,
    ErrorCode::InvalidPageRequest,
    ErrorCode::InvalidPageResponse,
    ErrorCode::InvalidRequestId,
    ErrorCode::InvalidTabId,
    ErrorCode::NotAPageRequest,
    ErrorCode::NotTypstTab,
    ErrorCode::NoTypstTab,
    ErrorCode::PageAnswerMalformed,
    ErrorCode::PageAnswerTooLarge,
    ErrorCode::PagePendingLimit,
    ErrorCode::PageRequestFailed,
    ErrorCode::PageRequestTimeout,
    ErrorCode::PageUnloaded,
    ErrorCode::RequestFailed,
    ErrorCode::UnsupportedPageRequest,
];

fn request_error(error: PageError) -> RequestError {
    let code = ErrorCode::from_wire(&error.code)
        .filter(|code| PAGE_ERROR_CODES.contains(code))
        .unwrap_or(ErrorCode::PageRequestFailed);
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
                ..context.clone()
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
                ..context.clone()
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
mod hostile_tests;
#[cfg(test)]
mod tests;
