//! The message contract of Typst Side Agent.
//!
//! Architecture invariant: this crate is plain Rust with no knowledge of the
//! browser — no web-sys, no wasm exports, no I/O, no clock and no randomness
//! (callers pass `now` and fresh ids in). Everything that crosses a boundary
//! between the side panel, the service worker and the page is defined and
//! validated here, so every other crate agrees on one wire format and the
//! whole contract is tested natively.
//!
//! # Who owns which message family
//!
//! The owner is the side that routes (answers) the request or emits the
//! event; everyone else only builds or observes it. Parsing is the same
//! everywhere: [`parse_envelope`].
//!
//! | Family | Types | Sent by | Owned (answered / emitted) by |
//! |---|---|---|---|
//! | Settings, theme | `LOAD_SETTINGS`, `SAVE_SETTINGS`, `LOAD_THEME`, `SAVE_THEME` | panel | worker (storage) |
//! | Sessions | `SESSION_*` (10 types) | panel | worker (storage) |
//! | Checkpoint revert | `EDIT_CHECKPOINT_REVERT` | panel | worker (revert) |
//! | Document snapshots | `DOCUMENT_SNAPSHOT_LIST/PREVIEW/RESTORE/DELETE` | panel | worker (snapshots) |
//! | Tabs | `OPEN_PROJECT_TAB` | panel | worker |
//! | Tool registries | `LOAD/SAVE_CUSTOM_TOOLS`, `LOAD/SAVE_MCP_SERVERS`, `PROBE_MCP_SERVER` | panel | worker |
//! | Editor reads | `GET_EDITOR_CONTEXT`, `GET_PREVIEW`, `GET_DIAGNOSTICS` | panel | worker (forwards to the page) |
//! | Titles | `GENERATE_SESSION_TITLE` | panel | worker (provider) |
//! | Run control | `AI_RUN_RESERVE`, `AI_STREAM_START`, `AI_STREAM_CANCEL`, `AI_RUN_STATUS`, `AI_TOOL_PREFLIGHT_RESOLVE`, `AI_TOOL_APPROVAL_RESOLVE` | panel | worker (run engine) |
//! | Run events | `AI_STREAM_BATCH/DONE/CANCELLED/ERROR`, `AI_TOOL_CALLS`, `AI_TOOL_RESULT`, `AI_TOOL_PREFLIGHT_WAITING/READY`, `AI_TOOL_APPROVAL_REQUIRED`, `AI_RUN_NOTICE` | worker (broadcast) | worker; panels accept only their active `runId` |
//! | Tab state | `ACTIVE_TAB_CHANGED` | worker (broadcast) | worker |
//! | Quick attach | `QUICK_ATTACH_SELECTION`, `QUICK_ATTACH_IMAGE_PREVIEW` | isolated script → worker (`{}`), worker → panels (with origin) | worker (queue); `QUICK_ATTACH_DRAIN` answered by the worker |
//! | Page requests | `PAGE_GET_CONTEXT/PREVIEW/DIAGNOSTICS/PROBE`, `PAGE_CANCEL_REQUEST`, `PAGE_SHOW/CLEAR_EDIT_PREVIEW`, `PAGE_APPLY_EDIT` | worker → isolated → main world | main-world page script (answers with `PROTOCOL_RESPONSE`) |
//! | Page bridge | `PAGE_BRIDGE_INIT`, `PAGE_BRIDGE_READY`, `PAGE_QUICK_SELECTION`, `PAGE_QUICK_IMAGE_PREVIEW` (all with `nonce`) | isolated ↔ main world | isolated script (handshake, events) |
//! | Responses | `PROTOCOL_RESPONSE` | whoever answers a request | the requester |
//!
//! # Modules
//!
//! - [`MessageType`], [`messages`], [`payloads`], [`error`]: the message
//!   types, the envelope, the 62 typed payloads and their error codes.
//! - [`limits`], [`constants`], [`page_bridge`]: every bound, mode, shortcut,
//!   storage key and bridge constant; [`page_response`]: what the page may
//!   answer to each page request.
//! - [`tool_schema`], [`js_regex`]: the JSON-Schema subset and tool arguments.
//! - [`sender_policy`]: who may send each message type to the worker and to
//!   the panel (checked before a payload is read).
//! - [`endpoint_policy`], [`trust_policy`]: where traffic may go, MCP names
//!   and trust fingerprints; [`registry_records`]: the custom-tool and MCP
//!   server records and their load and save rules.
//! - [`active_file`], [`project_tree`], [`edit_checkpoint`],
//!   [`document_snapshot`], [`diff_preview`]: shared records;
//!   [`invisible_chars`]: the characters a diff review shows as marks.
//! - [`answer`]: the saved answer record both the worker and the panel build;
//!   [`response`]: the one reader of `PROTOCOL_RESPONSE` answers.
//! - [`bounded_body`]: byte-capped body decoding; [`js`]: JavaScript value
//!   semantics (UTF-16 lengths, `Number.isInteger`, number printing).

#![warn(missing_docs, unreachable_pub)]

pub mod active_file;
pub mod answer;
pub mod bounded_body;
mod codes;
pub mod constants;
pub mod diff_preview;
pub mod document_snapshot;
pub mod edit_checkpoint;
pub mod endpoint_policy;
pub mod error;
pub mod invisible_chars;
pub mod js;
pub mod js_regex;
pub mod limits;
mod message_type;
pub mod messages;
pub mod page_bridge;
pub mod page_response;
pub mod payloads;
pub mod project_tree;
pub mod registry_records;
pub mod response;
pub mod sender_policy;
pub mod tool_schema;
pub mod trust_policy;
mod wire;

pub use error::{ErrorCode, ProtocolError};
pub use message_type::{MessageKind, MessageType};
pub use messages::{Envelope, ParseOptions, Payload, parse_envelope, parse_payload};
