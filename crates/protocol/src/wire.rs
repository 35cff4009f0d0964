//! Small readers for exact JSON objects, shared by the message parsers.
//!
//! They implement the original's field discipline: an object has a fixed set
//! of allowed keys, some of them required; optional fields treat `null` like
//! absence (`x != null`).

use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use serde_json::{Map, Value};

/// An object whose keys have been checked against an allow-list.
pub(crate) struct Fields<'a> {
    pub(crate) map: &'a Map<String, Value>,
    pub(crate) path: String,
}

impl<'a> Fields<'a> {
    /// Checks `map` has only `allowed` keys and every `required` key
    /// (`UNKNOWN_PAYLOAD_FIELD` / `MISSING_PAYLOAD_FIELD`).
    pub(crate) fn exact(
        map: &'a Map<String, Value>,
        path: &str,
        allowed: &[&str],
        required: &[&str],
    ) -> Result<Fields<'a>, ProtocolError> {
        if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err(ProtocolError::new(
                ErrorCode::UnknownPayloadField,
                format!("{path}.{unknown}"),
                format!("Unknown payload field: {unknown}"),
            ));
        }
        if let Some(missing) = required.iter().find(|key| !map.contains_key(**key)) {
            return Err(ProtocolError::new(
                ErrorCode::MissingPayloadField,
                format!("{path}.{missing}"),
                format!("Missing payload field: {missing}"),
            ));
        }
        Ok(Fields {
            map,
            path: path.to_owned(),
        })
    }

    /// The raw value, `None` when absent.
    pub(crate) fn raw(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// The value when present and not `null`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        present(self.map, key)
    }

    pub(crate) fn at(&self, key: &str) -> String {
        format!("{}.{key}", self.path)
    }
}

/// A key's value when present and not `null` (the original's `x != null`).
pub(crate) fn present<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).filter(|v| !v.is_null())
}

/// A string with a non-whitespace character and at most `max` UTF-16 units.
pub(crate) fn bounded_non_blank(value: Option<&Value>, max: usize) -> Option<String> {
    match value {
        Some(Value::String(s)) if js::is_non_blank(s) && js::utf16_len(s) <= max => Some(s.clone()),
        _ => None,
    }
}

/// A string of at most `max` UTF-16 units (possibly empty).
pub(crate) fn bounded_string(value: Option<&Value>, max: usize) -> Option<String> {
    match value {
        Some(Value::String(s)) if js::utf16_len(s) <= max => Some(s.clone()),
        _ => None,
    }
}

pub(crate) fn object(value: Option<&Value>) -> Option<Map<String, Value>> {
    value.and_then(Value::as_object).cloned()
}

pub(crate) fn array(value: Option<&Value>) -> Option<Vec<Value>> {
    value.and_then(Value::as_array).cloned()
}

pub(crate) fn uint(value: Option<&Value>) -> Option<u64> {
    value.and_then(js::as_safe_uint)
}

/// `Ok(None)` when absent or null, `Ok(Some)` when valid, `Err(())` otherwise.
pub(crate) fn optional<T>(value: Option<&Value>, read: impl FnOnce(&Value) -> Option<T>) -> Result<Option<T>, ()> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read(v).map(Some).ok_or(()),
    }
}

/// Serialises a typed value that cannot fail to serialise (plain structs with
/// string keys); the fallback only exists to avoid a panic path.
pub(crate) fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
