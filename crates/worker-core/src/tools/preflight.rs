//! The banner wait loop every preflight shares.
//!
//! Some tools need the user's help first: an editor must be open, the Improve
//! panel shown, the Files sidebar visible, or the file of the message focused
//! again. Each of those waits is the same loop: check the page; if it is not
//! ready, show a banner (`AI_TOOL_PREFLIGHT_WAITING`) saying what is missing,
//! then check again every 1.5 s or as soon as the user presses Retry. Skip
//! ends the call with `PREFLIGHT_DENIED`; after 5 minutes the call fails with
//! the wait's own timeout code; Stop ends the whole run. A banner that was
//! shown is always closed with `AI_TOOL_PREFLIGHT_READY` once the page is
//! ready. What each wait checks lives with the page access
//! ([`crate::tools::page`]) and the tools themselves.

use crate::cancel::Cancelled;
use crate::platform::{Clock, Platform};
use crate::runs::{CallInfo, RunContext, ToolOutput, Waited, tool_failure, wait_for_user};
use protocol::ErrorCode;
use protocol::Payload;
use protocol::payloads::{CallRef, PreflightAction, PreflightWaiting};

/// Pause between checks while a banner is shown.
const PREFLIGHT_POLL_MS: u32 = 1_500;
/// How long a banner may wait before the call fails.
const PREFLIGHT_TIMEOUT_MS: f64 = 300_000.0;

/// One look at the page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Check<T> {
    Ready(T),
    Waiting { missing: Vec<String>, hint: String },
}

/// How a wait reports its timeout.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WaitKind {
    pub(crate) timeout_code: ErrorCode,
    /// Starts the timeout message; the hint follows.
    pub(crate) timeout_message: &'static str,
}

/// Repeats `check` until it is ready, the user skips, the wait times out
/// (both an `Ok(Err(tool result))`) or the run is cancelled (`Err`).
pub(crate) async fn wait_until<P, T, F>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    kind: WaitKind,
    mut check: F,
) -> Result<Result<T, ToolOutput>, Cancelled>
where
    P: Platform,
    F: AsyncFnMut() -> Result<Check<T>, Cancelled>,
{
    let clock = run.platform.clock();
    let started_at = clock.now_ms();
    let mut announced = false;
    loop {
        if run.cancel.is_cancelled() {
            return Err(Cancelled);
        }
        let (missing, hint) = match check().await? {
            Check::Ready(value) => {
                if announced {
                    run.events.emit(Payload::AiToolPreflightReady(CallRef {
                        call_id: call.id.to_owned(),
                    }));
                }
                return Ok(Ok(value));
            }
            Check::Waiting { missing, hint } => (missing, hint),
        };
        run.events.emit(Payload::AiToolPreflightWaiting(PreflightWaiting {
            call_id: call.id.to_owned(),
            name: call.name.to_owned(),
            missing,
            hint: hint.clone(),
        }));
        announced = true;
        if clock.now_ms() - started_at > PREFLIGHT_TIMEOUT_MS {
            return Ok(Err(tool_failure(
                kind.timeout_code,
                format!("{} {hint}", kind.timeout_message),
            )));
        }
        let waited = wait_for_user(
            &run.runs.preflight,
            &run.run_id,
            call.id,
            clock,
            PREFLIGHT_POLL_MS,
            &run.cancel,
        )
        .await?;
        if waited == Waited::Answered(PreflightAction::Cancel) {
            return Ok(Err(tool_failure(
                ErrorCode::PreflightDenied,
                format!("The user skipped this tool call. {hint}"),
            )));
        }
    }
}
