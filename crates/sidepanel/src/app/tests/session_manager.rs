//! Settings → Sessions over a fake worker that keeps its chats: the list
//! and its filter, rename, switch, both deletes (the open chat gives way),
//! Open project, export and import.

use super::fakes::*;
use futures::FutureExt;

/// A chat the fake worker keeps: id, project, name, messages.
type Chat = (String, String, String, Vec<Value>);

fn chats() -> Rc<RefCell<Vec<Chat>>> {
    let chat = |id: &str, project: &str, name: &str, messages: Value| {
        let messages = messages.as_array().cloned().unwrap_or_default();
        (id.to_owned(), project.to_owned(), name.to_owned(), messages)
    };
    Rc::new(RefCell::new(vec![
        chat("s1", "p1", "First", json!([])),
        chat(
            "s2",
            "p1",
            "Tables",
            json!([{"role": "user", "content": "Fix the Table please"}, {"role": "assistant", "content": "Done."}]),
        ),
        chat("s3", "p2", "Other", json!([{"role": "user", "content": "Hello"}])),
    ]))
}

fn meta((id, project, name, messages): &Chat) -> Value {
    let text: Vec<String> = messages
        .iter()
        .filter_map(|m| m["content"].as_str().map(str::to_lowercase))
        .collect();
    json!({"id": id, "projectId": project, "name": name, "messageCount": messages.len(),
           "preview": messages.first().and_then(|m| m["content"].as_str()).unwrap_or(""),
           "searchText": text.join(" "), "createdAt": 1, "updatedAt": 1, "approxBytes": 10, "userRenamed": false})
}

fn grouped(chats: &[Chat]) -> Value {
    let mut projects: Vec<&str> = Vec::new();
    for chat in chats {
        if !projects.contains(&chat.1.as_str()) {
            projects.push(&chat.1);
        }
    }
    Value::Array(
        projects
            .iter()
            .map(|project| {
                let members: Vec<&Chat> = chats.iter().filter(|c| c.1 == *project).collect();
                let total: usize = members.iter().map(|c| c.3.len()).sum();
                json!({"projectId": project, "lastActivity": 1, "totalMessages": total, "approxBytes": 10,
                       "sessions": members.iter().map(|c| meta(c)).collect::<Vec<_>>()})
            })
            .collect(),
    )
}

/// The worker over `store`; `SESSION_IMPORT` answers as recorded.
fn worker(store: &Rc<RefCell<Vec<Chat>>>) -> impl FnMut(MessageType, &Value) -> Answer + 'static {
    let store = Rc::clone(store);
    move |ty, payload| {
        let id = payload["sessionId"].as_str().unwrap_or_default().to_owned();
        match ty {
            MessageType::SessionList => {
                let project = payload["projectId"].as_str().unwrap_or_default();
                let list: Vec<Value> = store.borrow().iter().filter(|c| c.1 == project).map(meta).collect();
                ok(Value::Array(list))
            }
            MessageType::SessionListAllGrouped => ok(grouped(&store.borrow())),
            MessageType::SessionStorageStatus => answered("session_storage_status"),
            MessageType::SessionGet => match store.borrow().iter().find(|c| c.0 == id) {
                Some(chat) => ok(session(&chat.0, &chat.2, Value::Array(chat.3.clone()))),
                None => ok(Value::Null),
            },
            MessageType::SessionUpdate => {
                if let (Some(name), Some(chat)) = (
                    payload["name"].as_str(),
                    store.borrow_mut().iter_mut().find(|c| c.0 == id),
                ) {
                    chat.2 = name.to_owned();
                }
                ok(session(&id, "First", json!([])))
            }
            MessageType::SessionDelete => {
                store.borrow_mut().retain(|c| c.0 != id);
                answered("session_delete")
            }
            MessageType::SessionDeleteByProject => {
                let project = payload["projectId"].as_str().unwrap_or_default();
                let before = store.borrow().len();
                store.borrow_mut().retain(|c| c.1 != project);
                ok(json!({"ok": true, "removed": before - store.borrow().len()}))
            }
            MessageType::SessionCreate => {
                store
                    .borrow_mut()
                    .push(("s9".to_owned(), "p1".to_owned(), "New chat".to_owned(), Vec::new()));
                ok(created_session("s9", "New chat"))
            }
            MessageType::SessionExport => answered("session_export"),
            MessageType::SessionImport => answered("session_import"),
            MessageType::OpenProjectTab => answered("open_project_tab"),
            other => default_worker()(other, payload),
        }
    }
}

fn opened(store: &Rc<RefCell<Vec<Chat>>>) -> Rig {
    let mut rig = Rig::started(FIXTURE_URL, worker(store));
    rig.run(|app| async move { app.open_session_manager().await });
    rig
}

fn open_chat(rig: &Rig) -> Option<String> {
    rig.app.with_state(|s| s.session.as_ref().map(|s| s.id.clone()))
}

fn card_ids(content: &ManagerContent) -> Vec<(String, Vec<String>)> {
    content
        .cards
        .iter()
        .map(|card| {
            (
                card.project_id.clone(),
                card.rows.iter().map(|r| r.id.clone()).collect(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(p, ids)| ((*p).to_owned(), ids.iter().map(|id| (*id).to_owned()).collect()))
        .collect()
}

#[test]
fn manage_all_chats_opens_the_sessions_tab_unfiltered_and_the_filter_redraws_as_typed() {
    let store = chats();
    let mut rig = opened(&store);
    assert_eq!(
        rig.shell().opened_settings.borrow().last(),
        Some(&SettingsTab::Sessions)
    );
    assert!(rig.shell().log.borrow().contains(&"clear-session-filter".to_owned()));
    let content = rig.shell().manager();
    assert_eq!(card_ids(&content), pairs(&[("p1", &["s1", "s2"]), ("p2", &["s3"])]));
    assert_eq!(content.summary, "2 projects · 3 chats · 3 messages");
    assert_eq!(
        content.storage,
        Some(("Local chat storage in use: 1.4 KiB".to_owned(), false))
    );
    let requests = rig.shell().sent.borrow().len();
    rig.app.filter_session_manager("  TABLE ");
    assert_eq!(
        card_ids(&rig.shell().manager()),
        pairs(&[("p1", &["s2"])]),
        "by message text"
    );
    rig.app.filter_session_manager("p2");
    assert_eq!(
        card_ids(&rig.shell().manager()),
        pairs(&[("p2", &["s3"])]),
        "by project"
    );
    rig.app.filter_session_manager("other");
    assert_eq!(card_ids(&rig.shell().manager()), pairs(&[("p2", &["s3"])]), "by name");
    rig.app.filter_session_manager("nowhere");
    assert_eq!(rig.shell().manager().summary, "No chat matches the filter.");
    assert_eq!(
        rig.shell().sent.borrow().len(),
        requests,
        "filtering asks the worker nothing"
    );
    // Reopening clears the filter again.
    rig.run(|app| async move { app.open_session_manager().await });
    assert_eq!(rig.shell().manager().cards.len(), 2);
}

#[test]
fn deleting_the_open_chat_moves_the_panel_to_another_chat_of_its_project() {
    let store = chats();
    let mut rig = opened(&store);
    assert_eq!(open_chat(&rig).as_deref(), Some("s1"));
    rig.run(|app| async move { app.delete_managed_session("s1".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionDelete).map(|s| s.payload),
        Some(json!({"sessionId": "s1"}))
    );
    assert_eq!(open_chat(&rig).as_deref(), Some("s2"));
    assert_eq!(*rig.shell().session_list.borrow(), ["s2"]);
    assert!(rig.shell().saw_status("Chat deleted"));
    assert_eq!(
        card_ids(&rig.shell().manager()),
        pairs(&[("p1", &["s2"]), ("p2", &["s3"])])
    );
    // Another project's chat: the open chat stays.
    rig.run(|app| async move { app.delete_managed_session("s3".to_owned()).await });
    assert_eq!(open_chat(&rig).as_deref(), Some("s2"));
    assert_eq!(card_ids(&rig.shell().manager()), pairs(&[("p1", &["s2"])]));
}

#[test]
fn delete_all_of_the_open_project_leaves_a_new_chat_and_of_another_changes_nothing_here() {
    let store = chats();
    let mut rig = opened(&store);
    rig.run(|app| async move { app.delete_managed_project("p2".to_owned()).await });
    assert_eq!(open_chat(&rig).as_deref(), Some("s1"));
    assert!(rig.shell().saw_status("Deleted 1 chat"));
    rig.run(|app| async move { app.delete_managed_project("p1".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionDeleteByProject).map(|s| s.payload),
        Some(json!({"projectId": "p1"}))
    );
    assert!(rig.shell().saw_status("Deleted 2 chats"));
    assert_eq!(open_chat(&rig).as_deref(), Some("s9"), "a new chat of the project");
    assert_eq!(card_ids(&rig.shell().manager()), pairs(&[("p1", &["s9"])]));
}

#[test]
fn switch_opens_chats_of_the_open_project_only() {
    let store = chats();
    let mut rig = opened(&store);
    assert!(!rig.shell().manager().cards[0].rows[0].can_switch, "the open chat");
    assert!(rig.shell().manager().cards[0].rows[1].can_switch);
    rig.run(|app| async move { app.switch_to_managed_session("s2".to_owned()).await });
    assert_eq!(open_chat(&rig).as_deref(), Some("s2"));
    assert!(rig.shell().manager().cards[0].rows[1].active);
    let gets = rig.shell().count(MessageType::SessionGet);
    rig.run(|app| async move { app.switch_to_managed_session("s3".to_owned()).await });
    assert_eq!(
        rig.shell().count(MessageType::SessionGet),
        gets,
        "another project's chat is not opened"
    );
    assert_eq!(open_chat(&rig).as_deref(), Some("s2"));
}

#[test]
fn rename_saves_a_user_name_and_reaches_the_header_for_the_open_chat() {
    let store = chats();
    let mut rig = opened(&store);
    rig.run(|app| async move {
        app.rename_managed_session("s1".to_owned(), Some(" Intro ".to_owned()))
            .await
    });
    assert_eq!(
        rig.shell().last(MessageType::SessionUpdate).map(|s| s.payload),
        Some(json!({"sessionId": "s1", "name": "Intro", "userRenamed": true}))
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Intro");
    assert_eq!(rig.shell().manager().cards[0].rows[0].name, "Intro");
    let updates = rig.shell().count(MessageType::SessionUpdate);
    rig.run(|app| async move { app.rename_managed_session("s3".to_owned(), None).await });
    rig.run(|app| async move {
        app.rename_managed_session("s3".to_owned(), Some("Other".to_owned()))
            .await
    });
    assert_eq!(
        rig.shell().count(MessageType::SessionUpdate),
        updates,
        "cancel and no-op send nothing"
    );
    rig.run(|app| async move {
        app.rename_managed_session("s3".to_owned(), Some("Elsewhere".to_owned()))
            .await
    });
    assert_eq!(
        *rig.shell().session_name.borrow(),
        "Intro",
        "another chat's rename leaves the header"
    );
}

#[test]
fn open_project_asks_the_worker_and_reports_a_refusal() {
    let store = chats();
    let mut rig = opened(&store);
    rig.run(|app| async move { app.open_project_tab("p2".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::OpenProjectTab).map(|s| s.payload),
        Some(json!({"projectId": "p2"}))
    );
    assert!(
        !rig.shell().statuses.borrow().iter().any(|(_, error, _)| *error),
        "no error"
    );
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::OpenProjectTab => err("REQUEST_FAILED", "Tabs cannot be edited right now."),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.open_project_tab("p2".to_owned()).await });
    assert_eq!(
        rig.shell().last_status(),
        Some((
            "The project could not be opened: Tabs cannot be edited right now.".to_owned(),
            true
        ))
    );
}

#[test]
fn export_downloads_the_workers_document_under_a_dated_name() {
    let store = chats();
    let mut rig = opened(&store);
    rig.run(|app| async move { app.export_sessions().await });
    let downloads = rig.shell().downloads.borrow().clone();
    let [(name, text)] = &downloads[..] else {
        panic!("one download: {downloads:?}")
    };
    assert!(
        name.starts_with("typst-side-agent-sessions-20") && name.ends_with(".json"),
        "{name}"
    );
    let file: Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(file, super::recorded::data("session_export"));
    assert!(rig.shell().saw_status("Exported 1 chat"));

    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionExport => answered("session_export_empty"),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.export_sessions().await });
    assert!(rig.shell().downloads.borrow().is_empty());
    assert_eq!(
        rig.shell().last_status(),
        Some(("There are no chats to export.".to_owned(), true))
    );

    let mut rig = opened(&store);
    *rig.shell().download_refusal.borrow_mut() = Some("blocked".to_owned());
    rig.run(|app| async move { app.export_sessions().await });
    assert_eq!(
        rig.shell().last_status(),
        Some(("Export failed: blocked".to_owned(), true))
    );
}

/// A file read the test can watch: whether the import ever awaited it.
fn file(
    text: &str,
) -> (
    Rc<Cell<bool>>,
    futures::future::LocalBoxFuture<'static, Result<String, ()>>,
) {
    let read = Rc::new(Cell::new(false));
    let flag = Rc::clone(&read);
    let text = text.to_owned();
    (
        read,
        async move {
            flag.set(true);
            Ok(text)
        }
        .boxed_local(),
    )
}

#[test]
fn import_checks_the_file_first_and_reports_the_workers_counts() {
    let store = chats();
    let mut rig = opened(&store);
    let (read, text) = file("[]");
    let limit = f64::from(protocol::limits::MAX_SESSION_IMPORT_FILE_BYTES);
    rig.run(move |app| async move { app.import_sessions(limit + 1.0, text).await });
    assert!(!read.get(), "an oversized file is never read");
    assert_eq!(
        rig.shell().last_status(),
        Some((
            "Import failed, nothing was changed: The file is larger than the import limit of 16 MiB.".to_owned(),
            true
        ))
    );
    for (corrupt, why) in [
        ("{\"sessions\": [", "The file is not valid JSON."),
        (
            "{\"chats\": []}",
            "The file is not a chat export of Typst Side Agent (no list of chats in it).",
        ),
    ] {
        let (_, text) = file(corrupt);
        rig.run(move |app| async move { app.import_sessions(10.0, text).await });
        assert_eq!(
            rig.shell().last_status(),
            Some((format!("Import failed, nothing was changed: {why}"), true))
        );
    }
    let unreadable = async { Err(()) }.boxed_local();
    rig.run(move |app| async move { app.import_sessions(10.0, unreadable).await });
    assert_eq!(
        rig.shell().last_status(),
        Some((
            "Import failed, nothing was changed: The file could not be read.".to_owned(),
            true
        ))
    );
    assert_eq!(
        rig.shell().count(MessageType::SessionImport),
        0,
        "nothing reached the worker"
    );

    let export = super::recorded::data("session_export").to_string();
    let (read, text) = file(&export);
    let lists = rig.shell().count(MessageType::SessionList);
    rig.run(move |app| async move { app.import_sessions(100.0, text).await });
    assert!(read.get());
    assert_eq!(
        rig.shell().last(MessageType::SessionImport).map(|s| s.payload),
        Some(json!({"exportData": super::recorded::data("session_export")}))
    );
    assert!(rig.shell().saw_status(
        "Imported 2 chats; skipped 1 record that failed validation; 1 chat given a new id (the id was taken)"
    ));
    assert!(
        rig.shell().count(MessageType::SessionList) > lists,
        "the menu catches up"
    );
    assert_eq!(open_chat(&rig).as_deref(), Some("s1"), "the open chat stays");
}

#[test]
fn a_refused_import_says_nothing_changed() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionImport => answered("session_import_unsupported"),
        other => default_worker()(other, payload),
    });
    let (_, text) = file("{\"version\": 9, \"sessions\": []}");
    rig.run(move |app| async move { app.import_sessions(10.0, text).await });
    assert_eq!(
        rig.shell().last_status(),
        Some((
            "Import failed, nothing was changed: Only chat exports of version 1 or 2 can be imported.".to_owned(),
            true
        ))
    );
}
