//! Tests of `chat::labels`: every text a block shows, from well-formed and
//! odd JSON alike.

use super::*;
use serde_json::json;

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

#[test]
fn tool_labels_name_each_tool() {
    let none = Map::new();
    assert_eq!(tool_label("read_file_structure", &none), "Read file structure");
    assert_eq!(
        tool_label("open_project_file", &args(json!({"path": "ch/intro.typ"}))),
        "Open ch/intro.typ"
    );
    assert_eq!(tool_label("open_project_file", &none), "Open project file");
    assert_eq!(tool_label("read_document", &none), "Read document");
    assert_eq!(tool_label("read_diagnostics", &none), "Read diagnostics");
    assert_eq!(
        tool_label("read_typst_docs", &args(json!({"topic": "math"}))),
        "Read Typst docs: math"
    );
    assert_eq!(tool_label("read_typst_docs", &none), "Read Typst docs");
    assert_eq!(
        tool_label("replace_lines", &args(json!({"start_line": 3, "end_line": 5.0}))),
        "Replace lines 3–5"
    );
    let long = "a\nb".repeat(30);
    let label = tool_label("search_replace", &args(json!({ "search": long })));
    assert!(label.starts_with("Search & replace: \"a↵ba↵b"), "{label}");
    assert!(label.ends_with("…\""), "{label}");
    assert_eq!(
        tool_label("patch_document", &args(json!({"edits": [{}]}))),
        "Patch document (1 edit)"
    );
    assert_eq!(tool_label("patch_document", &none), "Patch document (0 edits)");
    assert_eq!(
        tool_label("mcp__github__search_issues", &none),
        "MCP: github / search_issues"
    );
    assert_eq!(tool_label("my_custom_tool", &none), "my_custom_tool");
}

#[test]
fn tool_details_describe_reads_and_show_other_arguments() {
    assert_eq!(
        tool_detail("read_document", &args(json!({"max_chars": 5000}))),
        "max_chars=5000"
    );
    assert_eq!(tool_detail("read_document", &Map::new()), "(default size)");
    assert!(tool_detail("read_diagnostics", &Map::new()).contains("750 ms"));
    assert!(tool_detail("open_project_file", &args(json!({"path": "a.typ"}))).contains("a.typ"));
    assert_eq!(
        tool_detail("search_replace", &args(json!({"search": "x", "replace": "y"}))),
        "- x\n+ y"
    );
    assert_eq!(
        tool_detail(
            "patch_document",
            &args(json!({"edits": [{"search": "a", "replace": "b"}, {"search": "c"}]}))
        ),
        "[1]\n- a\n+ b\n\n[2]\n- c\n+ "
    );
    assert_eq!(tool_detail("custom", &args(json!({"q": 1}))), "{\n  \"q\": 1\n}");
}

#[test]
fn read_document_results_show_size_and_truncation() {
    let summary = result_summary(
        "read_document",
        &json!({"ok": true, "doc_chars": 1234, "truncated": true}),
    );
    assert_eq!(
        summary.status,
        ToolStatus::new(StatusKind::Ok, "1234 chars (truncated)")
    );
    let summary = result_summary("read_document", &json!({"ok": true}));
    assert_eq!(summary.status.text, "? chars");
}

#[test]
fn diagnostics_results_count_by_kind_and_list_the_first_eight() {
    let diagnostics: Vec<Value> = (1..=10)
        .map(|i| json!({"severity": "error", "kind": "typst", "line": i, "column": 2, "message": format!("bad  thing\n{i}")}))
        .collect();
    let mut result = json!({"ok": true, "diagnostics": diagnostics, "error_count": 9, "warning_count": 0, "spelling_count": 1, "status_count": 0});
    let summary = result_summary("read_diagnostics", &result);
    assert_eq!(summary.status, ToolStatus::new(StatusKind::Ok, "9 err, 1 spell"));
    let detail = summary.detail.expect("detail");
    let lines: Vec<&str> = detail.lines().collect();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[0], "1. [ERROR] L1:2 bad thing 1");
    assert_eq!(lines[8], "... and 2 more");

    result["diagnostics"] = json!([
        {"severity": "warning", "kind": "spelling", "line": 4, "message": "teh"},
        {"severity": "info", "kind": "typst-status", "message": ""},
        {"line": "x"}
    ]);
    let summary = result_summary("read_diagnostics", &result);
    assert_eq!(
        summary.detail.as_deref(),
        Some("1. [SPELLING] L4 teh\n2. [STATUS] L? (no message)\n3. [INFO] L? (no message)")
    );
    result["error_count"] = json!(0);
    result["spelling_count"] = json!(0);
    assert_eq!(result_summary("read_diagnostics", &result).status.text, "3 diag");

    let clean = result_summary("read_diagnostics", &json!({"ok": true, "diagnostics": []}));
    assert_eq!(clean.status.text, "clean");
    assert_eq!(clean.detail.as_deref(), Some("No diagnostics."));
}

#[test]
fn structure_and_open_file_results_are_summarised() {
    let result = json!({"ok": true, "entries": [{"path": "a"}, {"path": "b"}], "complete": false});
    assert_eq!(
        result_summary("read_file_structure", &result).status.text,
        "2 entries, partial"
    );
    let result = json!({"ok": true, "entries": [{"path": "a"}], "complete": true});
    assert_eq!(result_summary("read_file_structure", &result).status.text, "1 entry");
    // Stored history keeps only a JSON summary for this tool.
    assert_eq!(
        result_summary("read_file_structure", &json!({"ok": true, "summary": "{}"}))
            .status
            .text,
        "done"
    );
    let opened = result_summary("open_project_file", &json!({"ok": true, "active_file": "ch/a.typ"}));
    assert_eq!(opened.status.text, "opened");
    assert!(opened.detail.expect("detail").contains("ch/a.typ"));
}

#[test]
fn failures_show_the_start_of_the_error() {
    let long = "x".repeat(80);
    let summary = result_summary("read_document", &json!({"ok": false, "error": long}));
    assert_eq!(summary.status.kind, StatusKind::Err);
    assert_eq!(summary.status.text.len(), 50);
    assert_eq!(
        result_summary("anything", &json!({})).status,
        ToolStatus::new(StatusKind::Err, "failed")
    );
    assert_eq!(result_summary("custom", &json!({"ok": true})).status.text, "done");
    assert_eq!(
        result_summary("patch_document", &json!({"ok": true, "edits_applied": 3}))
            .status
            .text,
        "3 applied"
    );
    assert_eq!(history_summary("read_document", None).status.text, "done");
}

#[test]
fn editor_write_results_show_applied_reviewed_and_no_change_states() {
    let receipt = json!({"id": "edit-1", "status": "applied", "fileLabel": "main.typ", "createdAt": 1});
    let reviewed = result_summary(
        "replace_lines",
        &json!({"ok": true, "edits_applied": 1, "reviewed_diff": true, "editCheckpoint": receipt}),
    );
    assert_eq!(reviewed.status.text, "applied · reviewed");
    assert_eq!(reviewed.detail, None);
    let auto = result_summary(
        "insert_at_cursor",
        &json!({"ok": true, "edits_applied": 1, "reviewed_diff": false, "warning": "Receipt not saved"}),
    );
    assert_eq!(auto.status.text, "applied");
    assert_eq!(auto.detail.as_deref(), Some("Receipt not saved"));
    let patch = result_summary(
        "patch_document",
        &json!({"ok": true, "edits_applied": 3, "reviewed_diff": true, "editCheckpoint": receipt}),
    );
    assert_eq!(patch.status.text, "3 edits applied · reviewed");
    let none = result_summary("search_replace", &json!({"ok": true, "no_changes": true}));
    assert_eq!(none.status.text, "no changes");
    assert!(none.detail.is_some());
    let stale = result_summary(
        "replace_selection",
        &json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "error": "The document changed before the edit could be applied."}),
    );
    assert_eq!(stale.status.kind, StatusKind::Err);
    assert_eq!(utf16_len(&stale.status.text), 50);
    // As stored: results without a receipt are JSON summaries.
    let stored_none = json!({"ok": true, "summary": "{\"ok\":true,\"no_changes\":true}"});
    assert_eq!(
        history_summary("search_replace", Some(&stored_none)).status.text,
        "no changes"
    );
    let stored_failure = json!({"ok": false, "summary": "{\"ok\":false,\"error\":\"Stale\"}"});
    assert_eq!(
        history_summary("replace_lines", Some(&stored_failure)).status.text,
        "Stale"
    );
    let cut = json!({"ok": true, "summary": "{\"ok\":true,\"no_chan…"});
    assert_eq!(history_summary("replace_lines", Some(&cut)).status.text, "done");
    let unrelated = json!({"ok": true, "summary": "{\"ok\":true,\"no_changes\":true}"});
    assert_eq!(history_summary("mcp__x__y", Some(&unrelated)).status.text, "done");
}

#[test]
fn preflight_banners_distinguish_files_from_page_capabilities() {
    let page = preflight_prompt(
        "read_diagnostics",
        &["editor".into(), "improvePanel".into()],
        "Open the panel.",
    );
    assert_eq!(page.status, ToolStatus::new(StatusKind::Waiting, "needs page…"));
    assert_eq!(page.requirement, "Missing: editor, improvePanel");
    assert_eq!(page.retry_label, "Retry now");
    assert_eq!(page.message, "Open the panel.");

    let file = preflight_prompt("read_document", &["Open file: main.typ".into()], "");
    assert_eq!(file.status.text, "return to file…");
    assert_eq!(file.requirement, "Required: main.typ");
    assert_eq!(file.retry_label, "Check again");
    assert!(!file.message.is_empty());

    let open = preflight_prompt("open_project_file", &["open file: ch/a.typ".into()], "hint");
    assert_eq!(open.status.text, "open file…");
    assert_eq!(preflight_prompt("x", &[], "h").requirement, "");
}

#[test]
fn reasoning_sizes_switch_to_thousands_above_1024() {
    assert_eq!(reasoning_meta(0), "");
    assert_eq!(reasoning_meta(7), "7 chars");
    assert_eq!(reasoning_meta(1024), "1024 chars");
    assert_eq!(reasoning_meta(1025), "1.0k chars");
    assert_eq!(reasoning_meta(1280), "1.3k chars", "a half rounds up");
    assert_eq!(reasoning_meta(10_342), "10.1k chars");
}

#[test]
fn user_messages_are_plain_text_with_attachment_pills() {
    let long = "word ".repeat(40);
    let message = json!({
        "role": "user",
        "content": "**not markdown** <b>",
        "sentAttachments": {
            "legacyDocument": true,
            "legacyDiagnosticsCount": 3,
            "selections": [{"text": long, "fileLabel": "main.typ"}, {"text": "  "}],
            "previews": [
                {"dataUrl": "data:image/png;base64,iVBORw0KGgo=", "thumbnail": true},
                {"omitted": true, "reason": "Too large."},
                {"dataUrl": "javascript:alert(1)"}
            ]
        }
    });
    let parts = user_message_parts(&message);
    assert_eq!(parts.text, "**not markdown** <b>");
    let pills: Vec<&str> = parts.pills.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(pills[0], "Full document");
    assert_eq!(pills[1], "Diagnostics (3)");
    assert!(
        pills[2].starts_with("Selection 1 · main.typ: word word"),
        "{}",
        pills[2]
    );
    assert!(pills[2].ends_with('…'));
    assert_eq!(pills[3], "Selection 2");
    assert_eq!(parts.previews.len(), 3);
    assert!(matches!(&parts.previews[0], SentPreview::Thumbnail { alt, .. } if alt == "Attached image 1"));
    assert_eq!(
        parts.previews[1],
        SentPreview::Omitted {
            text: "Preview 2 not retained".into(),
            reason: "Too large.".into()
        }
    );
    assert!(
        matches!(&parts.previews[2], SentPreview::Omitted { .. }),
        "unsafe URLs are never loaded"
    );
    assert_eq!(user_message_parts(&json!("plain")).text, "plain");
    assert_eq!(
        user_message_parts(&json!({"content": null})),
        UserMessageParts::default()
    );
}

#[test]
fn only_inline_raster_thumbnails_are_loaded() {
    assert!(is_thumbnail_data_url("data:image/webp;base64,UklGRg=="));
    assert!(!is_thumbnail_data_url("data:image/svg+xml;base64,PHN2Zz4="));
    assert!(!is_thumbnail_data_url("data:image/png;base64,"));
    assert!(!is_thumbnail_data_url("data:image/png;base64,abc\"onerror=x"));
    assert!(!is_thumbnail_data_url("https://remote.example/a.png"));
}

#[test]
fn submitted_choices_set_the_pill() {
    assert_eq!(
        approval_submitted_status(true, ApprovalAction::ApproveOnce).text,
        "applying…"
    );
    assert_eq!(approval_submitted_status(true, ApprovalAction::Deny).text, "rejected");
    assert_eq!(
        approval_submitted_status(false, ApprovalAction::AllowRun).text,
        "running…"
    );
    assert_eq!(
        approval_submitted_status(false, ApprovalAction::Deny).kind,
        StatusKind::Err
    );
}
