//! Property tests: arbitrary JSON never panics any parser or validator, and
//! every valid typed value survives a trip through its wire JSON.

use proptest::prelude::*;
use protocol::active_file::{ActiveEditorFile, Confidence};
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffPreviewKind, DiffRow, DiffRowKind};
use protocol::edit_checkpoint::{TextChange, apply_text_changes};
use protocol::endpoint_policy::{HeaderPolicy, InsecureConsent, validate_endpoint_url, validate_header_record};
#[cfg(feature = "patterns")]
use protocol::js_regex::compile_pattern;
use protocol::payloads::*;
#[cfg(feature = "patterns")]
use protocol::tool_schema::ToolSchema;
use protocol::tool_schema::{SchemaOptions, parse_tool_arguments, validate_tool_schema};
use protocol::{Envelope, MessageType, ParseOptions, Payload, parse_envelope};
use serde_json::{Map, Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        prop_oneof![Just(1.0f64), Just(-0.0), Just(0.5), Just(9_007_199_254_740_993.0)].prop_map(Value::from),
        "[a-zA-Z0-9 _.:/\\\\-]{0,12}".prop_map(Value::String),
        "\\PC{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-zA-Z]{1,12}",
                    Just("tabId".to_owned()),
                    Just("projectId".to_owned()),
                    Just("sessionId".to_owned()),
                    Just("callId".to_owned()),
                    Just("type".to_owned()),
                    Just("pattern".to_owned()),
                    Just("properties".to_owned()),
                    Just("items".to_owned()),
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_type() -> impl Strategy<Value = MessageType> {
    (0..MessageType::ALL.len()).prop_map(|i| MessageType::ALL[i])
}

fn id() -> impl Strategy<Value = String> {
    "[a-z0-9][a-z0-9._:-]{0,30}"
}

fn uint() -> impl Strategy<Value = u64> {
    0u64..=9_007_199_254_740_991
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{0,24}"
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("[a-z]{1,8}", arb_json(), 0..4).prop_map(|m| m.into_iter().collect())
}

fn arb_preview() -> impl Strategy<Value = DiffPreview> {
    let row = (0..3u8, 1u64..1000, 1u64..1000, text()).prop_map(|(kind, old, new, text)| match kind {
        0 => DiffRow {
            kind: DiffRowKind::Context,
            old_line: Some(old),
            new_line: Some(new),
            text,
        },
        1 => DiffRow {
            kind: DiffRowKind::Delete,
            old_line: Some(old),
            new_line: None,
            text,
        },
        _ => DiffRow {
            kind: DiffRowKind::Insert,
            old_line: None,
            new_line: Some(new),
            text,
        },
    });
    let hunk = (uint(), uint(), uint(), uint(), prop::collection::vec(row, 1..5)).prop_map(
        |(old_start, old_lines, new_start, new_lines, rows)| DiffHunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
            rows,
        },
    );
    (
        "[a-z]{1,10}\\.typ",
        1u64..100,
        0u64..100,
        prop::collection::vec(hunk, 1..4),
    )
        .prop_map(|(file_label, additions, deletions, hunks)| DiffPreview {
            kind: DiffPreviewKind::UnifiedDiff,
            file_label,
            additions,
            deletions,
            hunks,
        })
}

fn arb_changes(len: u64) -> impl Strategy<Value = Vec<TextChange>> {
    prop::collection::vec((0..=len, 0..=len, "[a-z]{0,4}"), 1..6).prop_map(|raw| {
        let mut points: Vec<(u64, u64, String)> = raw.into_iter().map(|(a, b, s)| (a.min(b), a.max(b), s)).collect();
        points.sort_by_key(|p| (p.0, p.1));
        let mut changes = Vec::new();
        let mut cursor = 0;
        for (from, to, insert) in points {
            if from >= cursor {
                changes.push(TextChange { from, to, insert });
                cursor = to;
            }
        }
        changes
    })
}

fn arb_active_file() -> impl Strategy<Value = ActiveEditorFile> {
    (
        prop::option::of("[A-Za-z ]{1,20}"),
        "[a-z]{1,8}(/[a-z]{1,8}){0,2}",
        "[a-z]{1,5}",
        0..3u8,
    )
        .prop_map(|(project_label, dir, ext, confidence)| {
            let basename = format!("file.{ext}");
            ActiveEditorFile {
                project_label,
                relative_path: format!("{dir}/{basename}"),
                basename,
                source: "header_breadcrumb".to_owned(),
                confidence: [Confidence::High, Confidence::Medium, Confidence::Low][usize::from(confidence)],
            }
        })
}

fn arb_payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        (uint(), id(), id()).prop_map(|(tab_id, project_id, session_id)| Payload::AiRunReserve(RunReserve {
            tab_id,
            project_id,
            session_id
        })),
        (
            uint(),
            id(),
            id(),
            prop::collection::vec(arb_json(), 0..3),
            prop::option::of(object()),
            prop::option::of(arb_active_file())
        )
            .prop_map(
                |(tab_id, project_id, session_id, messages, settings, active_editor_file)| {
                    Payload::AiStreamStart(AiStreamStart {
                        tab_id,
                        project_id,
                        session_id,
                        messages,
                        settings,
                        model_config: None,
                        attachments: Some(Map::new()),
                        active_editor_file,
                    })
                }
            ),
        prop::collection::vec((any::<bool>(), text()), 0..8).prop_map(|items| Payload::AiStreamBatch(StreamBatch {
            items: items
                .into_iter()
                .map(|(reasoning, text)| StreamItem {
                    channel: if reasoning {
                        StreamChannel::Reasoning
                    } else {
                        StreamChannel::Content
                    },
                    text
                })
                .collect()
        })),
        prop::collection::vec((id(), "[a-z_]{1,20}", object()), 0..4).prop_map(|calls| Payload::AiToolCalls(
            ToolCalls {
                calls: calls
                    .into_iter()
                    .map(|(id, name, args)| ToolCallInfo { id, name, args })
                    .collect()
            }
        )),
        (
            id(),
            "[ -~]{1,40}",
            0u64..5000,
            prop::option::of(arb_preview()),
            prop::option::of("[ -~]{0,40}")
        )
            .prop_map(|(call_id, arguments, extra, preview, preview_notice)| {
                let argument_chars = arguments.len() as u64 + extra;
                Payload::AiToolApprovalRequired(ApprovalRequired {
                    call_id,
                    name: "search_replace".to_owned(),
                    identity: "builtin:search_replace".to_owned(),
                    effect: "editor-write".to_owned(),
                    destination: "originating Typst editor".to_owned(),
                    arguments,
                    argument_chars,
                    arguments_truncated: extra > 0,
                    preview,
                    preview_notice,
                })
            }),
        ("\\PC{0,30}", id(), any::<bool>())
            .prop_flat_map(|(text, call_id, reviewed)| (
                arb_changes(text.encode_utf16().count() as u64),
                Just(text),
                Just(call_id),
                Just(reviewed)
            ))
            .prop_map(
                |(changes, expected_text, call_id, reviewed_diff)| Payload::PageApplyEdit(PageApplyEdit {
                    expected_text,
                    expected_editor_token: "editor-1".to_owned(),
                    expected_file_label: "main.typ".to_owned(),
                    changes,
                    call_id,
                    reviewed_diff,
                })
            ),
        (
            prop::option::of(uint()),
            prop::option::of(0..4u8),
            prop::option::of(1u64..100),
            prop::option::of(1u64..64_000)
        )
            .prop_map(|(tab_id, projection, start_line, max_chars)| Payload::GetEditorContext(
                ContextRequest {
                    tab_id,
                    projection: projection.map(|p| {
                        [
                            ContextProjection::Full,
                            ContextProjection::Edit,
                            ContextProjection::Numbered,
                            ContextProjection::Identity,
                        ][usize::from(p)]
                    }),
                    start_line,
                    end_line: start_line.map(|s| s + 3),
                    max_chars,
                    known_document_token: None,
                }
            )),
        prop::option::of((uint(), uint(), prop::option::of(id()))).prop_map(|origin| Payload::QuickAttachSelection(
            QuickAttach {
                origin: origin.map(|(tab_id, window_id, event_id)| QuickAttachOrigin {
                    tab_id,
                    window_id,
                    event_id
                })
            }
        )),
        (
            id(),
            prop::option::of(text()),
            prop::option::of(prop::collection::vec(arb_json(), 0..3)),
            prop::option::of(any::<bool>())
        )
            .prop_map(
                |(session_id, name, messages, user_renamed)| Payload::SessionUpdate(SessionUpdate {
                    session_id,
                    name,
                    messages,
                    user_renamed,
                    auto_name: Some(false),
                })
            ),
        (
            object(),
            prop::option::of(prop::collection::vec(0..7usize, 0..4)),
            prop::option::of(id())
        )
            .prop_map(|(settings, fields, select)| Payload::SaveSettings(SaveSettings {
                settings,
                fields: fields.map(|f| f.into_iter().map(|i| SettingsField::ALL[i]).collect()),
                model_mutation: select.map(|id| RegistryMutation::Select { id }),
            })),
        (arb_json(), any::<bool>(), id(), text()).prop_map(|(data, ok, code, message)| Payload::Response(if ok {
            ResponsePayload::Ok(data)
        } else {
            ResponsePayload::Err(ResponseError {
                code,
                message: format!("m{message}"),
                details: Some(data).filter(|d| !d.is_null()),
            })
        })),
        (any::<bool>(), text(), prop::option::of(uint()))
            .prop_map(|(on_typst, url, tab_id)| Payload::ActiveTabChanged(ActiveTabChanged { on_typst, url, tab_id })),
        (id(), uint(), id(), id(), "[0-9a-f]{64}", uint()).prop_map(
            |(snapshot_id, tab_id, project_id, session_id, base_hash, base_length)| {
                Payload::DocumentSnapshotRestore(SnapshotRestore {
                    target: SnapshotRequest {
                        snapshot_id,
                        tab_id,
                        project_id,
                        session_id,
                    },
                    base_hash,
                    base_length,
                })
            }
        ),
        (id(), arb_preview(), any::<bool>())
            .prop_flat_map(|(call_id, preview, by_token)| (
                "[a-z\\n]{0,20}",
                Just(call_id),
                Just(preview),
                Just(by_token)
            ))
            .prop_flat_map(|(text, call_id, preview, by_token)| (
                arb_changes(text.encode_utf16().count() as u64),
                Just(text),
                Just(call_id),
                Just(preview),
                Just(by_token)
            ))
            .prop_map(
                |(changes, text, call_id, preview, by_token)| Payload::PageShowEditPreview(PageShowEditPreview {
                    expected: if by_token {
                        ExpectedDocument::Token {
                            token: "document-1".to_owned(),
                            length: text.encode_utf16().count() as u64,
                        }
                    } else {
                        ExpectedDocument::Text { text }
                    },
                    expected_editor_token: "t".to_owned(),
                    expected_file_label: "main.typ".to_owned(),
                    changes,
                    call_id,
                    preview,
                })
            ),
    ]
}

fn envelope_of(payload: Payload, request_id: String, run_id: String) -> Envelope {
    let ty = payload.message_type();
    Envelope {
        request_id: ty.requires_request_id().then_some(request_id),
        run_id: ty.is_run_scoped().then_some(run_id),
        nonce: None,
        payload,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn valid_values_round_trip_through_json(payload in arb_payload(), request_id in id(), run_id in id()) {
        let envelope = envelope_of(payload, request_id, run_id);
        let text = serde_json::to_string(&envelope.to_value()).expect("serialises");
        let value: Value = serde_json::from_str(&text).expect("parses");
        let parsed = parse_envelope(&value, &ParseOptions::default());
        prop_assert_eq!(parsed, Ok(envelope));
    }

    #[test]
    fn arbitrary_envelopes_never_panic(ty in arb_type(), payload in arb_json(), request_id in arb_json(), run_id in arb_json(), bridge in any::<bool>()) {
        let message = json!({"type": ty.as_str(), "requestId": request_id, "runId": run_id, "payload": payload});
        let options = ParseOptions { bridge, ..ParseOptions::default() };
        if let Ok(envelope) = parse_envelope(&message, &options) {
            prop_assert_eq!(parse_envelope(&envelope.to_value(), &ParseOptions::default()).map(|e| e.payload), Ok(envelope.payload));
        }
        let _ = parse_envelope(&payload, &options);
    }

    #[test]
    fn arbitrary_page_answers_never_panic(ty in arb_type(), data in arb_json()) {
        if let Ok(parsed) = protocol::page_response::PageResponseData::parse(ty, &data) {
            prop_assert_eq!(protocol::page_response::PageResponseData::parse(ty, &parsed.to_value()), Ok(parsed));
        }
    }

    #[test]
    fn arbitrary_schemas_and_arguments_never_panic(schema in arb_json(), args in arb_json(), mcp in any::<bool>()) {
        let rooted = json!({"type": "object", "properties": {"a": schema.clone()}});
        for candidate in [&schema, &rooted] {
            let options = if mcp { SchemaOptions::MCP } else { SchemaOptions::CUSTOM };
            let _ = validate_tool_schema(candidate, options);
            #[cfg(feature = "patterns")]
            if let Ok(compiled) = ToolSchema::compile(candidate, options) {
                let _ = compiled.validate(&args);
                let _ = compiled.validate(&json!({"a": args.clone()}));
            }
        }
        let _ = parse_tool_arguments(&args.to_string());
    }

    #[test]
    fn arbitrary_patterns_never_panic(pattern in "[\\\\()\\[\\]{}|^$.*+?a-z0-9,dwsbpkuxc<>=!:-]{0,24}") {
        let _ = protocol::js_regex::check_pattern_text(&pattern);
        #[cfg(feature = "patterns")]
        if let Ok(regex) = compile_pattern(&pattern) {
            let _ = regex.is_match("abc 123 \n😀");
        }
    }

    #[test]
    fn arbitrary_endpoints_and_headers_never_panic(input in "\\PC{0,40}", headers in arb_json()) {
        let _ = validate_endpoint_url(&input, InsecureConsent::default());
        let _ = validate_endpoint_url(&format!("http://{input}"), InsecureConsent { confirmed: false, confirmed_origin: Some("http://x") });
        let _ = validate_header_record(Some(&headers), HeaderPolicy::Mcp);
    }

    #[test]
    fn text_changes_apply_like_splicing(text in "[a-z😀\\n]{0,20}", seed in any::<u64>()) {
        let units: Vec<u16> = text.encode_utf16().collect();
        let len = units.len() as u64;
        let from = seed % (len + 1);
        let to = from + (seed / 7) % (len - from + 1);
        let change = TextChange { from, to, insert: "X".to_owned() };
        match apply_text_changes(&text, std::slice::from_ref(&change)) {
            Ok(out) => {
                let mut expected: Vec<u16> = units[..from as usize].to_vec();
                expected.extend("X".encode_utf16());
                expected.extend(&units[to as usize..]);
                prop_assert_eq!(out.encode_utf16().collect::<Vec<_>>(), expected);
            }
            Err(_) => {
                let splits = |i: u64| i > 0 && i < len && (0xDC00..=0xDFFF).contains(&units[i as usize]);
                prop_assert!(splits(from) || splits(to));
            }
        }
    }
}
