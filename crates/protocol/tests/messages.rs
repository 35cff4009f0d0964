//! The message contract: what the original's `protocol` and `quick-attach`
//! tests pin down, plus one accepted and one rejected payload for every one
//! of the 62 message types.

use protocol::messages::{Responder, UnwrapError, unwrap_response};
use protocol::payloads::{ResponseError, SessionRef};
use protocol::{Envelope, ErrorCode, MessageKind, MessageType, ParseOptions, Payload, parse_envelope};
use serde_json::{Value, json};
use std::collections::HashSet;

fn envelope_for(ty: MessageType, payload: Value) -> Value {
    let mut message = json!({"type": ty.as_str(), "payload": payload});
    if ty.requires_request_id() {
        message["requestId"] = json!("req-1");
    }
    if ty.is_run_scoped() {
        message["runId"] = json!("run-1");
    }
    message
}

fn parse(message: &Value) -> Result<Envelope, protocol::ProtocolError> {
    parse_envelope(message, &ParseOptions::default())
}

fn code_of(message: &Value) -> Option<ErrorCode> {
    parse(message).err().map(|e| e.code)
}

fn preview() -> Value {
    json!({"kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
        "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "rows": [
            {"kind": "delete", "oldLine": 1, "newLine": null, "text": "old"},
            {"kind": "insert", "oldLine": null, "newLine": 1, "text": "new"}]}]})
}

fn snapshot() -> Value {
    json!({"id": "snapshot-one", "kind": "automatic", "projectId": "project-a", "fileLabel": "main.typ",
        "title": "After latest response", "createdAt": 100, "textLength": 12, "sessionId": "session-a"})
}

fn active_file() -> Value {
    json!({"projectLabel": "Project", "relativePath": "chapters/intro.typ", "basename": "intro.typ",
        "source": "header_breadcrumb", "confidence": "high"})
}

/// (type, accepted payload, rejected payload, expected code).
fn cases() -> Vec<(MessageType, Value, Value, ErrorCode)> {
    use ErrorCode as E;
    use MessageType as T;
    let scope = json!({"tabId": 7, "projectId": "project-a", "sessionId": "session-a"});
    let edit = json!({"expectedText": "old", "expectedEditorToken": "editor-1", "expectedFileLabel": "main.typ",
        "changes": [{"from": 0, "to": 3, "insert": "new"}], "callId": "call-edit"});
    let approval = json!({"callId": "call-edit", "name": "search_replace", "identity": "builtin:search_replace",
        "effect": "editor-write", "destination": "originating Typst editor",
        "arguments": "{\"search\":\"old\",\"replace\":\"new\"}", "argumentChars": 32, "argumentsTruncated": false,
        "previewNotice": "Inline preview is truncated.", "preview": preview()});
    let start = json!({"tabId": 4, "projectId": "project", "sessionId": "session", "messages": [],
        "settings": {"maxHistoryMessages": 40}, "modelConfig": {}, "attachments": {}, "activeEditorFile": active_file()});
    let empty_types = [
        T::LoadSettings,
        T::LoadTheme,
        T::SessionListAllGrouped,
        T::SessionExport,
        T::SessionStorageStatus,
        T::LoadCustomTools,
        T::LoadMcpServers,
        T::AiStreamCancel,
        T::PageGetProbe,
        T::PageBridgeInit,
        T::PageBridgeReady,
        T::PageQuickSelection,
        T::PageQuickImagePreview,
        T::PageGetDiagnostics,
    ];
    let mut cases: Vec<(MessageType, Value, Value, ErrorCode)> = empty_types
        .iter()
        .map(|&t| (t, json!({}), json!({"x": 1}), E::UnknownPayloadField))
        .collect();
    cases.extend([
        (T::Response, json!({"ok": true, "data": {"value": 3}}), json!({"ok": false, "error": "nope"}), E::InvalidResponse),
        (
            T::SaveSettings,
            json!({"settings": {"sendMessageShortcut": "ctrl-enter"}, "fields": ["sendMessageShortcut"],
                "modelMutation": {"type": "select", "id": "m1"}}),
            json!({"settings": {"invented": true}, "fields": ["invented"]}),
            E::InvalidSettingsFields,
        ),
        (T::SaveTheme, json!({"theme": "light"}), json!({"theme": " "}), E::InvalidTheme),
        (T::SessionList, json!({"projectId": "p"}), json!({}), E::MissingPayloadField),
        (T::SessionCreate, json!({"projectId": "p", "name": "New chat"}), json!({"projectId": 3}), E::InvalidSessionCreate),
        (T::SessionGet, json!({"sessionId": "s"}), json!({"sessionId": ""}), E::InvalidSessionId),
        (
            T::SessionUpdate,
            json!({"sessionId": "session", "name": "Fresh title", "autoName": true}),
            json!({"sessionId": "session", "messages": [], "autoName": true}),
            E::InvalidSessionUpdate,
        ),
        (T::SessionDelete, json!({"sessionId": "s"}), json!({"sessionId": 1}), E::InvalidSessionId),
        (T::SessionDeleteByProject, json!({"projectId": ""}), json!({"projectId": null}), E::InvalidProjectId),
        (T::SessionImport, json!({"records": []}), json!({"exportData": "text"}), E::InvalidSessionImport),
        (
            T::EditCheckpointRevert,
            json!({"checkpointId": "edit-123", "tabId": 7, "projectId": "project-a", "sessionId": "session-a"}),
            json!({"checkpointId": "x".repeat(129), "tabId": 7, "projectId": "project-a", "sessionId": "session-a"}),
            E::InvalidCheckpointId,
        ),
        (T::DocumentSnapshotList, scope.clone(), with(&scope, "tabId", json!(-1)), E::InvalidDocumentSnapshotScope),
        (
            T::DocumentSnapshotPreview,
            with(&scope, "snapshotId", json!("snapshot-one")),
            with(&scope, "snapshotId", json!("")),
            E::InvalidDocumentSnapshotId,
        ),
        (
            T::DocumentSnapshotRestore,
            restore_of(&scope),
            with(&restore_of(&scope), "projectId", json!("x".repeat(257))),
            E::InvalidDocumentSnapshotScope,
        ),
        (
            T::DocumentSnapshotDelete,
            with(&scope, "snapshotId", json!("snapshot-one")),
            with(&scope, "extra", json!(1)),
            E::UnknownPayloadField,
        ),
        (T::OpenProjectTab, json!({"projectId": "abc"}), json!({"projectId": "  "}), E::InvalidProjectId),
        (
            T::SaveCustomTools,
            json!({"tools": [], "mutation": {"type": "upsert", "record": {"id": "t1", "name": "x"}}}),
            json!({"tools": [], "mutation": {"type": "select", "id": "t1"}}),
            E::InvalidCustomTools,
        ),
        (
            T::SaveMcpServers,
            json!({"servers": [{"id": "s"}], "mutation": {"type": "toggle", "id": "s"}}),
            json!({"servers": {}}),
            E::InvalidMcpServers,
        ),
        (T::ProbeMcpServer, json!({"server": {"id": "probe"}}), json!({"server": []}), E::InvalidMcpServer),
        (
            T::GetEditorContext,
            json!({"tabId": 4, "projection": "identity"}),
            json!({"tabId": 4, "projection": "filename"}),
            E::InvalidContextProjection,
        ),
        (T::GetPreview, json!({"tabId": 1, "preferTypstCanvas": true}), json!({"preferAssetImage": "yes"}), E::InvalidPreviewRequest),
        (T::GetDiagnostics, json!({"tabId": 2}), json!({"tabId": 1.5}), E::InvalidTabId),
        (T::GenerateSessionTitle, json!({"modelConfig": {}, "messages": []}), json!({"modelConfig": [], "messages": []}), E::InvalidTitleRequest),
        (T::AiStreamStart, start.clone(), with(&start, "projectTree", json!({})), E::UnknownPayloadField),
        (T::AiRunReserve, json!({"tabId": 4, "projectId": "project", "sessionId": "session"}), json!({"tabId": 4, "projectId": "project", "sessionId": "session", "extra": true}), E::UnknownPayloadField),
        (T::AiRunStatus, json!({"projectId": "project", "sessionId": "session"}), json!({"projectId": "project", "sessionId": ""}), E::InvalidRunStatus),
        (
            T::AiStreamBatch,
            json!({"items": [{"channel": "content", "text": "a"}, {"channel": "reasoning", "text": "b"}]}),
            json!({"items": [{"channel": "tool", "text": "a"}]}),
            E::InvalidStreamBatch,
        ),
        (T::AiStreamDone, json!({"snapshot": snapshot()}), json!({"snapshotWarning": "x".repeat(501)}), E::InvalidDocumentSnapshotWarning),
        (T::AiStreamCancelled, json!({"code": "CANCELLED", "message": "Run cancelled."}), json!({"code": "", "message": "x"}), E::InvalidRunError),
        (T::AiStreamError, json!({"code": "AGENT_ERROR", "message": ""}), json!({"code": "X"}), E::MissingPayloadField),
        (
            T::AiToolCalls,
            json!({"calls": [{"id": "c1", "name": "read_document", "args": {}}, {"id": "c2", "name": "x", "args": {"invalid": true, "error": "bad"}}]}),
            json!({"calls": [{"id": "c1", "name": "read_document", "args": "{}"}]}),
            E::InvalidToolCalls,
        ),
        (T::AiToolResult, json!({"callId": "c1", "name": "read_document", "result": {"ok": true}}), json!({"callId": "c1", "name": "x", "result": []}), E::InvalidToolResult),
        (
            T::AiToolPreflightWaiting,
            json!({"callId": "c1", "name": "read_document", "missing": ["editor"], "hint": "Open a file."}),
            json!({"callId": "c1", "name": "read_document", "missing": [" "], "hint": ""}),
            E::InvalidPreflight,
        ),
        (T::AiToolPreflightReady, json!({"callId": "c1"}), json!({"callId": ""}), E::InvalidCallId),
        (T::AiToolPreflightResolve, json!({"callId": "c1", "action": "retry"}), json!({"callId": "c1", "action": "skip"}), E::InvalidPreflightAction),
        (T::AiToolApprovalRequired, approval.clone(), with(&approval, "previewNotice", json!("x".repeat(501))), E::InvalidApproval),
        (T::AiToolApprovalResolve, json!({"callId": "c", "action": "allow_run"}), json!({"callId": "c", "action": "anything"}), E::InvalidApprovalAction),
        (
            T::AiRunNotice,
            json!({"notices": [{"code": "MCP_NETWORK_ERROR", "message": "The MCP server \"local\" was left out."}]}),
            json!({"notices": []}),
            E::InvalidRunNotice,
        ),
        (T::ActiveTabChanged, json!({"onTypst": true, "url": "https://typst.app/project/x", "tabId": null}), json!({"onTypst": "yes", "url": "", "tabId": 1}), E::InvalidTabEvent),
        (T::QuickAttachSelection, json!({"tabId": 17, "windowId": 3, "eventId": "quick-1"}), json!({"tabId": 17, "windowId": -1}), E::InvalidQuickAttachSource),
        (T::QuickAttachImagePreview, json!({}), json!({"tabId": 17}), E::MissingPayloadField),
        (T::QuickAttachDrain, json!({"windowId": 3}), json!({"windowId": -1}), E::InvalidWindowId),
        (T::PageGetContext, json!({"projection": "numbered", "startLine": 1, "endLine": 1, "maxChars": 1}), json!({"startLine": 5, "endLine": 4}), E::InvalidContextRange),
        (T::PageGetPreview, json!({"preferAssetImage": true}), json!({"tabId": -3}), E::InvalidPreviewRequest),
        (T::PageCancelRequest, json!({"targetRequestId": "req-9"}), json!({"targetRequestId": "x".repeat(201)}), E::InvalidCancelTarget),
        (T::PageShowEditPreview, with(&edit, "preview", preview()), with(&edit, "preview", json!({})), E::InvalidPreparedEdit),
        (T::PageClearEditPreview, json!({"callId": "call-edit"}), json!({"callId": ""}), E::InvalidCallId),
        (T::PageApplyEdit, with(&edit, "reviewedDiff", json!(true)), edit.clone(), E::MissingPayloadField),
    ]);
    cases
}

#[test]
fn every_type_has_an_accepted_and_a_rejected_payload() {
    let cases = cases();
    let covered: HashSet<MessageType> = cases.iter().map(|c| c.0).collect();
    assert_eq!(covered.len(), MessageType::ALL.len(), "every message type is covered");
    for (ty, valid, invalid, code) in cases {
        let message = envelope_for(ty, valid.clone());
        let parsed = parse(&message);
        assert!(
            parsed.is_ok(),
            "{} should accept {valid}: {:?}",
            ty.as_str(),
            parsed.err()
        );
        let parsed = parsed.expect("checked");
        assert_eq!(parsed.message_type(), ty);
        let reparsed = parse(&parsed.to_value()).expect("re-serialised message parses");
        assert_eq!(reparsed, parsed, "{} round-trips", ty.as_str());
        assert_eq!(
            code_of(&envelope_for(ty, invalid.clone())),
            Some(code),
            "{} rejects {invalid}",
            ty.as_str()
        );
    }
}

#[test]
fn accepted_payloads_serialise_back_to_the_same_json() {
    for (ty, valid, _, _) in cases() {
        let parsed = parse(&envelope_for(ty, valid.clone())).expect("valid");
        let mut expected = valid;
        // `null` optionals are dropped and the strict active file always
        // carries its label; nothing else changes.
        if ty == MessageType::ActiveTabChanged {
            assert_eq!(parsed.payload.to_value(), expected);
            continue;
        }
        if let Value::Object(map) = &mut expected {
            map.retain(|_, v| !v.is_null());
        }
        let back = parsed.payload.to_value();
        assert!(
            protocol::js::deep_equal(&back, &expected),
            "{}: {back} != {expected}",
            ty.as_str()
        );
    }
}

#[test]
fn registry_has_unique_values() {
    let wires: HashSet<&str> = MessageType::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(wires.len(), 62);
    let events = MessageType::ALL
        .iter()
        .filter(|t| t.kind() == MessageKind::Event)
        .count();
    assert_eq!(events, 15);
}

#[test]
fn request_response_envelope_preserves_correlation_and_errors() {
    let request = Envelope::request(Payload::SessionGet(SessionRef { session_id: "s".into() }), "req-1");
    assert_eq!(
        request.to_value(),
        json!({"type": "SESSION_GET", "requestId": "req-1", "payload": {"sessionId": "s"}})
    );
    assert!(parse(&request.to_value()).is_ok());
    let success = Envelope::success("req-1", json!({"value": 3}), None).to_value();
    assert_eq!(
        unwrap_response("req-1", &success, Responder::Worker),
        Ok(json!({"value": 3}))
    );
    let failure = Envelope::failure(
        "req-1",
        ResponseError::new("NOPE", "Rejected").with_details(json!({"field": "x"})),
        Some("run-a".into()),
    )
    .to_value();
    assert_eq!(
        failure,
        json!({"type": "PROTOCOL_RESPONSE", "requestId": "req-1", "runId": "run-a",
            "payload": {"ok": false, "error": {"code": "NOPE", "message": "Rejected", "details": {"field": "x"}}}})
    );
    match unwrap_response("req-1", &failure, Responder::Worker) {
        Err(UnwrapError::Failed(error)) => {
            assert_eq!(error.code, "NOPE");
            assert_eq!(error.details, Some(json!({"field": "x"})));
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    let internal = Envelope::failure("r", ResponseError::internal("boom"), None).to_value();
    assert_eq!(internal["payload"]["error"]["code"], "INTERNAL_ERROR");
    assert!(matches!(
        unwrap_response("req-1", &json!({"type": "LOAD_SETTINGS"}), Responder::Worker),
        Err(UnwrapError::Invalid(_))
    ));
}

#[test]
fn run_messages_require_explicit_run_identity() {
    assert_eq!(
        code_of(&json!({"type": "AI_STREAM_CANCEL", "requestId": "r", "payload": {}})),
        Some(ErrorCode::InvalidRunId)
    );
    assert_eq!(
        code_of(&json!({"type": "AI_STREAM_CANCEL", "requestId": "r", "runId": " ", "payload": {}})),
        Some(ErrorCode::InvalidRunId)
    );
    let event = Envelope::run_event(Payload::AiStreamDone(Default::default()), "run-a");
    assert_eq!(
        event.to_value(),
        json!({"type": "AI_STREAM_DONE", "runId": "run-a", "payload": {}})
    );
    assert!(parse(&event.to_value()).is_ok());
    assert!(event.is_run_event());
    let status = json!({"type": "AI_RUN_STATUS", "requestId": "r", "payload": {"projectId": "p", "sessionId": "s"}});
    assert!(parse(&status).expect("status").run_id.is_none());
}

#[test]
fn run_start_rejects_invalid_identity_and_files() {
    let valid = envelope_for(
        MessageType::AiStreamStart,
        json!({"tabId": 4, "projectId": "project", "sessionId": "session", "messages": [], "activeEditorFile": active_file()}),
    );
    let start_only = ParseOptions::expecting(MessageType::AiStreamStart);
    assert!(parse_envelope(&valid, &start_only).is_ok());
    for (field, value, code) in [
        ("tabId", json!(-1), ErrorCode::InvalidTabId),
        ("tabId", json!(1.5), ErrorCode::InvalidTabId),
        ("projectId", json!(""), ErrorCode::InvalidProjectId),
        ("sessionId", json!(""), ErrorCode::InvalidSessionId),
        ("messages", json!({}), ErrorCode::InvalidMessages),
        ("settings", json!([]), ErrorCode::InvalidRunStart),
    ] {
        let mut broken = valid.clone();
        broken["payload"][field] = value;
        let error = parse_envelope(&broken, &start_only).expect_err("rejected");
        assert_eq!(error.code, code, "{field}");
        assert_eq!(error.path, format!("$.payload.{field}"));
    }
    let mut bad_file = valid.clone();
    bad_file["payload"]["activeEditorFile"]["relativePath"] = json!("../secret.typ");
    bad_file["payload"]["activeEditorFile"]["basename"] = json!("secret.typ");
    assert_eq!(code_of(&bad_file), Some(ErrorCode::InvalidActiveEditorFile));
    let mut tab_float = valid.clone();
    tab_float["payload"]["tabId"] = json!(4.0);
    assert!(parse(&tab_float).is_ok(), "1.0 counts as an integer");
    assert_eq!(
        parse_envelope(&valid, &ParseOptions::expecting(MessageType::AiRunReserve))
            .err()
            .map(|e| e.code),
        Some(ErrorCode::UnexpectedMessageType)
    );
    let allowed = [MessageType::LoadSettings];
    assert_eq!(
        parse_envelope(&valid, &ParseOptions::allowing(&allowed))
            .err()
            .map(|e| e.code),
        Some(ErrorCode::DisallowedMessageType)
    );
}

#[test]
fn unknown_types_and_malformed_envelopes_fail_closed() {
    assert_eq!(
        code_of(&json!({"type": "INVENTED", "payload": {}})),
        Some(ErrorCode::UnknownMessageType)
    );
    assert_eq!(
        code_of(&json!({"type": "RESPONSE", "payload": {}})),
        Some(ErrorCode::UnknownMessageType)
    );
    assert_eq!(
        code_of(&json!({"type": "ACTIVE_TAB_CHANGED", "payload": []})),
        Some(ErrorCode::InvalidPayload)
    );
    assert_eq!(
        code_of(&json!({"type": "ACTIVE_TAB_CHANGED"})),
        Some(ErrorCode::InvalidPayload)
    );
    assert_eq!(code_of(&json!([])), Some(ErrorCode::InvalidEnvelope));
    assert_eq!(code_of(&json!("LOAD_SETTINGS")), Some(ErrorCode::InvalidEnvelope));
    assert_eq!(
        code_of(&json!({"type": "LOAD_SETTINGS", "payload": {}})),
        Some(ErrorCode::InvalidRequestId)
    );
    assert_eq!(
        code_of(&json!({"type": "LOAD_SETTINGS", "requestId": "x".repeat(201), "payload": {}})),
        Some(ErrorCode::InvalidRequestId)
    );
    assert_eq!(
        code_of(&json!({"type": "LOAD_SETTINGS", "requestId": "r", "payload": {}, "sender": 1})),
        Some(ErrorCode::UnknownEnvelopeField)
    );
    let response = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true}});
    assert_eq!(code_of(&response), Some(ErrorCode::InvalidResponse));
    let both = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": 1, "error": {}}});
    assert_eq!(code_of(&both), Some(ErrorCode::InvalidResponse));
    let null_data = json!({"type": "PROTOCOL_RESPONSE", "requestId": "r", "payload": {"ok": true, "data": null}});
    assert!(parse(&null_data).is_ok());
    let error =
        parse(&json!({"type": "SESSION_LIST", "requestId": "r", "payload": {"projectId": "p", "surprise": true}}))
            .expect_err("rejected");
    assert_eq!(
        (error.code, error.path.as_str()),
        (ErrorCode::UnknownPayloadField, "$.payload.surprise")
    );
}

#[test]
fn page_bridge_messages_carry_a_nonce() {
    let request = Envelope::request(Payload::PageGetProbe(Default::default()), "page-1").with_nonce("nonce-1");
    let value = request.to_value();
    assert_eq!(value["nonce"], "nonce-1");
    assert!(parse_envelope(&value, &ParseOptions::bridge()).is_ok());
    assert_eq!(
        code_of(&value),
        Some(ErrorCode::UnknownEnvelopeField),
        "no nonce outside the bridge"
    );
    let mut missing = value.clone();
    missing.as_object_mut().map(|m| m.remove("nonce"));
    assert_eq!(
        parse_envelope(&missing, &ParseOptions::bridge()).err().map(|e| e.code),
        Some(ErrorCode::InvalidNonce)
    );
    let page_context = envelope_for(MessageType::PageGetContext, json!({"tabId": 1}));
    assert_eq!(
        code_of(&page_context),
        Some(ErrorCode::UnknownPayloadField),
        "the page form has no tabId"
    );
}

#[test]
fn only_an_edit_read_from_the_worker_names_a_known_document() {
    let cases = [
        (
            MessageType::PageGetContext,
            json!({"projection": "edit", "knownDocumentToken": "doc-1"}),
            None,
        ),
        (MessageType::PageGetContext, json!({"projection": "edit"}), None),
        (
            MessageType::PageGetContext,
            json!({"projection": "full", "knownDocumentToken": "doc-1"}),
            Some(ErrorCode::InvalidKnownDocumentToken),
        ),
        (
            MessageType::PageGetContext,
            json!({"knownDocumentToken": "doc-1"}),
            Some(ErrorCode::InvalidKnownDocumentToken),
        ),
        (
            MessageType::PageGetContext,
            json!({"projection": "edit", "knownDocumentToken": " "}),
            Some(ErrorCode::InvalidKnownDocumentToken),
        ),
        (
            MessageType::PageGetContext,
            json!({"projection": "edit", "knownDocumentToken": "x".repeat(201)}),
            Some(ErrorCode::InvalidKnownDocumentToken),
        ),
        (
            MessageType::PageGetContext,
            json!({"projection": "edit", "knownDocumentToken": 7}),
            Some(ErrorCode::InvalidKnownDocumentToken),
        ),
        (
            MessageType::GetEditorContext,
            json!({"projection": "edit", "knownDocumentToken": "doc-1"}),
            Some(ErrorCode::UnknownPayloadField),
        ),
    ];
    for (message_type, payload, expected) in cases {
        let envelope = envelope_for(message_type, payload.clone());
        assert_eq!(code_of(&envelope), expected, "{payload}");
    }
}

#[test]
fn edit_previews_and_commits_are_structurally_validated() {
    let approval = cases()
        .into_iter()
        .find(|c| c.0 == MessageType::AiToolApprovalRequired)
        .expect("case")
        .1;
    let message = envelope_for(MessageType::AiToolApprovalRequired, approval);
    let mut truncated = message.clone();
    truncated["payload"]["argumentsTruncated"] = json!(true);
    assert_eq!(code_of(&truncated), Some(ErrorCode::InvalidApproval));
    let mut bad_row = message.clone();
    bad_row["payload"]["preview"]["hunks"][0]["rows"][0]["kind"] = json!("execute");
    assert_eq!(code_of(&bad_row), Some(ErrorCode::InvalidEditPreview));
    let mut long = message.clone();
    long["payload"]["argumentChars"] = json!(5000);
    long["payload"]["argumentsTruncated"] = json!(true);
    assert!(parse(&long).is_ok());

    let commit = envelope_for(
        MessageType::PageApplyEdit,
        json!({"expectedText": "old", "expectedEditorToken": "editor-1", "expectedFileLabel": "main.typ",
            "changes": [{"from": 0, "to": 3, "insert": "new"}], "callId": "call-edit", "reviewedDiff": true}),
    );
    assert!(parse(&commit).is_ok());
    for changes in [
        json!([{"from": 0, "to": -1, "insert": "x"}]),
        json!([{"from": 0, "to": 4, "insert": "x"}]),
        json!([{"from": 2, "to": 3, "insert": ""}, {"from": 0, "to": 1, "insert": ""}]),
        json!([]),
        json!([{"from": 0, "to": 1, "insert": "x", "extra": 1}]),
        json!([{"from": 0, "to": 1}]),
    ] {
        let mut broken = commit.clone();
        broken["payload"]["changes"] = changes.clone();
        assert_eq!(code_of(&broken), Some(ErrorCode::InvalidPreparedEdit), "{changes}");
    }
    let mut utf16 = commit.clone();
    utf16["payload"]["expectedText"] = json!("😀");
    utf16["payload"]["changes"] = json!([{"from": 0, "to": 2, "insert": ""}]);
    assert!(parse(&utf16).is_ok(), "offsets count UTF-16 code units");
}

#[test]
fn a_preview_names_its_document_by_text_or_by_token_and_an_apply_only_by_text() {
    let by_token = json!({"expectedDocumentToken": "document-1", "expectedTextLength": 3,
        "expectedEditorToken": "editor-1", "expectedFileLabel": "main.typ",
        "changes": [{"from": 0, "to": 3, "insert": "new"}], "callId": "call-edit", "preview": preview()});
    let show = envelope_for(MessageType::PageShowEditPreview, by_token.clone());
    match parse(&show).map(|envelope| envelope.payload) {
        Ok(Payload::PageShowEditPreview(request)) => assert_eq!(
            request.expected,
            protocol::payloads::ExpectedDocument::Token {
                token: "document-1".into(),
                length: 3
            }
        ),
        other => panic!("a preview by token parses: {other:?}"),
    }
    let invalid = Some(ErrorCode::InvalidPreparedEdit);
    let mut both = show.clone();
    both["payload"]["expectedText"] = json!("old");
    assert_eq!(code_of(&both), invalid, "text and token together");
    for field in ["expectedDocumentToken", "expectedTextLength"] {
        let mut half = show.clone();
        half["payload"].as_object_mut().map(|payload| payload.remove(field));
        assert_eq!(code_of(&half), invalid, "a token form without {field}");
    }
    for (field, value) in [
        ("expectedDocumentToken", json!("")),
        ("expectedDocumentToken", json!("x".repeat(201))),
        ("expectedTextLength", json!(-1)),
        ("expectedTextLength", json!(1.5)),
        ("expectedTextLength", json!(1_000_001)),
        ("expectedTextLength", json!(2)),
    ] {
        let mut broken = show.clone();
        broken["payload"][field] = value.clone();
        assert_eq!(code_of(&broken), invalid, "{field}: {value} (the change ends at 3)");
    }
    let mut neither = show.clone();
    for field in ["expectedDocumentToken", "expectedTextLength"] {
        neither["payload"].as_object_mut().map(|payload| payload.remove(field));
    }
    assert_eq!(
        code_of(&neither),
        Some(ErrorCode::MissingPayloadField),
        "a preview names its document"
    );

    let mut apply = by_token;
    apply.as_object_mut().map(|payload| payload.remove("preview"));
    apply["reviewedDiff"] = json!(true);
    assert_eq!(
        code_of(&envelope_for(MessageType::PageApplyEdit, apply)),
        Some(ErrorCode::UnknownPayloadField),
        "an apply compares the whole text"
    );
}

#[test]
fn snapshot_and_revert_requests_require_exact_scope() {
    let scope = json!({"tabId": 7, "projectId": "project-a", "sessionId": "session-a"});
    for (field, value, code) in [
        ("checkpointId", json!(""), ErrorCode::InvalidCheckpointId),
        ("tabId", json!(-1), ErrorCode::InvalidTabId),
        ("projectId", json!(""), ErrorCode::InvalidProjectId),
        ("sessionId", json!(""), ErrorCode::InvalidSessionId),
    ] {
        let mut payload = scope.clone();
        payload["checkpointId"] = json!("edit-123");
        payload[field] = value;
        assert_eq!(
            code_of(&envelope_for(MessageType::EditCheckpointRevert, payload)),
            Some(code),
            "{field}"
        );
    }
    let done = envelope_for(
        MessageType::AiStreamDone,
        json!({"snapshotWarning": "Could not save it."}),
    );
    assert!(parse(&done).is_ok());
    let mut bad_snapshot = snapshot();
    bad_snapshot["textLength"] = json!(1_000_001);
    assert_eq!(
        code_of(&envelope_for(
            MessageType::AiStreamDone,
            json!({"snapshot": bad_snapshot})
        )),
        Some(ErrorCode::InvalidDocumentSnapshot)
    );
}

#[test]
fn quick_attachments_carry_their_origin() {
    let payload = json!({"tabId": 17, "windowId": 3});
    assert!(parse(&envelope_for(MessageType::QuickAttachSelection, payload.clone())).is_ok());
    assert_eq!(
        code_of(&envelope_for(
            MessageType::QuickAttachImagePreview,
            json!({"tabId": 17, "windowId": -1})
        )),
        Some(ErrorCode::InvalidQuickAttachSource)
    );
    let parsed = parse(&envelope_for(MessageType::QuickAttachSelection, json!({}))).expect("empty form");
    assert_eq!(parsed.payload.to_value(), json!({}));
}

/// `base` with `key` set to `value`.
fn with(base: &Value, key: &str, value: Value) -> Value {
    let mut out = base.clone();
    out[key] = value;
    out
}

/// A restore of `snapshot-one` in `scope`, with the base its preview named.
fn restore_of(scope: &Value) -> Value {
    let mut restore = with(scope, "snapshotId", json!("snapshot-one"));
    restore["baseHash"] = json!("a".repeat(64));
    restore["baseLength"] = json!(12);
    restore
}

#[test]
fn a_snapshot_restore_names_the_document_its_preview_was_computed_against() {
    let scope = json!({"tabId": 7, "projectId": "project-a", "sessionId": "session-a"});
    let parsed = parse(&envelope_for(MessageType::DocumentSnapshotRestore, restore_of(&scope)));
    let Ok(Envelope {
        payload: Payload::DocumentSnapshotRestore(restore),
        ..
    }) = parsed
    else {
        panic!("a restore with its base parses: {parsed:?}");
    };
    assert_eq!((restore.base_hash.len(), restore.base_length), (64, 12));
    assert_eq!(restore.target.snapshot_id, "snapshot-one");
    let without_base = with(&scope, "snapshotId", json!("snapshot-one"));
    let mut no_length = restore_of(&scope);
    no_length.as_object_mut().map(|o| o.remove("baseLength"));
    let refused = [
        without_base,
        no_length,
        with(&restore_of(&scope), "baseHash", json!("A".repeat(64))),
        with(&restore_of(&scope), "baseHash", json!("a".repeat(63))),
        with(&restore_of(&scope), "baseLength", json!(-1)),
        with(&restore_of(&scope), "baseLength", json!(1.5)),
    ];
    for payload in refused {
        let message = envelope_for(MessageType::DocumentSnapshotRestore, payload.clone());
        assert_eq!(
            code_of(&message),
            Some(ErrorCode::InvalidDocumentSnapshotBase),
            "{payload}"
        );
    }
    // The scope is checked first, with its own code.
    let bad_scope = with(&with(&scope, "snapshotId", json!("s")), "tabId", json!(-1));
    let message = envelope_for(MessageType::DocumentSnapshotRestore, bad_scope);
    assert_eq!(code_of(&message), Some(ErrorCode::InvalidDocumentSnapshotScope));
    // Preview and delete take no base.
    let extra = with(&restore_of(&scope), "snapshotId", json!("snapshot-one"));
    for ty in [
        MessageType::DocumentSnapshotPreview,
        MessageType::DocumentSnapshotDelete,
    ] {
        assert_eq!(
            code_of(&envelope_for(ty, extra.clone())),
            Some(ErrorCode::UnknownPayloadField)
        );
    }
}
