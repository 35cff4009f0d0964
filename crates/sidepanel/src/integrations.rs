//! The integrations the panel edits in Settings → Tools and Settings → MCP:
//! custom HTTP tools and MCP servers. Which registry a request is for, the
//! records as the worker answers them, and the transforms behind each
//! registry mutation (`upsert`, `remove`, `toggle`).
//!
//! Like the model registry (`settings.rs`), records stay JSON objects so
//! fields this version does not know survive an edit. The worker owns and
//! re-validates both lists (ids, names, reserved names, trust) and answers
//! the list it stored; the panel shows that list, not its own guess, because
//! the worker normalises records (an edit that changes a covered field drops
//! trust, for example). Mutations of one registry run one after another,
//! each against the list as it is then (see `app/integrations.rs`).

use crate::settings::url_host;
use protocol::MessageType;
use protocol::js;
use protocol::payloads::RegistryMutation;
use serde_json::{Map, Value};

/// One of the two record registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RegistryKind {
    /// Settings → Tools: custom HTTP tools.
    CustomTools,
    /// Settings → MCP: MCP servers.
    McpServers,
}

impl RegistryKind {
    /// Both registries, in the order the settings tabs show them.
    pub(crate) const ALL: [RegistryKind; 2] = [RegistryKind::CustomTools, RegistryKind::McpServers];

    pub(crate) fn load_type(self) -> MessageType {
        match self {
            RegistryKind::CustomTools => MessageType::LoadCustomTools,
            RegistryKind::McpServers => MessageType::LoadMcpServers,
        }
    }

    pub(crate) fn save_type(self) -> MessageType {
        match self {
            RegistryKind::CustomTools => MessageType::SaveCustomTools,
            RegistryKind::McpServers => MessageType::SaveMcpServers,
        }
    }

    /// The payload field of a save that carries the whole list.
    pub(crate) fn list_key(self) -> &'static str {
        match self {
            RegistryKind::CustomTools => "tools",
            RegistryKind::McpServers => "servers",
        }
    }

    /// What one record is called in sentences.
    pub(crate) fn noun(self) -> &'static str {
        match self {
            RegistryKind::CustomTools => "custom tool",
            RegistryKind::McpServers => "MCP server",
        }
    }

    /// The record field that holds the endpoint URL.
    pub(crate) fn endpoint_key(self) -> &'static str {
        match self {
            RegistryKind::CustomTools => "endpoint",
            RegistryKind::McpServers => "url",
        }
    }
}

fn text(map: &Map<String, Value>, key: &str) -> String {
    match map.get(key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

/// One custom tool or MCP server, as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IntegrationRecord(Map<String, Value>);

impl IntegrationRecord {
    /// Records without a string id cannot be edited, toggled or deleted and
    /// are not shown (the worker refuses to store them).
    pub(crate) fn from_value(value: &Value) -> Option<IntegrationRecord> {
        let map = value.as_object()?;
        map.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())?;
        Some(IntegrationRecord(map.clone()))
    }

    pub(crate) fn from_map(map: Map<String, Value>) -> IntegrationRecord {
        IntegrationRecord(map)
    }

    pub(crate) fn id(&self) -> String {
        text(&self.0, "id")
    }

    pub(crate) fn name(&self) -> String {
        text(&self.0, "name")
    }

    pub(crate) fn description(&self) -> String {
        text(&self.0, "description")
    }

    /// `enabled !== false`: a record is on unless switched off.
    pub(crate) fn enabled(&self) -> bool {
        self.0.get("enabled") != Some(&Value::Bool(false))
    }

    pub(crate) fn trusted(&self) -> bool {
        js::is_truthy(self.0.get("trustedAutoRun"))
    }

    pub(crate) fn insecure_acknowledged(&self) -> bool {
        js::is_truthy(self.0.get("insecureTransportAcknowledged"))
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    pub(crate) fn text(&self, key: &str) -> String {
        text(&self.0, key)
    }

    /// The row's second line: `host · description` for a custom tool (the
    /// description only when there is one), the host for an MCP server.
    pub(crate) fn summary(&self, kind: RegistryKind) -> String {
        let host = url_host(&self.text(kind.endpoint_key()));
        let description = self.description();
        match kind {
            RegistryKind::CustomTools if !description.is_empty() => format!("{host} · {description}"),
            _ => host,
        }
    }

    pub(crate) fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::Object(self.0.clone())
    }

    /// `{...self, ...other}`.
    fn merged(&self, other: &IntegrationRecord) -> IntegrationRecord {
        let mut map = self.0.clone();
        for (key, value) in &other.0 {
            map.insert(key.clone(), value.clone());
        }
        IntegrationRecord(map)
    }
}

/// A `LOAD_CUSTOM_TOOLS` / `LOAD_MCP_SERVERS` answer: an array of records
/// (anything else is an empty list; records without an id are skipped).
pub(crate) fn records_from_value(value: &Value) -> Vec<IntegrationRecord> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(IntegrationRecord::from_value).collect())
        .unwrap_or_default()
}

/// What a save committed: the worker's `records` when it answered a list,
/// else the list the panel proposed (the original's `saved?.records`).
pub(crate) fn committed_records(saved: &Value, proposed: Vec<IntegrationRecord>) -> Vec<IntegrationRecord> {
    match saved.get("records") {
        Some(records @ Value::Array(_)) => records_from_value(records),
        _ => proposed,
    }
}

/// A change to one registry, before it is applied.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RecordChange {
    Upsert(IntegrationRecord),
    Remove(String),
    Toggle(String),
}

impl RecordChange {
    /// The list after the change and the `mutation` that tells the worker
    /// what changed. An upsert merges into the record with the same id (so
    /// fields the form does not show survive) or appends; a toggle flips
    /// `enabled` the way the original did (`enabled === false` becomes on).
    pub(crate) fn apply(&self, current: &[IntegrationRecord]) -> (Vec<IntegrationRecord>, RegistryMutation) {
        let mut next = current.to_vec();
        let mutation = match self {
            RecordChange::Upsert(record) => {
                let id = record.id();
                match next.iter_mut().find(|r| r.id() == id) {
                    Some(existing) => *existing = existing.merged(record),
                    None => next.push(record.clone()),
                }
                RegistryMutation::Upsert {
                    record: record.as_map().clone(),
                }
            }
            RecordChange::Remove(id) => {
                next.retain(|r| r.id() != *id);
                RegistryMutation::Remove { id: id.clone() }
            }
            RecordChange::Toggle(id) => {
                for record in next.iter_mut().filter(|r| r.id() == *id) {
                    let enabled = record.0.get("enabled") == Some(&Value::Bool(false));
                    record.0.insert("enabled".to_owned(), Value::Bool(enabled));
                }
                RegistryMutation::Toggle { id: id.clone() }
            }
        };
        (next, mutation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(value: Value) -> IntegrationRecord {
        IntegrationRecord::from_value(&value).expect("record")
    }

    #[test]
    fn loading_skips_records_without_an_id_and_non_arrays() {
        let loaded = records_from_value(&json!([{"id": "a", "name": "A"}, {"name": "no id"}, {"id": ""}, 3]));
        assert_eq!(loaded.iter().map(IntegrationRecord::id).collect::<Vec<_>>(), ["a"]);
        assert!(records_from_value(&json!({"records": []})).is_empty());
        assert!(records_from_value(&json!(null)).is_empty());
    }

    #[test]
    fn rows_name_the_host_and_the_description() {
        let tool = record(
            json!({"id": "t", "name": "search", "endpoint": "https://tools.example:8443/run",
            "description": "Search papers."}),
        );
        assert_eq!(
            tool.summary(RegistryKind::CustomTools),
            "tools.example:8443 · Search papers."
        );
        let bare = record(json!({"id": "t", "endpoint": "not a url"}));
        assert_eq!(bare.summary(RegistryKind::CustomTools), "not a url");
        let server = record(json!({"id": "s", "url": "http://localhost:7000/mcp", "description": "ignored"}));
        assert_eq!(server.summary(RegistryKind::McpServers), "localhost:7000");
    }

    #[test]
    fn enabled_is_anything_but_false() {
        assert!(record(json!({"id": "a"})).enabled());
        assert!(record(json!({"id": "a", "enabled": 0})).enabled());
        assert!(!record(json!({"id": "a", "enabled": false})).enabled());
    }

    #[test]
    fn upsert_merges_or_appends() {
        let current = vec![record(json!({"id": "a", "name": "old", "future": 1}))];
        let (next, mutation) = RecordChange::Upsert(record(json!({"id": "a", "name": "new"}))).apply(&current);
        assert_eq!(next[0].to_value(), json!({"id": "a", "name": "new", "future": 1}));
        assert_eq!(
            serde_json::to_value(&mutation).ok(),
            Some(json!({"type": "upsert", "record": {"id": "a", "name": "new"}}))
        );
        let (next, _) = RecordChange::Upsert(record(json!({"id": "b"}))).apply(&next);
        assert_eq!(next.iter().map(IntegrationRecord::id).collect::<Vec<_>>(), ["a", "b"]);
    }

    #[test]
    fn remove_and_toggle_name_the_id() {
        let current = vec![record(json!({"id": "a"})), record(json!({"id": "b", "enabled": false}))];
        let (next, mutation) = RecordChange::Toggle("a".to_owned()).apply(&current);
        assert!(!next[0].enabled());
        assert_eq!(mutation, RegistryMutation::Toggle { id: "a".to_owned() });
        let (next, _) = RecordChange::Toggle("b".to_owned()).apply(&next);
        assert_eq!(next[1].get("enabled"), Some(&json!(true)));
        let (next, mutation) = RecordChange::Remove("a".to_owned()).apply(&next);
        assert_eq!(next.iter().map(IntegrationRecord::id).collect::<Vec<_>>(), ["b"]);
        assert_eq!(
            serde_json::to_value(&mutation).ok(),
            Some(json!({"type": "remove", "id": "a"}))
        );
    }

    #[test]
    fn a_save_commits_the_workers_records_when_it_answers_them() {
        let proposed = vec![record(json!({"id": "a", "trustedAutoRun": true}))];
        let saved = json!({"ok": true, "records": [{"id": "a", "trustedAutoRun": false}]});
        assert!(!committed_records(&saved, proposed.clone())[0].trusted());
        assert_eq!(committed_records(&json!({"ok": true}), proposed.clone()), proposed);
    }
}
