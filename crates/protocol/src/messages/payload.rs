//! The [`Payload`] enum: one variant per message type, each holding its typed
//! payload, and [`parse_payload`], which picks the variant's parser.
//!
//! One table below names each message type once with its payload type and
//! parser; the enum, its type mapping, its wire form and the parser dispatch
//! are all generated from it, so a message type cannot be added to one of
//! them and forgotten in another.

use crate::error::{ErrorCode, ProtocolError};
use crate::message_type::MessageType;
use crate::payloads::fields::{PAYLOAD, fail};
use crate::payloads::*;
use crate::wire;
use serde_json::{Map, Value};

/// One message type's payload parser.
type Parser = fn(&Map<String, Value>) -> Result<Payload, ProtocolError>;

macro_rules! payload_table {
    ($( $(#[$doc:meta])* $variant:ident($payload:ty) = $parse:path; )*) => {
        /// The typed payload of each message type.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Payload {
            $(
                #[doc = concat!("The payload of [`MessageType::", stringify!($variant), "`].")]
                $(#[$doc])*
                $variant($payload),
            )*
        }

        impl Payload {
            /// The message type this payload belongs to.
            pub fn message_type(&self) -> MessageType {
                match self { $( Payload::$variant(_) => MessageType::$variant, )* }
            }

            /// The exact wire JSON of the payload.
            pub fn to_value(&self) -> Value {
                match self { $( Payload::$variant(inner) => wire::to_value(inner), )* }
            }
        }

        /// Each type's parser is a function of its own, called through a
        /// pointer the optimiser cannot see through: a `match` that calls
        /// them directly has them all inlined into one function (33 KB of
        /// wasm), and Chrome, which compiles a wasm function whole on its
        /// first call, then compiles every type's parser to read a woken
        /// worker's first message.
        fn parse_object(ty: MessageType, payload: &Map<String, Value>) -> Result<Payload, ProtocolError> {
            let parse: Parser = match ty {
                $( MessageType::$variant => |payload| Ok(Payload::$variant($parse(payload)?)), )*
            };
            std::hint::black_box(parse)(payload)
        }
    };
}

payload_table! {
    Response(ResponsePayload) = ResponsePayload::parse;
    LoadSettings(Empty) = Empty::parse;
    SaveSettings(SaveSettings) = SaveSettings::parse;
    LoadTheme(Empty) = Empty::parse;
    SaveTheme(SaveTheme) = SaveTheme::parse;
    SessionList(ProjectRef) = ProjectRef::parse_any;
    SessionCreate(SessionCreate) = SessionCreate::parse;
    SessionGet(SessionRef) = SessionRef::parse;
    SessionUpdate(SessionUpdate) = SessionUpdate::parse;
    SessionDelete(SessionRef) = SessionRef::parse;
    SessionListAllGrouped(Empty) = Empty::parse;
    SessionDeleteByProject(ProjectRef) = ProjectRef::parse_any;
    SessionImport(SessionImport) = SessionImport::parse;
    SessionExport(Empty) = Empty::parse;
    SessionStorageStatus(Empty) = Empty::parse;
    EditCheckpointRevert(EditCheckpointRevert) = EditCheckpointRevert::parse;
    DocumentSnapshotList(SnapshotScope) = SnapshotScope::parse;
    DocumentSnapshotPreview(SnapshotRequest) = SnapshotRequest::parse;
    DocumentSnapshotRestore(SnapshotRestore) = SnapshotRestore::parse;
    DocumentSnapshotDelete(SnapshotRequest) = SnapshotRequest::parse;
    OpenProjectTab(ProjectRef) = ProjectRef::parse;
    LoadCustomTools(Empty) = Empty::parse;
    SaveCustomTools(SaveCustomTools) = SaveCustomTools::parse;
    LoadMcpServers(Empty) = Empty::parse;
    SaveMcpServers(SaveMcpServers) = SaveMcpServers::parse;
    ProbeMcpServer(ProbeMcpServer) = ProbeMcpServer::parse;
    GetEditorContext(ContextRequest) = ContextRequest::parse_panel;
    GetPreview(PreviewRequest) = PreviewRequest::parse;
    GetDiagnostics(DiagnosticsRequest) = DiagnosticsRequest::parse;
    GenerateSessionTitle(GenerateSessionTitle) = GenerateSessionTitle::parse;
    AiStreamStart(AiStreamStart) = AiStreamStart::parse;
    AiRunReserve(RunReserve) = RunReserve::parse;
    AiStreamCancel(Empty) = Empty::parse;
    AiRunStatus(RunStatus) = RunStatus::parse;
    AiStreamBatch(StreamBatch) = StreamBatch::parse;
    AiStreamDone(StreamDone) = StreamDone::parse;
    AiStreamCancelled(RunTerminal) = RunTerminal::parse;
    AiStreamError(RunTerminal) = RunTerminal::parse;
    AiToolCalls(ToolCalls) = ToolCalls::parse;
    AiToolResult(ToolResult) = ToolResult::parse;
    AiToolPreflightWaiting(PreflightWaiting) = PreflightWaiting::parse;
    AiToolPreflightReady(CallRef) = CallRef::parse;
    AiToolPreflightResolve(PreflightResolve) = PreflightResolve::parse;
    AiToolApprovalRequired(ApprovalRequired) = ApprovalRequired::parse;
    AiToolApprovalResolve(ApprovalResolve) = ApprovalResolve::parse;
    AiRunNotice(RunNotices) = RunNotices::parse;
    ActiveTabChanged(ActiveTabChanged) = ActiveTabChanged::parse;
    QuickAttachSelection(QuickAttach) = QuickAttach::parse;
    QuickAttachImagePreview(QuickAttach) = QuickAttach::parse;
    QuickAttachDrain(QuickAttachDrain) = QuickAttachDrain::parse;
    /// The page form carries no `tabId`.
    PageGetContext(ContextRequest) = ContextRequest::parse_page;
    PageGetPreview(PreviewRequest) = PreviewRequest::parse;
    /// The page form is exactly `{}`.
    PageGetDiagnostics(Empty) = Empty::parse;
    PageGetProbe(Empty) = Empty::parse;
    PageCancelRequest(PageCancelRequest) = PageCancelRequest::parse;
    PageShowEditPreview(PageShowEditPreview) = PageShowEditPreview::parse;
    PageClearEditPreview(CallRef) = CallRef::parse;
    PageApplyEdit(PageApplyEdit) = PageApplyEdit::parse;
    PageQuickSelection(Empty) = Empty::parse;
    PageQuickImagePreview(Empty) = Empty::parse;
    PageBridgeInit(Empty) = Empty::parse;
    PageBridgeReady(Empty) = Empty::parse;
}

/// Validates a payload for a known type (`validateMessagePayload`).
pub fn parse_payload(ty: MessageType, payload: &Value) -> Result<Payload, ProtocolError> {
    let Some(payload) = payload.as_object() else {
        return Err(fail(
            ErrorCode::InvalidPayload,
            PAYLOAD,
            "Message payload must be an object",
        ));
    };
    parse_object(ty, payload)
}
