//! Whether a tool call may run: the approval banner and its answer.
//!
//! Reads run at once, and so do trusted integrations and identities the user
//! allowed for this run; anything else shows `AI_TOOL_APPROVAL_REQUIRED` and
//! waits at most five minutes for Approve / Allow for run / Deny (silence
//! denies). An editor change in Ask mode always carries its diff ([`Review`])
//! and is always shown: "Allow for run" never waives a later review.

use crate::cancel::Cancelled;
use crate::platform::Platform;
use crate::runs::{CallInfo, RunContext, ToolOutput, Waited, tool_failure, wait_for_user};
use crate::tools::metadata::{Approval, Effect};
use crate::tools::route::Route;
use protocol::ErrorCode;
use protocol::Payload;
use protocol::diff_preview::DiffPreview;
use protocol::js;
use protocol::limits::{MAX_APPROVAL_ARGUMENT_CHARS, MAX_NOTICE_CHARS};
use protocol::payloads::{ApprovalAction, ApprovalRequired};
use serde_json::{Map, Value};

/// How long an approval banner waits before it counts as a denial.
const APPROVAL_TIMEOUT_MS: u32 = 300_000;

/// The pretty arguments shown in an approval banner, bounded.
fn argument_summary(args: &Map<String, Value>) -> (String, u64, bool) {
    let text = serde_json::to_string_pretty(args).unwrap_or_else(|_| "{}".to_owned());
    let total = js::utf16_len(&text);
    let max = usize::try_from(MAX_APPROVAL_ARGUMENT_CHARS).unwrap_or(usize::MAX);
    let shown = js::truncate_utf16(&text, max).to_owned();
    let truncated = total > js::utf16_len(&shown);
    (shown, u64::try_from(total).unwrap_or(u64::MAX), truncated)
}

/// A proposed editor change the user must review before it is applied.
#[derive(Debug, Clone)]
pub(crate) struct Review {
    pub(crate) preview: DiffPreview,
    /// Why the inline editor preview is missing, if it is.
    pub(crate) notice: Option<String>,
}

/// Decides whether a call may run: reads run at once, trusted integrations
/// and identities the user allowed for this run too; anything else asks the
/// user and waits at most five minutes (silence denies). A `review` (an
/// editor change in Ask mode) is always shown, and "Allow for run" never
/// waives later reviews.
pub(crate) async fn authorize<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
    review: Option<Review>,
) -> Result<Result<(), ToolOutput>, Cancelled> {
    let per_edit_review = route.effect == Effect::EditorWrite && review.is_some();
    if route.effect == Effect::Read && route.approval == Approval::Automatic {
        return Ok(Ok(()));
    }
    if !per_edit_review && (route.approval == Approval::Trusted || run.allowed.borrow().contains(&route.identity)) {
        return Ok(Ok(()));
    }
    show_approval(run, route, call, args, review);
    await_approval(run, route, call, per_edit_review).await
}

/// Shows (or shows again) the approval banner of `call`. Sent again for the
/// same call, the panel keeps the banner and its state and takes the new
/// notice; the worker's wait is not touched.
pub(crate) fn show_approval<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
    review: Option<Review>,
) {
    let (arguments, argument_chars, arguments_truncated) = argument_summary(args);
    let (preview, preview_notice) = match review {
        Some(review) => (Some(review.preview), review.notice),
        None => (None, None),
    };
    let max_notice = usize::try_from(MAX_NOTICE_CHARS).unwrap_or(usize::MAX);
    let preview_notice = preview_notice
        .map(|notice| js::truncate_utf16(js::js_trim(&notice), max_notice).to_owned())
        .filter(|notice| !notice.is_empty());
    run.events.emit(Payload::AiToolApprovalRequired(ApprovalRequired {
        call_id: call.id.to_owned(),
        name: call.name.to_owned(),
        identity: route.identity.clone(),
        effect: route.effect.as_str().to_owned(),
        destination: route.destination.clone(),
        arguments,
        argument_chars,
        arguments_truncated,
        preview,
        preview_notice,
    }));
}

/// Waits for the user's answer to the banner [`show_approval`] put up (at
/// most five minutes; silence denies). Dropping the wait closes it: a late
/// click then finds nothing waiting. For an editor review
/// (`per_edit_review`) "Allow for run" approves only this change.
pub(crate) async fn await_approval<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
    per_edit_review: bool,
) -> Result<Result<(), ToolOutput>, Cancelled> {
    let clock = run.platform.clock();
    let waited = wait_for_user(
        &run.runs.approvals,
        &run.run_id,
        call.id,
        clock,
        APPROVAL_TIMEOUT_MS,
        &run.cancel,
    )
    .await?;
    match waited {
        Waited::Answered(ApprovalAction::AllowRun) => {
            if !per_edit_review {
                run.allowed.borrow_mut().insert(route.identity.clone());
            }
            Ok(Ok(()))
        }
        Waited::Answered(ApprovalAction::ApproveOnce) => Ok(Ok(())),
        Waited::Answered(ApprovalAction::Deny) | Waited::TimedOut => {
            Ok(Err(tool_failure(ErrorCode::ToolDenied, "The user denied this action.")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancellation;
    use crate::fakes::{FakePages, FakePlatform};
    use crate::mcp::McpClient;
    use crate::runs::{RunIdentity, Runs};
    use crate::sessions::SessionStore;
    use crate::tools::ToolRegistry;
    use futures::FutureExt;
    use serde_json::json;

    fn identity() -> RunIdentity {
        RunIdentity {
            run_id: "run-1".into(),
            tab_id: 17,
            project_id: "p1".into(),
            session_id: "s1".into(),
        }
    }

    #[test]
    fn approvals_wait_for_the_exact_run_and_allow_for_run_sticks() {
        let platform = FakePlatform::<FakePages>::default();
        platform.clock.hold_sleeps_from(Some(1_500));
        let (runs, store) = (Runs::new(), SessionStore::new());
        let mcp = McpClient::new("test");
        let run = RunContext::new(&platform, &runs, &store, &mcp, &identity(), Cancellation::new(), None);
        let Ok(mut registry) = ToolRegistry::with_builtins() else {
            panic!("built-ins register");
        };
        let Some(mut route) = registry.route("read_typst_docs").cloned() else {
            panic!("read_typst_docs is registered");
        };
        route.name = "search_arxiv".into();
        route.identity = "custom:t1".into();
        route.effect = Effect::Read;
        route.approval = Approval::Once;
        route.destination = "https://tools.example".into();
        route.spec["function"]["name"] = json!("search_arxiv");
        assert!(registry.add(route.clone()).is_ok());
        let mut args = Map::new();
        args.insert("query".into(), json!("x".repeat(3_000)));
        let call = |id: &'static str| CallInfo {
            id,
            name: "search_arxiv",
        };

        let mut first = Box::pin(authorize(&run, &route, call("c1"), &args, None));
        assert!(first.as_mut().now_or_never().is_none(), "waits for the user");
        let banner = platform.browser.broadcasts().pop().unwrap_or_default();
        assert_eq!(banner["type"], "AI_TOOL_APPROVAL_REQUIRED");
        assert_eq!(banner["payload"]["identity"], "custom:t1");
        assert_eq!(banner["payload"]["effect"], "read");
        assert_eq!(banner["payload"]["arguments"].as_str().map(js::utf16_len), Some(2_000));
        assert_eq!(banner["payload"]["argumentsTruncated"], true);
        assert!(!runs.resolve_approval("run-2", "c1", ApprovalAction::ApproveOnce));
        assert!(runs.resolve_approval("run-1", "c1", ApprovalAction::AllowRun));
        assert_eq!(first.now_or_never(), Some(Ok(Ok(()))));

        let again = authorize(&run, &route, call("c2"), &args, None).now_or_never();
        assert_eq!(again, Some(Ok(Ok(()))), "allowed for the rest of the run");

        run.allowed.borrow_mut().clear();
        let mut denied = Box::pin(authorize(&run, &route, call("c3"), &args, None));
        assert!(denied.as_mut().now_or_never().is_none());
        assert!(runs.resolve_approval("run-1", "c3", ApprovalAction::Deny));
        let result = denied.now_or_never().and_then(Result::ok).and_then(Result::err);
        assert_eq!(result.map(|r| r["code"].clone()), Some(json!("TOOL_DENIED")));

        platform.clock.hold_sleeps_from(None);
        let silent = authorize(&run, &route, call("c4"), &args, None).now_or_never();
        let code = silent
            .and_then(Result::ok)
            .and_then(Result::err)
            .map(|r| r["code"].clone());
        assert_eq!(code, Some(json!("TOOL_DENIED")), "five silent minutes deny");

        platform.clock.hold_sleeps_from(Some(1_500));
        let mut stopped = Box::pin(authorize(&run, &route, call("c5"), &args, None));
        assert!(stopped.as_mut().now_or_never().is_none());
        run.cancel.cancel();
        assert_eq!(stopped.now_or_never(), Some(Err(Cancelled)));

        let read = registry.route("read_document").cloned();
        let reads_run_at_once = read.and_then(|route| authorize(&run, &route, call("c6"), &args, None).now_or_never());
        assert!(reads_run_at_once.is_some(), "reads never wait for approval");
    }

    #[test]
    fn an_editor_review_is_always_shown_and_allow_for_run_does_not_waive_the_next() {
        let platform = FakePlatform::<FakePages>::default();
        platform.clock.hold_sleeps_from(Some(1_500));
        let (runs, store) = (Runs::new(), SessionStore::new());
        let mcp = McpClient::new("test");
        let run = RunContext::new(&platform, &runs, &store, &mcp, &identity(), Cancellation::new(), None);
        let Some(route) = ToolRegistry::with_builtins()
            .ok()
            .and_then(|r| r.route("replace_lines").cloned())
        else {
            panic!("replace_lines is registered");
        };
        let preview = DiffPreview::parse(&json!({
            "kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
            "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "rows": [
                {"kind": "delete", "oldLine": 1, "newLine": null, "text": "= Old"},
                {"kind": "insert", "oldLine": null, "newLine": 1, "text": "= New"}
            ]}]
        }));
        let Some(preview) = preview else {
            panic!("the preview is valid");
        };
        let review = || {
            Some(Review {
                preview: preview.clone(),
                notice: Some(format!("  {}  ", "n".repeat(600))),
            })
        };
        let args = Map::new();
        for id in ["e1", "e2"] {
            let call = CallInfo {
                id,
                name: "replace_lines",
            };
            let mut waiting = Box::pin(authorize(&run, &route, call, &args, review()));
            assert!(waiting.as_mut().now_or_never().is_none(), "{id} is reviewed");
            let banner = platform.browser.broadcasts().pop().unwrap_or_default();
            assert_eq!(banner["payload"]["preview"]["fileLabel"], "main.typ");
            assert_eq!(
                banner["payload"]["previewNotice"].as_str().map(js::utf16_len),
                Some(500)
            );
            assert_eq!(banner["payload"]["effect"], "editor-write");
            assert!(runs.resolve_approval("run-1", id, ApprovalAction::AllowRun));
            assert_eq!(waiting.now_or_never(), Some(Ok(Ok(()))));
        }
        assert!(run.allowed.borrow().is_empty());
    }
}
