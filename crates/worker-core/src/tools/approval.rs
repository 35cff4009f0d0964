//! Whether a tool call may run: the approval banner and its answer.
//!
//! Reads run at once, and so do trusted integrations and identities the user
//! allowed for this run; anything else shows `AI_TOOL_APPROVAL_REQUIRED` and
//! waits at most five minutes for Approve / Allow for run / Deny (silence
//! denies). An editor change in Ask mode always carries its diff ([`Review`])
//! and is always shown: "Allow for run" never waives a later review.

use crate::cancel::Cancelled;
use crate::platform::Platform;
use crate::runs::state::{CallInfo, RunContext, ToolOutput, tool_failure};
use crate::runs::waiters::{Waited, wait_for_user};
use crate::tools::metadata::{Approval, Effect};
use crate::tools::registry::Route;
use protocol::Payload;
use protocol::diff_preview::DiffPreview;
use protocol::js;
use protocol::limits::{MAX_APPROVAL_ARGUMENT_CHARS, MAX_NOTICE_CHARS};
use protocol::payloads::{ApprovalAction, ApprovalRequired};
use serde_json::{Map, Value};

/// How long an approval banner waits before it counts as a denial.
pub const APPROVAL_TIMEOUT_MS: u32 = 300_000;

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
pub struct Review {
    pub preview: DiffPreview,
    /// Why the inline editor preview is missing, if it is.
    pub notice: Option<String>,
}

/// Decides whether a call may run: reads run at once, trusted integrations
/// and identities the user allowed for this run too; anything else asks the
/// user and waits at most five minutes (silence denies). A `review` (an
/// editor change in Ask mode) is always shown, and "Allow for run" never
/// waives later reviews.
pub async fn authorize<P: Platform>(
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
            Ok(Err(tool_failure("TOOL_DENIED", "The user denied this action.")))
        }
    }
}
