//! Normalisation of chat messages and records to the display schema, as the
//! original's storage tests pinned it down.

use super::*;

const NOW: f64 = 1_000.0;

fn local(message: Value) -> Result<Value, String> {
    normalize_message(&message, Origin::Local, NOW)
}

#[test]
fn only_user_and_assistant_messages_with_string_content_are_kept() {
    assert_eq!(
        local(json!({"role": "user", "content": null, "extra": 1})),
        Ok(json!({"role": "user", "content": ""}))
    );
    for bad in [
        json!({"role": "tool", "content": "x"}),
        json!({"role": "system", "content": "x"}),
        json!({"role": "user", "content": {"toString": "hostile"}}),
        json!({"role": "user", "content": 5}),
        json!(["user"]),
    ] {
        assert!(local(bad.clone()).is_err(), "{bad}");
    }
    let long = "é".repeat(MAX_MESSAGE_CHARS + 1);
    assert!(local(json!({"role": "user", "content": long})).is_err());
    // UTF-16 units, not bytes: 256,000 two-byte characters fit.
    let fits = "é".repeat(MAX_MESSAGE_CHARS);
    assert!(local(json!({"role": "user", "content": fits})).is_ok());
}

#[test]
fn message_lists_are_bounded_and_errors_name_the_message() {
    let many = vec![json!({"role": "user", "content": "x"}); MAX_MESSAGES + 1];
    assert_eq!(
        normalize_message_list(&many, Origin::Local, NOW).map_err(|e| e.code().as_str()),
        Err("INVALID_SESSION_RECORD")
    );
    let error = normalize_message_list(
        &[json!({"role": "user", "content": "ok"}), json!({"role": "tool"})],
        Origin::Local,
        NOW,
    );
    assert!(error.is_err_and(|e| e.message.starts_with("Message 2:")));
    assert!(normalize_messages(Some(&json!("bad")), Origin::Local, NOW).is_err());
    assert!(normalize_messages(None, Origin::Local, NOW).is_err());
}

#[test]
fn assistant_fields_are_validated_and_response_status_is_local_only() {
    let message = json!({
        "role": "assistant", "content": "Done.", "responseStatus": "complete", "reasoning": "why",
        "segments": [{"type": "reasoning", "content": "why"}, {"type": "text", "content": "Done."}],
    });
    assert_eq!(local(message.clone()), Ok(message.clone()));
    let imported = normalize_message(&message, Origin::Imported, NOW).expect("valid");
    assert_eq!(imported.get("responseStatus"), None);
    for bad in [
        json!({"role": "assistant", "responseStatus": "done"}),
        json!({"role": "assistant", "reasoning": 1}),
        json!({"role": "assistant", "segments": {}}),
        json!({"role": "assistant", "segments": [{"type": "html", "content": "<img src=x>"}]}),
        json!({"role": "assistant", "segments": [{"type": "text", "content": 1}]}),
        json!({"role": "assistant", "segments": [{"type": "tools"}]}),
        json!({"role": "assistant", "toolCalls": "x"}),
    ] {
        assert!(local(bad.clone()).is_err(), "{bad}");
    }
    let segments = vec![json!({"type": "text", "content": ""}); MAX_SEGMENTS + 1];
    assert!(local(json!({"role": "assistant", "segments": segments})).is_err());
    // User messages never carry assistant fields.
    assert_eq!(
        local(json!({"role": "user", "content": "q", "reasoning": "r", "responseStatus": "x"})),
        Ok(json!({"role": "user", "content": "q"}))
    );
}

#[test]
fn tool_calls_accept_function_arguments_and_are_bounded() {
    let message = json!({"role": "assistant", "toolCalls": [
        {"id": "call_1", "function": {"name": "read_document", "arguments": "{\"start_line\":3}"}},
        {"id": "call.2", "name": "x", "args": {"a": 1}},
        {"id": "call:3", "name": "y"},
    ]});
    assert_eq!(
        local(message).map(|m| m["toolCalls"].clone()),
        Ok(json!([
            {"id": "call_1", "name": "read_document", "args": {"start_line": 3}},
            {"id": "call.2", "name": "x", "args": {"a": 1}},
            {"id": "call:3", "name": "y", "args": {}},
        ]))
    );
    for bad in [
        json!({"id": "c", "function": {"name": "read_document", "arguments": "{"}}),
        json!({"id": "c", "name": "read document"}),
        json!({"id": "c/1", "name": "x"}),
        json!({"id": "", "name": "x"}),
        json!({"id": "c", "name": "x", "args": [1]}),
        json!({"id": "c", "name": "x", "args": "text"}),
        json!({"id": "c", "name": "x", "args": {"a": "x".repeat(MAX_TOOL_ARGUMENT_JSON_CHARS)}}),
        json!("call"),
    ] {
        let message = json!({"role": "assistant", "toolCalls": [bad.clone()]});
        assert!(local(message).is_err(), "{bad}");
    }
    let calls = vec![json!({"id": "c", "name": "x"}); MAX_TOOL_CALLS + 1];
    assert!(local(json!({"role": "assistant", "toolCalls": calls})).is_err());
}

#[test]
fn tool_results_are_stored_as_summaries() {
    let read = summarize_tool_result(
        "read_document",
        Some(
            &json!({"ok": true, "content": "secret text", "doc_chars": 11, "approx_line_count": 1,
            "start_line": 1, "end_line": 1, "truncated": 0}),
        ),
        Origin::Local,
        NOW,
    );
    assert_eq!(
        read,
        json!({"ok": true, "doc_chars": 11, "approx_line_count": 1, "start_line": 1, "end_line": 1, "truncated": false})
    );
    let diagnostics: Vec<Value> = (0..12)
        .map(|i| json!({"severity": "error-very-long-severity", "line": i, "message": "m".repeat(400)}))
        .collect();
    let diag = summarize_tool_result(
        "read_diagnostics",
        Some(&json!({"error_count": 12, "diagnostics": diagnostics, "ok": false})),
        Origin::Local,
        NOW,
    );
    assert_eq!(diag["ok"], json!(false));
    assert_eq!(diag["warning_count"], json!(0));
    assert_eq!(
        diag["diagnostics"].as_array().map(Vec::len),
        Some(MAX_SUMMARY_DIAGNOSTICS)
    );
    assert_eq!(diag["diagnostics"][0]["severity"], json!("error-very-long-"));
    assert_eq!(diag["diagnostics"][0]["column"], Value::Null);
    assert_eq!(diag["diagnostics"][0]["message"].as_str().map(str::len), Some(300));
    let generic = summarize_tool_result(
        "external",
        Some(&json!({"data": "x".repeat(10_000)})),
        Origin::Local,
        NOW,
    );
    let summary = generic["summary"].as_str().unwrap_or_default();
    assert_eq!(js::utf16_len(summary), MAX_PERSISTED_TOOL_RESULT_CHARS as usize + 1);
    assert!(summary.ends_with('…'));
    assert_eq!(
        summarize_tool_result("x", None, Origin::Local, NOW),
        json!({"ok": false, "error": "No result"})
    );
    assert_eq!(
        summarize_tool_result("x", Some(&json!("boom")), Origin::Local, NOW),
        json!({"ok": false, "error": "boom"})
    );
}

#[test]
fn summaries_are_stable_when_a_chat_is_saved_again() {
    for (name, result) in [
        ("external", json!({"ok": true, "data": [1, 2, 3]})),
        ("external", json!({"ok": true, "data": "x".repeat(10_000)})),
        ("read_document", json!({"ok": true, "doc_chars": 5, "error": "e"})),
        (
            "read_diagnostics",
            json!({"diagnostics": [{"severity": "error", "line": 2}]}),
        ),
        (
            "search_replace",
            json!({"ok": true, "edits_applied": 2, "editCheckpoint": {"id": "edit-1", "status": "applied",
                "fileLabel": "main.typ", "createdAt": 5}}),
        ),
    ] {
        let once = summarize_tool_result(name, Some(&result), Origin::Local, NOW);
        let twice = summarize_tool_result(name, Some(&once), Origin::Local, NOW);
        assert_eq!(once, twice, "{name}");
    }
}

#[test]
fn imported_revert_receipts_become_unavailable() {
    let result = json!({"ok": true, "edits_applied": 1, "reviewed_diff": true, "editCheckpoint": {
        "id": "edit-export", "status": "applied", "fileLabel": "main.typ", "createdAt": 100}});
    let local = summarize_tool_result("search_replace", Some(&result), Origin::Local, NOW);
    assert_eq!(local["editCheckpoint"]["status"], json!("applied"));
    assert_eq!(local["reviewed_diff"], json!(true));
    let imported = summarize_tool_result("search_replace", Some(&result), Origin::Imported, NOW);
    assert_eq!(imported["editCheckpoint"]["status"], json!("unavailable"));
    assert!(
        imported["editCheckpoint"]["unavailableReason"]
            .as_str()
            .is_some_and(|r| r.contains("not included"))
    );
    // A write tool without a receipt is summarised like any other tool.
    let plain = summarize_tool_result("search_replace", Some(&json!({"ok": false})), Origin::Local, NOW);
    assert_eq!(plain, json!({"ok": false, "summary": "{\"ok\":false}"}));
}

#[test]
fn attachments_keep_bounded_snapshots_and_legacy_markers() {
    let png = format!("data:image/png;base64,{}", "A".repeat(100));
    let message = json!({"role": "user", "content": "q", "sentAttachments": {
        "selections": [{"text": "sel", "fileLabel": "a.typ"}, {"text": ""}, {"text": "only"}, "bad"],
        "previews": [
            {"dataUrl": "https://remote.example/image.png", "thumbnail": true},
            {"dataUrl": png, "width": 9000, "height": 1.5, "thumbnail": true},
            {"dataUrl": png, "thumbnail": true},
        ],
        "document": true,
        "diagnosticsCount": 20_000,
    }});
    let out = local(message).expect("valid");
    let sent = &out["sentAttachments"];
    assert_eq!(
        sent["selections"],
        json!([{"text": "sel", "fileLabel": "a.typ"}, {"text": "only"}])
    );
    let previews = sent["previews"].as_array().expect("previews");
    assert_eq!(previews.len(), 2);
    assert_eq!(previews[0]["omitted"], json!(true));
    assert_eq!(
        previews[1],
        json!({"dataUrl": png, "width": 4096, "height": null, "mimeType": "image/png", "thumbnail": true})
    );
    assert_eq!(sent["legacyDocument"], json!(true));
    assert_eq!(sent["legacyDiagnosticsCount"], json!(10_000));
    // Only a thumbnail the panel marked as such is kept, and only small ones.
    let not_marked = local(json!({"role": "user", "sentAttachments": {"previews": [{"dataUrl": png}]}}));
    assert_eq!(
        not_marked.map(|m| m["sentAttachments"]["previews"][0]["omitted"].clone()),
        Ok(json!(true))
    );
    let huge = format!(
        "data:image/jpeg;base64,{}",
        "A".repeat(MAX_PERSISTED_PREVIEW_CHARS as usize)
    );
    let too_big = local(json!({"role": "user", "sentAttachments": {"previews": [
        {"dataUrl": huge, "thumbnail": true, "reason": "kept small"}]}}));
    assert_eq!(
        too_big.map(|m| m["sentAttachments"]["previews"][0].clone()),
        Ok(json!({"omitted": true, "reason": "kept small"}))
    );
    assert!(local(json!({"role": "user", "sentAttachments": []})).is_err());
    assert!(!is_allowed_image_data_url("data:image/svg+xml;base64,AAAA"));
    assert!(!is_allowed_image_data_url("data:image/png;base64,AA AA"));
    assert!(is_allowed_image_data_url("DATA:IMAGE/WEBP;BASE64,AAAA"));
}

#[test]
fn editor_state_updates_are_local_only_and_bounded() {
    let update = json!({"kind": "snapshot-restored", "snapshotId": "snapshot-one", "fileLabel": "main.typ",
        "restoredAt": 100});
    let message = json!({"role": "assistant", "content": "", "editorStateUpdates": [update, {"kind": "other"}]});
    let kept = local(message.clone())
        .map(|m| m["editorStateUpdates"].clone())
        .expect("valid");
    assert!(js::deep_equal(&kept, &json!([update])), "{kept}");
    let imported = normalize_message(&message, Origin::Imported, NOW).expect("valid");
    assert_eq!(imported.get("editorStateUpdates"), None);
    let many = vec![update; MAX_EDITOR_STATE_UPDATES + 1];
    assert!(local(json!({"role": "user", "editorStateUpdates": many})).is_err());
}

#[test]
fn active_editor_files_are_normalised_on_user_messages() {
    let message = json!({"role": "user", "content": "q", "activeEditorFile": {
        "projectLabel": "Project", "relativePath": "chapters/intro.typ", "basename": "intro.typ",
        "source": "header_breadcrumb", "confidence": "high"}});
    let out = local(message).expect("valid");
    assert_eq!(out["activeEditorFile"]["relativePath"], json!("chapters/intro.typ"));
    let bad = local(json!({"role": "user", "activeEditorFile": {"relativePath": "/etc/passwd"}}));
    assert_eq!(bad.map(|m| m.get("activeEditorFile").cloned()), Ok(None));
}

#[test]
fn imported_records_get_defaults_and_clean_ids() {
    let record = normalize_imported_record(
        &json!({"id": "bad id!", "projectId": 7, "messages": [], "createdAt": -1, "updatedAt": 5}),
        NOW,
    )
    .expect("valid");
    assert_eq!(record.id, "");
    assert_eq!(record.project_id, "7");
    assert_eq!(record.name, "Imported chat");
    assert_eq!((record.created_at, record.updated_at), (NOW, 5.0));
    assert!(normalize_imported_record(&json!({"messages": "bad"}), NOW).is_err());
    assert!(normalize_imported_record(&json!([]), NOW).is_err());
    let named = normalize_imported_record(&json!({"id": "ok-1", "name": "x".repeat(300), "messages": []}), NOW);
    assert_eq!(named.map(|r| (r.id, r.name.len())), Ok(("ok-1".to_owned(), 200)));
}
