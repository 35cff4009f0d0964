//! Context-menu attachments: captured, refreshed from the send's tab, stored bounded.

use super::fakes::*;

#[test]
fn attachments_are_refreshed_from_the_captured_tab_and_stored_bounded() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetPreview => ok(json!({"dataUrl": "data:image/png;base64,FRESH"})),
        MessageType::GetEditorContext if payload.get("projection").is_none() => ok(json!({
            "selectedText": "  = Heading  ",
            "workspace": {"active_editor_file": {"relativePath": "chapters/intro.typ"}}
        })),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Selection).await });
    assert_eq!(
        rig.shell().last(MessageType::GetEditorContext).map(|s| s.payload),
        Some(json!({"tabId": 7}))
    );
    assert!(rig.shell().saw_status("Selection added"));
    rig.run(|app| async move { app.add_context(ContextKind::OpenedImage).await });
    assert_eq!(
        rig.shell().last(MessageType::GetPreview).map(|s| s.payload),
        Some(json!({"preferAssetImage": true, "tabId": 7}))
    );
    assert_eq!(rig.shell().attachments.borrow().selections.len(), 1);
    assert_eq!(rig.shell().attachments.borrow().previews.len(), 1);

    let before = rig.shell().sent.borrow().len();
    rig.type_and_send("Compare");
    let shell = rig.shell();
    let sequence: Vec<MessageType> = shell.sent.borrow()[before..].iter().map(|s| s.ty).collect();
    assert_eq!(
        &sequence[..3],
        [
            MessageType::GetEditorContext,
            MessageType::GetPreview,
            MessageType::AiRunReserve
        ]
    );
    let start = shell.last(MessageType::AiStreamStart).expect("start").payload;
    assert_eq!(
        start["attachments"]["previews"],
        json!([{"dataUrl": "data:image/png;base64,FRESH"}])
    );
    assert_eq!(start["attachments"]["selections"][0]["selectedText"], "= Heading");
    assert_eq!(
        start["attachments"]["selections"][0]["activeFile"]["relativePath"],
        "chapters/intro.typ"
    );
    let user = &start["messages"][0];
    assert_eq!(
        user["sentAttachments"]["selections"],
        json!([{"text": "= Heading", "fileLabel": "chapters/intro.typ"}])
    );
    assert_eq!(user["sentAttachments"]["previews"][0]["thumbnail"], true);
    assert!(shell.attachments.borrow().is_empty(), "chips are cleared at send");
}

#[test]
fn a_failed_refresh_aborts_the_send() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetPreview if payload.get("tabId").is_some() && payload["preferTypstCanvas"] == true => {
            ok(json!({"dataUrl": "data:image/png;base64,AAAA"}))
        }
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Preview).await });
    // The next capture fails.
    *rig.shell().responder.borrow_mut() = Box::new(|ty, payload| match ty {
        MessageType::GetPreview => ok(json!({"error": "No Typst canvas"})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("look");
    assert_eq!(rig.shell().count(MessageType::AiRunReserve), 0);
    assert_eq!(
        rig.shell().last_status(),
        Some(("Refresh failed: No Typst canvas".to_owned(), true))
    );
    assert_eq!(
        rig.app.with_state(|s| s.attachments.previews.len()),
        1,
        "nothing is lost"
    );
}

#[test]
fn an_empty_selection_is_reported_and_nothing_is_attached() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => ok(json!({"selectedText": "   "})),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Selection).await });
    assert!(rig.shell().attachments.borrow().is_empty());
    assert_eq!(
        rig.shell().last_status(),
        Some(("No text is selected.".to_owned(), true))
    );
}
