//! The answer to every request (`PROTOCOL_RESPONSE`): `{ok:true, data}` or
//! `{ok:false, error:{code, message, details?}}`.
//!
//! `data` stays opaque here; each requester checks the data of the request
//! it made (see [`crate::page_response`] for the page's answers).

use super::fields::{PAYLOAD, exact, fail};
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// The `error` of a failed response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseError {
    /// The stable code callers branch on.
    pub code: String,
    /// The sentence for people.
    pub message: String,
    /// Anything more the answerer knows (a JSON path, a limit).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub details: Option<Value>,
}

impl ResponseError {
    /// An error without details.
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> ResponseError {
        ResponseError {
            code: code.into(),
            message: message.into(),
            details: None,
        }
    }

    /// A bare message becomes `INTERNAL_ERROR` (the original's string case).
    pub fn internal(message: impl Into<String>) -> ResponseError {
        ResponseError::new(ErrorCode::InternalError.as_str(), message)
    }

    /// Attaches details (`null` means none).
    pub fn with_details(mut self, details: Value) -> ResponseError {
        self.details = (!details.is_null()).then_some(details);
        self
    }
}

impl From<ProtocolError> for ResponseError {
    fn from(error: ProtocolError) -> ResponseError {
        ResponseError::new(error.code.as_str(), error.message).with_details(serde_json::json!({ "path": error.path }))
    }
}

/// `PROTOCOL_RESPONSE` payload: `{ok:true, data}` or
/// `{ok:false, error:{code, message, details?}}`.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponsePayload {
    /// The request succeeded with this data.
    Ok(Value),
    /// The request failed.
    Err(ResponseError),
}

/// The `ok` flag is not a field of either variant, so the wire form is
/// written by hand.
impl Serialize for ResponsePayload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        match self {
            ResponsePayload::Ok(data) => {
                map.serialize_entry("ok", &true)?;
                map.serialize_entry("data", data)?;
            }
            ResponsePayload::Err(error) => {
                map.serialize_entry("ok", &false)?;
                map.serialize_entry("error", error)?;
            }
        }
        map.end()
    }
}

impl ResponsePayload {
    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }

    /// The data, or the error, as a `Result`.
    pub fn into_result(self) -> Result<Value, ResponseError> {
        match self {
            ResponsePayload::Ok(data) => Ok(data),
            ResponsePayload::Err(error) => Err(error),
        }
    }

    pub(crate) fn parse(payload: &Map<String, Value>) -> Result<ResponsePayload, ProtocolError> {
        let f = exact(payload, &["ok", "data", "error"], &["ok"])?;
        let invalid = |path: &str, message: &str| fail(ErrorCode::InvalidResponse, path, message);
        match f.raw("ok") {
            Some(Value::Bool(true)) => {
                if !payload.contains_key("data") || payload.contains_key("error") {
                    return Err(invalid(PAYLOAD, "Successful response must contain data only"));
                }
                Ok(ResponsePayload::Ok(payload.get("data").cloned().unwrap_or(Value::Null)))
            }
            Some(Value::Bool(false)) => {
                if payload.contains_key("data") {
                    return Err(invalid("$.payload.data", "Failed response must not contain data"));
                }
                parse_error(f.raw("error")).map(ResponsePayload::Err)
            }
            _ => Err(invalid("$.payload.ok", "Response ok must be a boolean")),
        }
    }
}

/// A failed response's `error`: exactly `{code, message, details?}` with a
/// non-blank code and message.
fn parse_error(value: Option<&Value>) -> Result<ResponseError, ProtocolError> {
    let message = "Failed response must contain a structured error";
    let invalid = |path: &str| fail(ErrorCode::InvalidResponse, path, message);
    let error = value
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("$.payload.error"))?;
    if error
        .keys()
        .any(|k| !matches!(k.as_str(), "code" | "message" | "details"))
    {
        return Err(invalid("$.payload.error"));
    }
    let text = |key: &str| {
        error
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| js::is_non_blank(s))
            .map(str::to_owned)
            .ok_or_else(|| invalid(&format!("$.payload.error.{key}")))
    };
    Ok(ResponseError {
        code: text("code")?,
        message: text("message")?,
        details: error.get("details").filter(|d| !d.is_null()).cloned(),
    })
}
