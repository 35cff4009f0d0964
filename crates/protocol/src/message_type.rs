//! The registry of every message type that crosses a context boundary.
//!
//! The wire strings are facts shared with the original extension: each type's
//! string equals its constant name, except [`MessageType::Response`], which is
//! `PROTOCOL_RESPONSE`. The table order follows the original's `PROTOCOL` map so
//! that generated artefacts (the page scripts' constants) read the same way.

/// Whether a message asks for an answer, reports something, or is the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// Asks for an answer (carries a `requestId`).
    Request,
    /// Reports something; nobody answers it.
    Event,
    /// The answer to a request.
    Response,
}

macro_rules! message_types {
    ($( $variant:ident = $wire:literal, $kind:ident, $run_scoped:literal; )*) => {
        /// One of the 62 message types (the original's 61 and `AI_RUN_NOTICE`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum MessageType {
            $(
                #[doc = concat!("The `", $wire, "` message ([`MessageKind::", stringify!($kind), "`]).")]
                $variant,
            )*
        }

        impl MessageType {
            /// Every type, in registry order.
            pub const ALL: &'static [MessageType] = &[ $( MessageType::$variant, )* ];

            /// The exact string carried in the envelope's `type` field.
            pub const fn as_str(self) -> &'static str {
                match self { $( MessageType::$variant => $wire, )* }
            }

            /// The constant's name in the original's `PROTOCOL` map (`RESPONSE`
            /// for `PROTOCOL_RESPONSE`; every other name equals its wire string).
            pub const fn constant_name(self) -> &'static str {
                match self {
                    MessageType::Response => "RESPONSE",
                    other => other.as_str(),
                }
            }

            /// Whether the type asks, reports or answers.
            pub const fn kind(self) -> MessageKind {
                match self { $( MessageType::$variant => MessageKind::$kind, )* }
            }

            /// Run-scoped types carry a non-blank `runId`.
            pub const fn is_run_scoped(self) -> bool {
                match self { $( MessageType::$variant => $run_scoped, )* }
            }

            /// Parses a wire string; `None` for anything not in the registry.
            pub fn from_wire(wire: &str) -> Option<MessageType> {
                match wire {
                    $( $wire => Some(MessageType::$variant), )*
                    _ => None,
                }
            }
        }
    };
}

message_types! {
    Response = "PROTOCOL_RESPONSE", Response, false;

    LoadSettings = "LOAD_SETTINGS", Request, false;
    SaveSettings = "SAVE_SETTINGS", Request, false;
    LoadTheme = "LOAD_THEME", Request, false;
    SaveTheme = "SAVE_THEME", Request, false;
    SessionList = "SESSION_LIST", Request, false;
    SessionCreate = "SESSION_CREATE", Request, false;
    SessionGet = "SESSION_GET", Request, false;
    SessionUpdate = "SESSION_UPDATE", Request, false;
    SessionDelete = "SESSION_DELETE", Request, false;
    SessionListAllGrouped = "SESSION_LIST_ALL_GROUPED", Request, false;
    SessionDeleteByProject = "SESSION_DELETE_BY_PROJECT", Request, false;
    SessionImport = "SESSION_IMPORT", Request, false;
    SessionExport = "SESSION_EXPORT", Request, false;
    SessionStorageStatus = "SESSION_STORAGE_STATUS", Request, false;
    EditCheckpointRevert = "EDIT_CHECKPOINT_REVERT", Request, false;
    DocumentSnapshotList = "DOCUMENT_SNAPSHOT_LIST", Request, false;
    DocumentSnapshotPreview = "DOCUMENT_SNAPSHOT_PREVIEW", Request, false;
    DocumentSnapshotRestore = "DOCUMENT_SNAPSHOT_RESTORE", Request, false;
    DocumentSnapshotDelete = "DOCUMENT_SNAPSHOT_DELETE", Request, false;
    OpenProjectTab = "OPEN_PROJECT_TAB", Request, false;
    LoadCustomTools = "LOAD_CUSTOM_TOOLS", Request, false;
    SaveCustomTools = "SAVE_CUSTOM_TOOLS", Request, false;
    LoadMcpServers = "LOAD_MCP_SERVERS", Request, false;
    SaveMcpServers = "SAVE_MCP_SERVERS", Request, false;
    ProbeMcpServer = "PROBE_MCP_SERVER", Request, false;
    GetEditorContext = "GET_EDITOR_CONTEXT", Request, false;
    GetPreview = "GET_PREVIEW", Request, false;
    GetDiagnostics = "GET_DIAGNOSTICS", Request, false;
    GenerateSessionTitle = "GENERATE_SESSION_TITLE", Request, false;

    AiStreamStart = "AI_STREAM_START", Request, true;
    AiRunReserve = "AI_RUN_RESERVE", Request, true;
    AiStreamCancel = "AI_STREAM_CANCEL", Request, true;
    AiRunStatus = "AI_RUN_STATUS", Request, false;
    AiStreamBatch = "AI_STREAM_BATCH", Event, true;
    AiStreamDone = "AI_STREAM_DONE", Event, true;
    AiStreamCancelled = "AI_STREAM_CANCELLED", Event, true;
    AiStreamError = "AI_STREAM_ERROR", Event, true;
    AiToolCalls = "AI_TOOL_CALLS", Event, true;
    AiToolResult = "AI_TOOL_RESULT", Event, true;
    AiToolPreflightWaiting = "AI_TOOL_PREFLIGHT_WAITING", Event, true;
    AiToolPreflightReady = "AI_TOOL_PREFLIGHT_READY", Event, true;
    AiToolPreflightResolve = "AI_TOOL_PREFLIGHT_RESOLVE", Request, true;
    AiToolApprovalRequired = "AI_TOOL_APPROVAL_REQUIRED", Event, true;
    AiToolApprovalResolve = "AI_TOOL_APPROVAL_RESOLVE", Request, true;
    // New in the port: what a run left out (a failing MCP server) and why.
    AiRunNotice = "AI_RUN_NOTICE", Event, true;

    ActiveTabChanged = "ACTIVE_TAB_CHANGED", Event, false;
    QuickAttachSelection = "QUICK_ATTACH_SELECTION", Request, false;
    QuickAttachImagePreview = "QUICK_ATTACH_IMAGE_PREVIEW", Request, false;
    QuickAttachDrain = "QUICK_ATTACH_DRAIN", Request, false;

    PageGetContext = "PAGE_GET_CONTEXT", Request, false;
    PageGetPreview = "PAGE_GET_PREVIEW", Request, false;
    PageGetDiagnostics = "PAGE_GET_DIAGNOSTICS", Request, false;
    PageGetProbe = "PAGE_GET_PROBE", Request, false;
    PageCancelRequest = "PAGE_CANCEL_REQUEST", Request, true;
    PageShowEditPreview = "PAGE_SHOW_EDIT_PREVIEW", Request, true;
    PageClearEditPreview = "PAGE_CLEAR_EDIT_PREVIEW", Request, true;
    PageApplyEdit = "PAGE_APPLY_EDIT", Request, true;
    PageQuickSelection = "PAGE_QUICK_SELECTION", Event, false;
    PageQuickImagePreview = "PAGE_QUICK_IMAGE_PREVIEW", Event, false;
    PageBridgeInit = "PAGE_BRIDGE_INIT", Event, false;
    PageBridgeReady = "PAGE_BRIDGE_READY", Event, false;
}

impl MessageType {
    /// Requests and `PROTOCOL_RESPONSE` carry a non-blank `requestId`.
    pub const fn requires_request_id(self) -> bool {
        !matches!(self.kind(), MessageKind::Event)
    }

    /// Types the worker sends to a page (through the isolated world to the
    /// main world). The page scripts accept exactly these from the worker.
    pub const fn is_page_request(self) -> bool {
        matches!(
            self,
            MessageType::PageGetContext
                | MessageType::PageGetPreview
                | MessageType::PageGetDiagnostics
                | MessageType::PageGetProbe
                | MessageType::PageCancelRequest
                | MessageType::PageShowEditPreview
                | MessageType::PageClearEditPreview
                | MessageType::PageApplyEdit
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_counts_match_the_original_and_the_one_event_the_port_adds() {
        let count = |kind| MessageType::ALL.iter().filter(|t| t.kind() == kind).count();
        assert_eq!(MessageType::ALL.len(), 62);
        assert_eq!(count(MessageKind::Request), 46);
        assert_eq!(count(MessageKind::Event), 15);
        assert_eq!(count(MessageKind::Response), 1);
        let run_scoped = MessageType::ALL.iter().filter(|t| t.is_run_scoped()).count();
        assert_eq!(run_scoped, 19);
        assert!(MessageType::AiRunNotice.is_run_scoped());
        let page = MessageType::ALL.iter().filter(|t| t.is_page_request()).count();
        assert_eq!(page, 8);
    }

    #[test]
    fn wire_strings_round_trip_and_equal_constant_names() {
        for &ty in MessageType::ALL {
            assert_eq!(MessageType::from_wire(ty.as_str()), Some(ty));
            if ty != MessageType::Response {
                assert_eq!(ty.constant_name(), ty.as_str());
            }
        }
        assert_eq!(MessageType::Response.as_str(), "PROTOCOL_RESPONSE");
        assert_eq!(MessageType::from_wire("RESPONSE"), None);
        assert_eq!(MessageType::from_wire("load_settings"), None);
    }
}
