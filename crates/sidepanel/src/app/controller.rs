//! The controller and its state: what every flow of `app/` is a method on.
//!
//! Only the controller's own steps live here (start-up, the composer's
//! state, rendering the history); each flow is in its own sibling file, and
//! the flows take the controller from this file, never from `app/mod.rs`.

use super::shell::{ComposerState, SettingsTab, Shell};
use super::turns::Turns;
use crate::attachments::Attachments;
use crate::broadcast_gate::BroadcastGate;
use crate::history::History;
use crate::integrations::IntegrationRecord;
use crate::quick_attach::QuickAttachInbox;
use crate::run_ui::RunUi;
use crate::session_manager::ManagerState;
use crate::sessions::{SessionMeta, TitleGenerations};
use crate::settings::Settings;
use crate::transitions::Transitions;
use crate::worker_client::WorkerError;
use futures::future::{FutureExt, LocalBoxFuture};
use protocol::MessageType;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

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
    /// What the live run left out (its `AI_RUN_NOTICE`), shown again when
    /// it completes so a short run does not hide it.
    pub(super) run_notice: Option<String>,
    pub(super) transitions: Transitions,
    pub(super) run_ui: RunUi,
    pub(super) titles: TitleGenerations,
    /// The Edits mode is being saved.
    pub(super) editor_mode_saving: bool,
    /// The page's quick attachments: waiting, delivered ids.
    pub(super) quick_attach: QuickAttachInbox,
    /// Settings → Tools and Settings → MCP, as the worker last answered them.
    pub(crate) custom_tools: Vec<IntegrationRecord>,
    pub(crate) mcp_servers: Vec<IntegrationRecord>,
    /// A "Probe tools" request is under way.
    pub(super) probing: bool,
    /// Changes whenever the MCP form opens or closes, so a probe that ends
    /// later knows its form is gone.
    pub(super) probe_epoch: u32,
    /// Settings → Sessions: the grouped list, its filter, the storage status.
    pub(super) manager: ManagerState,
}

/// The controller. Shared as `Rc<Controller<S>>`; flows are methods on
/// `&Rc<Self>` so they can hand clones to background tasks.
pub(crate) struct Controller<S: Shell> {
    pub(super) shell: S,
    pub(super) state: RefCell<AppState>,
    /// One change at a time to the model registry, and to each integration
    /// registry.
    pub(super) model_turns: Turns,
    pub(super) tool_turns: Turns,
    pub(super) server_turns: Turns,
    /// Which runtime messages are the worker's broadcasts, and the count of
    /// those refused.
    pub(super) broadcasts: RefCell<BroadcastGate>,
}

pub(super) fn field_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The `error` string some page answers carry instead of data.
pub(super) fn page_error(value: &Value) -> Option<String> {
    field_str(value, "error").filter(|e| !e.is_empty()).map(str::to_owned)
}

impl<S: Shell + 'static> Controller<S> {
    pub(crate) fn new(shell: S) -> Rc<Controller<S>> {
        Rc::new(Controller {
            shell,
            state: RefCell::new(AppState::default()),
            model_turns: Turns::default(),
            tool_turns: Turns::default(),
            server_turns: Turns::default(),
            broadcasts: RefCell::new(BroadcastGate::default()),
        })
    }

    pub(crate) fn shell(&self) -> &S {
        &self.shell
    }

    /// Read access for callers that only look (the DOM glue, tests).
    pub(crate) fn with_state<T>(&self, read: impl FnOnce(&AppState) -> T) -> T {
        read(&self.state.borrow())
    }

    pub(super) fn request(
        &self,
        message_type: MessageType,
        payload: Value,
    ) -> LocalBoxFuture<'static, Result<Value, WorkerError>> {
        self.shell.request(message_type, payload, None)
    }

    pub(super) fn status(&self, text: &str, is_error: bool) {
        self.shell.status(text, is_error, None);
    }

    pub(super) fn spawn(self: &Rc<Self>, task: impl std::future::Future<Output = ()> + 'static) {
        self.shell.spawn(task.boxed_local());
    }

    /// Loads theme and settings, follows the active tab, takes the quick
    /// attachments queued for its window, then reconnects to a run that is
    /// still going for the opened chat.
    ///
    /// The theme, the settings and the active tab do not depend on one
    /// another, so all three are asked at once (one wait instead of three
    /// before the composer can be enabled); their answers are applied in the
    /// old order, the theme when it comes, then settings, then the tab, so nothing that follows
    /// the tab (the chat it opens, the composer) sees settings not yet loaded.
    pub(crate) async fn start(self: &Rc<Self>) {
        let theme = self.request(MessageType::LoadTheme, json!({}));
        let theme = theme.map(|theme| match theme {
            Ok(theme) => self.shell.show_theme(crate::settings::theme_name(theme.as_str())),
            Err(_) => self.shell.show_theme(crate::settings::theme_name(None)),
        });
        let settings = self.request(MessageType::LoadSettings, json!({}));
        let (tab_epoch, tab) = self.begin_tab_sync();
        let ((), settings, tab) = futures::future::join3(theme, settings, tab).await;
        match settings {
            Ok(value) => self.state.borrow_mut().settings = Settings::from_value(&value),
            Err(error) => self.status(&format!("Settings could not be loaded: {}", error.message), true),
        }
        let settings = self.state.borrow().settings.clone();
        self.shell.show_settings(&settings);
        if settings.models.is_empty() {
            self.shell.open_settings(SettingsTab::Models);
        }
        self.update_composer();
        if let Err(error) = self.finish_tab_sync(tab_epoch, tab).await {
            self.status(&error.message, true);
        }
        if self.state.borrow().session.is_none() {
            self.render_messages();
        }
        self.drain_quick_attachments().await;
        if let Err(error) = self.recover_active_run().await {
            self.status(&error.message, true);
        }
    }

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

    pub(super) fn render_messages(&self) {
        let messages = self.state.borrow().history.snapshot();
        self.shell.render_history(&messages);
    }
}
