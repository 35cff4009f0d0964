//! Run control and the run's stream (`AI_RUN_RESERVE`, `AI_STREAM_START`,
//! `AI_RUN_STATUS`, `AI_STREAM_BATCH`, `AI_STREAM_DONE`,
//! `AI_STREAM_CANCELLED`, `AI_STREAM_ERROR`).
//!
//! A run is bound to one tab, project and chat when it is reserved; its
//! events then carry the run id in the envelope, so panels keep only the
//! stream of the run they started.

use super::fields::{SCOPE_ID, exact, fail, project_id, session_id, tab_id};
use crate::active_file::ActiveEditorFile;
use crate::document_snapshot::PublicDocumentSnapshot;
use crate::error::{ErrorCode, ProtocolError};
use crate::limits::{self, to_usize};
use crate::wire;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `AI_STREAM_START`: everything a run needs, sent once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AiStreamStart {
    /// The tab the run reads and edits.
    pub tab_id: u64,
    /// The project (must match the reservation).
    pub project_id: String,
    /// The chat (must match the reservation).
    pub session_id: String,
    /// The chat's messages (the worker validates and bounds them).
    pub messages: Vec<Value>,
    /// The panel's settings for this run.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub settings: Option<Map<String, Value>>,
    /// The model to use.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model_config: Option<Map<String, Value>>,
    /// What the user attached to the message.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub attachments: Option<Map<String, Value>>,
    /// The file the panel saw open when the user sent the message.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub active_editor_file: Option<ActiveEditorFile>,
}

impl AiStreamStart {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<AiStreamStart, ProtocolError> {
        let f = exact(
            p,
            &[
                "tabId",
                "projectId",
                "sessionId",
                "messages",
                "settings",
                "modelConfig",
                "attachments",
                "activeEditorFile",
            ],
            &["tabId", "projectId", "sessionId", "messages"],
        )?;
        let tab_id = tab_id(&f)?;
        let project_id = project_id(&f)?;
        let session_id = session_id(&f)?;
        let messages = wire::array(f.raw("messages")).ok_or_else(|| {
            fail(
                ErrorCode::InvalidMessages,
                f.at("messages"),
                "messages must be an array",
            )
        })?;
        let object = |key: &str| {
            wire::optional(f.raw(key), |v| v.as_object().cloned()).map_err(|()| {
                fail(
                    ErrorCode::InvalidRunStart,
                    f.at(key),
                    "Run settings, modelConfig, and attachments must be objects",
                )
            })
        };
        let settings = object("settings")?;
        let model_config = object("modelConfig")?;
        let attachments = object("attachments")?;
        let active_editor_file =
            wire::optional(f.raw("activeEditorFile"), ActiveEditorFile::parse_strict).map_err(|()| {
                fail(
                    ErrorCode::InvalidActiveEditorFile,
                    f.at("activeEditorFile"),
                    "activeEditorFile is invalid",
                )
            })?;
        Ok(AiStreamStart {
            tab_id,
            project_id,
            session_id,
            messages,
            settings,
            model_config,
            attachments,
            active_editor_file,
        })
    }
}

/// `AI_RUN_RESERVE`: the exact identity a later `AI_STREAM_START` must match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReserve {
    /// The tab the run will use.
    pub tab_id: u64,
    /// The project.
    pub project_id: String,
    /// The chat.
    pub session_id: String,
}

impl RunReserve {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<RunReserve, ProtocolError> {
        let keys = ["tabId", "projectId", "sessionId"];
        let f = exact(p, &keys, &keys)?;
        Ok(RunReserve {
            tab_id: tab_id(&f)?,
            project_id: project_id(&f)?,
            session_id: session_id(&f)?,
        })
    }
}

/// `AI_RUN_STATUS`: whether a chat has a run in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStatus {
    /// The project.
    pub project_id: String,
    /// The chat.
    pub session_id: String,
}

impl RunStatus {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<RunStatus, ProtocolError> {
        let f = exact(p, &["projectId", "sessionId"], &["projectId", "sessionId"])?;
        let message = "Run status requires projectId and sessionId";
        let read = |key: &str| {
            wire::bounded_non_blank(f.raw(key), to_usize(SCOPE_ID))
                .ok_or_else(|| fail(ErrorCode::InvalidRunStatus, f.at(key), message))
        };
        Ok(RunStatus {
            project_id: read("projectId")?,
            session_id: read("sessionId")?,
        })
    }
}

/// One run in progress, as an `AI_RUN_STATUS` answer lists it. The worker
/// writes these and the panel reads them back, so both use this record.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    /// The run's id.
    pub run_id: String,
    /// The tab the run reads and edits.
    pub tab_id: u64,
    /// The project the run was started in.
    pub project_id: String,
    /// The chat the run answers.
    pub session_id: String,
    /// When the run was admitted (`Date.now()` milliseconds).
    pub started_at: f64,
}

impl RunSummary {
    /// The answer's JSON form (`startedAt` an integer when whole, as `Date.now()` is).
    pub fn to_value(&self) -> Value {
        serde_json::json!({
            "runId": self.run_id,
            "tabId": self.tab_id,
            "projectId": self.project_id,
            "sessionId": self.session_id,
            "startedAt": crate::js::number_value(self.started_at),
        })
    }

    /// Reads one entry of an answer. The panel needs the run id and the tab;
    /// an entry without them is skipped (`None`), missing text fields read as
    /// empty and a missing start time as 0, so one odd entry costs nothing.
    pub fn from_value(item: &Value) -> Option<RunSummary> {
        let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let run_id = text("runId");
        if run_id.is_empty() {
            return None;
        }
        Some(RunSummary {
            run_id,
            tab_id: item.get("tabId").and_then(crate::js::as_safe_uint)?,
            project_id: text("projectId"),
            session_id: text("sessionId"),
            started_at: item.get("startedAt").and_then(crate::js::as_number).unwrap_or(0.0),
        })
    }

    /// The newest run of an `AI_RUN_STATUS` answer.
    pub fn latest(answer: &Value) -> Option<RunSummary> {
        answer
            .as_array()?
            .iter()
            .filter_map(RunSummary::from_value)
            .max_by(|a, b| a.started_at.total_cmp(&b.started_at))
    }
}

#[cfg(test)]
mod run_summary_tests {
    use super::RunSummary;
    use serde_json::json;

    #[test]
    fn a_summary_reads_back_and_the_newest_wins() {
        let first = RunSummary {
            run_id: "run-1".into(),
            tab_id: 7,
            project_id: "p".into(),
            session_id: "s".into(),
            started_at: 10.0,
        };
        assert_eq!(
            first.to_value(),
            json!({"runId": "run-1", "tabId": 7, "projectId": "p", "sessionId": "s", "startedAt": 10})
        );
        assert_eq!(RunSummary::from_value(&first.to_value()), Some(first.clone()));
        let answer = json!([
            first.to_value(),
            {"runId": "run-2", "tabId": 8, "startedAt": 20.5},
            {"runId": "", "tabId": 9, "startedAt": 99},
            {"runId": "run-4", "tabId": -1, "startedAt": 99},
            "junk"
        ]);
        assert_eq!(
            RunSummary::latest(&answer).map(|r| (r.run_id, r.tab_id)),
            Some(("run-2".into(), 8))
        );
        assert_eq!(RunSummary::latest(&json!({})), None);
    }
}

/// Which stream a delta belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamChannel {
    /// The answer the user reads.
    Content,
    /// The model's reasoning, shown apart from the answer.
    Reasoning,
}

/// One delta of streamed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamItem {
    /// Where the text goes.
    pub channel: StreamChannel,
    /// The text to append.
    pub text: String,
}

/// `AI_STREAM_BATCH`: deltas batched into one message, so a fast model does
/// not send the panel one message per token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamBatch {
    /// The deltas, in order.
    pub items: Vec<StreamItem>,
}

impl StreamBatch {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<StreamBatch, ProtocolError> {
        let f = exact(p, &["items"], &["items"])?;
        let message = "Stream batch items are invalid";
        let raw = f
            .raw("items")
            .and_then(Value::as_array)
            .filter(|items| items.len() <= to_usize(limits::MAX_STREAM_BATCH_ITEMS))
            .ok_or_else(|| fail(ErrorCode::InvalidStreamBatch, f.at("items"), message))?;
        let mut items = Vec::with_capacity(raw.len());
        for (index, item) in raw.iter().enumerate() {
            let parsed = item.as_object().and_then(|m| {
                if m.keys().any(|k| !matches!(k.as_str(), "channel" | "text")) {
                    return None;
                }
                let channel = match m.get("channel")?.as_str()? {
                    "content" => StreamChannel::Content,
                    "reasoning" => StreamChannel::Reasoning,
                    _ => return None,
                };
                Some(StreamItem {
                    channel,
                    text: m.get("text")?.as_str()?.to_owned(),
                })
            });
            items.push(parsed.ok_or_else(|| {
                fail(
                    ErrorCode::InvalidStreamBatch,
                    format!("$.payload.items[{index}]"),
                    message,
                )
            })?);
        }
        Ok(StreamBatch { items })
    }
}

/// `AI_STREAM_DONE`: the run finished.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamDone {
    /// The snapshot taken of the document the run edited.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub snapshot: Option<PublicDocumentSnapshot>,
    /// Why no snapshot could be kept, when one should have been.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub snapshot_warning: Option<String>,
}

impl StreamDone {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<StreamDone, ProtocolError> {
        let f = exact(p, &["snapshot", "snapshotWarning"], &[])?;
        let snapshot = wire::optional(f.raw("snapshot"), PublicDocumentSnapshot::parse_strict).map_err(|()| {
            fail(
                ErrorCode::InvalidDocumentSnapshot,
                f.at("snapshot"),
                "Completed-run snapshot metadata is invalid.",
            )
        })?;
        let snapshot_warning = wire::optional(f.raw("snapshotWarning"), |v| {
            wire::bounded_string(Some(v), to_usize(limits::MAX_NOTICE_CHARS))
        })
        .map_err(|()| {
            fail(
                ErrorCode::InvalidDocumentSnapshotWarning,
                f.at("snapshotWarning"),
                "Completed-run snapshot warning is invalid.",
            )
        })?;
        Ok(StreamDone {
            snapshot,
            snapshot_warning,
        })
    }
}

/// `AI_STREAM_CANCELLED` and `AI_STREAM_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTerminal {
    /// The stable code (`CANCELLED` for a stop).
    pub code: String,
    /// The sentence the panel shows.
    pub message: String,
}

impl RunTerminal {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<RunTerminal, ProtocolError> {
        let f = exact(p, &["code", "message"], &["code", "message"])?;
        let message = "Run terminal error requires code and message";
        let code = wire::bounded_non_blank(f.raw("code"), to_usize(limits::MAX_ERROR_CODE_CHARS))
            .ok_or_else(|| fail(ErrorCode::InvalidRunError, f.at("code"), message))?;
        let text = f
            .raw("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| fail(ErrorCode::InvalidRunError, f.at("message"), message))?;
        Ok(RunTerminal { code, message: text })
    }
}

/// One thing the user should know about a run that does not stop it: an
/// MCP server that could not be reached, tools it offered that were left
/// out. `code` is the catalogue code of the cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunNotice {
    /// The stable code of what happened (`MCP_NETWORK_ERROR`, `TIMEOUT`, …).
    pub code: String,
    /// The sentence the panel shows, naming the server.
    pub message: String,
}

/// `AI_RUN_NOTICE`: what the run left out and why, sent once when the run
/// has built its tools and before the model is asked, and once more if the
/// run's tool budget is spent (`TOOL_BUDGET_EXHAUSTED`). New in the port: the
/// original dropped a failing MCP server silently and had no budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunNotices {
    /// One to [`limits::MAX_RUN_NOTICES`] notices, in the order of the
    /// configured servers.
    pub notices: Vec<RunNotice>,
}

impl RunNotices {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<RunNotices, ProtocolError> {
        let f = exact(p, &["notices"], &["notices"])?;
        let message = "Run notices are invalid";
        let raw = f
            .raw("notices")
            .and_then(Value::as_array)
            .filter(|items| !items.is_empty() && items.len() <= to_usize(limits::MAX_RUN_NOTICES))
            .ok_or_else(|| fail(ErrorCode::InvalidRunNotice, f.at("notices"), message))?;
        let mut notices = Vec::with_capacity(raw.len());
        for (index, item) in raw.iter().enumerate() {
            let parsed = item.as_object().and_then(|m| {
                if m.keys().any(|k| !matches!(k.as_str(), "code" | "message")) {
                    return None;
                }
                Some(RunNotice {
                    code: wire::bounded_non_blank(m.get("code"), to_usize(limits::MAX_ERROR_CODE_CHARS))?,
                    message: wire::bounded_non_blank(m.get("message"), to_usize(limits::MAX_NOTICE_CHARS))?,
                })
            });
            notices.push(parsed.ok_or_else(|| {
                fail(
                    ErrorCode::InvalidRunNotice,
                    format!("$.payload.notices[{index}]"),
                    message,
                )
            })?);
        }
        Ok(RunNotices { notices })
    }
}
