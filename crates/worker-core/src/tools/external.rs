//! The routes of tools outside the extension: a custom HTTP tool
//! ([`custom_route`]) and a tool of an MCP server ([`mcp_route`]).
//!
//! Their policy comes from the record as stored, never from the model or
//! the server: the effect is always `external` (the arguments leave the
//! extension), the destination is the endpoint's origin, and the call runs
//! without asking only while the user's trust holds for this exact
//! configuration (`protocol::trust_policy`); otherwise every call asks, or
//! once per run after "Allow for run" for its identity (`custom:<id>`,
//! `mcp:<serverId>:<toolName>`). They never touch the tab and need no page
//! capability.

use crate::integrations::{ServerTools, server_origin};
use crate::mcp::DiscoveredTool;
use crate::tools::metadata::{Approval, Effect};
use crate::tools::route::{McpTarget, RegistryError, Route, Target};
use protocol::endpoint_policy::{InsecureConsent, validate_endpoint_url};
use protocol::registry_records::CustomTool;
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use protocol::trust_policy::{has_current_custom_tool_trust, has_current_mcp_server_trust, mcp_visible_name};
use protocol::{ErrorCode, js, limits};
use serde_json::{Value, json};

fn approval(trusted: bool) -> Approval {
    if trusted { Approval::Trusted } else { Approval::Once }
}

fn function_spec(name: &str, description: &str, parameters: &Value) -> Value {
    json!({
        "type": "function",
        "function": { "name": name, "description": description, "parameters": parameters },
    })
}

/// A problem of a custom tool as the run's `TOOL_REGISTRY_INVALID` message
/// lists it (the messages of all problems are joined).
pub(crate) fn custom_problem(name: &str, message: &str) -> String {
    format!("Custom tool \"{name}\": {message}")
}

/// The route of an enabled custom tool: its schema must be in the
/// supported subset (`INVALID_CUSTOM_SCHEMA`) and its endpoint pass the
/// endpoint policy (that policy's code).
pub(crate) fn custom_route(tool: &CustomTool) -> Result<Route, RegistryError> {
    let name = tool.name().into_owned();
    let refuse = |code: ErrorCode, message: String| RegistryError {
        code,
        name: name.clone(),
        message,
    };
    let parameters = tool.parameters();
    let schema = ToolSchema::compile(&parameters, SchemaOptions::CUSTOM).map_err(|errors| {
        let detail = errors.first().map(|error| error.message.clone()).unwrap_or_default();
        refuse(ErrorCode::InvalidCustomSchema, custom_problem(&name, &detail))
    })?;
    let consent = InsecureConsent {
        confirmed: false,
        confirmed_origin: tool.insecure_transport_acknowledged_origin(),
    };
    let endpoint = validate_endpoint_url(&tool.endpoint(), consent)
        .map_err(|error| refuse(error.code.code(), custom_problem(&name, &error.message)))?;
    let description = tool.description();
    let description = if description.is_empty() {
        format!("Custom tool: {name}")
    } else {
        description.into_owned()
    };
    let record = Value::Object(tool.record().clone());
    Ok(Route {
        identity: format!("custom:{}", tool.id()),
        spec: function_spec(&name, &description, &parameters),
        name,
        schema,
        effect: Effect::External,
        approval: approval(has_current_custom_tool_trust(Some(&record))),
        destination: endpoint.origin,
        preflight: None,
        uses_tab: false,
        target: Target::Custom(tool.clone()),
    })
}

/// The route of one discovered tool of `server`, under its visible name
/// `mcp__<server>_<hash>__<tool>_<hash>`. A tool whose identity would be too
/// long for an approval banner is refused (`DUPLICATE_OR_INVALID_TOOL`).
pub(crate) fn mcp_route(server: &ServerTools, tool: &DiscoveredTool) -> Result<Route, RegistryError> {
    let record = Value::Object(server.server.record().clone());
    let name = mcp_visible_name(Some(&record), Some(&tool.raw));
    let identity = format!("mcp:{}:{}", server.server.id(), tool.name);
    if js::utf16_len(&identity) > limits::to_usize(limits::MAX_APPROVAL_IDENTITY_CHARS) {
        return Err(RegistryError {
            code: ErrorCode::DuplicateOrInvalidTool,
            name,
            message: "The tool's name is too long to be shown for approval.".to_owned(),
        });
    }
    let server_name = server.server.name();
    let server_name = if server_name.is_empty() {
        server.server.id()
    } else {
        server_name
    };
    let described = tool.raw.get("description").filter(|d| js::is_truthy(Some(d)));
    let description = match described {
        Some(description) => format!("[MCP {server_name}] {}", js::js_string(description)),
        None => format!("[MCP {server_name}] {}", tool.name),
    };
    Ok(Route {
        identity,
        spec: function_spec(&name, &description, tool.schema.schema()),
        name,
        schema: tool.schema.clone(),
        effect: Effect::External,
        approval: approval(has_current_mcp_server_trust(Some(&record))),
        destination: server_origin(&server.server).unwrap_or_else(|| "(invalid destination)".to_owned()),
        preflight: None,
        uses_tab: false,
        target: Target::Mcp(Box::new(McpTarget {
            endpoint: server.endpoint.clone(),
            tool: tool.clone(),
        })),
    })
}
