//! The records of the two tool registries: custom HTTP tools
//! (`typstAgent.customTools`) and MCP servers (`typstAgent.mcpServers`).
//!
//! Both the worker (load, save) and the panel (forms that check what the user
//! types) use these rules, so they live here once. A record is kept as the
//! JSON object it was stored as, every field included, because the original
//! spreads stored records when it normalises them: a field this version does
//! not know survives every save. Typed accessors read the known fields the
//! way the original reads them.
//!
//! - Loading is lenient ([`CustomTool::from_stored`], [`McpServer::from_stored`]):
//!   the cleartext acknowledgement is recomputed from the record's URL and
//!   stored origin, and "run without asking" trust holds only while the stored
//!   fingerprint matches the configuration, so any edit of a covered field
//!   drops it.
//! - Saving is strict ([`validate_custom_tools`], [`validate_mcp_servers`]):
//!   ids, names, schemas, endpoints, headers and protocol modes, every problem
//!   pointing at its record and field ([`RecordErrors`]); the first one is the
//!   one the original reported.
//! - A panel's change is applied to the stored list, not to the panel's copy
//!   ([`apply_record_mutation`]).
//! - Forms build the record they save with [`CustomToolDraft`] and
//!   [`McpServerDraft`].

mod custom_tool;
mod errors;
mod fields;
mod mcp_server;
mod mutation;

pub use custom_tool::{CustomTool, CustomToolDraft, validate_custom_tools};
pub use errors::{MutationError, RecordError, RecordErrorCode, RecordErrors, RecordField};
pub use fields::is_record_id;
pub use mcp_server::{McpProtocolMode, McpServer, McpServerDraft, validate_mcp_servers};
pub use mutation::apply_record_mutation;
