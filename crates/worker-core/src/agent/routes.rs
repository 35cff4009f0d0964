//! The run messages the router hands over: `AI_RUN_RESERVE`,
//! `AI_STREAM_START`, `AI_STREAM_CANCEL`, `AI_RUN_STATUS`,
//! `AI_TOOL_PREFLIGHT_RESOLVE` and `AI_TOOL_APPROVAL_RESOLVE`.
//!
//! The payload arrives typed (the envelope check parsed it with the
//! protocol's exact, fail-closed rules) and the run id comes from the
//! envelope, which the parser requires for these types. Only
//! `AI_STREAM_START` waits: its answer comes when the run ends, while every
//! other run message is answered at once, so Stop and the banner buttons
//! work while a run is streaming.

use crate::agent::engine;
use crate::envelope::RequestError;
use crate::integrations::Integrations;
use crate::platform::{Clock, Platform};
use crate::recovery_tabs::{RecoveryTabs, recovery_active_error};
use crate::runs::{AdmissionError, RunIdentity, Runs};
use crate::sessions::SessionStore;
use protocol::payloads::RunSummary;
use protocol::{Payload, js};
use serde_json::{Value, json};

fn admission_error(error: AdmissionError) -> RequestError {
    RequestError::new(error.code, error.message)
}

/// Answers one run message.
pub(crate) async fn route<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    recovery: &RecoveryTabs,
    integrations: &Integrations,
    run_id: &str,
    payload: Payload,
) -> Result<Value, RequestError> {
    let now = platform.clock().now_ms();
    match payload {
        Payload::AiRunReserve(reserve) if recovery.is_recovering(reserve.tab_id) => Err(recovery_active_error()),
        Payload::AiStreamStart(start) if recovery.is_recovering(start.tab_id) => Err(recovery_active_error()),
        Payload::AiRunReserve(reserve) => {
            let identity = RunIdentity {
                run_id: run_id.to_owned(),
                tab_id: reserve.tab_id,
                project_id: reserve.project_id,
                session_id: reserve.session_id,
            };
            let expires_at = runs.reserve(&identity, now).map_err(admission_error)?;
            Ok(json!({ "ok": true, "reserved": true, "expiresAt": js::number_value(expires_at) }))
        }
        Payload::AiStreamStart(start) => engine::start(platform, runs, store, integrations, run_id, &start)
            .await
            .map_err(admission_error),
        Payload::AiStreamCancel(_) => {
            let report = runs.cancel(run_id, now);
            Ok(json!({ "ok": report.ok, "found": report.found, "terminal": report.terminal }))
        }
        Payload::AiRunStatus(status) => Ok(Value::Array(
            runs.status(&status.project_id, &status.session_id)
                .iter()
                .map(RunSummary::to_value)
                .collect(),
        )),
        Payload::AiToolPreflightResolve(resolve) => {
            Ok(json!({ "ok": runs.resolve_preflight(run_id, &resolve.call_id, resolve.action) }))
        }
        Payload::AiToolApprovalResolve(resolve) => {
            Ok(json!({ "ok": runs.resolve_approval(run_id, &resolve.call_id, resolve.action) }))
        }
        other => Err(RequestError::unrouted(other.message_type())),
    }
}
