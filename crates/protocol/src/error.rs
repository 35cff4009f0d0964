//! Typed validation errors with the original's stable string codes.
//!
//! Every rejection of a message carries a code (the same string the original
//! used where it had one), the JSON path of the offending value (`$`,
//! `$.payload` or `$.payload.field[2].x`) and a human sentence. Callers branch
//! on the code; the sentence is for people.

use serde::{Serialize, Serializer};
use std::fmt;

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $wire:literal, )*) => {
        /// Why a message was rejected.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, for tests and generators.
            pub const ALL: &'static [ErrorCode] = &[ $( ErrorCode::$variant, )* ];

            /// The stable wire string.
            pub const fn as_str(self) -> &'static str {
                match self { $( ErrorCode::$variant => $wire, )* }
            }
        }
    };
}

codes! {
    InvalidEnvelope = "INVALID_ENVELOPE",
    /// An envelope field other than `type`, `requestId`, `runId`, `payload`
    /// (and `nonce` on the page bridge). New in the port.
    UnknownEnvelopeField = "UNKNOWN_ENVELOPE_FIELD",
    /// The page bridge's `nonce` is missing or malformed. New in the port.
    InvalidNonce = "INVALID_NONCE",
    UnknownMessageType = "UNKNOWN_MESSAGE_TYPE",
    UnexpectedMessageType = "UNEXPECTED_MESSAGE_TYPE",
    DisallowedMessageType = "DISALLOWED_MESSAGE_TYPE",
    InvalidRequestId = "INVALID_REQUEST_ID",
    InvalidRunId = "INVALID_RUN_ID",
    InvalidPayload = "INVALID_PAYLOAD",
    InvalidResponse = "INVALID_RESPONSE",
    UnknownPayloadField = "UNKNOWN_PAYLOAD_FIELD",
    MissingPayloadField = "MISSING_PAYLOAD_FIELD",
    InvalidDocumentSnapshot = "INVALID_DOCUMENT_SNAPSHOT",
    InvalidDocumentSnapshotWarning = "INVALID_DOCUMENT_SNAPSHOT_WARNING",
    InvalidQuickAttachSource = "INVALID_QUICK_ATTACH_SOURCE",
    InvalidWindowId = "INVALID_WINDOW_ID",
    InvalidSettings = "INVALID_SETTINGS",
    InvalidSettingsFields = "INVALID_SETTINGS_FIELDS",
    InvalidModelMutation = "INVALID_MODEL_MUTATION",
    InvalidTheme = "INVALID_THEME",
    InvalidProjectId = "INVALID_PROJECT_ID",
    InvalidSessionCreate = "INVALID_SESSION_CREATE",
    InvalidSessionId = "INVALID_SESSION_ID",
    InvalidSessionUpdate = "INVALID_SESSION_UPDATE",
    InvalidSessionImport = "INVALID_SESSION_IMPORT",
    InvalidCheckpointId = "INVALID_CHECKPOINT_ID",
    InvalidTabId = "INVALID_TAB_ID",
    InvalidDocumentSnapshotScope = "INVALID_DOCUMENT_SNAPSHOT_SCOPE",
    InvalidDocumentSnapshotId = "INVALID_DOCUMENT_SNAPSHOT_ID",
    InvalidCustomTools = "INVALID_CUSTOM_TOOLS",
    InvalidMcpServers = "INVALID_MCP_SERVERS",
    InvalidMcpServer = "INVALID_MCP_SERVER",
    InvalidContextProjection = "INVALID_CONTEXT_PROJECTION",
    InvalidContextRange = "INVALID_CONTEXT_RANGE",
    InvalidContextLimit = "INVALID_CONTEXT_LIMIT",
    InvalidPreviewRequest = "INVALID_PREVIEW_REQUEST",
    InvalidTitleRequest = "INVALID_TITLE_REQUEST",
    InvalidMessages = "INVALID_MESSAGES",
    InvalidRunStart = "INVALID_RUN_START",
    InvalidActiveEditorFile = "INVALID_ACTIVE_EDITOR_FILE",
    InvalidRunStatus = "INVALID_RUN_STATUS",
    InvalidStreamBatch = "INVALID_STREAM_BATCH",
    InvalidRunError = "INVALID_RUN_ERROR",
    InvalidToolCalls = "INVALID_TOOL_CALLS",
    InvalidToolResult = "INVALID_TOOL_RESULT",
    InvalidPreflight = "INVALID_PREFLIGHT",
    InvalidCallId = "INVALID_CALL_ID",
    InvalidPreflightAction = "INVALID_PREFLIGHT_ACTION",
    InvalidApproval = "INVALID_APPROVAL",
    InvalidEditPreview = "INVALID_EDIT_PREVIEW",
    InvalidApprovalAction = "INVALID_APPROVAL_ACTION",
    InvalidTabEvent = "INVALID_TAB_EVENT",
    InvalidPreparedEdit = "INVALID_PREPARED_EDIT",
    InvalidCancelTarget = "INVALID_CANCEL_TARGET",
    /// The page's answer to a page request broke its shape or bounds (the
    /// isolated script's code).
    InvalidPageResponse = "INVALID_PAGE_RESPONSE",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// A rejected message: `{code, path, message}` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtocolError {
    pub code: ErrorCode,
    pub path: String,
    pub message: String,
}

impl ProtocolError {
    pub fn new(code: ErrorCode, path: impl Into<String>, message: impl Into<String>) -> Self {
        ProtocolError {
            code,
            path: path.into(),
            message: message.into(),
        }
    }

    /// The stable code string.
    pub fn code_str(&self) -> &'static str {
        self.code.as_str()
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.code, self.path, self.message)
    }
}

impl std::error::Error for ProtocolError {}

/// Codes the worker and the panel put into error responses that are not
/// validation failures.
pub mod response_codes {
    /// An error without a code of its own.
    pub const INTERNAL_ERROR: &str = "INTERNAL_ERROR";
    /// Default code when a failed response carries none.
    pub const REQUEST_FAILED: &str = "REQUEST_FAILED";
    /// A valid message type the worker has no route for.
    pub const UNROUTED_MESSAGE: &str = "UNROUTED_MESSAGE";
    /// The run was cancelled.
    pub const CANCELLED: &str = "CANCELLED";
    /// An operation ran out of time.
    pub const TIMEOUT: &str = "TIMEOUT";
}
