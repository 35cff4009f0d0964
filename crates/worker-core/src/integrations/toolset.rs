//! What a run offers beyond the built-ins, gathered when it starts
//! ([`gather`]): the enabled custom tools as stored, and the tools of every
//! enabled MCP server, discovered side by side.
//!
//! Each discovery is bounded by its own timeouts (12 s per page) and by the
//! run's cancellation. A server that fails contributes no tools: its error
//! is kept for the run's notice ([`run_notices`]) and the run goes on; only
//! Stop (or a storage failure, which the run reports) ends the gathering.

use crate::cancel::Cancellation;
use crate::mcp::{Discovery, McpClient, McpEndpoint, McpError};
use crate::platform::{Platform, Storage};
use crate::race::all_of;
use crate::storage::StorageError;
use protocol::constants::storage_keys;
use protocol::payloads::RunNotice;
use protocol::registry_records::{CustomTool, McpServer};
use protocol::{ErrorCode, js, limits};

/// One enabled MCP server and what its discovery gave.
pub(crate) struct ServerTools {
    /// The record as stored (name, id and trust come from it).
    pub(crate) server: McpServer,
    /// Where its tools are called.
    pub(crate) endpoint: McpEndpoint,
    /// Its tools, or why it has none in this run.
    pub(crate) discovered: Result<Discovery, McpError>,
}

/// What a run adds to the built-ins, in the stored order.
pub(crate) struct Toolset {
    pub(crate) custom_tools: Vec<CustomTool>,
    pub(crate) servers: Vec<ServerTools>,
}

/// A tool of an MCP server that was left out of the run, and why (its
/// discovery refused it, or the registry could not offer it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeftOut {
    pub(crate) code: ErrorCode,
    /// The server's own name for the tool.
    pub(crate) name: String,
    pub(crate) message: String,
}

/// Why a run could not gather its tools.
#[derive(Debug)]
pub(crate) enum GatherError {
    /// Stop.
    Cancelled,
    /// A stored list could not be read.
    Storage(StorageError),
}

async fn stored<S: Storage>(
    storage: &S,
    key: &str,
    cancel: &Cancellation,
) -> Result<Option<serde_json::Value>, GatherError> {
    match cancel.race(storage.get(key)).await {
        Err(_) => Err(GatherError::Cancelled),
        Ok(Err(error)) => Err(GatherError::Storage(StorageError::read(&error))),
        Ok(Ok(value)) => Ok(value),
    }
}

/// Loads the enabled custom tools and discovers the enabled MCP servers
/// (from the cache while it lasts).
pub(crate) async fn gather<P: Platform>(
    platform: &P,
    client: &McpClient,
    cancel: &Cancellation,
) -> Result<Toolset, GatherError> {
    let storage = platform.storage();
    let custom = stored(storage, storage_keys::CUSTOM_TOOLS, cancel).await?;
    let servers = stored(storage, storage_keys::MCP_SERVERS, cancel).await?;
    let custom_tools: Vec<CustomTool> = CustomTool::list_from_stored(custom.as_ref())
        .into_iter()
        .filter(CustomTool::enabled)
        .collect();
    let servers: Vec<McpServer> = McpServer::list_from_stored(servers.as_ref())
        .into_iter()
        .filter(McpServer::enabled)
        .collect();
    let discoveries = servers.into_iter().map(|server| async move {
        let endpoint = McpEndpoint::from_server(&server);
        let discovered = client
            .discover(platform.network(), platform.clock(), &endpoint, false, cancel)
            .await;
        ServerTools {
            server,
            endpoint,
            discovered,
        }
    });
    let servers = all_of(discoveries.collect()).await;
    if cancel.is_cancelled() {
        return Err(GatherError::Cancelled);
    }
    Ok(Toolset { custom_tools, servers })
}

/// What the user is told about one server: that it failed, or which of its
/// tools were left out.
pub(crate) fn server_notice(server: &ServerTools, left_out: &[LeftOut]) -> Option<RunNotice> {
    let name = server.server.name();
    let name = if name.is_empty() { server.server.id() } else { name };
    let (code, message) = match &server.discovered {
        Err(error) => (
            error.code,
            format!(
                "The MCP server \"{name}\" is left out of this run: {} [{}]",
                error.message, error.code
            ),
        ),
        Ok(_) => {
            let first = left_out.first()?;
            let count = left_out.len();
            let tools = if count == 1 { "tool" } else { "tools" };
            (
                first.code,
                format!(
                    "{count} {tools} of the MCP server \"{name}\" left out of this run; the first, \"{}\": {}",
                    first.name, first.message
                ),
            )
        }
    };
    Some(RunNotice {
        code: code.as_str().to_owned(),
        message: bounded(&message),
    })
}

/// At most [`limits::MAX_RUN_NOTICES`] notices: past it, the last one
/// counts the rest.
pub(crate) fn run_notices(mut notices: Vec<RunNotice>) -> Vec<RunNotice> {
    let max = limits::to_usize(limits::MAX_RUN_NOTICES);
    if notices.len() > max {
        let rest = notices.split_off(max - 1);
        let code = rest.first().map(|notice| notice.code.clone()).unwrap_or_default();
        notices.push(RunNotice {
            code,
            message: format!(
                "{} more MCP servers have problems in this run; probe them in Settings → MCP.",
                rest.len()
            ),
        });
    }
    notices
}

fn bounded(message: &str) -> String {
    let max = limits::to_usize(limits::MAX_NOTICE_CHARS);
    if js::utf16_len(message) <= max {
        return message.to_owned();
    }
    format!("{}…", js::truncate_utf16(message, max - 1))
}
