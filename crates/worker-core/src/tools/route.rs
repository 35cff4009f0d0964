//! What one callable tool is ([`Route`]): its visible name, identity,
//! schema, spec and source-owned policy, and what executes it
//! ([`Target`]); and why a tool could not become one ([`RegistryError`]).

use crate::mcp::{DiscoveredTool, McpEndpoint};
use crate::tools::metadata::{Approval, Effect, Preflight, is_repeatable_read};
use protocol::ErrorCode;
use protocol::registry_records::CustomTool;
use protocol::tool_schema::ToolSchema;
use serde_json::Value;

/// What executes a route.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// One of the ten built-ins (by its name).
    Builtin,
    /// A custom HTTP tool, as stored.
    Custom(CustomTool),
    /// A tool of an MCP server, as discovered.
    Mcp(Box<McpTarget>),
}

/// Where an MCP tool is called, and the tool as its server listed it.
#[derive(Debug, Clone)]
pub(crate) struct McpTarget {
    pub(crate) endpoint: McpEndpoint,
    pub(crate) tool: DiscoveredTool,
}

/// One callable tool.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    /// The exact function name the model sees and calls.
    pub(crate) name: String,
    /// Stable identity used for "Allow for run" grants (`builtin:<name>`,
    /// `custom:<id>`, `mcp:<serverId>:<toolName>`).
    pub(crate) identity: String,
    /// The compiled parameter schema; arguments are validated against it
    /// immediately before dispatch.
    pub(crate) schema: ToolSchema,
    /// The OpenAI function spec sent to the provider.
    pub(crate) spec: Value,
    pub(crate) effect: Effect,
    pub(crate) approval: Approval,
    pub(crate) destination: String,
    pub(crate) preflight: Option<Preflight>,
    /// Checked against the run's captured tab before anything else.
    pub(crate) uses_tab: bool,
    pub(crate) target: Target,
}

impl Route {
    /// A built-in read whose identical repeated result the run may answer by
    /// reference ([`is_repeatable_read`]); never an external tool, whose
    /// server may answer differently or act on each call.
    pub(crate) fn is_repeatable_read(&self) -> bool {
        matches!(self.target, Target::Builtin) && self.effect == Effect::Read && is_repeatable_read(&self.name)
    }
}

/// A tool that could not be registered. `TOOL_NAME_COLLISION` and schema
/// errors make a run fail with `TOOL_REGISTRY_INVALID`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegistryError {
    pub(crate) code: ErrorCode,
    pub(crate) name: String,
    pub(crate) message: String,
}
