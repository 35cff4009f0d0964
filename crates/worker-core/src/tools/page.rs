//! The run's guarded view of its tab, shared by the read tools and the
//! editor writes.
//!
//! Every read carries the run id, so Stop also cancels the page work in
//! flight, and a read that Stop interrupted ends the run instead of
//! becoming a tool result. The tab check refuses a tab that navigated since
//! Send (`STALE_RUN_TAB`): nothing of another page may reach the model or be
//! written over. The two waits (for the page capabilities a tool needs, and
//! for the file of the user's message to be focused again) are banner waits
//! of [`preflight`](crate::tools::preflight).

use crate::cancel::Cancelled;
use crate::page_client;
use crate::platform::{Platform, Tabs};
use crate::runs::{CallInfo, RunContext, ToolOutput, page_tool_failure, tool_failure};
use crate::tools::metadata::Preflight;
use crate::tools::preflight::{Check, WaitKind, wait_until};
use content_bridge::PageError;
use content_bridge::context::{EditorRead, PageContext};
use content_bridge::diagnostics::PageDiagnostics;
use content_bridge::probe::PageProbe;
use protocol::ErrorCode;
use protocol::limits::MAX_EDITOR_TRANSACTION_CHARS;
use protocol::payloads::ContextRequest;

/// Whether the originating tab still shows the URL the run started on.
pub(crate) async fn check_tab<P: Platform>(run: &RunContext<'_, P>) -> Result<Result<(), ToolOutput>, Cancelled> {
    let tab_id = i64::try_from(run.tab_id).unwrap_or(i64::MAX);
    let tab = run.cancel.race(run.platform.tabs().get(tab_id)).await?;
    Ok(if run.shows_start_page(&tab) {
        Ok(())
    } else {
        Err(tool_failure(
            ErrorCode::StaleRunTab,
            "The Typst tab this chat started from was closed or has navigated since the run began, so nothing \
             was read from it.",
        ))
    })
}

/// Turns a page failure caused by Stop into the run's cancellation.
fn page_result<T>(run_cancelled: bool, result: Result<T, PageError>) -> Result<Result<T, PageError>, Cancelled> {
    match result {
        _ if run_cancelled => Err(Cancelled),
        other => Ok(other),
    }
}

pub(crate) async fn page_context<P: Platform>(
    run: &RunContext<'_, P>,
    request: &ContextRequest,
) -> Result<Result<PageContext, PageError>, Cancelled> {
    let result = page_client::read_context(
        run.platform,
        run.tab_id,
        request,
        Some(&run.run_id),
        &run.cancel,
        Some(run.document.as_ref()),
    )
    .await;
    page_result(run.cancel.is_cancelled(), result)
}

pub(crate) async fn page_diagnostics<P: Platform>(
    run: &RunContext<'_, P>,
) -> Result<Result<PageDiagnostics, PageError>, Cancelled> {
    let result = page_client::read_diagnostics(run.platform, run.tab_id, Some(&run.run_id), &run.cancel).await;
    page_result(run.cancel.is_cancelled(), result)
}

async fn page_probe<P: Platform>(run: &RunContext<'_, P>) -> Result<Result<PageProbe, PageError>, Cancelled> {
    let result = page_client::probe(run.platform, run.tab_id, Some(&run.run_id), &run.cancel).await;
    page_result(run.cancel.is_cancelled(), result)
}

/// A page failure as the model sees it.
pub(crate) fn page_failure(error: &PageError) -> ToolOutput {
    page_tool_failure(&error.code, error.message.clone())
}

// ----- waiting for the page -----

/// Whether the page offers every capability in `needs` at this moment: one
/// probe, no wait (an editor write sends its edit read beside it).
pub(crate) async fn capabilities_now<P: Platform>(
    run: &RunContext<'_, P>,
    needs: Preflight,
) -> Result<bool, Cancelled> {
    Ok(match page_probe(run).await? {
        Ok(probe) => needs
            .capabilities
            .iter()
            .all(|capability| capability.present_in(&probe)),
        Err(_) => false,
    })
}

/// Waits until the page offers every capability in `needs` (an editor, a
/// selection, the Improve panel, …), probing the originating tab.
pub(crate) async fn capabilities<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    needs: Preflight,
) -> Result<Result<(), ToolOutput>, Cancelled> {
    let kind = WaitKind {
        timeout_code: ErrorCode::PreflightTimeout,
        timeout_message: "Waited too long for the page to be ready.",
    };
    wait_until(run, call, kind, async || {
        let (missing, hint): (Vec<String>, String) = match page_probe(run).await? {
            Ok(probe) => (
                needs
                    .capabilities
                    .iter()
                    .filter(|capability| !capability.present_in(&probe))
                    .map(|capability| capability.as_str().to_owned())
                    .collect(),
                needs.hint.to_owned(),
            ),
            Err(error) => (
                needs.capabilities.iter().map(|c| c.as_str().to_owned()).collect(),
                format!("The originating tab is unavailable ({}).", error.message),
            ),
        };
        Ok(if missing.is_empty() {
            Check::Ready(())
        } else {
            Check::Waiting { missing, hint }
        })
    })
    .await
}

/// Why the focused file is not the expected one, for banners.
pub(crate) fn current_file_text(context: &Result<PageContext, PageError>) -> String {
    match context {
        Err(error) => format!("The open file could not be checked ({}).", error.message),
        Ok(context) => match (context.active_file(), context.error()) {
            (Some(file), _) => format!("Currently open: {}.", file.relative_path),
            (None, Some(error)) => format!("The open file could not be checked ({error})."),
            (None, None) => "The open file could not be identified.".to_owned(),
        },
    }
}

/// The right file is open but its document is over the safe edit limit:
/// waiting cannot help, so the caller reports it instead of a banner.
fn too_large_to_edit(context: &PageContext) -> bool {
    matches!(
        &context.editor,
        EditorRead::Unavailable { doc_length: Some(length), .. }
            if *length > u64::from(MAX_EDITOR_TRANSACTION_CHARS)
    )
}

/// Reads `request` once the editor shows the run's message file again,
/// showing a banner while another file is focused. Without a message file
/// the context is read directly.
pub(crate) async fn message_file_context<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    request: ContextRequest,
    operation: &str,
) -> Result<Result<PageContext, ToolOutput>, Cancelled> {
    message_file_context_from(run, call, request, operation, None).await
}

/// [`message_file_context`] whose first read, when given, is `first` (a
/// read of `request` already made); every later one is read anew.
pub(crate) async fn message_file_context_from<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    request: ContextRequest,
    operation: &str,
    mut first: Option<Result<PageContext, PageError>>,
) -> Result<Result<PageContext, ToolOutput>, Cancelled> {
    let Some(expected) = run.message_file() else {
        let context = match first {
            Some(read) => read,
            None => page_context(run, &request).await?,
        };
        return Ok(context.map_err(|error| page_failure(&error)));
    };
    let kind = WaitKind {
        timeout_code: ErrorCode::ActiveFilePreflightTimeout,
        timeout_message: "Waited too long for the file of the message to be open again.",
    };
    wait_until(run, call, kind, async || {
        let context = match first.take() {
            Some(read) => read,
            None => page_context(run, &request).await?,
        };
        if let Ok(read) = &context
            && (read.error().is_none() || too_large_to_edit(read))
            && read
                .active_file()
                .is_some_and(|file| file.relative_path == expected.relative_path)
        {
            return Ok(Check::Ready(read.clone()));
        }
        Ok(Check::Waiting {
            missing: vec![format!("open file: {}", expected.relative_path)],
            hint: format!(
                "Return to {} in the originating Typst tab. {} The {operation} waits until that file is open again.",
                expected.relative_path,
                current_file_text(&context)
            ),
        })
    })
    .await
}
