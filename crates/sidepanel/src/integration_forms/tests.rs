//! The forms' checks and the records they save.

use super::*;
use protocol::trust_policy::custom_tool_trust_fingerprint;
use serde_json::json;

fn tool() -> ToolForm {
    ToolForm {
        name: " search_arxiv ".to_owned(),
        description: " Search papers. ".to_owned(),
        endpoint: " https://tools.example/run ".to_owned(),
        headers: String::new(),
        parameters: NEW_TOOL_PARAMETERS.to_owned(),
        enabled: true,
        ..ToolForm::default()
    }
}

fn server() -> McpForm {
    McpForm {
        name: "local".to_owned(),
        url: "http://localhost:7000/mcp".to_owned(),
        protocol_mode: "auto".to_owned(),
        enabled: true,
        ..McpForm::default()
    }
}

fn problems(result: Result<IntegrationRecord, Vec<FieldError>>) -> Vec<(FormField, String)> {
    result
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|p| (p.field, p.message))
        .collect()
}

#[test]
fn json_syntax_errors_name_the_line_and_the_character_column() {
    let mut form = tool();
    form.headers = "{\n  \"X-Key\": \"a\",\n  \"X-Other\" \"b\"\n}".to_owned();
    let found = problems(form.record("new", &[]));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, FormField::ToolHeaders);
    assert!(found[0].1.starts_with("Not valid JSON: "), "{}", found[0].1);
    assert!(found[0].1.ends_with("(line 3, column 13)."), "{}", found[0].1);

    // Columns count characters, not bytes.
    form.headers = "{\"é\": 1,}".to_owned();
    let found = problems(form.record("new", &[]));
    assert!(found[0].1.ends_with("(line 1, column 9)."), "{}", found[0].1);

    form.headers = String::new();
    form.parameters = "{\"type\": \"object\",".to_owned();
    let found = problems(form.record("new", &[]));
    assert_eq!(found[0].0, FormField::ToolParams);
    assert!(found[0].1.contains("line 1"), "{}", found[0].1);
}

#[test]
fn schema_problems_are_listed_with_their_keyword_paths() {
    let mut form = tool();
    form.parameters = json!({"type": "object", "properties": {
        "q": {"type": "string", "pattern": "(a|b)+"},
        "h": {"type": "string", "x-mcp-header": "H"},
        "n": {"type": "integer", "minimum": "x"}
    }})
    .to_string();
    let found = problems(form.record("new", &[]));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, FormField::ToolParams);
    let lines: Vec<&str> = found[0].1.lines().collect();
    assert!(lines.len() >= 3, "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("$.properties.q.pattern: ")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("$.properties.h.x-mcp-header: ")),
        "x-mcp-header is refused: {lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("$.properties.n.minimum: ")),
        "{lines:?}"
    );
    form.parameters = "[]".to_owned();
    assert_eq!(problems(form.record("new", &[]))[0].0, FormField::ToolParams);
}

#[test]
fn headers_follow_the_plain_policy_for_tools_and_the_mcp_policy_for_servers() {
    let mut form = tool();
    form.headers = json!({"Mcp-Method": "x"}).to_string();
    assert!(
        form.record("new", &[]).is_ok(),
        "plain requests do not manage MCP headers"
    );
    form.headers = json!({"Content-Type": "text/plain"}).to_string();
    assert_eq!(problems(form.record("new", &[]))[0].0, FormField::ToolHeaders);
    form.headers = "[1]".to_owned();
    assert_eq!(problems(form.record("new", &[]))[0].0, FormField::ToolHeaders);

    let mut mcp = server();
    mcp.headers = json!({"Mcp-Method": "x"}).to_string();
    assert_eq!(problems(mcp.record("new", &[]))[0].0, FormField::McpHeaders);
    mcp.headers = json!({"mcp-param-q": "x"}).to_string();
    assert_eq!(problems(mcp.record("new", &[]))[0].0, FormField::McpHeaders);
    mcp.headers = json!({"Authorization": "Bearer t"}).to_string();
    let record = mcp.record("new", &[]).expect("valid");
    assert_eq!(record.get("headers"), Some(&json!({"Authorization": "Bearer t"})));
}

#[test]
fn the_endpoint_policy_needs_the_per_origin_acknowledgement_for_cleartext() {
    let mut form = tool();
    form.endpoint = "http://192.0.2.4:8080/tool".to_owned();
    let found = problems(form.record("new", &[]));
    assert_eq!(found[0].0, FormField::ToolEndpoint);
    assert!(found[0].1.contains("http://192.0.2.4:8080"), "{}", found[0].1);
    form.insecure_confirmed = true;
    let record = form.record("new", &[]).expect("acknowledged");
    assert_eq!(record.get("insecureTransportAcknowledged"), Some(&json!(true)));
    assert_eq!(
        record.get("insecureTransportAcknowledgedOrigin"),
        Some(&json!("http://192.0.2.4:8080"))
    );
    form.endpoint = "ftp://x.example".to_owned();
    assert_eq!(problems(form.record("new", &[]))[0].0, FormField::ToolEndpoint);

    let mut mcp = server();
    mcp.insecure_confirmed = true;
    let loopback = mcp.record("new", &[]).expect("loopback");
    assert_eq!(loopback.get("insecureTransportAcknowledged"), Some(&json!(false)));
    mcp.url = "http://u:p@localhost/mcp".to_owned();
    assert_eq!(problems(mcp.record("new", &[]))[0].0, FormField::McpUrl);
}

#[test]
fn every_problem_of_a_form_is_reported_at_once() {
    let form = McpForm {
        name: "  ".to_owned(),
        url: "nope".to_owned(),
        headers: "{".to_owned(),
        protocol_mode: "1999-01-01".to_owned(),
        ..McpForm::default()
    };
    let fields: Vec<FormField> = problems(form.record("new", &[])).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        fields,
        [
            FormField::McpName,
            FormField::McpProtocol,
            FormField::McpUrl,
            FormField::McpHeaders
        ]
    );
    assert_eq!(IntegrationForm::Mcp(form).problems(&[]).len(), 4);
}

#[test]
fn a_valid_tool_form_saves_the_original_record_and_seals_trust_when_ticked() {
    let record = tool().record("t-new", &[]).expect("valid");
    assert_eq!(
        record.to_value(),
        json!({"id": "t-new", "name": "search_arxiv", "description": "Search papers.",
            "endpoint": "https://tools.example/run", "headers": {},
            "parameters": {"type": "object", "properties": {}, "required": []}, "enabled": true,
            "insecureTransportAcknowledged": false, "insecureTransportAcknowledgedOrigin": null,
            "trustedAutoRun": false, "trustedAutoRunFingerprint": null})
    );
    let mut trusted = tool();
    trusted.trusted = true;
    trusted.parameters = String::new();
    let record = trusted.record("t1", &[]).expect("valid");
    assert_eq!(
        record.get("parameters"),
        Some(&json!({"type": "object", "properties": {}}))
    );
    let fingerprint = record.text("trustedAutoRunFingerprint");
    assert_eq!(fingerprint, custom_tool_trust_fingerprint(Some(&record.to_value())));
    assert!(fingerprint.starts_with("custom-v1:"));
    assert!(protocol::trust_policy::has_current_custom_tool_trust(Some(
        &record.to_value()
    )));
}

#[test]
fn the_custom_fingerprint_matches_the_originals_vector() {
    let form = ToolForm {
        name: "search_arxiv".to_owned(),
        description: "d".to_owned(),
        endpoint: "https://e.x/".to_owned(),
        parameters: String::new(),
        trusted: true,
        ..ToolForm::default()
    };
    let record = form.record("t1", &[]).expect("valid");
    assert_eq!(record.text("trustedAutoRunFingerprint"), "custom-v1:137:1fmza7l");
}

#[test]
fn a_valid_server_form_saves_the_original_record_and_its_fingerprint() {
    let mut form = server();
    form.trusted = true;
    let record = form.record("s1", &[]).expect("valid");
    assert_eq!(record.text("trustedAutoRunFingerprint"), "mcp-v1:95:1wkyosy");
    assert_eq!(record.get("protocolMode"), Some(&json!("auto")));
    for mode in McpProtocolMode::ALL {
        form.protocol_mode = mode.as_str().to_owned();
        assert!(form.record("s1", &[]).is_ok(), "{mode:?}");
    }
}

#[test]
fn a_probe_sends_the_form_under_its_id_or_probe_without_a_fingerprint() {
    let mut form = server();
    form.trusted = true;
    let probe = form.probe_server().expect("valid");
    assert_eq!(probe["id"], json!("probe"));
    assert_eq!(probe["trustedAutoRun"], json!(true));
    assert!(!probe.contains_key("trustedAutoRunFingerprint"));
    form.id = "s9".to_owned();
    assert_eq!(form.probe_server().expect("valid")["id"], json!("s9"));
}

#[test]
fn editing_fills_the_form_from_the_record() {
    let stored = IntegrationRecord::from_value(&json!({"id": "t", "name": "n", "endpoint": "https://e.x/",
        "headers": {"A": "1"}, "parameters": {"type": "object"}, "enabled": false, "trustedAutoRun": true,
        "insecureTransportAcknowledged": true}))
    .expect("record");
    let form = ToolForm::for_record(Some(&stored));
    assert_eq!(form.headers, "{\n  \"A\": \"1\"\n}");
    assert_eq!(form.parameters, "{\n  \"type\": \"object\"\n}");
    assert!(!form.enabled && form.trusted && form.insecure_confirmed);
    let new = ToolForm::for_record(None);
    assert_eq!(new.parameters, NEW_TOOL_PARAMETERS);
    assert!(new.enabled && !new.trusted);
    let server = IntegrationRecord::from_value(&json!({"id": "s", "url": "https://m.x/"})).expect("record");
    let form = McpForm::for_record(Some(&server));
    assert_eq!(form.protocol_mode, "auto");
    assert_eq!(form.headers, "");
}

#[test]
fn trust_is_unticked_by_every_covered_field_and_cleartext_by_the_endpoint() {
    assert_eq!(
        trust_fields(RegistryKind::CustomTools)
            .iter()
            .map(|f| f.element_id())
            .collect::<Vec<_>>(),
        ["tf-name", "tf-desc", "tf-endpoint", "tf-headers", "tf-params"]
    );
    assert_eq!(
        trust_fields(RegistryKind::McpServers)
            .iter()
            .map(|f| f.element_id())
            .collect::<Vec<_>>(),
        ["mcp-name", "mcp-url", "mcp-headers", "mcp-protocol"]
    );
    assert_eq!(endpoint_field(RegistryKind::CustomTools).element_id(), "tf-endpoint");
    assert_eq!(endpoint_field(RegistryKind::McpServers).element_id(), "mcp-url");
}

#[test]
fn a_worker_refusal_lands_beside_the_field_it_names() {
    let refusal = |details: Value| WorkerError {
        code: "INVALID_CUSTOM_TOOLS".to_owned(),
        message: "That name is taken by a built-in tool.".to_owned(),
        details: Some(details),
    };
    let by_field = refused_field(RegistryKind::CustomTools, &refusal(json!({"field": "name"})));
    assert_eq!(by_field.map(|p| p.field), Some(FormField::ToolName));
    // A pattern only the worker's compile refuses (the panel checks its text).
    let schema = refused_field(RegistryKind::CustomTools, &refusal(json!({"field": "parameters"})));
    assert_eq!(schema.map(|p| p.field), Some(FormField::ToolParams));
    let by_path = refused_field(
        RegistryKind::CustomTools,
        &refusal(json!({"path": "$.tools[1].parameters.properties.name"})),
    );
    assert_eq!(by_path.map(|p| p.field), Some(FormField::ToolParams));
    let server = refused_field(
        RegistryKind::McpServers,
        &refusal(json!({"path": "$.mutation.record.url"})),
    );
    assert_eq!(server.map(|p| p.field), Some(FormField::McpUrl));
    assert_eq!(
        refused_field(RegistryKind::McpServers, &refusal(json!({"field": "id"}))),
        None
    );
    assert_eq!(
        refused_field(RegistryKind::McpServers, &refusal(json!({"field": "description"}))),
        None
    );
    let plain = WorkerError {
        details: None,
        ..refusal(json!(null))
    };
    assert_eq!(refused_field(RegistryKind::CustomTools, &plain), None);
}

#[test]
fn the_save_time_rules_see_the_list_the_record_joins() {
    let stored = IntegrationRecord::from_value(&json!({"id": "t1", "name": "Search_Arxiv",
        "endpoint": "https://tools.example/run"}))
    .expect("record");
    let list = [stored.clone()];
    let taken = problems(tool().record("t2", &list));
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].0, FormField::ToolName);
    let mut edit = ToolForm::for_record(Some(&stored));
    edit.name = "search_arxiv".to_owned();
    assert!(
        edit.record("unused", &list).is_ok(),
        "a record never collides with itself"
    );
    let mut reserved = tool();
    reserved.name = "read_document".to_owned();
    reserved.headers = "{".to_owned();
    let fields: Vec<FormField> = problems(reserved.record("t3", &[]))
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    assert_eq!(
        fields,
        [FormField::ToolHeaders, FormField::ToolName],
        "rules run beside broken JSON"
    );
}
