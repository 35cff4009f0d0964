//! The field checks and record shapes both journals' stored formats share:
//! the index envelope `{version, entries}`, the body record
//! `{version, id, <field>}` and the bounded fields of an entry. Anything a
//! check does not accept makes the journal fail closed.

use protocol::js;
use protocol::limits::{self, to_usize};
use serde_json::{Map, Value, json};

pub(crate) fn is_sha256(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

pub(crate) fn string_field<'m>(map: &'m Map<String, Value>, key: &str) -> Option<&'m str> {
    map.get(key).and_then(Value::as_str)
}

/// A string of 1..=`max` UTF-16 code units.
pub(crate) fn bounded_string(map: &Map<String, Value>, key: &str, max: u32) -> Option<String> {
    string_field(map, key)
        .filter(|value| !value.is_empty() && js::utf16_len(value) <= to_usize(max))
        .map(str::to_owned)
}

/// `null`/absent, or else `Some(valid)`; an invalid present value is `Err`.
pub(crate) fn nullable<T>(
    map: &Map<String, Value>,
    key: &str,
    parse: impl Fn(&Value) -> Option<T>,
) -> Result<Option<T>, ()> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => parse(value).map(Some).ok_or(()),
    }
}

pub(crate) fn hash_value(value: &Value) -> Option<String> {
    value.as_str().filter(|s| is_sha256(s)).map(str::to_owned)
}

/// A document length: an integer 0..=1,000,000 (JSON `1.0` counts).
pub(crate) fn length_value(value: &Value) -> Option<u64> {
    js::as_safe_uint(value).filter(|n| *n <= u64::from(limits::MAX_EDITOR_TRANSACTION_CHARS))
}

/// A finite number ≥ 0 (timestamps, byte counts).
pub(crate) fn non_negative(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key)
        .and_then(js::as_number)
        .filter(|n| n.is_finite() && *n >= 0.0)
}

pub(crate) fn optional_value<T: Into<Value>>(value: Option<T>) -> Value {
    value.map_or(Value::Null, Into::into)
}

/// The body record `{version, id, <field>: text}` of one entry.
pub(crate) fn body_value(version: u32, id: &str, field: &str, text: &str) -> Value {
    let mut body = json!({ "version": version, "id": id });
    if let Some(map) = body.as_object_mut() {
        map.insert(field.to_owned(), Value::from(text));
    }
    body
}

/// The text of a body record, if it is the right version and belongs to `id`.
pub(crate) fn body_text(body: Option<Value>, version: u32, id: &str, field: &str) -> Option<String> {
    let body = body?;
    let map = body.as_object()?;
    let version_ok = map.get("version").and_then(js::as_number) == Some(f64::from(version));
    if !version_ok || string_field(map, "id") != Some(id) {
        return None;
    }
    string_field(map, field).map(str::to_owned)
}

/// The entries of a stored `{version, entries: [..]}` index; `None` when the
/// envelope is not this journal's version and shape.
pub(crate) fn index_entries(index: &Value, version: u32) -> Option<&Vec<Value>> {
    let map = index.as_object()?;
    if map.get("version").and_then(js::as_number) != Some(f64::from(version)) {
        return None;
    }
    map.get("entries").and_then(Value::as_array)
}
