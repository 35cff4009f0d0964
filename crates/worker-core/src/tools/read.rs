//! The read tools: `read_document`, `read_diagnostics`,
//! `read_file_structure`, `open_project_file` and `read_typst_docs`.
//!
//! They only read: the page answers through the run's guarded page access
//! ([`crate::tools::page`], checked by `content-bridge` before anything here
//! sees it), and every result is a JSON object for the model. Page failures
//! become `{ok:false, code, error}` results the model can react to instead
//! of ending the run; only Stop ends it. Dispatch has already checked that
//! the originating tab still shows the URL the run started on.

use crate::cancel::Cancelled;
use crate::page_client::file_identity_request;
use crate::platform::{Clock, Platform};
use crate::runs::{CallInfo, RunContext, ToolOutput, tool_failure};
use crate::tools::page::{current_file_text, message_file_context, page_context, page_diagnostics, page_failure};
use crate::tools::preflight::{Check, WaitKind, wait_until};
use crate::typst_reference;
use content_bridge::context::PageContext;
use content_bridge::diagnostics::PageDiagnostics;
use content_bridge::workspace::{FileStructure, Incompleteness};
use protocol::ErrorCode;
use protocol::active_file::{ActiveEditorFile, normalize_project_relative_path};
use protocol::js;
use protocol::limits::{
    DEFAULT_READ_DOC_CHARS, DIAGNOSTICS_SETTLE_DELAY_MS, DIAGNOSTICS_STABILITY_INTERVAL_MS,
    DIAGNOSTICS_STABILITY_MAX_READS, MAX_READ_DOC_TOOL_CHARS,
};
use protocol::payloads::{ContextProjection, ContextRequest};
use serde_json::{Map, Value, json};

/// The smallest `max_chars` a document read uses, whatever the model asks.
const MIN_READ_DOC_CHARS: u32 = 4_000;

/// Runs a built-in read tool; arguments are already validated.
pub(crate) async fn run_read_tool<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    match call.name {
        "read_typst_docs" => Ok(read_typst_docs(args)),
        "read_document" => read_document(run, call, args).await,
        "read_diagnostics" => read_diagnostics(run).await,
        "read_file_structure" => read_file_structure(run, call).await,
        "open_project_file" => open_project_file(run, call, args).await,
        other => Ok(tool_failure(ErrorCode::UnknownTool, format!("Unknown tool: {other}"))),
    }
}

// ----- read_document -----

fn integer_arg(args: &Map<String, Value>, key: &str) -> Option<f64> {
    args.get(key)
        .filter(|value| js::is_integer(value))
        .and_then(js::as_number)
}

/// A line number or budget as the page request carries it.
fn to_request_number(value: f64) -> u64 {
    // Clamped to JavaScript's exact integer range before the conversion.
    let clamped = value.clamp(0.0, js::MAX_SAFE_INTEGER);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let number = clamped as u64;
    number
}

/// The page request of a `read_document` call: the range (start at least 1,
/// end at least start) and the budget clamped to 4,000..64,000.
fn document_request(args: &Map<String, Value>) -> ContextRequest {
    let start = integer_arg(args, "start_line").unwrap_or(1.0).max(1.0);
    let end = integer_arg(args, "end_line").map(|end| end.max(start));
    let budget = args
        .get("max_chars")
        .and_then(js::as_number)
        .filter(|n| n.is_finite())
        .unwrap_or(f64::from(DEFAULT_READ_DOC_CHARS))
        .clamp(f64::from(MIN_READ_DOC_CHARS), f64::from(MAX_READ_DOC_TOOL_CHARS));
    ContextRequest {
        tab_id: None,
        projection: Some(ContextProjection::Numbered),
        start_line: Some(to_request_number(start)),
        end_line: end.map(to_request_number),
        max_chars: Some(to_request_number(budget.floor())),
        known_document_token: None,
    }
}

/// The result of a numbered read.
fn document_result(context: &PageContext) -> ToolOutput {
    let (Some(state), Some(range)) = (context.state(), context.numbered()) else {
        let message = context.error().unwrap_or("The editor text is not available.");
        return tool_failure(ErrorCode::EditorUnavailable, message);
    };
    let next = range.next_start_line.unwrap_or(range.end_line + 1);
    let mut text = range.text.clone();
    if range.truncated {
        text.push_str(&format!("\n... (truncated; continue with start_line={next})"));
    }
    let lines = state.line_count;
    let result = json!({
        "ok": true,
        "truncated": range.truncated,
        "doc_chars": state.doc_length,
        "approx_line_count": lines,
        "cursor_line": state.cursor_line,
        "cursor_column": state.cursor_column,
        "start_line": if lines > 0 { range.start_line } else { 0 },
        "end_line": if lines > 0 { range.end_line } else { 0 },
        "numbered_document": text,
    });
    match result {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn read_document<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    let request = document_request(args);
    Ok(match message_file_context(run, call, request, "document read").await? {
        Ok(context) => document_result(&context),
        Err(failure) => failure,
    })
}

// ----- read_diagnostics -----

/// Sleeps on the run's clock; Stop ends the sleep at once.
async fn pause<P: Platform>(run: &RunContext<'_, P>, ms: u32) -> Result<(), Cancelled> {
    run.cancel.race(run.platform.clock().sleep(ms)).await
}

/// The result of a diagnostics read: compiler errors and warnings counted
/// apart from spelling suggestions and reader status rows.
fn diagnostics_result(read: &PageDiagnostics) -> ToolOutput {
    let counts = read.counts();
    let result = json!({
        "ok": read.error.is_none(),
        "error": read.error,
        "diagnostics": read.items_value(),
        "total_count": read.total(),
        "truncated": read.truncated,
        "error_count": counts.errors,
        "warning_count": counts.warnings,
        "spelling_count": counts.spelling,
        "status_count": counts.status,
    });
    match result {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Waits for the compiler to settle, then reads until two consecutive reads
/// agree (at most four reads).
async fn read_diagnostics<P: Platform>(run: &RunContext<'_, P>) -> Result<ToolOutput, Cancelled> {
    pause(run, DIAGNOSTICS_SETTLE_DELAY_MS).await?;
    let mut last = match page_diagnostics(run).await? {
        Ok(read) => read,
        Err(error) => return Ok(page_failure(&error)),
    };
    for _ in 1..DIAGNOSTICS_STABILITY_MAX_READS {
        pause(run, DIAGNOSTICS_STABILITY_INTERVAL_MS).await?;
        let next = match page_diagnostics(run).await? {
            Ok(read) => read,
            Err(error) => return Ok(page_failure(&error)),
        };
        let stable = next == last;
        last = next;
        if stable {
            break;
        }
    }
    Ok(diagnostics_result(&last))
}

// ----- read_file_structure -----

/// The result of a visible file tree, with why it may be incomplete.
fn file_structure_result(structure: &FileStructure) -> ToolOutput {
    let note = match structure.incompleteness() {
        Some(Incompleteness::UnclassifiedRows) => {
            "Some rows of the Files sidebar could not be classified as files or folders. Ask the user what \
             they are or to expand them, then call read_file_structure again."
        }
        Some(Incompleteness::CollapsedFolders) => {
            "Collapsed folders do not show their contents, so those are unknown. If they matter, ask the user \
             to expand them and call read_file_structure again."
        }
        Some(Incompleteness::Truncated) => {
            "The file tree was larger than the entry limit. Ask the user to collapse unrelated folders or \
             expand the relevant ones, then call read_file_structure again."
        }
        None => "Only names and the visible hierarchy were read; no file contents were opened.",
    };
    let result = json!({
        "ok": true,
        "entries": structure.tree.entries,
        "truncated": structure.tree.truncated,
        "complete": structure.is_complete(),
        "collapsed_folders": structure.collapsed_folders,
        "unknown_entries": structure.unknown_entries,
        "note": note,
    });
    match result {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

async fn read_file_structure<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
) -> Result<ToolOutput, Cancelled> {
    let kind = WaitKind {
        timeout_code: ErrorCode::FileStructurePreflightTimeout,
        timeout_message: "Waited too long for the Files sidebar.",
    };
    let request = ContextRequest {
        projection: Some(ContextProjection::Identity),
        ..ContextRequest::default()
    };
    let waited = wait_until(run, call, kind, async || {
        let context = page_context(run, &request).await?;
        let hint = match &context {
            Err(error) => format!(
                "Open the Files sidebar in the originating Typst tab. The page could not be checked ({}).",
                error.message
            ),
            Ok(context) => match context.workspace.visible_file_structure() {
                Some(structure) => return Ok(Check::Ready(structure)),
                None if context.workspace.files_panel_open => "The Files sidebar is open, but its entries could not \
                     be read yet. Keep it open and expand the folders whose contents are needed."
                    .to_owned(),
                None => "Open the Files sidebar in the originating Typst tab and expand the folders whose contents \
                         should be listed; the check repeats by itself."
                    .to_owned(),
            },
        };
        Ok(Check::Waiting {
            missing: vec!["open Files sidebar".to_owned()],
            hint,
        })
    })
    .await?;
    Ok(match waited {
        Ok(structure) => file_structure_result(&structure),
        Err(failure) => failure,
    })
}

// ----- open_project_file -----

async fn open_project_file<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    let Some(path) = args
        .get("path")
        .and_then(Value::as_str)
        .and_then(normalize_project_relative_path)
    else {
        return Ok(tool_failure(
            ErrorCode::InvalidProjectFilePath,
            "path must be a clean project-relative file path with an extension.",
        ));
    };
    let previous = run.message_file().map(|file| file.relative_path);
    let kind = WaitKind {
        timeout_code: ErrorCode::ProjectFilePreflightTimeout,
        timeout_message: "Waited too long for the file to be opened.",
    };
    let request = file_identity_request();
    let waited = wait_until(run, call, kind, async || {
        let context = page_context(run, &request).await?;
        let current = match &context {
            Ok(read) => match (read.active_file(), read.error()) {
                (Some(file), None) if file.relative_path == path => return Ok(Check::Ready(file.clone())),
                (Some(file), error) if file.relative_path == path => format!(
                    "{path} is selected, but its text is not available yet ({}).",
                    error.unwrap_or("the editor is not ready")
                ),
                _ => current_file_text(&context),
            },
            Err(_) => current_file_text(&context),
        };
        Ok(Check::Waiting {
            missing: vec![format!("open file: {path}")],
            hint: format!(
                "Open {path} from the Files sidebar in the originating Typst tab. {current} This call continues only \
                 once that exact path is open in the text editor."
            ),
        })
    })
    .await?;
    let file: ActiveEditorFile = match waited {
        Ok(file) => file,
        Err(failure) => return Ok(failure),
    };
    run.set_message_file(Some(file));
    let result = json!({
        "ok": true,
        "active_file": path,
        "previous_file": previous,
        "text_editor_accessible": true,
        "usage": "For the rest of this response, read_document and the editing tools work on active_file.",
    });
    Ok(match result {
        Value::Object(map) => map,
        _ => Map::new(),
    })
}

// ----- read_typst_docs -----

fn read_typst_docs(args: &Map<String, Value>) -> ToolOutput {
    let topic = args
        .get("topic")
        .and_then(Value::as_str)
        .filter(|topic| js::is_non_blank(topic));
    match typst_reference::read_typst_docs(topic) {
        Value::Object(map) => map,
        _ => tool_failure(
            ErrorCode::TypstDocsUnavailable,
            "The bundled Typst reference could not be read.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn document_requests_default_and_clamp_like_the_original() {
        let plain = document_request(&Map::new());
        assert_eq!(
            (plain.start_line, plain.end_line, plain.max_chars),
            (Some(1), None, Some(28_000))
        );
        let clamped = document_request(&args(json!({"start_line": 0, "end_line": -5, "max_chars": 10})));
        assert_eq!(
            (clamped.start_line, clamped.end_line, clamped.max_chars),
            (Some(1), Some(1), Some(4_000))
        );
        let large = document_request(&args(json!({"start_line": 7.0, "end_line": 3, "max_chars": 1e12})));
        assert_eq!(
            (large.start_line, large.end_line, large.max_chars),
            (Some(7), Some(7), Some(64_000))
        );
        assert_eq!(plain.projection, Some(ContextProjection::Numbered));
    }

    #[test]
    fn file_structure_notes_name_the_first_reason_it_is_incomplete() {
        let tree = |entries: Value, truncated: bool| {
            protocol::project_tree::ProjectTree::normalize(
                &json!({"source": "files_panel_dom", "entries": entries, "truncated": truncated}),
            )
        };
        let complete = tree(json!([{"path": "main.typ", "kind": "file"}]), false);
        let Some(complete) = complete else {
            panic!("valid tree");
        };
        let result = file_structure_result(&FileStructure::of(&complete));
        assert_eq!(result["complete"], true);
        assert!(result["note"].as_str().is_some_and(|n| n.contains("no file contents")));
        let Some(mixed) = tree(
            json!([{"path": "a", "kind": "folder", "state": "collapsed"}, {"path": "odd", "kind": "unknown"}]),
            true,
        ) else {
            panic!("valid tree");
        };
        let result = file_structure_result(&FileStructure::of(&mixed));
        assert_eq!(result["complete"], false);
        assert_eq!(result["truncated"], true);
        assert_eq!(result["unknown_entries"], json!(["odd"]));
        assert!(
            result["note"]
                .as_str()
                .is_some_and(|n| n.contains("could not be classified"))
        );
    }
}
