//! What the worker tells panels about browser tabs and windows: the active
//! tab (`ACTIVE_TAB_CHANGED`) and quick attachments ("Add to agent" on the
//! page: `QUICK_ATTACH_SELECTION`, `QUICK_ATTACH_IMAGE_PREVIEW`,
//! `QUICK_ATTACH_DRAIN`).
//!
//! A quick attachment is bound to the tab and window it came from, so a
//! panel only takes the ones meant for it.

use super::fields::{PAYLOAD, exact, fail};
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ACTIVE_TAB_CHANGED`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveTabChanged {
    /// Whether the tab shows a typst.app project.
    pub on_typst: bool,
    /// The tab's URL.
    pub url: String,
    /// Always present on the wire; `null` when there is no active tab.
    pub tab_id: Option<u64>,
}

impl ActiveTabChanged {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ActiveTabChanged, ProtocolError> {
        let keys = ["onTypst", "url", "tabId"];
        let f = exact(p, &keys, &keys)?;
        let invalid = |key: &str| fail(ErrorCode::InvalidTabEvent, f.at(key), "Active-tab event is invalid");
        let on_typst = f
            .raw("onTypst")
            .and_then(Value::as_bool)
            .ok_or_else(|| invalid("onTypst"))?;
        let url = f
            .raw("url")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| invalid("url"))?;
        let tab_id = wire::optional(f.raw("tabId"), js::as_safe_uint).map_err(|()| invalid("tabId"))?;
        Ok(ActiveTabChanged { on_typst, url, tab_id })
    }
}

/// Where a quick attachment came from, added by the worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAttachOrigin {
    /// The page's tab.
    pub tab_id: u64,
    /// The tab's window: only that window's panel takes the attachment.
    pub window_id: u64,
    /// The worker's id of the event.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub event_id: Option<String>,
}

/// `QUICK_ATTACH_SELECTION` / `QUICK_ATTACH_IMAGE_PREVIEW`: `{}` from the
/// page, the origin when the worker broadcasts it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct QuickAttach {
    /// Absent in the page's request, present in the worker's broadcast.
    #[serde(flatten, skip_serializing_if = "Option::is_none", default)]
    pub origin: Option<QuickAttachOrigin>,
}

impl QuickAttach {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<QuickAttach, ProtocolError> {
        if p.is_empty() {
            return Ok(QuickAttach { origin: None });
        }
        let f = exact(p, &["tabId", "windowId", "eventId"], &["tabId", "windowId"])?;
        let invalid = || {
            fail(
                ErrorCode::InvalidQuickAttachSource,
                PAYLOAD,
                "Quick attachment requires non-negative tabId and windowId values.",
            )
        };
        let tab_id = wire::uint(f.raw("tabId")).ok_or_else(invalid)?;
        let window_id = wire::uint(f.raw("windowId")).ok_or_else(invalid)?;
        let event_id = wire::optional(f.raw("eventId"), |v| {
            wire::bounded_non_blank(Some(v), to_usize(limits::MAX_ENVELOPE_ID_CHARS))
        })
        .map_err(|()| invalid())?;
        Ok(QuickAttach {
            origin: Some(QuickAttachOrigin {
                tab_id,
                window_id,
                event_id,
            }),
        })
    }
}

/// `QUICK_ATTACH_DRAIN`: a panel takes what the worker queued for its
/// window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAttachDrain {
    /// The panel's window.
    pub window_id: u64,
}

impl QuickAttachDrain {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<QuickAttachDrain, ProtocolError> {
        let f = exact(p, &["windowId"], &["windowId"])?;
        let window_id = wire::uint(f.raw("windowId")).ok_or_else(|| {
            fail(
                ErrorCode::InvalidWindowId,
                f.at("windowId"),
                "windowId must be a non-negative integer",
            )
        })?;
        Ok(QuickAttachDrain { window_id })
    }
}
