//! Tests of the edit requests: payload checks and every answer shape.

use super::*;
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffPreviewKind, DiffRow};
use protocol::edit_checkpoint::TextChange;
use protocol::payloads::ExpectedDocument;
use serde_json::json;

fn change(from: u64, to: u64, insert: &str) -> TextChange {
    TextChange {
        from,
        to,
        insert: insert.to_owned(),
    }
}

fn row(kind: DiffRowKind, old_line: Option<u64>, new_line: Option<u64>, text: &str) -> DiffRow {
    DiffRow {
        kind,
        old_line,
        new_line,
        text: text.to_owned(),
    }
}

/// One hunk replacing line 2 of "a\nb\nc" by "B", as the worker builds it.
fn preview() -> DiffPreview {
    DiffPreview {
        kind: DiffPreviewKind::UnifiedDiff,
        file_label: "main.typ".to_owned(),
        additions: 1,
        deletions: 1,
        hunks: vec![DiffHunk {
            old_start: 1,
            old_lines: 3,
            new_start: 1,
            new_lines: 3,
            rows: vec![
                row(DiffRowKind::Context, Some(1), Some(1), "a"),
                row(DiffRowKind::Delete, Some(2), None, "b"),
                row(DiffRowKind::Insert, None, Some(2), "B"),
                row(DiffRowKind::Context, Some(3), Some(3), "c"),
            ],
        }],
    }
}

fn show_request() -> PageShowEditPreview {
    PageShowEditPreview {
        expected: ExpectedDocument::Text {
            text: "a\nb\nc".to_owned(),
        },
        expected_editor_token: "token-1".to_owned(),
        expected_file_label: "main.typ".to_owned(),
        changes: vec![change(2, 3, "B")],
        call_id: "call-1".to_owned(),
        preview: preview(),
    }
}

fn apply_request(reviewed_diff: bool) -> PageApplyEdit {
    PageApplyEdit {
        expected_text: "a\nb\nc".to_owned(),
        expected_editor_token: "token-1".to_owned(),
        expected_file_label: "main.typ".to_owned(),
        changes: vec![change(2, 3, "B")],
        call_id: "call-1".to_owned(),
        reviewed_diff,
    }
}

fn drawn() -> Value {
    json!({"result": {"ok": true, "shown": true, "presentation": "editor-diff-surface", "changes_previewed": 1,
        "additions_rendered": 1, "deletions_rendered": 1, "truncated": false}})
}

fn code_of<T: std::fmt::Debug>(result: Result<T, PageEditError>) -> String {
    match result {
        Ok(value) => format!("ok: {value:?}"),
        Err(error) => error.code().to_owned(),
    }
}

#[test]
fn payloads_are_the_wire_shape_and_pass_the_protocol_rules() {
    let show = show_payload(&show_request()).map(Value::Object);
    assert_eq!(
        show,
        Ok(
            json!({"expectedText": "a\nb\nc", "expectedEditorToken": "token-1", "expectedFileLabel": "main.typ",
            "changes": [{"from": 2, "to": 3, "insert": "B"}], "callId": "call-1", "preview": preview().to_value()})
        )
    );
    let by_token = PageShowEditPreview {
        expected: ExpectedDocument::Token {
            token: "document-1".to_owned(),
            length: 5,
        },
        ..show_request()
    };
    assert_eq!(
        show_payload(&by_token).map(Value::Object),
        Ok(json!({"expectedDocumentToken": "document-1", "expectedTextLength": 5,
            "expectedEditorToken": "token-1", "expectedFileLabel": "main.typ",
            "changes": [{"from": 2, "to": 3, "insert": "B"}], "callId": "call-1", "preview": preview().to_value()}))
    );
    let short = PageShowEditPreview {
        expected: ExpectedDocument::Token {
            token: "document-1".to_owned(),
            length: 2,
        },
        ..show_request()
    };
    assert_eq!(
        code_of(show_payload(&short)),
        INVALID_PREPARED_EDIT,
        "a change past the named length"
    );
    let apply = apply_payload(&apply_request(true)).map(|map| map.get("reviewedDiff").cloned());
    assert_eq!(apply, Ok(Some(json!(true))));
    assert_eq!(
        clear_payload("call-1").map(Value::Object),
        Ok(json!({"callId": "call-1"}))
    );
}

#[test]
fn bad_requests_are_refused_before_any_page_sees_them() {
    let mut past_end = apply_request(false);
    past_end.changes = vec![change(2, 9, "")];
    let mut overlapping = apply_request(false);
    overlapping.changes = vec![change(0, 3, "x"), change(2, 4, "y")];
    let mut none = apply_request(false);
    none.changes.clear();
    let mut too_many = apply_request(false);
    too_many.changes = (0..129).map(|_| change(0, 0, "")).collect();
    let mut too_much = apply_request(false);
    too_much.changes = vec![change(0, 0, &"x".repeat(1_000_001))];
    let mut blank_token = apply_request(false);
    blank_token.expected_editor_token = " ".to_owned();
    for request in [past_end, overlapping, none, too_many, too_much, blank_token] {
        assert_eq!(
            code_of(apply_payload(&request)),
            INVALID_PREPARED_EDIT,
            "{:?}",
            request.changes.len()
        );
    }
    let mut no_rows = show_request();
    no_rows.preview.hunks.clear();
    assert_eq!(code_of(show_payload(&no_rows)), INVALID_PREPARED_EDIT);
    assert_eq!(code_of(clear_payload(" ")), INVALID_CALL_ID);
    assert_eq!(code_of(check_run_id("")), INVALID_RUN_ID);
    assert_eq!(code_of(check_run_id(&"r".repeat(201))), INVALID_RUN_ID);
    assert_eq!(check_run_id("run-1"), Ok(()));
}

#[test]
fn a_drawn_preview_is_read_with_its_counts() {
    let outcome = parse_show_answer(&show_request(), &drawn());
    assert_eq!(
        outcome,
        Ok(PreviewOutcome::Drawn(PreviewDrawn {
            shown: true,
            changes_previewed: 1,
            additions_rendered: 1,
            deletions_rendered: 1,
            truncated: false,
            warning: None
        }))
    );
    assert!(outcome.as_ref().is_ok_and(PreviewOutcome::shown));
    let unavailable = json!({"result": {"ok": true, "shown": false, "warning": "Drawing failed: no body."}});
    let outcome = parse_show_answer(&show_request(), &unavailable);
    assert_eq!(
        outcome.as_ref().map(PreviewOutcome::warning),
        Ok(Some("Drawing failed: no body."))
    );
    assert_eq!(outcome.map(|o| o.shown()), Ok(false));
}

#[test]
fn a_truncated_drawing_is_accepted_only_for_a_diff_longer_than_the_page_draws() {
    let mut request = show_request();
    let rows: Vec<DiffRow> = (1..=2_500)
        .map(|n| row(DiffRowKind::Insert, None, Some(n), "x"))
        .collect();
    request.preview.hunks[0].rows = rows;
    request.preview.additions = 2_500;
    request.preview.deletions = 0;
    let truncated = json!({"result": {"ok": true, "shown": true, "presentation": "editor-diff-surface",
        "changes_previewed": 1, "additions_rendered": 2000, "deletions_rendered": 0, "truncated": true,
        "warning": "Only part of the proposal is drawn here."}});
    assert!(matches!(
        parse_show_answer(&request, &truncated),
        Ok(PreviewOutcome::Drawn(PreviewDrawn {
            truncated: true,
            additions_rendered: 2000,
            ..
        }))
    ));
    // The short diff cannot be truncated, and a truncation needs its warning.
    assert_eq!(
        code_of(parse_show_answer(&show_request(), &truncated)),
        "INVALID_PAGE_RESPONSE"
    );
    let mut silent = truncated.clone();
    silent["result"].as_object_mut().map(|r| r.remove("warning"));
    assert_eq!(code_of(parse_show_answer(&request, &silent)), "INVALID_PAGE_RESPONSE");
}

#[test]
fn show_answers_that_do_not_fit_the_request_are_invalid() {
    type Mutation = Box<dyn Fn(&mut Value)>;
    let cases: Vec<Mutation> = vec![
        Box::new(|v| v["result"]["changes_previewed"] = json!(2)),
        Box::new(|v| v["result"]["additions_rendered"] = json!(2)),
        Box::new(|v| v["result"]["deletions_rendered"] = json!(0)),
        Box::new(|v| v["result"]["shown"] = json!(false)),
        Box::new(|v| v["result"]["presentation"] = json!("inline-decorations")),
        Box::new(|v| v["result"]["script"] = json!("alert(1)")),
        Box::new(|v| v["result"]["warning"] = json!("x".repeat(501))),
        Box::new(|v| v["result"]["truncated"] = json!("no")),
        Box::new(|v| v["result"]["ok"] = json!(1)),
        Box::new(|v| v["extra"] = json!(1)),
        Box::new(|v| *v = json!({"result": {"ok": true, "shown": true, "warning": "w"}})),
        Box::new(|v| *v = json!({"result": {"ok": true, "shown": false}})),
    ];
    for (index, case) in cases.iter().enumerate() {
        let mut data = drawn();
        case(&mut data);
        assert_eq!(
            code_of(parse_show_answer(&show_request(), &data)),
            "INVALID_PAGE_RESPONSE",
            "case {index}"
        );
    }
}

#[test]
fn refusals_keep_their_code_and_stale_reason() {
    for reason in ["file", "editor", "document"] {
        let data = json!({"result": {"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": reason,
            "error": "The editor changed."}});
        let error = parse_apply_answer(&apply_request(true), &data).err();
        assert_eq!(error.as_ref().map(PageEditError::code), Some(STALE_EDIT_PREVIEW));
        assert_eq!(
            error.and_then(|e| e.stale_reason()).map(StaleReason::as_str),
            Some(reason)
        );
    }
    for code in [
        EDITOR_UNAVAILABLE,
        EDIT_PREVIEW_BUSY,
        INVALID_PREPARED_EDIT,
        EDIT_FILE_UNKNOWN,
    ] {
        let data = json!({"result": {"ok": false, "code": code, "error": "No."}});
        let error = parse_show_answer(&show_request(), &data).err();
        assert!(matches!(&error, Some(PageEditError::Refused(r)) if r.code() == code && r.message() == "No."));
        assert_eq!(error.and_then(|e| e.stale_reason()), None);
    }
}

#[test]
fn malformed_refusals_are_invalid_answers_not_refusals() {
    for result in [
        json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "error": "no reason"}),
        json!({"ok": false, "code": "STALE_EDIT_PREVIEW", "staleReason": "weather", "error": "x"}),
        json!({"ok": false, "code": "EDIT_PREVIEW_BUSY", "staleReason": "file", "error": "x"}),
        json!({"ok": false, "code": "PAGE_DECIDED_OTHERWISE", "error": "x"}),
        json!({"ok": false, "code": "EDITOR_UNAVAILABLE", "error": " "}),
        json!({"ok": false, "code": "EDITOR_UNAVAILABLE", "error": "x", "hint": "y"}),
    ] {
        let data = json!({ "result": result });
        assert!(
            matches!(parse_apply_answer(&apply_request(false), &data), Err(PageEditError::Page(ref e)) if e.code == "INVALID_PAGE_RESPONSE"),
            "{data}"
        );
    }
}

#[test]
fn an_apply_receipt_must_echo_the_request() {
    let receipt = json!({"result": {"ok": true, "edits_applied": 1, "reviewed_diff": true}});
    assert_eq!(
        parse_apply_answer(&apply_request(true), &receipt),
        Ok(EditApplied {
            edits_applied: 1,
            reviewed_diff: true
        })
    );
    // Claimed review of an unreviewed edit, wrong count, extra field.
    assert_eq!(
        code_of(parse_apply_answer(&apply_request(false), &receipt)),
        "INVALID_PAGE_RESPONSE"
    );
    for result in [
        json!({"ok": true, "edits_applied": 2, "reviewed_diff": true}),
        json!({"ok": true, "edits_applied": 1, "reviewed_diff": true, "text": "x"}),
        json!({"ok": true, "edits_applied": 1}),
    ] {
        let data = json!({ "result": result });
        assert_eq!(
            code_of(parse_apply_answer(&apply_request(true), &data)),
            "INVALID_PAGE_RESPONSE"
        );
    }
    assert_eq!(
        code_of(parse_apply_answer(&apply_request(true), &json!({"receipt": {}}))),
        "INVALID_PAGE_RESPONSE"
    );
}

#[test]
fn clear_answers_say_whether_a_preview_was_removed() {
    assert_eq!(
        parse_clear_answer(&json!({"result": {"ok": true, "cleared": true}})),
        Ok(true)
    );
    assert_eq!(
        parse_clear_answer(&json!({"result": {"ok": true, "cleared": false}})),
        Ok(false)
    );
    for data in [
        json!({"result": {"ok": true}}),
        json!({"result": {"ok": false, "cleared": false}}),
        json!({"result": {"ok": true, "cleared": true, "x": 1}}),
        json!({"cleared": true}),
    ] {
        assert_eq!(
            parse_clear_answer(&data).map_err(|e| e.code),
            Err("INVALID_PAGE_RESPONSE".to_owned()),
            "{data}"
        );
    }
}
