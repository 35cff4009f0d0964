//! `PAGE_GET_CONTEXT` answers checked against their requests, on the
//! fixture document the browser tests use.

use super::*;
use serde_json::json;

fn request(projection: &str, start: Option<u64>, end: Option<u64>, max: Option<u64>) -> ContextRequest {
    ContextRequest {
        tab_id: None,
        projection: serde_json::from_value(json!(projection)).ok(),
        start_line: start,
        end_line: end,
        max_chars: max,
        known_document_token: None,
    }
}

/// The fixture document (tests/fixtures/editor/main.js), and the page's
/// answers computed the way main.js computes them.
const DOC: [&str; 9] = [
    "= Harness Thesis",
    "#set page(paper: \"a4\", margin: 2cm)",
    "We cite @knuth and call #undefined-thing here.",
    "Grüße aus Köln – naïve café, 日本語のテキスト.",
    "Astral: $𝔸 subset.eq 𝔹$ and a smile 🙂.",
    "",
    "== Method",
    "#include \"chapters/intro.typ\"",
    "#lorem(20)",
];

fn utf16(text: &str) -> u64 {
    js::utf16_len(text) as u64
}

fn common(selection: (u64, u64), head: u64) -> Value {
    let text = DOC.join("\n");
    let mut before = 0u64;
    let mut line = 1u64;
    for (index, row) in DOC.iter().enumerate() {
        let end = before + utf16(row);
        if head <= end {
            line = index as u64 + 1;
            break;
        }
        before = end + 1;
    }
    let units: Vec<u16> = text.encode_utf16().collect();
    let selected = String::from_utf16_lossy(units.get(selection.0 as usize..selection.1 as usize).unwrap_or(&[]));
    json!({
        "cursorPos": head, "cursorLine": line, "cursorColumn": head - before + 1,
        "selectedText": selected, "selectionTruncated": false,
        "selectionFrom": selection.0, "selectionTo": selection.1,
        "docLength": utf16(&text), "lineCount": DOC.len(), "editorToken": "token-1",
        "workspace": {"active_editor_file": {"relativePath": "main.typ", "source": "header_breadcrumb", "confidence": "high"}}
    })
}

fn with(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
        base.extend(extra.clone());
    }
    base
}

fn numbered_text(from: usize, to: usize) -> String {
    (from..=to)
        .map(|n| format!("{}{}", line_prefix(n as u64, 9), DOC[n - 1]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn full_answer_with_an_astral_selection_counts_utf16_units() {
    // Line 5 starts after lines 1–4 and their breaks; "𝔸" is two units.
    let start: u64 = DOC[..4].iter().map(|l| utf16(l) + 1).sum();
    let end = start + utf16(DOC[4]);
    let data = with(
        common((start, end), end),
        json!({"fullText": DOC.join("\n"), "truncated": false}),
    );
    let context = PageContext::parse(&request("full", None, None, None), &data);
    let context = context.expect("the fixture's full answer is valid");
    let state = context.state().cloned().expect("state");
    assert_eq!((state.cursor_line, state.cursor_column), (5, utf16(DOC[4]) + 1));
    assert_eq!(state.selected_text, DOC[4]);
    assert!(state.has_selection());
    assert_eq!(context.text().map(str::len), Some(DOC.join("\n").len()));
    assert_eq!(context.file_label(), "main.typ");
}

#[test]
fn numbered_answers_follow_the_requested_range_and_format() {
    let data = with(
        common((0, 0), 0),
        json!({"numberedDocument": numbered_text(3, 5), "startLine": 3, "endLine": 5, "truncated": false}),
    );
    let context = PageContext::parse(&request("numbered", Some(3), Some(5), Some(200)), &data);
    assert_eq!(context.map(|c| c.numbered().map(|r| r.end_line)), Ok(Some(5)));

    // A budget that stops after line 4: truncated, continue at 5.
    let text = numbered_text(3, 4);
    let budget = utf16(&text) + 3;
    let data = with(
        common((0, 0), 0),
        json!({"numberedDocument": text, "startLine": 3, "endLine": 4, "truncated": true, "nextStartLine": 5}),
    );
    let range =
        PageContext::parse(&request("numbered", Some(3), None, Some(budget)), &data).map(|c| c.numbered().cloned());
    assert_eq!(range.map(|r| r.and_then(|r| r.next_start_line)), Ok(Some(5)));

    // maxChars 1: only the first character of "1|= Harness Thesis".
    let data = with(
        common((0, 0), 0),
        json!({"numberedDocument": "1", "startLine": 1, "endLine": 1, "truncated": true}),
    );
    assert!(PageContext::parse(&request("numbered", Some(1), Some(1), Some(1)), &data).is_ok());
}

#[test]
fn numbered_answers_that_lie_are_refused() {
    let good = json!({"numberedDocument": numbered_text(3, 5), "startLine": 3, "endLine": 5, "truncated": false});
    let cases = [
        json!({"startLine": 2}),
        json!({"endLine": 4}),
        json!({"truncated": true}),
        json!({"nextStartLine": 6}),
        json!({"numberedDocument": numbered_text(3, 5).replace("3|", "3:")}),
        json!({"numberedDocument": numbered_text(3, 4)}),
        json!({"fullText": "x"}),
        json!({"numberedDocument": null}),
    ];
    for case in cases {
        let data = with(with(common((0, 0), 0), good.clone()), case.clone());
        let result = PageContext::parse(&request("numbered", Some(3), Some(5), None), &data);
        assert_eq!(
            result.map_err(|e| e.code),
            Err("INVALID_PAGE_RESPONSE".to_owned()),
            "{case}"
        );
    }
    let long = with(with(common((0, 0), 0), good), json!({}));
    let small_budget = PageContext::parse(&request("numbered", Some(3), Some(5), Some(20)), &long);
    assert!(small_budget.is_err());
}

#[test]
fn inconsistent_editor_state_is_refused() {
    let full = json!({"fullText": DOC.join("\n"), "truncated": false});
    let cases = [
        json!({"cursorPos": 5}),
        json!({"selectionFrom": 4, "selectionTo": 2}),
        json!({"selectionTo": 10_000}),
        json!({"cursorLine": 10}),
        json!({"cursorColumn": 0}),
        json!({"lineCount": 0}),
        json!({"selectedText": "x"}),
        json!({"selectionTruncated": true}),
        json!({"docLength": 5}),
        json!({"editorToken": null}),
        json!({"fullText": "short"}),
        json!({"truncated": true}),
    ];
    for case in cases {
        let data = with(with(common((0, 0), 0), full.clone()), case.clone());
        let result = PageContext::parse(&request("full", None, None, None), &data);
        assert_eq!(
            result.map_err(|e| e.code),
            Err("INVALID_PAGE_RESPONSE".to_owned()),
            "{case}"
        );
    }
}

#[test]
fn identity_and_unavailable_answers() {
    let identity = json!({"workspace": {"files_panel_open": true}});
    let context = PageContext::parse(&request("identity", None, None, None), &identity);
    assert_eq!(
        context.map(|c| (c.editor, c.workspace.files_panel_open)),
        Ok((EditorRead::NotRequested, true))
    );
    let leaked = json!({"workspace": {}, "fullText": "secret"});
    assert!(PageContext::parse(&request("identity", None, None, None), &leaked).is_err());

    let missing = json!({"error": "EditorView not found", "workspace": null});
    let context = PageContext::parse(&request("numbered", None, None, None), &missing);
    assert_eq!(
        context.as_ref().ok().and_then(PageContext::error),
        Some("EditorView not found")
    );
    assert_eq!(context.map(|c| c.file_label()), Ok("Current Typst document".to_owned()));

    let too_large = json!({"error": "The document exceeds the 1048576-character safe edit limit.",
        "docLength": 2_000_000, "lineCount": 10});
    let edit = PageContext::parse(&request("edit", None, None, None), &too_large).map(|c| c.editor);
    assert!(matches!(
        edit,
        Ok(EditorRead::Unavailable {
            doc_length: Some(2_000_000),
            ..
        })
    ));
    let mixed = json!({"error": "x", "fullText": "y"});
    assert!(PageContext::parse(&request("full", None, None, None), &mixed).is_err());
    assert!(PageContext::parse(&request("full", None, None, None), &json!({"error": " "})).is_err());
}

#[test]
fn edit_snapshots_must_be_whole_and_full_reads_may_be_cut() {
    let long = "a".repeat(limits::MAX_PAGE_DOCUMENT_CHARS as usize);
    let base = json!({
        "cursorPos": 0, "cursorLine": 1, "cursorColumn": 1, "selectedText": "", "selectionTruncated": false,
        "selectionFrom": 0, "selectionTo": 0, "docLength": 1_100_000, "lineCount": 1, "editorToken": "t",
        "fullText": long, "truncated": true
    });
    assert!(PageContext::parse(&request("full", None, None, None), &base).is_ok());
    assert!(PageContext::parse(&request("edit", None, None, None), &base).is_err());
}

#[test]
fn only_an_edit_answer_carries_a_document_token() {
    let text = json!({"fullText": DOC.join("\n"), "truncated": false});
    let token = json!({"documentToken": "document-1"});
    let edit = PageContext::parse(
        &request("edit", None, None, None),
        &with(with(common((0, 0), 0), text.clone()), token.clone()),
    );
    let state = edit.ok().and_then(|context| context.state().cloned());
    assert_eq!(
        state.and_then(|state| state.document_token).as_deref(),
        Some("document-1")
    );
    let untokened = PageContext::parse(
        &request("edit", None, None, None),
        &with(common((0, 0), 0), text.clone()),
    );
    assert_eq!(
        untokened
            .ok()
            .and_then(|context| context.state().cloned())
            .map(|state| state.document_token),
        Some(None),
        "a page without tokens still serves edits"
    );
    let full = with(with(common((0, 0), 0), text), token.clone());
    assert!(PageContext::parse(&request("full", None, None, None), &full).is_err());
    let numbered = with(
        with(common((0, 0), 0), token),
        json!({"numberedDocument": numbered_text(1, 9), "startLine": 1, "endLine": 9, "truncated": false}),
    );
    assert!(PageContext::parse(&request("numbered", Some(1), Some(9), None), &numbered).is_err());
    for bad in [json!(""), json!("x".repeat(201)), json!(7)] {
        let data = with(
            with(
                common((0, 0), 0),
                json!({"fullText": DOC.join("\n"), "truncated": false}),
            ),
            json!({ "documentToken": bad }),
        );
        assert!(
            PageContext::parse(&request("edit", None, None, None), &data).is_err(),
            "{bad}"
        );
    }
}

fn edit_request(known: Option<&str>) -> ContextRequest {
    ContextRequest {
        known_document_token: known.map(str::to_owned),
        ..request("edit", None, None, None)
    }
}

/// The fixture document as an earlier `edit` read under `token`.
fn known_document(token: &str) -> KnownDocument {
    let data = with(
        with(
            common((0, 0), 0),
            json!({"fullText": DOC.join("\n"), "truncated": false}),
        ),
        json!({ "documentToken": token }),
    );
    let context = PageContext::parse(&edit_request(None), &data);
    let known = context.ok().as_ref().and_then(KnownDocument::of);
    known.unwrap_or_else(|| panic!("the fixture's edit read names its document"))
}

#[test]
fn an_edit_read_of_the_known_document_may_leave_its_text_out() {
    let known = known_document("document-1");
    let without_text = |token: &str| {
        with(
            with(common((0, 0), 0), json!({"truncated": false})),
            json!({ "documentToken": token }),
        )
    };
    let text_of = |request: &ContextRequest, data: &Value, known: Option<&KnownDocument>| {
        PageContext::parse_known(request, data, known).map(|context| context.text().map(str::to_owned))
    };
    // (request names, known given, the answer's token, the text expected)
    let cases: [(Option<&str>, bool, &str, Option<String>); 5] = [
        (Some("document-1"), true, "document-1", Some(DOC.join("\n"))),
        (Some("document-1"), true, "document-2", None),
        (None, true, "document-1", None),
        (Some("document-1"), false, "document-1", None),
        (Some("document-2"), true, "document-2", None),
    ];
    for (named, given, answered, expected) in cases {
        let result = text_of(&edit_request(named), &without_text(answered), given.then_some(&known));
        assert_eq!(result.ok().flatten(), expected, "{named:?} {given} {answered}");
    }
    // A known document serves only an edit read.
    let full = with(common((0, 0), 0), json!({"truncated": false}));
    assert!(text_of(&request("full", None, None, None), &full, Some(&known)).is_err());
    // Its length must still be the editor's.
    let mut shorter = without_text("document-1");
    shorter["docLength"] = json!(3);
    assert!(text_of(&edit_request(Some("document-1")), &shorter, Some(&known)).is_err());
    // A page that sends the text anyway is read as always.
    let changed = "= Another text";
    let mut sent = with(
        without_text("document-3"),
        json!({"fullText": changed, "docLength": utf16(changed), "lineCount": 1}),
    );
    sent["documentToken"] = json!("document-3");
    assert_eq!(
        text_of(&edit_request(Some("document-1")), &sent, Some(&known))
            .ok()
            .flatten()
            .as_deref(),
        Some(changed)
    );
}

#[test]
fn only_a_tokened_edit_read_is_a_known_document() {
    assert_eq!(known_document("document-1").token(), "document-1");
    let untokened = with(
        common((0, 0), 0),
        json!({"fullText": DOC.join("\n"), "truncated": false}),
    );
    for (request, data) in [
        (edit_request(None), untokened.clone()),
        (request("full", None, None, None), untokened),
    ] {
        let context = PageContext::parse(&request, &data);
        assert!(context.is_ok());
        assert_eq!(context.ok().as_ref().and_then(KnownDocument::of), None);
    }
}

#[test]
fn prefixes_pad_to_the_widest_line_number() {
    assert_eq!(line_prefix(3, 9), "3|");
    assert_eq!(line_prefix(3, 10), " 3|");
    assert_eq!(line_prefix(120, 1_000), " 120|");
}
