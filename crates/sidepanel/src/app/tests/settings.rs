//! Saving settings: General, theme, models (one change at a time) and the Edits mode.

use super::fakes::*;

#[test]
fn general_save_sends_only_its_fields_and_updates_the_shortcut() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => ok(json!({"ok": true, "settings": payload["settings"]})),
        other => default_worker()(other, payload),
    });
    let form = GeneralForm {
        system_prompt: " Be terse. ".to_owned(),
        history_cap: "3".to_owned(),
        auto_name_model_id: "m1".to_owned(),
        send_message_shortcut: "ctrl-enter".to_owned(),
    };
    rig.run(move |app| async move {
        assert!(app.save_general(form).await);
    });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(
        saved["fields"],
        json!([
            "systemPrompt",
            "maxHistoryMessages",
            "autoNameModelId",
            "sendMessageShortcut"
        ])
    );
    assert_eq!(saved["settings"]["maxHistoryMessages"], 8);
    assert_eq!(saved["settings"]["systemPrompt"], "Be terse.");
    assert_eq!(rig.shell().composer().shortcut, SendMessageShortcut::CtrlEnter);
    assert!(rig.shell().saw_status("Settings saved"));
}

#[test]
fn theme_changes_apply_at_once_and_are_saved() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveTheme => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.save_theme("dark").await });
    assert_eq!(*rig.shell().theme.borrow(), "dark", "shown before the save answers");
    assert_eq!(
        rig.shell().last(MessageType::SaveTheme).map(|s| s.payload),
        Some(json!({"theme": "dark"}))
    );
    rig.release(MessageType::SaveTheme, Ok(json!({"ok": true})));
    assert_eq!(*rig.shell().theme.borrow(), "dark");
    assert!(!rig.shell().last_status().is_some_and(|(_, error)| error));
}

#[test]
fn model_form_upserts_and_the_model_menu_selects() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => ok(json!({"ok": true, "settings": payload["settings"]})),
        other => default_worker()(other, payload),
    });
    let form = ModelForm {
        name: "Second".to_owned(),
        api_base_url: "https://model.fixture/v1".to_owned(),
        api_key: "sk-2".to_owned(),
        model_id: "second-model".to_owned(),
        reasoning_effort: "low".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(form).await;
    });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(saved["modelMutation"]["type"], "upsert");
    let record = &saved["modelMutation"]["record"];
    assert_eq!(record["apiBaseUrl"], "https://model.fixture/v1");
    assert_eq!(record["reasoningEffort"], "low");
    let new_id = record["id"].as_str().expect("id").to_owned();
    assert!(rig.shell().log.borrow().contains(&"close-model-form".to_owned()));
    assert_eq!(rig.app.with_state(|s| s.settings.models.len()), 2);

    let chosen = new_id.clone();
    rig.run(move |app| async move { app.select_model(chosen).await });
    let select = rig.shell().last(MessageType::SaveSettings).expect("select").payload;
    assert_eq!(select["modelMutation"], json!({"type": "select", "id": new_id}));
    assert_eq!(rig.app.with_state(|s| s.settings.active_model_id.clone()), Some(new_id));
    assert!(rig.shell().log.borrow().contains(&"close-model-menu".to_owned()));
}

#[test]
fn invalid_model_forms_are_refused_before_any_request() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let form = ModelForm {
        name: "Plain".to_owned(),
        api_base_url: "http://10.1.2.3:8080/v1".to_owned(),
        api_key: "k".to_owned(),
        model_id: "m".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(form).await;
    });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("http://10.1.2.3:8080"))
    );
}

#[test]
fn model_changes_run_one_after_another_against_the_latest_settings() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => Answer::Hold,
        other => default_worker()(other, payload),
    });
    let add = ModelForm {
        name: "Second".to_owned(),
        api_base_url: "https://model.fixture/v1".to_owned(),
        api_key: "k".to_owned(),
        model_id: "m2".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(add).await;
    });
    rig.run(|app| async move { app.delete_model("m1".to_owned()).await });
    assert_eq!(
        rig.shell().count(MessageType::SaveSettings),
        1,
        "the second waits for the first"
    );
    let first = rig.shell().last(MessageType::SaveSettings).expect("first").payload;
    rig.release(
        MessageType::SaveSettings,
        Ok(json!({"ok": true, "settings": first["settings"]})),
    );
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 2);
    let second = rig.shell().last(MessageType::SaveSettings).expect("second").payload;
    let ids: Vec<String> = second["settings"]["models"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["id"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 1, "removal computed after the upsert landed: {ids:?}");
    assert_ne!(ids[0], "m1");
    rig.release(
        MessageType::SaveSettings,
        Err(WorkerError {
            code: "STORAGE_WRITE_FAILED".to_owned(),
            message: "disk".to_owned(),
            details: None,
        }),
    );
    assert_eq!(
        rig.app.with_state(|s| s.settings.models.len()),
        2,
        "a failed save commits nothing"
    );
    assert!(rig.shell().saw_status("Settings were not saved: disk"));
}

#[test]
fn a_refused_general_save_keeps_the_panels_settings() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => err("INVALID_PAYLOAD", "maxHistoryMessages is not a number"),
        other => default_worker()(other, payload),
    });
    let form = GeneralForm {
        system_prompt: "New prompt".to_owned(),
        history_cap: "50".to_owned(),
        auto_name_model_id: String::new(),
        send_message_shortcut: "shift-enter".to_owned(),
    };
    rig.run(move |app| async move {
        assert!(!app.save_general(form).await);
    });
    assert_eq!(
        rig.app.with_state(|s| s.settings.send_message_shortcut),
        SendMessageShortcut::Enter
    );
    assert_eq!(rig.app.with_state(|s| s.settings.system_prompt.clone()), "");
    assert!(
        rig.shell()
            .saw_status("Settings were not saved: maxHistoryMessages is not a number")
    );
}

#[test]
fn the_edits_mode_is_saved_alone_at_once_and_put_back_when_the_save_fails() {
    let fail = Rc::new(Cell::new(false));
    let failing = Rc::clone(&fail);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SaveSettings if failing.get() => err("STORAGE_WRITE_FAILED", "disk full"),
        MessageType::SaveSettings => Answer::Hold,
        other => default_worker()(other, payload),
    });
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Ask);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Auto).await });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(saved["fields"], json!(["editorApprovalMode"]));
    assert_eq!(saved["settings"]["editorApprovalMode"], "auto");
    // While saving, the control shows the new mode and cannot change again.
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Auto);
    assert!(rig.shell().composer().editor_mode_disabled);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Ask).await });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 1);
    rig.release(
        MessageType::SaveSettings,
        Ok(json!({"ok": true, "settings": {"editorApprovalMode": "auto"}})),
    );
    assert!(!rig.shell().composer().editor_mode_disabled);
    assert!(!rig.shell().last_status().expect("status").1);

    fail.set(true);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Ask).await });
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Auto);
    assert_eq!(
        rig.app.with_state(|s| s.settings.editor_approval_mode),
        EditorApprovalMode::Auto
    );
    let (text, is_error) = rig.shell().last_status().expect("status");
    assert!(is_error && text.contains("disk full"));
}

#[test]
fn the_edits_mode_is_locked_while_a_run_streams() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("edit it");
    assert!(rig.shell().composer().editor_mode_disabled);
    assert!(rig.shell().composer().recovery_disabled);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Auto).await });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 0);
}
