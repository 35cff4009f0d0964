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
use std::rc::Rc;

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

/// The text of an earlier `edit` answer, named by the page's token of the
/// document object it was read from. A later `edit` read that names the
/// token (`knownDocumentToken`) is answered without `fullText` while the
/// editor still holds that object: CodeMirror's documents are immutable, so
/// the same object is the same text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownDocument {
    token: String,
    text: Rc<str>,
    /// The text's length in UTF-16 units, counted once.
    length: u64,
}

impl KnownDocument {
    /// The document of an `edit` answer that carried a token.
    pub fn of(context: &PageContext) -> Option<KnownDocument> {
        match (&context.projection, &context.editor) {
            (ContextProjection::Edit, EditorRead::Text { state, text, .. }) => {
                state.document_token.as_ref().map(|token| KnownDocument {
                    token: token.clone(),
                    text: Rc::from(text.as_str()),
                    length: state.doc_length,
                })
            }
            _ => None,
        }
    }

    /// The page's token of the document object.
    pub fn token(&self) -> &str {
        &self.token
    }
}

impl PageContext {
    /// Checks the page's `data` against the request it answers.
    pub fn parse(request: &ContextRequest, data: &Value) -> Result<PageContext, PageError> {
        PageContext::parse_known(request, data, None)
    }

    /// [`PageContext::parse`] for a request that may name `known`
    /// (`request.known_document_token` is its token): an `edit` answer
    /// without `fullText` must then carry that same token and the known
    /// text's length, and it stands for the known text. Without a named
    /// document, `fullText` is required as always.
    pub fn parse_known(
        request: &ContextRequest,
        data: &Value,
        known: Option<&KnownDocument>,
    ) -> Result<PageContext, PageError> {
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
        let known = known.filter(|known| request.known_document_token.as_deref() == Some(known.token()));
        let editor = editor_read(projection, request, &wire, known)?;
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
    known: Option<&KnownDocument>,
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
    let truncated = require(&wire.truncated, "truncated")?;
    let (text, length) = match (&wire.full_text, known) {
        (None, Some(known)) if projection == ContextProjection::Edit => {
            if state.document_token.as_deref() != Some(known.token()) {
                return Err(invalid(
                    "fullText is missing and documentToken is not the known document's",
                ));
            }
            (known.text.to_string(), known.length)
        }
        _ => {
            let text = require(&wire.full_text, "fullText")?;
            let length = js::utf16_len(&text) as u64;
            (text, length)
        }
    };
    let max = u64::from(limits::MAX_PAGE_DOCUMENT_CHARS);
    if length != state.doc_length.min(max) {
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
mod tests;
