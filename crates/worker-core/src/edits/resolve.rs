//! Resolving one editor-write tool call against one editor snapshot.
//!
//! The model speaks in lines, search strings, the cursor and the selection;
//! the page applies absolute changes. This module turns the first into the
//! second without touching the page: every tool is resolved against the same
//! immutable [`EditSnapshot`], the changes are sorted and checked for overlap
//! (so a `patch_document` applies all of its edits or none), the proposed
//! text is computed, and the change is bounded and previewed as a unified
//! diff. Offsets are UTF-16 code units, as CodeMirror counts them; internally
//! the work is done on byte offsets of the Rust string and converted once.
//!
//! The order in which several calls of one round run is decided elsewhere
//! (`tools::plan`); each call here sees the document as it is when it runs.

use super::diff::unified_diff;
use super::error::{EditError, EditErrorCode};
use content_bridge::context::{EditorRead, PageContext};
use protocol::diff_preview::DiffPreview;
use protocol::edit_checkpoint::{TextChange, is_edit_checkpoint_tool_name};
use protocol::js;
use protocol::limits;
use serde_json::{Map, Value};

/// Most edits one `patch_document` call (and so one prepared edit) may hold.
const MAX_EDIT_CHANGES: usize = limits::MAX_PREPARED_CHANGES as usize;
/// Most lines an edit may remove plus insert, counted over its changes.
const MAX_CHANGED_LINES: usize = 2_000;
/// Largest document an edit is prepared for, in UTF-16 units.
const MAX_EDIT_DOCUMENT_CHARS: usize = limits::MAX_EDITOR_TRANSACTION_CHARS as usize;

/// The live editor as one `edit` projection saw it. Offsets are UTF-16 code
/// units of `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditSnapshot {
    /// The whole document.
    pub(crate) text: String,
    /// The CodeMirror view the text came from; the commit refuses another.
    pub(crate) editor_token: String,
    /// The page's token of the document object the text came from, when it
    /// sent one: the preview names the text by it instead of sending it back.
    pub(crate) document_token: Option<String>,
    /// The main selection's head.
    pub(crate) cursor_pos: Option<u32>,
    pub(crate) selection_from: Option<u32>,
    pub(crate) selection_to: Option<u32>,
    /// The focused file's project-relative path, or the page's best hint.
    pub(crate) file_label: String,
}

impl EditSnapshot {
    /// Takes the snapshot from a checked `PAGE_GET_CONTEXT` answer. Only an
    /// answer with the whole document and an editor token will do; a
    /// document over [`MAX_EDIT_DOCUMENT_CHARS`] is refused here so the page
    /// is never asked to apply a transaction that large.
    pub(crate) fn from_context(context: &PageContext) -> Result<EditSnapshot, EditError> {
        let (state, text) = match &context.editor {
            EditorRead::Text {
                state,
                text,
                truncated: false,
            } => (state, text),
            EditorRead::Text { truncated: true, .. } => {
                return Err(unavailable(
                    "The page sent only part of the document, so no edit can be prepared.",
                ));
            }
            EditorRead::Unavailable { error, doc_length, .. } => {
                if let Some(length) = doc_length.filter(|length| *length > MAX_EDIT_DOCUMENT_CHARS as u64) {
                    return Err(document_too_large(length));
                }
                return Err(unavailable(format!(
                    "The live Typst document could not be read for editing: {error}"
                )));
            }
            EditorRead::NotRequested | EditorRead::Numbered { .. } => {
                return Err(unavailable(
                    "The page did not send the whole document, so no edit can be prepared.",
                ));
            }
        };
        if state.editor_token.is_empty() {
            return Err(missing_token());
        }
        let length = js::utf16_len(text);
        if length > MAX_EDIT_DOCUMENT_CHARS {
            return Err(document_too_large(length as u64));
        }
        Ok(EditSnapshot {
            text: text.clone(),
            editor_token: state.editor_token.clone(),
            document_token: state.document_token.clone(),
            cursor_pos: u32::try_from(state.cursor_pos).ok(),
            selection_from: u32::try_from(state.selection_from).ok(),
            selection_to: u32::try_from(state.selection_to).ok(),
            file_label: context.file_label(),
        })
    }
}

/// A resolved edit, ready for review and for the page's guarded commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreparedEdit {
    /// Sorted, non-overlapping changes in UTF-16 offsets of the snapshot
    /// text; at most [`MAX_EDIT_CHANGES`]. Empty when `no_changes`.
    pub(crate) changes: Vec<TextChange>,
    /// The document after the changes (equal to the snapshot when
    /// `no_changes`).
    pub(crate) proposed_text: String,
    /// The diff to review; `None` exactly when `no_changes`.
    pub(crate) preview: Option<DiffPreview>,
    /// The edit would leave the document as it is: the caller answers
    /// `{ok:true, no_changes:true}` with no review and no page write.
    pub(crate) no_changes: bool,
}

fn unavailable(message: impl Into<String>) -> EditError {
    EditError::new(EditErrorCode::EditContextUnavailable, message)
}

fn missing_token() -> EditError {
    unavailable("The live Typst editor could not be identified. Reload the extension and try again.")
}

fn document_too_large(length: u64) -> EditError {
    EditError::new(
        EditErrorCode::EditPreviewTooLarge,
        format!("The document is too large to edit safely ({length} characters; limit {MAX_EDIT_DOCUMENT_CHARS})."),
    )
}

fn arguments(message: impl Into<String>) -> EditError {
    EditError::new(EditErrorCode::InvalidEditArguments, message)
}

fn range_error(message: impl Into<String>) -> EditError {
    EditError::new(EditErrorCode::InvalidEditRange, message)
}

/// A change in byte offsets of the snapshot text (always on char
/// boundaries).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ByteChange {
    from: usize,
    to: usize,
    insert: String,
}

/// A string argument, `None` when absent or not a string.
fn string_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// An integer argument as JavaScript sees it (`1.0` counts).
fn integer_arg(args: &Map<String, Value>, key: &str) -> Option<f64> {
    args.get(key)
        .filter(|value| js::is_integer(value))
        .and_then(js::as_number)
}

/// Byte span of line `number` (1-based) without its line ending, which is
/// `\n` or `\r\n`; `None` past the last line.
fn line_span(text: &str, number: u64) -> Option<(usize, usize)> {
    let from = if number <= 1 {
        0
    } else {
        let skip = usize::try_from(number - 2).ok()?;
        text.match_indices('\n').nth(skip).map(|(index, _)| index + 1)?
    };
    let rest = text.get(from..)?;
    let to = match rest.find('\n') {
        None => text.len(),
        Some(offset) => {
            let newline = from + offset;
            if newline > from && text.as_bytes().get(newline - 1) == Some(&b'\r') {
                newline - 1
            } else {
                newline
            }
        }
    };
    Some((from, to))
}

/// Length of the line ending that starts at `offset`.
fn ending_at(text: &str, offset: usize) -> usize {
    match text.as_bytes().get(offset..) {
        Some([b'\r', b'\n', ..]) => 2,
        Some([b'\n', ..]) => 1,
        _ => 0,
    }
}

/// Length of the line ending that ends at `offset`.
fn ending_before(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    if offset == 0 || bytes.get(offset - 1) != Some(&b'\n') {
        return 0;
    }
    if offset > 1 && bytes.get(offset - 2) == Some(&b'\r') {
        2
    } else {
        1
    }
}

fn resolve_replace_lines(args: &Map<String, Value>, text: &str) -> Result<Vec<ByteChange>, EditError> {
    let (Some(start), Some(end)) = (integer_arg(args, "start_line"), integer_arg(args, "end_line")) else {
        return Err(arguments("replace_lines needs whole-number start_line and end_line."));
    };
    let Some(content) = string_arg(args, "new_content") else {
        return Err(arguments("replace_lines needs new_content as a string."));
    };
    if start < 1.0 || end < start {
        return Err(range_error(format!(
            "The line range {}-{} is not valid: lines start at 1 and end_line may not come before start_line.",
            js::number_to_string(start),
            js::number_to_string(end)
        )));
    }
    let line = |number: f64| line_span(text, number as u64);
    let (Some((mut from, _)), Some((_, mut to))) = (line(start), line(end)) else {
        let missing = if line(start).is_none() { start } else { end };
        return Err(range_error(format!(
            "Line {} is past the end of the document.",
            js::number_to_string(missing)
        )));
    };
    if content.is_empty() {
        // Deleting lines removes them physically: the line ending after the
        // range goes with them, or, for the last line, the one before it.
        let following = ending_at(text, to);
        if following > 0 {
            to += following;
        } else {
            from -= ending_before(text, from);
        }
    }
    Ok(vec![ByteChange {
        from,
        to,
        insert: content.to_owned(),
    }])
}

fn resolve_search_replace(args: &Map<String, Value>, text: &str) -> Result<Vec<ByteChange>, EditError> {
    let search = string_arg(args, "search").filter(|search| !search.is_empty());
    let Some(search) = search else {
        return Err(arguments("search_replace needs a non-empty search string."));
    };
    let Some(replace) = string_arg(args, "replace") else {
        return Err(arguments("search_replace needs replace as a string."));
    };
    let Some(from) = text.find(search) else {
        return Err(EditError::new(
            EditErrorCode::EditTargetNotFound,
            "The search string does not occur in the document.",
        ));
    };
    Ok(vec![ByteChange {
        from,
        to: from + search.len(),
        insert: replace.to_owned(),
    }])
}

fn resolve_patch(args: &Map<String, Value>, text: &str) -> Result<Vec<ByteChange>, EditError> {
    let edits = args
        .get("edits")
        .and_then(Value::as_array)
        .filter(|edits| !edits.is_empty());
    let Some(edits) = edits else {
        return Err(arguments("patch_document needs a non-empty edits list."));
    };
    if edits.len() > MAX_EDIT_CHANGES {
        return Err(EditError::new(
            EditErrorCode::EditPreviewTooLarge,
            format!(
                "patch_document accepts at most {MAX_EDIT_CHANGES} edits per call ({} given).",
                edits.len()
            ),
        ));
    }
    let empty = Map::new();
    let mut changes = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let number = index + 1;
        let edit = edit.as_object().unwrap_or(&empty);
        let search = string_arg(edit, "search").filter(|search| !search.is_empty());
        let Some(search) = search else {
            return Err(arguments(format!("Edit #{number} needs a non-empty search string.")));
        };
        let Some(replace) = string_arg(edit, "replace") else {
            return Err(arguments(format!("Edit #{number} needs replace as a string.")));
        };
        // Every edit is matched against the original text, never against
        // the result of the edits before it.
        let Some(from) = text.find(search) else {
            return Err(EditError::new(
                EditErrorCode::EditTargetNotFound,
                format!("Edit #{number}: the search string does not occur in the document."),
            ));
        };
        let to = from + search.len();
        let must_be_unique = edit.get("unique") != Some(&Value::Bool(false));
        if must_be_unique && text.get(to..).is_some_and(|rest| rest.contains(search)) {
            return Err(EditError::new(
                EditErrorCode::EditTargetAmbiguous,
                format!(
                    "Edit #{number}: the search string occurs more than once; include more surrounding text, or set unique to false to change the first occurrence."
                ),
            ));
        }
        changes.push(ByteChange {
            from,
            to,
            insert: replace.to_owned(),
        });
    }
    Ok(changes)
}

/// Byte offset of a UTF-16 offset that lies within the text and on a
/// character boundary.
fn offset_in(text: &str, offset: Option<u32>) -> Option<usize> {
    js::utf16_offset_to_byte(text, usize::try_from(offset?).ok()?)
}

fn resolve_cursor(args: &Map<String, Value>, snapshot: &EditSnapshot) -> Result<Vec<ByteChange>, EditError> {
    let Some(insert) = string_arg(args, "text") else {
        return Err(arguments("insert_at_cursor needs text as a string."));
    };
    let Some(at) = offset_in(&snapshot.text, snapshot.cursor_pos) else {
        return Err(unavailable("The editor's cursor position is not known."));
    };
    Ok(vec![ByteChange {
        from: at,
        to: at,
        insert: insert.to_owned(),
    }])
}

fn resolve_selection(args: &Map<String, Value>, snapshot: &EditSnapshot) -> Result<Vec<ByteChange>, EditError> {
    let Some(insert) = string_arg(args, "text") else {
        return Err(arguments("replace_selection needs text as a string."));
    };
    let from = offset_in(&snapshot.text, snapshot.selection_from);
    let to = offset_in(&snapshot.text, snapshot.selection_to);
    match (from, to) {
        (Some(from), Some(to)) if from < to => Ok(vec![ByteChange {
            from,
            to,
            insert: insert.to_owned(),
        }]),
        _ => Err(unavailable(
            "Nothing is selected in the editor, so there is no selection to replace.",
        )),
    }
}

/// Sorts the changes and checks that they form one valid change list.
fn normalize(mut changes: Vec<ByteChange>, text: &str) -> Result<Vec<ByteChange>, EditError> {
    if changes.is_empty() || changes.len() > MAX_EDIT_CHANGES {
        return Err(EditError::new(
            EditErrorCode::InvalidEditChanges,
            format!(
                "An edit must hold 1 to {MAX_EDIT_CHANGES} changes ({} resolved).",
                changes.len()
            ),
        ));
    }
    protocol::js::sort_by(&mut changes, |a, b| a.from.cmp(&b.from).then(a.to.cmp(&b.to)));
    let mut previous_end = 0;
    for (index, change) in changes.iter().enumerate() {
        let number = index + 1;
        let in_text = change.from <= change.to
            && change.to <= text.len()
            && text.is_char_boundary(change.from)
            && text.is_char_boundary(change.to);
        if !in_text {
            return Err(EditError::new(
                EditErrorCode::InvalidEditChanges,
                format!("Change #{number} does not lie within the document."),
            ));
        }
        if index > 0 && change.from < previous_end {
            return Err(EditError::new(
                EditErrorCode::EditRangesOverlap,
                format!("Change #{number} overlaps an earlier change; each edit must touch different text."),
            ));
        }
        previous_end = change.to;
    }
    Ok(changes)
}

/// The text with sorted, non-overlapping, in-bounds changes applied.
fn apply(text: &str, changes: &[ByteChange]) -> String {
    let mut output = String::with_capacity(text.len());
    let mut cursor = 0;
    for change in changes {
        output.push_str(text.get(cursor..change.from).unwrap_or_default());
        output.push_str(&change.insert);
        cursor = change.to;
    }
    output.push_str(text.get(cursor..).unwrap_or_default());
    output
}

/// `0` for empty text, else one more than its `\n` count.
fn line_count(text: &str) -> usize {
    if text.is_empty() {
        0
    } else {
        1 + text.matches('\n').count()
    }
}

/// Converts sorted changes to UTF-16 offsets in one pass over the text.
fn to_utf16(text: &str, changes: Vec<ByteChange>) -> Vec<TextChange> {
    let mut byte = 0;
    let mut units = 0u64;
    let mut advance = |to: usize| {
        units += text.get(byte..to).map_or(0, js::utf16_len) as u64;
        byte = to;
        units
    };
    changes
        .into_iter()
        .map(|change| TextChange {
            from: advance(change.from),
            to: advance(change.to),
            insert: change.insert,
        })
        .collect()
}

/// Resolves an editor-write call (`args` already checked against the tool's
/// schema, but every field is checked again here) into bounded changes of
/// `snapshot.text`, the proposed text and its diff preview.
pub(crate) fn prepare_editor_edit(
    tool_name: &str,
    args: &Value,
    snapshot: &EditSnapshot,
) -> Result<PreparedEdit, EditError> {
    if !is_edit_checkpoint_tool_name(tool_name) {
        return Err(EditError::new(
            EditErrorCode::UnsupportedEditTool,
            format!("{tool_name} is not an editor edit tool."),
        ));
    }
    if snapshot.editor_token.is_empty() {
        return Err(missing_token());
    }
    let text = snapshot.text.as_str();
    let length = js::utf16_len(text);
    if length > MAX_EDIT_DOCUMENT_CHARS {
        return Err(document_too_large(length as u64));
    }
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    let resolved = match tool_name {
        "replace_lines" => resolve_replace_lines(args, text)?,
        "search_replace" => resolve_search_replace(args, text)?,
        "patch_document" => resolve_patch(args, text)?,
        "insert_at_cursor" => resolve_cursor(args, snapshot)?,
        "replace_selection" => resolve_selection(args, snapshot)?,
        _ => {
            return Err(EditError::new(
                EditErrorCode::UnsupportedEditTool,
                format!("{tool_name} is not an editor edit tool."),
            ));
        }
    };
    let changes = normalize(resolved, text)?;
    let proposed_text = apply(text, &changes);
    if proposed_text == text {
        return Ok(PreparedEdit {
            changes: Vec::new(),
            proposed_text,
            preview: None,
            no_changes: true,
        });
    }
    let changed_lines: usize = changes
        .iter()
        .map(|change| line_count(text.get(change.from..change.to).unwrap_or_default()) + line_count(&change.insert))
        .sum();
    if changed_lines > MAX_CHANGED_LINES {
        return Err(EditError::new(
            EditErrorCode::EditPreviewTooLarge,
            format!(
                "The edit changes too many lines to review safely ({changed_lines}; limit {MAX_CHANGED_LINES}). Split it into smaller edits."
            ),
        ));
    }
    let preview = unified_diff(text, &proposed_text, &snapshot.file_label)?;
    Ok(PreparedEdit {
        changes: to_utf16(text, changes),
        proposed_text,
        preview,
        no_changes: false,
    })
}

#[cfg(test)]
mod tests;
