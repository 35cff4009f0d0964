//! The requests the client sends, spelled for each era.
//!
//! A 2026-07-28 request describes itself completely: the
//! `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`) `Mcp-Name`
//! headers, `x-mcp-header` arguments mirrored in `Mcp-Param-*` headers, the
//! `params._meta` envelope with version, client info and capabilities. A
//! 2025 request names the negotiated version and the session, and carries
//! no envelope: the 2026 handlers of the v2 SDK route any envelope claim to
//! their modern path and refuse a 2025 version there.

use crate::mcp::endpoint::{LEGACY_OFFER, MODERN_VERSION, Target};
use crate::mcp::error::McpError;
use crate::mcp::headers::{encode_header_value, parameter_headers};
use crate::mcp::transport::Post;
use serde_json::{Map, Value, json};
use std::cell::Cell;

/// The `clientInfo.name` every request and handshake gives.
const CLIENT_NAME: &str = "typst-side-agent";

/// What the client asks a server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Call<'a> {
    /// One `tools/list` page.
    List { cursor: Option<&'a str> },
    /// `tools/call`; `schema` is the tool's input schema (where its
    /// `x-mcp-header` arguments are declared).
    Tool {
        name: &'a str,
        arguments: &'a Map<String, Value>,
        schema: &'a Value,
    },
}

impl Call<'_> {
    pub(crate) fn method(&self) -> &'static str {
        match self {
            Call::List { .. } => "tools/list",
            Call::Tool { .. } => "tools/call",
        }
    }

    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        match self {
            Call::List { cursor: Some(cursor) } => {
                params.insert("cursor".to_owned(), json!(cursor));
            }
            Call::List { cursor: None } => {}
            Call::Tool { name, arguments, .. } => {
                params.insert("name".to_owned(), json!(name));
                params.insert("arguments".to_owned(), Value::Object((*arguments).clone()));
            }
        }
        params
    }
}

/// JSON-RPC ids: one integer counter per worker instance, from 1.
#[derive(Debug)]
pub(crate) struct RequestIds(Cell<u64>);

impl Default for RequestIds {
    fn default() -> Self {
        RequestIds(Cell::new(1))
    }
}

impl RequestIds {
    pub(crate) fn next(&self) -> u64 {
        let id = self.0.get();
        self.0.set(id.saturating_add(1));
        id
    }
}

/// A 2025 session: the version the server chose and the session id it
/// issued, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LegacySession {
    pub(crate) version: &'static str,
    pub(crate) session_id: Option<String>,
}

/// Builds the requests to one server.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Requests<'a> {
    pub(crate) target: &'a Target,
    pub(crate) client_version: &'a str,
    pub(crate) timeout_ms: u32,
}

impl Requests<'_> {
    fn client_info(&self) -> Value {
        json!({ "name": CLIENT_NAME, "version": self.client_version })
    }

    /// Content type, `Accept` (both framings: the 2025 transports answer
    /// 406 without `text/event-stream`), then `extra`, then the configured
    /// headers.
    fn headers(&self, extra: Vec<(String, String)>) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Content-Type".to_owned(), "application/json".to_owned()),
            ("Accept".to_owned(), "application/json, text/event-stream".to_owned()),
        ];
        headers.extend(extra);
        headers.extend(self.target.headers.iter().cloned());
        headers
    }

    fn post(&self, headers: Vec<(String, String)>, body: Value, id: Option<u64>, version: &'static str) -> Post {
        Post {
            url: self.target.url.clone(),
            headers,
            body: body.to_string(),
            id,
            version,
            timeout_ms: self.timeout_ms,
        }
    }

    /// A 2026-07-28 request (`INVALID_MCP_HEADER_VALUE` when an
    /// `x-mcp-header` argument cannot travel as a header).
    pub(crate) fn modern(&self, call: &Call<'_>, id: u64) -> Result<Post, McpError> {
        let method = call.method();
        let mut params = call.params();
        let mut extra = vec![
            ("MCP-Protocol-Version".to_owned(), MODERN_VERSION.to_owned()),
            ("Mcp-Method".to_owned(), method.to_owned()),
        ];
        let mut mirrored = Vec::new();
        if let Call::Tool {
            name,
            arguments,
            schema,
        } = call
        {
            extra.push(("Mcp-Name".to_owned(), encode_header_value(name)));
            // The arguments stay in the body as `params()` put them; the
            // headers mirror the `x-mcp-header` ones.
            mirrored = parameter_headers(schema, arguments)?
                .into_iter()
                .map(|(name, value)| (format!("Mcp-Param-{name}"), encode_header_value(&value)))
                .collect();
        }
        params.insert(
            "_meta".to_owned(),
            json!({
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientInfo": self.client_info(),
                "io.modelcontextprotocol/clientCapabilities": {},
            }),
        );
        let mut headers = self.headers(extra);
        headers.extend(mirrored);
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        Ok(self.post(headers, body, Some(id), MODERN_VERSION))
    }

    /// A request inside a 2025 session; the arguments stay in the body
    /// whole (2025 servers know no `x-mcp-header`).
    pub(crate) fn legacy(&self, call: &Call<'_>, id: u64, session: &LegacySession) -> Post {
        let body = json!({ "jsonrpc": "2.0", "id": id, "method": call.method(), "params": call.params() });
        self.post(self.session_headers(session), body, Some(id), session.version)
    }

    /// The 2025 handshake's `initialize`: no version header (there is none
    /// yet), no envelope.
    pub(crate) fn initialize(&self, id: u64) -> Post {
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "initialize",
            "params": {
                "protocolVersion": LEGACY_OFFER,
                "capabilities": {},
                "clientInfo": self.client_info(),
            },
        });
        self.post(self.headers(Vec::new()), body, Some(id), LEGACY_OFFER)
    }

    /// `notifications/initialized`, which ends the handshake.
    pub(crate) fn initialized(&self, session: &LegacySession) -> Post {
        let body = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        self.post(self.session_headers(session), body, None, session.version)
    }

    fn session_headers(&self, session: &LegacySession) -> Vec<(String, String)> {
        let mut extra = vec![("MCP-Protocol-Version".to_owned(), session.version.to_owned())];
        if let Some(id) = &session.session_id {
            extra.push(("Mcp-Session-Id".to_owned(), id.clone()));
        }
        self.headers(extra)
    }
}
