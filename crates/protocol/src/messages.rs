//! Envelopes and payload parsing: the exact, fail-closed message contract.
//!
//! Every message is `{type, requestId?, runId?, payload}` (the page bridge adds
//! `nonce`). [`parse_envelope`] turns untrusted JSON into an [`Envelope`] with a
//! typed [`Payload`], or a [`ProtocolError`] carrying the original's code and
//! the JSON path of the first problem. [`Envelope::to_value`] writes the exact
//! wire JSON back. Nothing here panics, whatever the input.

use crate::active_file::ActiveEditorFile;
use crate::diff_preview::DiffPreview;
use crate::document_snapshot::PublicDocumentSnapshot;
use crate::edit_checkpoint::TextChange;
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::message_type::{MessageKind, MessageType};
use crate::payloads::*;
use crate::wire::{self, Fields};
use serde_json::{Map, Value};

const PAYLOAD: &str = "$.payload";

fn fail(code: ErrorCode, path: impl Into<String>, message: &str) -> ProtocolError {
    ProtocolError::new(code, path, message)
}

/// The typed payload of each message type.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Response(ResponsePayload),
    LoadSettings(Empty),
    SaveSettings(SaveSettings),
    LoadTheme(Empty),
    SaveTheme(SaveTheme),
    SessionList(ProjectRef),
    SessionCreate(SessionCreate),
    SessionGet(SessionRef),
    SessionUpdate(SessionUpdate),
    SessionDelete(SessionRef),
    SessionListAllGrouped(Empty),
    SessionDeleteByProject(ProjectRef),
    SessionImport(SessionImport),
    SessionExport(Empty),
    SessionStorageStatus(Empty),
    EditCheckpointRevert(EditCheckpointRevert),
    DocumentSnapshotList(SnapshotScope),
    DocumentSnapshotPreview(SnapshotRequest),
    DocumentSnapshotRestore(SnapshotRequest),
    DocumentSnapshotDelete(SnapshotRequest),
    OpenProjectTab(ProjectRef),
    LoadCustomTools(Empty),
    SaveCustomTools(SaveCustomTools),
    LoadMcpServers(Empty),
    SaveMcpServers(SaveMcpServers),
    ProbeMcpServer(ProbeMcpServer),
    GetEditorContext(ContextRequest),
    GetPreview(PreviewRequest),
    GetDiagnostics(DiagnosticsRequest),
    GenerateSessionTitle(GenerateSessionTitle),
    AiStreamStart(AiStreamStart),
    AiRunReserve(RunReserve),
    AiStreamCancel(Empty),
    AiRunStatus(RunStatus),
    AiStreamBatch(StreamBatch),
    AiStreamDone(StreamDone),
    AiStreamCancelled(RunTerminal),
    AiStreamError(RunTerminal),
    AiToolCalls(ToolCalls),
    AiToolResult(ToolResult),
    AiToolPreflightWaiting(PreflightWaiting),
    AiToolPreflightReady(CallRef),
    AiToolPreflightResolve(PreflightResolve),
    AiToolApprovalRequired(ApprovalRequired),
    AiToolApprovalResolve(ApprovalResolve),
    ActiveTabChanged(ActiveTabChanged),
    QuickAttachSelection(QuickAttach),
    QuickAttachImagePreview(QuickAttach),
    QuickAttachDrain(QuickAttachDrain),
    /// The page form carries no `tabId`.
    PageGetContext(ContextRequest),
    PageGetPreview(PreviewRequest),
    /// The page form is exactly `{}`.
    PageGetDiagnostics(Empty),
    PageGetProbe(Empty),
    PageCancelRequest(PageCancelRequest),
    PageShowEditPreview(PageShowEditPreview),
    PageClearEditPreview(CallRef),
    PageApplyEdit(PageApplyEdit),
    PageQuickSelection(Empty),
    PageQuickImagePreview(Empty),
    PageBridgeInit(Empty),
    PageBridgeReady(Empty),
}

macro_rules! payload_dispatch {
    ($self:ident, $inner:ident => $body:expr, response($resp:ident) => $resp_body:expr) => {
        match $self {
            Payload::Response($resp) => $resp_body,
            Payload::LoadSettings($inner) => $body,
            Payload::SaveSettings($inner) => $body,
            Payload::LoadTheme($inner) => $body,
            Payload::SaveTheme($inner) => $body,
            Payload::SessionList($inner) => $body,
            Payload::SessionCreate($inner) => $body,
            Payload::SessionGet($inner) => $body,
            Payload::SessionUpdate($inner) => $body,
            Payload::SessionDelete($inner) => $body,
            Payload::SessionListAllGrouped($inner) => $body,
            Payload::SessionDeleteByProject($inner) => $body,
            Payload::SessionImport($inner) => $body,
            Payload::SessionExport($inner) => $body,
            Payload::SessionStorageStatus($inner) => $body,
            Payload::EditCheckpointRevert($inner) => $body,
            Payload::DocumentSnapshotList($inner) => $body,
            Payload::DocumentSnapshotPreview($inner) => $body,
            Payload::DocumentSnapshotRestore($inner) => $body,
            Payload::DocumentSnapshotDelete($inner) => $body,
            Payload::OpenProjectTab($inner) => $body,
            Payload::LoadCustomTools($inner) => $body,
            Payload::SaveCustomTools($inner) => $body,
            Payload::LoadMcpServers($inner) => $body,
            Payload::SaveMcpServers($inner) => $body,
            Payload::ProbeMcpServer($inner) => $body,
            Payload::GetEditorContext($inner) => $body,
            Payload::GetPreview($inner) => $body,
            Payload::GetDiagnostics($inner) => $body,
            Payload::GenerateSessionTitle($inner) => $body,
            Payload::AiStreamStart($inner) => $body,
            Payload::AiRunReserve($inner) => $body,
            Payload::AiStreamCancel($inner) => $body,
            Payload::AiRunStatus($inner) => $body,
            Payload::AiStreamBatch($inner) => $body,
            Payload::AiStreamDone($inner) => $body,
            Payload::AiStreamCancelled($inner) => $body,
            Payload::AiStreamError($inner) => $body,
            Payload::AiToolCalls($inner) => $body,
            Payload::AiToolResult($inner) => $body,
            Payload::AiToolPreflightWaiting($inner) => $body,
            Payload::AiToolPreflightReady($inner) => $body,
            Payload::AiToolPreflightResolve($inner) => $body,
            Payload::AiToolApprovalRequired($inner) => $body,
            Payload::AiToolApprovalResolve($inner) => $body,
            Payload::ActiveTabChanged($inner) => $body,
            Payload::QuickAttachSelection($inner) => $body,
            Payload::QuickAttachImagePreview($inner) => $body,
            Payload::QuickAttachDrain($inner) => $body,
            Payload::PageGetContext($inner) => $body,
            Payload::PageGetPreview($inner) => $body,
            Payload::PageGetDiagnostics($inner) => $body,
            Payload::PageGetProbe($inner) => $body,
            Payload::PageCancelRequest($inner) => $body,
            Payload::PageShowEditPreview($inner) => $body,
            Payload::PageClearEditPreview($inner) => $body,
            Payload::PageApplyEdit($inner) => $body,
            Payload::PageQuickSelection($inner) => $body,
            Payload::PageQuickImagePreview($inner) => $body,
            Payload::PageBridgeInit($inner) => $body,
            Payload::PageBridgeReady($inner) => $body,
        }
    };
}

impl Payload {
    /// The message type this payload belongs to.
    pub fn message_type(&self) -> MessageType {
        use MessageType as T;
        match self {
            Payload::Response(_) => T::Response,
            Payload::LoadSettings(_) => T::LoadSettings,
            Payload::SaveSettings(_) => T::SaveSettings,
            Payload::LoadTheme(_) => T::LoadTheme,
            Payload::SaveTheme(_) => T::SaveTheme,
            Payload::SessionList(_) => T::SessionList,
            Payload::SessionCreate(_) => T::SessionCreate,
            Payload::SessionGet(_) => T::SessionGet,
            Payload::SessionUpdate(_) => T::SessionUpdate,
            Payload::SessionDelete(_) => T::SessionDelete,
            Payload::SessionListAllGrouped(_) => T::SessionListAllGrouped,
            Payload::SessionDeleteByProject(_) => T::SessionDeleteByProject,
            Payload::SessionImport(_) => T::SessionImport,
            Payload::SessionExport(_) => T::SessionExport,
            Payload::SessionStorageStatus(_) => T::SessionStorageStatus,
            Payload::EditCheckpointRevert(_) => T::EditCheckpointRevert,
            Payload::DocumentSnapshotList(_) => T::DocumentSnapshotList,
            Payload::DocumentSnapshotPreview(_) => T::DocumentSnapshotPreview,
            Payload::DocumentSnapshotRestore(_) => T::DocumentSnapshotRestore,
            Payload::DocumentSnapshotDelete(_) => T::DocumentSnapshotDelete,
            Payload::OpenProjectTab(_) => T::OpenProjectTab,
            Payload::LoadCustomTools(_) => T::LoadCustomTools,
            Payload::SaveCustomTools(_) => T::SaveCustomTools,
            Payload::LoadMcpServers(_) => T::LoadMcpServers,
            Payload::SaveMcpServers(_) => T::SaveMcpServers,
            Payload::ProbeMcpServer(_) => T::ProbeMcpServer,
            Payload::GetEditorContext(_) => T::GetEditorContext,
            Payload::GetPreview(_) => T::GetPreview,
            Payload::GetDiagnostics(_) => T::GetDiagnostics,
            Payload::GenerateSessionTitle(_) => T::GenerateSessionTitle,
            Payload::AiStreamStart(_) => T::AiStreamStart,
            Payload::AiRunReserve(_) => T::AiRunReserve,
            Payload::AiStreamCancel(_) => T::AiStreamCancel,
            Payload::AiRunStatus(_) => T::AiRunStatus,
            Payload::AiStreamBatch(_) => T::AiStreamBatch,
            Payload::AiStreamDone(_) => T::AiStreamDone,
            Payload::AiStreamCancelled(_) => T::AiStreamCancelled,
            Payload::AiStreamError(_) => T::AiStreamError,
            Payload::AiToolCalls(_) => T::AiToolCalls,
            Payload::AiToolResult(_) => T::AiToolResult,
            Payload::AiToolPreflightWaiting(_) => T::AiToolPreflightWaiting,
            Payload::AiToolPreflightReady(_) => T::AiToolPreflightReady,
            Payload::AiToolPreflightResolve(_) => T::AiToolPreflightResolve,
            Payload::AiToolApprovalRequired(_) => T::AiToolApprovalRequired,
            Payload::AiToolApprovalResolve(_) => T::AiToolApprovalResolve,
            Payload::ActiveTabChanged(_) => T::ActiveTabChanged,
            Payload::QuickAttachSelection(_) => T::QuickAttachSelection,
            Payload::QuickAttachImagePreview(_) => T::QuickAttachImagePreview,
            Payload::QuickAttachDrain(_) => T::QuickAttachDrain,
            Payload::PageGetContext(_) => T::PageGetContext,
            Payload::PageGetPreview(_) => T::PageGetPreview,
            Payload::PageGetDiagnostics(_) => T::PageGetDiagnostics,
            Payload::PageGetProbe(_) => T::PageGetProbe,
            Payload::PageCancelRequest(_) => T::PageCancelRequest,
            Payload::PageShowEditPreview(_) => T::PageShowEditPreview,
            Payload::PageClearEditPreview(_) => T::PageClearEditPreview,
            Payload::PageApplyEdit(_) => T::PageApplyEdit,
            Payload::PageQuickSelection(_) => T::PageQuickSelection,
            Payload::PageQuickImagePreview(_) => T::PageQuickImagePreview,
            Payload::PageBridgeInit(_) => T::PageBridgeInit,
            Payload::PageBridgeReady(_) => T::PageBridgeReady,
        }
    }

    /// The exact wire JSON of the payload.
    pub fn to_value(&self) -> Value {
        payload_dispatch!(self, inner => wire::to_value(inner), response(r) => r.to_value())
    }
}

/// A validated message.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub request_id: Option<String>,
    pub run_id: Option<String>,
    /// Only on the page bridge (isolated ↔ main world).
    pub nonce: Option<String>,
    pub payload: Payload,
}

/// Extra conditions a receiver puts on a message.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions<'a> {
    /// Only this type is accepted (`UNEXPECTED_MESSAGE_TYPE`).
    pub expected_type: Option<MessageType>,
    /// Only these types are accepted (`DISALLOWED_MESSAGE_TYPE`).
    pub allowed_types: Option<&'a [MessageType]>,
    /// The message travels over the page bridge and must carry a `nonce`;
    /// without this flag a `nonce` field is refused.
    pub bridge: bool,
}

impl<'a> ParseOptions<'a> {
    pub fn expecting(message_type: MessageType) -> ParseOptions<'a> {
        ParseOptions {
            expected_type: Some(message_type),
            ..ParseOptions::default()
        }
    }

    pub fn allowing(types: &'a [MessageType]) -> ParseOptions<'a> {
        ParseOptions {
            allowed_types: Some(types),
            ..ParseOptions::default()
        }
    }

    pub fn bridge() -> ParseOptions<'a> {
        ParseOptions {
            bridge: true,
            ..ParseOptions::default()
        }
    }
}

fn envelope_id(
    map: &Map<String, Value>,
    key: &str,
    required: bool,
    code: ErrorCode,
    ty: MessageType,
) -> Result<Option<String>, ProtocolError> {
    let path = format!("$.{key}");
    match map.get(key) {
        None | Some(Value::Null) if !required => Ok(None),
        Some(Value::String(s))
            if js::is_non_blank(s) && js::utf16_len(s) <= to_usize(limits::MAX_ENVELOPE_ID_CHARS) =>
        {
            Ok(Some(s.clone()))
        }
        _ => Err(fail(
            code,
            path,
            &format!(
                "{} requires a non-blank {key} of at most {} characters",
                ty.as_str(),
                limits::MAX_ENVELOPE_ID_CHARS
            ),
        )),
    }
}

/// Validates a whole message (`validateEnvelope`).
pub fn parse_envelope(value: &Value, options: &ParseOptions<'_>) -> Result<Envelope, ProtocolError> {
    let Some(map) = value.as_object() else {
        return Err(fail(ErrorCode::InvalidEnvelope, "$", "Message must be an object"));
    };
    let Some(ty) = map.get("type").and_then(Value::as_str).and_then(MessageType::from_wire) else {
        return Err(fail(ErrorCode::UnknownMessageType, "$.type", "Unknown message type"));
    };
    if let Some(expected) = options.expected_type
        && ty != expected
    {
        return Err(fail(
            ErrorCode::UnexpectedMessageType,
            "$.type",
            &format!("Expected {}", expected.as_str()),
        ));
    }
    if let Some(allowed) = options.allowed_types
        && !allowed.contains(&ty)
    {
        return Err(fail(
            ErrorCode::DisallowedMessageType,
            "$.type",
            &format!("Message type {} is not accepted here", ty.as_str()),
        ));
    }
    let envelope_fields: &[&str] = if options.bridge {
        &["type", "requestId", "runId", "nonce", "payload"]
    } else {
        &["type", "requestId", "runId", "payload"]
    };
    if let Some(unknown) = map.keys().find(|k| !envelope_fields.contains(&k.as_str())) {
        return Err(fail(
            ErrorCode::UnknownEnvelopeField,
            format!("$.{unknown}"),
            &format!("Unknown envelope field: {unknown}"),
        ));
    }
    let request_id = envelope_id(
        map,
        "requestId",
        ty.requires_request_id(),
        ErrorCode::InvalidRequestId,
        ty,
    )?;
    let run_id = envelope_id(map, "runId", ty.is_run_scoped(), ErrorCode::InvalidRunId, ty)?;
    let nonce = if options.bridge {
        envelope_id(map, "nonce", true, ErrorCode::InvalidNonce, ty)?
    } else {
        None
    };
    let Some(payload) = map.get("payload").filter(|p| p.is_object()) else {
        return Err(fail(
            ErrorCode::InvalidPayload,
            PAYLOAD,
            "Message payload must be an object",
        ));
    };
    let payload = parse_payload(ty, payload)?;
    Ok(Envelope {
        request_id,
        run_id,
        nonce,
        payload,
    })
}

impl Envelope {
    pub fn message_type(&self) -> MessageType {
        self.payload.message_type()
    }

    /// A request (`buildRequest`); `request_id` is the caller's fresh id.
    pub fn request(payload: Payload, request_id: impl Into<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id: None,
            nonce: None,
            payload,
        }
    }

    /// Adds the run id (run-scoped requests; optional on page requests).
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> Envelope {
        self.run_id = Some(run_id.into());
        self
    }

    /// Adds the page bridge's nonce.
    pub fn with_nonce(mut self, nonce: impl Into<String>) -> Envelope {
        self.nonce = Some(nonce.into());
        self
    }

    /// A run event (`buildRunEvent`): no request id.
    pub fn run_event(payload: Payload, run_id: impl Into<String>) -> Envelope {
        Envelope {
            request_id: None,
            run_id: Some(run_id.into()),
            nonce: None,
            payload,
        }
    }

    /// A non-run event (optionally with a request id, as the worker's
    /// broadcasts carry one).
    pub fn event(payload: Payload) -> Envelope {
        Envelope {
            request_id: None,
            run_id: None,
            nonce: None,
            payload,
        }
    }

    /// `successResponse`.
    pub fn success(request_id: impl Into<String>, data: Value, run_id: Option<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id,
            nonce: None,
            payload: Payload::Response(ResponsePayload::Ok(data)),
        }
    }

    /// `errorResponse`.
    pub fn failure(request_id: impl Into<String>, error: ResponseError, run_id: Option<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id,
            nonce: None,
            payload: Payload::Response(ResponsePayload::Err(error)),
        }
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert(
            "type".to_owned(),
            Value::String(self.message_type().as_str().to_owned()),
        );
        if let Some(id) = &self.request_id {
            map.insert("requestId".to_owned(), Value::String(id.clone()));
        }
        if let Some(id) = &self.run_id {
            map.insert("runId".to_owned(), Value::String(id.clone()));
        }
        if let Some(nonce) = &self.nonce {
            map.insert("nonce".to_owned(), Value::String(nonce.clone()));
        }
        map.insert("payload".to_owned(), self.payload.to_value());
        Value::Object(map)
    }

    /// Whether this is a run event (run-scoped and not a request).
    pub fn is_run_event(&self) -> bool {
        let ty = self.message_type();
        ty.is_run_scoped() && ty.kind() == MessageKind::Event
    }
}

/// Why [`unwrap_response`] produced no data.
#[derive(Debug, Clone, PartialEq)]
pub enum UnwrapError {
    /// The message is not a valid `PROTOCOL_RESPONSE`.
    Invalid(ProtocolError),
    /// The response reports a failure.
    Failed(ResponseError),
}

/// `unwrapResponse`: the `data` of a successful response.
pub fn unwrap_response(value: &Value) -> Result<Value, UnwrapError> {
    let envelope =
        parse_envelope(value, &ParseOptions::expecting(MessageType::Response)).map_err(UnwrapError::Invalid)?;
    match envelope.payload {
        Payload::Response(response) => response.into_result().map_err(UnwrapError::Failed),
        _ => Err(UnwrapError::Invalid(fail(
            ErrorCode::UnexpectedMessageType,
            "$.type",
            "Expected PROTOCOL_RESPONSE",
        ))),
    }
}

// ----- payload parsers -----

fn exact<'a>(
    payload: &'a Map<String, Value>,
    allowed: &[&str],
    required: &[&str],
) -> Result<Fields<'a>, ProtocolError> {
    Fields::exact(payload, PAYLOAD, allowed, required)
}

fn empty(payload: &Map<String, Value>) -> Result<Empty, ProtocolError> {
    exact(payload, &[], &[]).map(|_| Empty {})
}

fn non_blank_field(
    f: &Fields<'_>,
    key: &str,
    max: u32,
    code: ErrorCode,
    message: &str,
) -> Result<String, ProtocolError> {
    wire::bounded_non_blank(f.raw(key), to_usize(max)).ok_or_else(|| fail(code, f.at(key), message))
}

fn tab_id(f: &Fields<'_>, code: ErrorCode) -> Result<u64, ProtocolError> {
    wire::uint(f.raw("tabId")).ok_or_else(|| fail(code, f.at("tabId"), "tabId must be a non-negative integer"))
}

fn optional_tab_id(f: &Fields<'_>, code: ErrorCode, path: Option<&str>) -> Result<Option<u64>, ProtocolError> {
    wire::optional(f.raw("tabId"), js::as_safe_uint).map_err(|()| {
        fail(
            code,
            path.map_or_else(|| f.at("tabId"), str::to_owned),
            "tabId must be a non-negative integer",
        )
    })
}

const SCOPE_ID: u32 = limits::MAX_SCOPE_ID_CHARS;

fn project_id(f: &Fields<'_>) -> Result<String, ProtocolError> {
    non_blank_field(
        f,
        "projectId",
        SCOPE_ID,
        ErrorCode::InvalidProjectId,
        "projectId is required",
    )
}

fn session_id(f: &Fields<'_>) -> Result<String, ProtocolError> {
    non_blank_field(
        f,
        "sessionId",
        SCOPE_ID,
        ErrorCode::InvalidSessionId,
        "sessionId is required",
    )
}

fn call_id(f: &Fields<'_>, code: ErrorCode) -> Result<String, ProtocolError> {
    non_blank_field(f, "callId", limits::MAX_ENVELOPE_ID_CHARS, code, "callId is required")
}

/// A project id that may be empty (legacy and imported chats group under
/// `''`), bounded like every scope id.
fn any_project_id(f: &Fields<'_>, code: ErrorCode, path: &str) -> Result<String, ProtocolError> {
    wire::bounded_string(f.raw("projectId"), to_usize(SCOPE_ID))
        .ok_or_else(|| fail(code, path, "projectId must be a string"))
}

fn registry_mutation(value: &Value, allow_select: bool) -> Option<RegistryMutation> {
    let map = value.as_object()?;
    let kind = map.get("type")?.as_str()?;
    let only = |keys: &[&str]| map.keys().all(|k| keys.contains(&k.as_str()));
    let id = || {
        map.get("id")
            .and_then(Value::as_str)
            .filter(|s| js::is_non_blank(s) && js::utf16_len(s) <= to_usize(limits::MAX_RECORD_ID_CHARS))
            .map(str::to_owned)
    };
    match kind {
        "upsert" if only(&["type", "record"]) => {
            let record = map.get("record")?.as_object()?;
            record
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| js::is_non_blank(s))?;
            Some(RegistryMutation::Upsert { record: record.clone() })
        }
        "replace" if only(&["type", "records"]) => Some(RegistryMutation::Replace {
            records: map.get("records")?.as_array()?.clone(),
        }),
        "remove" if only(&["type", "id"]) => Some(RegistryMutation::Remove { id: id()? }),
        "toggle" if only(&["type", "id"]) => Some(RegistryMutation::Toggle { id: id()? }),
        "select" if allow_select && only(&["type", "id"]) => Some(RegistryMutation::Select { id: id()? }),
        _ => None,
    }
}

fn context_request(f: &Fields<'_>, allow_tab: bool) -> Result<ContextRequest, ProtocolError> {
    let tab_id = if allow_tab {
        optional_tab_id(f, ErrorCode::InvalidTabId, None)?
    } else {
        None
    };
    let projection = wire::optional(f.raw("projection"), |v| match v.as_str()? {
        "full" => Some(ContextProjection::Full),
        "edit" => Some(ContextProjection::Edit),
        "numbered" => Some(ContextProjection::Numbered),
        "identity" => Some(ContextProjection::Identity),
        _ => None,
    })
    .map_err(|()| {
        fail(
            ErrorCode::InvalidContextProjection,
            f.at("projection"),
            "Context projection is invalid",
        )
    })?;
    let line = |key: &str| {
        wire::optional(f.raw(key), |v| js::as_safe_uint(v).filter(|n| *n >= 1)).map_err(|()| {
            fail(
                ErrorCode::InvalidContextRange,
                f.at(key),
                &format!("{key} must be a positive integer"),
            )
        })
    };
    let start_line = line("startLine")?;
    let end_line = line("endLine")?;
    if let (Some(start), Some(end)) = (start_line, end_line)
        && end < start
    {
        return Err(fail(
            ErrorCode::InvalidContextRange,
            f.at("endLine"),
            "endLine must not precede startLine",
        ));
    }
    let max_chars = wire::optional(f.raw("maxChars"), |v| {
        js::as_safe_uint(v).filter(|n| (1..=u64::from(limits::MAX_CONTEXT_REQUEST_CHARS)).contains(n))
    })
    .map_err(|()| {
        fail(
            ErrorCode::InvalidContextLimit,
            f.at("maxChars"),
            "maxChars must be an integer from 1 to 64000",
        )
    })?;
    Ok(ContextRequest {
        tab_id,
        projection,
        start_line,
        end_line,
        max_chars,
    })
}

fn preview_request(f: &Fields<'_>) -> Result<PreviewRequest, ProtocolError> {
    let invalid = || {
        fail(
            ErrorCode::InvalidPreviewRequest,
            PAYLOAD,
            "Preview options have invalid types",
        )
    };
    let tab_id = wire::optional(f.raw("tabId"), js::as_safe_uint).map_err(|()| invalid())?;
    let prefer_typst_canvas = wire::optional(f.raw("preferTypstCanvas"), Value::as_bool).map_err(|()| invalid())?;
    let prefer_asset_image = wire::optional(f.raw("preferAssetImage"), Value::as_bool).map_err(|()| invalid())?;
    Ok(PreviewRequest {
        tab_id,
        prefer_typst_canvas,
        prefer_asset_image,
    })
}

fn prepared_changes(value: Option<&Value>, text_units: usize) -> Option<Vec<TextChange>> {
    let raw = value?.as_array()?;
    if raw.is_empty() || raw.len() > to_usize(limits::MAX_PREPARED_CHANGES) {
        return None;
    }
    let mut inserted = 0usize;
    let mut previous_to = 0u64;
    let mut changes = Vec::with_capacity(raw.len());
    for (index, change) in raw.iter().enumerate() {
        let map = change.as_object()?;
        if map.keys().any(|k| !matches!(k.as_str(), "from" | "to" | "insert")) {
            return None;
        }
        let from = js::as_safe_uint(map.get("from")?)?;
        let to = js::as_safe_uint(map.get("to")?)?;
        let insert = map.get("insert")?.as_str()?;
        if to < from || to > u64::try_from(text_units).ok()? || (index > 0 && from < previous_to) {
            return None;
        }
        previous_to = to;
        inserted += js::utf16_len(insert);
        if inserted > to_usize(limits::MAX_PREPARED_INSERT_CHARS) {
            return None;
        }
        changes.push(TextChange {
            from,
            to,
            insert: insert.to_owned(),
        });
    }
    Some(changes)
}

struct PreparedEdit {
    expected_text: String,
    expected_editor_token: String,
    expected_file_label: String,
    changes: Vec<TextChange>,
    call_id: String,
}

fn prepared_edit(f: &Fields<'_>) -> Result<PreparedEdit, ProtocolError> {
    let invalid = |key: &str| {
        fail(
            ErrorCode::InvalidPreparedEdit,
            f.at(key),
            "Prepared edit request is invalid",
        )
    };
    let expected_text = wire::bounded_string(f.raw("expectedText"), to_usize(limits::MAX_EDITOR_TRANSACTION_CHARS))
        .ok_or_else(|| invalid("expectedText"))?;
    let expected_editor_token =
        wire::bounded_non_blank(f.raw("expectedEditorToken"), to_usize(limits::MAX_EDITOR_TOKEN_CHARS))
            .ok_or_else(|| invalid("expectedEditorToken"))?;
    let expected_file_label =
        wire::bounded_non_blank(f.raw("expectedFileLabel"), to_usize(limits::MAX_FILE_LABEL_CHARS))
            .ok_or_else(|| invalid("expectedFileLabel"))?;
    let changes =
        prepared_changes(f.raw("changes"), js::utf16_len(&expected_text)).ok_or_else(|| invalid("changes"))?;
    let call_id = wire::bounded_non_blank(f.raw("callId"), to_usize(limits::MAX_ENVELOPE_ID_CHARS))
        .ok_or_else(|| invalid("callId"))?;
    Ok(PreparedEdit {
        expected_text,
        expected_editor_token,
        expected_file_label,
        changes,
        call_id,
    })
}

fn response(payload: &Map<String, Value>) -> Result<ResponsePayload, ProtocolError> {
    let f = exact(payload, &["ok", "data", "error"], &["ok"])?;
    let invalid = |path: &str, message: &str| fail(ErrorCode::InvalidResponse, path, message);
    match f.raw("ok") {
        Some(Value::Bool(true)) => {
            if !payload.contains_key("data") || payload.contains_key("error") {
                return Err(invalid(PAYLOAD, "Successful response must contain data only"));
            }
            Ok(ResponsePayload::Ok(payload.get("data").cloned().unwrap_or(Value::Null)))
        }
        Some(Value::Bool(false)) => {
            if payload.contains_key("data") {
                return Err(invalid("$.payload.data", "Failed response must not contain data"));
            }
            let message = "Failed response must contain a structured error";
            let error = f
                .raw("error")
                .and_then(Value::as_object)
                .ok_or_else(|| invalid("$.payload.error", message))?;
            if error
                .keys()
                .any(|k| !matches!(k.as_str(), "code" | "message" | "details"))
            {
                return Err(invalid("$.payload.error", message));
            }
            let text = |key: &str| {
                error
                    .get(key)
                    .and_then(Value::as_str)
                    .filter(|s| js::is_non_blank(s))
                    .map(str::to_owned)
                    .ok_or_else(|| invalid(&format!("$.payload.error.{key}"), message))
            };
            Ok(ResponsePayload::Err(ResponseError {
                code: text("code")?,
                message: text("message")?,
                details: error.get("details").filter(|d| !d.is_null()).cloned(),
            }))
        }
        _ => Err(invalid("$.payload.ok", "Response ok must be a boolean")),
    }
}

/// Validates a payload for a known type (`validateMessagePayload`).
pub fn parse_payload(ty: MessageType, payload: &Value) -> Result<Payload, ProtocolError> {
    let Some(p) = payload.as_object() else {
        return Err(fail(
            ErrorCode::InvalidPayload,
            PAYLOAD,
            "Message payload must be an object",
        ));
    };
    use MessageType as T;
    Ok(match ty {
        T::Response => Payload::Response(response(p)?),
        T::LoadSettings => Payload::LoadSettings(empty(p)?),
        T::LoadTheme => Payload::LoadTheme(empty(p)?),
        T::SessionListAllGrouped => Payload::SessionListAllGrouped(empty(p)?),
        T::SessionExport => Payload::SessionExport(empty(p)?),
        T::SessionStorageStatus => Payload::SessionStorageStatus(empty(p)?),
        T::LoadCustomTools => Payload::LoadCustomTools(empty(p)?),
        T::LoadMcpServers => Payload::LoadMcpServers(empty(p)?),
        T::AiStreamCancel => Payload::AiStreamCancel(empty(p)?),
        T::PageGetProbe => Payload::PageGetProbe(empty(p)?),
        T::PageBridgeInit => Payload::PageBridgeInit(empty(p)?),
        T::PageBridgeReady => Payload::PageBridgeReady(empty(p)?),
        T::PageQuickSelection => Payload::PageQuickSelection(empty(p)?),
        T::PageQuickImagePreview => Payload::PageQuickImagePreview(empty(p)?),
        T::PageGetDiagnostics => Payload::PageGetDiagnostics(empty(p)?),

        T::AiStreamDone => {
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
            Payload::AiStreamDone(StreamDone {
                snapshot,
                snapshot_warning,
            })
        }
        T::QuickAttachSelection | T::QuickAttachImagePreview => {
            let origin = if p.is_empty() {
                None
            } else {
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
                Some(QuickAttachOrigin {
                    tab_id,
                    window_id,
                    event_id,
                })
            };
            let value = QuickAttach { origin };
            if ty == T::QuickAttachSelection {
                Payload::QuickAttachSelection(value)
            } else {
                Payload::QuickAttachImagePreview(value)
            }
        }
        T::QuickAttachDrain => {
            let f = exact(p, &["windowId"], &["windowId"])?;
            let window_id = wire::uint(f.raw("windowId")).ok_or_else(|| {
                fail(
                    ErrorCode::InvalidWindowId,
                    f.at("windowId"),
                    "windowId must be a non-negative integer",
                )
            })?;
            Payload::QuickAttachDrain(QuickAttachDrain { window_id })
        }
        T::SaveSettings => {
            let f = exact(p, &["settings", "fields", "modelMutation"], &["settings"])?;
            let settings = wire::object(f.raw("settings")).ok_or_else(|| {
                fail(
                    ErrorCode::InvalidSettings,
                    f.at("settings"),
                    "settings must be an object",
                )
            })?;
            let fields = wire::optional(f.raw("fields"), |v| {
                v.as_array()?
                    .iter()
                    .map(|x| x.as_str().and_then(SettingsField::from_wire))
                    .collect()
            })
            .map_err(|()| {
                fail(
                    ErrorCode::InvalidSettingsFields,
                    f.at("fields"),
                    "settings fields are invalid",
                )
            })?;
            let model_mutation =
                wire::optional(f.raw("modelMutation"), |v| registry_mutation(v, true)).map_err(|()| {
                    fail(
                        ErrorCode::InvalidModelMutation,
                        f.at("modelMutation"),
                        "model mutation is invalid",
                    )
                })?;
            Payload::SaveSettings(SaveSettings {
                settings,
                fields,
                model_mutation,
            })
        }
        T::SaveTheme => {
            let f = exact(p, &["theme"], &["theme"])?;
            let theme = non_blank_field(
                &f,
                "theme",
                limits::MAX_THEME_CHARS,
                ErrorCode::InvalidTheme,
                "theme must be a non-empty string",
            )?;
            Payload::SaveTheme(SaveTheme { theme })
        }
        T::SessionList | T::SessionDeleteByProject => {
            let f = exact(p, &["projectId"], &["projectId"])?;
            let project_id = any_project_id(&f, ErrorCode::InvalidProjectId, "$.payload.projectId")?;
            let value = ProjectRef { project_id };
            if ty == T::SessionList {
                Payload::SessionList(value)
            } else {
                Payload::SessionDeleteByProject(value)
            }
        }
        T::OpenProjectTab => {
            let f = exact(p, &["projectId"], &["projectId"])?;
            Payload::OpenProjectTab(ProjectRef {
                project_id: project_id(&f)?,
            })
        }
        T::SessionCreate => {
            let f = exact(p, &["projectId", "name"], &["projectId"])?;
            let project_id = any_project_id(&f, ErrorCode::InvalidSessionCreate, PAYLOAD)?;
            let name = wire::optional(f.raw("name"), |v| v.as_str().map(str::to_owned)).map_err(|()| {
                fail(
                    ErrorCode::InvalidSessionCreate,
                    f.at("name"),
                    "Session projectId and name must be strings",
                )
            })?;
            Payload::SessionCreate(SessionCreate { project_id, name })
        }
        T::SessionGet | T::SessionDelete => {
            let f = exact(p, &["sessionId"], &["sessionId"])?;
            let value = SessionRef {
                session_id: session_id(&f)?,
            };
            if ty == T::SessionGet {
                Payload::SessionGet(value)
            } else {
                Payload::SessionDelete(value)
            }
        }
        T::SessionUpdate => {
            let f = exact(
                p,
                &["sessionId", "name", "messages", "userRenamed", "autoName"],
                &["sessionId"],
            )?;
            let invalid = |key: &str| {
                fail(
                    ErrorCode::InvalidSessionUpdate,
                    f.at(key),
                    "Session update fields have invalid types",
                )
            };
            let session_id =
                wire::bounded_non_blank(f.raw("sessionId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("sessionId"))?;
            let name =
                wire::optional(f.raw("name"), |v| v.as_str().map(str::to_owned)).map_err(|()| invalid("name"))?;
            let messages =
                wire::optional(f.raw("messages"), |v| v.as_array().cloned()).map_err(|()| invalid("messages"))?;
            let user_renamed =
                wire::optional(f.raw("userRenamed"), Value::as_bool).map_err(|()| invalid("userRenamed"))?;
            let auto_name = wire::optional(f.raw("autoName"), Value::as_bool).map_err(|()| invalid("autoName"))?;
            if auto_name == Some(true) && (name.is_none() || messages.is_some() || user_renamed.is_some()) {
                return Err(fail(
                    ErrorCode::InvalidSessionUpdate,
                    PAYLOAD,
                    "Automatic naming must update only the session name.",
                ));
            }
            Payload::SessionUpdate(SessionUpdate {
                session_id,
                name,
                messages,
                user_renamed,
                auto_name,
            })
        }
        T::SessionImport => {
            let f = exact(p, &["exportData", "records"], &[])?;
            if !p.contains_key("exportData") && !p.contains_key("records") {
                return Err(fail(
                    ErrorCode::MissingPayloadField,
                    PAYLOAD,
                    "Session import requires exportData or records",
                ));
            }
            let export_data = f.get("exportData").cloned();
            let records = f.get("records").cloned();
            let data = export_data.as_ref().or(records.as_ref());
            if !data.is_some_and(|d| d.is_object() || d.is_array()) {
                return Err(fail(
                    ErrorCode::InvalidSessionImport,
                    PAYLOAD,
                    "Session import data must be an object or array",
                ));
            }
            let records = if export_data.is_some() && records.as_ref().is_some_and(|r| !(r.is_object() || r.is_array()))
            {
                return Err(fail(
                    ErrorCode::InvalidSessionImport,
                    f.at("records"),
                    "Session import data must be an object or array",
                ));
            } else {
                records
            };
            Payload::SessionImport(SessionImport { export_data, records })
        }
        T::EditCheckpointRevert => {
            let f = exact(
                p,
                &["checkpointId", "tabId", "projectId", "sessionId"],
                &["checkpointId", "tabId", "projectId", "sessionId"],
            )?;
            let checkpoint_id = non_blank_field(
                &f,
                "checkpointId",
                limits::MAX_RECORD_ID_CHARS,
                ErrorCode::InvalidCheckpointId,
                "checkpointId is required",
            )?;
            let tab_id = tab_id(&f, ErrorCode::InvalidTabId)?;
            let project_id = project_id(&f)?;
            let session_id = session_id(&f)?;
            Payload::EditCheckpointRevert(EditCheckpointRevert {
                checkpoint_id,
                tab_id,
                project_id,
                session_id,
            })
        }
        T::DocumentSnapshotList => {
            let f = exact(
                p,
                &["tabId", "projectId", "sessionId"],
                &["tabId", "projectId", "sessionId"],
            )?;
            let scope = snapshot_scope(&f)?;
            Payload::DocumentSnapshotList(scope)
        }
        T::DocumentSnapshotPreview | T::DocumentSnapshotRestore | T::DocumentSnapshotDelete => {
            let keys = ["snapshotId", "tabId", "projectId", "sessionId"];
            let f = exact(p, &keys, &keys)?;
            let snapshot_id = non_blank_field(
                &f,
                "snapshotId",
                limits::MAX_RECORD_ID_CHARS,
                ErrorCode::InvalidDocumentSnapshotId,
                "snapshotId is required",
            )?;
            let scope = snapshot_scope(&f)?;
            let value = SnapshotRequest {
                snapshot_id,
                tab_id: scope.tab_id,
                project_id: scope.project_id,
                session_id: scope.session_id,
            };
            match ty {
                T::DocumentSnapshotPreview => Payload::DocumentSnapshotPreview(value),
                T::DocumentSnapshotRestore => Payload::DocumentSnapshotRestore(value),
                _ => Payload::DocumentSnapshotDelete(value),
            }
        }
        T::SaveCustomTools => {
            let f = exact(p, &["tools", "mutation"], &["tools"])?;
            let invalid = |key: &str| fail(ErrorCode::InvalidCustomTools, f.at(key), "tools or mutation is invalid");
            let tools = wire::array(f.raw("tools")).ok_or_else(|| invalid("tools"))?;
            let mutation =
                wire::optional(f.raw("mutation"), |v| registry_mutation(v, false)).map_err(|()| invalid("mutation"))?;
            Payload::SaveCustomTools(SaveCustomTools { tools, mutation })
        }
        T::SaveMcpServers => {
            let f = exact(p, &["servers", "mutation"], &["servers"])?;
            let invalid = |key: &str| {
                fail(
                    ErrorCode::InvalidMcpServers,
                    f.at(key),
                    "servers or mutation is invalid",
                )
            };
            let servers = wire::array(f.raw("servers")).ok_or_else(|| invalid("servers"))?;
            let mutation =
                wire::optional(f.raw("mutation"), |v| registry_mutation(v, false)).map_err(|()| invalid("mutation"))?;
            Payload::SaveMcpServers(SaveMcpServers { servers, mutation })
        }
        T::ProbeMcpServer => {
            let f = exact(p, &["server"], &["server"])?;
            let server = wire::object(f.raw("server"))
                .ok_or_else(|| fail(ErrorCode::InvalidMcpServer, f.at("server"), "server must be an object"))?;
            Payload::ProbeMcpServer(ProbeMcpServer { server })
        }
        T::GetEditorContext => {
            let f = exact(p, &["tabId", "projection", "startLine", "endLine", "maxChars"], &[])?;
            Payload::GetEditorContext(context_request(&f, true)?)
        }
        T::PageGetContext => {
            let f = exact(p, &["projection", "startLine", "endLine", "maxChars"], &[])?;
            Payload::PageGetContext(context_request(&f, false)?)
        }
        T::GetDiagnostics => {
            let f = exact(p, &["tabId"], &[])?;
            Payload::GetDiagnostics(DiagnosticsRequest {
                tab_id: optional_tab_id(&f, ErrorCode::InvalidTabId, None)?,
            })
        }
        T::GetPreview | T::PageGetPreview => {
            let f = exact(p, &["tabId", "preferTypstCanvas", "preferAssetImage"], &[])?;
            let value = preview_request(&f)?;
            if ty == T::GetPreview {
                Payload::GetPreview(value)
            } else {
                Payload::PageGetPreview(value)
            }
        }
        T::GenerateSessionTitle => {
            let f = exact(p, &["modelConfig", "messages"], &["modelConfig", "messages"])?;
            let message = "Title request requires modelConfig and messages";
            let model_config = wire::object(f.raw("modelConfig"))
                .ok_or_else(|| fail(ErrorCode::InvalidTitleRequest, f.at("modelConfig"), message))?;
            let messages = wire::array(f.raw("messages"))
                .ok_or_else(|| fail(ErrorCode::InvalidTitleRequest, f.at("messages"), message))?;
            Payload::GenerateSessionTitle(GenerateSessionTitle { model_config, messages })
        }
        T::AiStreamStart => {
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
            let tab_id = tab_id(&f, ErrorCode::InvalidTabId)?;
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
            let active_editor_file = wire::optional(f.raw("activeEditorFile"), ActiveEditorFile::parse_strict)
                .map_err(|()| {
                    fail(
                        ErrorCode::InvalidActiveEditorFile,
                        f.at("activeEditorFile"),
                        "activeEditorFile is invalid",
                    )
                })?;
            Payload::AiStreamStart(AiStreamStart {
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
        T::AiRunReserve => {
            let keys = ["tabId", "projectId", "sessionId"];
            let f = exact(p, &keys, &keys)?;
            Payload::AiRunReserve(RunReserve {
                tab_id: tab_id(&f, ErrorCode::InvalidTabId)?,
                project_id: project_id(&f)?,
                session_id: session_id(&f)?,
            })
        }
        T::AiRunStatus => {
            let f = exact(p, &["projectId", "sessionId"], &["projectId", "sessionId"])?;
            let message = "Run status requires projectId and sessionId";
            let read = |key: &str| {
                wire::bounded_non_blank(f.raw(key), to_usize(SCOPE_ID))
                    .ok_or_else(|| fail(ErrorCode::InvalidRunStatus, f.at(key), message))
            };
            Payload::AiRunStatus(RunStatus {
                project_id: read("projectId")?,
                session_id: read("sessionId")?,
            })
        }
        T::AiStreamBatch => {
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
            Payload::AiStreamBatch(StreamBatch { items })
        }
        T::AiStreamCancelled | T::AiStreamError => {
            let f = exact(p, &["code", "message"], &["code", "message"])?;
            let message = "Run terminal error requires code and message";
            let code = wire::bounded_non_blank(f.raw("code"), to_usize(limits::MAX_ERROR_CODE_CHARS))
                .ok_or_else(|| fail(ErrorCode::InvalidRunError, f.at("code"), message))?;
            let text = f
                .raw("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| fail(ErrorCode::InvalidRunError, f.at("message"), message))?;
            let value = RunTerminal { code, message: text };
            if ty == T::AiStreamCancelled {
                Payload::AiStreamCancelled(value)
            } else {
                Payload::AiStreamError(value)
            }
        }
        T::AiToolCalls => {
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
            Payload::AiToolCalls(ToolCalls { calls })
        }
        T::AiToolResult => {
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
            Payload::AiToolResult(ToolResult { call_id, name, result })
        }
        T::AiToolPreflightWaiting => {
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
            Payload::AiToolPreflightWaiting(PreflightWaiting {
                call_id,
                name,
                missing,
                hint,
            })
        }
        T::AiToolPreflightReady | T::PageClearEditPreview => {
            let f = exact(p, &["callId"], &["callId"])?;
            let value = CallRef {
                call_id: call_id(&f, ErrorCode::InvalidCallId)?,
            };
            if ty == T::AiToolPreflightReady {
                Payload::AiToolPreflightReady(value)
            } else {
                Payload::PageClearEditPreview(value)
            }
        }
        T::AiToolPreflightResolve => {
            let f = exact(p, &["callId", "action"], &["callId", "action"])?;
            let call_id = call_id(&f, ErrorCode::InvalidPreflightAction)?;
            let action = match f.raw("action").and_then(Value::as_str) {
                Some("retry") => PreflightAction::Retry,
                Some("cancel") => PreflightAction::Cancel,
                _ => {
                    return Err(fail(
                        ErrorCode::InvalidPreflightAction,
                        f.at("action"),
                        "Preflight action is invalid",
                    ));
                }
            };
            Payload::AiToolPreflightResolve(PreflightResolve { call_id, action })
        }
        T::AiToolApprovalResolve => {
            let f = exact(p, &["callId", "action"], &["callId", "action"])?;
            let call_id = call_id(&f, ErrorCode::InvalidApprovalAction)?;
            let action = match f.raw("action").and_then(Value::as_str) {
                Some("approve_once") => ApprovalAction::ApproveOnce,
                Some("allow_run") => ApprovalAction::AllowRun,
                Some("deny") => ApprovalAction::Deny,
                _ => {
                    return Err(fail(
                        ErrorCode::InvalidApprovalAction,
                        f.at("action"),
                        "Approval action is invalid",
                    ));
                }
            };
            Payload::AiToolApprovalResolve(ApprovalResolve { call_id, action })
        }
        T::AiToolApprovalRequired => {
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
            let invalid = |key: &str, message: &str| fail(ErrorCode::InvalidApproval, f.at(key), message);
            let text = |key: &str, max: u32| {
                f.raw(key)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty() && js::utf16_len(s) <= to_usize(max))
                    .map(str::to_owned)
                    .ok_or_else(|| invalid(key, "Approval payload is invalid"))
            };
            let call_id = text("callId", limits::MAX_ENVELOPE_ID_CHARS)?;
            let name = text("name", limits::MAX_TOOL_NAME_CHARS)?;
            let identity = text("identity", limits::MAX_APPROVAL_IDENTITY_CHARS)?;
            let effect = text("effect", limits::MAX_APPROVAL_EFFECT_CHARS)?;
            let destination = text("destination", limits::MAX_APPROVAL_DESTINATION_CHARS)?;
            let arguments = text("arguments", limits::MAX_APPROVAL_ARGUMENT_CHARS)?;
            let length = u64::try_from(js::utf16_len(&arguments)).unwrap_or(u64::MAX);
            let summary = "Approval argument summary metadata is invalid";
            let argument_chars = wire::uint(f.raw("argumentChars"))
                .filter(|n| *n >= length)
                .ok_or_else(|| invalid("argumentChars", summary))?;
            let arguments_truncated = f
                .raw("argumentsTruncated")
                .and_then(Value::as_bool)
                .filter(|t| *t == (argument_chars > length))
                .ok_or_else(|| invalid("argumentsTruncated", summary))?;
            let preview_notice = wire::optional(f.raw("previewNotice"), |v| {
                wire::bounded_string(Some(v), to_usize(limits::MAX_NOTICE_CHARS))
            })
            .map_err(|()| invalid("previewNotice", "Approval preview notice is invalid"))?;
            let preview = wire::optional(f.raw("preview"), DiffPreview::parse).map_err(|()| {
                fail(
                    ErrorCode::InvalidEditPreview,
                    f.at("preview"),
                    "Edit preview is invalid",
                )
            })?;
            Payload::AiToolApprovalRequired(ApprovalRequired {
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
        T::ActiveTabChanged => {
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
            Payload::ActiveTabChanged(ActiveTabChanged { on_typst, url, tab_id })
        }
        T::PageShowEditPreview => {
            let keys = [
                "expectedText",
                "expectedEditorToken",
                "expectedFileLabel",
                "changes",
                "callId",
                "preview",
            ];
            let f = exact(p, &keys, &keys)?;
            let edit = prepared_edit(&f)?;
            let preview = f.raw("preview").and_then(DiffPreview::parse).ok_or_else(|| {
                fail(
                    ErrorCode::InvalidPreparedEdit,
                    f.at("preview"),
                    "Prepared edit preview request is invalid",
                )
            })?;
            Payload::PageShowEditPreview(PageShowEditPreview {
                expected_text: edit.expected_text,
                expected_editor_token: edit.expected_editor_token,
                expected_file_label: edit.expected_file_label,
                changes: edit.changes,
                call_id: edit.call_id,
                preview,
            })
        }
        T::PageApplyEdit => {
            let keys = [
                "expectedText",
                "expectedEditorToken",
                "expectedFileLabel",
                "changes",
                "callId",
                "reviewedDiff",
            ];
            let f = exact(p, &keys, &keys)?;
            let edit = prepared_edit(&f)?;
            let reviewed_diff = f.raw("reviewedDiff").and_then(Value::as_bool).ok_or_else(|| {
                fail(
                    ErrorCode::InvalidPreparedEdit,
                    f.at("reviewedDiff"),
                    "Prepared edit request is invalid",
                )
            })?;
            Payload::PageApplyEdit(PageApplyEdit {
                expected_text: edit.expected_text,
                expected_editor_token: edit.expected_editor_token,
                expected_file_label: edit.expected_file_label,
                changes: edit.changes,
                call_id: edit.call_id,
                reviewed_diff,
            })
        }
        T::PageCancelRequest => {
            let f = exact(p, &["targetRequestId"], &["targetRequestId"])?;
            let target_request_id = non_blank_field(
                &f,
                "targetRequestId",
                limits::MAX_ENVELOPE_ID_CHARS,
                ErrorCode::InvalidCancelTarget,
                "targetRequestId is required",
            )?;
            Payload::PageCancelRequest(PageCancelRequest { target_request_id })
        }
    })
}

fn snapshot_scope(f: &Fields<'_>) -> Result<SnapshotScope, ProtocolError> {
    let message = "Document snapshot requests require an exact tab, project, and chat scope.";
    let invalid = |key: &str| fail(ErrorCode::InvalidDocumentSnapshotScope, f.at(key), message);
    let tab_id = wire::uint(f.raw("tabId")).ok_or_else(|| invalid("tabId"))?;
    let project_id =
        wire::bounded_non_blank(f.raw("projectId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("projectId"))?;
    let session_id =
        wire::bounded_non_blank(f.raw("sessionId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("sessionId"))?;
    Ok(SnapshotScope {
        tab_id,
        project_id,
        session_id,
    })
}
