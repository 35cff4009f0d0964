//! The session menu: rename and delete.

use super::fakes::*;

#[test]
fn rename_saves_a_user_name_and_no_op_renames_only_refresh() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let current = SessionMeta {
        id: "s1".to_owned(),
        project_id: "p1".to_owned(),
        name: "First".to_owned(),
        user_renamed: false,
    };
    let same = current.clone();
    let lists = rig.shell().count(MessageType::SessionList);
    rig.run(move |app| async move { app.rename_session(same, " First ".to_owned()).await });
    assert_eq!(rig.shell().count(MessageType::SessionUpdate), 0);
    assert_eq!(
        rig.shell().count(MessageType::SessionList),
        lists + 1,
        "the menu is only refreshed"
    );
    rig.run(move |app| async move { app.rename_session(current, "  Thesis intro ".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionUpdate).map(|s| s.payload),
        Some(json!({"sessionId": "s1", "name": "Thesis intro", "userRenamed": true}))
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Thesis intro");
    assert!(
        rig.app
            .with_state(|s| s.session.as_ref().is_some_and(|s| s.user_renamed))
    );
}

/// Whether `session_id` was saved by a request sent after the first `since`.
fn saved_since(rig: &Rig, since: usize, session_id: &str) -> bool {
    rig.shell().sent.borrow()[since..]
        .iter()
        .any(|s| s.ty == MessageType::SessionUpdate && s.payload["sessionId"] == session_id)
}

#[test]
fn deleting_the_open_chat_opens_the_newest_and_deleting_the_last_creates_one() {
    let remaining = Rc::new(RefCell::new(json!([
        {"id": "s1", "projectId": "p1", "name": "First"},
        {"id": "s2", "projectId": "p1", "name": "Two"}
    ])));
    let list = Rc::clone(&remaining);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SessionDelete => {
            // The worker forgets the chat: later lists no longer hold it.
            if let Some(sessions) = list.borrow_mut().as_array_mut() {
                sessions.retain(|s| s["id"] != payload["sessionId"]);
            }
            ok(json!({"ok": true, "removed": 1}))
        }
        MessageType::SessionList => ok(list.borrow().clone()),
        MessageType::SessionGet => ok(session(payload["sessionId"].as_str().unwrap_or(""), "Two", json!([]))),
        MessageType::SessionCreate => ok(created_session("s3", "New chat")),
        other => default_worker()(other, payload),
    });
    let open = |rig: &Rig| rig.app.with_state(|s| s.session.as_ref().map(|s| s.id.clone()));
    assert_eq!(open(&rig).as_deref(), Some("s1"), "the newest chat opened at start");

    let since = rig.shell().sent.borrow().len();
    rig.run(|app| async move { app.delete_session("s1".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionDelete).map(|s| s.payload),
        Some(json!({"sessionId": "s1"}))
    );
    assert_eq!(open(&rig).as_deref(), Some("s2"), "the newest remaining chat opens");
    assert!(!saved_since(&rig, since, "s1"), "a deleted chat is not written back");

    let since = rig.shell().sent.borrow().len();
    rig.run(|app| async move { app.delete_session("s2".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionCreate).map(|s| s.payload),
        Some(json!({"projectId": "p1", "name": "New chat"}))
    );
    assert_eq!(open(&rig).as_deref(), Some("s3"));
    assert!(!saved_since(&rig, since, "s2"), "a deleted chat is not written back");
}
