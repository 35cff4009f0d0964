//! Tests of the byte-capped, depth-limited first reading of page answers.

use super::*;
use serde_json::json;

fn answer_text(data: &Value) -> String {
    json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "nonce": "n", "payload": {"ok": true, "data": data}})
        .to_string()
}

fn code(request: MessageType, text: &str) -> Option<String> {
    parse_page_answer(request, "r", Some(text)).err().map(|e| e.code)
}

fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn reads_a_bounded_answer_to_its_data() {
    let text = answer_text(&json!({"cancelled": true}));
    assert_eq!(
        parse_page_answer(MessageType::PageCancelRequest, "r", Some(&text)),
        Ok(json!({"cancelled": true}))
    );
}

#[test]
fn a_missing_answer_or_a_wrong_envelope_is_an_invalid_page_response() {
    let invalid = Some("INVALID_PAGE_RESPONSE".to_owned());
    assert_eq!(
        parse_page_answer(MessageType::PageGetProbe, "r", None)
            .err()
            .map(|e| e.code),
        invalid
    );
    assert_eq!(code(MessageType::PageGetProbe, "null"), invalid);
    assert_eq!(code(MessageType::PageGetProbe, "[]"), invalid);
    let other = answer_text(&json!({})).replace("\"r\"", "\"other\"");
    assert_eq!(code(MessageType::PageGetProbe, &other), invalid);
}

#[test]
fn an_answer_over_its_type_cap_is_refused_before_it_is_parsed() {
    for request in [
        MessageType::PageGetContext,
        MessageType::PageGetPreview,
        MessageType::PageGetDiagnostics,
        MessageType::PageGetProbe,
        MessageType::PageApplyEdit,
        MessageType::PageShowEditPreview,
        MessageType::PageClearEditPreview,
        MessageType::PageCancelRequest,
    ] {
        let cap = max_answer_bytes(request);
        // Not even JSON: only the length can have refused it.
        let over = "x".repeat(cap + 1);
        assert_eq!(
            code(request, &over),
            Some("PAGE_ANSWER_TOO_LARGE".to_owned()),
            "{request:?}"
        );
        let at_cap = format!("x{}", " ".repeat(cap - 1));
        assert_eq!(
            code(request, &at_cap),
            Some("PAGE_ANSWER_MALFORMED".to_owned()),
            "{request:?}"
        );
    }
}

#[test]
fn the_cap_counts_utf8_bytes_not_characters() {
    let cap = max_answer_bytes(MessageType::PageGetProbe);
    // Fewer characters than the cap, more bytes.
    let text = "é".repeat(cap / 2 + 1);
    assert!(text.chars().count() < cap);
    assert_eq!(
        code(MessageType::PageGetProbe, &text),
        Some("PAGE_ANSWER_TOO_LARGE".to_owned())
    );
}

#[test]
fn a_sixty_megabyte_error_string_is_refused_unread() {
    let message = "e".repeat(60 * 1024 * 1024);
    let text = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r",
        "payload": {"ok": false, "error": {"code": "X", "message": message}}})
    .to_string();
    for request in [MessageType::PageGetContext, MessageType::PageApplyEdit] {
        let error = parse_page_answer(request, "r", Some(&text)).err();
        assert_eq!(error.as_ref().map(|e| e.code.as_str()), Some("PAGE_ANSWER_TOO_LARGE"));
        // The refusal names the request and cap, never the page's text.
        assert!(error.is_some_and(|e| e.message.len() < 200 && !e.message.contains("eee")));
    }
}

#[test]
fn deep_nesting_is_malformed_not_a_stack_overflow() {
    let deep = answer_text(&json!({})).replace("{}", &nested_arrays(5_000));
    let error = parse_page_answer(MessageType::PageGetContext, "r", Some(&deep)).err();
    assert_eq!(error.as_ref().map(|e| e.code.as_str()), Some("PAGE_ANSWER_MALFORMED"));
    assert!(error.is_some_and(|e| e.message.contains("nested deeper than 128")));
    // Just inside the limit still parses (the envelope and payload take two levels).
    let inside = answer_text(&json!({})).replace("{}", &nested_arrays(120));
    assert!(parse_page_answer(MessageType::PageGetContext, "r", Some(&inside)).is_ok());
}

#[test]
fn text_that_is_not_json_is_malformed_and_not_quoted_back() {
    for text in ["", "{", "{\"type\": secret-text}", "\u{0}"] {
        let error = parse_page_answer(MessageType::PageGetProbe, "r", Some(text)).err();
        assert_eq!(
            error.as_ref().map(|e| e.code.as_str()),
            Some("PAGE_ANSWER_MALFORMED"),
            "{text:?}"
        );
        assert!(error.is_some_and(|e| !e.message.contains("secret")));
    }
}

#[test]
fn page_error_answers_keep_their_code_and_a_bounded_message() {
    let message = "m".repeat(5_000);
    let text = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r",
        "payload": {"ok": false, "error": {"code": "PAGE_REQUEST_TIMEOUT", "message": message}}})
    .to_string();
    let error = parse_page_answer(MessageType::PageGetContext, "r", Some(&text)).err();
    assert_eq!(
        error.map(|e| (e.code, e.message.len())),
        Some(("PAGE_REQUEST_TIMEOUT".to_owned(), 2_000))
    );
}

#[test]
fn every_cap_leaves_room_for_the_largest_data_its_checks_accept() {
    use protocol::limits::*;
    let room = |request| max_answer_bytes(request) - to_usize(PAGE_ANSWER_ENVELOPE_BYTES);
    assert_eq!(
        room(MessageType::PageGetContext),
        3 * to_usize(MAX_CONTEXT_RESPONSE_CHARS)
    );
    assert!(room(MessageType::PageGetPreview) > to_usize(MAX_PREVIEW_DATA_URL_CHARS));
    assert_eq!(
        room(MessageType::PageGetDiagnostics),
        3 * to_usize(MAX_PAGE_DIAGNOSTICS_CHARS)
    );
    assert_eq!(room(MessageType::PageApplyEdit), 3 * to_usize(MAX_EDIT_RESULT_CHARS));
    // An ok:false answer with the longest code and message, all escaped, fits the smallest cap.
    let escaped = "\u{1}";
    let text = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r".repeat(200), "runId": "u".repeat(200),
        "nonce": "n".repeat(200), "payload": {"ok": false, "error": {
            "code": escaped.repeat(to_usize(MAX_ERROR_CODE_CHARS)),
            "message": escaped.repeat(to_usize(MAX_PAGE_ERROR_CHARS))}}})
    .to_string();
    assert!(text.len() <= max_answer_bytes(MessageType::PageCancelRequest));
}
