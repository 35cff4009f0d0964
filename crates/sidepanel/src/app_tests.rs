//! The panel's flows driven natively: a fake shell answers worker requests
//! from a per-test responder (or holds them until the test releases them),
//! records what the UI and chat were told, and runs background tasks on a
//! single-threaded executor, like the browser does.

use super::*;
use futures::executor::{LocalPool, LocalSpawner};
use futures::task::LocalSpawnExt;
use protocol::edit_checkpoint::PublicCheckpointStatus;
use protocol::payloads::ApprovalAction;
use std::cell::Cell;
use std::collections::VecDeque;

const FIXTURE_URL: &str = "https://typst.app/project/p1";
const RUN_PREFIX: &str = "run-test-";

/// An answer the responder gives to a request.
enum Answer {
    Now(Result<Value, WorkerError>),
    /// Kept pending until the test calls `release`.
    Hold,
}

fn ok(value: Value) -> Answer {
    Answer::Now(Ok(value))
}

fn err(code: &str, message: &str) -> Answer {
    Answer::Now(Err(WorkerError {
        code: code.to_owned(),
        message: message.to_owned(),
        details: None,
    }))
}

type Responder = Box<dyn FnMut(MessageType, &Value) -> Answer>;
type Held = VecDeque<(MessageType, oneshot::Sender<Result<Value, WorkerError>>)>;

#[derive(Debug, Clone, PartialEq)]
struct Sent {
    ty: MessageType,
    payload: Value,
    run_id: Option<String>,
}

struct FakeShell {
    spawner: LocalSpawner,
    responder: RefCell<Responder>,
    sent: RefCell<Vec<Sent>>,
    held: RefCell<Held>,
    tabs: RefCell<VecDeque<BrowserTab>>,
    tab: RefCell<BrowserTab>,
    next_id: Cell<u32>,
    sleeps_finish: Cell<bool>,
    // Ui
    statuses: RefCell<Vec<(String, bool, Option<u32>)>>,
    banner: Cell<Option<bool>>,
    theme: RefCell<String>,
    session_name: RefCell<String>,
    session_list: RefCell<Vec<String>>,
    settings_shown: RefCell<Option<Settings>>,
    opened_settings: RefCell<Vec<SettingsTab>>,
    composer: Cell<Option<ComposerState>>,
    attachments: RefCell<Attachments>,
    input: RefCell<String>,
    log: RefCell<Vec<String>>,
    // Chat
    streamed: RefCell<String>,
    tools: Cell<usize>,
    rendered: RefCell<Vec<Vec<Value>>>,
}

impl FakeShell {
    fn log(&self, entry: impl Into<String>) {
        self.log.borrow_mut().push(entry.into());
    }

    fn types(&self) -> Vec<MessageType> {
        self.sent.borrow().iter().map(|s| s.ty).collect()
    }

    fn last(&self, ty: MessageType) -> Option<Sent> {
        self.sent.borrow().iter().rev().find(|s| s.ty == ty).cloned()
    }

    fn count(&self, ty: MessageType) -> usize {
        self.sent.borrow().iter().filter(|s| s.ty == ty).count()
    }

    fn last_status(&self) -> Option<(String, bool)> {
        self.statuses.borrow().last().map(|(t, e, _)| (t.clone(), *e))
    }

    fn saw_status(&self, text: &str) -> bool {
        self.statuses.borrow().iter().any(|(t, _, _)| t == text)
    }

    fn composer(&self) -> ComposerState {
        self.composer.get().expect("composer shown")
    }
}

impl Ports for FakeShell {
    fn request(
        &self,
        message_type: MessageType,
        payload: Value,
        run_id: Option<String>,
    ) -> LocalBoxFuture<'static, Result<Value, WorkerError>> {
        self.sent.borrow_mut().push(Sent {
            ty: message_type,
            payload: payload.clone(),
            run_id,
        });
        let answer = (self.responder.borrow_mut())(message_type, &payload);
        match answer {
            Answer::Now(result) => future::ready(result).boxed_local(),
            Answer::Hold => {
                let (sender, receiver) = oneshot::channel();
                self.held.borrow_mut().push_back((message_type, sender));
                receiver
                    .map(|r| {
                        r.unwrap_or_else(|_| {
                            Err(WorkerError {
                                code: "DROPPED".to_owned(),
                                message: "dropped".to_owned(),
                                details: None,
                            })
                        })
                    })
                    .boxed_local()
            }
        }
    }

    fn active_tab(&self) -> LocalBoxFuture<'static, Option<BrowserTab>> {
        let next = self.tabs.borrow_mut().pop_front();
        if let Some(tab) = next {
            *self.tab.borrow_mut() = tab;
        }
        future::ready(Some(self.tab.borrow().clone())).boxed_local()
    }

    fn new_run_id(&self) -> String {
        self.next_id.set(self.next_id.get() + 1);
        format!("{RUN_PREFIX}{}", self.next_id.get())
    }

    fn new_id(&self) -> String {
        self.next_id.set(self.next_id.get() + 1);
        format!("id-{}", self.next_id.get())
    }

    fn sleep(&self, _ms: u32) -> LocalBoxFuture<'static, ()> {
        if self.sleeps_finish.get() {
            future::ready(()).boxed_local()
        } else {
            future::pending().boxed_local()
        }
    }

    fn thumbnail(&self, data_url: String) -> LocalBoxFuture<'static, Value> {
        future::ready(json!({"dataUrl": format!("thumb:{}", data_url.len()), "thumbnail": true})).boxed_local()
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        self.spawner.spawn_local(task).expect("spawn");
    }
}

impl Ui for FakeShell {
    fn status(&self, text: &str, is_error: bool, duration_ms: Option<u32>) {
        self.statuses
            .borrow_mut()
            .push((text.to_owned(), is_error, duration_ms));
    }
    fn show_tab_gate(&self, banner_visible: bool, _project_id: Option<&str>) {
        self.banner.set(Some(banner_visible));
    }
    fn show_theme(&self, theme: &str) {
        *self.theme.borrow_mut() = theme.to_owned();
    }
    fn show_session_name(&self, name: &str) {
        *self.session_name.borrow_mut() = name.to_owned();
    }
    fn show_session_list(&self, sessions: &[SessionMeta], _current: Option<&str>) {
        *self.session_list.borrow_mut() = sessions.iter().map(|s| s.id.clone()).collect();
    }
    fn close_session_menu(&self) {
        self.log("close-session-menu");
    }
    fn show_settings(&self, settings: &Settings) {
        *self.settings_shown.borrow_mut() = Some(settings.clone());
    }
    fn open_settings(&self, tab: SettingsTab) {
        self.opened_settings.borrow_mut().push(tab);
    }
    fn close_model_form(&self) {
        self.log("close-model-form");
    }
    fn close_model_menu(&self) {
        self.log("close-model-menu");
    }
    fn show_composer(&self, state: ComposerState) {
        self.composer.set(Some(state));
    }
    fn show_attachments(&self, attachments: &Attachments) {
        *self.attachments.borrow_mut() = attachments.clone();
    }
    fn input_text(&self) -> String {
        self.input.borrow().clone()
    }
    fn clear_input(&self) {
        self.input.borrow_mut().clear();
    }
    fn focus_input(&self) {}
}

impl Chat for FakeShell {
    fn render_history(&self, messages: &[Value]) {
        self.rendered.borrow_mut().push(messages.to_vec());
    }
    fn render_user_message(&self, message: &Value) {
        self.log(format!("user:{}", message["content"].as_str().unwrap_or_default()));
    }
    fn begin_stream(&self) {
        self.streamed.borrow_mut().clear();
        self.tools.set(0);
        self.log("begin");
    }
    fn stream_items(&self, items: &[StreamItem]) {
        for item in items {
            self.streamed.borrow_mut().push_str(&item.text);
        }
    }
    fn tool_calls(&self, calls: &[ToolCallInfo]) {
        self.tools.set(self.tools.get() + calls.len());
    }
    fn tool_result(&self, result: &ToolResult) {
        self.log(format!("tool-result:{}", result.call_id));
    }
    fn preflight_waiting(&self, run_id: &str, waiting: &PreflightWaiting) {
        self.log(format!("preflight:{run_id}:{}", waiting.call_id));
    }
    fn preflight_ready(&self, call_id: &str) {
        self.log(format!("preflight-ready:{call_id}"));
    }
    fn approval_required(&self, run_id: &str, approval: &ApprovalRequired) {
        self.log(format!("approval:{run_id}:{}", approval.call_id));
    }
    fn show_checkpoints(&self, checkpoints: &[PublicEditCheckpoint]) {
        for checkpoint in checkpoints {
            self.log(format!("checkpoint:{}:{:?}", checkpoint.id, checkpoint.status));
        }
    }
    fn has_partial_output(&self) -> bool {
        !self.streamed.borrow().is_empty() || self.tools.get() > 0
    }
    fn finalize(&self, complete: bool) -> Option<Value> {
        self.log(format!("finalize:{complete}"));
        let text = std::mem::take(&mut *self.streamed.borrow_mut());
        (!text.is_empty()).then(|| {
            json!({"role": "assistant", "content": text,
                   "responseStatus": if complete { "complete" } else { "incomplete" }})
        })
    }
    fn fail(&self) {
        self.log("fail");
        self.streamed.borrow_mut().clear();
    }
    fn scroll_to_bottom(&self) {}
}

fn tab(url: &str) -> BrowserTab {
    BrowserTab {
        id: Some(7),
        window_id: Some(1),
        url: url.to_owned(),
    }
}

fn model_settings() -> Value {
    json!({
        "systemPrompt": "", "activeModelId": "m1", "maxHistoryMessages": 40, "autoNameModelId": null,
        "editorApprovalMode": "ask", "sendMessageShortcut": "enter",
        "models": [{"id": "m1", "name": "Fixture", "apiBaseUrl": "https://model.fixture/v1",
                    "apiKey": "sk", "modelId": "fixture-model", "supportsVision": false,
                    "reasoningEffort": "default"}]
    })
}

fn session(id: &str, name: &str, messages: Value) -> Value {
    json!({"id": id, "projectId": "p1", "name": name, "userRenamed": false, "messages": messages})
}

fn identity_context() -> Value {
    json!({"workspace": {"active_editor_file": {"projectLabel": "Harness Thesis", "relativePath": "main.typ",
        "basename": "main.typ", "source": "header_breadcrumb", "confidence": "high"}}})
}

/// The worker of a project with one empty chat `s1` and one model.
fn default_worker() -> impl FnMut(MessageType, &Value) -> Answer {
    move |ty, payload| match ty {
        MessageType::LoadTheme => ok(json!("light")),
        MessageType::LoadSettings => ok(model_settings()),
        MessageType::SessionList => ok(json!([{"id": "s1", "projectId": "p1", "name": "First"}])),
        MessageType::SessionGet => ok(session(
            payload["sessionId"].as_str().unwrap_or("s1"),
            "First",
            json!([]),
        )),
        MessageType::SessionUpdate => ok(session(
            payload["sessionId"].as_str().unwrap_or("s1"),
            "First",
            json!([]),
        )),
        MessageType::AiRunStatus => ok(json!([])),
        MessageType::GetEditorContext => ok(identity_context()),
        MessageType::AiRunReserve => ok(json!({"ok": true, "reserved": true, "expiresAt": 1})),
        MessageType::AiStreamStart => Answer::Hold,
        MessageType::AiStreamCancel => ok(json!({"ok": true, "found": true, "terminal": false})),
        _ => err("UNROUTED_MESSAGE", "not in this test"),
    }
}

struct Rig {
    pool: LocalPool,
    app: Rc<Controller<FakeShell>>,
}

impl Rig {
    fn new(url: &str, responder: impl FnMut(MessageType, &Value) -> Answer + 'static) -> Rig {
        let pool = LocalPool::new();
        let shell = FakeShell {
            spawner: pool.spawner(),
            responder: RefCell::new(Box::new(responder)),
            sent: RefCell::default(),
            held: RefCell::default(),
            tabs: RefCell::default(),
            tab: RefCell::new(tab(url)),
            next_id: Cell::new(0),
            sleeps_finish: Cell::new(false),
            statuses: RefCell::default(),
            banner: Cell::new(None),
            theme: RefCell::default(),
            session_name: RefCell::default(),
            session_list: RefCell::default(),
            settings_shown: RefCell::default(),
            opened_settings: RefCell::default(),
            composer: Cell::new(None),
            attachments: RefCell::default(),
            input: RefCell::default(),
            log: RefCell::default(),
            streamed: RefCell::default(),
            tools: Cell::new(0),
            rendered: RefCell::default(),
        };
        Rig {
            pool,
            app: Controller::new(shell),
        }
    }

    fn started(url: &str, responder: impl FnMut(MessageType, &Value) -> Answer + 'static) -> Rig {
        let mut rig = Rig::new(url, responder);
        rig.run(|app| async move { app.start().await });
        rig
    }

    fn shell(&self) -> &FakeShell {
        self.app.shell()
    }

    /// Spawns a flow and runs everything until nothing can progress.
    fn run<F, Fut>(&mut self, flow: F)
    where
        F: FnOnce(Rc<Controller<FakeShell>>) -> Fut,
        Fut: std::future::Future<Output = ()> + 'static,
    {
        let task = flow(Rc::clone(&self.app));
        self.pool.spawner().spawn_local(task).expect("spawn");
        self.pool.run_until_stalled();
    }

    fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    /// Answers the oldest held request of `ty`.
    fn release(&mut self, ty: MessageType, answer: Result<Value, WorkerError>) {
        let position = self.shell().held.borrow().iter().position(|(t, _)| *t == ty);
        let held = position.and_then(|p| self.shell().held.borrow_mut().remove(p));
        let (_, sender) = held.expect("a held request of that type");
        let _ = sender.send(answer);
        self.settle();
    }

    fn event(&mut self, ty: &str, run_id: Option<&str>, payload: Value) {
        let mut message = json!({"type": ty, "payload": payload});
        if let Some(run_id) = run_id {
            message["runId"] = json!(run_id);
        }
        self.app.on_runtime_message(&message);
        self.settle();
    }

    fn type_and_send(&mut self, text: &str) {
        *self.shell().input.borrow_mut() = text.to_owned();
        self.run(|app| async move { app.send().await });
    }

    fn history(&self) -> Vec<Value> {
        self.app.with_state(|s| s.history.snapshot())
    }

    fn streaming(&self) -> bool {
        self.app.with_state(|s| s.streaming)
    }
}

fn run_id(n: u32) -> String {
    format!("{RUN_PREFIX}{n}")
}

// ---------------------------------------------------------------- start and gating

#[test]
fn first_start_creates_a_chat_and_opens_settings_on_models_when_no_model_exists() {
    let rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadTheme => ok(json!("dark")),
        MessageType::LoadSettings => ok(json!({"models": []})),
        MessageType::SessionList => ok(json!([])),
        MessageType::SessionCreate => ok(session("new", payload["name"].as_str().unwrap_or(""), json!([]))),
        MessageType::SessionUpdate => ok(json!(null)),
        MessageType::AiRunStatus => ok(json!([])),
        MessageType::SessionGet => ok(session("new", "New chat", json!([]))),
        _ => err("UNROUTED_MESSAGE", "x"),
    });
    let shell = rig.shell();
    assert_eq!(
        shell.types(),
        [
            MessageType::LoadTheme,
            MessageType::LoadSettings,
            MessageType::SessionList,
            MessageType::SessionCreate,
            MessageType::SessionList,
            MessageType::AiRunStatus,
            MessageType::SessionGet,
        ]
    );
    assert_eq!(
        shell.last(MessageType::SessionCreate).map(|s| s.payload),
        Some(json!({"projectId": "p1", "name": "New chat"}))
    );
    assert_eq!(*shell.opened_settings.borrow(), [SettingsTab::Models]);
    assert_eq!(*shell.session_name.borrow(), "New chat");
    assert_eq!(shell.banner.get(), Some(false));
    assert_eq!(
        shell.rendered.borrow().last().map(Vec::len),
        Some(0),
        "an empty chat is rendered"
    );
    let composer = shell.composer();
    assert!(!composer.input_disabled && !composer.send_disabled && !composer.stop_mode);
}

#[test]
fn an_existing_project_opens_its_newest_chat_and_applies_the_theme() {
    let rig = Rig::started(FIXTURE_URL, default_worker());
    let shell = rig.shell();
    assert_eq!(*shell.theme.borrow(), "light");
    assert!(shell.opened_settings.borrow().is_empty());
    assert_eq!(
        shell.last(MessageType::SessionGet).map(|s| s.payload),
        Some(json!({"sessionId": "s1"}))
    );
    assert_eq!(*shell.session_name.borrow(), "First");
    assert_eq!(*shell.session_list.borrow(), ["s1"]);
    assert_eq!(shell.count(MessageType::SessionCreate), 0);
}

#[test]
fn off_typst_the_banner_shows_and_nothing_is_loaded() {
    let rig = Rig::started("https://example.test/", default_worker());
    let shell = rig.shell();
    assert_eq!(shell.banner.get(), Some(true));
    assert_eq!(shell.count(MessageType::SessionList), 0);
    let composer = shell.composer();
    assert!(composer.input_disabled && composer.send_disabled);
}

#[test]
fn typst_without_a_project_asks_for_one() {
    let rig = Rig::started("https://typst.app/", default_worker());
    let shell = rig.shell();
    assert_eq!(shell.banner.get(), Some(false));
    assert_eq!(shell.last_status(), Some((NO_PROJECT_TEXT.to_owned(), true)));
    assert_eq!(shell.count(MessageType::SessionList), 0);
    assert!(shell.composer().input_disabled);
}

#[test]
fn a_project_change_loads_that_projects_chats_and_clears_attachments() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionList if payload["projectId"] == "p2" => {
            ok(json!([{"id": "t1", "projectId": "p2", "name": "Other"}]))
        }
        MessageType::SessionGet if payload["sessionId"] == "t1" => {
            ok(json!({"id": "t1", "projectId": "p2", "name": "Other", "messages": []}))
        }
        MessageType::GetPreview => ok(json!({"dataUrl": "data:image/png;base64,AAAA"})),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Preview).await });
    assert_eq!(rig.app.with_state(|s| s.attachments.previews.len()), 1);
    *rig.shell().tab.borrow_mut() = tab("https://typst.app/project/p2");
    rig.event(
        "ACTIVE_TAB_CHANGED",
        None,
        json!({"onTypst": true, "url": "x", "tabId": 7}),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Other");
    assert!(rig.shell().attachments.borrow().is_empty());
    assert_eq!(
        rig.shell()
            .last(MessageType::SessionUpdate)
            .map(|s| s.payload["sessionId"].clone()),
        Some(json!("s1")),
        "the chat that was open is saved before the switch"
    );
}

// ---------------------------------------------------------------- send pipeline

#[test]
fn send_follows_the_pipeline_and_streams_into_the_captured_chat() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let before = rig.shell().sent.borrow().len();
    rig.type_and_send("  Explain this file  ");
    let shell = rig.shell();
    let sequence: Vec<MessageType> = shell.sent.borrow()[before..].iter().map(|s| s.ty).collect();
    assert_eq!(
        sequence,
        [
            MessageType::GetEditorContext,
            MessageType::AiRunReserve,
            MessageType::SessionUpdate,
            MessageType::AiStreamStart
        ]
    );
    assert_eq!(
        shell.last(MessageType::GetEditorContext).map(|s| s.payload),
        Some(json!({"tabId": 7, "projection": "identity"}))
    );
    let reserve = shell.last(MessageType::AiRunReserve).expect("reserve");
    assert_eq!(
        reserve.payload,
        json!({"tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let run = reserve.run_id.expect("run id");
    let saved = shell.last(MessageType::SessionUpdate).expect("user turn saved").payload;
    let user = &saved["messages"][0];
    assert_eq!(user["content"], "Explain this file");
    assert_eq!(user["activeEditorFile"]["relativePath"], "main.typ");
    assert!(user.get("sentAttachments").is_none());
    let start = shell.last(MessageType::AiStreamStart).expect("start");
    assert_eq!(start.run_id.as_deref(), Some(run.as_str()));
    assert_eq!(start.payload["messages"], saved["messages"]);
    assert_eq!(start.payload["modelConfig"]["id"], "m1");
    assert_eq!(start.payload["settings"]["maxHistoryMessages"], 40);
    assert_eq!(start.payload["activeEditorFile"]["basename"], "main.typ");
    assert_eq!(start.payload["attachments"], json!({}));
    assert!(shell.composer().stop_mode, "Send became Stop");
    assert!(shell.composer().input_disabled);
    assert!(shell.input.borrow().is_empty());
    assert!(shell.log.borrow().contains(&"begin".to_owned()));

    rig.event(
        "AI_STREAM_BATCH",
        Some("run-other"),
        json!({"items": [{"channel": "content", "text": "NOT MINE"}]}),
    );
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Hello"}]}),
    );
    rig.event("AI_STREAM_DONE", Some("run-other"), json!({}));
    assert!(rig.streaming(), "another run's end is ignored");
    rig.event("AI_STREAM_DONE", Some(&run), json!({}));
    assert!(!rig.streaming());
    let history = rig.history();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["content"], "Hello");
    assert_eq!(history[1]["responseStatus"], "complete");
    let final_save = rig.shell().last(MessageType::SessionUpdate).expect("final save");
    assert_eq!(final_save.payload["messages"].as_array().map(Vec::len), Some(2));
    assert!(!rig.shell().composer().stop_mode);
    // The start request answering afterwards changes nothing.
    rig.release(MessageType::AiStreamStart, Ok(json!({"ok": true, "runId": run})));
    assert_eq!(rig.history().len(), 2);
}

#[test]
fn an_unidentified_file_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => ok(json!({"workspace": {}})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    let shell = rig.shell();
    assert_eq!(shell.count(MessageType::AiRunReserve), 0);
    assert!(
        shell
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("could not be identified"))
    );
    assert!(rig.history().is_empty());
    assert!(!shell.composer().input_disabled, "the composer unlocks again");
}

#[test]
fn a_tab_that_left_the_project_while_preparing_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.shell()
        .tabs
        .borrow_mut()
        .extend([tab(FIXTURE_URL), tab("https://typst.app/project/p9")]);
    rig.type_and_send("hello");
    assert_eq!(rig.shell().count(MessageType::AiRunReserve), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, _)| t.contains("while the message was being prepared"))
    );
}

#[test]
fn no_model_no_text_or_a_second_send_do_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => ok(json!({"models": []})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("   ");
    assert_eq!(rig.shell().count(MessageType::GetEditorContext), 0);
    rig.type_and_send("hello");
    assert_eq!(rig.shell().count(MessageType::GetEditorContext), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("Add a model"))
    );

    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.type_and_send("first");
    rig.type_and_send("second");
    assert_eq!(
        rig.shell().count(MessageType::GetEditorContext),
        1,
        "one send at a time"
    );
    assert!(rig.shell().composer().send_disabled);
}

#[test]
fn attachments_are_refreshed_from_the_captured_tab_and_stored_bounded() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetPreview => ok(json!({"dataUrl": "data:image/png;base64,FRESH"})),
        MessageType::GetEditorContext if payload.get("projection").is_none() => ok(json!({
            "selectedText": "  = Heading  ",
            "workspace": {"active_editor_file": {"relativePath": "chapters/intro.typ"}}
        })),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Selection).await });
    assert_eq!(
        rig.shell().last(MessageType::GetEditorContext).map(|s| s.payload),
        Some(json!({"tabId": 7}))
    );
    assert!(rig.shell().saw_status("Selection added"));
    rig.run(|app| async move { app.add_context(ContextKind::OpenedImage).await });
    assert_eq!(
        rig.shell().last(MessageType::GetPreview).map(|s| s.payload),
        Some(json!({"preferAssetImage": true, "tabId": 7}))
    );
    assert_eq!(rig.shell().attachments.borrow().selections.len(), 1);
    assert_eq!(rig.shell().attachments.borrow().previews.len(), 1);

    let before = rig.shell().sent.borrow().len();
    rig.type_and_send("Compare");
    let shell = rig.shell();
    let sequence: Vec<MessageType> = shell.sent.borrow()[before..].iter().map(|s| s.ty).collect();
    assert_eq!(
        &sequence[..3],
        [
            MessageType::GetEditorContext,
            MessageType::GetPreview,
            MessageType::AiRunReserve
        ]
    );
    let start = shell.last(MessageType::AiStreamStart).expect("start").payload;
    assert_eq!(
        start["attachments"]["previews"],
        json!([{"dataUrl": "data:image/png;base64,FRESH"}])
    );
    assert_eq!(start["attachments"]["selections"][0]["selectedText"], "= Heading");
    assert_eq!(
        start["attachments"]["selections"][0]["activeFile"]["relativePath"],
        "chapters/intro.typ"
    );
    let user = &start["messages"][0];
    assert_eq!(
        user["sentAttachments"]["selections"],
        json!([{"text": "= Heading", "fileLabel": "chapters/intro.typ"}])
    );
    assert_eq!(user["sentAttachments"]["previews"][0]["thumbnail"], true);
    assert!(shell.attachments.borrow().is_empty(), "chips are cleared at send");
}

#[test]
fn a_failed_refresh_aborts_the_send() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetPreview if payload.get("tabId").is_some() && payload["preferTypstCanvas"] == true => {
            ok(json!({"dataUrl": "data:image/png;base64,AAAA"}))
        }
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Preview).await });
    // The next capture fails.
    *rig.shell().responder.borrow_mut() = Box::new(|ty, payload| match ty {
        MessageType::GetPreview => ok(json!({"error": "No Typst canvas"})),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("look");
    assert_eq!(rig.shell().count(MessageType::AiRunReserve), 0);
    assert_eq!(
        rig.shell().last_status(),
        Some(("Refresh failed: No Typst canvas".to_owned(), true))
    );
    assert_eq!(
        rig.app.with_state(|s| s.attachments.previews.len()),
        1,
        "nothing is lost"
    );
}

#[test]
fn auto_naming_runs_when_configured_and_keeps_only_the_newest_title() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => {
            let mut settings = model_settings();
            settings["autoNameModelId"] = json!("m1");
            ok(settings)
        }
        MessageType::GenerateSessionTitle => Answer::Hold,
        MessageType::SessionUpdate if payload["autoName"] == true => ok(json!({
            "id": "s1", "projectId": "p1", "name": payload["name"], "userRenamed": false, "messages": []
        })),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("Fix my table");
    let title = rig
        .shell()
        .last(MessageType::GenerateSessionTitle)
        .expect("title request");
    assert_eq!(title.payload["modelConfig"]["id"], "m1");
    assert_eq!(
        title.payload["messages"],
        json!([{"role": "user", "content": "Fix my table"}])
    );
    assert!(
        rig.shell().types().contains(&MessageType::AiStreamStart),
        "the run does not wait for the title"
    );
    let run = rig
        .shell()
        .last(MessageType::AiRunReserve)
        .and_then(|s| s.run_id)
        .expect("run");
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Done"}]}),
    );
    rig.event("AI_STREAM_DONE", Some(&run), json!({}));
    rig.type_and_send("And the caption");
    assert_eq!(rig.shell().count(MessageType::GenerateSessionTitle), 2);
    // The older answer arrives last-but-one: it is discarded.
    rig.release(
        MessageType::GenerateSessionTitle,
        Ok(json!({"ok": true, "title": "Stale title"})),
    );
    assert_ne!(*rig.shell().session_name.borrow(), "Stale title");
    rig.release(
        MessageType::GenerateSessionTitle,
        Ok(json!({"ok": true, "title": "Table fixes"})),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Table fixes");
    let update = rig
        .shell()
        .last(MessageType::SessionUpdate)
        .expect("name saved")
        .payload;
    assert_eq!(
        update,
        json!({"sessionId": "s1", "name": "Table fixes", "autoName": true})
    );
}

#[test]
fn auto_naming_errors_are_shown_without_touching_the_run() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::LoadSettings => {
            let mut settings = model_settings();
            settings["autoNameModelId"] = json!("m1");
            ok(settings)
        }
        MessageType::GenerateSessionTitle => err("PROVIDER_ERROR", "503 from the naming model"),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert!(
        rig.shell()
            .saw_status("Chat auto-naming failed: 503 from the naming model")
    );
    assert!(rig.streaming());
}

// ---------------------------------------------------------------- terminal events, Stop

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
        json!({"code": "PROVIDER_ERROR", "message": "Broken stream"}),
    );
    let history = rig.history();
    assert_eq!(
        history.last().map(|m| m["responseStatus"].clone()),
        Some(json!("incomplete"))
    );
    assert_eq!(history.last().map(|m| m["content"].clone()), Some(json!("Partial")));
}

#[test]
fn stop_cancels_the_run_and_a_cancelled_event_keeps_the_partial_answer() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("long answer please");
    let run = run_id(1);
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Part"}]}),
    );
    rig.run(|app| async move { app.send().await });
    let cancel = rig.shell().last(MessageType::AiStreamCancel).expect("cancel");
    assert_eq!(cancel.run_id.as_deref(), Some(run.as_str()));
    assert_eq!(cancel.payload, json!({}));
    rig.event(
        "AI_STREAM_CANCELLED",
        Some(&run),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(rig.history()[1]["responseStatus"], "incomplete");
    assert_eq!(rig.shell().last_status(), Some(("Stopped".to_owned(), false)));
    assert!(!rig.shell().composer().stop_mode);
}

#[test]
fn stop_before_the_start_is_sticky_and_no_run_starts() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionUpdate => Answer::Hold,
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert!(rig.streaming());
    rig.run(|app| async move { app.stop().await });
    assert_eq!(rig.shell().count(MessageType::AiStreamCancel), 1);
    rig.release(MessageType::SessionUpdate, Ok(json!(null)));
    assert_eq!(rig.shell().count(MessageType::AiStreamStart), 0);
    assert!(!rig.streaming());
    assert!(rig.shell().saw_status("Stopped"));
    assert!(rig.shell().log.borrow().contains(&"finalize:false".to_owned()));
}

#[test]
fn a_refused_or_failed_start_ends_the_bubble() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("hello");
    rig.release(
        MessageType::AiStreamStart,
        Ok(json!({"ok": false, "code": "MODEL_MISSING", "error": "No model is configured.", "runId": run_id(1)})),
    );
    assert!(!rig.streaming());
    assert_eq!(
        rig.shell().last_status(),
        Some(("No model is configured.".to_owned(), true))
    );

    rig.type_and_send("again");
    rig.release(
        MessageType::AiStreamStart,
        Err(WorkerError {
            code: "RUN_NOT_RESERVED".to_owned(),
            message: "The run was not reserved.".to_owned(),
            details: None,
        }),
    );
    assert!(!rig.streaming());
    let cancel = rig
        .shell()
        .last(MessageType::AiStreamCancel)
        .expect("cancel after a refusal");
    assert_eq!(cancel.run_id, Some(run_id(2)));
}

#[test]
fn a_failed_reservation_shows_the_error_and_releases_the_composer() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::AiRunReserve => err("SESSION_RUN_ACTIVE", "This chat already has a run."),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert_eq!(
        rig.shell().last_status(),
        Some(("This chat already has a run.".to_owned(), true))
    );
    assert!(rig.history().is_empty());
    assert_eq!(
        rig.shell().count(MessageType::AiStreamCancel),
        0,
        "nothing was reserved"
    );
    assert!(!rig.shell().composer().input_disabled);
}

#[test]
fn a_failed_user_turn_save_cancels_the_reserved_run() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionUpdate => err("STORAGE_QUOTA_EXCEEDED", "Quota exceeded."),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("hello");
    assert_eq!(
        rig.shell().last(MessageType::AiStreamCancel).and_then(|s| s.run_id),
        Some(run_id(1))
    );
    assert_eq!(rig.shell().count(MessageType::AiStreamStart), 0);
    assert!(!rig.streaming());
    assert!(rig.shell().saw_status("Quota exceeded."));
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

// ---------------------------------------------------------------- navigation during a run

#[test]
fn switching_chats_during_a_run_stops_it_and_saves_the_answer_to_its_own_chat() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet if payload["sessionId"] == "s2" => ok(session("s2", "Second", json!([]))),
        other => default_worker()(other, payload),
    });
    rig.type_and_send("question");
    let run = run_id(1);
    rig.event(
        "AI_STREAM_BATCH",
        Some(&run),
        json!({"items": [{"channel": "content", "text": "Half"}]}),
    );
    let target = SessionMeta {
        id: "s2".to_owned(),
        project_id: "p1".to_owned(),
        name: "Second".to_owned(),
        user_renamed: false,
    };
    rig.run(move |app| async move {
        app.switch_session(target).await;
    });
    assert!(rig.shell().saw_status("Stopping the current run…"));
    assert_eq!(
        rig.shell().last(MessageType::AiStreamCancel).and_then(|s| s.run_id),
        Some(run.clone())
    );
    assert_eq!(
        rig.shell().count(MessageType::SessionGet),
        2,
        "still waiting for the terminal event"
    );
    rig.event(
        "AI_STREAM_CANCELLED",
        Some(&run),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Second");
    assert!(rig.history().is_empty(), "the new chat is shown");
    let saves: Vec<Value> = rig
        .shell()
        .sent
        .borrow()
        .iter()
        .filter(|s| s.ty == MessageType::SessionUpdate && s.payload["sessionId"] == "s1")
        .map(|s| s.payload["messages"].clone())
        .collect();
    assert!(
        saves
            .iter()
            .any(|m| m.as_array().is_some_and(|a| a.len() == 2 && a[1]["content"] == "Half")),
        "the partial answer was saved to the run's chat: {saves:?}"
    );
}

#[test]
fn a_run_that_never_ends_is_finished_locally_after_the_wait() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet if payload["sessionId"] == "s2" => ok(session("s2", "Second", json!([]))),
        other => default_worker()(other, payload),
    });
    rig.shell().sleeps_finish.set(true);
    rig.type_and_send("question");
    let target = SessionMeta {
        id: "s2".to_owned(),
        project_id: "p1".to_owned(),
        name: "Second".to_owned(),
        user_renamed: false,
    };
    rig.run(move |app| async move {
        app.switch_session(target).await;
    });
    assert!(!rig.streaming());
    assert_eq!(*rig.shell().session_name.borrow(), "Second");
    // A late event of the old run is ignored.
    rig.event("AI_STREAM_DONE", Some(&run_id(1)), json!({}));
    assert!(rig.history().is_empty());
}

// ---------------------------------------------------------------- reconnect

#[test]
fn a_reopened_panel_shows_the_running_run_and_reloads_the_chat_at_its_end() {
    let statuses = Rc::new(Cell::new(0));
    let seen = Rc::clone(&statuses);
    let gets = Rc::new(Cell::new(0));
    let reloads = Rc::clone(&gets);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::AiRunStatus => {
            seen.set(seen.get() + 1);
            ok(json!([{"runId": "run-bg", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 5}]))
        }
        MessageType::SessionGet => {
            reloads.set(reloads.get() + 1);
            let messages = if reloads.get() > 1 {
                json!([{"role": "user", "content": "q"}, {"role": "assistant", "content": "Saved by the worker"}])
            } else {
                json!([{"role": "user", "content": "q"}])
            };
            ok(session("s1", "First", messages))
        }
        other => default_worker()(other, payload),
    });
    assert_eq!(statuses.get(), 2, "checked again after taking the run over");
    assert!(rig.streaming());
    assert!(rig.shell().composer().stop_mode, "Stop stays available");
    assert!(
        rig.shell()
            .statuses
            .borrow()
            .iter()
            .any(|(t, e, d)| t.contains("continuing in the background") && !e && *d == Some(0))
    );
    rig.event(
        "AI_STREAM_BATCH",
        Some("run-bg"),
        json!({"items": [{"channel": "content", "text": "live"}]}),
    );
    assert!(
        rig.shell().streamed.borrow().is_empty(),
        "no bubble for a reconnected run"
    );
    rig.event("AI_STREAM_DONE", Some("run-bg"), json!({}));
    assert!(!rig.streaming());
    assert_eq!(rig.history().len(), 2);
    assert_eq!(rig.history()[1]["content"], "Saved by the worker");
    assert_eq!(rig.shell().last_status(), Some(("Run completed".to_owned(), false)));
}

#[test]
fn a_run_that_ended_while_reconnecting_is_finished_at_once() {
    let calls = Rc::new(Cell::new(0));
    let counter = Rc::clone(&calls);
    let rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::AiRunStatus => {
            counter.set(counter.get() + 1);
            if counter.get() == 1 {
                ok(json!([{"runId": "run-bg", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 1}]))
            } else {
                ok(json!([]))
            }
        }
        other => default_worker()(other, payload),
    });
    assert!(!rig.streaming());
    assert_eq!(rig.shell().last_status(), Some(("Run completed".to_owned(), false)));
}

#[test]
fn stopping_a_reconnected_run_cancels_it_in_the_worker() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::AiRunStatus => ok(json!([
            {"runId": "run-old", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 1},
            {"runId": "run-new", "tabId": 7, "projectId": "p1", "sessionId": "s1", "startedAt": 9}
        ])),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.send().await });
    assert_eq!(
        rig.shell()
            .last(MessageType::AiStreamCancel)
            .and_then(|s| s.run_id)
            .as_deref(),
        Some("run-new")
    );
    rig.event(
        "AI_STREAM_CANCELLED",
        Some("run-new"),
        json!({"code": "CANCELLED", "message": "Run cancelled."}),
    );
    assert_eq!(rig.shell().last_status(), Some(("Stopped".to_owned(), false)));
}

// ---------------------------------------------------------------- session menu

#[test]
fn rename_saves_a_user_name_and_no_op_renames_only_refresh() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let current = SessionMeta {
        id: "s1".to_owned(),
        project_id: "p1".to_owned(),
        name: "First".to_owned(),
        user_renamed: false,
    };
    let same = current.clone();
    rig.run(move |app| async move { app.rename_session(same, " First ".to_owned()).await });
    assert_eq!(rig.shell().count(MessageType::SessionUpdate), 0);
    rig.run(move |app| async move { app.rename_session(current, "  Thesis intro ".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionUpdate).map(|s| s.payload),
        Some(json!({"sessionId": "s1", "name": "Thesis intro", "userRenamed": true}))
    );
    assert_eq!(*rig.shell().session_name.borrow(), "Thesis intro");
    assert!(
        rig.app
            .with_state(|s| s.session.as_ref().is_some_and(|s| s.user_renamed))
    );
}

#[test]
fn deleting_the_open_chat_opens_the_newest_and_deleting_the_last_creates_one() {
    let remaining = Rc::new(RefCell::new(json!([{"id": "s2", "projectId": "p1", "name": "Two"}])));
    let list = Rc::clone(&remaining);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SessionDelete => ok(json!({"ok": true, "removed": 1})),
        MessageType::SessionList if list.borrow().as_array().is_some_and(|a| a.is_empty()) => ok(json!([])),
        MessageType::SessionList => {
            // The first list (at start) still has s1.
            ok(list.borrow().clone())
        }
        MessageType::SessionGet => ok(session(payload["sessionId"].as_str().unwrap_or(""), "Two", json!([]))),
        MessageType::SessionCreate => ok(session("s3", "New chat", json!([]))),
        other => default_worker()(other, payload),
    });
    let saves_before = rig.shell().count(MessageType::SessionUpdate);
    rig.run(|app| async move { app.delete_session("s2".to_owned()).await });
    assert_eq!(
        rig.app
            .with_state(|s| s.session.as_ref().map(|s| s.id.clone()))
            .as_deref(),
        Some("s2")
    );
    *remaining.borrow_mut() = json!([]);
    rig.run(|app| async move { app.delete_session("s2".to_owned()).await });
    assert_eq!(
        rig.shell().last(MessageType::SessionCreate).map(|s| s.payload),
        Some(json!({"projectId": "p1", "name": "New chat"}))
    );
    assert_eq!(
        rig.app
            .with_state(|s| s.session.as_ref().map(|s| s.id.clone()))
            .as_deref(),
        Some("s3")
    );
    let saved_deleted = rig
        .shell()
        .sent
        .borrow()
        .iter()
        .skip(saves_before)
        .any(|s| s.ty == MessageType::SessionUpdate && s.payload["sessionId"] == "s2");
    assert!(!saved_deleted, "a deleted chat is not written back");
}

// ---------------------------------------------------------------- settings

#[test]
fn general_save_sends_only_its_fields_and_updates_the_shortcut() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => ok(json!({"ok": true, "settings": payload["settings"]})),
        other => default_worker()(other, payload),
    });
    let form = GeneralForm {
        system_prompt: " Be terse. ".to_owned(),
        history_cap: "3".to_owned(),
        auto_name_model_id: "m1".to_owned(),
        send_message_shortcut: "ctrl-enter".to_owned(),
    };
    rig.run(move |app| async move {
        assert!(app.save_general(form).await);
    });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(
        saved["fields"],
        json!([
            "systemPrompt",
            "maxHistoryMessages",
            "autoNameModelId",
            "sendMessageShortcut"
        ])
    );
    assert_eq!(saved["settings"]["maxHistoryMessages"], 8);
    assert_eq!(saved["settings"]["systemPrompt"], "Be terse.");
    assert_eq!(rig.shell().composer().shortcut, SendMessageShortcut::CtrlEnter);
    assert!(rig.shell().saw_status("Settings saved"));
}

#[test]
fn theme_changes_apply_at_once_and_are_saved() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveTheme => ok(json!({"ok": true})),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.save_theme("dark").await });
    assert_eq!(*rig.shell().theme.borrow(), "dark");
    assert_eq!(
        rig.shell().last(MessageType::SaveTheme).map(|s| s.payload),
        Some(json!({"theme": "dark"}))
    );
}

#[test]
fn model_form_upserts_and_the_model_menu_selects() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => ok(json!({"ok": true, "settings": payload["settings"]})),
        other => default_worker()(other, payload),
    });
    let form = ModelForm {
        name: "Second".to_owned(),
        api_base_url: "https://model.fixture/v1".to_owned(),
        api_key: "sk-2".to_owned(),
        model_id: "second-model".to_owned(),
        reasoning_effort: "low".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(form).await;
    });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(saved["modelMutation"]["type"], "upsert");
    let record = &saved["modelMutation"]["record"];
    assert_eq!(record["apiBaseUrl"], "https://model.fixture/v1");
    assert_eq!(record["reasoningEffort"], "low");
    let new_id = record["id"].as_str().expect("id").to_owned();
    assert!(rig.shell().log.borrow().contains(&"close-model-form".to_owned()));
    assert_eq!(rig.app.with_state(|s| s.settings.models.len()), 2);

    let chosen = new_id.clone();
    rig.run(move |app| async move { app.select_model(chosen).await });
    let select = rig.shell().last(MessageType::SaveSettings).expect("select").payload;
    assert_eq!(select["modelMutation"], json!({"type": "select", "id": new_id}));
    assert_eq!(rig.app.with_state(|s| s.settings.active_model_id.clone()), Some(new_id));
    assert!(rig.shell().log.borrow().contains(&"close-model-menu".to_owned()));
}

#[test]
fn invalid_model_forms_are_refused_before_any_request() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    let form = ModelForm {
        name: "Plain".to_owned(),
        api_base_url: "http://10.1.2.3:8080/v1".to_owned(),
        api_key: "k".to_owned(),
        model_id: "m".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(form).await;
    });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 0);
    assert!(
        rig.shell()
            .last_status()
            .is_some_and(|(t, e)| e && t.contains("http://10.1.2.3:8080"))
    );
}

#[test]
fn model_changes_run_one_after_another_against_the_latest_settings() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => Answer::Hold,
        other => default_worker()(other, payload),
    });
    let add = ModelForm {
        name: "Second".to_owned(),
        api_base_url: "https://model.fixture/v1".to_owned(),
        api_key: "k".to_owned(),
        model_id: "m2".to_owned(),
        ..ModelForm::default()
    };
    rig.run(move |app| async move {
        app.save_model_form(add).await;
    });
    rig.run(|app| async move { app.delete_model("m1".to_owned()).await });
    assert_eq!(
        rig.shell().count(MessageType::SaveSettings),
        1,
        "the second waits for the first"
    );
    let first = rig.shell().last(MessageType::SaveSettings).expect("first").payload;
    rig.release(
        MessageType::SaveSettings,
        Ok(json!({"ok": true, "settings": first["settings"]})),
    );
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 2);
    let second = rig.shell().last(MessageType::SaveSettings).expect("second").payload;
    let ids: Vec<String> = second["settings"]["models"]
        .as_array()
        .map(|m| m.iter().filter_map(|m| m["id"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 1, "removal computed after the upsert landed: {ids:?}");
    assert_ne!(ids[0], "m1");
    rig.release(
        MessageType::SaveSettings,
        Err(WorkerError {
            code: "STORAGE_WRITE_FAILED".to_owned(),
            message: "disk".to_owned(),
            details: None,
        }),
    );
    assert_eq!(
        rig.app.with_state(|s| s.settings.models.len()),
        2,
        "a failed save commits nothing"
    );
    assert!(rig.shell().saw_status("Settings were not saved: disk"));
}

#[test]
fn an_empty_selection_is_reported_and_nothing_is_attached() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::GetEditorContext => ok(json!({"selectedText": "   "})),
        other => default_worker()(other, payload),
    });
    rig.run(|app| async move { app.add_context(ContextKind::Selection).await });
    assert!(rig.shell().attachments.borrow().is_empty());
    assert_eq!(
        rig.shell().last_status(),
        Some(("No text is selected.".to_owned(), true))
    );
}

#[test]
fn a_refused_general_save_keeps_the_panels_settings() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SaveSettings => err("INVALID_PAYLOAD", "maxHistoryMessages is not a number"),
        other => default_worker()(other, payload),
    });
    let form = GeneralForm {
        system_prompt: "New prompt".to_owned(),
        history_cap: "50".to_owned(),
        auto_name_model_id: String::new(),
        send_message_shortcut: "shift-enter".to_owned(),
    };
    rig.run(move |app| async move {
        assert!(!app.save_general(form).await);
    });
    assert_eq!(
        rig.app.with_state(|s| s.settings.send_message_shortcut),
        SendMessageShortcut::Enter
    );
    assert_eq!(rig.app.with_state(|s| s.settings.system_prompt.clone()), "");
    assert!(
        rig.shell()
            .saw_status("Settings were not saved: maxHistoryMessages is not a number")
    );
}

// ---------------------------------------------------------------- editor writes

#[test]
fn the_edits_mode_is_saved_alone_at_once_and_put_back_when_the_save_fails() {
    let fail = Rc::new(Cell::new(false));
    let failing = Rc::clone(&fail);
    let mut rig = Rig::started(FIXTURE_URL, move |ty, payload| match ty {
        MessageType::SaveSettings if failing.get() => err("STORAGE_WRITE_FAILED", "disk full"),
        MessageType::SaveSettings => Answer::Hold,
        other => default_worker()(other, payload),
    });
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Ask);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Auto).await });
    let saved = rig.shell().last(MessageType::SaveSettings).expect("saved").payload;
    assert_eq!(saved["fields"], json!(["editorApprovalMode"]));
    assert_eq!(saved["settings"]["editorApprovalMode"], "auto");
    // While saving, the control shows the new mode and cannot change again.
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Auto);
    assert!(rig.shell().composer().editor_mode_disabled);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Ask).await });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 1);
    rig.release(
        MessageType::SaveSettings,
        Ok(json!({"ok": true, "settings": {"editorApprovalMode": "auto"}})),
    );
    assert!(!rig.shell().composer().editor_mode_disabled);
    assert!(!rig.shell().last_status().expect("status").1);

    fail.set(true);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Ask).await });
    assert_eq!(rig.shell().composer().editor_mode, EditorApprovalMode::Auto);
    assert_eq!(
        rig.app.with_state(|s| s.settings.editor_approval_mode),
        EditorApprovalMode::Auto
    );
    let (text, is_error) = rig.shell().last_status().expect("status");
    assert!(is_error && text.contains("disk full"));
}

#[test]
fn the_edits_mode_is_locked_while_a_run_streams() {
    let mut rig = Rig::started(FIXTURE_URL, default_worker());
    rig.type_and_send("edit it");
    assert!(rig.shell().composer().editor_mode_disabled);
    assert!(rig.shell().composer().recovery_disabled);
    rig.run(|app| async move { app.set_editor_approval_mode(EditorApprovalMode::Auto).await });
    assert_eq!(rig.shell().count(MessageType::SaveSettings), 0);
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

fn edited_answer(call: &str, checkpoint: &str) -> Value {
    json!({"role": "assistant", "content": "Done.", "responseStatus": "complete", "segments": [
        {"type": "tools", "calls": [{"id": call, "name": "replace_lines", "arguments": "{}"}],
         "results": {(call): {"ok": true, "edits_applied": 1, "reviewed_diff": true,
            "editCheckpoint": {"id": checkpoint, "status": "applied", "fileLabel": "main.typ", "createdAt": 1}}}},
        {"type": "text", "content": "Done."}]})
}

fn edited_chat() -> Value {
    json!([{"role": "user", "content": "one"}, edited_answer("c1", "edit-1"),
           {"role": "user", "content": "two"}, edited_answer("c2", "edit-2")])
}

fn receipt_status(history: &[Value], message: usize, call: &str) -> String {
    history[message]["segments"][0]["results"][call]["editCheckpoint"]["status"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn checkpoint(id: &str) -> PublicEditCheckpoint {
    PublicEditCheckpoint::normalize(
        &json!({"id": id, "status": "applied", "fileLabel": "main.typ", "createdAt": 1}),
        false,
        0.0,
    )
    .expect("receipt")
}

#[test]
fn a_revert_writes_every_reverted_receipt_into_the_chat_and_saves_it() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::EditCheckpointRevert => ok(json!({"ok": true, "revertedCount": 2, "alreadyReverted": false,
            "checkpoint": {"id": "edit-1", "status": "reverted", "fileLabel": "main.typ", "createdAt": 1},
            "checkpoints": [{"id": "edit-2", "status": "reverted", "fileLabel": "main.typ", "createdAt": 2},
                            {"id": "edit-1", "status": "reverted", "fileLabel": "main.typ", "createdAt": 1}]})),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert_eq!(outcome.error, None);
    assert_eq!(outcome.save_error, None);
    assert_eq!(outcome.checkpoint.status, PublicCheckpointStatus::Reverted);
    let sent = rig
        .shell()
        .last(MessageType::EditCheckpointRevert)
        .expect("sent")
        .payload;
    assert_eq!(
        sent,
        json!({"checkpointId": "edit-1", "tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let history = rig.history();
    assert_eq!(receipt_status(&history, 1, "c1"), "reverted");
    assert_eq!(receipt_status(&history, 3, "c2"), "reverted");
    let saved = rig.shell().last(MessageType::SessionUpdate).expect("saved").payload;
    assert_eq!(saved["sessionId"], "s1");
    assert_eq!(
        receipt_status(saved["messages"].as_array().expect("messages"), 1, "c1"),
        "reverted"
    );
    let log = rig.shell().log.borrow().clone();
    assert!(log.contains(&"checkpoint:edit-2:Reverted".to_owned()));
}

#[test]
fn a_stopped_revert_keeps_its_partial_progress_and_reports_the_error() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::EditCheckpointRevert => Answer::Now(Err(WorkerError {
            code: "EDIT_CHECKPOINT_CONFLICT".to_owned(),
            message: "1 newer response was reverted, but the cascade stopped: the document changed.".to_owned(),
            details: Some(json!({"selectedCheckpointId": "edit-1", "failedCheckpointId": "edit-1",
                "revertedCount": 1, "totalCount": 2,
                "checkpoints": [{"id": "edit-2", "status": "reverted", "fileLabel": "main.typ", "createdAt": 2}]})),
        })),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert!(outcome.error.as_deref().is_some_and(|e| e.contains("cascade stopped")));
    assert_eq!(outcome.checkpoint.status, PublicCheckpointStatus::Applied);
    let history = rig.history();
    assert_eq!(receipt_status(&history, 3, "c2"), "reverted");
    assert_eq!(receipt_status(&history, 1, "c1"), "applied");
    assert_eq!(rig.shell().count(MessageType::SessionUpdate), 1);
}

#[test]
fn a_revert_for_a_chat_that_is_no_longer_open_sends_nothing() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session(
            payload["sessionId"].as_str().unwrap_or("s1"),
            "First",
            edited_chat(),
        )),
        other => default_worker()(other, payload),
    });
    let scope = rig.app.recovery_scope().expect("scope");
    // The chat is reloaded: a new history, so the dialog's scope is stale.
    let meta = rig.app.with_state(|s| s.session.clone()).expect("session");
    rig.run(|app| async move {
        app.switch_session(SessionMeta {
            id: "s2".to_owned(),
            ..meta
        })
        .await;
    });
    let outcome = Rc::new(RefCell::new(None));
    let out = Rc::clone(&outcome);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.revert_checkpoint(scope, checkpoint("edit-1")).await);
    });
    let outcome = outcome.borrow_mut().take().expect("finished");
    assert!(outcome.error.is_some());
    assert_eq!(rig.shell().count(MessageType::EditCheckpointRevert), 0);
}

#[test]
fn recovery_is_refused_off_typst() {
    let rig = Rig::started("https://example.com/", default_worker());
    assert!(rig.app.recovery_scope().is_err());
    assert!(rig.shell().composer().recovery_disabled);
}

#[test]
fn a_restore_notes_the_editor_state_on_the_last_message_and_saves_the_chat() {
    let mut rig = Rig::started(FIXTURE_URL, |ty, payload| match ty {
        MessageType::SessionGet => ok(session("s1", "First", edited_chat())),
        MessageType::DocumentSnapshotList => ok(json!({"ok": true, "fileLabel": "main.typ", "snapshots": [
            {"id": "snapshot-1", "kind": "automatic", "projectId": "p1", "fileLabel": "main.typ",
             "title": "After latest response", "createdAt": 1, "textLength": 20, "sessionId": "s1"}]})),
        MessageType::DocumentSnapshotRestore => ok(json!({"ok": true, "noChanges": false,
            "snapshot": {"id": "snapshot-1"}, "rescueSnapshot": {"id": "snapshot-2"},
            "editorStateUpdate": {"kind": "snapshot-restored", "snapshotId": "snapshot-1",
                                  "fileLabel": "main.typ", "restoredAt": 99}})),
        MessageType::DocumentSnapshotDelete => ok(json!({"ok": true, "removed": 1})),
        other => default_worker()(other, payload),
    });
    let listed = Rc::new(RefCell::new(None));
    let out = Rc::clone(&listed);
    rig.run(move |app| async move {
        *out.borrow_mut() = Some(app.list_snapshots().await);
    });
    let (scope, file, snapshots) = listed.borrow_mut().take().expect("listed").expect("ok");
    assert_eq!((file.as_str(), snapshots.len()), ("main.typ", 1));
    assert_eq!(
        rig.shell()
            .last(MessageType::DocumentSnapshotList)
            .expect("sent")
            .payload,
        json!({"tabId": 7, "projectId": "p1", "sessionId": "s1"})
    );
    let restore_scope = scope.clone();
    rig.run(move |app| async move {
        app.restore_snapshot(&restore_scope, "snapshot-1")
            .await
            .expect("restored");
    });
    let history = rig.history();
    let updates = history[3]["editorStateUpdates"].as_array().cloned().unwrap_or_default();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0]["snapshotId"], "snapshot-1");
    let saved = rig.shell().last(MessageType::SessionUpdate).expect("saved").payload;
    assert_eq!(
        saved["messages"][3]["editorStateUpdates"][0]["restoredAt"].as_f64(),
        Some(99.0)
    );
    assert!(!rig.shell().last_status().expect("status").1);

    rig.run(move |app| async move {
        app.delete_snapshot(&scope, "snapshot-1").await.expect("deleted");
    });
    assert_eq!(
        rig.shell()
            .last(MessageType::DocumentSnapshotDelete)
            .expect("sent")
            .payload["snapshotId"],
        "snapshot-1"
    );
    assert!(rig.shell().saw_status("Snapshot deleted"));
}
