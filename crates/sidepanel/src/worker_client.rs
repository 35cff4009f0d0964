//! Requests to the worker and the checks on its answers.

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
    fn new(code: &str, message: impl Into<String>) -> Self {
        WorkerError {
            code: code.to_owned(),
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

/// The data of a successful answer to `request_id`; anything else is an error
/// (a missing answer, another request's answer, a malformed envelope).
pub(crate) fn unwrap_response(request_id: &str, response: &Value) -> Result<Value, WorkerError> {
    if response.get("type").and_then(Value::as_str) != Some(protocol::MessageType::Response.as_str())
        || response.get("requestId").and_then(Value::as_str) != Some(request_id)
    {
        return Err(WorkerError::new(
            "INVALID_RESPONSE",
            "The worker's answer did not match the request.",
        ));
    }
    let payload = &response["payload"];
    match payload.get("ok").and_then(Value::as_bool) {
        Some(true) => payload
            .get("data")
            .cloned()
            .ok_or_else(|| WorkerError::new("INVALID_RESPONSE", "The worker's answer has no data.")),
        Some(false) => {
            let error = &payload["error"];
            let code = error.get("code").and_then(Value::as_str).unwrap_or("REQUEST_FAILED");
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("The request failed.");
            let mut failure = WorkerError::new(code, message);
            failure.details = error.get("details").filter(|d| !d.is_null()).cloned();
            Err(failure)
        }
        None => Err(WorkerError::new(
            "INVALID_RESPONSE",
            "The worker's answer has no ok flag.",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwraps_matching_successes_and_errors() {
        let ok = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": "light"}});
        assert_eq!(unwrap_response("r", &ok), Ok(json!("light")));
        let failed = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "X", "message": "m"}}});
        assert_eq!(unwrap_response("r", &failed), Err(WorkerError::new("X", "m")));
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
