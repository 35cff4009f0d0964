//! "Probe tools" on the MCP form: what the result region says about a
//! `PROBE_MCP_SERVER` answer or failure.
//!
//! The answer has the original's shape `{ok, tools:[{name, description?,
//! inputSchema?}], errors:[{code, name, message}], version, pages, ttlMs,
//! cacheScope, cache:{status, expiresAt}}`; it is read leniently (a field
//! that is missing or of another type reads as its default), because the
//! report is for people and a strange answer should still say what it can.
//! A failure shows its code and message, and the port's explanations in
//! `error.details` (a `hint` on its own line first, then any other plain
//! field).

use crate::worker_client::WorkerError;
use protocol::js;
use serde_json::Value;

/// At most this many rejected schemas are listed (the rest are counted).
pub(crate) const MAX_REJECTED_SHOWN: usize = 5;

/// What the result region shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProbeStatus {
    /// The probe is under way (the button is busy).
    Busy,
    /// The server answered: the report's lines.
    Connected(Vec<String>),
    /// The probe failed or the form was not valid: the lines that say why.
    Failed(Vec<String>),
}

fn text_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(_) => value.map(js::js_string),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn items(answer: &Value, key: &str) -> Vec<Value> {
    answer.get(key).and_then(Value::as_array).cloned().unwrap_or_default()
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The report of a successful probe.
pub(crate) fn report(answer: &Value) -> ProbeStatus {
    let tools = items(answer, "tools");
    let errors = items(answer, "errors");
    let version = text_of(answer.get("version")).unwrap_or_else(|| "an unknown version".to_owned());
    let pages = answer
        .get("pages")
        .and_then(js::as_safe_uint)
        .filter(|p| *p > 0)
        .unwrap_or(1);
    let status = text_of(answer.pointer("/cache/status")).unwrap_or_else(|| "unknown".to_owned());
    let ttl = text_of(answer.get("ttlMs")).unwrap_or_else(|| "0".to_owned());
    let scope = text_of(answer.get("cacheScope")).unwrap_or_else(|| "private".to_owned());
    let mut lines = vec![
        format!("Connected with MCP {version}."),
        format!(
            "{}, {}, {}.",
            plural(tools.len(), "valid tool", "valid tools"),
            plural(errors.len(), "rejected schema", "rejected schemas"),
            plural(usize::try_from(pages).unwrap_or(usize::MAX), "page", "pages"),
        ),
        format!("Discovery cache: {status}; kept for {ttl} ms ({scope})."),
    ];
    lines.extend(tools.iter().map(|tool| {
        let name = text_of(tool.get("name")).unwrap_or_else(|| "(unnamed tool)".to_owned());
        format!("  • {name}")
    }));
    lines.extend(errors.iter().take(MAX_REJECTED_SHOWN).map(|error| {
        let name = text_of(error.get("name")).unwrap_or_else(|| "tool".to_owned());
        let message = text_of(error.get("message")).unwrap_or_default();
        format!("  ! {name}: {message}")
    }));
    if errors.len() > MAX_REJECTED_SHOWN {
        lines.push(format!("  … and {} more rejected", errors.len() - MAX_REJECTED_SHOWN));
    }
    ProbeStatus::Connected(lines)
}

/// The report of a failed probe.
pub(crate) fn failure(error: &WorkerError) -> ProbeStatus {
    let mut lines = vec![format!("Probe failed [{}]: {}", error.code, error.message)];
    if let Some(details) = error.details.as_ref().and_then(Value::as_object) {
        if let Some(hint) = text_of(details.get("hint")) {
            lines.push(hint);
        }
        for (key, value) in details.iter().filter(|(key, _)| key.as_str() != "hint") {
            if let Some(value) = text_of(Some(value)) {
                lines.push(format!("{key}: {value}"));
            }
        }
    }
    ProbeStatus::Failed(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_probe_reports_version_counts_cache_tools_and_the_first_rejections() {
        let errors: Vec<Value> = (0..7)
            .map(|n| json!({"code": "INVALID_MCP_SCHEMA", "name": format!("bad{n}"), "message": "no"}))
            .collect();
        let answer = json!({"ok": true, "tools": [{"name": "search"}, {"name": "fetch", "description": "d"}],
            "errors": errors, "version": "2026-07-28", "pages": 2, "ttlMs": 60000, "cacheScope": "shared",
            "cache": {"status": "miss", "expiresAt": 5}});
        let ProbeStatus::Connected(lines) = report(&answer) else {
            panic!("connected");
        };
        assert_eq!(lines[0], "Connected with MCP 2026-07-28.");
        assert_eq!(lines[1], "2 valid tools, 7 rejected schemas, 2 pages.");
        assert_eq!(lines[2], "Discovery cache: miss; kept for 60000 ms (shared).");
        assert_eq!(lines[3..5], ["  • search".to_owned(), "  • fetch".to_owned()]);
        assert_eq!(lines[5], "  ! bad0: no");
        assert_eq!(lines[9], "  ! bad4: no");
        assert_eq!(lines[10], "  … and 2 more rejected");
        assert_eq!(lines.len(), 11);
    }

    #[test]
    fn a_sparse_answer_reads_as_defaults() {
        let ProbeStatus::Connected(lines) = report(&json!({"ok": true})) else {
            panic!("connected");
        };
        assert_eq!(
            lines,
            [
                "Connected with MCP an unknown version.",
                "0 valid tools, 0 rejected schemas, 1 page.",
                "Discovery cache: unknown; kept for 0 ms (private).",
            ]
        );
    }

    #[test]
    fn a_failure_shows_code_message_hint_and_details() {
        let error = WorkerError {
            code: "MCP_HTTP_ERROR".to_owned(),
            message: "HTTP 404".to_owned(),
            details: Some(json!({"status": 404, "hint": "Is the path /mcp?", "nested": {"x": 1}})),
        };
        assert_eq!(
            failure(&error),
            ProbeStatus::Failed(vec![
                "Probe failed [MCP_HTTP_ERROR]: HTTP 404".to_owned(),
                "Is the path /mcp?".to_owned(),
                "status: 404".to_owned(),
            ])
        );
    }
}
