//! The repaired form of a version-1 chat that fails the display schema.
//!
//! The original counted such a chat as rejected and then deleted the
//! version-1 store, so the chat was gone. Here it is migrated in a form that
//! passes the schema, with what broke it minimised the way the retention
//! rules minimise stored data: over-long texts are cut to the schema's
//! bound, over-long tool arguments become `{omitted: true}`, calls without
//! a valid id or name are dropped with their results, other parts the schema
//! refuses are dropped, and a message that still fails keeps only its role
//! and text. Messages that are not user or assistant display messages (a
//! provider's `tool` message) are left out, and a chat longer than the schema
//! allows keeps its latest messages. Nothing is lost: the record as stored is
//! kept in the migration backup beside it (see `migration`).

use crate::sessions::normalize::{
    ImportedRecord, MAX_MESSAGE_CHARS, MAX_MESSAGES, MAX_SEGMENTS, MAX_TOOL_CALLS, Origin, normalize_imported_record,
    normalize_message, normalize_tool_call,
};
use protocol::js;
use serde_json::{Map, Value, json};

/// The repaired record, or `None` when the record is not an object at all.
pub(crate) fn repair_record(raw: &Value, now: f64) -> Option<ImportedRecord> {
    let map = raw.as_object()?;
    let messages: Vec<Value> = map
        .get("messages")
        .and_then(Value::as_array)
        .map(|messages| messages.iter().filter_map(|m| repair_message(m, now)).collect())
        .unwrap_or_default();
    let skip = messages.len().saturating_sub(MAX_MESSAGES);
    let mut repaired = map.clone();
    repaired.insert(
        "messages".into(),
        Value::Array(messages.into_iter().skip(skip).collect()),
    );
    normalize_imported_record(&Value::Object(repaired), now).ok()
}

/// A display message that passes the schema, or `None` for one that is no
/// display message.
fn repair_message(message: &Value, now: f64) -> Option<Value> {
    if normalize_message(message, Origin::Imported, now).is_ok() {
        return Some(message.clone());
    }
    let map = message.as_object()?;
    let role = map
        .get("role")
        .and_then(Value::as_str)
        .filter(|r| *r == "user" || *r == "assistant")?;
    let bounded = bounded_message(map);
    if normalize_message(&bounded, Origin::Imported, now).is_ok() {
        return Some(bounded);
    }
    Some(json!({ "role": role, "content": bounded_text(map.get("content")) }))
}

/// A text cut to the schema's bound; anything else as JSON text.
fn bounded_text(value: Option<&Value>) -> String {
    let text = match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => js::json_stringify(other),
    };
    js::truncate_utf16(&text, MAX_MESSAGE_CHARS).to_owned()
}

/// The message with every part the schema bounds cut to its bound.
fn bounded_message(map: &Map<String, Value>) -> Value {
    let mut out = map.clone();
    out.insert("content".into(), Value::String(bounded_text(map.get("content"))));
    if let Some(reasoning) = map.get("reasoning").filter(|r| !r.is_null()) {
        out.insert("reasoning".into(), Value::String(bounded_text(Some(reasoning))));
    }
    if !matches!(map.get("responseStatus"), Some(Value::String(s)) if s == "complete" || s == "incomplete") {
        out.remove("responseStatus");
    }
    if !map.get("sentAttachments").is_none_or(|s| s.is_object() || s.is_null()) {
        out.remove("sentAttachments");
    }
    if !map.get("editorStateUpdates").is_none_or(Value::is_null) {
        // Local state only; the normaliser drops it from migrated chats anyway.
        out.remove("editorStateUpdates");
    }
    match map.get("toolCalls") {
        Some(Value::Array(calls)) => {
            out.insert("toolCalls".into(), Value::Array(bounded_calls(calls)));
        }
        Some(Value::Null) | None => {}
        Some(_) => {
            out.remove("toolCalls");
        }
    }
    match map.get("segments") {
        Some(Value::Array(segments)) => {
            let kept: Vec<Value> = segments.iter().filter_map(bounded_segment).take(MAX_SEGMENTS).collect();
            out.insert("segments".into(), Value::Array(kept));
        }
        Some(Value::Null) | None => {}
        Some(_) => {
            out.remove("segments");
        }
    }
    Value::Object(out)
}

fn bounded_segment(segment: &Value) -> Option<Value> {
    let map = segment.as_object()?;
    match map.get("type").and_then(Value::as_str)? {
        kind @ ("text" | "reasoning") => Some(json!({ "type": kind, "content": bounded_text(map.get("content")) })),
        "tools" => {
            let calls = bounded_calls(map.get("calls").and_then(Value::as_array)?);
            let mut out = map.clone();
            out.insert("calls".into(), Value::Array(calls));
            Some(Value::Object(out))
        }
        _ => None,
    }
}

/// At most the schema's number of calls, each with a valid id and name;
/// arguments the schema refuses (too long, not an object, not JSON) become
/// `{omitted: true}`.
fn bounded_calls(calls: &[Value]) -> Vec<Value> {
    calls
        .iter()
        .filter_map(|call| {
            let mut call = call.clone();
            if normalize_tool_call(&call).is_err()
                && let Some(map) = call.as_object_mut()
            {
                map.insert("args".into(), json!({ "omitted": true }));
            }
            normalize_tool_call(&call).is_ok().then_some(call)
        })
        .take(MAX_TOOL_CALLS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_long_arguments_are_omitted_and_tool_messages_left_out() {
        let big = "x".repeat(17_000);
        let raw = json!({"id": "c", "projectId": "p", "name": "N", "messages": [
            {"role": "user", "content": "q"},
            {"role": "tool", "content": "raw"},
            {"role": "assistant", "content": "a", "toolCalls": [{"id": "k", "name": "patch_document", "args": {"x": big}}, {"id": "bad id", "name": "n"}],
             "segments": [{"type": "tools", "calls": [{"id": "k", "name": "patch_document", "args": {"x": big}}], "results": {"k": {"ok": true}}}, {"type": "odd"}]},
        ]});
        let record = repair_record(&raw, 1.0).expect("repaired");
        assert_eq!(record.messages.len(), 2);
        assert_eq!(
            record.messages[1]["toolCalls"],
            json!([{"id": "k", "name": "patch_document", "args": {"omitted": true}}])
        );
        assert_eq!(record.messages[1]["segments"].as_array().map(Vec::len), Some(1));
        assert_eq!(
            record.messages[1]["segments"][0]["calls"][0]["args"],
            json!({"omitted": true})
        );
    }

    #[test]
    fn over_long_texts_are_cut_and_chats_keep_their_latest_messages() {
        let many: Vec<Value> = (0..1_005)
            .map(|i| json!({"role": "user", "content": format!("m{i}")}))
            .collect();
        let record = repair_record(&json!({"messages": many}), 1.0).expect("repaired");
        assert_eq!(record.messages.len(), MAX_MESSAGES);
        assert_eq!(record.messages[0]["content"], json!("m5"));
        let long = json!({"messages": [{"role": "user", "content": "y".repeat(MAX_MESSAGE_CHARS + 5)}, {"role": "assistant", "content": 7}]});
        let record = repair_record(&long, 1.0).expect("repaired");
        assert_eq!(
            record.messages[0]["content"].as_str().map(js::utf16_len),
            Some(MAX_MESSAGE_CHARS)
        );
        assert_eq!(record.messages[1]["content"], json!("7"));
        assert_eq!(repair_record(&json!("not a chat"), 1.0), None);
        assert_eq!(
            repair_record(&json!({"messages": "broken"}), 1.0).map(|r| r.messages),
            Some(vec![])
        );
    }
}
