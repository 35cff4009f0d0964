//! Every numeric bound of the extension, in one place.
//!
//! These are plain constants so that `xtask` can generate the JavaScript
//! copies the page scripts need, and so that every crate enforces the same
//! number. Units follow the original: `*_CHARS` counts UTF-16 code units,
//! `*_BYTES` counts UTF-8 bytes, `*_MS` is milliseconds, everything else is a
//! count.

// ----- The original's `LIMITS` table -----

/// Declared by the original, unused by its current code.
pub const MAX_DOC_CHARS_INITIAL: u32 = 32_000;
/// Ceiling of `read_document`'s `max_chars`.
pub const MAX_READ_DOC_TOOL_CHARS: u32 = 64_000;
/// Default of `read_document`'s `max_chars` (also the page's default).
pub const DEFAULT_READ_DOC_CHARS: u32 = 28_000;
/// Longest `fullText` the page sends; the `edit` projection refuses longer documents.
pub const MAX_PAGE_DOCUMENT_CHARS: u32 = 1_048_576;
/// Longest document an edit, checkpoint or snapshot may cover.
pub const MAX_EDITOR_TRANSACTION_CHARS: u32 = 1_000_000;
/// Longest selection text from the page.
pub const MAX_PAGE_SELECTION_CHARS: u32 = 65_536;
/// Longest workspace JSON from the page.
pub const MAX_PAGE_WORKSPACE_CHARS: u32 = 65_536;
/// Most diagnostics in one page read.
pub const MAX_PAGE_DIAGNOSTICS: u32 = 200;
/// Longest diagnostics JSON from the page.
pub const MAX_PAGE_DIAGNOSTICS_CHARS: u32 = 262_144;
/// Longest preview data URL.
pub const MAX_PREVIEW_DATA_URL_CHARS: u32 = 2_097_152;
/// Initial wait of `read_diagnostics`.
pub const DIAGNOSTICS_SETTLE_DELAY_MS: u32 = 750;
/// Pause between diagnostics stability reads.
pub const DIAGNOSTICS_STABILITY_INTERVAL_MS: u32 = 150;
/// Most diagnostics reads per `read_diagnostics` call.
pub const DIAGNOSTICS_STABILITY_MAX_READS: u32 = 4;
/// Provider rounds per run.
pub const MAX_TOOL_ROUNDS: u32 = 32;
/// Timeout of an MCP `tools/call`.
pub const MCP_CALL_TIMEOUT_MS: u32 = 30_000;
/// Timeout of each MCP `tools/list` page.
pub const MCP_DISCOVERY_TIMEOUT_MS: u32 = 12_000;
/// Timeout of a custom HTTP tool call.
pub const CUSTOM_TOOL_TIMEOUT_MS: u32 = 30_000;
/// Largest custom tool response body.
pub const MAX_CUSTOM_TOOL_RESPONSE_BYTES: u32 = 262_144;
/// Characters of a custom tool answer that is not JSON kept as `{raw}`.
pub const MAX_CUSTOM_TOOL_RAW_CHARS: u32 = 64_000;
/// Longest tool message content sent to the model.
pub const MAX_TOOL_RESULT_MODEL_CHARS: u32 = 65_536;
/// Largest MCP response (JSON or SSE).
pub const MAX_MCP_RESPONSE_BYTES: u32 = 2_097_152;
/// Most `tools/list` pages per discovery.
pub const MAX_MCP_PAGES: u32 = 20;
/// Most tools accepted from one MCP server.
pub const MAX_MCP_TOOLS: u32 = 500;
/// Largest provider error body read.
pub const MAX_PROVIDER_ERROR_BYTES: u32 = 65_536;
/// Largest provider SSE stream per round.
pub const MAX_PROVIDER_STREAM_BYTES: u32 = 4_194_304;
/// Most content plus reasoning characters per provider round.
pub const MAX_PROVIDER_OUTPUT_CHARS: u32 = 1_048_576;
/// Largest session-title response.
pub const MAX_TITLE_RESPONSE_BYTES: u32 = 65_536;
/// Longest stored thumbnail data URL.
pub const MAX_PERSISTED_PREVIEW_CHARS: u32 = 204_800;
/// Most stored thumbnails per user message.
pub const MAX_PERSISTED_PREVIEWS_PER_MESSAGE: u32 = 2;
/// Longest generic stored tool-result summary.
pub const MAX_PERSISTED_TOOL_RESULT_CHARS: u32 = 4_000;
/// Largest session body (UTF-8 JSON).
pub const MAX_SESSION_BODY_BYTES: u32 = 1_048_576;
/// Largest session import file.
pub const MAX_SESSION_IMPORT_FILE_BYTES: u32 = 16_777_216;
/// Largest total of imported session bodies.
pub const MAX_SESSION_IMPORT_BODY_BYTES: u32 = 8_388_608;
/// Most records in one import.
pub const MAX_SESSION_IMPORT_RECORDS: u32 = 500;
/// Storage use from which the panel warns.
pub const STORAGE_WARNING_BYTES: u32 = 8_388_608;
/// Most edit-checkpoint index entries.
pub const MAX_EDIT_CHECKPOINTS: u32 = 5;
/// Largest total of edit-checkpoint bodies.
pub const MAX_EDIT_CHECKPOINT_TOTAL_BYTES: u32 = 4_194_304;
/// How long prepared or reverting checkpoints are protected from pruning.
pub const EDIT_CHECKPOINT_IN_FLIGHT_TTL_MS: u32 = 300_000;
/// Most document-snapshot index entries.
pub const MAX_DOCUMENT_SNAPSHOTS: u32 = 6;
/// Largest total of document-snapshot bodies.
pub const MAX_DOCUMENT_SNAPSHOT_TOTAL_BYTES: u32 = 4_194_304;
/// Most page requests in flight (the page bridge's own copy is
/// [`crate::page_bridge::MAX_PENDING_REQUESTS`]).
pub const MAX_PENDING_PAGE_REQUESTS: u32 = 64;
/// Timeout of a page request (see [`crate::page_bridge::REQUEST_TIMEOUT_MS`]).
pub const PAGE_REQUEST_TIMEOUT_MS: u32 = 12_000;

// ----- Message bounds (protocol validation) -----

/// Longest `requestId` or `runId` in an envelope.
pub const MAX_ENVELOPE_ID_CHARS: u32 = crate::page_bridge::MAX_REQUEST_ID_CHARS;
/// Longest checkpoint or snapshot id in a request.
pub const MAX_RECORD_ID_CHARS: u32 = 128;
/// Longest project or session id in a scoped request.
pub const MAX_SCOPE_ID_CHARS: u32 = 256;
/// Most items in one `AI_STREAM_BATCH`.
pub const MAX_STREAM_BATCH_ITEMS: u32 = 256;
/// Most calls in one `AI_TOOL_CALLS`.
pub const MAX_TOOL_CALLS_PER_EVENT: u32 = 64;
/// Longest approval argument summary.
pub const MAX_APPROVAL_ARGUMENT_CHARS: u32 = 2_000;
/// Longest approval preview notice or completed-run snapshot warning.
pub const MAX_NOTICE_CHARS: u32 = 500;
/// Most hunks in a diff preview.
pub const MAX_DIFF_HUNKS: u32 = 256;
/// Most rows in a diff preview.
pub const MAX_DIFF_ROWS: u32 = 5_000;
/// Most row text characters in a diff preview.
pub const MAX_DIFF_TEXT_CHARS: u32 = 512_000;
/// Most changes in one prepared edit.
pub const MAX_PREPARED_CHANGES: u32 = 128;
/// Most inserted characters in one prepared edit.
pub const MAX_PREPARED_INSERT_CHARS: u32 = 1_000_000;
/// Longest editor identity token.
pub const MAX_EDITOR_TOKEN_CHARS: u32 = 200;
/// Longest file label.
pub const MAX_FILE_LABEL_CHARS: u32 = 240;
/// Longest snapshot title.
pub const MAX_SNAPSHOT_TITLE_CHARS: u32 = 120;
/// Longest `unavailableReason` of a checkpoint receipt.
pub const MAX_UNAVAILABLE_REASON_CHARS: u32 = 300;
/// Longest tool-call id (the provider's bound).
pub const MAX_TOOL_CALL_ID_CHARS: u32 = 128;
/// Longest tool name (the provider's bound; visible names stay within 64).
pub const MAX_TOOL_NAME_CHARS: u32 = 128;
/// Longest error `code` in a terminal run event.
pub const MAX_ERROR_CODE_CHARS: u32 = 200;
/// Longest approval `identity` (`custom:<id>` or `mcp:<server>:<tool>`).
pub const MAX_APPROVAL_IDENTITY_CHARS: u32 = 512;
/// Longest approval `effect`.
pub const MAX_APPROVAL_EFFECT_CHARS: u32 = 64;
/// Longest approval `destination` (an origin or a fixed description).
pub const MAX_APPROVAL_DESTINATION_CHARS: u32 = 2_048;
/// Longest theme name in `SAVE_THEME`.
pub const MAX_THEME_CHARS: u32 = 64;
/// Largest `maxChars` of a context request.
pub const MAX_CONTEXT_REQUEST_CHARS: u32 = 64_000;

// ----- Page answers (the page scripts read these through the generated constants) -----

/// Longest `message` of one diagnostic row from the page.
pub const MAX_DIAGNOSTIC_MESSAGE_CHARS: u32 = 2_000;
/// Longest `severity` of one diagnostic row.
pub const MAX_DIAGNOSTIC_SEVERITY_CHARS: u32 = 16;
/// Longest `kind` of one diagnostic row.
pub const MAX_DIAGNOSTIC_KIND_CHARS: u32 = 32;
/// Longest `original` or `suggestion` of one diagnostic row.
pub const MAX_DIAGNOSTIC_TEXT_CHARS: u32 = 500;
/// Longest `error` inside the page's workspace hints (the page cuts the text
/// of a failed layout read; the worker cuts again).
pub const MAX_WORKSPACE_ERROR_CHARS: u32 = 1_000;
/// Most diff rows the page draws over the editor; beyond them it shows a
/// truncation notice and the panel's complete diff is the review.
pub const MAX_INLINE_DIFF_ROWS: u32 = 2_000;
/// Longest warning an edit preview answer may carry: it becomes the approval
/// banner's notice, which is bounded by [`MAX_NOTICE_CHARS`].
pub const MAX_EDIT_WARNING_CHARS: u32 = MAX_NOTICE_CHARS;

// ----- Tool schemas and arguments -----

/// Deepest schema (and argument) nesting.
pub const MAX_SCHEMA_DEPTH: u32 = 20;
/// Most schema nodes.
pub const MAX_SCHEMA_NODES: u32 = 500;
/// Largest raw argument text (UTF-8).
pub const MAX_ARGUMENT_BYTES: u32 = 262_144;
/// Longest argument array.
pub const MAX_ARGUMENT_ARRAY_ITEMS: u32 = 10_000;
/// Most validation errors collected.
pub const MAX_VALIDATION_ERRORS: u32 = 8;
/// Longest schema `pattern`.
pub const MAX_PATTERN_CHARS: u32 = 256;
/// Most `enum` entries.
pub const MAX_ENUM_VALUES: u32 = 1_000;
/// Most branches of `allOf`, `anyOf` or `oneOf`.
pub const MAX_COMPOSITION_BRANCHES: u32 = 20;
/// Largest quantifier bound in a `pattern`.
pub const MAX_PATTERN_QUANTIFIER_BOUND: u32 = 10_000;
/// Most argument values visited in one validation.
pub const MAX_VISITED_ARGUMENT_VALUES: u32 = 100_000;

// ----- MCP client -----

/// How long a discovery stays cached when no page names a shorter `ttlMs`.
pub const MCP_DEFAULT_CACHE_TTL_MS: u32 = 60_000;
/// Longest a discovery stays cached, whatever the server says.
pub const MCP_MAX_CACHE_TTL_MS: u32 = 3_600_000;
/// Events of one MCP event stream that may fail to parse; one more fails the request.
pub const MAX_MCP_MALFORMED_SSE_EVENTS: u32 = 8;
/// Characters of an unparsable MCP body quoted in `MCP_INVALID_JSON`.
pub const MCP_INVALID_JSON_EXCERPT_CHARS: u32 = 200;
/// Server configurations whose discovery, and whose negotiated era, the worker
/// keeps in memory; the oldest is forgotten first. New in the port (the
/// original's cache grew without bound).
pub const MAX_MCP_CACHED_SERVERS: u32 = 64;
/// Rejected tools one discovery reports; later ones are left out silently.
/// New in the port.
pub const MAX_MCP_DISCOVERY_ERRORS: u32 = 500;
/// Longest `Mcp-Session-Id` a 2025 server may issue. New in the port.
pub const MAX_MCP_SESSION_ID_CHARS: u32 = 1_024;
/// Distinct MCP server origins the worker removes `Origin` for (one
/// `declarativeNetRequest` session rule each); servers past it keep the
/// browser's `Origin`. New in the port.
pub const MAX_MCP_ORIGIN_RULES: u32 = 64;
/// Notices one `AI_RUN_NOTICE` carries (one per MCP server at most). New in
/// the port, with the event.
pub const MAX_RUN_NOTICES: u32 = 16;

// ----- Endpoint and header policy -----

/// Most configured headers.
pub const MAX_HEADERS: u32 = 32;
/// Longest header name.
pub const MAX_HEADER_NAME_CHARS: u32 = 128;
/// Longest header value.
pub const MAX_HEADER_VALUE_CHARS: u32 = 4_096;

// ----- Trust policy -----

/// Longest model-visible function name.
pub const MAX_FUNCTION_NAME_CHARS: u32 = 64;
/// Longest server slug in an MCP visible name.
pub const MCP_SERVER_SLUG_CHARS: u32 = 14;
/// Longest tool slug in an MCP visible name.
pub const MCP_TOOL_SLUG_CHARS: u32 = 28;
/// Hash characters in an MCP visible name.
pub const MCP_NAME_HASH_CHARS: u32 = 6;

// ----- Run budget (new in the port) -----
//
// Without these a run could make 32 rounds × 64 calls, each answered with up
// to 65,536 characters, and every round sends the whole conversation again:
// text in the document that talks the model into a loop could exhaust the
// worker's memory and the user's bill. A call answered by reference to an
// identical earlier result (the run's read cache) counts as a call but adds
// no result bytes.

/// Most tool calls one run executes. Four per round over all
/// [`MAX_TOOL_ROUNDS`] rounds: a long editing session (read, edit, check
/// the diagnostics, again) stays far below it, while a loop stops long
/// before the 2,048 calls the round and per-round limits allow.
pub const MAX_RUN_TOOL_CALLS: u32 = 128;
/// Most tool-result bytes one run sends to the model, counted as UTF-8 bytes
/// of each `tool` message's content as the model gets it (after the
/// [`MAX_TOOL_RESULT_MODEL_CHARS`] cut). Bytes rather than UTF-16 units
/// because what the cap protects is the worker's memory (Rust strings are
/// UTF-8) and the request body every round sends again, both measured in
/// bytes. 2 MiB lets a run page through the largest document a write may
/// cover ([`MAX_EDITOR_TRANSACTION_CHARS`]) once with room for the other
/// tools; it is about half a million tokens, past most models' context
/// windows, so a legitimate run never needs more. The result that crosses the
/// cap is still delivered (a tool that ran is never hidden from the model),
/// so a run may exceed it by one result.
pub const MAX_RUN_TOOL_RESULT_BYTES: u32 = 2_097_152;

// ----- Active file and project tree -----

/// Longest project-relative path.
pub const MAX_PROJECT_PATH_CHARS: u32 = 240;
/// Longest project label.
pub const MAX_PROJECT_LABEL_CHARS: u32 = 160;
/// Longest active-file source tag.
pub const MAX_ACTIVE_FILE_SOURCE_CHARS: u32 = 64;
/// Most project-tree entries.
pub const MAX_PROJECT_TREE_ENTRIES: u32 = 128;
/// Longest project-tree path.
pub const MAX_PROJECT_TREE_PATH_CHARS: u32 = 240;
/// Longest project-tree path segment.
pub const MAX_PROJECT_TREE_SEGMENT_CHARS: u32 = 160;
/// Deepest project tree the page reads.
pub const MAX_PROJECT_TREE_DEPTH: u32 = 12;

// ----- Quick attach -----

/// How long a queued quick attachment waits for its panel.
pub const QUICK_ATTACH_TTL_MS: u32 = 30_000;
/// Most queued quick attachments.
pub const MAX_QUICK_ATTACH_QUEUE: u32 = 32;
/// Most quick-attach event ids a panel remembers to ignore a second delivery
/// (the broadcast and the drain can both bring the same event).
pub const MAX_SEEN_QUICK_ATTACH_IDS: u32 = 128;

// ----- Page answers (the bytes a page may hand the worker) -----

/// Longest `error` text a page answer carries (an `ok:false` message, or the
/// `error` field of a context, preview or diagnostics answer). The isolated
/// world cuts longer text before it relays the answer; the worker cuts again.
pub const MAX_PAGE_ERROR_CHARS: u32 = 2_000;
/// Longest `PAGE_GET_CONTEXT` `data`, as JSON text.
pub const MAX_CONTEXT_RESPONSE_CHARS: u32 = 2_300_000;
/// Longest `{result}` of an edit preview, clear or apply, as JSON text.
pub const MAX_EDIT_RESULT_CHARS: u32 = 64_000;
/// Room every page answer has besides its `data`: the envelope (`type`,
/// `requestId`, `runId`, `nonce`, each at most 200 units) and an `ok:false`
/// error of a bounded code and message, with every unit escaped as `\uXXXX`
/// (6 bytes) — so no answer the bridge may send is refused for its envelope.
pub const PAGE_ANSWER_ENVELOPE_BYTES: u32 = 32_768;
/// Largest `PAGE_GET_CONTEXT` answer in UTF-8 bytes: the context data cap
/// (`MAX_CONTEXT_RESPONSE_CHARS` UTF-16 units of JSON text, at most 3 bytes
/// each) plus the envelope.
pub const MAX_CONTEXT_ANSWER_BYTES: u32 = 3 * MAX_CONTEXT_RESPONSE_CHARS + PAGE_ANSWER_ENVELOPE_BYTES;
/// Largest `PAGE_GET_PREVIEW` answer: the data URL is base64 ASCII (1 byte a
/// unit), with room for the side lengths and type, plus the envelope.
pub const MAX_PREVIEW_ANSWER_BYTES: u32 = MAX_PREVIEW_DATA_URL_CHARS + 1_024 + PAGE_ANSWER_ENVELOPE_BYTES;
/// Largest `PAGE_GET_DIAGNOSTICS` answer: the diagnostics JSON cap at 3 bytes
/// a unit, plus the envelope.
pub const MAX_DIAGNOSTICS_ANSWER_BYTES: u32 = 3 * MAX_PAGE_DIAGNOSTICS_CHARS + PAGE_ANSWER_ENVELOPE_BYTES;
/// Largest `PAGE_GET_PROBE` answer: five booleans plus the envelope.
pub const MAX_PROBE_ANSWER_BYTES: u32 = 256 + PAGE_ANSWER_ENVELOPE_BYTES;
/// Largest answer to `PAGE_SHOW_EDIT_PREVIEW`, `PAGE_CLEAR_EDIT_PREVIEW` or
/// `PAGE_APPLY_EDIT`: the edit result cap (`MAX_EDIT_RESULT_CHARS` units of
/// JSON text) at 3 bytes a unit, plus the envelope.
pub const MAX_EDIT_ANSWER_BYTES: u32 = 3 * MAX_EDIT_RESULT_CHARS + PAGE_ANSWER_ENVELOPE_BYTES;
/// Largest `PAGE_CANCEL_REQUEST` answer: one boolean plus the envelope.
pub const MAX_CANCEL_ANSWER_BYTES: u32 = 64 + PAGE_ANSWER_ENVELOPE_BYTES;
/// Deepest nesting of arrays and objects the worker's JSON parser takes from
/// a page (serde_json's own recursion limit, kept on): deeper answers are
/// refused as malformed instead of exhausting the wasm stack.
pub const MAX_PAGE_ANSWER_DEPTH: u32 = 128;

// ----- Links in rendered answers -----

/// Longest link destination (in characters) the panel follows on a click
/// without first showing it: a model can be led to put document text into a
/// link, and a long address hides where it goes and what it carries.
pub const MAX_LINK_DIRECT_CHARS: u32 = 120;
/// Longest query string plus fragment (after `?` or `#`, in characters) a
/// link may carry and still be followed without showing it first.
pub const MAX_LINK_QUERY_CHARS: u32 = 40;

/// Converts a `u32` limit to `usize` for comparisons with lengths.
pub const fn to_usize(limit: u32) -> usize {
    limit as usize
}
