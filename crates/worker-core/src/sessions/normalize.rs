//! The display-message schema of a stored chat, enforced on every save and
//! every import.
//!
//! Only what the panel shows is kept: user and assistant messages (never
//! `tool` or `system` provider messages), bounded text, attachment snapshots
//! small enough for local storage, and tool results reduced to summaries. A
//! message that breaks the schema rejects the whole record
//! (`INVALID_SESSION_RECORD`) instead of being silently altered, because a
//! half-kept chat is worse than a clear error while the text is still in the
//! panel. Imported records can never claim local state: their response status
//! and editor-state updates are dropped and their revert receipts become
//! `unavailable`, since an export carries no revert data.
//!
//! Lengths are UTF-16 code units, as in the original, so a chat stored by
//! either version passes the other's checks.

use crate::sessions::limits::{IMPORTED_CHAT_NAME, MAX_NAME_CHARS, MAX_PROJECT_ID_CHARS};
use crate::storage::StorageError;
use protocol::active_file::ActiveEditorFile;
use protocol::document_snapshot::SnapshotRestoredUpdate;
use protocol::edit_checkpoint::{PublicEditCheckpoint, is_edit_checkpoint_tool_name};
use protocol::js;
use protocol::limits::{
    MAX_PERSISTED_PREVIEW_CHARS, MAX_PERSISTED_PREVIEWS_PER_MESSAGE, MAX_PERSISTED_TOOL_RESULT_CHARS,
};
use serde_json::{Map, Value, json};

/// Most display messages in one chat.
pub(crate) const MAX_MESSAGES: usize = 1_000;
/// Longest message text, reasoning or segment text.
pub(crate) const MAX_MESSAGE_CHARS: usize = 256_000;
/// Most display segments of one assistant message.
pub(crate) const MAX_SEGMENTS: usize = 256;
/// Most tool calls of one assistant message or tools segment.
pub(crate) const MAX_TOOL_CALLS: usize = 128;
/// Longest tool-call id or name.
pub(crate) const MAX_TOOL_CALL_ID_CHARS: usize = 128;
/// Longest tool-call arguments, as JSON text.
const MAX_TOOL_ARGUMENT_JSON_CHARS: usize = 16_000;
/// Most editor-state updates on one message.
const MAX_EDITOR_STATE_UPDATES: usize = 16;
/// Most stored selections of one user message.
pub(crate) const MAX_SELECTIONS: usize = 16;
/// Longest stored selection text.
pub(crate) const MAX_SELECTION_CHARS: usize = 32_000;
/// Longest selection file label.
const MAX_SELECTION_LABEL_CHARS: usize = 240;
/// Largest stored preview side; larger sides are clamped.
const MAX_PREVIEW_DIMENSION: u64 = 4_096;
/// Largest legacy diagnostics count shown on an old message.
const MAX_LEGACY_DIAGNOSTICS_COUNT: f64 = 10_000.0;
/// Diagnostics kept in a `read_diagnostics` summary.
const MAX_SUMMARY_DIAGNOSTICS: usize = 8;

pub(crate) const OMITTED_PREVIEW_REASON: &str =
    "The preview image was not kept in saved history, to limit local storage use.";
const NO_RESULT: &str = "No result";

/// Whether the record comes from an import file (fail closed on local state)
/// or from this worker's own panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    Local,
    Imported,
}

impl Origin {
    fn imported(self) -> bool {
        self == Origin::Imported
    }
}

/// A normalised import or legacy record, before it gets its final id.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImportedRecord {
    /// The record's own id if it is a valid record id, else empty.
    pub(crate) id: String,
    pub(crate) project_id: String,
    pub(crate) name: String,
    pub(crate) messages: Vec<Value>,
    pub(crate) created_at: f64,
    pub(crate) updated_at: f64,
    /// Whether the user named the chat (exports of the original lack the
    /// field: not renamed).
    pub(crate) user_renamed: bool,
}

/// `String(value ?? '')` cut to `max` UTF-16 units.
pub(crate) fn bounded_string(value: Option<&Value>, max: usize) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(v) => js::truncate_utf16(&js::js_string(v), max).to_owned(),
    }
}

/// A string field, cut to `max`; anything that is not a string counts as
/// absent (attachment fields are produced by the panel, never coerced).
fn bounded_text(value: Option<&Value>, max: usize) -> String {
    value
        .and_then(Value::as_str)
        .map(|text| js::truncate_utf16(text, max).to_owned())
        .unwrap_or_default()
}

/// A finite number kept as given, else `null`.
fn finite_number(value: Option<&Value>) -> Value {
    match value {
        Some(number @ Value::Number(_)) => number.clone(),
        _ => Value::Null,
    }
}

/// `finiteNumber(x) || 0`.
fn count(value: Option<&Value>) -> Value {
    match finite_number(value) {
        Value::Null => Value::from(0),
        number if number.as_f64() == Some(0.0) => Value::from(0),
        number => number,
    }
}

fn json_chars(value: &Value) -> usize {
    js::utf16_len(&js::json_stringify(value))
}

fn not_false(value: Option<&Value>) -> bool {
    value != Some(&Value::Bool(false))
}

/// Record ids: 1–128 of `[A-Za-z0-9._:-]`.
fn is_record_id(text: &str) -> bool {
    !text.is_empty()
        && js::utf16_len(text) <= MAX_TOOL_CALL_ID_CHARS
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-'))
}

fn is_tool_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// A finite timestamp ≥ 0, else `now`.
fn finite_timestamp(value: Option<&Value>, now: f64) -> f64 {
    match value.and_then(js::as_number) {
        Some(n) if n.is_finite() && n >= 0.0 => n,
        _ => now,
    }
}

/// The stored form of one tool result (`summarizeToolResultForHistory`).
///
/// Reads keep their shape and counts, editor writes keep their revert
/// receipt, and anything else becomes a bounded JSON summary. A value that is
/// already such a summary is kept as it is, so saving a chat again never
/// wraps its summaries a second time.
fn summarize_tool_result(name: &str, result: Option<&Value>, origin: Origin, now: f64) -> Value {
    let Some(result) = result.filter(|r| r.is_object() || r.is_array()) else {
        let error = bounded_string(result, 300);
        return json!({ "ok": false, "error": if error.is_empty() { NO_RESULT.to_owned() } else { error } });
    };
    let ok = not_false(result.get("ok"));
    if name == "read_document" {
        let mut out = json!({
            "ok": ok,
            "doc_chars": finite_number(result.get("doc_chars")),
            "approx_line_count": finite_number(result.get("approx_line_count")),
            "start_line": finite_number(result.get("start_line")),
            "end_line": finite_number(result.get("end_line")),
            "truncated": js::is_truthy(result.get("truncated")),
        });
        if js::is_truthy(result.get("error"))
            && let Some(map) = out.as_object_mut()
        {
            map.insert("error".into(), Value::String(bounded_string(result.get("error"), 500)));
        }
        return out;
    }
    if name == "read_diagnostics" {
        let diagnostics: Vec<Value> = result
            .get("diagnostics")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .take(MAX_SUMMARY_DIAGNOSTICS)
                    .map(|d| {
                        json!({
                            "severity": bounded_string(d.get("severity"), 16),
                            "kind": bounded_string(d.get("kind"), 16),
                            "line": finite_number(d.get("line")),
                            "column": finite_number(d.get("column")),
                            "message": bounded_string(d.get("message"), 300),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        return json!({
            "ok": ok,
            "error_count": count(result.get("error_count")),
            "warning_count": count(result.get("warning_count")),
            "spelling_count": count(result.get("spelling_count")),
            "status_count": count(result.get("status_count")),
            "total_count": count(result.get("total_count")),
            "truncated": js::is_truthy(result.get("truncated")),
            "diagnostics": diagnostics,
        });
    }
    let receipt = if is_edit_checkpoint_tool_name(name) {
        result
            .get("editCheckpoint")
            .and_then(|receipt| PublicEditCheckpoint::normalize(receipt, origin.imported(), now))
    } else {
        None
    };
    if let Some(receipt) = receipt {
        let mut out = Map::new();
        out.insert("ok".into(), Value::Bool(ok));
        out.insert("edits_applied".into(), count(result.get("edits_applied")));
        out.insert(
            "reviewed_diff".into(),
            Value::Bool(js::is_truthy(result.get("reviewed_diff"))),
        );
        out.insert("editCheckpoint".into(), receipt.to_value());
        for key in ["warning", "error"] {
            if js::is_truthy(result.get(key)) {
                out.insert(key.into(), Value::String(bounded_string(result.get(key), 500)));
            }
        }
        return Value::Object(out);
    }
    let max = MAX_PERSISTED_TOOL_RESULT_CHARS as usize;
    if is_generic_summary(result, max) {
        return result.clone();
    }
    let text = js::json_stringify(result);
    let summary = if js::utf16_len(&text) > max {
        format!("{}…", js::truncate_utf16(&text, max))
    } else {
        text
    };
    json!({ "ok": ok, "summary": summary })
}

/// `{ok: bool, summary: string}` with a summary no longer than a bounded one.
fn is_generic_summary(result: &Value, max: usize) -> bool {
    let Some(map) = result.as_object() else {
        return false;
    };
    map.len() == 2
        && map.get("ok").is_some_and(Value::is_boolean)
        && map
            .get("summary")
            .and_then(Value::as_str)
            .is_some_and(|summary| js::utf16_len(summary) <= max + 1)
}

pub(crate) fn normalize_tool_call(call: &Value) -> Result<Value, String> {
    let Some(map) = call.as_object() else {
        return Err("A tool call must be an object.".into());
    };
    let function = map.get("function");
    let name_source = js::or_else(
        map.get("name"),
        function.and_then(|f| f.get("name")).unwrap_or(&Value::Null),
    );
    let name = bounded_string(Some(name_source), MAX_TOOL_CALL_ID_CHARS);
    let id = bounded_string(map.get("id"), MAX_TOOL_CALL_ID_CHARS);
    if !is_tool_name(&name) || !is_record_id(&id) {
        return Err("A tool call has an invalid id or name.".into());
    }
    let mut args = map.get("args").cloned();
    if !js::is_truthy(args.as_ref())
        && let Some(text) = function.and_then(|f| f.get("arguments")).and_then(Value::as_str)
    {
        args = Some(serde_json::from_str(text).map_err(|_| "Tool-call arguments are not valid JSON.".to_owned())?);
    }
    let args = match args {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(object)) => object,
        Some(_) => return Err("Tool-call arguments must be an object.".into()),
    };
    let args = Value::Object(args);
    if json_chars(&args) > MAX_TOOL_ARGUMENT_JSON_CHARS {
        return Err("Tool-call arguments are too long to keep.".into());
    }
    Ok(json!({ "id": id, "name": name, "args": args }))
}

fn normalize_tool_calls(calls: &[Value], what: &str) -> Result<Vec<Value>, String> {
    if calls.len() > MAX_TOOL_CALLS {
        return Err(format!("{what} has more than {MAX_TOOL_CALLS} tool calls."));
    }
    calls.iter().map(normalize_tool_call).collect()
}

fn normalize_segment(segment: &Value, origin: Origin, now: f64) -> Result<Value, String> {
    let Some(map) = segment.as_object() else {
        return Err("An assistant segment must be an object.".into());
    };
    match map.get("type").and_then(Value::as_str) {
        Some(kind @ ("text" | "reasoning")) => {
            let Some(content) = map.get("content").and_then(Value::as_str) else {
                return Err("A text or reasoning segment needs string content.".into());
            };
            if js::utf16_len(content) > MAX_MESSAGE_CHARS {
                return Err("An assistant segment is longer than the supported length.".into());
            }
            Ok(json!({ "type": kind, "content": content }))
        }
        Some("tools") => {
            let Some(calls) = map.get("calls").and_then(Value::as_array) else {
                return Err("A tools segment needs an array of calls.".into());
            };
            let calls = normalize_tool_calls(calls, "A tools segment")?;
            let stored = map.get("results").and_then(Value::as_object);
            let mut results = Map::new();
            for call in &calls {
                let id = call.get("id").and_then(Value::as_str).unwrap_or_default();
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let result = stored.and_then(|r| r.get(id));
                results.insert(id.to_owned(), summarize_tool_result(name, result, origin, now));
            }
            Ok(json!({ "type": "tools", "calls": calls, "results": results }))
        }
        _ => Err("An assistant segment has an unsupported type.".into()),
    }
}

fn is_allowed_image_data_url(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("data:image/") else {
        return false;
    };
    let Some(payload) = ["png", "jpeg", "webp"]
        .iter()
        .find_map(|kind| rest.strip_prefix(kind).and_then(|r| r.strip_prefix(";base64,")))
    else {
        return false;
    };
    !payload.is_empty()
        && payload
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

fn bounded_dimension(value: Option<&Value>) -> Value {
    match value.and_then(js::as_number) {
        Some(n) if n.is_finite() && n.trunc() == n && n > 0.0 => js::number_value(n.min(MAX_PREVIEW_DIMENSION as f64)),
        _ => Value::Null,
    }
}

/// `Number(x) || 0` for the legacy diagnostics count.
fn legacy_number(value: &Value) -> f64 {
    let n = match value {
        Value::Number(_) => js::as_number(value).unwrap_or(0.0),
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => {
            let trimmed = js::js_trim(s);
            if trimmed.is_empty() {
                0.0
            } else {
                trimmed.parse::<f64>().unwrap_or(0.0)
            }
        }
        _ => 0.0,
    };
    if n.is_nan() { 0.0 } else { n }
}

fn normalize_preview(preview: &Value) -> Value {
    let data_url = preview.get("dataUrl").and_then(Value::as_str).unwrap_or_default();
    let is_thumbnail = preview.get("thumbnail") == Some(&Value::Bool(true));
    if is_thumbnail
        && is_allowed_image_data_url(data_url)
        && js::utf16_len(data_url) <= MAX_PERSISTED_PREVIEW_CHARS as usize
    {
        let mime = match preview
            .get("mimeType")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty())
        {
            Some(mime) => mime.to_owned(),
            None => data_url
                .get(5..data_url.find(';').unwrap_or(5).max(5))
                .unwrap_or_default()
                .to_owned(),
        };
        return json!({
            "dataUrl": data_url,
            "width": bounded_dimension(preview.get("width")),
            "height": bounded_dimension(preview.get("height")),
            "mimeType": js::truncate_utf16(&mime, 32),
            "thumbnail": true,
        });
    }
    let reason = bounded_text(preview.get("reason"), 300);
    json!({
        "omitted": true,
        "reason": if reason.is_empty() { OMITTED_PREVIEW_REASON.to_owned() } else { reason },
    })
}

fn normalize_sent_attachments(sent: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    if let Some(selections) = sent.get("selections").and_then(Value::as_array) {
        let kept: Vec<Value> = selections
            .iter()
            .take(MAX_SELECTIONS)
            .filter_map(|selection| {
                let text = bounded_text(selection.get("text"), MAX_SELECTION_CHARS);
                if text.is_empty() {
                    return None;
                }
                let label = bounded_text(selection.get("fileLabel"), MAX_SELECTION_LABEL_CHARS);
                Some(if label.is_empty() {
                    json!({ "text": text })
                } else {
                    json!({ "text": text, "fileLabel": label })
                })
            })
            .collect();
        out.insert("selections".into(), Value::Array(kept));
    }
    if let Some(previews) = sent.get("previews").and_then(Value::as_array) {
        let kept = previews
            .iter()
            .take(MAX_PERSISTED_PREVIEWS_PER_MESSAGE as usize)
            .map(normalize_preview)
            .collect();
        out.insert("previews".into(), Value::Array(kept));
    }
    // Version-1 chats recorded that a whole document or diagnostics were sent;
    // only the fact is shown, it is never sent to a model again.
    if js::is_truthy(sent.get("document")) || js::is_truthy(sent.get("legacyDocument")) {
        out.insert("legacyDocument".into(), Value::Bool(true));
    }
    let legacy_count = sent
        .get("diagnosticsCount")
        .filter(|v| !v.is_null())
        .or_else(|| sent.get("legacyDiagnosticsCount"));
    if js::is_truthy(legacy_count)
        && let Some(value) = legacy_count
    {
        let clamped = legacy_number(value).clamp(0.0, MAX_LEGACY_DIAGNOSTICS_COUNT);
        out.insert("legacyDiagnosticsCount".into(), js::number_value(clamped));
    }
    Value::Object(out)
}

/// Normalises one display message.
pub(crate) fn normalize_message(message: &Value, origin: Origin, now: f64) -> Result<Value, String> {
    let Some(map) = message.as_object() else {
        return Err("A message must be an object.".into());
    };
    let role = match map.get("role").and_then(Value::as_str) {
        Some(role @ ("user" | "assistant")) => role,
        _ => return Err("Only user and assistant messages can be stored.".into()),
    };
    let content = match map.get("content") {
        None | Some(Value::Null) => "",
        Some(Value::String(text)) => text.as_str(),
        Some(_) => return Err("Message content must be a string.".into()),
    };
    if js::utf16_len(content) > MAX_MESSAGE_CHARS {
        return Err("Message text is longer than the supported length.".into());
    }
    let mut out = Map::new();
    out.insert("role".into(), Value::from(role));
    out.insert("content".into(), Value::from(content));
    if role == "user"
        && let Some(file) = map.get("activeEditorFile").filter(|v| !v.is_null())
        && let Some(file) = ActiveEditorFile::normalize(file)
    {
        out.insert("activeEditorFile".into(), file.to_value());
    }
    if let Some(updates) = map.get("editorStateUpdates").filter(|v| !v.is_null()) {
        let Some(updates) = updates.as_array().filter(|u| u.len() <= MAX_EDITOR_STATE_UPDATES) else {
            return Err(format!(
                "Editor state updates must be an array of at most {MAX_EDITOR_STATE_UPDATES}."
            ));
        };
        let kept: Vec<Value> = updates
            .iter()
            .filter_map(|update| SnapshotRestoredUpdate::normalize(update, origin.imported(), now))
            .map(|update| update.to_value())
            .collect();
        if !kept.is_empty() {
            out.insert("editorStateUpdates".into(), Value::Array(kept));
        }
    }
    if role == "user"
        && let Some(sent) = map.get("sentAttachments").filter(|v| !v.is_null())
    {
        let Some(sent) = sent.as_object() else {
            return Err("Sent attachments must be an object.".into());
        };
        out.insert("sentAttachments".into(), normalize_sent_attachments(sent));
    }
    if role == "assistant" {
        match map.get("responseStatus") {
            None | Some(Value::Null) => {}
            Some(status @ Value::String(text)) if text == "complete" || text == "incomplete" => {
                if !origin.imported() {
                    out.insert("responseStatus".into(), status.clone());
                }
            }
            Some(_) => return Err("The assistant response status is not valid.".into()),
        }
        match map.get("reasoning") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => {
                if js::utf16_len(text) > MAX_MESSAGE_CHARS {
                    return Err("Assistant reasoning is longer than the supported length.".into());
                }
                out.insert("reasoning".into(), Value::from(text.as_str()));
            }
            Some(_) => return Err("Assistant reasoning must be a string.".into()),
        }
        match map.get("segments") {
            None | Some(Value::Null) => {}
            Some(Value::Array(segments)) => {
                if segments.len() > MAX_SEGMENTS {
                    return Err(format!("An assistant message has more than {MAX_SEGMENTS} segments."));
                }
                let segments = segments
                    .iter()
                    .map(|segment| normalize_segment(segment, origin, now))
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert("segments".into(), Value::Array(segments));
            }
            Some(_) => return Err("Assistant segments must be an array.".into()),
        }
        match map.get("toolCalls") {
            None | Some(Value::Null) => {}
            Some(Value::Array(calls)) => {
                let calls = normalize_tool_calls(calls, "An assistant message")?;
                out.insert("toolCalls".into(), Value::Array(calls));
            }
            Some(_) => return Err("Assistant tool calls must be an array.".into()),
        }
    }
    Ok(Value::Object(out))
}

/// Normalises a chat's display messages; the first bad message rejects all.
fn normalize_messages(messages: Option<&Value>, origin: Origin, now: f64) -> Result<Vec<Value>, StorageError> {
    let Some(messages) = messages.and_then(Value::as_array) else {
        return Err(StorageError::invalid_record("Chat messages must be an array."));
    };
    normalize_message_list(messages, origin, now)
}

/// [`normalize_messages`] over a slice.
pub(crate) fn normalize_message_list(messages: &[Value], origin: Origin, now: f64) -> Result<Vec<Value>, StorageError> {
    if messages.len() > MAX_MESSAGES {
        return Err(StorageError::invalid_record(format!(
            "A chat can hold at most {MAX_MESSAGES} messages."
        )));
    }
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            normalize_message(message, origin, now)
                .map_err(|reason| StorageError::invalid_record(format!("Message {}: {reason}", index + 1)))
        })
        .collect()
}

/// Normalises one record of an import file or of the version-1 store.
pub(crate) fn normalize_imported_record(record: &Value, now: f64) -> Result<ImportedRecord, StorageError> {
    let Some(map) = record.as_object() else {
        return Err(StorageError::invalid_record("A chat record must be an object."));
    };
    let messages = normalize_messages(map.get("messages"), Origin::Imported, now)?;
    let id = bounded_string(map.get("id"), MAX_TOOL_CALL_ID_CHARS);
    let name_source = js::or_else(map.get("name"), &Value::Null);
    let name = if js::is_truthy(Some(name_source)) {
        bounded_string(Some(name_source), MAX_NAME_CHARS)
    } else {
        IMPORTED_CHAT_NAME.to_owned()
    };
    Ok(ImportedRecord {
        id: if is_record_id(&id) { id } else { String::new() },
        project_id: bounded_string(map.get("projectId"), MAX_PROJECT_ID_CHARS),
        name,
        messages,
        created_at: finite_timestamp(map.get("createdAt"), now),
        updated_at: finite_timestamp(map.get("updatedAt"), now),
        user_renamed: js::is_truthy(map.get("userRenamed")),
    })
}

#[cfg(test)]
mod tests;
