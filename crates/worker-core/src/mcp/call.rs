//! `tools/call` ([`call_tool`]) and what it gives the model
//! ([`McpToolResult`]).

use crate::mcp::discovery::DiscoveredTool;
use crate::mcp::error::McpError;
use crate::mcp::negotiate::Exchange;
use crate::mcp::ordered_json::Ordered;
use crate::mcp::render::{bound_tool_text, render_content};
use crate::mcp::request::Call;
use crate::platform::{Clock, Network};
use protocol::{ErrorCode, js};
use serde_json::{Map, Value};

/// A successful call: the rendered result, at most 65,536 characters plus
/// the truncation note. A result with `isError` is an [`McpError`] with
/// `MCP_TOOL_ERROR` and that text as its message instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpToolResult {
    pub(crate) content: String,
}

/// Calls `tool` with already validated `arguments`.
pub(crate) async fn call_tool<N: Network, C: Clock>(
    exchange: &Exchange<'_, N, C>,
    tool: &DiscoveredTool,
    arguments: &Map<String, Value>,
) -> Result<McpToolResult, McpError> {
    let call = Call::Tool {
        name: &tool.name,
        arguments,
        schema: tool.schema.schema(),
    };
    let reply = exchange.request(&call).await?;
    let result = reply.message.value.get("result").unwrap_or(&Value::Null);
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        return Err(McpError::new(
            ErrorCode::McpInputRequiredUnsupported,
            "This MCP tool requires multi-round user input, which this client does not expose yet.",
        ));
    }
    // Rendered from the text as sent, so JSON the model reads keeps the
    // server's key order.
    let ordered = serde_json::from_str::<Ordered>(&reply.message.raw)
        .ok()
        .and_then(|message| message.get("result").cloned())
        .unwrap_or_else(|| Ordered::from(result));
    let content = bound_tool_text(render_content(&ordered));
    if js::is_truthy(result.get("isError")) {
        let message = if content.is_empty() {
            "MCP tool error".to_owned()
        } else {
            content
        };
        return Err(McpError::new(ErrorCode::McpToolError, message));
    }
    Ok(McpToolResult { content })
}
