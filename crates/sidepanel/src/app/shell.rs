//! What the controller asks of the browser: the [`Shell`] trait and the
//! records that cross it. [`Ports`] are worker requests, the active tab,
//! ids, time, timers and thumbnails; [`Ui`] the header, settings, composer
//! and toast; [`Chat`] the message list (built by the chat module);
//! [`Integrations`] the Tools and MCP settings tabs; [`SessionManager`]
//! the Sessions tab and the export download. The wasm
//! shell (`crate::shell`) implements them with `chrome.*` and the DOM; the
//! tests implement them with fakes.

use crate::attachments::Attachments;
use crate::integration_forms::FieldError;
use crate::integrations::{IntegrationRecord, RegistryKind};
use crate::mcp_probe::ProbeStatus;
use crate::session_manager::ManagerContent;
use crate::sessions::SessionMeta;
use crate::settings::Settings;
use crate::tab_gate::ActiveTab;
use crate::worker_client::WorkerError;
use futures::future::LocalBoxFuture;
use protocol::MessageType;
use protocol::constants::{EditorApprovalMode, SendMessageShortcut};
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::payloads::{ApprovalRequired, PreflightWaiting, StreamItem, ToolCallInfo, ToolResult};
use serde_json::Value;

/// What `chrome.tabs.query({active:true, currentWindow:true})` found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BrowserTab {
    pub(crate) id: Option<u64>,
    pub(crate) window_id: Option<u64>,
    pub(crate) url: String,
}

impl BrowserTab {
    pub(super) fn active_tab(&self) -> ActiveTab {
        ActiveTab {
            id: self.id.and_then(|id| i64::try_from(id).ok()),
            url: self.url.clone(),
        }
    }

    pub(super) fn project_id(&self) -> Option<String> {
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
    /// Wall-clock milliseconds (dates receipts that carry no time of their own).
    fn now_ms(&self) -> f64;
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
    Tools,
    Mcp,
    Sessions,
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

/// Settings → Tools and Settings → MCP.
pub(crate) trait Integrations {
    /// A registry's rows, or why it could not be loaded.
    fn show_registry(&self, kind: RegistryKind, records: Result<&[IntegrationRecord], &str>);
    /// The open form's problems beside their fields, every field counted as
    /// visited (a save was attempted); an empty list clears them.
    fn show_form_problems(&self, kind: RegistryKind, problems: &[FieldError]);
    /// Closes a form after its record was saved.
    fn close_integration_form(&self, kind: RegistryKind);
    /// The MCP form's probe result region (and the busy Probe button).
    fn show_probe(&self, status: &ProbeStatus);
}

/// Settings → Sessions.
pub(crate) trait SessionManager {
    /// The summary, the storage line and the project cards.
    fn show_session_manager(&self, view: &ManagerContent);
    /// Empties `sessions-search` (the manager opens unfiltered).
    fn clear_session_filter(&self);
    /// Saves `text` as the download `file_name`; `Err(why)` when the
    /// browser refused.
    fn download(&self, file_name: &str, text: &str) -> Result<(), String>;
}

/// Everything the controller needs from its environment.
pub(crate) trait Shell: Ports + Ui + Chat + Integrations + SessionManager {}

impl<T: Ports + Ui + Chat + Integrations + SessionManager> Shell for T {}
