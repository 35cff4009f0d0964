//! The original's `stableId` and the text it hashes for a version-1 chat, so
//! the migration derives the same ids from the same data.
//!
//! The original fingerprints a record with `JSON.stringify({projectId, name,
//! messages})` over its normalised messages. `JSON.stringify` writes object
//! members in insertion order (array-index keys first, ascending), and the
//! normaliser builds every object in a fixed order; `serde_json::Value`
//! sorts its keys. So the text is written here with each known object's
//! member order spelled out. Objects the normaliser copies from stored data
//! (tool-call arguments) have lost their original order on the way into a
//! `Value`; they are written sorted, which matches the original whenever the
//! stored keys were sorted or single.

use crate::sessions::normalize::OMITTED_PREVIEW_REASON;
use protocol::js;
use serde_json::{Map, Value};

/// The reason the original's normaliser gives a preview it leaves out. The
/// port shows its own sentence ([`OMITTED_PREVIEW_REASON`]), but the
/// original hashed its own, so that is what the fingerprint reads.
const ORIGINAL_OMITTED_PREVIEW_REASON: &str = "Preview omitted from stored history to limit local retention.";

/// FNV-1a (32-bit, seeded 2166136261) over the first UTF-16 unit of every
/// code point, printed in unpadded base 36 — the original's `stableId`, so
/// ids derived from the same record match across versions.
pub(crate) fn stable_id(text: &str) -> String {
    let mut hash: u32 = 2_166_136_261;
    for ch in text.chars() {
        let mut units = [0u16; 2];
        let first = ch.encode_utf16(&mut units).first().copied().unwrap_or_default();
        hash = (hash ^ u32::from(first)).wrapping_mul(16_777_619);
    }
    to_base36(hash)
}

fn to_base36(mut value: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS.get((value % 36) as usize).copied().unwrap_or(b'0'));
        value /= 36;
        if value == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `JSON.stringify({projectId, name, messages})` as the original writes it.
pub(crate) fn record_text(project_id: &str, name: &str, messages: &[Value]) -> String {
    let mut out = String::from("{\"projectId\":");
    out.push_str(&js::json_stringify(&Value::from(project_id)));
    out.push_str(",\"name\":");
    out.push_str(&js::json_stringify(&Value::from(name)));
    out.push_str(",\"messages\":[");
    for (index, message) in messages.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        write(message, Shape::Message, &mut out);
    }
    out.push_str("]}");
    out
}

/// Which normaliser built an object, and so the order of its members.
#[derive(Clone, Copy)]
enum Shape {
    Message,
    ActiveFile,
    Attachments,
    Selection,
    Preview,
    Segment,
    Call,
    Summary,
    Diagnostic,
    Receipt,
    /// Copied from stored data: sorted (after array-index keys).
    Free,
}

impl Shape {
    /// Member order of the object the normaliser builds.
    fn order(self) -> &'static [&'static str] {
        match self {
            Shape::Message => &[
                "role",
                "content",
                "activeEditorFile",
                "editorStateUpdates",
                "sentAttachments",
                "responseStatus",
                "reasoning",
                "segments",
                "toolCalls",
            ],
            Shape::ActiveFile => &["projectLabel", "relativePath", "basename", "source", "confidence"],
            Shape::Attachments => &["selections", "previews", "legacyDocument", "legacyDiagnosticsCount"],
            Shape::Selection => &["text", "fileLabel"],
            Shape::Preview => &[
                "dataUrl",
                "width",
                "height",
                "mimeType",
                "thumbnail",
                "omitted",
                "reason",
            ],
            Shape::Segment => &["type", "content", "calls", "results"],
            Shape::Call => &["id", "name", "args"],
            // One list for every summary kind: keys of different kinds never
            // meet in one object, and within each kind this is its order.
            Shape::Summary => &[
                "ok",
                "doc_chars",
                "approx_line_count",
                "start_line",
                "end_line",
                "error_count",
                "warning_count",
                "spelling_count",
                "status_count",
                "total_count",
                "truncated",
                "diagnostics",
                "edits_applied",
                "reviewed_diff",
                "editCheckpoint",
                "warning",
                "error",
                "summary",
            ],
            Shape::Diagnostic => &["severity", "kind", "line", "column", "message"],
            Shape::Receipt => &["id", "status", "fileLabel", "createdAt", "unavailableReason"],
            Shape::Free => &[],
        }
    }

    /// The shape of the value under `key` of an object of this shape.
    fn child(self, key: &str) -> Shape {
        match (self, key) {
            (Shape::Message, "activeEditorFile") => Shape::ActiveFile,
            (Shape::Message, "sentAttachments") => Shape::Attachments,
            (Shape::Message, "segments") => Shape::Segment,
            (Shape::Message | Shape::Segment, "toolCalls" | "calls") => Shape::Call,
            (Shape::Attachments, "selections") => Shape::Selection,
            (Shape::Attachments, "previews") => Shape::Preview,
            (Shape::Segment, "results") => Shape::Summary,
            (Shape::Summary, "diagnostics") => Shape::Diagnostic,
            (Shape::Summary, "editCheckpoint") => Shape::Receipt,
            _ => Shape::Free,
        }
    }
}

/// A canonical array index (`"0"`, `"42"`), which JavaScript lists first.
fn array_index(key: &str) -> Option<u32> {
    let canonical = key == "0" || (!key.starts_with('0') && key.bytes().all(|b| b.is_ascii_digit()));
    if !canonical || key.is_empty() {
        return None;
    }
    key.parse::<u32>().ok().filter(|n| *n < u32::MAX)
}

/// The members of `map` in the order JavaScript would hold them, given the
/// insertion order `order` (keys not named there follow, sorted).
fn member_order<'m>(map: &'m Map<String, Value>, order: &[&str]) -> Vec<&'m str> {
    let mut indices: Vec<(u32, &str)> = map
        .keys()
        .filter_map(|key| array_index(key).map(|n| (n, key.as_str())))
        .collect();
    protocol::js::sort_by(&mut indices, Ord::cmp);
    let mut keys: Vec<&str> = indices.into_iter().map(|(_, key)| key).collect();
    for name in order {
        if let Some((key, _)) = map.get_key_value(*name)
            && !keys.contains(&key.as_str())
        {
            keys.push(key.as_str());
        }
    }
    for key in map.keys() {
        if !keys.contains(&key.as_str()) {
            keys.push(key.as_str());
        }
    }
    keys
}

fn write(value: &Value, shape: Shape, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write(item, shape, out);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(map, shape, out),
        scalar => out.push_str(&js::json_stringify(scalar)),
    }
}

fn write_object(map: &Map<String, Value>, shape: Shape, out: &mut String) {
    // A segment's results were assigned in the order of its calls.
    let call_ids: Vec<&str> = match (shape, map.get("calls")) {
        (Shape::Segment, Some(Value::Array(calls))) => calls
            .iter()
            .filter_map(|call| call.get("id").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    };
    out.push('{');
    for (index, key) in member_order(map, shape.order()).into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&js::json_stringify(&Value::from(key)));
        out.push(':');
        let child = map.get(key).unwrap_or(&Value::Null);
        match (shape, key, child) {
            (Shape::Segment, "results", Value::Object(results)) => {
                write_results(results, &call_ids, out);
            }
            (Shape::Preview, "reason", Value::String(reason)) if reason == OMITTED_PREVIEW_REASON => {
                out.push_str(&js::json_stringify(&Value::from(ORIGINAL_OMITTED_PREVIEW_REASON)));
            }
            _ => write(child, shape.child(key), out),
        }
    }
    out.push('}');
}

fn write_results(results: &Map<String, Value>, call_ids: &[&str], out: &mut String) {
    out.push('{');
    for (index, key) in member_order(results, call_ids).into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&js::json_stringify(&Value::from(key)));
        out.push(':');
        write(results.get(key).unwrap_or(&Value::Null), Shape::Summary, out);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stable_ids_match_the_original_hash() {
        // FNV-1a of the empty string is the seed itself.
        assert_eq!(stable_id(""), to_base36(2_166_136_261));
        // "a": (2166136261 ^ 97) * 16777619 mod 2^32 = 0xe40c292c.
        assert_eq!(stable_id("a"), to_base36(0xe40c_292c));
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(35), "z");
        assert_eq!(to_base36(36), "10");
        // Astral characters hash by their high surrogate only (U+1F600 and
        // U+1F601 share 0xD83D).
        assert_eq!(stable_id("\u{1F600}"), stable_id("\u{1F601}"));
        assert_ne!(stable_id("ab"), stable_id("ba"));
    }

    #[test]
    fn records_are_written_in_the_normalisers_member_order() {
        let messages = [
            json!({"content": "hi", "role": "user", "sentAttachments": {"selections": [{"fileLabel": "a", "text": "t"}]}}),
            json!({"content": "", "role": "assistant", "segments": [{"calls": [{"args": {"b": 1, "a": 2}, "id": "z", "name": "n"}, {"args": {}, "id": "7", "name": "n"}], "results": {"7": {"ok": true, "summary": "s"}, "z": {"error": "e", "ok": false}}, "type": "tools"}]}),
        ];
        assert_eq!(
            record_text("p", "N", &messages),
            concat!(
                r#"{"projectId":"p","name":"N","messages":[{"role":"user","content":"hi","sentAttachments":"#,
                r#"{"selections":[{"text":"t","fileLabel":"a"}]}},{"role":"assistant","content":"","segments":"#,
                r#"[{"type":"tools","calls":[{"id":"z","name":"n","args":{"a":2,"b":1}},{"id":"7","name":"n","args":{}}],"#,
                r#""results":{"7":{"ok":true,"summary":"s"},"z":{"ok":false,"error":"e"}}}]}]}"#
            )
        );
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("07"), None);
        assert_eq!(array_index("4294967295"), None);
        assert_eq!(array_index("x1"), None);
    }
}
