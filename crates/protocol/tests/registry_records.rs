//! The custom-tool and MCP-server records against the original.
//!
//! `vectors/registries.json` holds what the original's storage code
//! (v1.1.0, run under Node by `vectors/registries.mjs`) loaded from stored
//! records, answered to saves and stored afterwards. Each case is replayed
//! here with the same steps the worker takes: load the stored list, apply
//! the mutation to it (or take the sent list), check, store. Answers must be
//! equal field for field, except the sentences of refusals, which are this
//! port's own (codes and `details` must match).

use protocol::payloads::RegistryMutation;
use protocol::registry_records::{
    CustomTool, CustomToolDraft, McpProtocolMode, McpServer, McpServerDraft, RecordErrorCode, RecordErrors,
    RecordField, apply_record_mutation, validate_custom_tools, validate_mcp_servers,
};
use protocol::trust_policy::{custom_tool_trust_fingerprint, mcp_server_trust_fingerprint};
use serde_json::{Map, Value, json};

fn vectors() -> Value {
    serde_json::from_str(include_str!("vectors/registries.json")).expect("vector file is JSON")
}

/// How one registry is loaded and checked, as the worker does it.
struct Kind {
    list: &'static str,
    load: fn(Option<&Value>) -> Vec<Value>,
    validate: fn(&[Value]) -> Result<Vec<Value>, RecordErrors>,
}

const CUSTOM: Kind = Kind {
    list: "tools",
    load: |stored| CustomTool::list_from_stored(stored).into_iter().map(to_value).collect(),
    validate: |candidate| validate_custom_tools(candidate).map(|tools| tools.into_iter().map(to_value).collect()),
};

const MCP: Kind = Kind {
    list: "servers",
    load: |stored| McpServer::list_from_stored(stored).into_iter().map(to_value).collect(),
    validate: |candidate| validate_mcp_servers(candidate).map(|servers| servers.into_iter().map(to_value).collect()),
};

fn to_value(record: impl serde::Serialize) -> Value {
    serde_json::to_value(record).expect("records serialise")
}

/// The answer and the stored value after one case, as the worker reaches them.
fn replay(kind: &Kind, case: &Value) -> (Value, Value) {
    let stored = case.get("stored");
    let stored_after = stored.cloned().unwrap_or(Value::Null);
    let Some(save) = case.get("save") else {
        return (json!({"ok": true, "data": (kind.load)(stored)}), stored_after);
    };
    let candidate = match save.get("mutation") {
        Some(mutation) => {
            let mutation: RegistryMutation = serde_json::from_value(mutation.clone()).expect("a mutation");
            match apply_record_mutation(&(kind.load)(stored), &mutation) {
                Ok(list) => list,
                Err(error) => return (refusal(error.code().as_str(), None), stored_after),
            }
        }
        None => save[kind.list].as_array().cloned().unwrap_or_default(),
    };
    match (kind.validate)(&candidate) {
        Ok(records) => (
            json!({"ok": true, "data": {"ok": true, "records": records}}),
            Value::Array(records),
        ),
        Err(errors) => {
            let first = errors.first().expect("a refusal names its problem");
            let details = first.details.as_ref().map(to_value);
            (refusal(first.code.as_str(), details), stored_after)
        }
    }
}

fn refusal(code: &str, details: Option<Value>) -> Value {
    let mut error = json!({ "code": code });
    if let Some(details) = details {
        error["details"] = details;
    }
    json!({"ok": false, "error": error})
}

/// The original's answer without the sentence of a refusal.
fn comparable(answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(error) = answer.get_mut("error").and_then(Value::as_object_mut) {
        error.remove("message");
    }
    answer
}

fn replay_all(kind: &Kind, key: &str) {
    let vectors = vectors();
    let cases = vectors[key].as_array().expect("cases");
    assert!(cases.len() > 30, "{key} covers the original's rules");
    for case in cases {
        let (answer, stored_after) = replay(kind, case);
        assert_eq!(answer, comparable(&case["answer"]), "{key} {}", case["name"]);
        assert_eq!(stored_after, case["storedAfter"], "{key} {} (stored)", case["name"]);
    }
}

#[test]
fn custom_tools_load_and_save_as_the_original() {
    replay_all(&CUSTOM, "customTools");
}

#[test]
fn mcp_servers_load_and_save_as_the_original() {
    replay_all(&MCP, "mcpServers");
}

#[test]
fn what_the_original_stored_loads_unchanged_with_its_trust() {
    let vectors = vectors();
    for key in ["customTools", "mcpServers"] {
        for case in vectors[key].as_array().into_iter().flatten() {
            let (Some(save), Some(true)) = (case.get("save"), case["answer"]["ok"].as_bool()) else {
                continue;
            };
            let written = Some(&case["storedAfter"]);
            let loaded = if key == "customTools" {
                (CUSTOM.load)(written)
            } else {
                (MCP.load)(written)
            };
            assert_eq!(
                Value::Array(loaded),
                case["storedAfter"],
                "{key} {} ({save})",
                case["name"]
            );
        }
    }
}

fn tool(fields: Value) -> Value {
    let mut tool = json!({"id": "t1", "name": "lookup", "endpoint": "https://tools.example/call"});
    if let (Some(tool), Some(fields)) = (tool.as_object_mut(), fields.as_object()) {
        tool.extend(fields.clone());
    }
    tool
}

fn problems(result: Result<Vec<CustomTool>, RecordErrors>) -> Vec<(usize, &'static str, &'static str)> {
    result
        .err()
        .map(|e| {
            e.errors
                .iter()
                .map(|e| (e.index, e.field.as_str(), e.code.as_str()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_problem_points_at_its_record_and_field() {
    let candidate = [
        tool(json!({"endpoint": "http://192.168.1.5/call", "headers": {"Host": "x"}})),
        tool(json!({"id": "t1", "name": "Read_Document", "parameters": {"type": "string"}})),
        tool(json!({"id": "bad id", "name": "LOOKUP"})),
        tool(json!({"id": "t4", "name": "x"})),
    ];
    assert_eq!(
        problems(validate_custom_tools(&candidate)),
        [
            (1, "id", "DUPLICATE_TOOL_ID"),
            (1, "name", "RESERVED_TOOL_NAME"),
            (1, "parameters", "INVALID_CUSTOM_SCHEMA"),
            (2, "id", "INVALID_TOOL_ID"),
            (2, "name", "DUPLICATE_TOOL_NAME"),
            (3, "name", "INVALID_TOOL_NAME"),
            (0, "endpoint", "INSECURE_CONFIRMATION_REQUIRED"),
            (0, "headers", "PROTECTED_HEADER"),
        ]
    );
    let errors = validate_custom_tools(&candidate).expect_err("refused");
    let cleartext = errors.of_record(0).next().expect("record 0 has problems");
    assert_eq!(
        cleartext.details.as_ref().map(|d| d.origin.as_str()),
        Some("http://192.168.1.5")
    );
    assert_eq!(
        serde_json::to_value(cleartext).ok(),
        Some(
            json!({"index": 0, "field": "endpoint", "code": "INSECURE_CONFIRMATION_REQUIRED",
            "message": cleartext.message, "details": {"origin": "http://192.168.1.5"}})
        )
    );
    let servers = [
        json!({"id": "", "url": "ftp://x", "headers": {"Mcp-Name": "x"}, "protocolMode": "2024-11-05"}),
        json!({"id": "s", "url": "https://mcp.example/"}),
        json!({"id": "s", "url": "https://mcp.example/", "headers": []}),
    ];
    let codes: Vec<_> = validate_mcp_servers(&servers)
        .err()
        .map(|e| e.errors.iter().map(|e| (e.index, e.field, e.code)).collect())
        .unwrap_or_default();
    assert_eq!(
        codes,
        [
            (0, RecordField::Id, RecordErrorCode::InvalidMcpServerId),
            (0, RecordField::Url, RecordErrorCode::UnsupportedScheme),
            (0, RecordField::Headers, RecordErrorCode::ProtectedHeader),
            (0, RecordField::ProtocolMode, RecordErrorCode::UnsupportedMcpVersion),
            (2, RecordField::Id, RecordErrorCode::DuplicateMcpServerId),
            (2, RecordField::Headers, RecordErrorCode::InvalidHeaders),
        ]
    );
}

/// The panel checks a form's patterns by their text; what only the compile
/// decides (an unknown property name, an automaton over the size limit) is
/// refused on the Parameters field when the worker saves the record.
#[test]
fn the_worker_compiles_what_the_panel_checks_by_text() {
    for pattern in [r"^\p{Nope}$", r"^\p{Greek}{1,2000}$"] {
        let record = tool(json!({"parameters": {"type": "object", "properties": {
            "q": {"type": "string", "pattern": pattern}
        }}}));
        let expected: &[_] = if cfg!(feature = "patterns") {
            &[(0, "parameters", "INVALID_CUSTOM_SCHEMA")]
        } else {
            &[]
        };
        assert_eq!(problems(validate_custom_tools(&[record])), expected, "{pattern}");
    }
}

#[test]
fn every_built_in_name_is_reserved() {
    for name in protocol::constants::BUILTIN_TOOL_NAMES {
        for spelled in [name.to_owned(), name.to_uppercase()] {
            assert_eq!(
                problems(validate_custom_tools(&[tool(json!({"name": spelled}))])),
                [(0, "name", "RESERVED_TOOL_NAME")],
                "{spelled}"
            );
        }
    }
}

#[test]
fn the_port_adds_the_2025_handshake_mode() {
    for mode in McpProtocolMode::ALL {
        let server = json!({"id": "s", "url": "https://mcp.example/", "protocolMode": mode.as_str()});
        let saved = validate_mcp_servers(&[server]).expect("every mode saves");
        assert_eq!(saved[0].protocol_mode(), Some(mode));
        assert_eq!(McpProtocolMode::from_wire(mode.as_str()), Some(mode));
        assert_eq!(serde_json::to_value(mode).ok(), Some(json!(mode.as_str())));
    }
    assert_eq!(McpProtocolMode::from_wire("AUTO"), None);
    let unknown = McpServer::from_stored(&json!({"id": "s", "protocolMode": 5}));
    assert_eq!(unknown.protocol_mode(), None);
    assert_eq!(unknown.record()["protocolMode"], json!(5));
    let absent = McpServer::from_stored(&json!({"id": "s"}));
    assert_eq!(absent.protocol_mode(), Some(McpProtocolMode::Auto));
}

#[test]
fn accessors_read_fields_as_the_original_does() {
    let tool = CustomTool::from_stored(&json!({"id": 7, "name": "lookup", "headers": "x", "parameters": null,
        "enabled": "no", "note": "kept"}));
    assert_eq!(
        (tool.id(), tool.name(), tool.description(), tool.endpoint()),
        ("7".into(), "lookup".into(), "".into(), "".into())
    );
    assert_eq!(tool.headers(), None);
    assert_eq!(*tool.parameters(), json!({"type": "object", "properties": {}}));
    assert!(tool.enabled() && !tool.trusted_auto_run() && !tool.insecure_transport_acknowledged());
    assert_eq!(tool.record()["note"], json!("kept"));
    let decoded: Vec<CustomTool> = serde_json::from_value(json!([{"id": "a", "enabled": false}])).expect("decodes");
    assert!(!decoded[0].enabled());
    assert_eq!(
        decoded[0].clone().into_record().get("trustedAutoRun"),
        Some(&json!(false))
    );
}

fn upsert(stored: &[Value], record: Map<String, Value>) -> Vec<Value> {
    apply_record_mutation(stored, &RegistryMutation::Upsert { record }).expect("upsert applies")
}

#[test]
fn a_form_draft_saves_with_its_trust_and_acknowledgement() {
    let mut draft = CustomToolDraft::new("t1");
    draft.name = "lookup".into();
    draft.endpoint = "http://192.168.1.5:8080".into();
    draft.trusted_auto_run = true;
    let refused = validate_custom_tools(&[Value::Object(draft.to_record())]);
    assert_eq!(problems(refused), [(0, "endpoint", "INSECURE_CONFIRMATION_REQUIRED")]);
    draft.insecure_transport_acknowledged = true;
    let record = draft.to_record();
    assert_eq!(record["endpoint"], json!("http://192.168.1.5:8080/"));
    assert_eq!(
        record["trustedAutoRunFingerprint"],
        json!(custom_tool_trust_fingerprint(Some(&Value::Object(record.clone()))))
    );
    let stored = [json!({"id": "t1", "name": "old", "endpoint": "https://x.example/", "note": "kept"})];
    let saved = validate_custom_tools(&upsert(&stored, record)).expect("the draft saves");
    assert!(saved[0].trusted_auto_run() && saved[0].insecure_transport_acknowledged());
    assert_eq!(
        saved[0].insecure_transport_acknowledged_origin(),
        Some("http://192.168.1.5:8080")
    );
    assert_eq!(saved[0].record()["note"], json!("kept"));
    assert_eq!(CustomToolDraft::from_tool(&saved[0]), draft_as_stored(draft));

    let mut server = McpServerDraft::new("s1");
    server.url = "http://localhost:7000/mcp".into();
    server.protocol_mode = McpProtocolMode::Handshake20251125;
    server.trusted_auto_run = true;
    server.insecure_transport_acknowledged = true;
    let record = server.to_record();
    assert_eq!(
        record["insecureTransportAcknowledged"],
        json!(false),
        "loopback needs none"
    );
    assert_eq!(
        record["trustedAutoRunFingerprint"],
        json!(mcp_server_trust_fingerprint(Some(&Value::Object(record.clone()))))
    );
    let saved = validate_mcp_servers(&[Value::Object(record)]).expect("the draft saves");
    assert!(saved[0].trusted_auto_run());
    server.insecure_transport_acknowledged = false;
    assert_eq!(McpServerDraft::from_server(&saved[0]), server);
}

/// The draft as the form shows it again after the save (the URL normalised).
fn draft_as_stored(mut draft: CustomToolDraft) -> CustomToolDraft {
    draft.endpoint = "http://192.168.1.5:8080/".into();
    draft
}
