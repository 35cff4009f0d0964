//! Envelope checks at the worker's door and the response envelopes it sends.
//!
//! The worker answers only messages that carry a `requestId`; everything it
//! answers is a `PROTOCOL_RESPONSE` envelope echoing `requestId` and `runId`.

use protocol::MessageType;
use serde_json::{Map, Value, json};

/// A refused message or a failed request, with a stable code.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    pub code: &'static str,
    pub message: String,
    pub path: &'static str,
}

impl RequestError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        RequestError {
            code,
            message: message.into(),
            path: "$",
        }
    }

    fn at(code: &'static str, path: &'static str, message: impl Into<String>) -> Self {
        RequestError {
            code,
            message: message.into(),
            path,
        }
    }
}

/// A message that passed the envelope checks.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub message_type: MessageType,
    pub request_id: String,
    pub run_id: Option<String>,
    pub payload: Map<String, Value>,
}

fn non_blank(value: Option<&Value>) -> Option<&str> {
    value.and_then(Value::as_str).filter(|text| !text.trim().is_empty())
}

/// The `requestId` of a message, if it is a string: only such messages get an
/// answer, even when they are otherwise invalid.
pub fn reply_request_id(message: &Value) -> Option<&str> {
    message.get("requestId").and_then(Value::as_str)
}

/// Checks the envelope: known type, non-blank `requestId` for requests and
/// responses, non-blank `runId` for run-scoped types, an object payload.
pub fn check(message: &Value) -> Result<Request, RequestError> {
    let Some(object) = message.as_object() else {
        return Err(RequestError::new("INVALID_ENVELOPE", "A message must be an object."));
    };
    let message_type = object
        .get("type")
        .and_then(Value::as_str)
        .and_then(MessageType::from_wire)
        .ok_or_else(|| RequestError::at("UNKNOWN_MESSAGE_TYPE", "$.type", "The message type is not known."))?;
    let request_id = non_blank(object.get("requestId"));
    if message_type.requires_request_id() && request_id.is_none() {
        return Err(RequestError::at(
            "INVALID_REQUEST_ID",
            "$.requestId",
            format!("{} needs a requestId.", message_type.as_str()),
        ));
    }
    let run_id = non_blank(object.get("runId"));
    if message_type.is_run_scoped() && run_id.is_none() {
        return Err(RequestError::at(
            "INVALID_RUN_ID",
            "$.runId",
            format!("{} needs a runId.", message_type.as_str()),
        ));
    }
    let Some(payload) = object.get("payload").and_then(Value::as_object) else {
        return Err(RequestError::at(
            "INVALID_PAYLOAD",
            "$.payload",
            "The payload must be an object.",
        ));
    };
    Ok(Request {
        message_type,
        request_id: request_id.unwrap_or_default().to_owned(),
        run_id: run_id.map(str::to_owned),
        payload: payload.clone(),
    })
}

fn response(request_id: &str, run_id: Option<&str>, payload: Value) -> Value {
    let mut envelope = json!({
        "type": MessageType::Response.as_str(),
        "requestId": request_id,
        "payload": payload,
    });
    if let (Some(run_id), Some(object)) = (run_id, envelope.as_object_mut()) {
        object.insert("runId".into(), Value::String(run_id.to_owned()));
    }
    envelope
}

pub fn success(request_id: &str, run_id: Option<&str>, data: Value) -> Value {
    response(request_id, run_id, json!({ "ok": true, "data": data }))
}

pub fn failure(request_id: &str, run_id: Option<&str>, error: &RequestError) -> Value {
    response(
        request_id,
        run_id,
        json!({ "ok": false, "error": { "code": error.code, "message": error.message } }),
    )
}

/// A request envelope the worker sends (broadcasts carry a fresh requestId).
pub fn request(message_type: MessageType, request_id: String, payload: Value) -> Value {
    json!({ "type": message_type.as_str(), "requestId": request_id, "payload": payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_request_and_keeps_its_ids() {
        let request = check(&json!({"type": "LOAD_THEME", "requestId": "r-1", "payload": {}}));
        assert_eq!(
            request.map(|r| (r.message_type, r.request_id)),
            Ok((MessageType::LoadTheme, "r-1".into()))
        );
    }

    #[test]
    fn refuses_each_broken_envelope_with_its_code() {
        let cases = [
            (json!([]), "INVALID_ENVELOPE"),
            (
                json!({"type": "NOPE", "requestId": "r", "payload": {}}),
                "UNKNOWN_MESSAGE_TYPE",
            ),
            (
                json!({"type": "LOAD_THEME", "requestId": "  ", "payload": {}}),
                "INVALID_REQUEST_ID",
            ),
            (
                json!({"type": "AI_STREAM_CANCEL", "requestId": "r", "payload": {}}),
                "INVALID_RUN_ID",
            ),
            (
                json!({"type": "LOAD_THEME", "requestId": "r", "payload": []}),
                "INVALID_PAYLOAD",
            ),
        ];
        for (message, code) in cases {
            assert_eq!(check(&message).map_err(|e| e.code), Err(code), "{message}");
        }
    }

    #[test]
    fn responses_echo_request_and_run_ids() {
        let ok = success("r", Some("run-1"), json!("dark"));
        assert_eq!(
            ok,
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "runId": "run-1", "payload": {"ok": true, "data": "dark"}})
        );
        let err = failure("r", None, &RequestError::new("X", "m"));
        assert_eq!(
            err["payload"],
            json!({"ok": false, "error": {"code": "X", "message": "m"}})
        );
    }
}
