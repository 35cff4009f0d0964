//! The panel's behaviour: tab gating, chats, settings, attachments, the send
//! pipeline, run events, Stop and reconnect.
//!
//! Everything here is plain Rust behind the [`Shell`] trait, which bundles
//! the three things the browser provides: [`Ports`] (worker requests, the
//! active tab, ids, timers, thumbnails), [`Ui`] (the header, settings,
//! composer and toast) and [`Chat`] (the message list, built by the chat
//! module). The wasm shell implements them with `chrome.*` and the DOM; the
//! tests implement them with fakes and drive every flow natively.
//!
//! Rules that keep the asynchronous flows honest: no `RefCell` borrow is
//! held across an `await` or a call into the shell (a shell call may re-enter
//! the controller through a DOM event); every flow that awaits re-checks the
//! identity it captured (tab, project, chat, history) through
//! [`Transitions`] epochs and send tokens before it acts on the answer.

use crate::attachments::{Attachments, CaptureMode};
use crate::history::History;
use crate::run_ui::{PanelRun, RunUi};
use crate::sessions::{self, AfterDelete, NEW_CHAT_NAME, Session, SessionMeta, TitleGenerations};
use crate::settings::{GENERAL_FIELDS, GeneralForm, ModelChange, ModelForm, Settings, model_record_from_form};
use crate::tab_gate::{self, ActiveTab, NO_PROJECT_TEXT};
use crate::transitions::{SendIdentity, SendToken, Transitions};
use crate::worker_client::WorkerError;
use futures::channel::oneshot;
use futures::future::{self, FutureExt, LocalBoxFuture, Shared};
use protocol::MessageType;
use protocol::active_file::ActiveEditorFile;
use protocol::constants::EditorApprovalMode;
use protocol::constants::SendMessageShortcut;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::messages::{ParseOptions, Payload, parse_envelope};
use protocol::payloads::{ApprovalRequired, PreflightWaiting, StreamItem, ToolCallInfo, ToolResult};
use serde_json::{Map, Value, json};
use std::cell::RefCell;
use std::rc::Rc;

/// How long a chat switch waits for a cancelled run's terminal event.
pub(crate) const NAVIGATION_CANCEL_WAIT_MS: u32 = 2_500;

/// What `chrome.tabs.query({active:true, currentWindow:true})` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BrowserTab {
    pub(crate) id: Option<u64>,
    pub(crate) window_id: Option<u64>,
    pub(crate) url: String,
}

impl BrowserTab {
    fn active_tab(&self) -> ActiveTab {
        ActiveTab {
            id: self.id.and_then(|id| i64::try_from(id).ok()),
            url: self.url.clone(),
        }
    }

    fn project_id(&self) -> Option<String> {
        self.active_tab().project_id().map(str::to_owned)
    }
}

/// The browser side of the panel: requests, tabs, ids, time, images.
pub(crate) trait Ports {
    /// One request to the worker; resolves with the checked `data`.
    fn request(
        &self,
        message_type: MessageType,
        payload: Value,
        run_id: Option<String>,
    ) -> LocalBoxFuture<'static, Result<Value, WorkerError>>;
    /// The active tab of the panel's window.
    fn active_tab(&self) -> LocalBoxFuture<'static, Option<BrowserTab>>;
    /// A fresh `run-<uuid>`.
    fn new_run_id(&self) -> String;
    /// A fresh UUID for records and attachments.
    fn new_id(&self) -> String;
    fn sleep(&self, ms: u32) -> LocalBoxFuture<'static, ()>;
    /// A stored thumbnail for a preview (a record, or an `omitted` note).
    fn thumbnail(&self, data_url: String) -> LocalBoxFuture<'static, Value>;
    /// Runs a task in the background.
    fn spawn(&self, task: LocalBoxFuture<'static, ()>);
}

/// The settings tabs this panel builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SettingsTab {
    General,
    Models,
}

/// The enabled state of the composer's controls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ComposerState {
    /// The textarea, the Context button and the suggestions.
    pub(crate) input_disabled: bool,
    pub(crate) send_disabled: bool,
    /// The send button is Stop.
    pub(crate) stop_mode: bool,
    pub(crate) shortcut: SendMessageShortcut,
    /// The Edits control: the saved mode, and whether it can change now
    /// (not while a run streams, a send starts or the mode is being saved).
    pub(crate) editor_mode: EditorApprovalMode,
    pub(crate) editor_mode_disabled: bool,
    /// Revert and Snapshot actions (not while a run streams or off Typst).
    pub(crate) recovery_disabled: bool,
}

/// The header, settings, composer and toast.
pub(crate) trait Ui {
    /// The toast; `duration_ms: None` uses the severity's default, `Some(0)`
    /// stays until replaced.
    fn status(&self, text: &str, is_error: bool, duration_ms: Option<u32>);
    fn show_tab_gate(&self, banner_visible: bool, project_id: Option<&str>);
    fn show_theme(&self, theme: &str);
    fn show_session_name(&self, name: &str);
    fn show_session_list(&self, sessions: &[SessionMeta], current: Option<&str>);
    fn close_session_menu(&self);
    /// General form, model registry, model menu, auto-name options, hints.
    fn show_settings(&self, settings: &Settings);
    fn open_settings(&self, tab: SettingsTab);
    fn close_model_form(&self);
    fn close_model_menu(&self);
    fn show_composer(&self, state: ComposerState);
    fn show_attachments(&self, attachments: &Attachments);
    fn input_text(&self) -> String;
    fn clear_input(&self);
    fn focus_input(&self);
}

/// The message list (implemented over the chat module's view).
pub(crate) trait Chat {
    /// Shows a chat's stored messages (nothing streaming).
    fn render_history(&self, messages: &[Value]);
    fn render_user_message(&self, message: &Value);
    /// Starts the assistant bubble of a run.
    fn begin_stream(&self);
    fn stream_items(&self, items: &[StreamItem]);
    fn tool_calls(&self, calls: &[ToolCallInfo]);
    fn tool_result(&self, result: &ToolResult);
    fn preflight_waiting(&self, run_id: &str, waiting: &PreflightWaiting);
    fn preflight_ready(&self, call_id: &str);
    /// `AI_TOOL_APPROVAL_REQUIRED` of run `run_id`: the banner in its block;
    /// its buttons answer with [`Controller::resolve_approval`].
    fn approval_required(&self, run_id: &str, approval: &ApprovalRequired);
    /// Receipts whose state changed (a revert): every rendered control of
    /// those ids shows the new state.
    fn show_checkpoints(&self, checkpoints: &[PublicEditCheckpoint]);
    /// Whether the bubble holds any output (text, reasoning or tools).
    fn has_partial_output(&self) -> bool;
    /// Ends the bubble; returns the assistant display message to store,
    /// or `None` when nothing was produced (the bubble is removed).
    fn finalize(&self, complete: bool) -> Option<Value>;
    /// Ends the bubble after a failure; removes it when it holds no text.
    fn fail(&self);
    fn scroll_to_bottom(&self);
}

/// Everything the controller needs from its environment.
pub(crate) trait Shell: Ports + Ui + Chat {}
impl<T: Ports + Ui + Chat> Shell for T {}

/// Which Context-menu entry was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContextKind {
    Selection,
    Preview,
    OpenedImage,
}

/// The panel's state.
#[derive(Default)]
pub(crate) struct AppState {
    pub(crate) on_typst: bool,
    pub(crate) tab_id: Option<u64>,
    pub(crate) window_id: Option<u64>,
    pub(crate) project_id: Option<String>,
    pub(crate) session: Option<SessionMeta>,
    pub(crate) history: History,
    pub(crate) settings: Settings,
    pub(crate) attachments: Attachments,
    /// A run's bubble (or a reconnected run) is live.
    pub(crate) streaming: bool,
    transitions: Transitions,
    run_ui: RunUi,
    titles: TitleGenerations,
    /// The Edits mode is being saved.
    editor_mode_saving: bool,
}

/// What a session switch opens.
enum SwitchTarget {
    Meta(SessionMeta),
    Full(Session),
}

impl SwitchTarget {
    fn id(&self) -> &str {
        match self {
            SwitchTarget::Meta(meta) => &meta.id,
            SwitchTarget::Full(session) => &session.meta.id,
        }
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Terminal {
    Done { snapshot_warning: Option<String> },
    Cancelled,
    Error { message: String },
}

/// The controller. Shared as `Rc<Controller<S>>`; flows are methods on
/// `&Rc<Self>` so they can hand clones to background tasks.
pub(crate) struct Controller<S: Shell> {
    shell: S,
    state: RefCell<AppState>,
    model_queue: RefCell<Option<Shared<LocalBoxFuture<'static, ()>>>>,
}

fn field_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The `error` string some page answers carry instead of data.
fn page_error(value: &Value) -> Option<String> {
    field_str(value, "error").filter(|e| !e.is_empty()).map(str::to_owned)
}

impl<S: Shell + 'static> Controller<S> {
    pub(crate) fn new(shell: S) -> Rc<Controller<S>> {
        Rc::new(Controller {
            shell,
            state: RefCell::new(AppState::default()),
            model_queue: RefCell::new(None),
        })
    }

    pub(crate) fn shell(&self) -> &S {
        &self.shell
    }

    /// Read access for callers that only look (the DOM glue, tests).
    pub(crate) fn with_state<T>(&self, read: impl FnOnce(&AppState) -> T) -> T {
        read(&self.state.borrow())
    }

    fn request(
        &self,
        message_type: MessageType,
        payload: Value,
    ) -> LocalBoxFuture<'static, Result<Value, WorkerError>> {
        self.shell.request(message_type, payload, None)
    }

    fn status(&self, text: &str, is_error: bool) {
        self.shell.status(text, is_error, None);
    }

    fn spawn(self: &Rc<Self>, task: impl std::future::Future<Output = ()> + 'static) {
        self.shell.spawn(task.boxed_local());
    }

    // ------------------------------------------------------------ start

    /// Loads theme and settings, follows the active tab, then reconnects to
    /// a run that is still going for the opened chat.
    pub(crate) async fn start(self: &Rc<Self>) {
        match self.request(MessageType::LoadTheme, json!({})).await {
            Ok(theme) => self.shell.show_theme(crate::settings::theme_name(theme.as_str())),
            Err(_) => self.shell.show_theme(crate::settings::theme_name(None)),
        }
        match self.request(MessageType::LoadSettings, json!({})).await {
            Ok(value) => self.state.borrow_mut().settings = Settings::from_value(&value),
            Err(error) => self.status(&format!("Settings could not be loaded: {}", error.message), true),
        }
        let settings = self.state.borrow().settings.clone();
        self.shell.show_settings(&settings);
        if settings.models.is_empty() {
            self.shell.open_settings(SettingsTab::Models);
        }
        self.update_composer();
        if let Err(error) = self.sync_tab().await {
            self.status(&error.message, true);
        }
        if self.state.borrow().session.is_none() {
            self.render_messages();
        }
        if let Err(error) = self.recover_active_run().await {
            self.status(&error.message, true);
        }
    }

    // ------------------------------------------------------------ composer state

    fn composer_state(&self) -> ComposerState {
        let state = self.state.borrow();
        let sending = state.transitions.has_active_send();
        let ready = state.on_typst
            && state.project_id.as_deref().is_some_and(|p| !p.is_empty())
            && state.session.as_ref().map(|s| s.project_id.as_str()) == state.project_id.as_deref();
        ComposerState {
            input_disabled: !ready || state.streaming || sending,
            send_disabled: !state.streaming && (!ready || sending),
            stop_mode: state.streaming,
            shortcut: state.settings.send_message_shortcut,
            editor_mode: state.settings.editor_approval_mode,
            editor_mode_disabled: state.streaming || sending || state.editor_mode_saving,
            recovery_disabled: !ready || state.streaming || sending,
        }
    }

    pub(crate) fn update_composer(&self) {
        let composer = self.composer_state();
        self.shell.show_composer(composer);
    }

    fn render_messages(&self) {
        let messages = self.state.borrow().history.snapshot();
        self.shell.render_history(&messages);
    }

    // ------------------------------------------------------------ tab gating

    /// Follows the window's active tab: banner, project, that project's chats.
    pub(crate) async fn sync_tab(self: &Rc<Self>) -> Result<(), WorkerError> {
        let epoch = self.state.borrow_mut().transitions.next_tab_sync();
        let tab = self.shell.active_tab().await.unwrap_or_default();
        if !self.state.borrow().transitions.is_tab_sync_current(epoch) {
            return Ok(());
        }
        let gate = tab_gate::tab_gate(&tab.active_tab());
        let changed_project = {
            let mut state = self.state.borrow_mut();
            state.on_typst = !gate.banner_visible;
            state.tab_id = tab.id;
            state.window_id = tab.window_id;
            if state.on_typst {
                (gate.project_id != state.project_id).then(|| {
                    state.project_id = gate.project_id.clone();
                    state.transitions.next_session_switch();
                    state.attachments.clear();
                    gate.project_id.clone()
                })
            } else {
                state.project_id = None;
                state.transitions.next_session_switch();
                None
            }
        };
        self.shell
            .show_tab_gate(gate.banner_visible, gate.project_id.as_deref());
        self.update_composer();
        if gate.banner_visible {
            self.status("", false);
        } else {
            match changed_project {
                Some(Some(project_id)) => {
                    let attachments = self.state.borrow().attachments.clone();
                    self.shell.show_attachments(&attachments);
                    self.load_sessions_for_project(&project_id, Some(epoch)).await?;
                    let current = {
                        let state = self.state.borrow();
                        state.transitions.is_tab_sync_current(epoch)
                            && state.project_id.as_deref() == Some(project_id.as_str())
                    };
                    if !current {
                        return Ok(());
                    }
                    self.status("", false);
                }
                Some(None) => {
                    let attachments = self.state.borrow().attachments.clone();
                    self.shell.show_attachments(&attachments);
                    self.status(NO_PROJECT_TEXT, true);
                }
                None if gate.project_id.is_none() => self.status(NO_PROJECT_TEXT, true),
                None => {}
            }
        }
        self.update_composer();
        Ok(())
    }

    // ------------------------------------------------------------ chats

    fn is_tab_sync_current(&self, epoch: Option<u64>) -> bool {
        epoch.is_none_or(|e| self.state.borrow().transitions.is_tab_sync_current(e))
    }

    async fn list_sessions(&self, project_id: &str) -> Result<Vec<SessionMeta>, WorkerError> {
        let list = self
            .request(MessageType::SessionList, json!({ "projectId": project_id }))
            .await?;
        Ok(sessions::parse_list(&list))
    }

    async fn create_session_record(&self, project_id: &str) -> Result<Session, WorkerError> {
        let created = self
            .request(
                MessageType::SessionCreate,
                json!({ "projectId": project_id, "name": NEW_CHAT_NAME }),
            )
            .await?;
        Session::from_value(&created).ok_or_else(|| WorkerError {
            code: "INVALID_RESPONSE".to_owned(),
            message: "The new chat could not be read.".to_owned(),
            details: None,
        })
    }

    /// Opens `project_id`'s newest chat, creating "New chat" when it has none.
    async fn load_sessions_for_project(
        self: &Rc<Self>,
        project_id: &str,
        tab_epoch: Option<u64>,
    ) -> Result<bool, WorkerError> {
        let still = |this: &Self| {
            this.state.borrow().project_id.as_deref() == Some(project_id) && this.is_tab_sync_current(tab_epoch)
        };
        let list = self.list_sessions(project_id).await?;
        if !still(self) {
            return Ok(false);
        }
        match list.first() {
            None => {
                let session = self.create_session_record(project_id).await?;
                if !still(self) {
                    return Ok(false);
                }
                self.switch_session_inner(SwitchTarget::Full(session), Some(project_id.to_owned()), tab_epoch)
                    .await
            }
            Some(newest) => {
                let current = self.state.borrow().session.as_ref().map(|s| s.id.clone());
                self.shell.show_session_list(&list, current.as_deref());
                self.switch_session_inner(
                    SwitchTarget::Meta(newest.clone()),
                    Some(project_id.to_owned()),
                    tab_epoch,
                )
                .await
            }
        }
    }

    /// Opens another chat of the current project (from the session menu).
    pub(crate) async fn switch_session(self: &Rc<Self>, session: SessionMeta) -> bool {
        match self.switch_session_inner(SwitchTarget::Meta(session), None, None).await {
            Ok(switched) => switched,
            Err(error) => {
                self.status(&error.message, true);
                false
            }
        }
    }

    async fn switch_session_inner(
        self: &Rc<Self>,
        target: SwitchTarget,
        project_id: Option<String>,
        tab_epoch: Option<u64>,
    ) -> Result<bool, WorkerError> {
        let (epoch, project_id) = {
            let mut state = self.state.borrow_mut();
            let epoch = state.transitions.next_session_switch();
            (epoch, project_id.or_else(|| state.project_id.clone()))
        };
        let is_current = |this: &Self| {
            let state = this.state.borrow();
            state.transitions.is_session_switch_current(epoch)
                && state.project_id == project_id
                && tab_epoch.is_none_or(|e| state.transitions.is_tab_sync_current(e))
        };
        let run = self.state.borrow().run_ui.current();
        if run.is_some_and(|run| run.session_id != target.id()) {
            self.cancel_active_run_before_navigation().await;
            if !is_current(self) {
                return Ok(false);
            }
        }
        if let Err(error) = self.save_current_session().await {
            self.status(&error.message, true);
            return Ok(false);
        }
        if !is_current(self) {
            return Ok(false);
        }
        let full = match target {
            SwitchTarget::Full(session) => Some(session),
            SwitchTarget::Meta(meta) => {
                let answer = self
                    .request(MessageType::SessionGet, json!({ "sessionId": meta.id }))
                    .await?;
                Session::from_value(&answer)
            }
        };
        if !is_current(self) {
            return Ok(false);
        }
        let Some(full) = full.filter(|s| Some(&s.meta.project_id) == project_id.as_ref()) else {
            self.status("That chat is no longer available.", true);
            return Ok(false);
        };
        let name = full.meta.display_name().to_owned();
        {
            let mut state = self.state.borrow_mut();
            state.history = History::new(full.messages);
            state.session = Some(full.meta);
        }
        self.shell.show_session_name(&name);
        self.render_messages();
        self.update_composer();
        if let Some(project_id) = project_id.as_deref() {
            let list = self.list_sessions(project_id).await?;
            if is_current(self) {
                let current = self.state.borrow().session.as_ref().map(|s| s.id.clone());
                self.shell.show_session_list(&list, current.as_deref());
            }
        }
        Ok(true)
    }

    async fn save_current_session(&self) -> Result<(), WorkerError> {
        let (session_id, messages) = {
            let state = self.state.borrow();
            match &state.session {
                Some(session) => (session.id.clone(), state.history.snapshot()),
                None => return Ok(()),
            }
        };
        self.save_messages(&session_id, messages).await
    }

    async fn save_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), WorkerError> {
        self.request(
            MessageType::SessionUpdate,
            json!({ "sessionId": session_id, "messages": messages }),
        )
        .await
        .map(|_| ())
    }

    /// "+ New chat".
    pub(crate) async fn create_new_session(self: &Rc<Self>) {
        if let Err(error) = self.create_new_session_inner().await {
            self.status(&error.message, true);
        }
    }

    async fn create_new_session_inner(self: &Rc<Self>) -> Result<(), WorkerError> {
        let Some(project_id) = self.state.borrow().project_id.clone() else {
            self.status("Open a typst.app project first.", true);
            return Ok(());
        };
        let session = self.create_session_record(&project_id).await?;
        self.switch_session_inner(SwitchTarget::Full(session), None, None)
            .await?;
        self.shell.close_session_menu();
        Ok(())
    }

    /// × in the session menu (no confirmation, like the original).
    pub(crate) async fn delete_session(self: &Rc<Self>, session_id: String) {
        if let Err(error) = self.delete_session_inner(&session_id).await {
            self.status(&error.message, true);
        }
    }

    async fn delete_session_inner(self: &Rc<Self>, session_id: &str) -> Result<(), WorkerError> {
        self.request(MessageType::SessionDelete, json!({ "sessionId": session_id }))
            .await?;
        let Some(project_id) = self.state.borrow().project_id.clone() else {
            return Ok(());
        };
        let list = self.list_sessions(&project_id).await?;
        let current = self.state.borrow().session.as_ref().map(|s| s.id.clone());
        match sessions::after_delete(&list, current.as_deref(), session_id) {
            AfterDelete::CreateNew => {
                self.forget_deleted_session(session_id);
                self.create_new_session_inner().await
            }
            AfterDelete::Switch(newest) => {
                self.forget_deleted_session(session_id);
                self.switch_session_inner(SwitchTarget::Meta(newest.clone()), None, None)
                    .await
                    .map(|_| ())
            }
            AfterDelete::KeepCurrent => {
                self.shell.show_session_list(&list, current.as_deref());
                Ok(())
            }
        }
    }

    /// The deleted chat is not saved again by the switch that follows.
    fn forget_deleted_session(&self, session_id: &str) {
        let mut state = self.state.borrow_mut();
        if state.session.as_ref().is_some_and(|s| s.id == session_id) {
            state.session = None;
        }
    }

    /// A finished inline rename; `None` when nothing changes.
    pub(crate) async fn rename_session(self: &Rc<Self>, session: SessionMeta, input: String) {
        let result = match sessions::rename_target(&session.name, &input) {
            Some(name) => self.rename_session_inner(&session.id, name).await,
            None => self.refresh_session_list().await,
        };
        if let Err(error) = result {
            self.status(&error.message, true);
        }
    }

    async fn rename_session_inner(self: &Rc<Self>, session_id: &str, name: String) -> Result<(), WorkerError> {
        self.request(
            MessageType::SessionUpdate,
            json!({ "sessionId": session_id, "name": name, "userRenamed": true }),
        )
        .await?;
        let renamed_current = {
            let mut state = self.state.borrow_mut();
            match state.session.as_mut() {
                Some(current) if current.id == session_id => {
                    current.name = name.clone();
                    current.user_renamed = true;
                    true
                }
                _ => false,
            }
        };
        if renamed_current {
            self.shell.show_session_name(&name);
        }
        self.refresh_session_list().await
    }

    pub(crate) async fn refresh_session_list(&self) -> Result<(), WorkerError> {
        let Some(project_id) = self.state.borrow().project_id.clone() else {
            return Ok(());
        };
        let list = self.list_sessions(&project_id).await?;
        let (current, same_project) = {
            let state = self.state.borrow();
            (
                state.session.as_ref().map(|s| s.id.clone()),
                state.project_id.as_deref() == Some(project_id.as_str()),
            )
        };
        if same_project {
            self.shell.show_session_list(&list, current.as_deref());
        }
        Ok(())
    }

    // ------------------------------------------------------------ settings

    /// Light/Dark: applied at once, then saved.
    pub(crate) async fn save_theme(self: &Rc<Self>, theme: &'static str) {
        self.shell.show_theme(theme);
        if let Err(error) = self.request(MessageType::SaveTheme, json!({ "theme": theme })).await {
            self.status(&format!("The theme was not saved: {}", error.message), true);
        }
    }

    /// The General tab's Save; true when the worker stored it.
    pub(crate) async fn save_general(self: &Rc<Self>, form: GeneralForm) -> bool {
        let next = {
            let state = self.state.borrow();
            crate::settings::apply_general(&state.settings, &form)
        };
        let fields: Vec<&str> = GENERAL_FIELDS.iter().map(|f| f.as_str()).collect();
        let answer = self
            .request(
                MessageType::SaveSettings,
                json!({ "settings": next.to_map(), "fields": fields }),
            )
            .await;
        match answer {
            Ok(saved) => {
                let committed = saved
                    .get("settings")
                    .filter(|s| s.is_object())
                    .map_or(next, Settings::from_value);
                self.state.borrow_mut().settings = committed.clone();
                self.shell.show_settings(&committed);
                self.update_composer();
                self.shell.status("Settings saved", false, Some(1_500));
                true
            }
            Err(error) => {
                self.status(&format!("Settings were not saved: {}", error.message), true);
                false
            }
        }
    }

    /// Runs one model change after every earlier one finished, against the
    /// settings as they are then; commits what the worker stored.
    async fn change_models(self: &Rc<Self>, change: ModelChange) -> Result<(), String> {
        let (done, finished) = oneshot::channel::<()>();
        let previous = self
            .model_queue
            .borrow_mut()
            .replace(finished.map(|_| ()).boxed_local().shared());
        if let Some(previous) = previous {
            previous.await;
        }
        let result = self.change_models_now(change).await;
        let _ = done.send(());
        result
    }

    async fn change_models_now(self: &Rc<Self>, change: ModelChange) -> Result<(), String> {
        let current = self.state.borrow().settings.clone();
        let (next, mutation) = change.apply(&current).map_err(|e| e.to_string())?;
        let saved = self
            .request(
                MessageType::SaveSettings,
                json!({ "settings": next.to_map(), "modelMutation": mutation }),
            )
            .await
            .map_err(|e| e.message)?;
        let committed = saved
            .get("settings")
            .filter(|s| s.is_object())
            .map_or(next, Settings::from_value);
        self.state.borrow_mut().settings = committed.clone();
        self.shell.show_settings(&committed);
        self.update_composer();
        Ok(())
    }

    /// The model form's Save.
    pub(crate) async fn save_model_form(self: &Rc<Self>, form: ModelForm) -> bool {
        let record = {
            let state = self.state.borrow();
            model_record_from_form(&state.settings, &form, &self.shell.new_id())
        };
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                self.status(&error.to_string(), true);
                return false;
            }
        };
        match self.change_models(ModelChange::Upsert(record)).await {
            Ok(()) => {
                self.shell.close_model_form();
                self.shell.status("Model saved", false, Some(1_500));
                true
            }
            Err(message) => {
                self.status(&format!("Settings were not saved: {message}"), true);
                false
            }
        }
    }

    pub(crate) async fn delete_model(self: &Rc<Self>, id: String) {
        if let Err(message) = self.change_models(ModelChange::Remove(id)).await {
            self.status(&format!("Settings were not saved: {message}"), true);
        }
    }

    /// A model chosen in the header's model menu.
    pub(crate) async fn select_model(self: &Rc<Self>, id: String) {
        match self.change_models(ModelChange::Select(id)).await {
            Ok(()) => self.shell.close_model_menu(),
            Err(message) => self.status(&format!("Settings were not saved: {message}"), true),
        }
    }

    // ------------------------------------------------------------ attachments

    /// A Context-menu entry.
    pub(crate) async fn add_context(self: &Rc<Self>, kind: ContextKind) {
        let (allowed, tab_id) = {
            let state = self.state.borrow();
            (state.on_typst && !state.streaming, state.tab_id)
        };
        if !allowed {
            return;
        }
        let (busy, failure) = match kind {
            ContextKind::Selection => ("Reading selection…", "Selection failed"),
            ContextKind::Preview => ("Capturing preview…", "Preview failed"),
            ContextKind::OpenedImage => ("Capturing opened image…", "Image capture failed"),
        };
        self.shell.status(busy, false, None);
        let result = match kind {
            ContextKind::Selection => self.attach_selection(tab_id).await,
            ContextKind::Preview => self.attach_preview(tab_id, CaptureMode::Canvas).await,
            ContextKind::OpenedImage => self.attach_preview(tab_id, CaptureMode::Asset).await,
        };
        if let Err(message) = result {
            self.status(&format!("{failure}: {message}"), true);
        }
    }

    async fn attach_selection(&self, tab_id: Option<u64>) -> Result<(), String> {
        let mut payload = Map::new();
        if let Some(tab_id) = tab_id {
            payload.insert("tabId".to_owned(), json!(tab_id));
        }
        let context = self
            .request(MessageType::GetEditorContext, Value::Object(payload))
            .await
            .map_err(|e| e.message)?;
        if let Some(error) = page_error(&context) {
            return Err(error);
        }
        let text = field_str(&context, "selectedText").unwrap_or_default().to_owned();
        let file = context.pointer("/workspace/active_editor_file").cloned();
        let id = self.shell.new_id();
        let added = {
            let mut state = self.state.borrow_mut();
            state.attachments.add_selection(id, &text, file.as_ref()).is_some()
        };
        if !added {
            self.shell.status("No text is selected.", true, Some(2_000));
            return Ok(());
        }
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        self.shell.status("Selection added", false, Some(1_500));
        Ok(())
    }

    async fn attach_preview(&self, tab_id: Option<u64>, mode: CaptureMode) -> Result<(), String> {
        let answer = self
            .request(MessageType::GetPreview, mode.request(tab_id))
            .await
            .map_err(|e| e.message)?;
        if let Some(error) = page_error(&answer) {
            return Err(error);
        }
        let data_url = field_str(&answer, "dataUrl").unwrap_or_default().to_owned();
        let id = self.shell.new_id();
        self.state
            .borrow_mut()
            .attachments
            .add_preview(id, &data_url, mode)
            .map_err(|e| e.to_string())?;
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        match mode {
            CaptureMode::Asset => self.shell.status("Opened image attached", false, Some(1_500)),
            CaptureMode::Canvas => self.shell.status("", false, None),
        }
        Ok(())
    }

    pub(crate) fn remove_attachment(&self, id: &str) {
        self.state.borrow_mut().attachments.remove(id);
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
    }

    /// Captures every attached preview again from `tab_id`.
    async fn refresh_attachments(&self, tab_id: u64) -> Result<(), String> {
        let previews: Vec<(String, CaptureMode)> = self
            .state
            .borrow()
            .attachments
            .previews
            .iter()
            .map(|p| (p.id.clone(), p.capture_mode))
            .collect();
        if previews.is_empty() {
            return Ok(());
        }
        self.shell.status("Refreshing attachments…", false, None);
        for (id, mode) in previews {
            let answer = self
                .request(MessageType::GetPreview, mode.request(Some(tab_id)))
                .await
                .map_err(|e| e.message)?;
            if let Some(error) = page_error(&answer) {
                return Err(error);
            }
            let data_url = field_str(&answer, "dataUrl").unwrap_or_default().to_owned();
            self.state
                .borrow_mut()
                .attachments
                .refresh_preview(&id, &data_url)
                .map_err(|e| e.to_string())?;
        }
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        self.shell.status("", false, None);
        Ok(())
    }

    // ------------------------------------------------------------ send

    fn current_identity(&self) -> SendIdentity {
        let state = self.state.borrow();
        SendIdentity {
            project_id: state.project_id.clone(),
            session_id: state.session.as_ref().map(|s| s.id.clone()),
            history: state.history.clone(),
        }
    }

    /// Send (or Stop while a run streams).
    pub(crate) async fn send(self: &Rc<Self>) {
        if self.state.borrow().streaming {
            self.stop().await;
            return;
        }
        let ready = {
            let state = self.state.borrow();
            state.on_typst
                && state.project_id.is_some()
                && state.session.as_ref().map(|s| &s.project_id) == state.project_id.as_ref()
                && state.run_ui.current().is_none()
                && !state.transitions.has_active_send()
        };
        if !ready {
            return;
        }
        let text = protocol::js::js_trim(&self.shell.input_text()).to_owned();
        if text.is_empty() {
            return;
        }
        if self.state.borrow().settings.active_model().is_none() {
            self.status("Add a model in Settings → Models first.", true);
            return;
        }
        let identity = self.current_identity();
        let Some(token) = self.state.borrow_mut().transitions.begin_send(identity) else {
            return;
        };
        self.update_composer();
        let mut progress = SendProgress::default();
        if let Err(message) = self.send_steps(&token, text, &mut progress).await {
            self.send_failed(&token, &progress, &message).await;
        }
        self.state.borrow_mut().transitions.end_send(&token);
        self.update_composer();
    }

    /// Stop: cancels the send's run (sticky even before it started).
    pub(crate) async fn stop(self: &Rc<Self>) {
        self.shell.status("Stopping…", false, None);
        let run = self.state.borrow().run_ui.current();
        if let Some(run) = run {
            self.state.borrow_mut().transitions.cancel_run(&run.run_id);
            let _ = self
                .shell
                .request(MessageType::AiStreamCancel, json!({}), Some(run.run_id.clone()))
                .await;
        }
    }

    async fn send_steps(
        self: &Rc<Self>,
        token: &SendToken,
        text: String,
        progress: &mut SendProgress,
    ) -> Result<(), String> {
        let origin = token.identity().clone();
        let (Some(project_id), Some(session_id)) = (origin.project_id.clone(), origin.session_id.clone()) else {
            return Ok(());
        };
        let origin_session = self.state.borrow().session.clone();
        let tab = self.shell.active_tab().await.unwrap_or_default();
        let Some(tab_id) = tab
            .id
            .filter(|_| tab.project_id().as_deref() == Some(project_id.as_str()))
        else {
            self.status("The Typst project or chat changed. Send the message again.", true);
            return Ok(());
        };

        let context = self
            .request(
                MessageType::GetEditorContext,
                json!({ "tabId": tab_id, "projection": "identity" }),
            )
            .await
            .map_err(|e| e.message)?;
        let Some(active_file) = ActiveEditorFile::from_context(&context) else {
            self.status(
                "The open Typst file could not be identified, so nothing was sent. Reload the Typst tab and try again.",
                true,
            );
            return Ok(());
        };

        if let Err(message) = self.refresh_attachments(tab_id).await {
            self.status(&format!("Refresh failed: {message}"), true);
            return Ok(());
        }
        let (attachments, keep) = {
            let state = self.state.borrow();
            (state.attachments.model_payload(), state.attachments.previews_to_keep())
        };
        let mut thumbnails = Vec::with_capacity(keep.len());
        for data_url in keep {
            thumbnails.push(self.shell.thumbnail(data_url).await);
        }
        let sent_attachments = self.state.borrow().attachments.history_snapshot(thumbnails);

        let confirmed = self.shell.active_tab().await.unwrap_or_default();
        let now = self.current_identity();
        let still_current = {
            let state = self.state.borrow();
            state.transitions.is_send_current(token, &now) && state.run_ui.current().is_none()
        };
        if !still_current
            || confirmed.id != Some(tab_id)
            || confirmed.project_id().as_deref() != Some(project_id.as_str())
        {
            self.status(
                "The Typst project or chat changed while the message was being prepared. Nothing was sent.",
                true,
            );
            return Ok(());
        }

        let mut user_entry = json!({ "role": "user", "content": text, "activeEditorFile": active_file.to_value() });
        if let (Some(sent), Some(map)) = (sent_attachments, user_entry.as_object_mut()) {
            map.insert("sentAttachments".to_owned(), sent);
        }
        let run_id = self.shell.new_run_id();
        self.shell
            .request(
                MessageType::AiRunReserve,
                json!({ "tabId": tab_id, "projectId": project_id, "sessionId": session_id }),
                Some(run_id.clone()),
            )
            .await
            .map_err(|e| e.message)?;
        progress.reserved_run_id = Some(run_id.clone());
        let now = self.current_identity();
        let reserved = {
            let mut state = self.state.borrow_mut();
            let current = state.transitions.is_send_current(token, &now) && state.tab_id == Some(tab_id);
            current && state.transitions.mark_reserved(token, &run_id)
        };
        if !reserved {
            self.state.borrow_mut().transitions.cancel_send(token);
            let _ = self
                .shell
                .request(MessageType::AiStreamCancel, json!({}), Some(run_id.clone()))
                .await;
            self.status(
                "The Typst project or chat changed while the run was being reserved. Nothing was sent.",
                true,
            );
            return Ok(());
        }

        let run = {
            let mut state = self.state.borrow_mut();
            let run = state
                .run_ui
                .begin(PanelRun {
                    run_id: run_id.clone(),
                    tab_id,
                    project_id: project_id.clone(),
                    session_id: session_id.clone(),
                    history: origin.history.clone(),
                    reconnected: false,
                })
                .map_err(|_| "Another run is already shown in this panel.".to_owned())?;
            state.streaming = true;
            run
        };
        progress.started_run = Some(Rc::clone(&run));
        self.status("", false);
        origin.history.push(user_entry.clone());
        self.shell.render_user_message(&user_entry);
        self.state.borrow_mut().attachments.clear();
        self.shell.show_attachments(&Attachments::default());
        self.shell.scroll_to_bottom();
        self.shell.clear_input();
        self.shell.begin_stream();
        self.update_composer();

        self.save_messages(&session_id, origin.history.snapshot())
            .await
            .map_err(|e| e.message)?;

        let (still_running, dispatch) = {
            let state = self.state.borrow();
            (
                state.run_ui.current().is_some_and(|r| Rc::ptr_eq(&r, &run)),
                state.transitions.can_dispatch(token),
            )
        };
        if !still_running {
            return Ok(());
        }
        if !dispatch {
            self.end_run_stopped(&run);
            return Ok(());
        }

        if let Some(session) = origin_session {
            let this = Rc::clone(self);
            let history = origin.history.snapshot();
            self.spawn(async move {
                if let Err(message) = this.auto_name(session, history).await {
                    this.status(&format!("Chat auto-naming failed: {message}"), true);
                }
            });
        }

        if !self.state.borrow_mut().transitions.mark_starting(token) {
            self.end_run_stopped(&run);
            return Ok(());
        }

        let (settings, model) = {
            let state = self.state.borrow();
            (
                state.settings.to_map(),
                state.settings.active_model().map(|m| m.as_map().clone()),
            )
        };
        let start = self.shell.request(
            MessageType::AiStreamStart,
            json!({
                "tabId": tab_id,
                "projectId": project_id,
                "sessionId": session_id,
                "messages": origin.history.snapshot(),
                "settings": settings,
                "modelConfig": model,
                "attachments": attachments,
                "activeEditorFile": active_file.to_value(),
            }),
            Some(run_id.clone()),
        );
        let this = Rc::clone(self);
        self.spawn(async move { this.watch_stream_start(run_id, start).await });
        Ok(())
    }

    /// `AI_STREAM_START` answers only when the run ends; a refusal or an
    /// `ok:false` outcome ends the bubble here if no terminal event did.
    async fn watch_stream_start(
        self: &Rc<Self>,
        run_id: String,
        start: LocalBoxFuture<'static, Result<Value, WorkerError>>,
    ) {
        let failure = match start.await {
            Ok(outcome) if outcome.get("ok").and_then(Value::as_bool) == Some(false) => Some(
                field_str(&outcome, "error")
                    .or_else(|| field_str(&outcome, "message"))
                    .unwrap_or("The run failed.")
                    .to_owned(),
            ),
            Ok(_) => None,
            Err(error) => {
                let _ = self
                    .shell
                    .request(MessageType::AiStreamCancel, json!({}), Some(run_id.clone()))
                    .await;
                Some(error.message)
            }
        };
        let Some(message) = failure else {
            return;
        };
        let run = {
            let state = self.state.borrow();
            state.run_ui.current().filter(|r| r.run_id == run_id && state.streaming)
        };
        if let Some(run) = run {
            self.fail_stream(&message);
            self.state.borrow_mut().run_ui.complete(&run);
            self.update_composer();
        }
    }

    /// Undoes whatever a failed send had done.
    async fn send_failed(self: &Rc<Self>, token: &SendToken, progress: &SendProgress, message: &str) {
        if let Some(run_id) = &progress.reserved_run_id {
            let _ = self
                .shell
                .request(MessageType::AiStreamCancel, json!({}), Some(run_id.clone()))
                .await;
        }
        let run = progress.started_run.as_ref().filter(|run| {
            self.state
                .borrow()
                .run_ui
                .current()
                .is_some_and(|r| Rc::ptr_eq(&r, run))
        });
        match run {
            Some(run) => {
                let (streaming, dispatch) = {
                    let state = self.state.borrow();
                    (state.streaming, state.transitions.can_dispatch(token))
                };
                if streaming {
                    if dispatch {
                        self.fail_stream(message);
                    } else {
                        self.finalize_stream(Some(run), false);
                    }
                }
                self.state.borrow_mut().run_ui.complete(run);
            }
            None => self.status(message, true),
        }
    }

    /// The run ended before it started (Stop during preparation).
    fn end_run_stopped(self: &Rc<Self>, run: &Rc<PanelRun>) {
        self.finalize_stream(Some(run), false);
        self.state.borrow_mut().run_ui.complete(run);
        self.update_composer();
        self.status("Stopped", false);
    }

    /// Ends the bubble, stores the answer in the run's history and saves it
    /// to the run's chat (which may no longer be the visible one).
    fn finalize_stream(self: &Rc<Self>, run: Option<&Rc<PanelRun>>, complete: bool) {
        let entry = self.shell.finalize(complete);
        let (history, session_id) = {
            let state = self.state.borrow();
            match run {
                Some(run) => (run.history.clone(), Some(run.session_id.clone())),
                None => (state.history.clone(), state.session.as_ref().map(|s| s.id.clone())),
            }
        };
        if let Some(entry) = entry {
            history.push(entry);
        }
        self.state.borrow_mut().streaming = false;
        if let Some(session_id) = session_id {
            let this = Rc::clone(self);
            let messages = history.snapshot();
            self.spawn(async move {
                if let Err(error) = this.save_messages(&session_id, messages).await {
                    this.status(&error.message, true);
                }
            });
        }
        self.status("", false);
        self.shell.focus_input();
        self.update_composer();
    }

    fn fail_stream(&self, message: &str) {
        self.shell.fail();
        self.state.borrow_mut().streaming = false;
        self.update_composer();
        self.status(
            if message.is_empty() {
                "Streaming failed"
            } else {
                message
            },
            true,
        );
    }

    // ------------------------------------------------------------ automatic names

    async fn auto_name(self: &Rc<Self>, session: SessionMeta, history: Vec<Value>) -> Result<(), String> {
        let generation = self.state.borrow_mut().titles.next(&session.id);
        if session.user_renamed {
            return Ok(());
        }
        let Some(model) = self
            .state
            .borrow()
            .settings
            .auto_name_model()
            .map(|m| m.as_map().clone())
        else {
            return Ok(());
        };
        let messages = sessions::title_messages(&history);
        if messages.is_empty() {
            return Ok(());
        }
        let answer = self
            .request(
                MessageType::GenerateSessionTitle,
                json!({ "modelConfig": model, "messages": messages }),
            )
            .await
            .map_err(|e| e.message)?;
        let title = match (answer.get("ok").and_then(Value::as_bool), field_str(&answer, "title")) {
            (Some(true), Some(title)) if !title.is_empty() => title.to_owned(),
            _ => {
                let message = answer
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("The naming model returned no title.");
                return Err(message.to_owned());
            }
        };
        let stale = |this: &Self| {
            let state = this.state.borrow();
            !state.titles.is_current(&session.id, generation)
                || state
                    .session
                    .as_ref()
                    .is_some_and(|current| current.id == session.id && current.user_renamed)
        };
        if stale(self) {
            return Ok(());
        }
        let updated = self
            .request(
                MessageType::SessionUpdate,
                json!({ "sessionId": session.id, "name": title, "autoName": true }),
            )
            .await
            .map_err(|e| e.message)?;
        let Some(updated) = SessionMeta::from_value(&updated) else {
            return Ok(());
        };
        if updated.user_renamed || updated.name != title || stale(self) {
            return Ok(());
        }
        let shown = {
            let mut state = self.state.borrow_mut();
            match state.session.as_mut() {
                Some(current) if current.id == session.id => {
                    current.name = updated.name.clone();
                    true
                }
                _ => false,
            }
        };
        if shown {
            self.shell.show_session_name(&updated.name);
            self.refresh_session_list().await.map_err(|e| e.message)?;
        }
        Ok(())
    }

    // ------------------------------------------------------------ run events

    /// A `chrome.runtime` message. Invalid envelopes and other panels' run
    /// events are ignored; the panel never answers.
    pub(crate) fn on_runtime_message(self: &Rc<Self>, message: &Value) {
        let Ok(envelope) = parse_envelope(message, &ParseOptions::default()) else {
            return;
        };
        let message_type = envelope.payload.message_type();
        let run = {
            let state = self.state.borrow();
            if !state.run_ui.accepts(message_type, envelope.run_id.as_deref()) {
                return;
            }
            state.run_ui.current()
        };
        let reconnected = run.as_ref().is_some_and(|r| r.reconnected);
        let streaming = self.state.borrow().streaming;
        let run_id = envelope.run_id.clone().unwrap_or_default();
        match envelope.payload {
            Payload::ActiveTabChanged(_) => {
                let this = Rc::clone(self);
                self.spawn(async move {
                    if let Err(error) = this.sync_tab().await {
                        this.status(&error.message, true);
                    }
                });
            }
            Payload::AiStreamDone(done) => self.on_terminal(
                run,
                Terminal::Done {
                    snapshot_warning: done.snapshot_warning.filter(|w| !w.is_empty()),
                },
            ),
            Payload::AiStreamCancelled(_) => self.on_terminal(run, Terminal::Cancelled),
            Payload::AiStreamError(error) => self.on_terminal(run, Terminal::Error { message: error.message }),
            // A reconnected run shows no bubble: only its end matters.
            _ if reconnected || !streaming => {}
            Payload::AiStreamBatch(batch) => self.shell.stream_items(&batch.items),
            Payload::AiToolCalls(calls) => self.shell.tool_calls(&calls.calls),
            Payload::AiToolResult(result) => self.shell.tool_result(&result),
            Payload::AiToolPreflightWaiting(waiting) => self.shell.preflight_waiting(&run_id, &waiting),
            Payload::AiToolPreflightReady(ready) => self.shell.preflight_ready(&ready.call_id),
            Payload::AiToolApprovalRequired(approval) => self.shell.approval_required(&run_id, &approval),
            _ => {}
        }
    }

    fn on_terminal(self: &Rc<Self>, run: Option<Rc<PanelRun>>, terminal: Terminal) {
        let Some(run) = run else {
            return;
        };
        if run.reconnected {
            let this = Rc::clone(self);
            self.spawn(async move { this.finish_reconnected_run(run, terminal).await });
            return;
        }
        let streaming = self.state.borrow().streaming;
        match &terminal {
            Terminal::Done { .. } | Terminal::Cancelled => {
                if streaming {
                    self.finalize_stream(Some(&run), matches!(terminal, Terminal::Done { .. }));
                }
            }
            Terminal::Error { message } => {
                if streaming {
                    if self.shell.has_partial_output() {
                        self.finalize_stream(Some(&run), false);
                    } else {
                        self.fail_stream(message);
                    }
                }
            }
        }
        self.state.borrow_mut().run_ui.complete(&run);
        self.update_composer();
        match terminal {
            Terminal::Done {
                snapshot_warning: Some(warning),
            } => self.status(&warning, true),
            Terminal::Done { .. } => {}
            Terminal::Cancelled => self.status("Stopped", false),
            Terminal::Error { message } => self.status(
                if message.is_empty() {
                    "The run failed."
                } else {
                    &message
                },
                true,
            ),
        }
    }

    /// Before switching chats or projects: stop the run, wait a little for
    /// its end, then end it here ourselves.
    async fn cancel_active_run_before_navigation(self: &Rc<Self>) {
        let Some(run) = self.state.borrow().run_ui.current() else {
            return;
        };
        self.shell.status("Stopping the current run…", false, None);
        self.state.borrow_mut().transitions.cancel_run(&run.run_id);
        let _ = self
            .shell
            .request(MessageType::AiStreamCancel, json!({}), Some(run.run_id.clone()))
            .await;
        let ended = self.state.borrow().run_ui.ended(&run);
        if let Some(ended) = ended {
            let timeout = self.shell.sleep(NAVIGATION_CANCEL_WAIT_MS);
            // Either the terminal event or the timeout; both continue below.
            let _ = future::select(ended, timeout).await;
        }
        let still_active = self
            .state
            .borrow()
            .run_ui
            .current()
            .is_some_and(|r| Rc::ptr_eq(&r, &run));
        if still_active {
            if self.state.borrow().streaming {
                self.finalize_stream(Some(&run), false);
            }
            self.state.borrow_mut().run_ui.complete(&run);
            self.update_composer();
        }
    }

    // ------------------------------------------------------------ reconnect

    /// On load: if the opened chat still has a run in the worker, show that
    /// it continues (Stop stays available) and reload the chat at its end.
    async fn recover_active_run(self: &Rc<Self>) -> Result<(), WorkerError> {
        let (project_id, session_id) = {
            let state = self.state.borrow();
            match (&state.project_id, &state.session) {
                (Some(project), Some(session)) if state.run_ui.current().is_none() => {
                    (project.clone(), session.id.clone())
                }
                _ => return Ok(()),
            }
        };
        let status = json!({ "projectId": project_id, "sessionId": session_id });
        let active = self.request(MessageType::AiRunStatus, status.clone()).await?;
        let Some(latest) = latest_run(&active) else {
            let refreshed = self
                .request(MessageType::SessionGet, json!({ "sessionId": session_id }))
                .await?;
            if let Some(session) = Session::from_value(&refreshed) {
                self.activate_if_current(session);
            }
            return Ok(());
        };
        let run = {
            let mut state = self.state.borrow_mut();
            let history = state.history.clone();
            let Ok(run) = state.run_ui.begin(PanelRun {
                run_id: latest.run_id,
                tab_id: latest.tab_id,
                project_id,
                session_id,
                history,
                reconnected: true,
            }) else {
                return Ok(());
            };
            state.streaming = true;
            run
        };
        self.update_composer();
        self.shell
            .status("The active run is continuing in the background…", false, Some(0));
        let confirmed = self.request(MessageType::AiRunStatus, status).await?;
        let still_ours = self
            .state
            .borrow()
            .run_ui
            .current()
            .is_some_and(|r| Rc::ptr_eq(&r, &run));
        let listed = confirmed
            .as_array()
            .is_some_and(|runs| runs.iter().any(|r| field_str(r, "runId") == Some(run.run_id.as_str())));
        if still_ours && !listed {
            self.finish_reconnected_run(run, Terminal::Done { snapshot_warning: None })
                .await;
        }
        Ok(())
    }

    fn activate_if_current(&self, session: Session) {
        let current = self.state.borrow().session.as_ref().map(|s| s.id.clone());
        if current.as_deref() != Some(session.meta.id.as_str()) {
            return;
        }
        let name = session.meta.display_name().to_owned();
        {
            let mut state = self.state.borrow_mut();
            state.history = History::new(session.messages);
            state.session = Some(session.meta);
        }
        self.shell.show_session_name(&name);
        self.render_messages();
    }

    async fn finish_reconnected_run(self: &Rc<Self>, run: Rc<PanelRun>, terminal: Terminal) {
        {
            let mut state = self.state.borrow_mut();
            if !state.run_ui.complete(&run) {
                return;
            }
            state.streaming = false;
        }
        self.update_composer();
        let reloaded = self
            .request(MessageType::SessionGet, json!({ "sessionId": run.session_id }))
            .await;
        match reloaded {
            Ok(value) => {
                if let Some(session) = Session::from_value(&value) {
                    self.activate_if_current(session);
                }
                match terminal {
                    Terminal::Done {
                        snapshot_warning: Some(warning),
                    } => self.shell.status(&warning, true, Some(0)),
                    Terminal::Done { .. } => self.shell.status("Run completed", false, Some(2_000)),
                    Terminal::Cancelled => self.shell.status("Stopped", false, Some(2_000)),
                    Terminal::Error { message } => self.shell.status(&message, true, Some(2_000)),
                }
            }
            Err(error) => self.status(
                &format!("The finished run could not be reloaded: {}", error.message),
                true,
            ),
        }
        self.update_composer();
    }
}

/// What a send had done when it failed.
#[derive(Default)]
struct SendProgress {
    reserved_run_id: Option<String>,
    started_run: Option<Rc<PanelRun>>,
}

struct RunSummary {
    run_id: String,
    tab_id: u64,
    started_at: f64,
}

/// The newest run of an `AI_RUN_STATUS` answer.
fn latest_run(answer: &Value) -> Option<RunSummary> {
    answer
        .as_array()?
        .iter()
        .filter_map(|item| {
            Some(RunSummary {
                run_id: field_str(item, "runId").filter(|s| !s.is_empty())?.to_owned(),
                tab_id: item.get("tabId").and_then(protocol::js::as_safe_uint)?,
                started_at: item.get("startedAt").and_then(protocol::js::as_number).unwrap_or(0.0),
            })
        })
        .max_by(|a, b| a.started_at.total_cmp(&b.started_at))
}

#[path = "app_edits.rs"]
mod edits;

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
