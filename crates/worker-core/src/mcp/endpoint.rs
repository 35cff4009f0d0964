//! What the client needs of one configured MCP server ([`McpEndpoint`]),
//! the checks it passes before anything is sent (protocol mode, endpoint
//! policy, configured headers), and the key the client's memory of that
//! configuration is filed under.

use crate::mcp::error::McpError;
use crate::mcp::headers::check_configured;
use protocol::endpoint_policy::{InsecureConsent, validate_endpoint_url};
use protocol::registry_records::McpServer;
use protocol::trust_policy::stable_hash;
use protocol::{ErrorCode, js};
use serde_json::json;

/// The 2026-07-28 revision: stateless, every request self-describing.
pub(crate) const MODERN_VERSION: &str = "2026-07-28";
/// The version the 2025 handshake offers.
pub(crate) const LEGACY_OFFER: &str = "2025-11-25";
/// The 2025-era versions this client speaks once a server chose one.
pub(crate) const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26"];

/// One MCP server as the client sees it; the worker fills it from the
/// stored record (`typstAgent.mcpServers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct McpEndpoint {
    /// The record's id: discoveries are invalidated by it.
    pub(crate) id: String,
    /// The URL as stored (the endpoint policy normalises it before sending).
    pub(crate) url: String,
    /// Configured headers, in the record's order.
    pub(crate) headers: Vec<(String, String)>,
    /// `auto`, `2026-07-28` or `2025-11-25` as stored; empty means `auto`.
    pub(crate) protocol_mode: String,
    /// The origin the user acknowledged cleartext HTTP for, if any.
    pub(crate) insecure_acknowledged_origin: Option<String>,
}

impl McpEndpoint {
    /// The endpoint of a stored (normalised) server record. Header values
    /// that are not strings are sent as their text, as `fetch` would; the
    /// protocol mode is taken as stored, so a mode this client does not know
    /// is refused before anything is sent.
    pub(crate) fn from_server(server: &McpServer) -> McpEndpoint {
        let headers = server
            .headers()
            .map(|headers| {
                headers
                    .iter()
                    .map(|(name, value)| (name.clone(), js::js_string(value)))
                    .collect()
            })
            .unwrap_or_default();
        McpEndpoint {
            id: server.id().into_owned(),
            url: server.url().into_owned(),
            headers,
            protocol_mode: server
                .record()
                .get("protocolMode")
                .map(js::js_string)
                .unwrap_or_default(),
            insecure_acknowledged_origin: server.insecure_transport_acknowledged_origin().map(str::to_owned),
        }
    }
}

/// Which revisions the client may speak to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProtocolMode {
    /// 2026-07-28 first, the 2025 handshake when the server needs it.
    Auto,
    /// 2026-07-28 only.
    Modern,
    /// The 2025 handshake only.
    Legacy,
}

impl ProtocolMode {
    fn parse(mode: &str) -> Result<ProtocolMode, McpError> {
        match mode {
            "" | "auto" => Ok(ProtocolMode::Auto),
            MODERN_VERSION => Ok(ProtocolMode::Modern),
            LEGACY_OFFER => Ok(ProtocolMode::Legacy),
            other => Err(McpError::new(
                ErrorCode::UnsupportedMcpVersion,
                format!("Unsupported configured MCP protocol mode: {other}"),
            )),
        }
    }
}

/// A configuration that passed every check, ready to send to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) server_id: String,
    /// The WHATWG-normalised URL requests go to.
    pub(crate) url: String,
    pub(crate) mode: ProtocolMode,
    pub(crate) headers: Vec<(String, String)>,
    /// `<id>|<url>|<mode>|<header digest>`: the discovery cache and the
    /// remembered era are filed under it, so any change to the
    /// configuration starts afresh.
    pub(crate) key: String,
}

impl Target {
    /// Checks the protocol mode (`UNSUPPORTED_MCP_VERSION`), the endpoint
    /// policy (cleartext only to loopback or the acknowledged origin) and
    /// the configured headers (`MCP_HEADER_CONFLICT`), in that order.
    pub(crate) fn prepare(endpoint: &McpEndpoint) -> Result<Target, McpError> {
        let mode = ProtocolMode::parse(&endpoint.protocol_mode)?;
        let consent = InsecureConsent {
            confirmed: false,
            confirmed_origin: endpoint.insecure_acknowledged_origin.as_deref(),
        };
        let checked = validate_endpoint_url(&endpoint.url, consent).map_err(|error| {
            let failure = McpError::new(error.code.code(), error.message);
            match error.details {
                Some(details) => failure.with_details(json!({ "origin": details.origin })),
                None => failure,
            }
        })?;
        let headers: Vec<(String, String)> = endpoint
            .headers
            .iter()
            .filter(|(name, _)| !name.is_empty())
            .cloned()
            .collect();
        check_configured(&headers)?;
        Ok(Target {
            server_id: endpoint.id.clone(),
            url: checked.url,
            mode,
            key: config_key(endpoint),
            headers,
        })
    }
}

/// `<id>|<url>|<protocolMode>|<stableHash of the sorted lower-case
/// name:value pairs joined by '|'>`. The key lives only in worker memory, so
/// the sort needs to be deterministic, not the original's `localeCompare`.
fn config_key(endpoint: &McpEndpoint) -> String {
    let mut pairs: Vec<(String, &str)> = endpoint
        .headers
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), value.as_str()))
        .collect();
    protocol::js::sort_by(&mut pairs, Ord::cmp);
    let digest_input = pairs
        .iter()
        .map(|(name, value)| format!("{name}:{value}"))
        .collect::<Vec<_>>()
        .join("|");
    let mode = if endpoint.protocol_mode.is_empty() {
        "auto"
    } else {
        endpoint.protocol_mode.as_str()
    };
    format!("{}|{}|{mode}|{}", endpoint.id, endpoint.url, stable_hash(&digest_input))
}
