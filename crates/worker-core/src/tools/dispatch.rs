//! One tool call from the model's request to its result.
//!
//! The pipeline is the same for every tool: resolve the exact visible name,
//! parse and validate the arguments against the route's schema (fail
//! closed, just before use), wait for the page capabilities the source says
//! the tool needs, authorise it by its source-owned policy, then execute.
//! Every failure becomes a structured `{ok:false, code, …}` result the model
//! can read; only Stop (`Cancelled`) escapes, because it ends the run. A
//! tool that uses the page first checks that the originating tab still shows
//! the URL the run started on (`STALE_RUN_TAB`).
//!
//! Editor writes are registered and validated like every tool, then leave
//! this pipeline at [`editor_write`] for their own (file guard, one editor
//! snapshot, diff review, checkpoint, guarded apply).

use crate::cancel::Cancelled;
use crate::platform::Platform;
use crate::runs::state::{RunContext, ToolOutput, tool_failure};
use crate::runs::waiters::{Waited, wait_for_user};
use crate::tools::metadata::{Approval, Effect};
use crate::tools::preflight::{self, CallInfo};
use crate::tools::read;
use crate::tools::registry::{Route, RouteKind, ToolRegistry};
use protocol::Payload;
use protocol::diff_preview::DiffPreview;
use protocol::js;
use protocol::limits::{MAX_APPROVAL_ARGUMENT_CHARS, MAX_NOTICE_CHARS};
use protocol::payloads::{ApprovalAction, ApprovalRequired};
use serde_json::{Map, Value};

/// How long an approval banner waits before it counts as a denial.
pub const APPROVAL_TIMEOUT_MS: u32 = 300_000;

/// The call as the provider sent it.
#[derive(Debug, Clone, Copy)]
pub struct Call<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub raw_args: &'a str,
}

impl<'a> Call<'a> {
    fn info(&self) -> CallInfo<'a> {
        CallInfo {
            id: self.id,
            name: self.name,
        }
    }
}

/// Runs one call; `Err` only when the run was cancelled.
pub async fn dispatch<P: Platform>(
    run: &RunContext<'_, P>,
    registry: &ToolRegistry,
    call: Call<'_>,
) -> Result<ToolOutput, Cancelled> {
    if call.id.is_empty() || call.name.is_empty() {
        return Ok(tool_failure(
            "INVALID_TOOL_CALL",
            "A tool call needs an id and a function name.",
        ));
    }
    let Some(route) = registry.route(call.name) else {
        return Ok(tool_failure("UNKNOWN_TOOL", format!("Unknown tool: {}", call.name)));
    };
    let args = match route.schema.parse_and_validate(call.raw_args) {
        Ok(args) => args,
        Err(errors) => return Ok(invalid_arguments(&errors)),
    };
    if route.effect == Effect::EditorWrite {
        return editor_write(run, route, call, &args).await;
    }
    // Nothing is read from (or asked of) a tab that navigated since Send.
    if route.uses_tab
        && let Err(stale) = read::check_tab(run).await?
    {
        return Ok(stale);
    }
    if let Some(needs) = route.preflight
        && let Err(skipped) = preflight::capabilities(run, call.info(), needs).await?
    {
        return Ok(skipped);
    }
    if let Err(denied) = authorize(run, route, call, &args, None).await? {
        return Ok(denied);
    }
    let result = match &route.kind {
        RouteKind::Builtin => read::execute(run, call.info(), &args).await?,
        RouteKind::Custom { .. } | RouteKind::Mcp { .. } => {
            return Ok(tool_failure(
                "UNKNOWN_TOOL_KIND",
                format!("No client for {} is available in this build.", route.identity),
            ));
        }
    };
    // A tab that navigated while the tool waited may have answered for
    // another page: such a result is dropped, never shown to the model.
    if route.uses_tab
        && let Err(stale) = read::check_tab(run).await?
    {
        return Ok(stale);
    }
    Ok(result)
}

/// `{ok:false, code, path, error}` from the first validation problem.
fn invalid_arguments(errors: &protocol::tool_schema::ToolErrors) -> ToolOutput {
    let (code, path, message) = match errors.first() {
        Some(first) => (first.code.as_str(), first.path.clone(), first.message.clone()),
        None => (
            "ARGUMENTS_PARSE_ERROR",
            "$".to_owned(),
            "The tool arguments are invalid.".to_owned(),
        ),
    };
    let mut result = tool_failure(code, message);
    result.insert("path".into(), Value::String(path));
    result
}

/// Editor writes have their own pipeline (capability preflight, tab and
/// file guards, one editor snapshot, the diff review in Ask mode and the
/// checkpointed commit): see [`crate::edits::apply`].
async fn editor_write<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: Call<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    crate::edits::apply::run_editor_write(run, route, call, args).await
}

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
    call: Call<'_>,
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
