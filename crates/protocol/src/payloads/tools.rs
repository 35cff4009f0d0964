//! Tool calls during a run: what the model called, what came back, and the
//! two places a run waits for the user (`AI_TOOL_CALLS`, `AI_TOOL_RESULT`,
//! `AI_TOOL_PREFLIGHT_*`, `AI_TOOL_APPROVAL_*`).
//!
//! A preflight waits until something the tool needs is there (an open
//! editor, say); an approval waits until the user allows a call with an
//! effect. Both name the call by its `callId`, and both are answered by a
//! resolve request with a fixed set of actions.

use super::fields::{call_id, exact, fail};
use crate::diff_preview::DiffPreview;
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire::{self, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A tool call as the panel shows it: `args` is the parsed object, or
/// `{invalid:true, error}` when the model sent unparsable arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallInfo {
    /// The model's id of the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments (see above).
    pub args: Map<String, Value>,
}

/// `AI_TOOL_CALLS`: the calls of one model round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCalls {
    /// The calls, in the model's order.
    pub calls: Vec<ToolCallInfo>,
}

impl ToolCalls {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ToolCalls, ProtocolError> {
        let f = exact(p, &["calls"], &["calls"])?;
        let message = "Tool calls are invalid";
        let raw = f
            .raw("calls")
            .and_then(Value::as_array)
            .filter(|calls| calls.len() <= to_usize(limits::MAX_TOOL_CALLS_PER_EVENT))
            .ok_or_else(|| fail(ErrorCode::InvalidToolCalls, f.at("calls"), message))?;
        let mut calls = Vec::with_capacity(raw.len());
        for (index, call) in raw.iter().enumerate() {
            let parsed = call.as_object().and_then(|m| {
                if m.keys().any(|k| !matches!(k.as_str(), "id" | "name" | "args")) {
                    return None;
                }
                Some(ToolCallInfo {
                    id: wire::bounded_non_blank(m.get("id"), to_usize(limits::MAX_TOOL_CALL_ID_CHARS))?,
                    name: wire::bounded_non_blank(m.get("name"), to_usize(limits::MAX_TOOL_NAME_CHARS))?,
                    args: m.get("args")?.as_object()?.clone(),
                })
            });
            calls.push(parsed.ok_or_else(|| {
                fail(
                    ErrorCode::InvalidToolCalls,
                    format!("$.payload.calls[{index}]"),
                    message,
                )
            })?);
        }
        Ok(ToolCalls { calls })
    }
}

/// `AI_TOOL_RESULT`: what one call returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The call it answers.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's result object, as the model receives it.
    pub result: Map<String, Value>,
}

impl ToolResult {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ToolResult, ProtocolError> {
        let f = exact(p, &["callId", "name", "result"], &["callId", "name", "result"])?;
        let invalid = |key: &str| {
            fail(
                ErrorCode::InvalidToolResult,
                f.at(key),
                "Tool result fields are invalid",
            )
        };
        let call_id = call_id(&f, ErrorCode::InvalidToolResult)?;
        let name = wire::bounded_non_blank(f.raw("name"), to_usize(limits::MAX_TOOL_NAME_CHARS))
            .ok_or_else(|| invalid("name"))?;
        let result = wire::object(f.raw("result")).ok_or_else(|| invalid("result"))?;
        Ok(ToolResult { call_id, name, result })
    }
}

/// `AI_TOOL_PREFLIGHT_WAITING`: a call waits for something it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightWaiting {
    /// The waiting call.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// What is missing, one name each.
    pub missing: Vec<String>,
    /// What the user can do about it.
    pub hint: String,
}

impl PreflightWaiting {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PreflightWaiting, ProtocolError> {
        let keys = ["callId", "name", "missing", "hint"];
        let f = exact(p, &keys, &keys)?;
        let invalid = |key: &str| fail(ErrorCode::InvalidPreflight, f.at(key), "Preflight payload is invalid");
        let call_id = call_id(&f, ErrorCode::InvalidPreflight)?;
        let name = wire::bounded_non_blank(f.raw("name"), to_usize(limits::MAX_TOOL_NAME_CHARS))
            .ok_or_else(|| invalid("name"))?;
        let missing = f
            .raw("missing")
            .and_then(Value::as_array)
            .and_then(|items| {
                items
                    .iter()
                    .map(|item| item.as_str().filter(|s| js::is_non_blank(s)).map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| invalid("missing"))?;
        let hint = f
            .raw("hint")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| invalid("hint"))?;
        Ok(PreflightWaiting {
            call_id,
            name,
            missing,
            hint,
        })
    }
}

/// `{callId}` (`AI_TOOL_PREFLIGHT_READY`, `PAGE_CLEAR_EDIT_PREVIEW`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRef {
    /// The call.
    pub call_id: String,
}

impl CallRef {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<CallRef, ProtocolError> {
        let f = exact(p, &["callId"], &["callId"])?;
        Ok(CallRef {
            call_id: call_id(&f, ErrorCode::InvalidCallId)?,
        })
    }
}

/// What the user chose for a waiting call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreflightAction {
    /// Check again.
    Retry,
    /// Give the call up.
    Cancel,
}

/// `AI_TOOL_PREFLIGHT_RESOLVE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightResolve {
    /// The waiting call.
    pub call_id: String,
    /// The user's choice.
    pub action: PreflightAction,
}

impl PreflightResolve {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<PreflightResolve, ProtocolError> {
        let code = ErrorCode::InvalidPreflightAction;
        let (call_id, action) = resolve(p, code, "Preflight action is invalid", |action| match action {
            "retry" => Some(PreflightAction::Retry),
            "cancel" => Some(PreflightAction::Cancel),
            _ => None,
        })?;
        Ok(PreflightResolve { call_id, action })
    }
}

/// `AI_TOOL_APPROVAL_REQUIRED`: a call with an effect waits for the user.
/// An editor review may come again for the same call, with the notice the
/// drawing over the editor brought: the panel keeps its banner and takes the
/// notice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequired {
    /// The waiting call.
    pub call_id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's stable identity (`builtin:<name>`, …), the key an
    /// "allow for run" grant is kept under.
    pub identity: String,
    /// What kind of effect the call has.
    pub effect: String,
    /// Where the call acts or sends its data.
    pub destination: String,
    /// Pretty JSON of the arguments, at most 2,000 characters.
    pub arguments: String,
    /// Length of the full pretty JSON (≥ `arguments` length).
    pub argument_chars: u64,
    /// Exactly `argumentChars > arguments.length`.
    pub arguments_truncated: bool,
    /// The diff of an editor write, for the user to review.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preview: Option<DiffPreview>,
    /// Why there is no diff, or what it leaves out.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preview_notice: Option<String>,
}

impl ApprovalRequired {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ApprovalRequired, ProtocolError> {
        let required = [
            "callId",
            "name",
            "identity",
            "effect",
            "destination",
            "arguments",
            "argumentChars",
            "argumentsTruncated",
        ];
        let allowed = [
            "callId",
            "name",
            "identity",
            "effect",
            "destination",
            "arguments",
            "argumentChars",
            "argumentsTruncated",
            "preview",
            "previewNotice",
        ];
        let f = exact(p, &allowed, &required)?;
        let text = |key: &str, max: u32| {
            f.raw(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty() && js::utf16_len(s) <= to_usize(max))
                .map(str::to_owned)
                .ok_or_else(|| fail(ErrorCode::InvalidApproval, f.at(key), "Approval payload is invalid"))
        };
        let call_id = text("callId", limits::MAX_ENVELOPE_ID_CHARS)?;
        let name = text("name", limits::MAX_TOOL_NAME_CHARS)?;
        let identity = text("identity", limits::MAX_APPROVAL_IDENTITY_CHARS)?;
        let effect = text("effect", limits::MAX_APPROVAL_EFFECT_CHARS)?;
        let destination = text("destination", limits::MAX_APPROVAL_DESTINATION_CHARS)?;
        let arguments = text("arguments", limits::MAX_APPROVAL_ARGUMENT_CHARS)?;
        let (argument_chars, arguments_truncated) = argument_summary(&f, &arguments)?;
        let preview_notice = wire::optional(f.raw("previewNotice"), |v| {
            wire::bounded_string(Some(v), to_usize(limits::MAX_NOTICE_CHARS))
        })
        .map_err(|()| {
            fail(
                ErrorCode::InvalidApproval,
                f.at("previewNotice"),
                "Approval preview notice is invalid",
            )
        })?;
        let preview = wire::optional(f.raw("preview"), DiffPreview::parse).map_err(|()| {
            fail(
                ErrorCode::InvalidEditPreview,
                f.at("preview"),
                "Edit preview is invalid",
            )
        })?;
        Ok(ApprovalRequired {
            call_id,
            name,
            identity,
            effect,
            destination,
            arguments,
            argument_chars,
            arguments_truncated,
            preview,
            preview_notice,
        })
    }
}

/// `argumentChars` and `argumentsTruncated` must agree with the shown
/// `arguments`, so a panel can never claim more (or less) than it shows.
fn argument_summary(f: &Fields<'_>, arguments: &str) -> Result<(u64, bool), ProtocolError> {
    let invalid = |key: &str| {
        fail(
            ErrorCode::InvalidApproval,
            f.at(key),
            "Approval argument summary metadata is invalid",
        )
    };
    let length = u64::try_from(js::utf16_len(arguments)).unwrap_or(u64::MAX);
    let argument_chars = wire::uint(f.raw("argumentChars"))
        .filter(|n| *n >= length)
        .ok_or_else(|| invalid("argumentChars"))?;
    let arguments_truncated = f
        .raw("argumentsTruncated")
        .and_then(Value::as_bool)
        .filter(|t| *t == (argument_chars > length))
        .ok_or_else(|| invalid("argumentsTruncated"))?;
    Ok((argument_chars, arguments_truncated))
}

/// What the user chose for a call that needs approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalAction {
    /// Run this call.
    ApproveOnce,
    /// Run this call and allow its tool identity for the rest of the run
    /// (editor writes under per-edit review still ask each time).
    AllowRun,
    /// Refuse the call.
    Deny,
}

/// `AI_TOOL_APPROVAL_RESOLVE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolve {
    /// The waiting call.
    pub call_id: String,
    /// The user's choice.
    pub action: ApprovalAction,
}

impl ApprovalResolve {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ApprovalResolve, ProtocolError> {
        let code = ErrorCode::InvalidApprovalAction;
        let (call_id, action) = resolve(p, code, "Approval action is invalid", |action| match action {
            "approve_once" => Some(ApprovalAction::ApproveOnce),
            "allow_run" => Some(ApprovalAction::AllowRun),
            "deny" => Some(ApprovalAction::Deny),
            _ => None,
        })?;
        Ok(ApprovalResolve { call_id, action })
    }
}

/// `{callId, action}`, the shape both resolve requests share; `code` is
/// reported for a bad `callId` as well as a bad `action`.
fn resolve<A>(
    p: &Map<String, Value>,
    code: ErrorCode,
    message: &str,
    action: impl FnOnce(&str) -> Option<A>,
) -> Result<(String, A), ProtocolError> {
    let f = exact(p, &["callId", "action"], &["callId", "action"])?;
    let call_id = call_id(&f, code)?;
    let action = f
        .raw("action")
        .and_then(Value::as_str)
        .and_then(action)
        .ok_or_else(|| fail(code, f.at("action"), message))?;
    Ok((call_id, action))
}
