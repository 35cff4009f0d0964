//! Typed payloads of the 61 message types.
//!
//! Each struct serialises (camelCase, absent optionals omitted) to exactly the
//! JSON the original sent, and [`crate::messages::parse_payload`] is the only
//! way to build one from untrusted JSON. Opaque values that other crates own
//! (settings objects, chat messages, tool records, tool results) stay
//! `serde_json` values here; their own modules validate them.

use crate::active_file::ActiveEditorFile;
use crate::diff_preview::DiffPreview;
use crate::document_snapshot::PublicDocumentSnapshot;
use crate::edit_checkpoint::TextChange;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A payload that must be exactly `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Settings fields a `SAVE_SETTINGS` may copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SettingsField {
    SystemPrompt,
    Models,
    ActiveModelId,
    MaxHistoryMessages,
    AutoNameModelId,
    EditorApprovalMode,
    SendMessageShortcut,
}

impl SettingsField {
    pub const ALL: [SettingsField; 7] = [
        SettingsField::SystemPrompt,
        SettingsField::Models,
        SettingsField::ActiveModelId,
        SettingsField::MaxHistoryMessages,
        SettingsField::AutoNameModelId,
        SettingsField::EditorApprovalMode,
        SettingsField::SendMessageShortcut,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SettingsField::SystemPrompt => "systemPrompt",
            SettingsField::Models => "models",
            SettingsField::ActiveModelId => "activeModelId",
            SettingsField::MaxHistoryMessages => "maxHistoryMessages",
            SettingsField::AutoNameModelId => "autoNameModelId",
            SettingsField::EditorApprovalMode => "editorApprovalMode",
            SettingsField::SendMessageShortcut => "sendMessageShortcut",
        }
    }

    pub fn from_wire(value: &str) -> Option<SettingsField> {
        SettingsField::ALL.into_iter().find(|f| f.as_str() == value)
    }
}

/// A transactional change to a record registry (models, custom tools, MCP
/// servers). `select` exists only for models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RegistryMutation {
    Upsert { record: Map<String, Value> },
    Replace { records: Vec<Value> },
    Remove { id: String },
    Toggle { id: String },
    Select { id: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveSettings {
    pub settings: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fields: Option<Vec<SettingsField>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model_mutation: Option<RegistryMutation>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveTheme {
    pub theme: String,
}

/// `{projectId}` (`SESSION_LIST`, `SESSION_DELETE_BY_PROJECT`,
/// `OPEN_PROJECT_TAB`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRef {
    pub project_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCreate {
    pub project_id: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
}

/// `{sessionId}` (`SESSION_GET`, `SESSION_DELETE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionUpdate {
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub messages: Option<Vec<Value>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub user_renamed: Option<bool>,
    /// When true, only `name` accompanies it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub auto_name: Option<bool>,
}

/// One of `exportData` or `records` (an object or an array).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionImport {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub export_data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub records: Option<Value>,
}

impl SessionImport {
    /// The data the worker imports (`exportData ?? records`).
    pub fn data(&self) -> Option<&Value> {
        self.export_data.as_ref().or(self.records.as_ref())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EditCheckpointRevert {
    pub checkpoint_id: String,
    pub tab_id: u64,
    pub project_id: String,
    pub session_id: String,
}

/// The exact tab, project and chat a snapshot request is scoped to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotScope {
    pub tab_id: u64,
    pub project_id: String,
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotRequest {
    pub snapshot_id: String,
    pub tab_id: u64,
    pub project_id: String,
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveCustomTools {
    pub tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mutation: Option<RegistryMutation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveMcpServers {
    pub servers: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mutation: Option<RegistryMutation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeMcpServer {
    pub server: Map<String, Value>,
}

/// What part of the editor state a context request wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextProjection {
    Full,
    Edit,
    Numbered,
    Identity,
}

/// `GET_EDITOR_CONTEXT` and `PAGE_GET_CONTEXT` (the page form has no `tabId`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextRequest {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub projection: Option<ContextProjection>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub end_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_chars: Option<u64>,
}

/// `GET_DIAGNOSTICS` (`{tabId?}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiagnosticsRequest {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
}

/// `GET_PREVIEW` and `PAGE_GET_PREVIEW`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreviewRequest {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tab_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prefer_typst_canvas: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub prefer_asset_image: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateSessionTitle {
    pub model_config: Map<String, Value>,
    pub messages: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AiStreamStart {
    pub tab_id: u64,
    pub project_id: String,
    pub session_id: String,
    pub messages: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub settings: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model_config: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub attachments: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub active_editor_file: Option<ActiveEditorFile>,
}

/// `AI_RUN_RESERVE`: the exact identity a later `AI_STREAM_START` must match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReserve {
    pub tab_id: u64,
    pub project_id: String,
    pub session_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStatus {
    pub project_id: String,
    pub session_id: String,
}

/// Which stream a delta belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamChannel {
    Content,
    Reasoning,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamItem {
    pub channel: StreamChannel,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamBatch {
    pub items: Vec<StreamItem>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamDone {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub snapshot: Option<PublicDocumentSnapshot>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub snapshot_warning: Option<String>,
}

/// `AI_STREAM_CANCELLED` and `AI_STREAM_ERROR`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunTerminal {
    pub code: String,
    pub message: String,
}

/// A tool call as the panel shows it: `args` is the parsed object, or
/// `{invalid:true, error}` when the model sent unparsable arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallInfo {
    pub id: String,
    pub name: String,
    pub args: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCalls {
    pub calls: Vec<ToolCallInfo>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub call_id: String,
    pub name: String,
    pub result: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightWaiting {
    pub call_id: String,
    pub name: String,
    pub missing: Vec<String>,
    pub hint: String,
}

/// `{callId}` (`AI_TOOL_PREFLIGHT_READY`, `PAGE_CLEAR_EDIT_PREVIEW`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRef {
    pub call_id: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PreflightAction {
    Retry,
    Cancel,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreflightResolve {
    pub call_id: String,
    pub action: PreflightAction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequired {
    pub call_id: String,
    pub name: String,
    pub identity: String,
    pub effect: String,
    pub destination: String,
    /// Pretty JSON of the arguments, at most 2,000 characters.
    pub arguments: String,
    /// Length of the full pretty JSON (≥ `arguments` length).
    pub argument_chars: u64,
    /// Exactly `argumentChars > arguments.length`.
    pub arguments_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preview: Option<DiffPreview>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub preview_notice: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalAction {
    ApproveOnce,
    AllowRun,
    Deny,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalResolve {
    pub call_id: String,
    pub action: ApprovalAction,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveTabChanged {
    pub on_typst: bool,
    pub url: String,
    /// Always present on the wire; `null` when there is no active tab.
    pub tab_id: Option<u64>,
}

/// Where a quick attachment came from, added by the worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAttachOrigin {
    pub tab_id: u64,
    pub window_id: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub event_id: Option<String>,
}

/// `QUICK_ATTACH_SELECTION` / `QUICK_ATTACH_IMAGE_PREVIEW`: `{}` from the
/// page, the origin when the worker broadcasts it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct QuickAttach {
    #[serde(flatten, skip_serializing_if = "Option::is_none", default)]
    pub origin: Option<QuickAttachOrigin>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAttachDrain {
    pub window_id: u64,
}

/// `PAGE_SHOW_EDIT_PREVIEW`: draw a prepared edit over the editor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageShowEditPreview {
    pub expected_text: String,
    pub expected_editor_token: String,
    pub expected_file_label: String,
    pub changes: Vec<TextChange>,
    pub call_id: String,
    pub preview: DiffPreview,
}

/// `PAGE_APPLY_EDIT`: apply a prepared edit atomically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageApplyEdit {
    pub expected_text: String,
    pub expected_editor_token: String,
    pub expected_file_label: String,
    pub changes: Vec<TextChange>,
    pub call_id: String,
    pub reviewed_diff: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageCancelRequest {
    pub target_request_id: String,
}

/// The `error` of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub details: Option<Value>,
}

impl ResponseError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> ResponseError {
        ResponseError {
            code: code.into(),
            message: message.into(),
            details: None,
        }
    }

    /// A bare message becomes `INTERNAL_ERROR` (the original's string case).
    pub fn internal(message: impl Into<String>) -> ResponseError {
        ResponseError::new(crate::error::response_codes::INTERNAL_ERROR, message)
    }

    /// Attaches details (`null` means none).
    pub fn with_details(mut self, details: Value) -> ResponseError {
        self.details = (!details.is_null()).then_some(details);
        self
    }
}

impl From<crate::error::ProtocolError> for ResponseError {
    fn from(error: crate::error::ProtocolError) -> ResponseError {
        ResponseError::new(error.code.as_str(), error.message).with_details(serde_json::json!({ "path": error.path }))
    }
}

/// `PROTOCOL_RESPONSE` payload: `{ok:true, data}` or
/// `{ok:false, error:{code, message, details?}}`.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponsePayload {
    Ok(Value),
    Err(ResponseError),
}

impl ResponsePayload {
    pub fn to_value(&self) -> Value {
        match self {
            ResponsePayload::Ok(data) => serde_json::json!({ "ok": true, "data": data }),
            ResponsePayload::Err(error) => {
                serde_json::json!({ "ok": false, "error": crate::wire::to_value(error) })
            }
        }
    }

    pub fn into_result(self) -> Result<Value, ResponseError> {
        match self {
            ResponsePayload::Ok(data) => Ok(data),
            ResponsePayload::Err(error) => Err(error),
        }
    }
}
