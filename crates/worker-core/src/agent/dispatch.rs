//! One tool call from the model's request to its result.
//!
//! The pipeline is the same for every tool: resolve the exact visible name,
//! parse and validate the arguments against the route's schema (fail
//! closed, just before use), wait for the page capabilities the source says
//! the tool needs, authorise it by its source-owned policy, then execute.
//! Every failure becomes a structured `{ok:false, code, …}` result the model
//! can read; only Stop (`Cancelled`) escapes, because it ends the run. A
//! tool that uses the page first checks that the originating tab still shows
//! the URL the run started on (`STALE_RUN_TAB`).
//!
//! Editor writes are registered and validated like every tool, then leave
//! this pipeline for their own (`edits::apply`: file guard, one
//! editor snapshot, diff review, checkpoint, guarded apply). Custom tools
//! and MCP servers' tools go through the same steps (they need no tab and
//! no page capability) and then send their arguments out; whatever fails
//! there is the model's tool result, never the run's failure.

use crate::cancel::{Cancellation, Cancelled};
use crate::edits::run_editor_write;
use crate::integrations::call_custom_tool;
use crate::mcp::{DiscoveredTool, McpClient, McpEndpoint};
use crate::platform::Platform;
use crate::runs::{CallInfo, RunContext, ToolOutput, tool_failure};
use crate::tools::{Effect, Target, ToolRegistry, authorize, capabilities, check_tab, run_read_tool};
use protocol::ErrorCode;
use serde_json::{Map, Value};

/// The call as the provider sent it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) raw_args: &'a str,
}

impl<'a> Call<'a> {
    fn info(&self) -> CallInfo<'a> {
        CallInfo {
            id: self.id,
            name: self.name,
        }
    }
}

/// Runs one call; `Err` only when the run was cancelled.
pub(crate) async fn dispatch<P: Platform>(
    run: &RunContext<'_, P>,
    registry: &ToolRegistry,
    call: Call<'_>,
) -> Result<ToolOutput, Cancelled> {
    if call.id.is_empty() || call.name.is_empty() {
        return Ok(tool_failure(
            ErrorCode::InvalidToolCall,
            "A tool call needs an id and a function name.",
        ));
    }
    let Some(route) = registry.route(call.name) else {
        return Ok(tool_failure(
            ErrorCode::UnknownTool,
            format!("Unknown tool: {}", call.name),
        ));
    };
    let args = match route.schema.parse_and_validate(call.raw_args) {
        Ok(args) => args,
        Err(errors) => return Ok(invalid_arguments(&errors)),
    };
    if route.effect == Effect::EditorWrite {
        // Editor writes have their own pipeline: see `edits::apply`.
        return run_editor_write(run, route, call.info(), &args).await;
    }
    // Nothing is read from (or asked of) a tab that navigated since Send.
    if route.uses_tab
        && let Err(stale) = check_tab(run).await?
    {
        return Ok(stale);
    }
    if let Some(needs) = route.preflight
        && let Err(skipped) = capabilities(run, call.info(), needs).await?
    {
        return Ok(skipped);
    }
    if let Err(denied) = authorize(run, route, call.info(), &args, None).await? {
        return Ok(denied);
    }
    let platform = run.platform;
    let result = match &route.target {
        Target::Builtin => run_read_tool(run, call.info(), &args).await?,
        Target::Custom(tool) => {
            call_custom_tool(platform.network(), platform.clock(), tool, &args, &run.cancel).await?
        }
        Target::Mcp(target) => {
            call_mcp_tool(platform, run.mcp, &target.endpoint, &target.tool, &args, &run.cancel).await?
        }
    };
    // A tab that navigated while the tool waited may have answered for
    // another page: such a result is dropped, never shown to the model.
    if route.uses_tab
        && let Err(stale) = check_tab(run).await?
    {
        return Ok(stale);
    }
    Ok(result)
}

/// One `tools/call`: `{ok:true, content}` with the rendered result, or
/// `{ok:false, code, error}` (`MCP_TOOL_ERROR` for a result with `isError`).
async fn call_mcp_tool<P: Platform>(
    platform: &P,
    client: &McpClient,
    endpoint: &McpEndpoint,
    tool: &DiscoveredTool,
    args: &Map<String, Value>,
    cancel: &Cancellation,
) -> Result<ToolOutput, Cancelled> {
    let called = client
        .call(platform.network(), platform.clock(), endpoint, tool, args, cancel)
        .await;
    match called {
        Ok(result) => {
            let mut output = Map::new();
            output.insert("ok".to_owned(), Value::Bool(true));
            output.insert("content".to_owned(), Value::String(result.content));
            Ok(output)
        }
        Err(error) if error.code == ErrorCode::Cancelled => Err(Cancelled),
        Err(error) => Ok(tool_failure(error.code, error.message)),
    }
}

/// `{ok:false, code, path, error}` from the first validation problem.
fn invalid_arguments(errors: &protocol::tool_schema::ToolErrors) -> ToolOutput {
    let (code, path, message) = match errors.first() {
        Some(first) => (first.code.code(), first.path.clone(), first.message.clone()),
        None => (
            ErrorCode::ArgumentsParseError,
            "$".to_owned(),
            "The tool arguments are invalid.".to_owned(),
        ),
    };
    let mut result = tool_failure(code, message);
    result.insert("path".into(), Value::String(path));
    result
}
