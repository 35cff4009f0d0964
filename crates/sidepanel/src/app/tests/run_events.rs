//! The events of the active run reach its chat only; errors end the bubble; approvals are answered for that run and call.

use super::fakes::*;

#[test]
fn an_error_before_any_output_removes_the_bubble_and_after_output_keeps_it_incomplete() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("one");
    let run = run_id(1);
    rig.event(
        "AI_STREAM_ERROR",
        Some(&run),
        json!({"code": "MODEL_INCOMPLETE", "message": "The model is incomplete."}),
    );
    assert!(rig.shell().log.borrow().contains(&"fail".to_owned()));
    assert_eq!(rig.history().len(), 1, "no assistant entry");
    assert_eq!(
        rig.shell().last_status(),
        Some(("The model is incomplete.".to_owned(), true))
    );

    rig.type_and_send("two");
    let run = run_id(2);
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Partial"}]}),
    );
    rig.event(
        "AI_STREAM_ERROR",
        Some(&run),
        json!({"code": "PROVIDER_MALFORMED_SSE", "message": "Broken stream"}),
    );
    let history = rig.history();
    assert_eq!(
        history.last().map(|m| m["responseStatus"].clone()),
        Some(json!("incomplete"))
    );
    assert_eq!(history.last().map(|m| m["content"].clone()), Some(json!("Partial")));
}

#[test]
fn tool_and_preflight_events_reach_the_chat_of_the_active_run_only() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("read it");
    let run = run_id(1);
    rig.event(
        "AI_TOOL_CALLS",
        Some(&run),
        json!({"calls": [{"id": "c1", "name": "read_document", "args": {}}]}),
    );
    rig.event(
        "AI_TOOL_RESULT",
        Some("run-x"),
        json!({"callId": "cx", "name": "read_document", "result": {"ok": true}}),
    );
    rig.event(
        "AI_TOOL_RESULT",
        Some(&run),
        json!({"callId": "c1", "name": "read_document", "result": {"ok": true}}),
    );
    rig.event(
        "AI_TOOL_PREFLIGHT_WAITING",
        Some(&run),
        json!({"callId": "c2", "name": "read_document", "missing": ["main.typ"], "hint": "Open main.typ"}),
    );
    rig.event("AI_TOOL_PREFLIGHT_READY", Some(&run), json!({"callId": "c2"}));
    rig.event("AI_TOOL_CALLS", Some(&run), json!({"calls": "not a list"}));
    let log = rig.shell().log.borrow().clone();
    assert!(log.contains(&"tool-result:c1".to_owned()));
    assert!(!log.contains(&"tool-result:cx".to_owned()));
    assert!(log.contains(&format!("preflight:{run}:c2")));
    assert!(log.contains(&"preflight-ready:c2".to_owned()));
    assert_eq!(rig.shell().tools.get(), 1, "an invalid payload is ignored");
}

#[test]
fn approvals_reach_the_active_run_and_answers_name_that_run_and_call() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::AiToolApprovalResolve => ok(json!({"ok": true})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("edit it");
    let run = run_id(1);
    let approval = json!({"callId": "c1", "name": "replace_lines", "identity": "builtin:replace_lines",
        "effect": "editor-write", "destination": "main.typ", "arguments": "{}", "argumentChars": 2,
        "argumentsTruncated": false});
    rig.event("AI_TOOL_APPROVAL_REQUIRED", Some("run-other"), approval.clone());
    rig.event("AI_TOOL_APPROVAL_REQUIRED", Some(&run), approval);
    let log = rig.shell().log.borrow().clone();
    assert!(log.contains(&format!("approval:{run}:c1")));
    assert!(!log.iter().any(|l| l.starts_with("approval:run-other")));
    let run_for_flow = run.clone();
    rig.run(move |app| async move {
        assert_eq!(
            app.resolve_approval(&run_for_flow, "c1", ApprovalAction::ApproveOnce)
                .await,
            Ok(true)
        );
    });
    let sent = rig.shell().last(MessageType::AiToolApprovalResolve).expect("resolved");
    assert_eq!(sent.payload, json!({"callId": "c1", "action": "approve_once"}));
    assert_eq!(sent.run_id.as_deref(), Some(run.as_str()));
}

#[test]
fn a_run_notice_is_shown_while_the_run_goes_on_and_again_when_it_completes() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("hi");
    let run = run_id(1);
    let notice = "The MCP server \"Down\" is left out of this run: The MCP server could not be reached: Failed to fetch [MCP_NETWORK_ERROR]";
    rig.event(
        "AI_RUN_NOTICE",
        Some("run-other"),
        json!({"notices": [{"code": "MCP_NETWORK_ERROR", "message": "not ours"}]}),
    );
    assert!(!rig.shell().saw_status("not ours"), "another run's notice is ignored");
    rig.event(
        "AI_RUN_NOTICE",
        Some(&run),
        json!({"notices": [{"code": "MCP_NETWORK_ERROR", "message": notice}]}),
    );
    assert_eq!(rig.shell().last_status(), Some((notice.to_owned(), true)));
    let budget = "This run used its tool budget. [TOOL_BUDGET_EXHAUSTED]";
    rig.event(
        "AI_RUN_NOTICE",
        Some(&run),
        json!({"notices": [{"code": "TOOL_BUDGET_EXHAUSTED", "message": budget}]}),
    );
    assert_eq!(rig.shell().last_status(), Some((budget.to_owned(), true)));
    let both = format!("{notice} {budget}");
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Hello"}]}),
    );
    rig.event("AI_STREAM_DONE", Some(&run), json!({}));
    assert_eq!(
        rig.shell().last_status(),
        Some((both.clone(), true)),
        "every notice of the run is repeated after it"
    );

    rig.type_and_send("again");
    let next = run_id(2);
    rig.event("AI_STREAM_DONE", Some(&next), json!({}));
    assert_ne!(
        rig.shell().last_status(),
        Some((both, true)),
        "a notice belongs to its run"
    );
}
