//! What both record kinds share: how the original read a stored field
//! (`String(value || '')`, `value !== false`, `{...record}`, `===`), the id
//! rule, the normalisation of the acknowledgement and trust fields, and the
//! endpoint and header checks of a save.

use super::errors::{RecordError, RecordField};
use crate::endpoint_policy::{
    HeaderPolicy, InsecureAcknowledgement, InsecureConsent, validate_endpoint_value, validate_header_record,
};
use crate::js;
use crate::limits::{self, to_usize};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub(crate) const TRUSTED: &str = "trustedAutoRun";
pub(crate) const FINGERPRINT: &str = "trustedAutoRunFingerprint";
pub(crate) const ACKNOWLEDGED: &str = "insecureTransportAcknowledged";
pub(crate) const ACKNOWLEDGED_ORIGIN: &str = "insecureTransportAcknowledgedOrigin";
pub(crate) const ENABLED: &str = "enabled";
pub(crate) const HEADERS: &str = "headers";

/// A registry record id: 1 to 128 of `A-Z a-z 0-9 . _ : -`
/// (`^[A-Za-z0-9._:-]{1,128}$`).
pub fn is_record_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= to_usize(limits::MAX_RECORD_ID_CHARS)
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// `String(record[key] || '')`: a string as is, another truthy value as
/// JavaScript prints it, anything falsy as `""`.
pub(crate) fn text<'a>(record: &'a Map<String, Value>, key: &str) -> Cow<'a, str> {
    match record.get(key) {
        Some(Value::String(s)) => Cow::Borrowed(s.as_str()),
        value if js::is_truthy(value) => Cow::Owned(value.map(js::js_string).unwrap_or_default()),
        _ => Cow::Borrowed(""),
    }
}

/// `text` of a value that may not be a record (`value?.[key]`).
pub(crate) fn text_of<'a>(value: &'a Value, key: &str) -> Cow<'a, str> {
    match value {
        Value::Object(record) => text(record, key),
        _ => Cow::Borrowed(""),
    }
}

/// `record.enabled !== false`: only an explicit `false` switches a record off.
pub(crate) fn enabled(record: &Map<String, Value>) -> bool {
    record.get(ENABLED) != Some(&Value::Bool(false))
}

/// A string field, if the record holds a string there.
pub(crate) fn string<'a>(record: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    record.get(key).and_then(Value::as_str)
}

/// `{...value}` for a JSON value: an object's own fields; anything else has
/// none here (the original would spread a string's characters, which no
/// record it stored ever was).
pub(crate) fn spread(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// JavaScript's `a === b` for two optional JSON values: absent equals
/// absent, primitives compare by value (numbers as doubles), and objects or
/// arrays are never equal (they would be two different objects).
pub(crate) fn strict_equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Value::Number(_)), Some(Value::Number(_))) => {
            let (x, y) = (a.and_then(js::as_number), b.and_then(js::as_number));
            x.is_some() && x == y
        }
        (Some(Value::Array(_) | Value::Object(_)), _) | (_, Some(Value::Array(_) | Value::Object(_))) => false,
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// The original's normalisation of a stored record: the acknowledgement
/// recomputed from the URL in `endpoint_field` and the stored origin, then
/// trust kept only while `has_trust` holds, with the fingerprint it was
/// given for (`fingerprint`), else `false` and `null`.
pub(crate) fn normalize(
    mut record: Map<String, Value>,
    endpoint_field: &str,
    has_trust: fn(Option<&Value>) -> bool,
    fingerprint: fn(Option<&Value>) -> String,
) -> Map<String, Value> {
    InsecureAcknowledgement::normalize(&record, endpoint_field).apply_to(&mut record);
    let value = Value::Object(record);
    let current = has_trust(Some(&value)).then(|| fingerprint(Some(&value)));
    let mut record = match value {
        Value::Object(record) => record,
        _ => Map::new(),
    };
    record.insert(TRUSTED.to_owned(), Value::Bool(current.is_some()));
    record.insert(FINGERPRINT.to_owned(), current.map_or(Value::Null, Value::String));
    record
}

/// A form's record with its trust field set: the fingerprint of the record
/// as it stands when the user asked to trust it, else `null`.
pub(crate) fn with_fingerprint(
    mut record: Map<String, Value>,
    trusted: bool,
    fingerprint: fn(Option<&Value>) -> String,
) -> Map<String, Value> {
    record.insert(TRUSTED.to_owned(), Value::Bool(trusted));
    let value = Value::Object(record);
    let stamp = trusted.then(|| fingerprint(Some(&value)));
    let mut record = match value {
        Value::Object(record) => record,
        _ => Map::new(),
    };
    record.insert(FINGERPRINT.to_owned(), stamp.map_or(Value::Null, Value::String));
    record
}

/// The endpoint policy for a normalised record: its URL in `field`, with the
/// acknowledgement bound to its stored origin.
pub(crate) fn check_endpoint(index: usize, field: RecordField, record: &Map<String, Value>) -> Option<RecordError> {
    let consent = InsecureConsent {
        confirmed: false,
        confirmed_origin: string(record, ACKNOWLEDGED_ORIGIN),
    };
    validate_endpoint_value(record.get(field.as_str()), consent)
        .err()
        .map(|error| RecordError::endpoint(index, field, error))
}

/// The header policy for a record's `headers`.
pub(crate) fn check_headers(index: usize, record: &Map<String, Value>, policy: HeaderPolicy) -> Option<RecordError> {
    validate_header_record(record.get(HEADERS), policy)
        .err()
        .map(|error| RecordError::endpoint(index, RecordField::Headers, error))
}

/// `insecureTransportAcknowledged` of a normalised record (only `true` counts).
pub(crate) fn acknowledged(record: &Map<String, Value>) -> bool {
    record.get(ACKNOWLEDGED) == Some(&Value::Bool(true))
}

/// The accessors and the serde form both record kinds have in the same
/// shape: the trust and acknowledgement fields, the stored map, and "any
/// JSON value reads as a stored record" (`from_stored`).
macro_rules! stored_record_accessors {
    ($record:ident) => {
        impl $record {
            /// The user's "run without asking" trust, current for this exact
            /// configuration (normalisation dropped any other).
            pub fn trusted_auto_run(&self) -> bool {
                self.record.get(fields::TRUSTED) == Some(&Value::Bool(true))
            }

            /// The fingerprint the trust was given for, while it holds.
            pub fn trusted_auto_run_fingerprint(&self) -> Option<&str> {
                fields::string(&self.record, fields::FINGERPRINT)
            }

            /// The user acknowledged cleartext HTTP to the endpoint's origin.
            pub fn insecure_transport_acknowledged(&self) -> bool {
                fields::acknowledged(&self.record)
            }

            /// The origin that acknowledgement covers.
            pub fn insecure_transport_acknowledged_origin(&self) -> Option<&str> {
                fields::string(&self.record, fields::ACKNOWLEDGED_ORIGIN)
            }

            /// The record as stored, every field included.
            pub fn record(&self) -> &Map<String, Value> {
                &self.record
            }

            /// The record as stored, every field included.
            pub fn into_record(self) -> Map<String, Value> {
                self.record
            }
        }

        impl serde::Serialize for $record {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serde::Serialize::serialize(&self.record, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $record {
            /// Any JSON value, read as a stored record is.
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$record, D::Error> {
                <Value as serde::Deserialize>::deserialize(deserializer).map(|value| $record::from_stored(&value))
            }
        }
    };
}
pub(super) use stored_record_accessors;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_follow_the_original_pattern() {
        for id in ["a", "tool-1", "a.b_c:d-e", &"x".repeat(128), "0"] {
            assert!(is_record_id(id), "{id}");
        }
        for id in ["", "a b", "a/b", "ä", &"x".repeat(129), "a\n"] {
            assert!(!is_record_id(id), "{id}");
        }
    }

    #[test]
    fn fields_read_as_the_original_reads_them() {
        let record = spread(&json!({"a": "x", "b": 7, "c": null, "d": 0, "e": true, "enabled": "no"}));
        assert_eq!(
            ["a", "b", "c", "d", "e", "z"].map(|k| text(&record, k).into_owned()),
            ["x", "7", "", "", "true", ""]
        );
        assert!(enabled(&record));
        assert!(!enabled(&spread(&json!({"enabled": false}))));
        assert!(spread(&json!("ab")).is_empty());
        assert_eq!(text_of(&json!(null), "a"), "");
    }

    #[test]
    fn strict_equality_is_javascripts() {
        let (one, one_f, a) = (json!(1), json!(1.0), json!("a"));
        assert!(strict_equal(None, None));
        assert!(strict_equal(Some(&one), Some(&one_f)));
        assert!(strict_equal(Some(&a), Some(&json!("a"))));
        assert!(!strict_equal(Some(&a), None));
        assert!(!strict_equal(Some(&json!("1")), Some(&one)));
        assert!(!strict_equal(Some(&json!({})), Some(&json!({}))));
        assert!(strict_equal(Some(&Value::Null), Some(&Value::Null)));
    }
}
