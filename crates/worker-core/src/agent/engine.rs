//! The run loop: from an admitted `AI_STREAM_START` to its one terminal
//! event.
//!
//! Everything a run depends on is captured when the user pressed Send and
//! never re-read from the panel: the tab (and, once checked, its URL), the
//! project and chat, the messages, the model settings, the approval mode
//! (anything but an exact `auto` means Ask) and the file the message was
//! about. The loop then streams up to 32 provider rounds; each round's tool
//! calls are checked for reused ids, shown to the panel, executed in the
//! planned order within the run's tool budget (`budget`: calls, result
//! bytes, repeated reads answered by reference) and answered to the model in
//! provider order.
//!
//! However the run ends — done, stopped or failed — what the user saw is
//! saved to the chat the run was started from, then exactly one terminal
//! event goes out (`AI_STREAM_DONE`, `AI_STREAM_CANCELLED` or
//! `AI_STREAM_ERROR`), and the run's chat, waiters and cancellation are
//! released even if the future is dropped.
//!
//! Before the first round the run gathers what it offers beyond the
//! built-ins: the enabled custom tools and the tools of every enabled MCP
//! server, discovered side by side. A server that fails (or tools of it that
//! cannot be offered) only costs its tools: the run says so in one
//! `AI_RUN_NOTICE` and goes on. A custom tool that cannot be offered fails
//! the run (`TOOL_REGISTRY_INVALID`), as in the original.
//!
//! The chat's automatic document snapshot follows the run: it is dropped at
//! the start and after a stopped or failed run when the live document no
//! longer matches it, and only a complete run stores a new one (its outcome,
//! or why it was not saved, rides on `AI_STREAM_DONE`).

use crate::agent::budget::{ReadKey, RunBudget};
use crate::agent::dispatch::{Call, dispatch};
use crate::batcher::StreamBatcher;
use crate::cancel::Cancelled;
use crate::context::{self, ConversationInput};
use crate::integrations::{GatherError, Integrations, gather, run_notices, server_notice};
use crate::page_client::file_identity_request;
use crate::platform::{Clock, Messenger, Platform, Tabs};
use crate::provider::{self, ModelConfig, ProviderError, ProviderErrorCode, ProviderToolCall, RoundRequest};
use crate::runs::{
    AdmissionError, RunContext, RunIdentity, Runs, completed_response_snapshot, invalidate_diverged_snapshot,
    invalidate_diverged_snapshot_at_end, tool_failure,
};
use crate::sessions::{SessionStore, Sessions};
use crate::storage::StorageError;
use crate::tools::{RegistryError, RunRegistry, ToolRegistry, execution_order, page_context};
use crate::{run_config, settings};
use protocol::ErrorCode;
use protocol::active_file::ActiveEditorFile;
use protocol::answer::ResponseStatus;
use protocol::constants::{EditorApprovalMode, is_typst_app_url};
use protocol::limits::MAX_TOOL_ROUNDS;
use protocol::payloads::{
    AiStreamStart, RunNotices, RunTerminal, StreamBatch, StreamItem, ToolCallInfo, ToolCalls, ToolResult,
};
use protocol::tool_schema::parse_tool_arguments;
use protocol::{Envelope, Payload};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// The message of every `AI_STREAM_CANCELLED`.
const CANCELLED_MESSAGE: &str = "Run cancelled.";

/// The payload of every `AI_STREAM_CANCELLED`.
fn cancelled_terminal() -> RunTerminal {
    RunTerminal {
        code: ErrorCode::Cancelled.as_str().to_owned(),
        message: CANCELLED_MESSAGE.to_owned(),
    }
}

/// Why a run failed (or `CANCELLED` when it was stopped).
#[derive(Debug, Clone, PartialEq, Eq)]
struct RunError {
    code: ErrorCode,
    message: String,
}

impl RunError {
    fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        RunError {
            code,
            message: message.into(),
        }
    }

    fn is_cancelled(&self) -> bool {
        self.code == ErrorCode::Cancelled
    }
}

impl From<Cancelled> for RunError {
    fn from(_: Cancelled) -> Self {
        RunError::new(ErrorCode::Cancelled, CANCELLED_MESSAGE)
    }
}

impl From<ProviderError> for RunError {
    fn from(error: ProviderError) -> Self {
        if error.code == ProviderErrorCode::Cancelled {
            return RunError::from(Cancelled);
        }
        RunError::new(error.code(), error.message)
    }
}

impl From<StorageError> for RunError {
    fn from(error: StorageError) -> Self {
        RunError::new(error.code(), error.message)
    }
}

impl From<RegistryError> for RunError {
    fn from(error: RegistryError) -> Self {
        RunError::new(ErrorCode::ToolRegistryInvalid, error.message)
    }
}

impl From<Vec<RegistryError>> for RunError {
    /// Every problem's message, joined (as the original reported them).
    fn from(errors: Vec<RegistryError>) -> Self {
        let messages: Vec<String> = errors.into_iter().map(|error| error.message).collect();
        RunError::new(ErrorCode::ToolRegistryInvalid, messages.join(" "))
    }
}

impl From<GatherError> for RunError {
    fn from(error: GatherError) -> Self {
        match error {
            GatherError::Cancelled => RunError::from(Cancelled),
            GatherError::Storage(error) => RunError::from(error),
        }
    }
}

/// Releases the run's chat, waiters and cancellation however the run ends,
/// including when its future is dropped.
struct Release<'a, P: Platform> {
    runs: &'a Runs,
    platform: &'a P,
    run_id: String,
}

impl<P: Platform> Drop for Release<'_, P> {
    fn drop(&mut self) {
        self.runs.finish(&self.run_id, self.platform.clock().now_ms());
    }
}

/// The file of the latest user message, if it carries one.
fn latest_user_file(messages: &[Value]) -> Option<ActiveEditorFile> {
    let latest = messages
        .iter()
        .rev()
        .find(|message| message.get("role").and_then(Value::as_str) == Some("user"))?;
    ActiveEditorFile::normalize(latest.get("activeEditorFile")?)
}

/// `AI_STREAM_START`: admits the run and drives it to its end. The answer is
/// `{ok:true, runId}`, `{ok:true, cancelled:true, runId}` or
/// `{ok:false, code, error, runId}`; a start that is not admitted is an
/// error answer.
pub(crate) async fn start<P: Platform>(
    platform: &P,
    runs: &Runs,
    store: &SessionStore,
    integrations: &Integrations,
    run_id: &str,
    request: &AiStreamStart,
) -> Result<Value, AdmissionError> {
    let identity = RunIdentity {
        run_id: run_id.to_owned(),
        tab_id: request.tab_id,
        project_id: request.project_id.clone(),
        session_id: request.session_id.clone(),
    };
    let cancel = match runs.admit(&identity, platform.clock().now_ms()) {
        Ok(cancel) => cancel,
        Err(error) if error.is_cancelled() => {
            // Stopped before it started: the panel still gets its one terminal event.
            let event = Payload::AiStreamCancelled(cancelled_terminal());
            platform
                .messenger()
                .broadcast(Envelope::run_event(event, run_id).to_value());
            return Ok(json!({ "ok": true, "cancelled": true, "runId": run_id }));
        }
        Err(error) => return Err(error),
    };
    let _release = Release {
        runs,
        platform,
        run_id: run_id.to_owned(),
    };
    let message_file = request
        .active_editor_file
        .clone()
        .or_else(|| latest_user_file(&request.messages));
    let run = RunContext::new(
        platform,
        runs,
        store,
        &integrations.mcp,
        &identity,
        cancel,
        message_file,
    );
    let outcome = drive(&run, request).await;
    Ok(finish(&run, store, &request.messages, outcome).await)
}

/// Saves what the user saw to the run's own chat.
async fn persist<P: Platform>(
    run: &RunContext<'_, P>,
    store: &SessionStore,
    start_messages: &[Value],
    status: ResponseStatus,
) -> Result<(), RunError> {
    let Some(entry) = run.events.answer_entry(status) else {
        return Ok(());
    };
    let sessions = Sessions::new(run.platform.storage(), run.platform.clock(), store);
    sessions
        .persist_run_transcript(&run.session_id, start_messages, &entry)
        .await?;
    Ok(())
}

/// Saves the answer and sends the one terminal event.
async fn finish<P: Platform>(
    run: &RunContext<'_, P>,
    store: &SessionStore,
    start_messages: &[Value],
    outcome: Result<(), RunError>,
) -> Value {
    let run_id = run.run_id.as_str();
    let error = match outcome {
        Ok(()) => match persist(run, store, start_messages, ResponseStatus::Complete).await {
            Ok(()) => {
                // Only a complete response leaves a snapshot to return to.
                let done = completed_response_snapshot(run).await;
                run.events.emit_terminal(Payload::AiStreamDone(done));
                return json!({ "ok": true, "runId": run_id });
            }
            // The answer is complete but could not be saved: the user must
            // learn that, so the run reports the storage failure.
            Err(error) => error,
        },
        Err(error) => error,
    };
    // A second failure to save adds nothing the user can act on; the panel
    // keeps and saves its own copy of the partial answer.
    let _ = persist(run, store, start_messages, ResponseStatus::Incomplete).await;
    // Whatever the run changed before it stopped, the chat's automatic
    // snapshot must not survive a document it no longer matches.
    invalidate_diverged_snapshot_at_end(run).await;
    if run.cancel.is_cancelled() || error.is_cancelled() {
        run.events
            .emit_terminal(Payload::AiStreamCancelled(cancelled_terminal()));
        return json!({ "ok": true, "cancelled": true, "runId": run_id });
    }
    run.events.emit_terminal(Payload::AiStreamError(RunTerminal {
        code: error.code.as_str().to_owned(),
        message: error.message.clone(),
    }));
    json!({ "ok": false, "code": error.code, "error": error.message, "runId": run_id })
}

fn check_cancelled<P: Platform>(run: &RunContext<'_, P>) -> Result<(), RunError> {
    if run.cancel.is_cancelled() {
        Err(RunError::from(Cancelled))
    } else {
        Ok(())
    }
}

/// The call as the panel shows it: parsed arguments, or why they are not.
fn display_call(id: &str, name: &str, raw_args: &str) -> ToolCallInfo {
    let args = parse_tool_arguments(raw_args).unwrap_or_else(|errors| {
        let mut invalid = Map::new();
        invalid.insert("invalid".into(), Value::Bool(true));
        let message = errors.first().map(|e| e.message.clone()).unwrap_or_default();
        invalid.insert("error".into(), Value::String(message));
        invalid
    });
    ToolCallInfo {
        id: id.to_owned(),
        name: name.to_owned(),
        args,
    }
}

/// Checks the tab, learns the message file, resolves the model and runs the
/// provider rounds.
async fn drive<P: Platform>(run: &RunContext<'_, P>, request: &AiStreamStart) -> Result<(), RunError> {
    check_start_tab(run).await?;
    learn_message_file(run).await?;
    let (settings, model) = run_settings(run, request).await?;
    check_cancelled(run)?;
    let registry = run_registry(run).await?;
    let message_file = run.message_file();
    let attachments = request.attachments.clone().map(Value::Object);
    let conversation = context::build_messages(&ConversationInput {
        system_prompt: settings.get("systemPrompt").and_then(Value::as_str),
        attachments: attachments.as_ref(),
        message_file: message_file.as_ref(),
        model: &model,
        display_messages: &request.messages,
        max_history_messages: settings.get("maxHistoryMessages").and_then(Value::as_f64),
    });
    converse(run, &model, &registry, conversation).await
}

/// The run's tools: the built-ins, the custom tools, then the MCP servers'
/// tools; what was left out is announced in one `AI_RUN_NOTICE`.
async fn run_registry<P: Platform>(run: &RunContext<'_, P>) -> Result<ToolRegistry, RunError> {
    let toolset = gather(run.platform, run.mcp, &run.cancel).await?;
    check_cancelled(run)?;
    let RunRegistry { registry, left_out } = ToolRegistry::for_run(&toolset)?;
    let notices: Vec<_> = toolset
        .servers
        .iter()
        .zip(&left_out)
        .filter_map(|(server, left_out)| server_notice(server, left_out))
        .collect();
    if !notices.is_empty() {
        run.events.emit(Payload::AiRunNotice(RunNotices {
            notices: run_notices(notices),
        }));
    }
    Ok(registry)
}

/// Requires the run's tab to show a typst.app page and remembers its URL:
/// every later page access checks the tab still shows exactly that.
async fn check_start_tab<P: Platform>(run: &RunContext<'_, P>) -> Result<(), RunError> {
    let tab_id = i64::try_from(run.tab_id).unwrap_or(i64::MAX);
    match run.cancel.race(run.platform.tabs().get(tab_id)).await? {
        Ok(tab) if is_typst_app_url(&tab.url) => {
            *run.tab_url.borrow_mut() = Some(tab.url);
            Ok(())
        }
        _ => Err(RunError::new(
            ErrorCode::InvalidRunTab,
            "The tab this chat started from is no longer a typst.app tab.",
        )),
    }
}

/// Drops the chat's automatic snapshot if the user changed the document
/// since, and learns the focused file from the same read when neither the
/// start nor the message named one.
async fn learn_message_file<P: Platform>(run: &RunContext<'_, P>) -> Result<(), RunError> {
    let live = invalidate_diverged_snapshot(run, &run.cancel).await;
    check_cancelled(run)?;
    if run.message_file().is_none() {
        run.set_message_file(live.and_then(|live| live.context.active_file().cloned()));
    }
    if run.message_file().is_none() {
        // Neither the request nor the message names a file: use the
        // breadcrumb of the editor as it is now.
        if let Ok(context) = page_context(run, &file_identity_request()).await? {
            run.set_message_file(context.active_file().cloned());
        }
    }
    Ok(())
}

/// The stored settings and the stored model the run names (its copies must
/// match them, `run_config`); the approval mode is taken from the stored
/// settings, fail-closed.
async fn run_settings<P: Platform>(
    run: &RunContext<'_, P>,
    request: &AiStreamStart,
) -> Result<(Value, ModelConfig), RunError> {
    let settings = settings::load(run.platform.storage()).await?;
    let mismatch = |error: run_config::ConfigMismatch| RunError::new(ErrorCode::RunConfigMismatch, error.0);
    if let Some(copy) = &request.settings {
        run_config::check_settings(copy, &settings).map_err(mismatch)?;
    }
    run.approval_mode
        .set(EditorApprovalMode::normalize(settings.get("editorApprovalMode")));
    let record = run_config::stored_model(request.model_config.as_ref(), &settings).map_err(mismatch)?;
    let model = ModelConfig::from_record(&record)?;
    Ok((settings, model))
}

/// The provider rounds: each round's tool calls are shown, executed and
/// answered, until a round asks for no tool or the round limit is reached.
async fn converse<P: Platform>(
    run: &RunContext<'_, P>,
    model: &ModelConfig,
    registry: &ToolRegistry,
    mut conversation: Vec<Value>,
) -> Result<(), RunError> {
    let platform = run.platform;
    let tools = registry.specs();
    let events = &run.events;
    let mut batcher = StreamBatcher::new(|items| events.emit(Payload::AiStreamBatch(StreamBatch { items })));
    let mut seen_ids: HashSet<String> = HashSet::new();
    let mut budget = RunBudget::default();
    for _ in 0..MAX_TOOL_ROUNDS {
        check_cancelled(run)?;
        let round = RoundRequest {
            model,
            messages: &conversation,
            tools: &tools,
        };
        let output =
            provider::stream_round(platform.network(), platform.clock(), &round, &run.cancel, &mut batcher).await?;
        if output.tool_calls.is_empty() {
            return Ok(());
        }
        batcher.flush();
        if budget.model_was_told() {
            return Err(RunError::new(
                ErrorCode::ToolBudgetExhausted,
                "The model kept asking for tools after this run's tool budget was spent.",
            ));
        }
        for call in &output.tool_calls {
            if !seen_ids.insert(call.id.clone()) {
                return Err(RunError::new(
                    ErrorCode::ProviderDuplicateToolCallId,
                    "The model reused a tool-call id from earlier in this run.",
                ));
            }
        }
        run.events.emit(Payload::AiToolCalls(ToolCalls {
            calls: output
                .tool_calls
                .iter()
                .map(|call| display_call(&call.id, &call.name, &call.raw_args))
                .collect(),
        }));
        conversation.push(context::assistant_tool_turn(
            output.content.as_deref(),
            output.reasoning.as_deref(),
            &output.tool_calls,
            model.reasoning_replay_enabled(),
        ));
        let answers = run_tool_calls(run, registry, &output.tool_calls, &mut budget, &mut batcher).await?;
        // The model gets its answers in the order it asked, whatever ran first.
        conversation.extend(answers);
    }
    Err(RunError::new(
        ErrorCode::ToolRoundLimit,
        format!("The agent stopped after {MAX_TOOL_ROUNDS} tool rounds."),
    ))
}

/// Runs one round's calls in the planned order within the run's budget,
/// showing each result as it arrives; the `tool` messages come back in
/// provider order.
async fn run_tool_calls<P: Platform, F: FnMut(Vec<StreamItem>)>(
    run: &RunContext<'_, P>,
    registry: &ToolRegistry,
    calls: &[ProviderToolCall],
    budget: &mut RunBudget,
    batcher: &mut StreamBatcher<F>,
) -> Result<Vec<Value>, RunError> {
    let pairs: Vec<(&str, &str)> = calls
        .iter()
        .map(|call| (call.name.as_str(), call.raw_args.as_str()))
        .collect();
    let mut answers: Vec<Option<Value>> = vec![None; calls.len()];
    for index in execution_order(&pairs) {
        let Some(call) = calls.get(index) else {
            continue;
        };
        check_cancelled(run)?;
        let route = registry.route(&call.name);
        let (result, answer) = match budget.admit() {
            Ok(()) => {
                let file = run.message_file().map(|file| file.relative_path);
                let key = ReadKey::of(route, &call.raw_args, file.as_deref());
                let call_ref = Call {
                    id: &call.id,
                    name: &call.name,
                    raw_args: &call.raw_args,
                };
                let result = dispatch(run, registry, call_ref).await?;
                check_cancelled(run)?;
                let answer = budget.answer(&call.id, route, key, &result);
                (result, answer)
            }
            Err((refusal, notice)) => {
                if let Some(notice) = notice {
                    run.events
                        .emit(Payload::AiRunNotice(RunNotices { notices: vec![notice] }));
                }
                let answer = context::tool_result_message(&call.id, &Value::Object(refusal.clone()));
                (refusal, answer)
            }
        };
        batcher.flush();
        run.events.emit(Payload::AiToolResult(ToolResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            result,
        }));
        if let Some(slot) = answers.get_mut(index) {
            *slot = Some(answer);
        }
    }
    Ok(calls
        .iter()
        .zip(answers)
        .map(|(call, answer)| {
            answer.unwrap_or_else(|| {
                let failure = tool_failure(ErrorCode::NotExecuted, "The tool was not executed.");
                context::tool_result_message(&call.id, &Value::Object(failure))
            })
        })
        .collect())
}
