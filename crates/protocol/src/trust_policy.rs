//! Names the model sees for MCP tools, and fingerprints that bind a user's
//! "run without asking" trust to one exact configuration.
//!
//! Both must give exactly the original's values for the same input, since
//! they are stored with users' tool and server records: `stableHash` is
//! 32-bit FNV-1a over UTF-16 code units printed in base 36, and fingerprints
//! hash a canonical JSON text (keys sorted by UTF-16 code units, numbers
//! printed as JavaScript does). Records are plain JSON here because they are
//! stored that way; missing or falsy fields fall back as in the original
//! (`value || default`).

use crate::js;
use crate::limits::{self, to_usize};
use serde_json::{Map, Value, json};

/// `stableHash`: FNV-1a (offset `0x811c9dc5`, prime `0x01000193`) over the
/// UTF-16 code units, unsigned, base 36, left-padded with `0` to 7 digits.
pub fn stable_hash(value: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for unit in value.encode_utf16() {
        hash ^= u32::from(unit);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    let digits = to_base36(hash);
    format!("{digits:0>7}")
}

fn to_base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Replaces each run of characters outside `[A-Za-z0-9_-]` with `_`, strips
/// leading and trailing `_`, falls back to `tool`, and keeps `max` characters.
fn slug(value: &str, max: usize) -> String {
    let mut out = String::with_capacity(value.len());
    let mut in_run = false;
    for ch in value.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            out.push(ch);
            in_run = false;
        } else if !in_run {
            out.push('_');
            in_run = true;
        }
    }
    let trimmed = out.trim_matches('_');
    let slug = if trimmed.is_empty() { "tool" } else { trimmed };
    slug.chars().take(max).collect()
}

fn field<'a>(record: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    record.and_then(|r| r.get(key))
}

/// `String(a || b)` where `b` is already a string.
fn string_or(value: Option<&Value>, fallback: &str) -> String {
    if js::is_truthy(value) {
        value.map(js::js_string).unwrap_or_default()
    } else {
        fallback.to_owned()
    }
}

/// The model-visible name of an MCP tool:
/// `mcp__<server slug ≤14>_<hash6>__<tool slug ≤28>_<hash6>`, at most 64
/// characters. The server hash covers its id (or URL), the tool hash its name.
pub fn mcp_visible_name(server: Option<&Value>, tool: Option<&Value>) -> String {
    let server_slug = slug(
        &string_or(field(server, "name"), "server"),
        to_usize(limits::MCP_SERVER_SLUG_CHARS),
    );
    let tool_slug = slug(
        &string_or(field(tool, "name"), "tool"),
        to_usize(limits::MCP_TOOL_SLUG_CHARS),
    );
    let server_key = if js::is_truthy(field(server, "id")) {
        string_or(field(server, "id"), "")
    } else {
        string_or(field(server, "url"), &server_slug)
    };
    let hash_chars = to_usize(limits::MCP_NAME_HASH_CHARS);
    let server_hash: String = stable_hash(&server_key).chars().take(hash_chars).collect();
    let tool_hash: String = stable_hash(&string_or(field(tool, "name"), &tool_slug))
        .chars()
        .take(hash_chars)
        .collect();
    let name = format!("mcp__{server_slug}_{server_hash}__{tool_slug}_{tool_hash}");
    name.chars().take(to_usize(limits::MAX_FUNCTION_NAME_CHARS)).collect()
}

fn or_default(record: Option<&Value>, key: &str, fallback: Value) -> Value {
    let value = field(record, key);
    if js::is_truthy(value) {
        value.cloned().unwrap_or(fallback)
    } else {
        fallback
    }
}

/// `<prefix>:<length>:<hash>` over the canonical JSON of the `covered`
/// fields of `record`, each replaced by its default when not truthy.
fn configuration_fingerprint<'a>(
    prefix: &str,
    record: Option<&Value>,
    covered: impl IntoIterator<Item = (&'a str, Value)>,
) -> String {
    let covered: Map<String, Value> = covered
        .into_iter()
        .map(|(key, fallback)| (key.to_owned(), or_default(record, key, fallback)))
        .collect();
    let canonical = js::canonical_json(&Value::Object(covered));
    format!("{prefix}:{}:{}", js::utf16_len(&canonical), stable_hash(&canonical))
}

/// `custom-v1:<length>:<hash>` over `{id, name, description, endpoint,
/// headers, parameters}` of a custom tool record.
pub fn custom_tool_trust_fingerprint(tool: Option<&Value>) -> String {
    let covered = [
        ("id", json!("")),
        ("name", json!("")),
        ("description", json!("")),
        ("endpoint", json!("")),
        ("headers", json!({})),
        ("parameters", json!({"type": "object", "properties": {}})),
    ];
    configuration_fingerprint("custom-v1", tool, covered)
}

/// `mcp-v1:<length>:<hash>` over `{id, name, url, headers, protocolMode}`
/// of an MCP server record.
pub fn mcp_server_trust_fingerprint(server: Option<&Value>) -> String {
    let covered = [
        ("id", json!("")),
        ("name", json!("")),
        ("url", json!("")),
        ("headers", json!({})),
        ("protocolMode", json!("auto")),
    ];
    configuration_fingerprint("mcp-v1", server, covered)
}

fn has_current_trust(record: Option<&Value>, fingerprint: impl FnOnce(Option<&Value>) -> String) -> bool {
    js::is_truthy(field(record, "trustedAutoRun"))
        && field(record, "trustedAutoRunFingerprint").and_then(Value::as_str) == Some(fingerprint(record).as_str())
}

/// Trust holds only while `trustedAutoRun` is set and the stored fingerprint
/// equals the current configuration's.
pub fn has_current_custom_tool_trust(tool: Option<&Value>) -> bool {
    has_current_trust(tool, custom_tool_trust_fingerprint)
}

/// Trust holds only while `trustedAutoRun` is set and the stored fingerprint
/// equals the current configuration's.
pub fn has_current_mcp_server_trust(server: Option<&Value>) -> bool {
    has_current_trust(server, mcp_server_trust_fingerprint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_vectors() {
        assert_eq!(stable_hash(""), "0ztntfp");
        assert_eq!(stable_hash("a"), "1r9wi7g");
        assert_eq!(stable_hash("search"), "0zkjvzd");
        assert_eq!(
            mcp_visible_name(
                Some(&json!({"id": "srv1", "name": "My Server"})),
                Some(&json!({"name": "search"}))
            ),
            "mcp__My_Server_0wdueo__search_0zkjvz"
        );
        assert_eq!(
            mcp_visible_name(
                Some(&json!({"id": "x", "name": "a very long server name indeed"})),
                Some(&json!({"name": "tool.with.dots/and spaces and more characters than twenty eight"}))
            ),
            "mcp__a_very_long_se_1y7mkj__tool_with_dots_and_spaces_an_0j2wxg"
        );
        assert_eq!(
            custom_tool_trust_fingerprint(Some(&json!({"id": "t1", "name": "search_arxiv", "description": "d",
                "endpoint": "https://e.x/", "headers": {}, "parameters": {"type": "object", "properties": {}}}))),
            "custom-v1:137:1fmza7l"
        );
        assert_eq!(
            mcp_server_trust_fingerprint(Some(&json!({"id": "s1", "name": "local",
                "url": "http://localhost:7000/mcp", "headers": {}, "protocolMode": "auto"}))),
            "mcp-v1:95:1wkyosy"
        );
    }

    #[test]
    fn trust_is_bound_to_the_exact_configuration() {
        let mut custom = json!({"id": "custom-1", "name": "lookup", "endpoint": "https://tools.example/call",
            "headers": {"Authorization": "Bearer fixture"}, "parameters": {"type": "object", "properties": {}},
            "trustedAutoRun": true});
        custom["trustedAutoRunFingerprint"] = json!(custom_tool_trust_fingerprint(Some(&custom)));
        assert!(has_current_custom_tool_trust(Some(&custom)));
        custom["endpoint"] = json!("https://other.example/call");
        assert!(!has_current_custom_tool_trust(Some(&custom)));
        let mut server = json!({"id": "server-1", "name": "fixture", "url": "https://mcp.example/rpc",
            "protocolMode": "auto", "headers": {}, "trustedAutoRun": true});
        server["trustedAutoRunFingerprint"] = json!(mcp_server_trust_fingerprint(Some(&server)));
        assert!(has_current_mcp_server_trust(Some(&server)));
        server["trustedAutoRun"] = json!(false);
        assert!(!has_current_mcp_server_trust(Some(&server)));
        assert_ne!(
            mcp_visible_name(
                Some(&json!({"id": "server-b", "name": "same"})),
                Some(&json!({"name": "read"}))
            ),
            mcp_visible_name(
                Some(&json!({"id": "server-a", "name": "same"})),
                Some(&json!({"name": "read"}))
            )
        );
    }
}
