//! Page request envelopes and the checks on the page's answers.

use protocol::response::{Responder, UnwrapError, unwrap_response};
use protocol::{ErrorCode, MessageType};
use serde_json::{Map, Value, json};

/// Why a page request produced no usable answer. `code` is the page's own
/// code when it reported one (`PAGE_REQUEST_TIMEOUT`, `PAGE_UNLOADED`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    /// The stable code: the page's own, or one of this crate's.
    pub code: String,
    /// The sentence for people (at most the page error bound).
    pub message: String,
}

/// The code of an answer that breaks the page contract (shape, bounds or
/// consistency); the isolated script uses the same code.
pub const INVALID_PAGE_RESPONSE: &str = ErrorCode::InvalidPageResponse.as_str();

/// The code of a request stopped by its run or by the user.
pub const CANCELLED: &str = ErrorCode::Cancelled.as_str();

impl PageError {
    /// An error with this code and sentence.
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        PageError {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// An answer that breaks the page contract.
    pub fn invalid(message: impl Into<String>) -> Self {
        PageError::new(INVALID_PAGE_RESPONSE, message)
    }

    /// The request was cancelled (by the run, the user or the page's own
    /// cancellation bookkeeping); callers stop instead of retrying.
    pub fn is_cancelled(&self) -> bool {
        self.code == CANCELLED
    }
}

impl std::error::Error for PageError {}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// The envelope for one page request. Only page request types are accepted.
pub fn page_request(
    message_type: MessageType,
    request_id: &str,
    run_id: Option<&str>,
    payload: Map<String, Value>,
) -> Result<Value, PageError> {
    if !message_type.is_page_request() {
        return Err(PageError::new(
            ErrorCode::NotAPageRequest.as_str(),
            format!("{} is not sent to pages.", message_type.as_str()),
        ));
    }
    let mut envelope = json!({ "type": message_type.as_str(), "requestId": request_id, "payload": payload });
    if let (Some(run_id), Some(object)) = (run_id, envelope.as_object_mut()) {
        object.insert("runId".to_owned(), Value::from(run_id));
    }
    Ok(envelope)
}

/// The `data` of the page's answer to `request_id`. The page is untrusted:
/// an answer to another request, a malformed envelope or a missing answer is
/// an `INVALID_PAGE_RESPONSE`, and an error answer keeps the page's code with
/// its text cut to the page error bound. The envelope rules are protocol's
/// one response reader's ([`unwrap_response`] with [`Responder::Page`]).
pub fn unwrap_page_response(request_id: &str, answer: Option<&Value>) -> Result<Value, PageError> {
    let answer = answer.ok_or_else(|| PageError::invalid("The page did not answer."))?;
    unwrap_response(request_id, answer, Responder::Page).map_err(|error| match error {
        UnwrapError::Invalid(invalid) => PageError::invalid(invalid.message),
        UnwrapError::Failed(failed) => PageError::new(&failed.code, failed.message),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_page_requests_only() {
        let probe = page_request(MessageType::PageGetProbe, "p-1", None, Map::new());
        assert_eq!(
            probe,
            Ok(json!({"type": "PAGE_GET_PROBE", "requestId": "p-1", "payload": {}}))
        );
        let cancel = page_request(MessageType::PageCancelRequest, "p-2", Some("run-1"), Map::new());
        assert_eq!(cancel.map(|e| e["runId"].clone()), Ok(json!("run-1")));
        let wrong = page_request(MessageType::LoadTheme, "p-3", None, Map::new());
        assert_eq!(wrong.map_err(|e| e.code), Err("NOT_A_PAGE_REQUEST".to_owned()));
    }

    #[test]
    fn accepts_matching_answers_and_keeps_page_error_codes() {
        let ok = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "nonce": "n", "payload": {"ok": true, "data": {"x": 1}}});
        assert_eq!(unwrap_page_response("r", Some(&ok)), Ok(json!({"x": 1})));
        let timeout = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "PAGE_REQUEST_TIMEOUT", "message": "late"}}});
        assert_eq!(
            unwrap_page_response("r", Some(&timeout)),
            Err(PageError::new("PAGE_REQUEST_TIMEOUT", "late"))
        );
    }

    #[test]
    fn refuses_everything_else_as_invalid() {
        let cases = [
            None,
            Some(json!(null)),
            Some(json!({"type": "PAGE_GET_PROBE", "requestId": "r", "payload": {"ok": true, "data": 1}})),
            Some(json!({"type": "PROTOCOL_RESPONSE", "requestId": "other", "payload": {"ok": true, "data": 1}})),
            Some(json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true}})),
            Some(
                json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": 1, "error": {}}}),
            ),
            Some(
                json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": " ", "message": "m"}}}),
            ),
        ];
        for answer in cases {
            let result = unwrap_page_response("r", answer.as_ref()).map_err(|e| e.code);
            assert_eq!(result, Err("INVALID_PAGE_RESPONSE".to_owned()), "{answer:?}");
        }
    }

    #[test]
    fn long_page_messages_are_cut_in_utf16_units() {
        let message = "𝔸".repeat(1_500);
        let answer = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": false, "error": {"code": "X", "message": message}}});
        let error = unwrap_page_response("r", Some(&answer))
            .err()
            .map(|e| e.message.encode_utf16().count());
        assert_eq!(error, Some(2_000));
    }
}
