//! Resolution of the five editor writes against an edit snapshot: exact
//! changes, fail-closed refusals with the original's codes, and the diff.

use super::*;
use content_bridge::context::EditorState;
use content_bridge::workspace::Workspace;
use protocol::diff_preview::DiffRowKind;
use protocol::edit_checkpoint::apply_text_changes;
use protocol::payloads::ContextProjection;
use serde_json::json;

fn snapshot(text: &str) -> EditSnapshot {
    EditSnapshot {
        text: text.to_owned(),
        editor_token: "editor-main".into(),
        document_token: None,
        cursor_pos: Some(0),
        selection_from: Some(0),
        selection_to: Some(0),
        file_label: "main.typ".into(),
    }
}

fn prepare(tool: &str, args: Value, snapshot: &EditSnapshot) -> Result<PreparedEdit, EditError> {
    let prepared = prepare_editor_edit(tool, &args, snapshot)?;
    if !prepared.no_changes {
        // The UTF-16 changes must produce exactly the proposed text, and
        // the preview must pass the wire validator.
        assert_eq!(
            apply_text_changes(&snapshot.text, &prepared.changes).as_deref(),
            Ok(prepared.proposed_text.as_str())
        );
        let preview = prepared.preview.as_ref().expect("a change has a preview");
        assert!(DiffPreview::is_valid(&preview.to_value()));
    }
    Ok(prepared)
}

fn result(tool: &str, args: Value, text: &str) -> String {
    prepare(tool, args, &snapshot(text))
        .expect("edit prepares")
        .proposed_text
}

fn code(tool: &str, args: Value, snapshot: &EditSnapshot) -> &'static str {
    match prepare_editor_edit(tool, &args, snapshot) {
        Ok(prepared) => panic!("expected a failure, got {prepared:?}"),
        Err(error) => error.code().as_str(),
    }
}

fn lines(start: u32, end: u32, content: &str) -> Value {
    json!({"start_line": start, "end_line": end, "new_content": content})
}

#[test]
fn replace_lines_resolves_a_change_and_its_diff() {
    let before = "= Title\nOld paragraph\nLast";
    let prepared = prepare("replace_lines", lines(2, 2, "New paragraph"), &snapshot(before)).expect("prepares");
    assert_eq!(prepared.proposed_text, "= Title\nNew paragraph\nLast");
    assert_eq!(
        prepared.changes,
        vec![TextChange {
            from: 8,
            to: 21,
            insert: "New paragraph".into()
        }]
    );
    let preview = prepared.preview.expect("preview");
    assert_eq!(preview.file_label, "main.typ");
    assert_eq!((preview.additions, preview.deletions), (1, 1));
    let rows: Vec<(DiffRowKind, &str)> = preview.hunks[0]
        .rows
        .iter()
        .map(|row| (row.kind, row.text.as_str()))
        .collect();
    assert_eq!(
        rows,
        vec![
            (DiffRowKind::Context, "= Title"),
            (DiffRowKind::Delete, "Old paragraph"),
            (DiffRowKind::Insert, "New paragraph"),
            (DiffRowKind::Context, "Last"),
        ]
    );
}

#[test]
fn empty_replace_lines_deletes_whole_lines_at_every_boundary() {
    for (before, start, end, expected) in [
        ("a\nb\nc", 1, 1, "b\nc"),
        ("a\nb\nc", 2, 2, "a\nc"),
        ("a\nb\nc", 3, 3, "a\nb"),
        ("a\nb\nc\nd", 2, 3, "a\nd"),
        ("only", 1, 1, ""),
        ("a\n", 2, 2, "a"),
        ("a\r\nb\r\nc", 2, 2, "a\r\nc"),
        ("a\r\nb\r\nc", 3, 3, "a\r\nb"),
        ("a\r\nb\r\nc", 1, 3, ""),
        ("a\n\n\nb", 2, 3, "a\nb"),
        ("a\nb\n", 3, 3, "a\nb"),
    ] {
        assert_eq!(
            result("replace_lines", lines(start, end, ""), before),
            expected,
            "{before:?} {start}-{end}"
        );
    }
}

#[test]
fn replace_lines_keeps_line_endings_and_handles_empty_lines() {
    assert_eq!(result("replace_lines", lines(2, 2, "B"), "a\r\nb\r\nc"), "a\r\nB\r\nc");
    assert_eq!(result("replace_lines", lines(3, 3, "C"), "a\r\nb\r\nc"), "a\r\nb\r\nC");
    // An empty line is a line: replacing it fills it.
    assert_eq!(result("replace_lines", lines(2, 2, "x"), "a\n\nb"), "a\nx\nb");
    // The empty line after a final newline is the last line.
    assert_eq!(result("replace_lines", lines(2, 2, "end"), "a\n"), "a\nend");
    // The last line has no newline: the replacement ends the document.
    assert_eq!(result("replace_lines", lines(2, 3, "x\ny"), "a\nb\nc"), "a\nx\ny");
    // A lone carriage return inside a line is content, not an ending.
    assert_eq!(result("replace_lines", lines(1, 1, "x"), "a\rb\nc"), "x\nc");
    // An empty document has one empty line.
    assert_eq!(result("replace_lines", lines(1, 1, "first"), ""), "first");
}

#[test]
fn replace_lines_rejects_bad_ranges_and_arguments() {
    let text = snapshot("a\nb\nc");
    assert_eq!(code("replace_lines", lines(0, 1, "x"), &text), "INVALID_EDIT_RANGE");
    assert_eq!(code("replace_lines", lines(3, 2, "x"), &text), "INVALID_EDIT_RANGE");
    assert_eq!(code("replace_lines", lines(4, 4, "x"), &text), "INVALID_EDIT_RANGE");
    assert_eq!(code("replace_lines", lines(2, 4, "x"), &text), "INVALID_EDIT_RANGE");
    assert_eq!(
        code(
            "replace_lines",
            json!({"start_line": 1e300, "end_line": 1e300, "new_content": ""}),
            &text
        ),
        "INVALID_EDIT_RANGE"
    );
    assert_eq!(
        code(
            "replace_lines",
            json!({"start_line": 1.5, "end_line": 2, "new_content": "x"}),
            &text
        ),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code(
            "replace_lines",
            json!({"start_line": "1", "end_line": 2, "new_content": "x"}),
            &text
        ),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code("replace_lines", json!({"start_line": 1, "end_line": 2}), &text),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code("replace_lines", json!("not an object"), &text),
        "INVALID_EDIT_ARGUMENTS"
    );
    // JSON `2.0` is an integer, as in JavaScript.
    assert_eq!(
        result(
            "replace_lines",
            json!({"start_line": 2.0, "end_line": 2.0, "new_content": "B"}),
            "a\nb\nc"
        ),
        "a\nB\nc"
    );
}

#[test]
fn offsets_are_utf16_units_around_astral_characters() {
    // "😀" is two UTF-16 units and four UTF-8 bytes.
    let text = "😀a\n😀b\nc😀";
    let prepared = prepare("replace_lines", lines(2, 2, "x"), &snapshot(text)).expect("prepares");
    assert_eq!((prepared.changes[0].from, prepared.changes[0].to), (4, 7));

    let prepared = prepare(
        "search_replace",
        json!({"search": "c", "replace": "C"}),
        &snapshot(text),
    )
    .expect("ok");
    assert_eq!((prepared.changes[0].from, prepared.changes[0].to), (8, 9));

    let prepared = prepare(
        "patch_document",
        json!({"edits": [{"search": "😀b", "replace": "B"}, {"search": "c😀", "replace": ""}]}),
        &snapshot(text),
    )
    .expect("prepares");
    let spans: Vec<(u64, u64)> = prepared.changes.iter().map(|c| (c.from, c.to)).collect();
    assert_eq!(spans, vec![(4, 7), (8, 11)]);
    assert_eq!(prepared.proposed_text, "😀a\nB\n");

    let mut at_cursor = snapshot(text);
    at_cursor.cursor_pos = Some(2);
    let prepared = prepare("insert_at_cursor", json!({"text": "|"}), &at_cursor).expect("prepares");
    assert_eq!(prepared.proposed_text, "😀|a\n😀b\nc😀");
    assert_eq!((prepared.changes[0].from, prepared.changes[0].to), (2, 2));

    // An offset between the two halves of a surrogate pair is no position.
    at_cursor.cursor_pos = Some(1);
    assert_eq!(
        code("insert_at_cursor", json!({"text": "|"}), &at_cursor),
        "EDIT_CONTEXT_UNAVAILABLE"
    );
}

#[test]
fn deletions_at_the_end_of_the_document() {
    assert_eq!(result("replace_lines", lines(2, 3, ""), "a\nb\nc"), "a");
    assert_eq!(
        result("search_replace", json!({"search": "\nc", "replace": ""}), "a\nb\nc"),
        "a\nb"
    );
    let prepared = prepare("replace_lines", lines(3, 3, ""), &snapshot("a\nb\nc😀")).expect("prepares");
    assert_eq!(
        prepared.changes,
        vec![TextChange {
            from: 3,
            to: 7,
            insert: String::new()
        }]
    );
    let mut selected = snapshot("ab😀");
    (selected.selection_from, selected.selection_to) = (Some(1), Some(4));
    assert_eq!(
        prepare("replace_selection", json!({"text": ""}), &selected)
            .expect("ok")
            .proposed_text,
        "a"
    );
}

#[test]
fn search_replace_changes_the_first_occurrence_only() {
    assert_eq!(
        result(
            "search_replace",
            json!({"search": "beta", "replace": "BETA"}),
            "alpha\nbeta\ngamma beta"
        ),
        "alpha\nBETA\ngamma beta"
    );
    let text = snapshot("alpha");
    assert_eq!(
        code("search_replace", json!({"search": "delta", "replace": "x"}), &text),
        "EDIT_TARGET_NOT_FOUND"
    );
    assert_eq!(
        code("search_replace", json!({"search": "", "replace": "x"}), &text),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code("search_replace", json!({"search": "alpha"}), &text),
        "INVALID_EDIT_ARGUMENTS"
    );
}

#[test]
fn patch_document_matches_the_original_text_and_sorts_its_changes() {
    let before = "alpha\nbeta\ngamma";
    let prepared = prepare(
        "patch_document",
        json!({"edits": [{"search": "gamma", "replace": "G"}, {"search": "alpha", "replace": "A"}]}),
        &snapshot(before),
    )
    .expect("prepares");
    assert_eq!(prepared.proposed_text, "A\nbeta\nG");
    assert!(prepared.changes[0].from < prepared.changes[1].from);

    // A later edit's search is looked up in the original text, not in
    // the text after the earlier edits.
    assert_eq!(
        result(
            "patch_document",
            json!({"edits": [{"search": "alpha", "replace": "beta"}, {"search": "beta", "replace": "B"}]}),
            before
        ),
        "beta\nB\ngamma"
    );
}

#[test]
fn ambiguous_overlapping_or_missing_patch_targets_change_nothing() {
    let same = snapshot("same same");
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "same", "replace": "x"}]}),
            &same
        ),
        "EDIT_TARGET_AMBIGUOUS"
    );
    // `unique: false` takes the first occurrence; only an exact `false`
    // turns the uniqueness check off.
    assert_eq!(
        prepare(
            "patch_document",
            json!({"edits": [{"search": "same", "replace": "x", "unique": false}]}),
            &same
        )
        .expect("prepares")
        .proposed_text,
        "x same"
    );
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "same", "replace": "x", "unique": null}]}),
            &same
        ),
        "EDIT_TARGET_AMBIGUOUS"
    );
    // The second occurrence is searched after the first one ends.
    assert_eq!(
        result(
            "patch_document",
            json!({"edits": [{"search": "aa", "replace": "b"}]}),
            "aaa"
        ),
        "ba"
    );

    let abcd = snapshot("abcd");
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "abc", "replace": "x"}, {"search": "bc", "replace": "y"}]}),
            &abcd
        ),
        "EDIT_RANGES_OVERLAP"
    );
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "ab", "replace": "x", "unique": false}, {"search": "ab", "replace": "y", "unique": false}]}),
            &abcd
        ),
        "EDIT_RANGES_OVERLAP"
    );
    // Touching ranges do not overlap.
    assert_eq!(
        result(
            "patch_document",
            json!({"edits": [{"search": "cd", "replace": "2"}, {"search": "ab", "replace": "1"}]}),
            "abcd"
        ),
        "12"
    );
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "ab", "replace": "x"}, {"search": "zz", "replace": "y"}]}),
            &abcd
        ),
        "EDIT_TARGET_NOT_FOUND"
    );
    assert_eq!(
        code("patch_document", json!({"edits": []}), &abcd),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code(
            "patch_document",
            json!({"edits": [{"search": "", "replace": "x"}]}),
            &abcd
        ),
        "INVALID_EDIT_ARGUMENTS"
    );
    assert_eq!(
        code("patch_document", json!({"edits": ["ab"]}), &abcd),
        "INVALID_EDIT_ARGUMENTS"
    );
}

#[test]
fn patch_document_accepts_128_edits_and_refuses_129() {
    let text: String = (0..129).map(|n| format!("w{n:03} ")).collect();
    let edits = |count: usize| -> Value {
        let list: Vec<Value> = (0..count)
            .map(|n| json!({"search": format!("w{n:03} "), "replace": format!("W{n} ")}))
            .collect();
        json!({ "edits": list })
    };
    let prepared = prepare("patch_document", edits(128), &snapshot(&text)).expect("128 edits prepare");
    assert_eq!(prepared.changes.len(), 128);
    assert_eq!(
        code("patch_document", edits(129), &snapshot(&text)),
        "EDIT_PREVIEW_TOO_LARGE"
    );
}

#[test]
fn cursor_and_selection_edits_use_the_snapshot_positions() {
    let before = "alpha\nbeta\ngamma";
    let mut at = snapshot(before);
    at.cursor_pos = Some(5);
    assert_eq!(
        prepare("insert_at_cursor", json!({"text": "!"}), &at)
            .expect("ok")
            .proposed_text,
        "alpha!\nbeta\ngamma"
    );
    at.cursor_pos = Some(16);
    assert_eq!(
        prepare("insert_at_cursor", json!({"text": "!"}), &at)
            .expect("ok")
            .proposed_text,
        "alpha\nbeta\ngamma!"
    );
    at.cursor_pos = Some(17);
    assert_eq!(
        code("insert_at_cursor", json!({"text": "!"}), &at),
        "EDIT_CONTEXT_UNAVAILABLE"
    );
    at.cursor_pos = None;
    assert_eq!(
        code("insert_at_cursor", json!({"text": "!"}), &at),
        "EDIT_CONTEXT_UNAVAILABLE"
    );
    at.cursor_pos = Some(0);
    assert_eq!(code("insert_at_cursor", json!({}), &at), "INVALID_EDIT_ARGUMENTS");

    let mut selected = snapshot(before);
    (selected.selection_from, selected.selection_to) = (Some(6), Some(10));
    assert_eq!(
        prepare("replace_selection", json!({"text": "B"}), &selected)
            .expect("ok")
            .proposed_text,
        "alpha\nB\ngamma"
    );
    for (from, to) in [
        (Some(6), Some(6)),
        (Some(10), Some(6)),
        (Some(6), Some(17)),
        (None, Some(3)),
    ] {
        (selected.selection_from, selected.selection_to) = (from, to);
        assert_eq!(
            code("replace_selection", json!({"text": "B"}), &selected),
            "EDIT_CONTEXT_UNAVAILABLE",
            "{from:?}..{to:?}"
        );
    }
    (selected.selection_from, selected.selection_to) = (Some(0), Some(16));
    assert_eq!(
        code("replace_selection", json!({"text": 1}), &selected),
        "INVALID_EDIT_ARGUMENTS"
    );
}

#[test]
fn edits_that_change_nothing_are_no_ops() {
    for (tool, args) in [
        ("search_replace", json!({"search": "same", "replace": "same"})),
        ("replace_lines", lines(1, 1, "same")),
        ("insert_at_cursor", json!({"text": ""})),
        ("patch_document", json!({"edits": [{"search": "am", "replace": "am"}]})),
    ] {
        let prepared = prepare(tool, args, &snapshot("same")).expect("prepares");
        assert!(prepared.no_changes, "{tool}");
        assert_eq!(prepared.preview, None);
        assert!(prepared.changes.is_empty());
        assert_eq!(prepared.proposed_text, "same");
    }
}

#[test]
fn unknown_tools_missing_identity_and_huge_documents_fail() {
    let text = snapshot("a");
    assert_eq!(code("read_document", json!({}), &text), "UNSUPPORTED_EDIT_TOOL");
    let mut anonymous = snapshot("a");
    anonymous.editor_token.clear();
    assert_eq!(
        code("search_replace", json!({"search": "a", "replace": "b"}), &anonymous),
        "EDIT_CONTEXT_UNAVAILABLE"
    );
    let huge = snapshot(&"x".repeat(MAX_EDIT_DOCUMENT_CHARS + 1));
    assert_eq!(
        code("insert_at_cursor", json!({"text": "y"}), &huge),
        "EDIT_PREVIEW_TOO_LARGE"
    );
    // Exactly at the limit is allowed (measured in UTF-16 units).
    // 10,000 lines of 100 units each, the last unit pair an astral character.
    let line = format!("{}😀\n", "x".repeat(97));
    let mut edge = snapshot(&line.repeat(MAX_EDIT_DOCUMENT_CHARS / 100));
    assert_eq!(js::utf16_len(&edge.text), MAX_EDIT_DOCUMENT_CHARS);
    edge.cursor_pos = Some(0);
    assert!(prepare("insert_at_cursor", json!({"text": "y"}), &edge).is_ok());
}

#[test]
fn too_many_changed_lines_are_refused() {
    let text = (1..=2_500).map(|n| format!("line {n}")).collect::<Vec<_>>().join("\n");
    // 1,000 removed + 1,000 inserted lines: exactly the limit.
    let replacement = vec!["new"; 1_000].join("\n");
    let at_limit = prepare("replace_lines", lines(1, 1_000, &replacement), &snapshot(&text));
    assert!(at_limit.is_ok());
    let replacement = vec!["new"; 1_001].join("\n");
    assert_eq!(
        code("replace_lines", lines(1, 1_000, &replacement), &snapshot(&text)),
        "EDIT_PREVIEW_TOO_LARGE"
    );
}

#[test]
fn the_preview_names_the_snapshot_file() {
    let mut labelled = snapshot("old");
    labelled.file_label = "references/ref.bib".into();
    let prepared = prepare("search_replace", json!({"search": "old", "replace": "new"}), &labelled).expect("ok");
    assert_eq!(
        prepared.preview.map(|p| p.file_label).as_deref(),
        Some("references/ref.bib")
    );
}

fn state(text: &str, token: &str) -> EditorState {
    let length = js::utf16_len(text) as u64;
    EditorState {
        editor_token: token.into(),
        document_token: Some("document-1".into()),
        doc_length: length,
        line_count: 1 + text.matches('\n').count() as u64,
        cursor_pos: 2,
        cursor_line: 1,
        cursor_column: 3,
        selection_from: 1,
        selection_to: 2,
        selected_text: "b".into(),
        selection_truncated: false,
    }
}

fn context(editor: EditorRead) -> PageContext {
    PageContext {
        projection: ContextProjection::Edit,
        editor,
        workspace: Workspace::interpret(Some(&json!({"active_editor_file": {
            "projectLabel": "Project", "relativePath": "chapters/intro.typ", "basename": "intro.typ",
            "source": "header_breadcrumb", "confidence": "high"
        }}))),
    }
}

#[test]
fn snapshots_come_from_a_whole_edit_context() {
    let read = EditorRead::Text {
        state: state("abc", "view-1"),
        text: "abc".into(),
        truncated: false,
    };
    let taken = EditSnapshot::from_context(&context(read)).expect("snapshot");
    assert_eq!(
        taken,
        EditSnapshot {
            text: "abc".into(),
            editor_token: "view-1".into(),
            document_token: Some("document-1".into()),
            cursor_pos: Some(2),
            selection_from: Some(1),
            selection_to: Some(2),
            file_label: "chapters/intro.typ".into(),
        }
    );
    assert_eq!(
        prepare("replace_selection", json!({"text": "B"}), &taken)
            .expect("ok")
            .proposed_text,
        "aBc"
    );

    let unavailable = |editor: EditorRead| EditSnapshot::from_context(&context(editor)).map_err(|e| e.code().as_str());
    assert_eq!(
        unavailable(EditorRead::Text {
            state: state("abc", ""),
            text: "abc".into(),
            truncated: false
        }),
        Err("EDIT_CONTEXT_UNAVAILABLE")
    );
    assert_eq!(
        unavailable(EditorRead::Text {
            state: state("abc", "view-1"),
            text: "abc".into(),
            truncated: true
        }),
        Err("EDIT_CONTEXT_UNAVAILABLE")
    );
    assert_eq!(unavailable(EditorRead::NotRequested), Err("EDIT_CONTEXT_UNAVAILABLE"));
    assert_eq!(
        unavailable(EditorRead::Unavailable {
            error: "No editor".into(),
            doc_length: None,
            line_count: None
        }),
        Err("EDIT_CONTEXT_UNAVAILABLE")
    );
    assert_eq!(
        unavailable(EditorRead::Unavailable {
            error: "Too large".into(),
            doc_length: Some(1_500_000),
            line_count: Some(10)
        }),
        Err("EDIT_PREVIEW_TOO_LARGE")
    );
    let big = "x".repeat(MAX_EDIT_DOCUMENT_CHARS + 1);
    assert_eq!(
        unavailable(EditorRead::Text {
            state: state(&big, "view-1"),
            text: big.clone(),
            truncated: false
        }),
        Err("EDIT_PREVIEW_TOO_LARGE")
    );
}
