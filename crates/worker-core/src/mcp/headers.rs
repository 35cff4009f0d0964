//! The HTTP headers of MCP requests: which names the transport manages (a
//! configured header may not take them over), how a value that is not plain
//! printable ASCII travels (`=?base64?…?=`, as the 2026-07-28 revision
//! defines it), and which tool arguments leave the JSON body for
//! `Mcp-Param-<name>` headers (`x-mcp-header`).

use crate::mcp::error::McpError;
use protocol::{ErrorCode, js};
use serde_json::{Map, Value};

// The header names the transport sets itself are the endpoint policy's MCP
// set (one definition: a record that passes the save check never conflicts
// at send time); any name with the `Mcp-Param-` prefix is managed too.
use protocol::endpoint_policy::{MCP_PARAM_HEADER_PREFIX as PARAM_PREFIX, PROTECTED_MCP_HEADERS as MANAGED};

/// Refuses configured headers that would take over a managed one
/// (`MCP_HEADER_CONFLICT`), before anything is sent.
pub(crate) fn check_configured(headers: &[(String, String)]) -> Result<(), McpError> {
    for (name, _) in headers {
        let lower = name.to_ascii_lowercase();
        if MANAGED.contains(&lower.as_str()) || lower.starts_with(PARAM_PREFIX) {
            return Err(McpError::new(
                ErrorCode::McpHeaderConflict,
                format!("Configured header \"{name}\" conflicts with an MCP protocol header."),
            ));
        }
    }
    Ok(())
}

/// A header value as the 2026-07-28 revision carries it: printable ASCII
/// without surrounding spaces as is, anything else (and anything that
/// already looks encoded) as `=?base64?<UTF-8 in base64>?=`.
pub(crate) fn encode_header_value(text: &str) -> String {
    let printable = text.bytes().all(|b| (0x20..=0x7E).contains(&b));
    let trimmed = !text.starts_with(' ') && !text.ends_with(' ');
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    if printable && trimmed && !looks_encoded {
        return text.to_owned();
    }
    format!("=?base64?{}?=", base64(text.as_bytes()))
}

/// Standard base64 with padding (`btoa` of the UTF-8 bytes).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [group[0], *group.get(1).unwrap_or(&0), *group.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= group.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The `Mcp-Param-<name>` headers of a 2026-07-28 `tools/call` (values
/// still unencoded): one per argument whose schema node carries
/// `x-mcp-header`. The header mirrors the argument, which stays in the JSON
/// body: the servers that check these headers (TypeScript SDK v2's handler,
/// Python `mcp` 2.x) refuse a call whose header and body disagree, an
/// argument missing from the body included (400 `-32020`, or a schema
/// error for a required argument). The original moved the value out of the
/// body, which every such server refused. Only nodes reached through
/// `properties` count (the schema check allows the keyword nowhere else); a
/// value must be a string, a boolean or a number, and a safe integer where
/// the node says `integer` (`INVALID_MCP_HEADER_VALUE`).
pub(crate) fn parameter_headers(
    schema: &Value,
    arguments: &Map<String, Value>,
) -> Result<Vec<(String, String)>, McpError> {
    let mut headers = Vec::new();
    visit(schema, &Value::Object(arguments.clone()), &mut headers)?;
    Ok(headers)
}

/// Collects the header of `source` if its node names one, else looks into
/// the node's `properties`.
fn visit(node: &Value, source: &Value, headers: &mut Vec<(String, String)>) -> Result<(), McpError> {
    let Some(node) = node.as_object() else {
        return Ok(());
    };
    let header = node.get("x-mcp-header");
    if js::is_truthy(header) && !source.is_null() {
        let name = header.map(js::js_string).unwrap_or_default();
        let integer = node.get("type").and_then(Value::as_str) == Some("integer");
        let value = match source {
            Value::String(text) => text.clone(),
            Value::Bool(flag) => flag.to_string(),
            Value::Number(_) if !integer || is_safe_integer(source) => js::js_string(source),
            _ => {
                return Err(McpError::new(
                    ErrorCode::InvalidMcpHeaderValue,
                    format!("Invalid value for x-mcp-header {name}."),
                ));
            }
        };
        headers.push((name, value));
        return Ok(());
    }
    let Some(properties) = node.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, child) in properties {
        if let Some(value) = own_property(source, key) {
            visit(child, value, headers)?;
        }
    }
    Ok(())
}

/// `Number.isSafeInteger(value)`.
fn is_safe_integer(value: &Value) -> bool {
    js::is_integer(value) && js::as_number(value).is_some_and(|n| n.abs() <= js::MAX_SAFE_INTEGER)
}

/// `Object.hasOwn(source, key) ? source[key]` for objects and arrays.
fn own_property<'a>(source: &'a Value, key: &str) -> Option<&'a Value> {
    match source {
        Value::Object(map) => map.get(key),
        Value::Array(items) => array_index(key).and_then(|i| items.get(i)),
        _ => None,
    }
}

/// A canonical array index (`"0"`, `"12"`, never `"01"`).
fn array_index(key: &str) -> Option<usize> {
    let canonical = key == "0" || (!key.starts_with('0') && !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit()));
    canonical.then(|| key.parse().ok()).flatten()
}
