//! Envelope checks at the worker's door and the response envelopes it sends.
//!
//! The worker answers only messages that carry a `requestId`; everything it
//! answers is a `PROTOCOL_RESPONSE` envelope echoing `requestId` and `runId`.
//! The door parses each message once, with the protocol's exact parser, and
//! hands the routes the typed payload: nothing behind it parses again.

use protocol::{ErrorCode, MessageType, ParseOptions, Payload};
use serde_json::{Value, json};

/// A refused message or a failed request, with a stable code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RequestError {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
    /// Structured facts the panel needs beside the message (e.g. how far a
    /// revert cascade got before it stopped); sent as `error.details`.
    pub(crate) details: Option<Value>,
}

impl RequestError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RequestError {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// A known message type the worker does not serve.
    pub(crate) fn unrouted(message_type: MessageType) -> Self {
        RequestError::new(
            ErrorCode::UnroutedMessage,
            format!("{} has no route in the worker.", message_type.as_str()),
        )
    }

    pub(crate) fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}

/// A message that passed the envelope checks, with its typed payload.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub(crate) request_id: String,
    /// Present whenever the type is run-scoped (the parser requires it).
    pub(crate) run_id: Option<String>,
    pub(crate) payload: Payload,
}

/// The `requestId` of a message, if it is a string: only such messages get an
/// answer, even when they are otherwise invalid.
pub(crate) fn reply_request_id(message: &Value) -> Option<&str> {
    message.get("requestId").and_then(Value::as_str)
}

/// Checks the whole message with the protocol's exact parser: known type,
/// ids where the type needs them, no unknown envelope or payload fields, and
/// every payload bound. The error names the JSON path that failed.
pub(crate) fn check(message: &Value) -> Result<Request, RequestError> {
    let envelope = protocol::parse_envelope(message, &ParseOptions::default()).map_err(|error| {
        let path = if error.path.is_empty() {
            "$".to_owned()
        } else {
            error.path
        };
        RequestError::new(error.code, format!("{} (at {path})", error.message))
    })?;
    Ok(Request {
        request_id: envelope.request_id.unwrap_or_default(),
        run_id: envelope.run_id,
        payload: envelope.payload,
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

pub(crate) fn success(request_id: &str, run_id: Option<&str>, data: Value) -> Value {
    response(request_id, run_id, json!({ "ok": true, "data": data }))
}

pub(crate) fn failure(request_id: &str, run_id: Option<&str>, error: &RequestError) -> Value {
    let mut body = json!({ "code": error.code, "message": error.message });
    if let (Some(details), Some(map)) = (&error.details, body.as_object_mut()) {
        map.insert("details".into(), details.clone());
    }
    response(request_id, run_id, json!({ "ok": false, "error": body }))
}

/// The answer to a message that could not be converted to JSON at all: it is
/// still answered when it names a request (`request_id`), so the sender's
/// channel never waits for an answer that cannot come; `None` otherwise.
/// Only the wasm adapter converts messages.
#[cfg(any(test, target_arch = "wasm32"))]
pub(crate) fn unreadable(request_id: Option<&str>, reason: &str) -> Option<Value> {
    let error = RequestError::new(
        ErrorCode::InvalidEnvelope,
        format!("The message could not be read: {reason}"),
    );
    request_id.map(|id| failure(id, None, &error))
}

/// A request envelope the worker sends (broadcasts carry a fresh requestId).
pub(crate) fn request(message_type: MessageType, request_id: String, payload: Value) -> Value {
    json!({ "type": message_type.as_str(), "requestId": request_id, "payload": payload })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_request_is_still_answered() {
        let answer = unreadable(Some("r-9"), "not JSON");
        assert_eq!(
            answer,
            Some(
                json!({"type": "PROTOCOL_RESPONSE", "requestId": "r-9", "payload": {"ok": false,
                "error": {"code": "INVALID_ENVELOPE", "message": "The message could not be read: not JSON"}}})
            )
        );
        assert_eq!(
            unreadable(None, "not JSON"),
            None,
            "nothing to answer without a request id"
        );
    }

    #[test]
    fn accepts_a_request_and_keeps_its_ids() {
        let request = check(&json!({"type": "LOAD_THEME", "requestId": "r-1", "payload": {}}));
        assert_eq!(
            request.map(|r| (r.payload.message_type(), r.request_id)),
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
            assert_eq!(check(&message).map_err(|e| e.code.as_str()), Err(code), "{message}");
        }
    }

    #[test]
    fn responses_echo_request_and_run_ids() {
        let ok = success("r", Some("run-1"), json!("dark"));
        assert_eq!(
            ok,
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "runId": "run-1", "payload": {"ok": true, "data": "dark"}})
        );
        let err = failure("r", None, &RequestError::new(ErrorCode::RequestFailed, "m"));
        assert_eq!(
            err["payload"],
            json!({"ok": false, "error": {"code": "REQUEST_FAILED", "message": "m"}})
        );
        let detailed = failure(
            "r",
            None,
            &RequestError::new(ErrorCode::EditRevertConflict, "m").with_details(json!({"revertedCount": 1})),
        );
        assert_eq!(
            detailed["payload"]["error"],
            json!({"code": "EDIT_REVERT_CONFLICT", "message": "m", "details": {"revertedCount": 1}})
        );
    }
}
