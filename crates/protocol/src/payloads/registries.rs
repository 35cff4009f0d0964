//! The record registries: custom tools and MCP servers
//! (`SAVE_CUSTOM_TOOLS`, `SAVE_MCP_SERVERS`, `PROBE_MCP_SERVER`), and the
//! transactional change the models, tools and servers lists share.
//!
//! The records themselves stay opaque JSON here: the worker's registry code
//! validates them, so this layer only fixes their container shapes.

use super::fields::{exact, fail};
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A transactional change to a record registry (models, custom tools, MCP
/// servers). `select` exists only for models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RegistryMutation {
    /// Insert or replace the record with the same `id`.
    Upsert {
        /// The whole record; it must carry a non-blank `id`.
        record: Map<String, Value>,
    },
    /// Replace the whole list.
    Replace {
        /// Every record, in order.
        records: Vec<Value>,
    },
    /// Delete one record.
    Remove {
        /// The record's id.
        id: String,
    },
    /// Switch one record on or off (the worker refuses it for models).
    Toggle {
        /// The record's id.
        id: String,
    },
    /// Make one model the active one (models only).
    Select {
        /// The model's id.
        id: String,
    },
}

/// Reads a mutation; `select` only where `allow_select` (the models list).
pub(crate) fn registry_mutation(value: &Value, allow_select: bool) -> Option<RegistryMutation> {
    let map = value.as_object()?;
    let kind = map.get("type")?.as_str()?;
    let only = |keys: &[&str]| map.keys().all(|k| keys.contains(&k.as_str()));
    let id = || {
        map.get("id")
            .and_then(Value::as_str)
            .filter(|s| js::is_non_blank(s) && js::utf16_len(s) <= to_usize(limits::MAX_RECORD_ID_CHARS))
            .map(str::to_owned)
    };
    match kind {
        "upsert" if only(&["type", "record"]) => {
            let record = map.get("record")?.as_object()?;
            record
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| js::is_non_blank(s))?;
            Some(RegistryMutation::Upsert { record: record.clone() })
        }
        "replace" if only(&["type", "records"]) => Some(RegistryMutation::Replace {
            records: map.get("records")?.as_array()?.clone(),
        }),
        "remove" if only(&["type", "id"]) => Some(RegistryMutation::Remove { id: id()? }),
        "toggle" if only(&["type", "id"]) => Some(RegistryMutation::Toggle { id: id()? }),
        "select" if allow_select && only(&["type", "id"]) => Some(RegistryMutation::Select { id: id()? }),
        _ => None,
    }
}

/// `SAVE_CUSTOM_TOOLS`: the panel's whole list, plus the one change it made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveCustomTools {
    /// The custom tool records as the panel holds them.
    pub tools: Vec<Value>,
    /// The change to apply to the stored list, when the panel sends one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mutation: Option<RegistryMutation>,
}

impl SaveCustomTools {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SaveCustomTools, ProtocolError> {
        let (tools, mutation) = registry_save(
            p,
            "tools",
            ErrorCode::InvalidCustomTools,
            "tools or mutation is invalid",
        )?;
        Ok(SaveCustomTools { tools, mutation })
    }
}

/// `SAVE_MCP_SERVERS`: the panel's whole list, plus the one change it made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveMcpServers {
    /// The MCP server records as the panel holds them.
    pub servers: Vec<Value>,
    /// The change to apply to the stored list, when the panel sends one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mutation: Option<RegistryMutation>,
}

impl SaveMcpServers {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SaveMcpServers, ProtocolError> {
        let (servers, mutation) = registry_save(
            p,
            "servers",
            ErrorCode::InvalidMcpServers,
            "servers or mutation is invalid",
        )?;
        Ok(SaveMcpServers { servers, mutation })
    }
}

/// `{<list>, mutation?}`, the shape both registry saves share: the list
/// under `key` and an optional mutation without `select`.
fn registry_save(
    p: &Map<String, Value>,
    key: &str,
    code: ErrorCode,
    message: &str,
) -> Result<(Vec<Value>, Option<RegistryMutation>), ProtocolError> {
    let f = exact(p, &[key, "mutation"], &[key])?;
    let invalid = |field: &str| fail(code, f.at(field), message);
    let records = wire::array(f.raw(key)).ok_or_else(|| invalid(key))?;
    let mutation =
        wire::optional(f.raw("mutation"), |v| registry_mutation(v, false)).map_err(|()| invalid("mutation"))?;
    Ok((records, mutation))
}

/// `PROBE_MCP_SERVER`: list a server's tools before it is saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeMcpServer {
    /// The server record to probe (the worker validates it).
    pub server: Map<String, Value>,
}

impl ProbeMcpServer {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ProbeMcpServer, ProtocolError> {
        let f = exact(p, &["server"], &["server"])?;
        let server = wire::object(f.raw("server"))
            .ok_or_else(|| fail(ErrorCode::InvalidMcpServer, f.at("server"), "server must be an object"))?;
        Ok(ProbeMcpServer { server })
    }
}
