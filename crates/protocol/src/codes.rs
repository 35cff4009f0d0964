//! Every stable error code of the extension ([`ErrorCode`]), and the one
//! shape of every enum of stable string codes in this crate.
//!
//! The catalogue holds validation failures, page-bridge refusals, run, tool,
//! edit, recovery and storage failures. The codes are the original's strings
//! (they reach the panel, the page scripts, the model's tool results and the
//! users' habits), so each is written here once; every other crate and the
//! generated page constants name the variant.
//!
//! Callers branch on a code and the wire carries its string. Every wire
//! string is written once, in the catalogue [`crate::ErrorCode`] (made by
//! `wire_codes!`); a family that may only produce some of them (tool schema
//! checks, endpoint policy) is a `code_subset!` enum whose variants name
//! catalogue variants, so its strings cannot drift from the catalogue.

/// Defines a `Copy` enum of codes with `ALL`, `as_str`, `Serialize` (the
/// wire string) and `Display` (the same string).
macro_rules! wire_codes {
    (
        $(#[$enum_doc:meta])*
        $name:ident {
            $( $(#[$doc:meta])* $variant:ident = $wire:literal, )*
        }
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$doc])* $variant, )*
        }

        impl $name {
            /// Every code, in declaration order, for tests and generators.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The stable wire string.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $wire, )* }
            }

            /// The code a wire string names, if it is one of these. Codes
            /// that arrive from a page or a server are untrusted: an unknown
            /// one is `None`, never a panic.
            pub fn from_wire(wire: &str) -> Option<$name> {
                match wire { $( $wire => Some($name::$variant), )* _ => None }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// Defines a `Copy` enum whose variants are a subset of [`crate::ErrorCode`]'s
/// (same names): `ALL`, `code` (the catalogue variant), `as_str`, `Serialize`
/// and `Display` (the catalogue's string).
macro_rules! code_subset {
    (
        $(#[$enum_doc:meta])*
        $name:ident {
            $( $(#[$doc:meta])* $variant:ident, )*
        }
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$doc])* $variant, )*
        }

        impl $name {
            /// Every code, in declaration order, for tests and generators.
            pub const ALL: &'static [$name] = &[ $( $name::$variant, )* ];

            /// The catalogue code this is.
            pub const fn code(self) -> $crate::ErrorCode {
                match self { $( $name::$variant => $crate::ErrorCode::$variant, )* }
            }

            /// The stable wire string.
            pub const fn as_str(self) -> &'static str {
                self.code().as_str()
            }
        }

        impl From<$name> for $crate::ErrorCode {
            fn from(code: $name) -> $crate::ErrorCode {
                code.code()
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

pub(crate) use code_subset;

wire_codes! {
    /// A stable error code, as the wire spells it ([`ErrorCode::as_str`]).
    ErrorCode {
        // Envelope and payload validation (the original's `validateEnvelope` and `validateMessagePayload`).
        /// The message is not an object.
        InvalidEnvelope = "INVALID_ENVELOPE",
        /// An envelope field other than `type`, `requestId`, `runId`, `payload` (and `nonce` on the page bridge). New in the port.
        UnknownEnvelopeField = "UNKNOWN_ENVELOPE_FIELD",
        /// The page bridge's `nonce` is missing or malformed. New in the port.
        InvalidNonce = "INVALID_NONCE",
        /// `type` is not one of the registered message types.
        UnknownMessageType = "UNKNOWN_MESSAGE_TYPE",
        /// The receiver expected exactly one other type.
        UnexpectedMessageType = "UNEXPECTED_MESSAGE_TYPE",
        /// The type is not among those the receiver accepts.
        DisallowedMessageType = "DISALLOWED_MESSAGE_TYPE",
        /// `requestId` is missing, blank or too long.
        InvalidRequestId = "INVALID_REQUEST_ID",
        /// `runId` is missing, blank or too long.
        InvalidRunId = "INVALID_RUN_ID",
        /// `payload` is not an object.
        InvalidPayload = "INVALID_PAYLOAD",
        /// A `PROTOCOL_RESPONSE` payload breaks its shape, or answers another request.
        InvalidResponse = "INVALID_RESPONSE",
        /// A payload field outside the type's shape.
        UnknownPayloadField = "UNKNOWN_PAYLOAD_FIELD",
        /// A required payload field is absent.
        MissingPayloadField = "MISSING_PAYLOAD_FIELD",
        /// A document snapshot record is malformed.
        InvalidDocumentSnapshot = "INVALID_DOCUMENT_SNAPSHOT",
        /// `AI_STREAM_DONE.snapshotWarning` is malformed.
        InvalidDocumentSnapshotWarning = "INVALID_DOCUMENT_SNAPSHOT_WARNING",
        /// A quick-attach event's origin is malformed, or its sender is not a typst.app project tab.
        InvalidQuickAttachSource = "INVALID_QUICK_ATTACH_SOURCE",
        /// A window id is not a safe non-negative integer.
        InvalidWindowId = "INVALID_WINDOW_ID",
        /// Settings (or a model in them) break their shape.
        InvalidSettings = "INVALID_SETTINGS",
        /// `SAVE_SETTINGS` names fields it may not change.
        InvalidSettingsFields = "INVALID_SETTINGS_FIELDS",
        /// A model upsert or removal is malformed.
        InvalidModelMutation = "INVALID_MODEL_MUTATION",
        /// The theme is not `light` or `dark`.
        InvalidTheme = "INVALID_THEME",
        /// A project id is blank or too long.
        InvalidProjectId = "INVALID_PROJECT_ID",
        /// `SESSION_CREATE` is malformed.
        InvalidSessionCreate = "INVALID_SESSION_CREATE",
        /// A chat id is blank or too long.
        InvalidSessionId = "INVALID_SESSION_ID",
        /// `SESSION_UPDATE` is malformed.
        InvalidSessionUpdate = "INVALID_SESSION_UPDATE",
        /// `SESSION_IMPORT` is malformed.
        InvalidSessionImport = "INVALID_SESSION_IMPORT",
        /// An edit checkpoint id is malformed.
        InvalidCheckpointId = "INVALID_CHECKPOINT_ID",
        /// A tab id is not a safe non-negative integer.
        InvalidTabId = "INVALID_TAB_ID",
        /// A snapshot request's scope (project, chat, file) is malformed.
        InvalidDocumentSnapshotScope = "INVALID_DOCUMENT_SNAPSHOT_SCOPE",
        /// A snapshot id is malformed.
        InvalidDocumentSnapshotId = "INVALID_DOCUMENT_SNAPSHOT_ID",
        /// A custom tool registry payload is malformed.
        InvalidCustomTools = "INVALID_CUSTOM_TOOLS",
        /// An MCP server registry payload is malformed.
        InvalidMcpServers = "INVALID_MCP_SERVERS",
        /// One MCP server record is malformed.
        InvalidMcpServer = "INVALID_MCP_SERVER",
        /// A context request names an unknown projection.
        InvalidContextProjection = "INVALID_CONTEXT_PROJECTION",
        /// A context request's line range is malformed.
        InvalidContextRange = "INVALID_CONTEXT_RANGE",
        /// A context request's character limit is out of range.
        InvalidContextLimit = "INVALID_CONTEXT_LIMIT",
        /// A context request's `knownDocumentToken` is malformed or outside an
        /// `edit` read.
        InvalidKnownDocumentToken = "INVALID_KNOWN_DOCUMENT_TOKEN",
        /// A preview request is malformed.
        InvalidPreviewRequest = "INVALID_PREVIEW_REQUEST",
        /// `GENERATE_SESSION_TITLE` is malformed.
        InvalidTitleRequest = "INVALID_TITLE_REQUEST",
        /// A run's or a title's message list is malformed.
        InvalidMessages = "INVALID_MESSAGES",
        /// `AI_STREAM_START` is malformed.
        InvalidRunStart = "INVALID_RUN_START",
        /// The message's file identity (`activeEditorFile`) is malformed.
        InvalidActiveEditorFile = "INVALID_ACTIVE_EDITOR_FILE",
        /// `AI_RUN_STATUS` is malformed.
        InvalidRunStatus = "INVALID_RUN_STATUS",
        /// `AI_STREAM_BATCH` is malformed.
        InvalidStreamBatch = "INVALID_STREAM_BATCH",
        /// A run's terminal error event is malformed.
        InvalidRunError = "INVALID_RUN_ERROR",
        /// `AI_TOOL_CALLS` is malformed.
        InvalidToolCalls = "INVALID_TOOL_CALLS",
        /// `AI_TOOL_RESULT` is malformed.
        InvalidToolResult = "INVALID_TOOL_RESULT",
        /// `AI_RUN_NOTICE` is malformed. New in the port, with the event.
        InvalidRunNotice = "INVALID_RUN_NOTICE",
        /// A preflight event is malformed.
        InvalidPreflight = "INVALID_PREFLIGHT",
        /// A tool call id is blank or too long.
        InvalidCallId = "INVALID_CALL_ID",
        /// A preflight answer is not `retry` or `skip`.
        InvalidPreflightAction = "INVALID_PREFLIGHT_ACTION",
        /// An approval request is malformed.
        InvalidApproval = "INVALID_APPROVAL",
        /// An edit preview payload is malformed.
        InvalidEditPreview = "INVALID_EDIT_PREVIEW",
        /// An approval answer is not one of the offered actions.
        InvalidApprovalAction = "INVALID_APPROVAL_ACTION",
        /// `ACTIVE_TAB_CHANGED` is malformed.
        InvalidTabEvent = "INVALID_TAB_EVENT",
        /// A prepared edit (changes, token, file) is malformed; the page uses the same code when it refuses one.
        InvalidPreparedEdit = "INVALID_PREPARED_EDIT",
        /// `PAGE_CANCEL_REQUEST` names no valid request.
        InvalidCancelTarget = "INVALID_CANCEL_TARGET",
        // Failed requests in general.
        /// An error without a code of its own.
        InternalError = "INTERNAL_ERROR",
        /// Default code when a failed response carries none.
        RequestFailed = "REQUEST_FAILED",
        /// A valid message type the worker has no route for.
        UnroutedMessage = "UNROUTED_MESSAGE",
        /// The run, the request or the user stopped the work.
        Cancelled = "CANCELLED",
        /// An operation ran out of time.
        Timeout = "TIMEOUT",
        /// A body passed its byte cap while it was read.
        ResponseTooLarge = "RESPONSE_TOO_LARGE",
        /// The worker's wasm failed to start, so the shim answers for it.
        WorkerUnavailable = "WORKER_UNAVAILABLE",
        /// The panel could not reach the worker at all.
        WorkerUnreachable = "WORKER_UNREACHABLE",
        // The page bridge and page requests.
        /// The page's answer broke its shape, bounds or consistency with the request.
        InvalidPageResponse = "INVALID_PAGE_RESPONSE",
        /// A page request envelope is malformed.
        InvalidPageRequest = "INVALID_PAGE_REQUEST",
        /// The page does not serve this request type.
        UnsupportedPageRequest = "UNSUPPORTED_PAGE_REQUEST",
        /// A page request reused the id of one still pending.
        DuplicateRequestId = "DUPLICATE_REQUEST_ID",
        /// Too many page requests are pending in the tab.
        PagePendingLimit = "PAGE_PENDING_LIMIT",
        /// The page did not answer in time.
        PageRequestTimeout = "PAGE_REQUEST_TIMEOUT",
        /// The page went away while the request was pending.
        PageUnloaded = "PAGE_UNLOADED",
        /// The page could not carry out the request.
        PageRequestFailed = "PAGE_REQUEST_FAILED",
        /// A message type that is never sent to pages.
        NotAPageRequest = "NOT_A_PAGE_REQUEST",
        /// The tab does not show a typst.app project.
        NotTypstTab = "NOT_TYPST_TAB",
        /// No typst.app project tab is open.
        NoTypstTab = "NO_TYPST_TAB",
        /// The page has no usable CodeMirror editor.
        EditorUnavailable = "EDITOR_UNAVAILABLE",
        /// Another run's edit preview is shown in the page.
        EditPreviewBusy = "EDIT_PREVIEW_BUSY",
        /// The file, the editor or the text changed since the edit was computed.
        StaleEditPreview = "STALE_EDIT_PREVIEW",
        /// The page reported a result other than the one the request allows.
        PageDecidedOtherwise = "PAGE_DECIDED_OTHERWISE",
        // Runs: admission, tabs and the provider.
        /// A run id is already reserved or active.
        DuplicateRunId = "DUPLICATE_RUN_ID",
        /// A run start without its reservation.
        RunNotReserved = "RUN_NOT_RESERVED",
        /// Too many reservations are open.
        RunReservationLimit = "RUN_RESERVATION_LIMIT",
        /// A run start differs from its reservation.
        RunReservationMismatch = "RUN_RESERVATION_MISMATCH",
        /// The chat already has a run.
        SessionRunActive = "SESSION_RUN_ACTIVE",
        /// The run's tab is not a typst.app project tab.
        InvalidRunTab = "INVALID_RUN_TAB",
        /// The run's tab no longer shows the page the run started on.
        StaleRunTab = "STALE_RUN_TAB",
        /// A run failed without a code of its own.
        AgentError = "AGENT_ERROR",
        /// No model is configured.
        ModelMissing = "MODEL_MISSING",
        /// The model lacks its base URL, key or model id.
        ModelIncomplete = "MODEL_INCOMPLETE",
        /// The request to the model endpoint could not be built.
        ProviderRequestInvalid = "PROVIDER_REQUEST_INVALID",
        /// The model endpoint could not be reached.
        ProviderNetworkError = "PROVIDER_NETWORK_ERROR",
        /// The model endpoint answered with an HTTP error.
        ProviderHttpError = "PROVIDER_HTTP_ERROR",
        /// The model's event stream is malformed.
        ProviderMalformedSse = "PROVIDER_MALFORMED_SSE",
        /// The model's stream passed its byte cap.
        ProviderStreamTooLarge = "PROVIDER_STREAM_TOO_LARGE",
        /// The model's output passed its character cap.
        ProviderOutputTooLarge = "PROVIDER_OUTPUT_TOO_LARGE",
        /// The model sent a tool call that cannot be used.
        ProviderInvalidToolCall = "PROVIDER_INVALID_TOOL_CALL",
        /// The model reused a tool call id within the run.
        ProviderDuplicateToolCallId = "PROVIDER_DUPLICATE_TOOL_CALL_ID",
        /// The run used all its provider rounds.
        ToolRoundLimit = "TOOL_ROUND_LIMIT",
        /// A chat has nothing to name it from.
        TitleContextEmpty = "TITLE_CONTEXT_EMPTY",
        /// The title answer passed its byte cap.
        TitleResponseTooLarge = "TITLE_RESPONSE_TOO_LARGE",
        /// The title answer is not JSON.
        TitleInvalidJson = "TITLE_INVALID_JSON",
        /// The title answer holds no usable title.
        TitleEmpty = "TITLE_EMPTY",
        // Tools: registry, dispatch and preflight.
        /// The run's tool registry could not be built.
        ToolRegistryInvalid = "TOOL_REGISTRY_INVALID",
        /// Two tools have the same visible name.
        ToolNameCollision = "TOOL_NAME_COLLISION",
        /// A built-in tool's metadata is inconsistent.
        InvalidBuiltinTool = "INVALID_BUILTIN_TOOL",
        /// The model called a tool the run does not offer.
        UnknownTool = "UNKNOWN_TOOL",
        /// A tool of a kind this version does not execute.
        UnknownToolKind = "UNKNOWN_TOOL_KIND",
        /// A tool call's name or arguments are unusable.
        InvalidToolCall = "INVALID_TOOL_CALL",
        /// The user denied the tool call.
        ToolDenied = "TOOL_DENIED",
        /// A tool call that got no result.
        NotExecuted = "NOT_EXECUTED",
        /// The user skipped a tool call whose page capability was missing.
        PreflightDenied = "PREFLIGHT_DENIED",
        /// A capability preflight waited too long.
        PreflightTimeout = "PREFLIGHT_TIMEOUT",
        /// The message's file was not focused in time.
        ActiveFilePreflightTimeout = "ACTIVE_FILE_PREFLIGHT_TIMEOUT",
        /// The Files panel was not opened in time.
        FileStructurePreflightTimeout = "FILE_STRUCTURE_PREFLIGHT_TIMEOUT",
        /// The requested project file was not opened in time.
        ProjectFilePreflightTimeout = "PROJECT_FILE_PREFLIGHT_TIMEOUT",
        /// A project file path is not a clean relative path.
        InvalidProjectFilePath = "INVALID_PROJECT_FILE_PATH",
        /// The bundled Typst reference has no such page.
        TypstDocsUnavailable = "TYPST_DOCS_UNAVAILABLE",
        // The run budget (new in the port: `limits::MAX_RUN_TOOL_CALLS`, `MAX_RUN_TOOL_RESULT_BYTES`).
        /// The run's tool budget is spent: the call was not executed (a tool
        /// result), the user is told (an `AI_RUN_NOTICE`), or the model kept
        /// asking for tools after it was told (the run's error).
        ToolBudgetExhausted = "TOOL_BUDGET_EXHAUSTED",
        // Tool argument schemas (the original's `tool-validation.js`).
        /// Tool arguments are not a JSON string.
        ArgumentsNotJsonText = "ARGUMENTS_NOT_JSON_TEXT",
        /// Tool arguments pass their size cap.
        ArgumentsTooLarge = "ARGUMENTS_TOO_LARGE",
        /// Tool arguments are not valid JSON.
        ArgumentsParseError = "ARGUMENTS_PARSE_ERROR",
        /// Tool arguments are not a JSON object.
        ArgumentsRootType = "ARGUMENTS_ROOT_TYPE",
        /// A schema nests too deeply.
        SchemaDepthLimit = "SCHEMA_DEPTH_LIMIT",
        /// A schema has too many nodes.
        SchemaNodeLimit = "SCHEMA_NODE_LIMIT",
        /// A schema's root is not an object schema.
        SchemaRootType = "SCHEMA_ROOT_TYPE",
        /// A schema node is not an object.
        SchemaType = "SCHEMA_TYPE",
        /// A schema keyword outside the supported subset.
        UnsupportedSchemaKeyword = "UNSUPPORTED_SCHEMA_KEYWORD",
        /// A schema `type` names no JSON type.
        SchemaInvalidType = "SCHEMA_INVALID_TYPE",
        /// A schema `required` is malformed.
        SchemaRequired = "SCHEMA_REQUIRED",
        /// A schema `properties` is malformed.
        SchemaProperties = "SCHEMA_PROPERTIES",
        /// A schema `additionalProperties` is not a boolean.
        SchemaAdditionalProperties = "SCHEMA_ADDITIONAL_PROPERTIES",
        /// A schema `pattern` does not compile.
        SchemaPattern = "SCHEMA_PATTERN",
        /// A schema `pattern` is outside the linear-time subset.
        SchemaPatternUnsafe = "SCHEMA_PATTERN_UNSAFE",
        /// A schema bound (`minLength`, `maximum`, …) is malformed.
        SchemaBound = "SCHEMA_BOUND",
        /// A schema `enum` is malformed.
        SchemaEnum = "SCHEMA_ENUM",
        /// An `x-mcp-header` annotation is malformed or outside an MCP schema.
        InvalidMcpHeader = "INVALID_MCP_HEADER",
        /// Two arguments map to the same MCP header.
        DuplicateMcpHeader = "DUPLICATE_MCP_HEADER",
        /// A schema `allOf`/`anyOf`/`oneOf` is malformed.
        SchemaComposition = "SCHEMA_COMPOSITION",
        /// Validating the arguments visited too many nodes.
        ArgumentComplexity = "ARGUMENT_COMPLEXITY",
        /// A value met a `false` schema.
        SchemaFalse = "SCHEMA_FALSE",
        /// A value differs from the schema's `const`.
        Const = "CONST",
        /// A value is not one of the schema's `enum` values.
        Enum = "ENUM",
        /// A value has another type than the schema's.
        Type = "TYPE",
        /// A string is shorter than `minLength` (code points).
        MinLength = "MIN_LENGTH",
        /// A string is longer than `maxLength` (code points).
        MaxLength = "MAX_LENGTH",
        /// A string does not match the schema's `pattern`.
        Pattern = "PATTERN",
        /// A number is below `minimum`.
        Minimum = "MINIMUM",
        /// A number is above `maximum`.
        Maximum = "MAXIMUM",
        /// An array passes the validator's item cap.
        ArrayLimit = "ARRAY_LIMIT",
        /// An array has fewer items than `minItems`.
        MinItems = "MIN_ITEMS",
        /// An array has more items than `maxItems`.
        MaxItems = "MAX_ITEMS",
        /// A required property is absent.
        Required = "REQUIRED",
        /// A property the schema does not allow.
        AdditionalProperty = "ADDITIONAL_PROPERTY",
        /// A value fails a branch of `allOf`.
        AllOf = "ALLOF",
        /// A value matches no branch of `anyOf`.
        AnyOf = "ANYOF",
        /// A value matches no branch, or several, of `oneOf`.
        OneOf = "ONEOF",
        // Endpoints and headers.
        /// An endpoint is not a valid absolute URL.
        InvalidUrl = "INVALID_URL",
        /// An endpoint carries a user name or password.
        EmbeddedCredentials = "EMBEDDED_CREDENTIALS",
        /// An endpoint is neither `https:` nor an acknowledged `http:`.
        UnsupportedScheme = "UNSUPPORTED_SCHEME",
        /// A cleartext endpoint without the user's acknowledgement for its origin.
        InsecureConfirmationRequired = "INSECURE_CONFIRMATION_REQUIRED",
        /// Configured headers are not an object of strings.
        InvalidHeaders = "INVALID_HEADERS",
        /// Too many configured headers.
        HeaderLimit = "HEADER_LIMIT",
        /// A header name or value is malformed or too long.
        InvalidHeader = "INVALID_HEADER",
        /// A header the extension manages itself.
        ProtectedHeader = "PROTECTED_HEADER",
        // MCP client (the original's `mcp.js`, and the 2025 handshake the port adds).
        /// A configured header names one the MCP transport manages (`Mcp-*`, `Accept`, `Content-Type`).
        McpHeaderConflict = "MCP_HEADER_CONFLICT",
        /// A tool argument mapped by `x-mcp-header` is not a string, a boolean or a safe number.
        InvalidMcpHeaderValue = "INVALID_MCP_HEADER_VALUE",
        /// The configured protocol mode, or the version the server offers, is not one this client speaks.
        UnsupportedMcpVersion = "UNSUPPORTED_MCP_VERSION",
        /// The server answered with another JSON-RPC id than the request's.
        McpResponseIdMismatch = "MCP_RESPONSE_ID_MISMATCH",
        /// The server's JSON body does not parse.
        McpInvalidJson = "MCP_INVALID_JSON",
        /// The server's JSON or event-stream body passes 2 MiB.
        McpResponseTooLarge = "MCP_RESPONSE_TOO_LARGE",
        /// The server's event stream carries too many events that are not JSON.
        McpMalformedSse = "MCP_MALFORMED_SSE",
        /// The server's event stream ended before the answer to the request.
        McpStreamEnded = "MCP_STREAM_ENDED",
        /// The server answered with an HTTP error and no JSON-RPC error.
        McpHttpError = "MCP_HTTP_ERROR",
        /// The server answered with a JSON-RPC error.
        McpJsonRpcError = "MCP_JSON_RPC_ERROR",
        /// `tools/list` went on for more than 20 pages.
        McpPageLimit = "MCP_PAGE_LIMIT",
        /// A server offered more than 500 usable tools.
        McpToolLimit = "MCP_TOOL_LIMIT",
        /// The server asked for multi-round input, which this client does not offer.
        McpInputRequiredUnsupported = "MCP_INPUT_REQUIRED_UNSUPPORTED",
        /// A discovered tool has no string name, or one already listed (the tool is left out).
        DuplicateOrInvalidTool = "DUPLICATE_OR_INVALID_TOOL",
        /// A discovered tool's input schema is outside the supported subset (the tool is left out).
        InvalidMcpSchema = "INVALID_MCP_SCHEMA",
        /// The MCP tool reported an error (`isError`).
        McpToolError = "MCP_TOOL_ERROR",
        /// The MCP server could not be reached. New in the port: the original left a failed `fetch` without a code.
        McpNetworkError = "MCP_NETWORK_ERROR",
        /// A 2025 server issued an `Mcp-Session-Id` that is not short visible ASCII. New in the port.
        McpInvalidSessionId = "MCP_INVALID_SESSION_ID",
        // Custom HTTP tools (the original's `agent.js executeCustomTool`; they reach the model in tool results).
        /// A custom tool's answer passed 256 KiB.
        CustomResponseTooLarge = "CUSTOM_RESPONSE_TOO_LARGE",
        /// A custom tool's endpoint answered with a status outside 2xx.
        CustomHttpError = "CUSTOM_HTTP_ERROR",
        /// A custom tool call failed without a code of its own (unreachable endpoint, broken body).
        CustomToolError = "CUSTOM_TOOL_ERROR",
        // Editor writes (the original's edit codes, which reach the model in tool results).
        /// The tool is not one of the five editor writes.
        UnsupportedEditTool = "UNSUPPORTED_EDIT_TOOL",
        /// No usable editor snapshot (editor, token, cursor or selection).
        EditContextUnavailable = "EDIT_CONTEXT_UNAVAILABLE",
        /// The document, the change or its diff is beyond what can be reviewed.
        EditPreviewTooLarge = "EDIT_PREVIEW_TOO_LARGE",
        /// An edit argument has the wrong type or is empty.
        InvalidEditArguments = "INVALID_EDIT_ARGUMENTS",
        /// A line range is malformed or past the end of the document.
        InvalidEditRange = "INVALID_EDIT_RANGE",
        /// A search string does not occur in the document.
        EditTargetNotFound = "EDIT_TARGET_NOT_FOUND",
        /// A search string that must be unique occurs more than once.
        EditTargetAmbiguous = "EDIT_TARGET_AMBIGUOUS",
        /// Two resolved changes touch the same text.
        EditRangesOverlap = "EDIT_RANGES_OVERLAP",
        /// The resolved changes are not a valid change list.
        InvalidEditChanges = "INVALID_EDIT_CHANGES",
        /// The page kept focusing another file while an edit waited.
        ActiveFileRetryLimit = "ACTIVE_FILE_RETRY_LIMIT",
        // Edit checkpoints and Revert.
        /// A checkpoint record is malformed.
        InvalidEditCheckpoint = "INVALID_EDIT_CHECKPOINT",
        /// A checkpoint id is already in the journal.
        DuplicateEditCheckpoint = "DUPLICATE_EDIT_CHECKPOINT",
        /// The checkpoint journal's index is damaged.
        EditCheckpointIndexInvalid = "EDIT_CHECKPOINT_INDEX_INVALID",
        /// A checkpoint's stored copy is missing.
        EditCheckpointBodyMissing = "EDIT_CHECKPOINT_BODY_MISSING",
        /// A checkpoint's stored copy fails its hash or length.
        EditCheckpointBodyInvalid = "EDIT_CHECKPOINT_BODY_INVALID",
        /// No checkpoint has that id.
        EditCheckpointNotFound = "EDIT_CHECKPOINT_NOT_FOUND",
        /// The checkpoint's edit never reached the page.
        EditCheckpointNotApplied = "EDIT_CHECKPOINT_NOT_APPLIED",
        /// The checkpoint is in no state this step accepts.
        EditCheckpointStateInvalid = "EDIT_CHECKPOINT_STATE_INVALID",
        /// The pre-run copy passes the journal's budget.
        EditCheckpointTooLarge = "EDIT_CHECKPOINT_TOO_LARGE",
        /// The journal is full of entries mid-transaction.
        EditCheckpointHistoryBusy = "EDIT_CHECKPOINT_HISTORY_BUSY",
        /// A run's write targets another file or editor than its checkpoint.
        EditCheckpointConflict = "EDIT_CHECKPOINT_CONFLICT",
        /// A revert is already running in the tab.
        EditRevertActive = "EDIT_REVERT_ACTIVE",
        /// A run owns the tab, so nothing is reverted.
        EditRevertRunActive = "EDIT_REVERT_RUN_ACTIVE",
        /// The live document differs from what the checkpoint left.
        EditRevertConflict = "EDIT_REVERT_CONFLICT",
        /// The page refused the revert.
        EditRevertFailed = "EDIT_REVERT_FAILED",
        /// The tab shows another file than the checkpoint's.
        EditRevertFileMismatch = "EDIT_REVERT_FILE_MISMATCH",
        /// The tab shows another project than the checkpoint's.
        EditRevertProjectMismatch = "EDIT_REVERT_PROJECT_MISMATCH",
        /// The checkpoint belongs to another chat.
        EditRevertScopeMismatch = "EDIT_REVERT_SCOPE_MISMATCH",
        // Document snapshots.
        /// A snapshot record is in an impossible state.
        InvalidDocumentSnapshotState = "INVALID_DOCUMENT_SNAPSHOT_STATE",
        /// The snapshot journal's index is damaged.
        DocumentSnapshotIndexInvalid = "DOCUMENT_SNAPSHOT_INDEX_INVALID",
        /// A snapshot's stored copy is missing.
        DocumentSnapshotBodyMissing = "DOCUMENT_SNAPSHOT_BODY_MISSING",
        /// A snapshot's stored copy fails its hash or length.
        DocumentSnapshotBodyInvalid = "DOCUMENT_SNAPSHOT_BODY_INVALID",
        /// No snapshot has that id.
        DocumentSnapshotNotFound = "DOCUMENT_SNAPSHOT_NOT_FOUND",
        /// A document passes the snapshot size cap.
        DocumentSnapshotTooLarge = "DOCUMENT_SNAPSHOT_TOO_LARGE",
        /// The snapshot journal has no room left.
        DocumentSnapshotBudgetFull = "DOCUMENT_SNAPSHOT_BUDGET_FULL",
        /// The live document could not be read.
        DocumentSnapshotContextUnavailable = "DOCUMENT_SNAPSHOT_CONTEXT_UNAVAILABLE",
        /// The tab shows another file than the snapshot's.
        DocumentSnapshotFileMismatch = "DOCUMENT_SNAPSHOT_FILE_MISMATCH",
        /// The tab shows another project than the snapshot's.
        DocumentSnapshotProjectMismatch = "DOCUMENT_SNAPSHOT_PROJECT_MISMATCH",
        /// The snapshot belongs to another chat.
        DocumentSnapshotScopeMismatch = "DOCUMENT_SNAPSHOT_SCOPE_MISMATCH",
        /// A run owns the tab, so nothing is restored.
        DocumentSnapshotRunActive = "DOCUMENT_SNAPSHOT_RUN_ACTIVE",
        /// A snapshot restore or delete is already running in the tab.
        DocumentSnapshotActive = "DOCUMENT_SNAPSHOT_ACTIVE",
        /// The page refused the restore.
        DocumentSnapshotRestoreFailed = "DOCUMENT_SNAPSHOT_RESTORE_FAILED",
        /// A revert or restore runs in the tab, so no run may start.
        DocumentRecoveryActive = "DOCUMENT_RECOVERY_ACTIVE",
        // Integrity of restores and editor writes: a restore applies only the
        // diff that was reviewed, a write counts only once it is read back.
        /// A snapshot restore lacks the hash and length of the document its
        /// preview was computed against, or they are malformed.
        InvalidDocumentSnapshotBase = "INVALID_DOCUMENT_SNAPSHOT_BASE",
        /// The page reported an edit as applied, but the document read back
        /// afterwards is not the edited text.
        EditApplyUnverified = "EDIT_APPLY_UNVERIFIED",
        // Stored data: settings, chats, import and migration.
        /// `chrome.storage.local` could not be read.
        StorageReadFailed = "STORAGE_READ_FAILED",
        /// `chrome.storage.local` could not be written.
        StorageWriteFailed = "STORAGE_WRITE_FAILED",
        /// A write passed the storage quota.
        StorageQuotaExceeded = "STORAGE_QUOTA_EXCEEDED",
        /// A model id is blank or too long.
        InvalidModelId = "INVALID_MODEL_ID",
        /// Two models share an id.
        DuplicateModelId = "DUPLICATE_MODEL_ID",
        /// No model has that id.
        UnknownModel = "UNKNOWN_MODEL",
        /// A chat record fails normalisation.
        InvalidSessionRecord = "INVALID_SESSION_RECORD",
        /// The chat index is absent.
        SessionIndexMissing = "SESSION_INDEX_MISSING",
        /// The chat index is damaged.
        SessionIndexInvalid = "SESSION_INDEX_INVALID",
        /// A chat's stored body is missing.
        SessionBodyMissing = "SESSION_BODY_MISSING",
        /// A chat passes its size cap.
        SessionTooLarge = "SESSION_TOO_LARGE",
        /// An import file of an unknown format version.
        UnsupportedImportVersion = "UNSUPPORTED_IMPORT_VERSION",
        /// An import file passes its size cap.
        SessionImportSizeLimit = "SESSION_IMPORT_SIZE_LIMIT",
        /// An import file holds too many chats.
        SessionImportRecordLimit = "SESSION_IMPORT_RECORD_LIMIT",
        /// Legacy migration found no free id for a chat.
        MigrationIdCollision = "MIGRATION_ID_COLLISION",
        /// A migrated chat could not be read back.
        MigrationVerifyFailed = "MIGRATION_VERIFY_FAILED",
        // Custom-tool and MCP-server records (the original's `storage.js` and `tool-registry.js`).
        /// A custom tool's id is missing or not 1–128 of `A-Z a-z 0-9 . _ : -`.
        InvalidToolId = "INVALID_TOOL_ID",
        /// Two custom tools share an id.
        DuplicateToolId = "DUPLICATE_TOOL_ID",
        /// A custom tool's function name is not 2–41 letters, digits or `_` starting with a letter.
        InvalidToolName = "INVALID_TOOL_NAME",
        /// A custom tool takes a built-in tool's name (compared without case).
        ReservedToolName = "RESERVED_TOOL_NAME",
        /// Two custom tools share a function name (compared without case).
        DuplicateToolName = "DUPLICATE_TOOL_NAME",
        /// A custom tool's parameter schema is outside the supported subset.
        InvalidCustomSchema = "INVALID_CUSTOM_SCHEMA",
        /// An MCP server's id is missing or not 1–128 of `A-Z a-z 0-9 . _ : -`.
        InvalidMcpServerId = "INVALID_MCP_SERVER_ID",
        /// Two MCP servers share an id.
        DuplicateMcpServerId = "DUPLICATE_MCP_SERVER_ID",
        /// A tool or server registry change other than replace, upsert, remove or toggle.
        InvalidRegistryMutation = "INVALID_REGISTRY_MUTATION",
        // Quick attach (the original's `service-worker.js dispatchQuickAttach`).
        /// A quick attach arrived from no tab, or from a tab without a window (the message's sender, not its payload).
        QuickAttachSourceMissing = "QUICK_ATTACH_SOURCE_MISSING",
        // The panel's Markdown audit (never on the wire; named so logs and tests agree).
        /// The rendered HTML could not be audited.
        MarkdownMalformed = "MARKDOWN_MALFORMED",
        /// The rendered HTML holds an element outside the allowlist.
        MarkdownForbiddenElement = "MARKDOWN_FORBIDDEN_ELEMENT",
        /// The rendered HTML holds an attribute outside the allowlist.
        MarkdownForbiddenAttribute = "MARKDOWN_FORBIDDEN_ATTRIBUTE",
        /// The rendered HTML holds a link outside `https:`/`mailto:`.
        MarkdownUnsafeLink = "MARKDOWN_UNSAFE_LINK",
        // Page answers (issue 11): bounds checked before a page's answer is parsed.
        /// A page's answer is larger than the byte cap of its request type; it was refused unread.
        PageAnswerTooLarge = "PAGE_ANSWER_TOO_LARGE",
        /// A page's answer is not JSON text, or nests deeper than the parser's depth limit.
        PageAnswerMalformed = "PAGE_ANSWER_MALFORMED",
        // Trust boundaries, the smaller items (issue 11): writes need a known file.
        /// An editor write, revert or snapshot restore was refused because the page could not name the focused
        /// file (or the record names none), so it could land in another file than the one it was made for.
        EditFileUnknown = "EDIT_FILE_UNKNOWN",
        // Who may send what (`sender_policy`): refusals decided from the browser's
        // `sender` before a payload is read, and runs that must use stored state.
        /// The message's sender may not send this type (a content script, another
        /// extension, a sub-frame, or a sender the browser did not name).
        SenderNotAllowed = "SENDER_NOT_ALLOWED",
        /// A run or title request carried settings, a model, custom tools or MCP
        /// servers that differ from what is stored (the settings changed since
        /// the panel read them).
        RunConfigMismatch = "RUN_CONFIG_MISMATCH",
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorCode;
    use std::collections::HashSet;

    #[test]
    fn every_code_is_unique_and_reads_back() {
        let mut seen = HashSet::new();
        for code in ErrorCode::ALL {
            let wire = code.as_str();
            assert!(seen.insert(wire), "{wire} is listed twice");
            assert_eq!(ErrorCode::from_wire(wire), Some(*code));
            assert!(
                !wire.is_empty()
                    && wire
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
                "{wire} is not SCREAMING_SNAKE_CASE"
            );
        }
    }

    #[test]
    fn unknown_wire_strings_are_not_codes() {
        for wire in ["", "cancelled", "MADE_UP_BY_PAGE", "PAGE_APPLY_EDIT"] {
            assert_eq!(ErrorCode::from_wire(wire), None, "{wire}");
        }
    }
}
