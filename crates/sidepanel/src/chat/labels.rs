//! Words and numbers the chat shows: tool block labels and details, result
//! summaries and approval states in the status pill, preflight banner texts,
//! reasoning sizes and user-message attachment pills.
//!
//! All of it derives from values a model, a page or storage produced, so
//! every function here accepts any JSON shape and falls back to neutral
//! wording instead of failing. Lengths are UTF-16 units, as the original
//! counted them.

use protocol::js::{collapse_whitespace, is_non_blank, js_string, truncate_utf16, utf16_len};
use protocol::limits::DIAGNOSTICS_SETTLE_DELAY_MS;
use protocol::payloads::ApprovalAction;
use serde_json::{Map, Value};

/// Shown for a reasoning block while it streams, and after.
pub(crate) const REASONING_LIVE_TITLE: &str = "Thinking";
pub(crate) const REASONING_DONE_TITLE: &str = "Thought";

/// The colour and meaning of a tool block's status pill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StatusKind {
    /// Still running.
    Pending,
    /// Finished with `ok: true`.
    Ok,
    /// Finished with an error.
    Err,
    /// Waiting for the user or the page.
    Waiting,
}

impl StatusKind {
    /// The CSS class of the pill.
    pub(crate) const fn class(self) -> &'static str {
        match self {
            StatusKind::Pending => "tool-status tool-status-pending",
            StatusKind::Ok => "tool-status tool-status-ok",
            StatusKind::Err => "tool-status tool-status-err",
            StatusKind::Waiting => "tool-status tool-status-waiting",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolStatus {
    pub(crate) kind: StatusKind,
    pub(crate) text: String,
}

impl ToolStatus {
    fn new(kind: StatusKind, text: impl Into<String>) -> ToolStatus {
        ToolStatus {
            kind,
            text: text.into(),
        }
    }

    /// A pill of `kind` saying `text`.
    pub(crate) fn with(kind: StatusKind, text: impl Into<String>) -> ToolStatus {
        ToolStatus::new(kind, text)
    }

    /// A call that has not answered yet.
    pub(crate) fn running() -> ToolStatus {
        ToolStatus::new(StatusKind::Pending, "running…")
    }
}

fn arg<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).filter(|v| !v.is_null())
}

fn arg_text(args: &Map<String, Value>, key: &str) -> String {
    arg(args, key).map(js_string).unwrap_or_default()
}

/// `text` cut to `max` UTF-16 units with an ellipsis when it was longer.
fn ellipsize(text: &str, max: usize) -> String {
    if utf16_len(text) > max {
        format!("{}…", truncate_utf16(text, max))
    } else {
        text.to_owned()
    }
}

/// The heading of a tool block.
pub(crate) fn tool_label(name: &str, args: &Map<String, Value>) -> String {
    match name {
        "read_file_structure" => "Read file structure".to_owned(),
        "open_project_file" => match arg(args, "path").map(js_string).filter(|p| !p.is_empty()) {
            Some(path) => format!("Open {path}"),
            None => "Open project file".to_owned(),
        },
        "read_document" => "Read document".to_owned(),
        "read_diagnostics" => "Read diagnostics".to_owned(),
        "read_typst_docs" => match arg(args, "topic").map(js_string).filter(|t| is_non_blank(t)) {
            Some(topic) => format!("Read Typst docs: {}", ellipsize(&topic, 36)),
            None => "Read Typst docs".to_owned(),
        },
        "replace_lines" => format!(
            "Replace lines {}–{}",
            arg_text(args, "start_line"),
            arg_text(args, "end_line")
        ),
        "insert_at_cursor" => "Insert at cursor".to_owned(),
        "replace_selection" => "Replace selection".to_owned(),
        "search_replace" => {
            let search = arg_text(args, "search").replace('\n', "↵");
            format!("Search & replace: \"{}\"", ellipsize(&search, 36))
        }
        "patch_document" => {
            let count = arg(args, "edits").and_then(Value::as_array).map_or(0, Vec::len);
            format!("Patch document ({count} edit{})", if count == 1 { "" } else { "s" })
        }
        other => match other.strip_prefix("mcp__") {
            Some(rest) => format!("MCP: {}", rest.replace("__", " / ")),
            None => other.to_owned(),
        },
    }
}

/// The collapsible detail under a tool block before a result arrives: what
/// the call will do, or its arguments.
pub(crate) fn tool_detail(name: &str, args: &Map<String, Value>) -> String {
    match name {
        "read_file_structure" => "Waits for the Files sidebar, then lists the names and folders it shows.".to_owned(),
        "open_project_file" => {
            let path = arg(args, "path")
                .map(js_string)
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "the requested file".to_owned());
            format!("Waits until {path} is open in the editor and its text can be read.")
        }
        "read_document" => match arg(args, "max_chars") {
            Some(max) if protocol::js::is_truthy(Some(max)) => format!("max_chars={}", js_string(max)),
            _ => "(default size)".to_owned(),
        },
        "read_diagnostics" => {
            format!("Lets the compiler settle for {DIAGNOSTICS_SETTLE_DELAY_MS} ms, then reads the diagnostics.")
        }
        "replace_lines" => arg_text(args, "new_content"),
        "search_replace" => format!("- {}\n+ {}", arg_text(args, "search"), arg_text(args, "replace")),
        "insert_at_cursor" | "replace_selection" => arg_text(args, "text"),
        "patch_document" => match arg(args, "edits").and_then(Value::as_array) {
            Some(edits) => edits
                .iter()
                .enumerate()
                .map(|(index, edit)| {
                    let field = |key: &str| {
                        edit.get(key)
                            .filter(|v| !v.is_null())
                            .map(js_string)
                            .unwrap_or_default()
                    };
                    format!("[{}]\n- {}\n+ {}", index + 1, field("search"), field("replace"))
                })
                .collect::<Vec<_>>()
                .join("\n\n"),
            None => pretty(args),
        },
        _ => pretty(args),
    }
}

fn pretty(args: &Map<String, Value>) -> String {
    serde_json::to_string_pretty(args).unwrap_or_default()
}

/// How many diagnostics a result lists in the detail.
pub(crate) const DIAGNOSTICS_LISTED: usize = 8;

/// A finished call: the pill and, for some tools, a new detail text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResultSummary {
    pub(crate) status: ToolStatus,
    pub(crate) detail: Option<String>,
}

fn count(result: &Value, key: &str) -> u64 {
    result.get(key).and_then(protocol::js::as_safe_uint).unwrap_or(0)
}

/// The summary of an `AI_TOOL_RESULT` (or a stored result summary).
pub(crate) fn result_summary(name: &str, result: &Value) -> ResultSummary {
    if result.get("ok").and_then(Value::as_bool) != Some(true) {
        let error = result
            .get("error")
            .and_then(Value::as_str)
            .filter(|e| !e.is_empty())
            .unwrap_or("failed");
        return ResultSummary {
            status: ToolStatus::new(StatusKind::Err, truncate_utf16(error, 50)),
            detail: None,
        };
    }
    let ok = |text: String| ResultSummary {
        status: ToolStatus::new(StatusKind::Ok, text),
        detail: None,
    };
    match name {
        "read_document" => {
            let chars = result
                .get("doc_chars")
                .filter(|v| v.is_number())
                .map(js_string)
                .unwrap_or_else(|| "?".to_owned());
            let truncated = if protocol::js::is_truthy(result.get("truncated")) {
                " (truncated)"
            } else {
                ""
            };
            ok(format!("{chars} chars{truncated}"))
        }
        "read_diagnostics" => diagnostics_summary(result),
        "read_file_structure" => match result.get("entries").and_then(Value::as_array) {
            Some(entries) => {
                let partial = result.get("complete").and_then(Value::as_bool) == Some(false);
                let plural = if entries.len() == 1 { "entry" } else { "entries" };
                ok(format!(
                    "{} {plural}{}",
                    entries.len(),
                    if partial { ", partial" } else { "" }
                ))
            }
            None => ok("done".to_owned()),
        },
        "open_project_file" => match result.get("active_file").and_then(Value::as_str) {
            Some(path) if !path.is_empty() => ResultSummary {
                status: ToolStatus::new(StatusKind::Ok, "opened"),
                detail: Some(format!("Now reading and editing {path}.")),
            },
            _ => ok("opened".to_owned()),
        },
        "replace_lines" | "search_replace" | "insert_at_cursor" | "replace_selection" | "patch_document"
            if protocol::js::is_truthy(result.get("no_changes")) =>
        {
            ResultSummary {
                status: ToolStatus::new(StatusKind::Ok, "no changes"),
                detail: Some("The document already read like this; nothing was written.".to_owned()),
            }
        }
        "replace_lines" | "search_replace" | "insert_at_cursor" | "replace_selection"
            if result.get("edits_applied").is_none() && result.get("editCheckpoint").is_none() =>
        {
            ok("done".to_owned())
        }
        "replace_lines" | "search_replace" | "insert_at_cursor" | "replace_selection" => {
            let reviewed = result.get("reviewed_diff").and_then(Value::as_bool) == Some(true);
            edit_summary(
                if reviewed { "applied · reviewed" } else { "applied" }.to_owned(),
                result,
            )
        }
        "patch_document" => {
            let applied = count(result, "edits_applied");
            if result.get("editCheckpoint").is_some() || result.get("reviewed_diff").is_some() {
                let reviewed = result.get("reviewed_diff").and_then(Value::as_bool) == Some(true);
                let plural = if applied == 1 { "edit" } else { "edits" };
                let text = format!(
                    "{applied} {plural} applied{}",
                    if reviewed { " · reviewed" } else { "" }
                );
                return edit_summary(text, result);
            }
            let skipped = count(result, "skipped_count");
            ok(if skipped > 0 {
                format!("{applied} ok, {skipped} skipped")
            } else {
                format!("{applied} applied")
            })
        }
        _ => ok("done".to_owned()),
    }
}

/// An applied editor write: the pill, and its warning (a receipt that could
/// not be stored, say) as the detail.
fn edit_summary(text: String, result: &Value) -> ResultSummary {
    let warning = result
        .get("warning")
        .and_then(Value::as_str)
        .filter(|w| !w.is_empty())
        .map(str::to_owned);
    ResultSummary {
        status: ToolStatus::new(StatusKind::Ok, text),
        detail: warning,
    }
}

fn diagnostics_summary(result: &Value) -> ResultSummary {
    let listed: &[Value] = result
        .get("diagnostics")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let n = listed.len();
    if n == 0 {
        return ResultSummary {
            status: ToolStatus::new(StatusKind::Ok, "clean"),
            detail: Some("No diagnostics.".to_owned()),
        };
    }
    let parts: Vec<String> = [
        ("error_count", "err"),
        ("warning_count", "warn"),
        ("spelling_count", "spell"),
        ("status_count", "status"),
    ]
    .iter()
    .filter_map(|(key, word)| {
        let value = count(result, key);
        (value > 0).then(|| format!("{value} {word}"))
    })
    .collect();
    let pill = if parts.is_empty() {
        format!("{n} diag")
    } else {
        parts.join(", ")
    };
    let mut lines: Vec<String> = listed
        .iter()
        .take(DIAGNOSTICS_LISTED)
        .enumerate()
        .map(|(index, diagnostic)| format!("{}. {}", index + 1, diagnostic_line(diagnostic)))
        .collect();
    if n > DIAGNOSTICS_LISTED {
        lines.push(format!("... and {} more", n - DIAGNOSTICS_LISTED));
    }
    ResultSummary {
        status: ToolStatus::new(StatusKind::Ok, pill),
        detail: Some(lines.join("\n")),
    }
}

/// `[TAG] L<line>[:col] <message>`: spelling and Typst status rows are
/// tagged by kind so advisory rows never look like compiler warnings.
fn diagnostic_line(diagnostic: &Value) -> String {
    let kind = diagnostic.get("kind").and_then(Value::as_str);
    let tag = match kind {
        Some("spelling") => "SPELLING".to_owned(),
        Some("typst-status") => "STATUS".to_owned(),
        _ => diagnostic
            .get("severity")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .unwrap_or("info")
            .to_uppercase(),
    };
    let number = |key: &str| {
        diagnostic
            .get(key)
            .filter(|v| protocol::js::as_number(v).is_some_and(f64::is_finite))
    };
    let line = number("line").map_or_else(|| "L?".to_owned(), |v| format!("L{}", js_string(v)));
    let column = number("column").map_or_else(String::new, |v| format!(":{}", js_string(v)));
    let message = collapse_whitespace(diagnostic.get("message").and_then(Value::as_str).unwrap_or_default());
    let message = if message.is_empty() {
        "(no message)".to_owned()
    } else {
        message
    };
    format!("[{tag}] {line}{column} {message}")
}

/// A stored call shown from history: its result summary if a result was
/// kept, else "done" (the original's history view had no other state).
pub(crate) fn history_summary(name: &str, result: Option<&Value>) -> ResultSummary {
    match result {
        Some(result) if result.is_object() => match stored_summary(name, result) {
            Some(expanded) => result_summary(name, &expanded),
            None => result_summary(name, result),
        },
        _ => ResultSummary {
            status: ToolStatus::new(StatusKind::Ok, "done"),
            detail: None,
        },
    }
}

/// Storage keeps an editor write without a receipt (no change, or a
/// failure) as `{ok, summary}` with the result's JSON in `summary`; when
/// that JSON is whole, it is read back so the block says what happened.
fn stored_summary(name: &str, result: &Value) -> Option<Value> {
    if !protocol::edit_checkpoint::is_edit_checkpoint_tool_name(name) || result.get("editCheckpoint").is_some() {
        return None;
    }
    let summary = result.get("summary")?.as_str()?;
    serde_json::from_str::<Value>(summary).ok().filter(Value::is_object)
}

/// The status pill while an approval waits.
pub(crate) fn approval_waiting_status() -> ToolStatus {
    ToolStatus::with(StatusKind::Waiting, "approval…")
}

/// The status pill once the worker accepted the user's choice.
pub(crate) fn approval_submitted_status(editor_review: bool, action: ApprovalAction) -> ToolStatus {
    match (action, editor_review) {
        (ApprovalAction::Deny, true) => ToolStatus::with(StatusKind::Err, "rejected"),
        (ApprovalAction::Deny, false) => ToolStatus::with(StatusKind::Err, "denied"),
        (_, true) => ToolStatus::with(StatusKind::Pending, "applying…"),
        (_, false) => ToolStatus::with(StatusKind::Pending, "running…"),
    }
}

/// The banner a waiting preflight shows inside its tool block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PreflightPrompt {
    pub(crate) status: ToolStatus,
    pub(crate) message: String,
    /// `Missing: …` or `Required: …`; empty when nothing was named.
    pub(crate) requirement: String,
    pub(crate) retry_label: &'static str,
    pub(crate) skip_label: &'static str,
}

const OPEN_FILE_PREFIX: &str = "open file:";

fn strip_open_file(item: &str) -> Option<&str> {
    let head = item.get(..OPEN_FILE_PREFIX.len())?;
    head.eq_ignore_ascii_case(OPEN_FILE_PREFIX)
        .then(|| item[OPEN_FILE_PREFIX.len()..].trim_start())
}

/// `AI_TOOL_PREFLIGHT_WAITING` as the banner shows it. A wait for a file
/// ("open file: <path>") asks the user to return to it; anything else is a
/// missing page capability.
pub(crate) fn preflight_prompt(name: &str, missing: &[String], hint: &str) -> PreflightPrompt {
    let file_return = missing.iter().any(|item| strip_open_file(item).is_some());
    let status = if file_return && name == "open_project_file" {
        "open file…"
    } else if file_return {
        "return to file…"
    } else {
        "needs page…"
    };
    let requirement = if missing.is_empty() {
        String::new()
    } else {
        let items: Vec<&str> = missing
            .iter()
            .map(|item| strip_open_file(item).unwrap_or(item))
            .collect();
        format!(
            "{}: {}",
            if file_return { "Required" } else { "Missing" },
            items.join(", ")
        )
    };
    PreflightPrompt {
        status: ToolStatus::new(StatusKind::Waiting, status),
        message: if hint.is_empty() {
            "Waiting for the Typst tab…".to_owned()
        } else {
            hint.to_owned()
        },
        requirement,
        retry_label: if file_return { "Check again" } else { "Retry now" },
        skip_label: "Skip",
    }
}

/// The size note of a reasoning block: "N chars", or "N.Nk chars" above
/// 1,024 (one decimal, halves rounded up as JavaScript's `toFixed` does for
/// these values).
pub(crate) fn reasoning_meta(chars: usize) -> String {
    match chars {
        0 => String::new(),
        1..=1024 => format!("{chars} chars"),
        _ => {
            let tenths = (chars as u128 * 10 + 512) / 1024;
            format!("{}.{}k chars", tenths / 10, tenths % 10)
        }
    }
}

/// A user message's attachment row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct UserMessageParts {
    pub(crate) text: String,
    pub(crate) pills: Vec<Pill>,
    pub(crate) previews: Vec<SentPreview>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pill {
    pub(crate) text: String,
    /// Long pills (selections) may wrap.
    pub(crate) long: bool,
    pub(crate) title: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SentPreview {
    /// A stored thumbnail: a base64 PNG, JPEG or WebP data URL.
    Thumbnail { data_url: String, alt: String },
    /// A preview whose image was not kept.
    Omitted { text: String, reason: String },
}

/// How many characters of a selection its pill shows.
pub(crate) const SELECTION_PILL_CHARS: usize = 96;

/// True for data URLs the panel may load as a thumbnail. Stored history is
/// written by the worker, but an imported file could carry anything; only
/// inline images of the three formats the original stored are shown.
pub(crate) fn is_thumbnail_data_url(value: &str) -> bool {
    let Some(rest) = value
        .strip_prefix("data:image/png;base64,")
        .or_else(|| value.strip_prefix("data:image/jpeg;base64,"))
        .or_else(|| value.strip_prefix("data:image/webp;base64,"))
    else {
        return false;
    };
    !rest.is_empty()
        && utf16_len(value) <= protocol::limits::MAX_PERSISTED_PREVIEW_CHARS as usize
        && rest
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// The parts of a stored user message: text (always plain) and attachment
/// pills.
pub(crate) fn user_message_parts(message: &Value) -> UserMessageParts {
    let text = match message {
        Value::String(text) => text.clone(),
        _ => message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    let mut view = UserMessageParts {
        text,
        ..UserMessageParts::default()
    };
    let Some(sent) = message.get("sentAttachments").filter(|s| s.is_object()) else {
        return view;
    };
    let truthy = |key: &str| protocol::js::is_truthy(sent.get(key));
    if truthy("legacyDocument") || truthy("document") {
        view.pills.push(Pill {
            text: "Full document".to_owned(),
            long: false,
            title: None,
        });
    }
    let diagnostics = [sent.get("legacyDiagnosticsCount"), sent.get("diagnosticsCount")]
        .into_iter()
        .flatten()
        .filter_map(protocol::js::as_number)
        .find(|n| *n != 0.0)
        .unwrap_or(0.0);
    if diagnostics > 0.0 {
        view.pills.push(Pill {
            text: format!("Diagnostics ({})", protocol::js::number_to_string(diagnostics)),
            long: false,
            title: None,
        });
    }
    if let Some(selections) = sent.get("selections").and_then(Value::as_array) {
        for (index, selection) in selections.iter().enumerate() {
            let raw = selection.get("text").and_then(Value::as_str).unwrap_or_default();
            let text = collapse_whitespace(raw);
            let file = selection
                .get("fileLabel")
                .and_then(Value::as_str)
                .filter(|f| !f.is_empty())
                .map(|f| format!(" · {f}"))
                .unwrap_or_default();
            let label = if text.is_empty() {
                format!("Selection {}{file}", index + 1)
            } else {
                format!(
                    "Selection {}{file}: {}",
                    index + 1,
                    ellipsize(&text, SELECTION_PILL_CHARS)
                )
            };
            view.pills.push(Pill {
                text: label,
                long: true,
                title: (!raw.is_empty()).then(|| raw.to_owned()),
            });
        }
    }
    if let Some(previews) = sent.get("previews").and_then(Value::as_array) {
        for (index, preview) in previews.iter().enumerate() {
            let data_url = preview.get("dataUrl").and_then(Value::as_str).unwrap_or_default();
            if is_thumbnail_data_url(data_url) {
                view.previews.push(SentPreview::Thumbnail {
                    data_url: data_url.to_owned(),
                    alt: format!("Attached image {}", index + 1),
                });
            } else {
                let reason = preview
                    .get("reason")
                    .and_then(Value::as_str)
                    .filter(|r| !r.is_empty())
                    .unwrap_or("The image was not kept in the saved chat.");
                view.previews.push(SentPreview::Omitted {
                    text: format!("Preview {} not retained", index + 1),
                    reason: reason.to_owned(),
                });
            }
        }
    }
    view
}

#[cfg(test)]
mod tests;
