//! Settings → Tools and Settings → MCP: loading, saving a form, toggling,
//! deleting (one change at a time per registry) and probing.

use super::fakes::*;

fn stored_tool(id: &str, name: &str) -> Value {
    json!({"id": id, "name": name, "description": "", "endpoint": "https://tools.example/run", "headers": {},
        "parameters": {"type": "object", "properties": {}}, "enabled": true, "trustedAutoRun": false,
        "trustedAutoRunFingerprint": null, "insecureTransportAcknowledged": false,
        "insecureTransportAcknowledgedOrigin": null})
}

fn stored_server(id: &str, name: &str) -> Value {
    json!({"id": id, "name": name, "url": "http://localhost:7000/mcp", "headers": {}, "enabled": true,
        "protocolMode": "auto", "trustedAutoRun": false, "trustedAutoRunFingerprint": null,
        "insecureTransportAcknowledged": false, "insecureTransportAcknowledgedOrigin": null})
}

/// A worker that stores both registries the way the real one answers:
/// loads answer the list, saves apply the mutation and answer `{ok, records}`.
fn registry_worker(tools: Value, servers: Value) -> impl FnMut(MessageType, &Value) -> Answer {
    let stored = Rc::new(RefCell::new((tools, servers)));
    move |ty, payload| {
        let mut lists = stored.borrow_mut();
        match ty {
            MessageType::LoadCustomTools => ok(lists.0.clone()),
            MessageType::LoadMcpServers => ok(lists.1.clone()),
            MessageType::SaveCustomTools | MessageType::SaveMcpServers => {
                let list = if ty == MessageType::SaveCustomTools {
                    &mut lists.0
                } else {
                    &mut lists.1
                };
                let key = if ty == MessageType::SaveCustomTools {
                    "tools"
                } else {
                    "servers"
                };
                *list = payload[key].clone();
                ok(json!({"ok": true, "records": list.clone()}))
            }
            other => default_worker()(other, payload),
        }
    }
}

fn tool_form(name: &str) -> ToolForm {
    ToolForm {
        name: name.to_owned(),
        description: "Looks things up.".to_owned(),
        endpoint: "https://tools.example/run".to_owned(),
        parameters: crate::integration_forms::NEW_TOOL_PARAMETERS.to_owned(),
        enabled: true,
        ..ToolForm::default()
    }
}

fn server_form(name: &str) -> McpForm {
    McpForm {
        name: name.to_owned(),
        url: "http://localhost:7000/mcp".to_owned(),
        protocol_mode: "auto".to_owned(),
        enabled: true,
        ..McpForm::default()
    }
}

fn ids(list: &[&str]) -> Option<Shown> {
    Some(Ok(list.iter().map(|s| (*s).to_owned()).collect()))
}

#[test]
fn opening_settings_loads_and_shows_both_registries() {
    let mut rig = Rig::started(
        FIXTURE_URL,
        registry_worker(
            json!([stored_tool("t1", "search"), {"name": "no id"}]),
            json!([stored_server("s1", "local")]),
        ),
    );
    rig.run(|app| async move { app.load_integrations().await });
    assert_eq!(rig.shell().registry(RegistryKind::CustomTools), ids(&["t1"]));
    assert_eq!(rig.shell().registry(RegistryKind::McpServers), ids(&["s1"]));
    assert_eq!(rig.app.with_state(|s| s.records(RegistryKind::CustomTools).len()), 1);
    assert_eq!(
        rig.shell().last(MessageType::LoadCustomTools).map(|s| s.payload),
        Some(json!({}))
    );
}

#[test]
fn a_registry_that_cannot_load_says_so_in_its_place() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadCustomTools => err("STORAGE_READ_FAILED", "storage is gone"),
        MessageType::LoadMcpServers => ok(json!([])),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.load_integrations().await });
    assert_eq!(
        rig.shell().registry(RegistryKind::CustomTools),
        Some(Err("The custom tools could not be loaded: storage is gone".to_owned()))
    );
    assert_eq!(rig.shell().registry(RegistryKind::McpServers), ids(&[]));
}

#[test]
fn saving_a_tool_sends_one_upsert_and_shows_what_the_worker_stored() {
    let mut rig = Rig::started(
        FIXTURE_URL,
        registry_worker(json!([stored_tool("t1", "search")]), json!([])),
    );
    rig.run(|app| async move { app.load_integrations().await });
    rig.run(|app| async move {
        let saved = app
            .save_integration_form(IntegrationForm::Tool(tool_form("lookup")))
            .await;
        assert!(saved.is_some_and(|id| id.starts_with("id-")));
    });
    assert_eq!(rig.shell().count(MessageType::SaveCustomTools), 1);
    let sent = rig.shell().last(MessageType::SaveCustomTools).expect("saved").payload;
    assert_eq!(sent["mutation"]["type"], "upsert");
    assert_eq!(sent["mutation"]["record"]["name"], "lookup");
    assert_eq!(sent["mutation"]["record"]["endpoint"], "https://tools.example/run");
    assert_eq!(sent["tools"].as_array().map(Vec::len), Some(2));
    let new_id = sent["mutation"]["record"]["id"].as_str().expect("id").to_owned();
    assert_eq!(rig.shell().registry(RegistryKind::CustomTools), ids(&["t1", &new_id]));
    assert!(rig.shell().log.borrow().contains(&"close-form:CustomTools".to_owned()));
    assert!(rig.shell().saw_status("Custom tool saved"));
}

#[test]
fn a_form_with_problems_is_not_sent_and_shows_them_beside_their_fields() {
    let mut rig = Rig::started(FIXTURE_URL, registry_worker(json!([]), json!([])));
    let mut form = tool_form("lookup");
    form.headers = "{\"A\": 1".to_owned();
    rig.run(move |app| async move {
        assert_eq!(app.save_integration_form(IntegrationForm::Tool(form)).await, None);
    });
    assert_eq!(rig.shell().count(MessageType::SaveCustomTools), 0);
    let problems = rig.shell().problems(RegistryKind::CustomTools);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, FormField::ToolHeaders);
    assert!(
        problems[0].message.contains("line 1, column"),
        "{}",
        problems[0].message
    );
    let (status, is_error) = rig.shell().last_status().expect("status");
    assert!(
        is_error && status.starts_with("The custom tool was not saved: Not valid JSON"),
        "{status}"
    );
    assert!(!rig.shell().log.borrow().iter().any(|l| l.starts_with("close-form")));
}

#[test]
fn the_save_time_rules_are_checked_in_the_panel_against_the_list() {
    let mut rig = Rig::started(
        FIXTURE_URL,
        registry_worker(json!([stored_tool("t1", "Search")]), json!([])),
    );
    rig.run(|app| async move { app.load_integrations().await });
    for (name, expected) in [
        ("read_document", "built-in"),
        ("search", "already taken"),
        ("x", "2 to 41"),
    ] {
        rig.run(move |app| async move {
            assert_eq!(
                app.save_integration_form(IntegrationForm::Tool(tool_form(name))).await,
                None
            );
        });
        let problems = rig.shell().problems(RegistryKind::CustomTools);
        assert_eq!(problems.len(), 1, "{name}: {problems:?}");
        assert_eq!(problems[0].field, FormField::ToolName);
        assert!(
            problems[0].message.contains(expected),
            "{name}: {}",
            problems[0].message
        );
    }
    assert_eq!(rig.shell().count(MessageType::SaveCustomTools), 0, "nothing was sent");
}

#[test]
fn a_refused_save_keeps_the_form_and_puts_the_refusal_beside_its_field() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveCustomTools => err_with(
            "DUPLICATE_TOOL_NAME",
            "\"lookup\" is already taken by the custom tool \"Lookup\" (case does not count).",
            json!({"field": "name"}),
        ),
        other => registry_worker(json!([]), json!([]))(other, payload),
    });
    rig.run(|app| async move {
        assert_eq!(
            app.save_integration_form(IntegrationForm::Tool(tool_form("lookup")))
                .await,
            None
        );
    });
    let problems = rig.shell().problems(RegistryKind::CustomTools);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].field, FormField::ToolName);
    assert!(problems[0].message.contains("already taken"));
    assert!(!rig.shell().log.borrow().iter().any(|l| l.starts_with("close-form")));
    let (status, is_error) = rig.shell().last_status().expect("status");
    assert!(
        is_error && status.starts_with("The custom tool was not saved: "),
        "{status}"
    );
    assert!(
        rig.app.with_state(|s| s.records(RegistryKind::CustomTools).is_empty()),
        "nothing committed"
    );
}

#[test]
fn a_refusal_that_names_no_field_is_said_in_the_status_line() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveMcpServers => answered("save_mcp_servers_refused"),
        other => registry_worker(json!([]), json!([]))(other, payload),
    });
    rig.run(|app| async move {
        assert_eq!(
            app.save_integration_form(IntegrationForm::Mcp(server_form("docs")))
                .await,
            None
        );
    });
    assert!(rig.shell().problems(RegistryKind::McpServers).is_empty());
    let (status, is_error) = rig.shell().last_status().expect("status");
    assert!(
        is_error && status.starts_with("The MCP server was not saved: The protocol mode"),
        "{status}"
    );
}

#[test]
fn the_worker_normalises_what_is_shown_after_a_save() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveMcpServers => {
            let mut record = payload["mutation"]["record"].clone();
            record["trustedAutoRun"] = json!(false);
            record["trustedAutoRunFingerprint"] = json!(null);
            ok(json!({"ok": true, "records": [record]}))
        }
        other => registry_worker(json!([]), json!([]))(other, payload),
    });
    let mut form = server_form("local");
    form.trusted = true;
    rig.run(move |app| async move {
        assert!(app.save_integration_form(IntegrationForm::Mcp(form)).await.is_some());
    });
    let sent = rig.shell().last(MessageType::SaveMcpServers).expect("saved").payload;
    let fingerprint = sent["mutation"]["record"]["trustedAutoRunFingerprint"]
        .as_str()
        .unwrap_or("");
    assert!(fingerprint.starts_with("mcp-v1:"), "{fingerprint}");
    assert!(sent["servers"].is_array());
    let trusted = rig.app.with_state(|s| s.records(RegistryKind::McpServers)[0].trusted());
    assert!(!trusted, "the worker's records are what the panel keeps");
    assert!(rig.shell().saw_status("MCP server saved"));
}

#[test]
fn toggle_and_delete_send_their_mutation() {
    let mut rig = Rig::started(
        FIXTURE_URL,
        registry_worker(json!([]), json!([stored_server("s1", "a"), stored_server("s2", "b")])),
    );
    rig.run(|app| async move { app.load_integrations().await });
    rig.run(|app| async move {
        assert!(app.toggle_integration(RegistryKind::McpServers, "s2".to_owned()).await);
    });
    let sent = rig.shell().last(MessageType::SaveMcpServers).expect("toggle").payload;
    assert_eq!(sent["mutation"], json!({"type": "toggle", "id": "s2"}));
    assert_eq!(sent["servers"][1]["enabled"], json!(false));
    assert!(!rig.app.with_state(|s| s.records(RegistryKind::McpServers)[1].enabled()));
    rig.run(|app| async move {
        assert!(app.delete_integration(RegistryKind::McpServers, "s1".to_owned()).await);
    });
    let sent = rig.shell().last(MessageType::SaveMcpServers).expect("delete").payload;
    assert_eq!(sent["mutation"], json!({"type": "remove", "id": "s1"}));
    assert_eq!(rig.shell().registry(RegistryKind::McpServers), ids(&["s2"]));
}

#[test]
fn changes_of_one_registry_run_one_after_another_and_a_failure_commits_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveCustomTools => Answer::Hold,
        MessageType::LoadCustomTools => ok(json!([stored_tool("t1", "a"), stored_tool("t2", "b")])),
        other => registry_worker(json!([]), json!([]))(other, payload),
    });
    rig.run(|app| async move { app.load_integrations().await });
    rig.run(|app| async move {
        app.toggle_integration(RegistryKind::CustomTools, "t1".to_owned()).await;
    });
    rig.run(|app| async move {
        app.delete_integration(RegistryKind::CustomTools, "t2".to_owned()).await;
    });
    assert_eq!(rig.shell().count(MessageType::SaveCustomTools), 1, "the delete waits");
    let first = rig.shell().last(MessageType::SaveCustomTools).expect("first").payload;
    rig.release(
        MessageType::SaveCustomTools,
        Ok(json!({"ok": true, "records": first["tools"]})),
    );
    assert_eq!(rig.shell().count(MessageType::SaveCustomTools), 2);
    let second = rig.shell().last(MessageType::SaveCustomTools).expect("second").payload;
    assert_eq!(second["tools"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        second["tools"][0]["enabled"],
        json!(false),
        "computed after the toggle landed"
    );
    rig.release(
        MessageType::SaveCustomTools,
        Err(WorkerError {
            code: "STORAGE_WRITE_FAILED".to_owned(),
            message: "disk".to_owned(),
            details: None,
        }),
    );
    assert_eq!(rig.app.with_state(|s| s.records(RegistryKind::CustomTools).len()), 2);
    assert!(rig.shell().saw_status("Settings were not saved: disk"));
}

#[test]
fn a_probe_sends_the_form_and_reports_the_answer() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::ProbeMcpServer => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.probe_mcp_form(server_form("local")).await });
    assert_eq!(*rig.shell().probes.borrow(), [ProbeStatus::Busy]);
    let sent = rig.shell().last(MessageType::ProbeMcpServer).expect("probe").payload;
    assert_eq!(sent["server"]["id"], "probe");
    assert_eq!(sent["server"]["url"], "http://localhost:7000/mcp");
    assert_eq!(sent["server"]["protocolMode"], "auto");
    rig.run(|app| async move { app.probe_mcp_form(server_form("local")).await });
    assert_eq!(rig.shell().count(MessageType::ProbeMcpServer), 1, "one probe at a time");
    rig.release(
        MessageType::ProbeMcpServer,
        Ok(
            json!({"ok": true, "tools": [{"name": "echo"}], "errors": [], "version": "2026-07-28", "pages": 1,
            "ttlMs": 60000, "cacheScope": "private", "cache": {"status": "miss", "expiresAt": 0}}),
        ),
    );
    let last = rig.shell().probes.borrow().last().cloned();
    let Some(ProbeStatus::Connected(lines)) = last else {
        panic!("connected: {last:?}");
    };
    assert_eq!(lines[0], "Connected with MCP 2026-07-28.");
    assert!(lines.contains(&"  • echo".to_owned()));
}

#[test]
fn a_failed_probe_shows_its_code_message_and_hint() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::ProbeMcpServer => err_with(
            "TIMEOUT",
            "MCP request timed out.",
            json!({"hint": "Is the server running on that port?"}),
        ),
        other => default_worker()(other, payload),
    });
    let mut form = server_form("local");
    form.id = "s7".to_owned();
    rig.run(move |app| async move { app.probe_mcp_form(form).await });
    assert_eq!(
        rig.shell()
            .last(MessageType::ProbeMcpServer)
            .map(|s| s.payload["server"]["id"].clone()),
        Some(json!("s7"))
    );
    assert_eq!(
        rig.shell().probes.borrow().last(),
        Some(&ProbeStatus::Failed(vec![
            "Probe failed [TIMEOUT]: MCP request timed out.".to_owned(),
            "Is the server running on that port?".to_owned(),
        ]))
    );
}

#[test]
fn an_invalid_form_is_not_probed_and_a_probe_for_a_closed_form_reports_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::ProbeMcpServer => Answer::Hold,
        other => default_worker()(other, payload),
    });
    let mut bad = server_form("local");
    bad.url = "http://192.0.2.1/mcp".to_owned();
    rig.run(move |app| async move { app.probe_mcp_form(bad).await });
    assert_eq!(rig.shell().count(MessageType::ProbeMcpServer), 0);
    assert_eq!(
        rig.shell().problems(RegistryKind::McpServers)[0].field,
        FormField::McpUrl
    );
    assert!(matches!(
        rig.shell().probes.borrow().last(),
        Some(ProbeStatus::Failed(_))
    ));

    rig.run(|app| async move { app.probe_mcp_form(server_form("local")).await });
    rig.app.forget_probe();
    let shown = rig.shell().probes.borrow().len();
    rig.release(MessageType::ProbeMcpServer, Ok(json!({"ok": true, "tools": []})));
    assert_eq!(
        rig.shell().probes.borrow().len(),
        shown,
        "the closed form's probe reports nothing"
    );
    rig.run(|app| async move { app.probe_mcp_form(server_form("local")).await });
    assert_eq!(
        rig.shell().count(MessageType::ProbeMcpServer),
        2,
        "the next probe may start"
    );
}
