//! The one reader of `PROTOCOL_RESPONSE` answers.
//!
//! The panel reads the worker's answers and the worker reads the page's; both
//! need the same three facts (the answer is a response envelope, it answers
//! *this* request, and its payload is exactly a success with data or a
//! failure with a code and a message), so both call [`unwrap_response`]. What
//! differs between the two responders is said by [`Responder`], not by a
//! second parser.

use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{MAX_PAGE_ERROR_CHARS, to_usize};
use crate::message_type::MessageType;
use crate::payloads::{ResponseError, ResponsePayload};
use crate::{Payload, parse_payload};
use serde_json::Value;

/// Who sent the answer, which decides the two rules that differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Responder {
    /// The service worker, answering the panel: a plain envelope.
    Worker,
    /// A typst.app page through the isolated script, answering the worker:
    /// the bridge's `nonce` may still be on it, and the page's error text is
    /// cut to [`MAX_PAGE_ERROR_CHARS`] because the page is untrusted.
    Page,
}

/// Why [`unwrap_response`] produced no data.
#[derive(Debug, Clone, PartialEq)]
pub enum UnwrapError {
    /// The message is not a valid response to the request.
    Invalid(ProtocolError),
    /// The response reports a failure.
    Failed(ResponseError),
}

fn invalid(path: &str, message: &str) -> UnwrapError {
    UnwrapError::Invalid(ProtocolError::new(ErrorCode::InvalidResponse, path, message))
}

fn optional_id(map: &serde_json::Map<String, Value>, key: &str) -> Result<(), UnwrapError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(id)) if js::is_non_blank(id) => Ok(()),
        Some(_) => Err(invalid(
            &format!("$.{key}"),
            &format!("The response's {key} is malformed."),
        )),
    }
}

/// The `data` of the answer to `request_id`; a failure keeps the responder's
/// code, message and details. Anything else — no envelope, another type, an
/// answer to another request, an unknown envelope field or a payload that is
/// neither exact form — is [`UnwrapError::Invalid`].
pub fn unwrap_response(request_id: &str, answer: &Value, responder: Responder) -> Result<Value, UnwrapError> {
    let map = answer
        .as_object()
        .ok_or_else(|| invalid("$", "The answer is not a message."))?;
    if map.get("type").and_then(Value::as_str) != Some(MessageType::Response.as_str()) {
        return Err(invalid("$.type", "The answer is not a response envelope."));
    }
    if map.get("requestId").and_then(Value::as_str) != Some(request_id) {
        return Err(invalid("$.requestId", "The answer belongs to another request."));
    }
    let allowed: &[&str] = match responder {
        Responder::Worker => &["type", "requestId", "runId", "payload"],
        Responder::Page => &["type", "requestId", "runId", "nonce", "payload"],
    };
    if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
        return Err(invalid(
            &format!("$.{unknown}"),
            "The answer has an unknown envelope field.",
        ));
    }
    optional_id(map, "runId")?;
    optional_id(map, "nonce")?;
    let payload = map
        .get("payload")
        .ok_or_else(|| invalid("$.payload", "The answer has no payload."))?;
    let response = match parse_payload(MessageType::Response, payload) {
        Ok(Payload::Response(response)) => response,
        Ok(_) => return Err(invalid("$.payload", "The answer's payload is not a response.")),
        Err(error) => return Err(UnwrapError::Invalid(error)),
    };
    match response {
        ResponsePayload::Ok(data) => Ok(data),
        ResponsePayload::Err(mut error) => {
            if responder == Responder::Page {
                error.message = js::truncate_utf16(&error.message, to_usize(MAX_PAGE_ERROR_CHARS)).to_owned();
            }
            Err(UnwrapError::Failed(error))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failed(result: Result<Value, UnwrapError>) -> Option<ResponseError> {
        match result {
            Err(UnwrapError::Failed(error)) => Some(error),
            _ => None,
        }
    }

    #[test]
    fn successes_and_failures_of_the_request_are_read() {
        let ok = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "runId": "run-1", "payload": {"ok": true, "data": "light"}});
        assert_eq!(unwrap_response("r", &ok, Responder::Worker), Ok(json!("light")));
        let null_data = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": null}});
        assert_eq!(unwrap_response("r", &null_data, Responder::Worker), Ok(Value::Null));
        let detailed = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r",
            "payload": {"ok": false, "error": {"code": "X", "message": "m", "details": {"revertedCount": 1}}}});
        let error = failed(unwrap_response("r", &detailed, Responder::Worker));
        assert_eq!(
            error,
            Some(ResponseError::new("X", "m").with_details(json!({"revertedCount": 1})))
        );
    }

    #[test]
    fn page_answers_may_carry_the_nonce_and_have_their_text_cut() {
        let with_nonce = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "nonce": "n", "payload": {"ok": true, "data": {"x": 1}}});
        assert_eq!(unwrap_response("r", &with_nonce, Responder::Page), Ok(json!({"x": 1})));
        assert!(matches!(
            unwrap_response("r", &with_nonce, Responder::Worker),
            Err(UnwrapError::Invalid(_))
        ));
        let message = "𝔸".repeat(1_500);
        let long = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "PAGE_REQUEST_TIMEOUT", "message": message}}});
        let page = failed(unwrap_response("r", &long, Responder::Page));
        assert_eq!(
            page.map(|e| (e.code, e.message.encode_utf16().count())),
            Some(("PAGE_REQUEST_TIMEOUT".to_owned(), to_usize(MAX_PAGE_ERROR_CHARS)))
        );
        let worker = failed(unwrap_response("r", &long, Responder::Worker));
        assert_eq!(worker.map(|e| e.message.encode_utf16().count()), Some(3_000));
    }

    #[test]
    fn everything_else_is_invalid() {
        let cases = [
            json!(null),
            json!("PROTOCOL_RESPONSE"),
            json!({"type": "PAGE_GET_PROBE", "requestId": "r", "payload": {"ok": true, "data": 1}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "other", "payload": {"ok": true, "data": 1}}),
            json!({"type": "PROTOCOL_RESPONSE", "payload": {"ok": true, "data": 1}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r"}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": 1, "error": {}}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": " ", "message": "m"}}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "X"}}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "runId": 7, "payload": {"ok": true, "data": 1}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "nonce": 1, "payload": {"ok": true, "data": 1}}),
            json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "extra": 1, "payload": {"ok": true, "data": 1}}),
        ];
        for answer in cases {
            for responder in [Responder::Worker, Responder::Page] {
                assert!(
                    matches!(unwrap_response("r", &answer, responder), Err(UnwrapError::Invalid(_))),
                    "{answer} from {responder:?}"
                );
            }
        }
    }
}
