//! The fakes every app test runs on: a shell that answers worker requests
//! from a per-test responder (or holds them until the test releases them),
//! records what the UI and chat were told, and runs background tasks on a
//! single-threaded executor, like the browser does; the default worker of a
//! project with one empty chat; and the `Rig` that drives a controller.
//!
//! The test files import this module whole (`use super::fakes::*`), so it
//! also hands on the names they use.

pub(super) use crate::app::{
    BrowserTab, Chat, ComposerState, Controller, Integrations, Ports, SessionManager, SettingsTab, Ui,
};
pub(super) use crate::attachments::{Attachments, CaptureMode, ContextKind};
pub(super) use crate::integration_forms::{FieldError, FormField, IntegrationForm, McpForm, ToolForm};
pub(super) use crate::integrations::{IntegrationRecord, RegistryKind};
pub(super) use crate::mcp_probe::ProbeStatus;
pub(super) use crate::session_manager::ManagerContent;
pub(super) use crate::sessions::SessionMeta;
pub(super) use crate::settings::{GeneralForm, ModelForm, Settings};
pub(super) use crate::tab_gate::NO_PROJECT_TEXT;
pub(super) use crate::worker_client::WorkerError;
pub(super) use protocol::MessageType;
pub(super) use protocol::constants::{EditorApprovalMode, SendMessageShortcut};
pub(super) use protocol::edit_checkpoint::{PublicCheckpointStatus, PublicEditCheckpoint};
pub(super) use protocol::payloads::ApprovalAction;
pub(super) use serde_json::{Value, json};
pub(super) use std::cell::{Cell, RefCell};
pub(super) use std::rc::Rc;

use super::recorded;
use futures::channel::oneshot;
use futures::executor::{LocalPool, LocalSpawner};
use futures::future::{self, FutureExt, LocalBoxFuture};
use futures::task::LocalSpawnExt;
use protocol::payloads::{ApprovalRequired, PreflightWaiting, StreamItem, ToolCallInfo, ToolResult};
use std::collections::VecDeque;

pub(super) const FIXTURE_URL: &str = "https://typst.app/project/p1";
pub(super) const RUN_PREFIX: &str = "run-test-";

/// An answer the responder gives to a request.
pub(super) enum Answer {
    Now(Result<Value, WorkerError>),
    /// Kept pending until the test calls `release`.
    Hold,
}

pub(super) fn ok(value: Value) -> Answer {
    Answer::Now(Ok(value))
}

/// A failure the worker could answer: the code must be the catalogue's.
pub(super) fn err(code: &str, message: &str) -> Answer {
    Answer::Now(Err(WorkerError {
        code: recorded::real_code(code).to_owned(),
        message: message.to_owned(),
        details: None,
    }))
}

/// A failure with `details`, as the worker answers refusals that name a
/// field or explain a probe.
pub(super) fn err_with(code: &str, message: &str, details: Value) -> Answer {
    Answer::Now(Err(WorkerError {
        code: recorded::real_code(code).to_owned(),
        message: message.to_owned(),
        details: Some(details),
    }))
}

/// The worker's recorded answer to one case of the contract file.
pub(super) fn answered(name: &str) -> Answer {
    let answer = recorded::answer(name);
    if answer["ok"] == json!(true) {
        return ok(answer["data"].clone());
    }
    let error = &answer["error"];
    err(
        error["code"].as_str().unwrap_or_default(),
        error["message"].as_str().unwrap_or_default(),
    )
}

/// What a registry shows: its ids, or why it could not load.
pub(super) type Shown = Result<Vec<String>, String>;

pub(super) type Responder = Box<dyn FnMut(MessageType, &Value) -> Answer>;
pub(super) type Held = VecDeque<(MessageType, oneshot::Sender<Result<Value, WorkerError>>)>;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sent {
    pub(super) ty: MessageType,
    pub(super) payload: Value,
    pub(super) run_id: Option<String>,
}

pub(super) struct FakeShell {
    pub(super) spawner: LocalSpawner,
    pub(super) responder: RefCell<Responder>,
    pub(super) sent: RefCell<Vec<Sent>>,
    pub(super) held: RefCell<Held>,
    pub(super) tabs: RefCell<VecDeque<BrowserTab>>,
    /// How many times the panel asked for the active tab.
    pub(super) tab_lookups: Cell<usize>,
    /// While set, tab lookups wait in `held_tab_lookups` until
    /// [`Rig::release_tab_lookup`] answers them, each with the tab that was
    /// current when it was asked.
    pub(super) hold_tab_lookups: Cell<bool>,
    pub(super) held_tab_lookups: RefCell<VecDeque<oneshot::Sender<()>>>,
    pub(super) tab: RefCell<BrowserTab>,
    pub(super) next_id: Cell<u32>,
    pub(super) sleeps_finish: Cell<bool>,
    // Ui
    pub(super) statuses: RefCell<Vec<(String, bool, Option<u32>)>>,
    pub(super) banner: Cell<Option<bool>>,
    pub(super) theme: RefCell<String>,
    pub(super) session_name: RefCell<String>,
    pub(super) session_list: RefCell<Vec<String>>,
    pub(super) settings_shown: RefCell<Option<Settings>>,
    pub(super) opened_settings: RefCell<Vec<SettingsTab>>,
    pub(super) composer: Cell<Option<ComposerState>>,
    pub(super) attachments: RefCell<Attachments>,
    pub(super) input: RefCell<String>,
    pub(super) log: RefCell<Vec<String>>,
    // Chat
    pub(super) streamed: RefCell<String>,
    pub(super) tools: Cell<usize>,
    pub(super) rendered: RefCell<Vec<Vec<Value>>>,
    // Integrations
    /// What each registry shows: its ids, or why it could not load.
    pub(super) registries: RefCell<Vec<(RegistryKind, Shown)>>,
    pub(super) form_problems: RefCell<Vec<(RegistryKind, Vec<FieldError>)>>,
    pub(super) probes: RefCell<Vec<ProbeStatus>>,
    // SessionManager
    pub(super) manager_contents: RefCell<Vec<ManagerContent>>,
    /// Files saved: name and text.
    pub(super) downloads: RefCell<Vec<(String, String)>>,
    /// When set, a download is refused with this reason.
    pub(super) download_refusal: RefCell<Option<String>>,
}

impl FakeShell {
    pub(super) fn log(&self, entry: impl Into<String>) {
        self.log.borrow_mut().push(entry.into());
    }

    pub(super) fn types(&self) -> Vec<MessageType> {
        self.sent.borrow().iter().map(|s| s.ty).collect()
    }

    pub(super) fn last(&self, ty: MessageType) -> Option<Sent> {
        self.sent.borrow().iter().rev().find(|s| s.ty == ty).cloned()
    }

    pub(super) fn count(&self, ty: MessageType) -> usize {
        self.sent.borrow().iter().filter(|s| s.ty == ty).count()
    }

    pub(super) fn last_status(&self) -> Option<(String, bool)> {
        self.statuses.borrow().last().map(|(t, e, _)| (t.clone(), *e))
    }

    pub(super) fn saw_status(&self, text: &str) -> bool {
        self.statuses.borrow().iter().any(|(t, _, _)| t == text)
    }

    /// What `kind`'s registry shows now.
    pub(super) fn registry(&self, kind: RegistryKind) -> Option<Shown> {
        self.registries
            .borrow()
            .iter()
            .rev()
            .find(|(k, _)| *k == kind)
            .map(|(_, shown)| shown.clone())
    }

    /// The problems `kind`'s form shows now.
    pub(super) fn problems(&self, kind: RegistryKind) -> Vec<FieldError> {
        self.form_problems
            .borrow()
            .iter()
            .rev()
            .find(|(k, _)| *k == kind)
            .map(|(_, problems)| problems.clone())
            .unwrap_or_default()
    }

    /// What Settings → Sessions shows now.
    pub(super) fn manager(&self) -> ManagerContent {
        self.manager_contents
            .borrow()
            .last()
            .cloned()
            .expect("the Sessions tab was drawn")
    }

    pub(super) fn composer(&self) -> ComposerState {
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
            Answer::Now(result) => {
                if let Ok(value) = &result {
                    recorded::check_shape(message_type, value);
                }
                future::ready(result).boxed_local()
            }
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
        self.tab_lookups.set(self.tab_lookups.get() + 1);
        let next = self.tabs.borrow_mut().pop_front();
        if let Some(tab) = next {
            *self.tab.borrow_mut() = tab;
        }
        if self.hold_tab_lookups.get() {
            let (sender, receiver) = oneshot::channel();
            self.held_tab_lookups.borrow_mut().push_back(sender);
            let tab = self.tab.borrow().clone();
            return receiver.map(move |_| Some(tab)).boxed_local();
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

    fn now_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1_000.0)
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

impl Integrations for FakeShell {
    fn show_registry(&self, kind: RegistryKind, records: Result<&[IntegrationRecord], &str>) {
        let shown = records
            .map(|records| records.iter().map(IntegrationRecord::id).collect())
            .map_err(str::to_owned);
        self.registries.borrow_mut().push((kind, shown));
    }
    fn show_form_problems(&self, kind: RegistryKind, problems: &[FieldError]) {
        self.form_problems.borrow_mut().push((kind, problems.to_vec()));
    }
    fn close_integration_form(&self, kind: RegistryKind) {
        self.log(format!("close-form:{kind:?}"));
    }
    fn show_probe(&self, status: &ProbeStatus) {
        self.probes.borrow_mut().push(status.clone());
    }
}

impl SessionManager for FakeShell {
    fn show_session_manager(&self, view: &ManagerContent) {
        self.manager_contents.borrow_mut().push(view.clone());
    }
    fn clear_session_filter(&self) {
        self.log("clear-session-filter");
    }
    fn download(&self, file_name: &str, text: &str) -> Result<(), String> {
        if let Some(why) = self.download_refusal.borrow().clone() {
            return Err(why);
        }
        self.downloads
            .borrow_mut()
            .push((file_name.to_owned(), text.to_owned()));
        Ok(())
    }
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

pub(super) fn tab(url: &str) -> BrowserTab {
    BrowserTab {
        id: Some(7),
        window_id: Some(1),
        url: url.to_owned(),
    }
}

/// The settings of one model `m1`, as the worker loads them.
pub(super) fn model_settings() -> Value {
    recorded::data("load_settings")
}

/// A chat of project `p1` as `SESSION_GET` answers it: the recorded chat
/// `s1` with this id, name and messages.
pub(super) fn session(id: &str, name: &str, messages: Value) -> Value {
    let mut chat = recorded::data("session_get");
    chat["id"] = json!(id);
    chat["name"] = json!(name);
    chat["messages"] = messages;
    chat
}

/// A chat of project `p1` as `SESSION_CREATE` answers it.
pub(super) fn created_session(id: &str, name: &str) -> Value {
    let mut chat = recorded::data("session_create");
    chat["id"] = json!(id);
    chat["name"] = json!(name);
    chat
}

/// The identity context of the typst.app tab, as the worker reads it.
pub(super) fn identity_context() -> Value {
    recorded::data("identity_context")
}

/// The worker of a project with one empty chat `s1` and one model.
pub(super) fn default_worker() -> impl FnMut(MessageType, &Value) -> Answer {
    move |ty, payload| match ty {
        MessageType::LoadTheme => answered("load_theme"),
        MessageType::LoadSettings => answered("load_settings"),
        MessageType::SessionList => answered("session_list"),
        MessageType::SessionGet | MessageType::SessionUpdate => ok(session(
            payload["sessionId"].as_str().unwrap_or("s1"),
            "First",
            json!([]),
        )),
        MessageType::AiRunStatus => answered("run_status_idle"),
        MessageType::GetEditorContext => answered("identity_context"),
        MessageType::AiRunReserve => answered("run_reserve"),
        MessageType::AiStreamStart => Answer::Hold,
        MessageType::AiStreamCancel => answered("run_cancel_active"),
        MessageType::QuickAttachDrain => answered("quick_attach_drain_empty"),
        _ => answered("unrouted"),
    }
}

pub(super) struct Rig {
    pub(super) pool: LocalPool,
    pub(super) app: Rc<Controller<FakeShell>>,
}

impl Rig {
    pub(super) fn new(url: &str, responder: impl FnMut(MessageType, &Value) -> Answer + 'static) -> Rig {
        let pool = LocalPool::new();
        let shell = FakeShell {
            spawner: pool.spawner(),
            responder: RefCell::new(Box::new(responder)),
            sent: RefCell::default(),
            held: RefCell::default(),
            tabs: RefCell::default(),
            tab_lookups: Cell::default(),
            hold_tab_lookups: Cell::new(false),
            held_tab_lookups: RefCell::default(),
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
            registries: RefCell::default(),
            form_problems: RefCell::default(),
            probes: RefCell::default(),
            manager_contents: RefCell::default(),
            downloads: RefCell::default(),
            download_refusal: RefCell::default(),
        };
        Rig {
            pool,
            app: Controller::new(shell),
        }
    }

    pub(super) fn started(url: &str, responder: impl FnMut(MessageType, &Value) -> Answer + 'static) -> Rig {
        let mut rig = Rig::new(url, responder);
        rig.run(|app| async move { app.start().await });
        rig
    }

    pub(super) fn shell(&self) -> &FakeShell {
        self.app.shell()
    }

    /// Spawns a flow and runs everything until nothing can progress.
    pub(super) fn run<F, Fut>(&mut self, flow: F)
    where
        F: FnOnce(Rc<Controller<FakeShell>>) -> Fut,
        Fut: std::future::Future<Output = ()> + 'static,
    {
        let task = flow(Rc::clone(&self.app));
        self.pool.spawner().spawn_local(task).expect("spawn");
        self.pool.run_until_stalled();
    }

    pub(super) fn settle(&mut self) {
        self.pool.run_until_stalled();
    }

    /// Answers the oldest held tab lookup.
    pub(super) fn release_tab_lookup(&mut self) {
        let held = self.shell().held_tab_lookups.borrow_mut().pop_front();
        let _ = held.expect("a held tab lookup").send(());
        self.settle();
    }

    /// Answers the oldest held request of `ty`.
    pub(super) fn release(&mut self, ty: MessageType, answer: Result<Value, WorkerError>) {
        let position = self.shell().held.borrow().iter().position(|(t, _)| *t == ty);
        let held = position.and_then(|p| self.shell().held.borrow_mut().remove(p));
        let (_, sender) = held.expect("a held request of that type");
        if let Ok(value) = &answer {
            recorded::check_shape(ty, value);
        }
        let _ = sender.send(answer);
        self.settle();
    }

    pub(super) fn event(&mut self, ty: &str, run_id: Option<&str>, payload: Value) {
        let mut message = json!({"type": ty, "payload": payload});
        if let Some(run_id) = run_id {
            message["runId"] = json!(run_id);
        }
        self.app.on_runtime_message(&message);
        self.settle();
    }

    pub(super) fn type_and_send(&mut self, text: &str) {
        *self.shell().input.borrow_mut() = text.to_owned();
        self.run(|app| async move { app.send().await });
    }

    pub(super) fn history(&self) -> Vec<Value> {
        self.app.with_state(|s| s.history.snapshot())
    }

    pub(super) fn streaming(&self) -> bool {
        self.app.with_state(|s| s.streaming)
    }
}

pub(super) fn run_id(n: u32) -> String {
    format!("{RUN_PREFIX}{n}")
}
