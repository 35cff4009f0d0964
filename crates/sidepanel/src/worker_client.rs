//! Requests to the worker and the checks on its answers.

use protocol::ErrorCode;
use protocol::response::{Responder, UnwrapError};
use serde_json::{Value, json};

/// Why a request to the worker produced no data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkerError {
    pub(crate) code: String,
    pub(crate) message: String,
    /// The error's `details`, when the worker sent any (a stopped revert
    /// reports the steps it completed there).
    pub(crate) details: Option<Value>,
}

impl WorkerError {
    /// An error the panel itself reports, with its catalogue code.
    pub(crate) fn panel(code: ErrorCode, message: impl Into<String>) -> Self {
        WorkerError {
            code: code.as_str().to_owned(),
            message: message.into(),
            details: None,
        }
    }
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

pub(crate) fn request(message_type: protocol::MessageType, request_id: &str, payload: Value) -> Value {
    json!({ "type": message_type.as_str(), "requestId": request_id, "payload": payload })
}

/// A request envelope; run-scoped types carry the run's id beside the payload.
pub(crate) fn run_request(
    message_type: protocol::MessageType,
    request_id: &str,
    run_id: Option<&str>,
    payload: Value,
) -> Value {
    let mut envelope = request(message_type, request_id, payload);
    if let (Some(run_id), Some(map)) = (run_id, envelope.as_object_mut()) {
        map.insert("runId".to_owned(), json!(run_id));
    }
    envelope
}

/// The data of a successful answer to `request_id`, read by protocol's one
/// response reader. An answer that is not a valid response to this request
/// (a missing answer, another request's answer, a malformed envelope or
/// payload) is the panel's `INVALID_RESPONSE`; a failure keeps the worker's
/// code, message and details.
///
/// The reader is strict: a failure must carry a non-blank code and message,
/// where the panel once filled in `REQUEST_FAILED` and a default sentence.
/// The worker (and its shim, when the wasm failed to start) always sends
/// both, so no answer a user can meet reads differently.
pub(crate) fn unwrap_response(request_id: &str, response: &Value) -> Result<Value, WorkerError> {
    protocol::response::unwrap_response(request_id, response, Responder::Worker).map_err(|error| match error {
        UnwrapError::Invalid(_) => WorkerError::panel(
            ErrorCode::InvalidResponse,
            "The worker's answer did not match the request.",
        ),
        UnwrapError::Failed(failure) => WorkerError {
            code: failure.code,
            message: failure.message,
            details: failure.details,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_matching_successes_and_errors() {
        let ok = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": "light"}});
        assert_eq!(unwrap_response("r", &ok), Ok(json!("light")));
        let failed = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "X", "message": "m"}}});
        assert_eq!(
            unwrap_response("r", &failed),
            Err(WorkerError {
                code: "X".to_owned(),
                message: "m".to_owned(),
                details: None
            })
        );
        let detailed = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r",
            "payload": {"ok": false, "error": {"code": "X", "message": "m", "details": {"revertedCount": 1}}}});
        assert_eq!(
            unwrap_response("r", &detailed).map_err(|e| e.details),
            Err(Some(json!({"revertedCount": 1})))
        );
    }

    #[test]
    fn run_requests_carry_the_run_id_and_validate_as_envelopes() {
        use protocol::messages::{ParseOptions, parse_envelope};
        let envelope = run_request(protocol::MessageType::AiStreamCancel, "req-1", Some("run-1"), json!({}));
        assert_eq!(envelope["runId"], "run-1");
        let parsed = parse_envelope(&envelope, &ParseOptions::default()).expect("valid");
        assert_eq!(parsed.run_id.as_deref(), Some("run-1"));
        let plain = run_request(protocol::MessageType::LoadTheme, "req-2", None, json!({}));
        assert!(plain.get("runId").is_none());
        assert!(parse_envelope(&plain, &ParseOptions::default()).is_ok());
    }

    #[test]
    fn refuses_answers_to_other_requests_or_malformed_ones() {
        let other = json!({"type": "PROTOCOL_RESPONSE", "requestId": "other", "payload": {"ok": true, "data": 1}});
        assert_eq!(
            unwrap_response("r", &other).map_err(|e| e.code),
            Err("INVALID_RESPONSE".to_owned())
        );
        assert!(unwrap_response("r", &Value::Null).is_err());
        let no_ok = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {}});
        assert!(unwrap_response("r", &no_ok).is_err());
    }
}
