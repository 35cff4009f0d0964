//! `tools/list` with `cursor` pagination ([`list_tools`]) and what a
//! discovery is ([`Listing`], [`Discovery`]).
//!
//! Everything a server lists is untrusted and bounded: at most 20 pages,
//! at most 500 accepted tools, each with a unique string name and a schema
//! inside the supported subset (MCP headers allowed); a tool that fails is
//! left out and reported in `errors`, not fatal. The cache lifetime starts
//! at 60 s, each page may only shorten it (`ttlMs`), and it never passes an
//! hour.

use crate::mcp::error::McpError;
use crate::mcp::negotiate::Exchange;
use crate::mcp::request::Call;
use crate::platform::{Clock, Network};
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use protocol::{ErrorCode, js, limits};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::rc::Rc;

/// One tool a server offers, as discovered.
#[derive(Debug, Clone)]
pub(crate) struct DiscoveredTool {
    /// The server's own name for it (what `tools/call` sends).
    pub(crate) name: String,
    /// Its input schema, checked and compiled (`{type:'object',
    /// properties:{}}` when the server gave none).
    pub(crate) schema: ToolSchema,
    /// The tool object as the server listed it (description, annotations…).
    pub(crate) raw: Value,
}

/// A tool left out of a discovery, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolProblem {
    /// `DUPLICATE_OR_INVALID_TOOL` or `INVALID_MCP_SCHEMA`.
    pub(crate) code: ErrorCode,
    /// The tool's name as far as it had one (`''` when none).
    pub(crate) name: String,
    pub(crate) message: String,
}

/// What one discovery found; the cache keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Listing {
    pub(crate) tools: Vec<DiscoveredTool>,
    pub(crate) errors: Vec<ToolProblem>,
    /// The protocol version the server was spoken to in.
    pub(crate) version: &'static str,
    pub(crate) pages: u32,
    /// How long the discovery may be reused, in milliseconds.
    pub(crate) ttl_ms: f64,
    /// The server's `cacheScope` (`private` when it named none).
    pub(crate) cache_scope: String,
}

/// Whether a discovery came from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheStatus {
    Hit,
    Miss,
}

impl CacheStatus {
    fn as_str(self) -> &'static str {
        match self {
            CacheStatus::Hit => "hit",
            CacheStatus::Miss => "miss",
        }
    }
}

/// The answer of [`crate::mcp::McpClient::discover`].
#[derive(Debug, Clone)]
pub(crate) struct Discovery {
    pub(crate) listing: Rc<Listing>,
    pub(crate) cache: CacheStatus,
    /// When the cached copy expires (`Date.now()` milliseconds).
    pub(crate) expires_at: f64,
}

impl Discovery {
    /// `{tools, errors, version, pages, ttlMs, cacheScope, cache:{status,
    /// expiresAt}}`, the original's `listMcpToolsDetailed` answer (what
    /// `PROBE_MCP_SERVER` returns beside `ok`).
    pub(crate) fn to_json(&self) -> Value {
        let listing = &self.listing;
        json!({
            "tools": listing.tools.iter().map(|tool| tool.raw.clone()).collect::<Vec<_>>(),
            "errors": listing.errors.iter().map(|problem| json!({
                "code": problem.code.as_str(),
                "name": problem.name,
                "message": problem.message,
            })).collect::<Vec<_>>(),
            "version": listing.version,
            "pages": listing.pages,
            "ttlMs": js::number_value(listing.ttl_ms),
            "cacheScope": listing.cache_scope,
            "cache": { "status": self.cache.as_str(), "expiresAt": js::number_value(self.expires_at) },
        })
    }
}

/// Lists every page of a server's tools.
pub(crate) async fn list_tools<N: Network, C: Clock>(exchange: &Exchange<'_, N, C>) -> Result<Listing, McpError> {
    let mut listing = Listing {
        tools: Vec::new(),
        errors: Vec::new(),
        version: "",
        pages: 0,
        ttl_ms: f64::from(limits::MCP_DEFAULT_CACHE_TTL_MS),
        cache_scope: "private".to_owned(),
    };
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        listing.pages += 1;
        if listing.pages > limits::MAX_MCP_PAGES {
            return Err(McpError::new(
                ErrorCode::McpPageLimit,
                format!("MCP tools/list exceeded {} pages.", limits::MAX_MCP_PAGES),
            ));
        }
        let reply = exchange
            .request(&Call::List {
                cursor: cursor.as_deref(),
            })
            .await?;
        listing.version = reply.version;
        let result = reply.message.value.get("result").unwrap_or(&Value::Null);
        let result_type = result.get("resultType");
        if js::is_truthy(result_type) && result_type.and_then(Value::as_str) != Some("complete") {
            return Err(McpError::new(
                ErrorCode::McpInputRequiredUnsupported,
                "MCP tools/list requested unsupported multi-round input.",
            ));
        }
        for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
            accept(tool, &mut listing, &mut seen)?;
        }
        if let Some(ttl) = result.get("ttlMs").and_then(js::as_number).filter(|n| n.is_finite()) {
            listing.ttl_ms = listing.ttl_ms.min(ttl.max(0.0));
        }
        if let Some(scope) = result.get("cacheScope").and_then(Value::as_str) {
            listing.cache_scope = scope.to_owned();
        }
        cursor = result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|next| !next.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    listing.ttl_ms = listing.ttl_ms.max(0.0).min(f64::from(limits::MCP_MAX_CACHE_TTL_MS));
    Ok(listing)
}

/// Takes one listed tool, or records why it is left out.
fn accept(tool: &Value, listing: &mut Listing, seen: &mut HashSet<String>) -> Result<(), McpError> {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|name| !seen.contains(*name));
    let Some(name) = name.filter(|_| js::is_truthy(Some(tool))) else {
        let shown = tool
            .get("name")
            .filter(|name| js::is_truthy(Some(name)))
            .map(js::js_string);
        report(
            listing,
            ErrorCode::DuplicateOrInvalidTool,
            shown.unwrap_or_default(),
            "Tool name is missing or duplicated.",
        );
        return Ok(());
    };
    let default_schema = json!({ "type": "object", "properties": {} });
    let schema = js::or_else(tool.get("inputSchema"), &default_schema);
    let schema = match ToolSchema::compile(schema, SchemaOptions::MCP) {
        Ok(schema) => schema,
        Err(errors) => {
            let message = errors.first().map(|error| error.message.clone()).unwrap_or_default();
            report(listing, ErrorCode::InvalidMcpSchema, name.to_owned(), &message);
            return Ok(());
        }
    };
    seen.insert(name.to_owned());
    listing.tools.push(DiscoveredTool {
        name: name.to_owned(),
        schema,
        raw: tool.clone(),
    });
    if listing.tools.len() > limits::to_usize(limits::MAX_MCP_TOOLS) {
        return Err(McpError::new(
            ErrorCode::McpToolLimit,
            format!("MCP discovery exceeded {} tools.", limits::MAX_MCP_TOOLS),
        ));
    }
    Ok(())
}

fn report(listing: &mut Listing, code: ErrorCode, name: String, message: &str) {
    if listing.errors.len() < limits::to_usize(limits::MAX_MCP_DISCOVERY_ERRORS) {
        listing.errors.push(ToolProblem {
            code,
            name,
            message: message.to_owned(),
        });
    }
}
