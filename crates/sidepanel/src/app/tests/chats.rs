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
    rig.run(move |app| async move { app.rename_session(same, " First ".to_owned()).await });
    assert_eq!(rig.shell().count(MessageType::SessionUpdate), 0);
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

#[test]
fn deleting_the_open_chat_opens_the_newest_and_deleting_the_last_creates_one() {
    let remaining = Rc::new(RefCell::new(json!([{"id": "s2", "projectId": "p1", "name": "Two"}])));
    let list = Rc::clone(&remaining);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SessionDelete => ok(json!({"ok": true, "removed": 1})),
        MessageType::SessionList if list.borrow().as_array().is_some_and(|a| a.is_empty()) => ok(json!([])),
        MessageType::SessionList => {
            // The first list (at start) still has s1.
            ok(list.borrow().clone())
        }
        MessageType::SessionGet => ok(session(payload["sessionId"].as_str().unwrap_or(""), "Two", json!([]))),
        MessageType::SessionCreate => ok(session("s3", "New chat", json!([]))),
        other => default_worker()(other, payload),
    });
    let saves_before = rig.shell().count(MessageType::SessionUpdate);
    rig.run(|app| async move { app.delete_session("s2".to_owned()).await });
    assert_eq!(
        rig.app
            .with_state(|s| s.session.as_ref().map(|s| s.id.clone()))
            .as_deref(),
        Some("s2")
    );
    *remaining.borrow_mut() = json!([]);
    rig.run(|app| async move { app.delete_session("s2".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionCreate).map(|s| s.payload),
        Some(json!({"projectId": "p1", "name": "New chat"}))
    );
    assert_eq!(
        rig.app
            .with_state(|s| s.session.as_ref().map(|s| s.id.clone()))
            .as_deref(),
        Some("s3")
    );
    let saved_deleted = rig
        .shell()
        .sent
        .borrow()
        .iter()
        .skip(saves_before)
        .any(|s| s.ty == MessageType::SessionUpdate && s.payload["sessionId"] == "s2");
    assert!(!saved_deleted, "a deleted chat is not written back");
}
