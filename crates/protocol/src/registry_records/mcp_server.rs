//! MCP servers (`typstAgent.mcpServers`): the stored record, its protocol
//! mode, the record a form saves, and the save-time rules (the original's
//! `saveMcpServers`).

use super::errors::{RecordError, RecordErrorCode, RecordErrors, RecordField};
use super::fields::{self, HEADERS, text};
use crate::endpoint_policy::{HeaderPolicy, InsecureAcknowledgement, InsecureConsent, validate_endpoint_url};
use crate::js;
use crate::trust_policy::{has_current_mcp_server_trust, mcp_server_trust_fingerprint};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

const PROTOCOL_MODE: &str = "protocolMode";

/// Which MCP protocol a server is spoken to with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum McpProtocolMode {
    /// The current stateless protocol, negotiated (the original's default).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Exactly the stateless protocol of 2026-07-28.
    #[serde(rename = "2026-07-28")]
    Stateless20260728,
    /// The 2025-11-25 protocol with its `initialize` handshake (new in the
    /// port, for servers that do not speak the stateless protocol yet).
    #[serde(rename = "2025-11-25")]
    Handshake20251125,
}

impl McpProtocolMode {
    /// Every mode, in the order the form lists them.
    pub const ALL: [McpProtocolMode; 3] = [
        McpProtocolMode::Auto,
        McpProtocolMode::Stateless20260728,
        McpProtocolMode::Handshake20251125,
    ];

    /// The stored value.
    pub const fn as_str(self) -> &'static str {
        match self {
            McpProtocolMode::Auto => "auto",
            McpProtocolMode::Stateless20260728 => "2026-07-28",
            McpProtocolMode::Handshake20251125 => "2025-11-25",
        }
    }

    /// The mode a stored value names, if it names one exactly.
    pub fn from_wire(value: &str) -> Option<McpProtocolMode> {
        McpProtocolMode::ALL.into_iter().find(|mode| mode.as_str() == value)
    }
}

/// One MCP server as stored, normalised: `protocolMode` defaults to `auto`,
/// the acknowledgement holds only for its URL's exact stored origin, and
/// `trustedAutoRun` only while its fingerprint matches the configuration.
/// Every other field is kept as it was stored, unknown ones included.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServer {
    record: Map<String, Value>,
}

impl McpServer {
    /// The original's `normalizeMcpServer`: any stored value (something that
    /// is not an object has no fields).
    pub fn from_stored(value: &Value) -> McpServer {
        let mut record = fields::spread(value);
        if !js::is_truthy(record.get(PROTOCOL_MODE)) {
            record.insert(PROTOCOL_MODE.to_owned(), Value::from(McpProtocolMode::Auto.as_str()));
        }
        let record = fields::normalize(
            record,
            "url",
            has_current_mcp_server_trust,
            mcp_server_trust_fingerprint,
        );
        McpServer { record }
    }

    /// `loadMcpServers`: the stored list, each record normalised; anything
    /// but a list is none.
    pub fn list_from_stored(stored: Option<&Value>) -> Vec<McpServer> {
        match stored {
            Some(Value::Array(items)) => items.iter().map(McpServer::from_stored).collect(),
            _ => Vec::new(),
        }
    }

    /// The id (routing, visible names and `mcp:<id>:<tool>` approvals).
    pub fn id(&self) -> Cow<'_, str> {
        text(&self.record, "id")
    }

    /// The name shown to the user and in the model's tool descriptions.
    pub fn name(&self) -> Cow<'_, str> {
        text(&self.record, "name")
    }

    /// The endpoint URL.
    pub fn url(&self) -> Cow<'_, str> {
        text(&self.record, "url")
    }

    /// The configured headers, when they are an object.
    pub fn headers(&self) -> Option<&Map<String, Value>> {
        self.record.get(HEADERS).and_then(Value::as_object)
    }

    /// Its tools are offered to the model (everything but `enabled: false`).
    pub fn enabled(&self) -> bool {
        fields::enabled(&self.record)
    }

    /// The protocol mode, when the stored value names a known one (a save
    /// refuses any other).
    pub fn protocol_mode(&self) -> Option<McpProtocolMode> {
        fields::string(&self.record, PROTOCOL_MODE).and_then(McpProtocolMode::from_wire)
    }
}

fields::stored_record_accessors!(McpServer);

/// What the MCP server form edits; [`McpServerDraft::to_record`] is the
/// record it saves (as an `upsert`) or probes.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerDraft {
    /// The record's id (a fresh one for a new server).
    pub id: String,
    /// The server's name.
    pub name: String,
    /// The endpoint URL as typed.
    pub url: String,
    /// The headers, parsed from the form's JSON.
    pub headers: Map<String, Value>,
    /// Its tools are offered to the model.
    pub enabled: bool,
    /// The protocol mode.
    pub protocol_mode: McpProtocolMode,
    /// "Allow this exact integration to run without per-call approval".
    pub trusted_auto_run: bool,
    /// "Allow non-loopback HTTP" for the URL's origin.
    pub insecure_transport_acknowledged: bool,
}

impl McpServerDraft {
    /// A new server: on, untrusted, `auto`.
    pub fn new(id: impl Into<String>) -> McpServerDraft {
        McpServerDraft {
            id: id.into(),
            name: String::new(),
            url: String::new(),
            headers: Map::new(),
            enabled: true,
            protocol_mode: McpProtocolMode::Auto,
            trusted_auto_run: false,
            insecure_transport_acknowledged: false,
        }
    }

    /// The form opened on a stored server (an unknown stored mode shows as
    /// `auto`; saving it then changes the configuration, so trust drops).
    pub fn from_server(server: &McpServer) -> McpServerDraft {
        McpServerDraft {
            id: server.id().into_owned(),
            name: server.name().into_owned(),
            url: server.url().into_owned(),
            headers: server.headers().cloned().unwrap_or_default(),
            enabled: server.enabled(),
            protocol_mode: server.protocol_mode().unwrap_or_default(),
            trusted_auto_run: server.trusted_auto_run(),
            insecure_transport_acknowledged: server.insecure_transport_acknowledged(),
        }
    }

    /// The record to save: the URL as the URL parser writes it (as typed
    /// when it does not parse, so the save reports why), the acknowledgement
    /// bound to that exact origin, and the fingerprint of this configuration
    /// when the user trusts it.
    pub fn to_record(&self) -> Map<String, Value> {
        let consent = InsecureConsent {
            confirmed: self.insecure_transport_acknowledged,
            confirmed_origin: None,
        };
        let endpoint = validate_endpoint_url(&self.url, consent).ok();
        let mut record = Map::new();
        record.insert("id".to_owned(), Value::from(self.id.as_str()));
        record.insert("name".to_owned(), Value::from(self.name.as_str()));
        let url = endpoint.as_ref().map_or(self.url.as_str(), |e| e.url.as_str());
        record.insert("url".to_owned(), Value::from(url));
        record.insert(HEADERS.to_owned(), Value::Object(self.headers.clone()));
        record.insert(fields::ENABLED.to_owned(), Value::Bool(self.enabled));
        record.insert(PROTOCOL_MODE.to_owned(), Value::from(self.protocol_mode.as_str()));
        InsecureAcknowledgement::for_endpoint(endpoint.as_ref(), self.insecure_transport_acknowledged)
            .apply_to(&mut record);
        fields::with_fingerprint(record, self.trusted_auto_run, mcp_server_trust_fingerprint)
    }
}

/// The save-time rules of a whole list (`saveMcpServers`), on each
/// normalised record in turn: its id (well-formed, then unique), its URL
/// (the acknowledgement bound to its stored origin), its headers (the MCP
/// protected set) and its protocol mode. The name is free. `Ok` holds the
/// records to store.
pub fn validate_mcp_servers(candidate: &[Value]) -> Result<Vec<McpServer>, RecordErrors> {
    let servers: Vec<McpServer> = candidate.iter().map(McpServer::from_stored).collect();
    let mut errors = Vec::new();
    let mut ids: Vec<&Value> = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let record = &server.record;
        let raw_id = record.get("id");
        if !fields::is_record_id(&server.id()) {
            errors.push(RecordError::new(
                index,
                RecordField::Id,
                RecordErrorCode::InvalidMcpServerId,
                "Every MCP server needs an id of 1 to 128 letters, digits, '.', '_', ':' or '-'.",
            ));
        } else if ids.iter().any(|seen| fields::strict_equal(Some(seen), raw_id)) {
            errors.push(RecordError::new(
                index,
                RecordField::Id,
                RecordErrorCode::DuplicateMcpServerId,
                format!(
                    "Another MCP server already has the id {}; ids must be unique.",
                    server.id()
                ),
            ));
        } else if let Some(id) = raw_id {
            ids.push(id);
        }
        errors.extend(fields::check_endpoint(index, RecordField::Url, record));
        errors.extend(fields::check_headers(index, record, HeaderPolicy::Mcp));
        if server.protocol_mode().is_none() {
            errors.push(RecordError::new(
                index,
                RecordField::ProtocolMode,
                RecordErrorCode::UnsupportedMcpVersion,
                "The protocol mode must be Auto, 2026-07-28 or 2025-11-25.",
            ));
        }
    }
    if errors.is_empty() {
        Ok(servers)
    } else {
        Err(RecordErrors { errors })
    }
}
