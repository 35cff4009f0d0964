//! `PAGE_GET_CONTEXT`: the editor state the page reports, checked against
//! the request that asked for it.
//!
//! The protocol crate checks each field's type and bound
//! ([`PageResponseData::parse`]). This module adds what only the pair of
//! request and answer can tell: which fields the projection must carry, that
//! offsets and counts agree with each other in UTF-16 code units, and that a
//! numbered range is exactly the lines asked for, in the numbering format the
//! model is told about. A page that answers otherwise is broken or hostile,
//! and its answer is refused as `INVALID_PAGE_RESPONSE` instead of reaching a
//! prompt or an edit.

use crate::request::PageError;
use crate::workspace::Workspace;
use protocol::MessageType;
use protocol::active_file::ActiveEditorFile;
use protocol::js;
use protocol::limits;
use protocol::page_response::{PageContext as WireContext, PageResponseData};
use protocol::payloads::{ContextProjection, ContextRequest};
use serde_json::Value;

/// The editor state common to `full`, `edit` and `numbered` answers. Offsets
/// and lengths are UTF-16 code units; lines and columns start at 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorState {
    /// Identifies the CodeMirror `EditorView`: a new view (another file was
    /// opened) has a new token.
    pub editor_token: String,
    /// Identifies the document object an `edit` answer's text was read from
    /// (a change, even back to the same text, makes a new one); absent in
    /// other answers and from pages that do not send it.
    pub document_token: Option<String>,
    /// The whole document's length.
    pub doc_length: u64,
    /// Lines of the whole document.
    pub line_count: u64,
    /// The main selection's head.
    pub cursor_pos: u64,
    /// The line of the head.
    pub cursor_line: u64,
    /// The head's column in its line.
    pub cursor_column: u64,
    /// Where the main selection starts.
    pub selection_from: u64,
    /// Where the main selection ends (equal to `selection_from` when empty).
    pub selection_to: u64,
    /// At most [`limits::MAX_PAGE_SELECTION_CHARS`] of the selection.
    pub selected_text: String,
    /// The selection was longer than `selected_text`.
    pub selection_truncated: bool,
}

impl EditorState {
    /// Whether the main selection covers any text.
    pub fn has_selection(&self) -> bool {
        self.selection_from < self.selection_to
    }
}

/// A `numbered` answer's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberedRange {
    /// `"<n>|<text>"` lines joined by `\n`, `n` right-aligned to the width of
    /// the document's last line number.
    pub text: String,
    /// The first line shown (the requested start, clamped to the document).
    pub start_line: u64,
    /// The last line shown (the one cut, if the first line alone was longer
    /// than the character budget).
    pub end_line: u64,
    /// The budget stopped the range before the requested end, or cut its
    /// only line.
    pub truncated: bool,
    /// Where the next page starts, when lines of the requested range remain.
    pub next_start_line: Option<u64>,
}

/// What the answer says about the editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditorRead {
    /// The `identity` projection reads no editor state.
    NotRequested,
    /// The page could not serve the projection: no editor was found, or the
    /// document is too large for an edit snapshot (then with its size).
    Unavailable {
        /// The page's reason.
        error: String,
        /// The document's length, when the page reported it.
        doc_length: Option<u64>,
        /// The document's line count, when the page reported it.
        line_count: Option<u64>,
    },
    /// `full` or `edit`: the document text. `truncated` is false for `edit`.
    Text {
        /// The editor around the text.
        state: EditorState,
        /// The document, whole unless `truncated`.
        text: String,
        /// The page cut the text at [`limits::MAX_PAGE_DOCUMENT_CHARS`].
        truncated: bool,
    },
    /// `numbered`: a range of numbered lines.
    Numbered {
        /// The editor around the range.
        state: EditorState,
        /// The lines.
        range: NumberedRange,
    },
}

/// A checked `PAGE_GET_CONTEXT` answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageContext {
    /// The projection that was asked for (`full` when the request named none).
    pub projection: ContextProjection,
    /// What the page read from the editor.
    pub editor: EditorRead,
    /// The layout hints around the editor, interpreted.
    pub workspace: Workspace,
}

impl PageContext {
    /// Checks the page's `data` against the request it answers.
    pub fn parse(request: &ContextRequest, data: &Value) -> Result<PageContext, PageError> {
        let wire = match PageResponseData::parse(MessageType::PageGetContext, data) {
            Ok(PageResponseData::Context(wire)) => *wire,
            Ok(_) => {
                return Err(PageError::invalid(
                    "The page answered a context request with other data.",
                ));
            }
            Err(error) => return Err(PageError::invalid(error.message)),
        };
        let projection = request.projection.unwrap_or(ContextProjection::Full);
        let workspace = Workspace::interpret(wire.workspace.as_ref());
        let editor = editor_read(projection, request, &wire)?;
        Ok(PageContext {
            projection,
            editor,
            workspace,
        })
    }

    /// The page's reason for not serving the editor state.
    pub fn error(&self) -> Option<&str> {
        match &self.editor {
            EditorRead::Unavailable { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The editor state of a `full`, `edit` or `numbered` answer.
    pub fn state(&self) -> Option<&EditorState> {
        match &self.editor {
            EditorRead::Text { state, .. } | EditorRead::Numbered { state, .. } => Some(state),
            _ => None,
        }
    }

    /// The document text of a `full` or `edit` answer.
    pub fn text(&self) -> Option<&str> {
        match &self.editor {
            EditorRead::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The lines of a `numbered` answer.
    pub fn numbered(&self) -> Option<&NumberedRange> {
        match &self.editor {
            EditorRead::Numbered { range, .. } => Some(range),
            _ => None,
        }
    }

    /// The focused file, when the layout named one that normalises.
    pub fn active_file(&self) -> Option<&ActiveEditorFile> {
        self.workspace.active_file.as_ref()
    }

    /// See [`Workspace::file_label`].
    pub fn file_label(&self) -> String {
        self.workspace.file_label()
    }
}

fn invalid(why: &str) -> PageError {
    PageError::invalid(format!("The page's editor context is inconsistent: {why}."))
}

fn require<T: Clone>(value: &Option<T>, name: &str) -> Result<T, PageError> {
    value.clone().ok_or_else(|| invalid(&format!("{name} is missing")))
}

fn clamp(value: u64, low: u64, high: u64) -> u64 {
    value.max(low).min(high)
}

const STATE_FIELDS: [&str; 10] = [
    "cursorPos",
    "cursorLine",
    "cursorColumn",
    "selectedText",
    "selectionTruncated",
    "selectionFrom",
    "selectionTo",
    "docLength",
    "lineCount",
    "editorToken",
];

/// Which wire fields carry a value (absent and `null` are the same).
fn present(wire: &WireContext) -> Vec<&'static str> {
    let flags = [
        ("error", wire.error.is_some()),
        ("fullText", wire.full_text.is_some()),
        ("numberedDocument", wire.numbered_document.is_some()),
        ("cursorPos", wire.cursor_pos.is_some()),
        ("cursorLine", wire.cursor_line.is_some()),
        ("cursorColumn", wire.cursor_column.is_some()),
        ("selectedText", wire.selected_text.is_some()),
        ("selectionFrom", wire.selection_from.is_some()),
        ("selectionTo", wire.selection_to.is_some()),
        ("docLength", wire.doc_length.is_some()),
        ("lineCount", wire.line_count.is_some()),
        ("editorToken", wire.editor_token.is_some()),
        ("documentToken", wire.document_token.is_some()),
        ("truncated", wire.truncated.is_some()),
        ("selectionTruncated", wire.selection_truncated.is_some()),
        ("startLine", wire.start_line.is_some()),
        ("endLine", wire.end_line.is_some()),
        ("nextStartLine", wire.next_start_line.is_some()),
    ];
    flags.iter().filter(|(_, set)| *set).map(|(name, _)| *name).collect()
}

fn only_fields(wire: &WireContext, allowed: &[&str]) -> Result<(), PageError> {
    match present(wire).into_iter().find(|field| !allowed.contains(field)) {
        Some(field) => Err(invalid(&format!("{field} does not belong to this answer"))),
        None => Ok(()),
    }
}

fn editor_read(
    projection: ContextProjection,
    request: &ContextRequest,
    wire: &WireContext,
) -> Result<EditorRead, PageError> {
    if projection == ContextProjection::Identity {
        only_fields(wire, &[])?;
        return Ok(EditorRead::NotRequested);
    }
    if let Some(error) = &wire.error {
        if !js::is_non_blank(error) {
            return Err(invalid("error is blank"));
        }
        only_fields(wire, &["error", "docLength", "lineCount"])?;
        return Ok(EditorRead::Unavailable {
            error: error.clone(),
            doc_length: wire.doc_length,
            line_count: wire.line_count,
        });
    }
    let state = editor_state(wire)?;
    if projection == ContextProjection::Numbered {
        let mut allowed = STATE_FIELDS.to_vec();
        allowed.extend(["numberedDocument", "startLine", "endLine", "truncated", "nextStartLine"]);
        only_fields(wire, &allowed)?;
        let range = numbered_range(request, wire, &state)?;
        return Ok(EditorRead::Numbered { state, range });
    }
    let mut allowed = STATE_FIELDS.to_vec();
    allowed.extend(["fullText", "truncated"]);
    if projection == ContextProjection::Edit {
        allowed.push("documentToken");
    }
    only_fields(wire, &allowed)?;
    let text = require(&wire.full_text, "fullText")?;
    let truncated = require(&wire.truncated, "truncated")?;
    let max = u64::from(limits::MAX_PAGE_DOCUMENT_CHARS);
    if js::utf16_len(&text) as u64 != state.doc_length.min(max) {
        return Err(invalid("fullText does not have docLength characters"));
    }
    if truncated != (state.doc_length > max) {
        return Err(invalid("truncated does not match docLength"));
    }
    if projection == ContextProjection::Edit && truncated {
        return Err(invalid("an edit snapshot must hold the whole document"));
    }
    Ok(EditorRead::Text { state, text, truncated })
}

fn editor_state(wire: &WireContext) -> Result<EditorState, PageError> {
    let state = EditorState {
        editor_token: require(&wire.editor_token, "editorToken")?,
        document_token: wire.document_token.clone(),
        doc_length: require(&wire.doc_length, "docLength")?,
        line_count: require(&wire.line_count, "lineCount")?,
        cursor_pos: require(&wire.cursor_pos, "cursorPos")?,
        cursor_line: require(&wire.cursor_line, "cursorLine")?,
        cursor_column: require(&wire.cursor_column, "cursorColumn")?,
        selection_from: require(&wire.selection_from, "selectionFrom")?,
        selection_to: require(&wire.selection_to, "selectionTo")?,
        selected_text: require(&wire.selected_text, "selectedText")?,
        selection_truncated: require(&wire.selection_truncated, "selectionTruncated")?,
    };
    // Every line but the last ends in a line break, so a document of n
    // characters has at most n + 1 lines.
    if state.line_count == 0 || state.line_count > state.doc_length.saturating_add(1) {
        return Err(invalid("lineCount does not fit docLength"));
    }
    if state.selection_from > state.selection_to || state.selection_to > state.doc_length {
        return Err(invalid("the selection lies outside the document"));
    }
    if state.cursor_pos != state.selection_from && state.cursor_pos != state.selection_to {
        return Err(invalid("the cursor is not an end of the selection"));
    }
    if !(1..=state.line_count).contains(&state.cursor_line)
        || state.cursor_column == 0
        || state.cursor_column - 1 > state.cursor_pos
    {
        return Err(invalid("the cursor's line or column is out of range"));
    }
    let selected = state.selection_to - state.selection_from;
    let max = u64::from(limits::MAX_PAGE_SELECTION_CHARS);
    if js::utf16_len(&state.selected_text) as u64 != selected.min(max) || state.selection_truncated != (selected > max)
    {
        return Err(invalid("selectedText does not match the selection"));
    }
    Ok(state)
}

/// The prefix of line `number` in a document of `line_count` lines.
pub fn line_prefix(number: u64, line_count: u64) -> String {
    let width = line_count.max(1).to_string().len();
    format!("{number:>width$}|")
}

fn numbered_range(
    request: &ContextRequest,
    wire: &WireContext,
    state: &EditorState,
) -> Result<NumberedRange, PageError> {
    let range = NumberedRange {
        text: require(&wire.numbered_document, "numberedDocument")?,
        start_line: require(&wire.start_line, "startLine")?,
        end_line: require(&wire.end_line, "endLine")?,
        truncated: require(&wire.truncated, "truncated")?,
        next_start_line: wire.next_start_line,
    };
    let lines = state.line_count;
    let start = clamp(request.start_line.unwrap_or(1), 1, lines);
    let requested_end = clamp(request.end_line.unwrap_or(lines), start, lines);
    let budget = clamp(
        request.max_chars.unwrap_or(u64::from(limits::DEFAULT_READ_DOC_CHARS)),
        1,
        u64::from(limits::MAX_CONTEXT_REQUEST_CHARS),
    );
    if range.start_line != start {
        return Err(invalid("startLine is not the requested line"));
    }
    if range.end_line < start || range.end_line > requested_end {
        return Err(invalid("endLine is outside the requested range"));
    }
    if js::utf16_len(&range.text) as u64 > budget {
        return Err(invalid("numberedDocument exceeds maxChars"));
    }
    if !range.truncated && range.end_line != requested_end {
        return Err(invalid("an untruncated range must reach the requested end"));
    }
    let expected_next = (range.truncated && range.end_line < requested_end).then(|| range.end_line + 1);
    if range.next_start_line != expected_next {
        return Err(invalid("nextStartLine does not follow endLine"));
    }
    let shown: Vec<&str> = range.text.split('\n').collect();
    if shown.len() as u64 != range.end_line - start + 1 {
        return Err(invalid("numberedDocument does not hold one line per number"));
    }
    // Only a first line longer than the whole budget is cut, and then to
    // exactly the budget.
    let cut = range.truncated && shown.len() == 1 && js::utf16_len(&range.text) as u64 == budget;
    if range.truncated && range.end_line == requested_end && !cut {
        return Err(invalid("a truncated range must stop early or cut its only line"));
    }
    for (number, line) in (start..).zip(&shown) {
        let prefix = line_prefix(number, lines);
        if !(line.starts_with(&prefix) || (cut && prefix.starts_with(line))) {
            return Err(invalid(&format!("line {number} is not numbered as \"{prefix}\"")));
        }
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(projection: &str, start: Option<u64>, end: Option<u64>, max: Option<u64>) -> ContextRequest {
        ContextRequest {
            tab_id: None,
            projection: serde_json::from_value(json!(projection)).ok(),
            start_line: start,
            end_line: end,
            max_chars: max,
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

    #[test]
    fn prefixes_pad_to_the_widest_line_number() {
        assert_eq!(line_prefix(3, 9), "3|");
        assert_eq!(line_prefix(3, 10), " 3|");
        assert_eq!(line_prefix(120, 1_000), " 120|");
    }
}
