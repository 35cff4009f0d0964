//! The field discipline every payload parser shares.
//!
//! A payload is an object with one exact key set; a rejection names the JSON
//! path `$.payload.<field>` of the first problem. The ids that recur across
//! message families (tab, project, chat, tool call) are read here once, so
//! each family bounds and reports them the same way. The empty payload `{}`
//! lives here too: a dozen message types carry nothing else.

use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire::{self, Fields};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The JSON path of every payload.
pub(crate) const PAYLOAD: &str = "$.payload";

/// The bound shared by every scope id (project and chat).
pub(crate) const SCOPE_ID: u32 = limits::MAX_SCOPE_ID_CHARS;

/// A rejection with the original's code, path and sentence.
pub(crate) fn fail(code: ErrorCode, path: impl Into<String>, message: &str) -> ProtocolError {
    ProtocolError::new(code, path, message)
}

/// The payload's fields, checked against its exact key set.
pub(crate) fn exact<'a>(
    payload: &'a Map<String, Value>,
    allowed: &[&str],
    required: &[&str],
) -> Result<Fields<'a>, ProtocolError> {
    Fields::exact(payload, PAYLOAD, allowed, required)
}

/// A payload that must be exactly `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

impl Empty {
    /// Any key at all is `UNKNOWN_PAYLOAD_FIELD`.
    pub(crate) fn parse(payload: &Map<String, Value>) -> Result<Empty, ProtocolError> {
        exact(payload, &[], &[]).map(|_| Empty {})
    }
}

/// A non-blank string of at most `max` UTF-16 units, or `code` at `key`.
pub(crate) fn non_blank_field(
    f: &Fields<'_>,
    key: &str,
    max: u32,
    code: ErrorCode,
    message: &str,
) -> Result<String, ProtocolError> {
    wire::bounded_non_blank(f.raw(key), to_usize(max)).ok_or_else(|| fail(code, f.at(key), message))
}

/// A required `tabId` (`INVALID_TAB_ID`).
pub(crate) fn tab_id(f: &Fields<'_>) -> Result<u64, ProtocolError> {
    wire::uint(f.raw("tabId")).ok_or_else(|| tab_id_error(f))
}

/// An optional `tabId`; `null` counts as absent (`INVALID_TAB_ID`).
pub(crate) fn optional_tab_id(f: &Fields<'_>) -> Result<Option<u64>, ProtocolError> {
    wire::optional(f.raw("tabId"), js::as_safe_uint).map_err(|()| tab_id_error(f))
}

fn tab_id_error(f: &Fields<'_>) -> ProtocolError {
    fail(
        ErrorCode::InvalidTabId,
        f.at("tabId"),
        "tabId must be a non-negative integer",
    )
}

/// A required, non-blank `projectId` (`INVALID_PROJECT_ID`).
pub(crate) fn project_id(f: &Fields<'_>) -> Result<String, ProtocolError> {
    non_blank_field(
        f,
        "projectId",
        SCOPE_ID,
        ErrorCode::InvalidProjectId,
        "projectId is required",
    )
}

/// A project id that may be empty (legacy and imported chats group under
/// `''`), bounded like every scope id.
pub(crate) fn any_project_id(f: &Fields<'_>, code: ErrorCode, path: &str) -> Result<String, ProtocolError> {
    wire::bounded_string(f.raw("projectId"), to_usize(SCOPE_ID))
        .ok_or_else(|| fail(code, path, "projectId must be a string"))
}

/// A required, non-blank `sessionId` (`INVALID_SESSION_ID`).
pub(crate) fn session_id(f: &Fields<'_>) -> Result<String, ProtocolError> {
    non_blank_field(
        f,
        "sessionId",
        SCOPE_ID,
        ErrorCode::InvalidSessionId,
        "sessionId is required",
    )
}

/// A required, non-blank `callId`; each message family has its own `code`.
pub(crate) fn call_id(f: &Fields<'_>, code: ErrorCode) -> Result<String, ProtocolError> {
    non_blank_field(f, "callId", limits::MAX_ENVELOPE_ID_CHARS, code, "callId is required")
}
