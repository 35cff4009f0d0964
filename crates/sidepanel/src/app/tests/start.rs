//! Starting the panel and following the active tab: the first chat, the theme, the banner, a project change.

use super::fakes::*;

#[test]
fn first_start_creates_a_chat_and_opens_settings_on_models_when_no_model_exists() {
    let rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadTheme => ok(json!("dark")),
        MessageType::LoadSettings => ok(json!({"models": []})),
        MessageType::SessionList => ok(json!([])),
        MessageType::SessionCreate => ok(created_session("new", payload["name"].as_str().unwrap_or(""))),
        MessageType::SessionUpdate => ok(session("new", "New chat", payload["messages"].clone())),
        MessageType::AiRunStatus => ok(json!([])),
        MessageType::SessionGet => ok(session("new", "New chat", json!([]))),
        MessageType::QuickAttachDrain => ok(json!([])),
        _ => err("UNROUTED_MESSAGE", "x"),
    });
    let shell = rig.shell();
    assert_eq!(
        shell.types(),
        [
            MessageType::LoadTheme,
            MessageType::LoadSettings,
            MessageType::SessionList,
            MessageType::SessionCreate,
            MessageType::SessionList,
            MessageType::QuickAttachDrain,
            MessageType::AiRunStatus,
            MessageType::SessionGet,
        ]
    );
    assert_eq!(
        shell.last(MessageType::SessionCreate).map(|s| s.payload),
        Some(json!({"projectId": "p1", "name": "New chat"}))
    );
    assert_eq!(*shell.opened_settings.borrow(), [SettingsTab::Models]);
    assert_eq!(*shell.session_name.borrow(), "New chat");
    assert_eq!(shell.banner.get(), Some(false));
    assert_eq!(
        shell.rendered.borrow().last().map(Vec::len),
        Some(0),
        "an empty chat is rendered"
    );
    let composer = shell.composer();
    assert!(!composer.input_disabled && !composer.send_disabled && !composer.stop_mode);
}

#[test]
fn start_asks_theme_settings_and_tab_at_once_and_follows_the_tab_only_after_the_settings() {
    let mut worker = default_worker();
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::LoadTheme | MessageType::LoadSettings => Answer::Hold,
        other => worker(other, payload),
    });
    assert_eq!(
        rig.shell().types(),
        [MessageType::LoadTheme, MessageType::LoadSettings],
        "both asked before either answered, and nothing that follows the tab yet"
    );
    assert_eq!(rig.shell().tab_lookups.get(), 1, "the tab is asked with them");
    assert!(rig.shell().composer.get().is_none_or(|c| c.input_disabled));
    rig.release(MessageType::LoadTheme, Ok(json!("light")));
    assert_eq!(*rig.shell().theme.borrow(), "light", "the theme is shown when it comes");
    assert_eq!(
        rig.shell().count(MessageType::SessionList),
        0,
        "the tab waits for the settings"
    );
    rig.release(
        MessageType::LoadSettings,
        Ok(json!({"models": [], "maxHistoryMessages": 40})),
    );
    assert!(
        rig.shell().count(MessageType::SessionList) > 0,
        "the project's chats are listed now"
    );
    assert_eq!(
        rig.shell().tab_lookups.get(),
        1,
        "the tab read at start is the one followed"
    );
    assert_eq!(*rig.shell().session_name.borrow(), "First");
    assert!(!rig.shell().composer().input_disabled);
}

#[test]
fn a_tab_change_while_start_waits_for_the_settings_wins_over_the_tab_read_at_start() {
    let mut worker = default_worker();
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::LoadSettings => Answer::Hold,
        other => worker(other, payload),
    });
    *rig.shell().tab.borrow_mut() = tab("https://example.test/");
    rig.event(
        "ACTIVE_TAB_CHANGED",
        None,
        json!({"onTypst": false, "url": "https://example.test/", "tabId": 7}),
    );
    rig.release(MessageType::LoadSettings, Ok(json!({"models": []})));
    assert_eq!(rig.shell().banner.get(), Some(true), "the newer tab's banner stays");
    assert_eq!(
        rig.shell().count(MessageType::SessionList),
        0,
        "the stale project is not opened"
    );
    assert!(rig.shell().composer().input_disabled);
}

#[test]
fn an_existing_project_opens_its_newest_chat_and_applies_the_theme() {
    let rig = Rig::started(FIXTURE_URL, default_worker());
    let shell = rig.shell();
    assert_eq!(*shell.theme.borrow(), "light");
    assert!(shell.opened_settings.borrow().is_empty());
    assert_eq!(
        shell.last(MessageType::SessionGet).map(|s| s.payload),
        Some(json!({"sessionId": "s1"}))
    );
    assert_eq!(*shell.session_name.borrow(), "First");
    assert_eq!(*shell.session_list.borrow(), ["s1"]);
    assert_eq!(shell.count(MessageType::SessionCreate), 0);
}

#[test]
fn off_typst_the_banner_shows_and_nothing_is_loaded() {
    let rig = Rig::started("https://example.test/", default_worker());
    let shell = rig.shell();
    assert_eq!(shell.banner.get(), Some(true));
    assert_eq!(shell.count(MessageType::SessionList), 0);
    let composer = shell.composer();
    assert!(composer.input_disabled && composer.send_disabled);
}

#[test]
fn typst_without_a_project_asks_for_one() {
    let rig = Rig::started("https://typst.app/", default_worker());
    let shell = rig.shell();
    assert_eq!(shell.banner.get(), Some(false));
    assert_eq!(shell.last_status(), Some((NO_PROJECT_TEXT.to_owned(), true)));
    assert_eq!(shell.count(MessageType::SessionList), 0);
    assert!(shell.composer().input_disabled);
}

#[test]
fn a_project_change_loads_that_projects_chats_and_clears_attachments() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionList if payload["projectId"] == "p2" => {
            ok(json!([{"id": "t1", "projectId": "p2", "name": "Other"}]))
        }
        MessageType::SessionGet if payload["sessionId"] == "t1" => {
            ok(json!({"id": "t1", "projectId": "p2", "name": "Other", "messages": []}))
        }
        MessageType::GetPreview => ok(json!({"dataUrl": "data:image/png;base64,AAAA"})),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Preview).await });
    assert_eq!(rig.app.with_state(|s| s.attachments.previews.len()), 1);
    *rig.shell().tab.borrow_mut() = tab("https://typst.app/project/p2");
    rig.event(
        "ACTIVE_TAB_CHANGED",
        None,
        json!({"onTypst": true, "url": "x", "tabId": 7}),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Other");
    assert!(rig.shell().attachments.borrow().is_empty());
    assert_eq!(
        rig.shell()
            .last(MessageType::SessionUpdate)
            .map(|s| s.payload["sessionId"].clone()),
        Some(json!("s1")),
        "the chat that was open is saved before the switch"
    );
}
