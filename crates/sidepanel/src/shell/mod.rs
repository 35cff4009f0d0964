//! The browser shell of the panel (wasm only): builds the DOM, implements
//! the controller's `Shell` traits (`app/shell.rs`) with `chrome.*`, the DOM
//! and the chat module's [`ChatView`], and turns DOM events into controller
//! calls.
//!
//! Event handlers find the controller through the handle of `handle.rs` and
//! start its flows with `spawn_local`; they never hold a borrow of panel
//! state across a call, so a handler that fires while another flow awaits
//! sees consistent state. Children of this module take nothing from this
//! file: what they share with it lives in a leaf (`handle.rs`, `icons.rs`,
//! `edit_mode.rs`, `form.rs`, `registry_row.rs`, `popup.rs` — opening and
//! closing popups, and their keys). Settings → Tools and MCP
//! are `integrations_layout.rs` (their DOM) and `integrations_panel.rs`
//! (their views, events and the `Integrations` side of the shell);
//! Settings → Sessions is `session_manager_layout.rs` and
//! `session_manager_panel.rs` (with the export download and the import
//! file).

mod chrome;
mod composer;
mod edit_mode;
mod form;
mod handle;
mod header;
mod icons;
mod integrations_layout;
mod integrations_panel;
mod layout;
mod link_dialog;
mod popup;
mod recovery;
mod registry_row;
mod session_manager_layout;
mod session_manager_panel;
mod settings_panel;
mod thumbnail;
mod toast;

use crate::app::{BrowserTab, Chat, ComposerState, Controller, Ports, SettingsTab, Ui};
use crate::attachments::{Attachments, ContextKind};
use crate::chat::{AssistantStream, ChatView};
use crate::dom::{self, by_id};
use crate::sessions::SessionMeta;
use crate::settings::Settings;
use crate::shortcut::{self, KeyChord};
use crate::worker_client::WorkerError;
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use handle::{WasmShell, app, run};
use protocol::MessageType;
use protocol::answer::ResponseStatus;
use protocol::constants::EditorApprovalMode;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::payloads::{
    ApprovalAction, ApprovalRequired, PreflightAction, PreflightWaiting, StreamItem, ToolCallInfo, ToolResult,
};
use serde_json::{Value, json};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;
use web_sys::{Element, Event, KeyboardEvent};

thread_local! {
    /// The element focused before the About dialog opened.
    static ABOUT_TRIGGER: RefCell<Option<Element>> = const { RefCell::new(None) };
}

impl Ports for WasmShell {
    fn request(
        &self,
        message_type: MessageType,
        payload: Value,
        run_id: Option<String>,
    ) -> LocalBoxFuture<'static, Result<Value, WorkerError>> {
        chrome::ask_worker(message_type, payload, run_id).boxed_local()
    }

    fn active_tab(&self) -> LocalBoxFuture<'static, Option<BrowserTab>> {
        chrome::active_tab().boxed_local()
    }

    fn new_run_id(&self) -> String {
        format!("run-{}", chrome::random_uuid())
    }

    fn new_id(&self) -> String {
        chrome::random_uuid()
    }

    fn now_ms(&self) -> f64 {
        js_sys::Date::now()
    }

    fn sleep(&self, ms: u32) -> LocalBoxFuture<'static, ()> {
        gloo_timers::future::TimeoutFuture::new(ms).boxed_local()
    }

    fn thumbnail(&self, data_url: String) -> LocalBoxFuture<'static, Value> {
        thumbnail::make(data_url).boxed_local()
    }

    fn spawn(&self, task: LocalBoxFuture<'static, ()>) {
        spawn_local(task);
    }
}

impl Ui for WasmShell {
    fn status(&self, text: &str, is_error: bool, duration_ms: Option<u32>) {
        self.toast.set(text, is_error, duration_ms);
    }

    fn show_tab_gate(&self, banner_visible: bool, project_id: Option<&str>) {
        if let Some(banner) = by_id("tab-gate-banner") {
            dom::set_hidden(&banner, !banner_visible);
        }
        if let Some(root) = dom::document().and_then(|d| d.document_element()) {
            let _ = match project_id {
                Some(id) => root.set_attribute("data-project-id", id),
                None => root.remove_attribute("data-project-id"),
            };
        }
    }

    fn show_theme(&self, theme: &str) {
        settings_panel::show_theme(theme);
    }

    fn show_session_name(&self, name: &str) {
        if let Some(label) = by_id("session-name") {
            label.set_text_content(Some(name));
        }
    }

    fn show_session_list(&self, sessions: &[SessionMeta], current: Option<&str>) {
        *self.sessions.borrow_mut() = sessions.to_vec();
        header::render_sessions(sessions, current);
    }

    fn close_session_menu(&self) {
        popup::set_open("session-menu", "session-current", false);
    }

    fn show_settings(&self, settings: &Settings) {
        *self.settings.borrow_mut() = settings.clone();
        settings_panel::fill_general(settings, !self.general_dirty.get());
        settings_panel::render_registry(settings);
        header::render_models(settings);
    }

    fn open_settings(&self, tab: SettingsTab) {
        settings_panel::show_tab(tab);
        open_settings_panel();
    }

    fn close_model_form(&self) {
        settings_panel::close_model_form();
    }

    fn close_model_menu(&self) {
        popup::set_open("model-menu", "model-current", false);
    }

    fn show_composer(&self, state: ComposerState) {
        composer::show(state);
        edit_mode::show_editor_mode(state.editor_mode, state.editor_mode_disabled);
        self.chat.set_recovery_disabled(state.recovery_disabled);
        if state.recovery_disabled {
            recovery::close_menu(false);
        }
    }

    fn show_attachments(&self, attachments: &Attachments) {
        composer::render_attachments(attachments);
    }

    fn input_text(&self) -> String {
        composer::text()
    }

    fn clear_input(&self) {
        composer::clear();
    }

    fn focus_input(&self) {
        composer::focus();
    }
}

impl Chat for WasmShell {
    fn render_history(&self, messages: &[Value]) {
        self.stream.borrow_mut().take();
        recovery::close_menu(false);
        self.chat.render_history(messages);
    }

    fn render_user_message(&self, message: &Value) {
        self.chat.append_user(message);
    }

    fn begin_stream(&self) {
        *self.stream.borrow_mut() = Some(self.chat.begin_assistant());
    }

    fn stream_items(&self, items: &[StreamItem]) {
        if let Some(stream) = self.stream.borrow().as_ref() {
            stream.apply_batch(items);
        }
    }

    fn tool_calls(&self, calls: &[ToolCallInfo]) {
        if let Some(stream) = self.stream.borrow().as_ref() {
            stream.add_tool_calls(calls);
        }
    }

    fn tool_result(&self, result: &ToolResult) {
        if let Some(stream) = self.stream.borrow().as_ref() {
            stream.set_tool_result(&result.call_id, &result.name, &result.result);
        }
    }

    fn preflight_waiting(&self, run_id: &str, waiting: &PreflightWaiting) {
        let Some(stream) = self.stream.borrow().clone() else {
            return;
        };
        let run_id = run_id.to_owned();
        let call_id = waiting.call_id.clone();
        stream.show_preflight(waiting, move |action: PreflightAction| {
            let run_id = run_id.clone();
            let call_id = call_id.clone();
            spawn_local(async move {
                let answer = chrome::ask_worker(
                    MessageType::AiToolPreflightResolve,
                    json!({ "callId": call_id, "action": action }),
                    Some(run_id),
                )
                .await;
                if let (Err(error), Some(app)) = (answer, app()) {
                    app.shell().status(&error.message, true, None);
                }
            });
        });
    }

    fn preflight_ready(&self, call_id: &str) {
        if let Some(stream) = self.stream.borrow().as_ref() {
            stream.clear_preflight(call_id);
        }
    }

    fn approval_required(&self, run_id: &str, approval: &ApprovalRequired) {
        let Some(stream) = self.stream.borrow().clone() else {
            return;
        };
        let run_id = run_id.to_owned();
        let call_id = approval.call_id.clone();
        stream.show_approval(approval, move |action: ApprovalAction, banner| {
            banner.sending();
            let run_id = run_id.clone();
            let call_id = call_id.clone();
            run(move |app| async move {
                match app.resolve_approval(&run_id, &call_id, action).await {
                    Ok(true) => banner.submitted(action),
                    Ok(false) => banner.expired(),
                    Err(error) => banner.failed(&error.message),
                }
            });
        });
    }

    fn show_checkpoints(&self, checkpoints: &[PublicEditCheckpoint]) {
        self.chat.show_checkpoints(checkpoints);
    }

    fn has_partial_output(&self) -> bool {
        self.stream.borrow().as_ref().is_some_and(AssistantStream::has_output)
    }

    fn finalize(&self, complete: bool) -> Option<Value> {
        let stream = self.stream.borrow_mut().take()?;
        stream.finish(if complete {
            ResponseStatus::Complete
        } else {
            ResponseStatus::Incomplete
        })
    }

    fn fail(&self) {
        if let Some(stream) = self.stream.borrow_mut().take() {
            // The partial output stays visible; it is not stored.
            let _ = stream.finish(ResponseStatus::Incomplete);
        }
    }

    fn scroll_to_bottom(&self) {
        self.chat.scroll_to_bottom();
    }
}

// ---------------------------------------------------------------- events

fn key_chord(event: &KeyboardEvent) -> KeyChord {
    KeyChord {
        key: event.key(),
        shift: event.shift_key(),
        ctrl: event.ctrl_key(),
        alt: event.alt_key(),
        meta: event.meta_key(),
        is_composing: event.is_composing(),
    }
}

fn open_about(trigger: Option<Element>) {
    composer::set_context_menu_open(false);
    popup::set_open("session-menu", "session-current", false);
    popup::set_open("model-menu", "model-current", false);
    ABOUT_TRIGGER.with(|t| *t.borrow_mut() = trigger);
    if let Some(layer) = by_id("about-dialog-layer") {
        dom::set_hidden(&layer, false);
    }
    if let Some(close) = by_id("about-dialog-close") {
        dom::focus(&close);
    }
    spawn_local(show_storage_access());
}

/// Asks the worker whether storage could be limited to the extension's own
/// pages and says so in the dialog when it could not (`crate::about`).
async fn show_storage_access() {
    let status = chrome::ask_worker(MessageType::SessionStorageStatus, json!({}), None).await;
    let notice = status
        .ok()
        .and_then(|status| crate::about::storage_access_notice(&status));
    if let Some(element) = by_id("about-storage-access") {
        element.set_text_content(notice.as_deref());
        dom::set_hidden(&element, notice.is_none());
    }
}

fn close_about() -> bool {
    let Some(layer) = by_id("about-dialog-layer").filter(|l| !dom::is_hidden(l)) else {
        return false;
    };
    dom::set_hidden(&layer, true);
    if let Some(trigger) = ABOUT_TRIGGER
        .with(|t| t.borrow_mut().take())
        .filter(|t| t.is_connected())
    {
        dom::focus(&trigger);
    }
    true
}

fn event_element(event: &Event) -> Option<Element> {
    event.current_target()?.dyn_into().ok()
}

fn wire_header() {
    dom::on_id("about-icon-button", "click", |event| open_about(event_element(&event)));
    dom::on_id("about-settings-button", "click", |event| {
        open_about(event_element(&event))
    });
    dom::on_id("about-dialog-close", "click", |_| {
        close_about();
    });
    dom::on_id("about-dialog-layer", "click", |event| {
        let on_backdrop = event.target().zip(event.current_target()).is_some_and(|(t, c)| t == c);
        if on_backdrop {
            close_about();
        }
    });

    dom::on_id("session-current", "click", |_| {
        let open = !popup::is_open("session-menu");
        popup::set_open("session-menu", "session-current", open);
    });
    dom::on_id("session-new", "click", |_| {
        run(|app| async move { app.create_new_session().await })
    });
    dom::on_id("session-list", "click", |event| {
        let Some((item, id)) = dom::closest_with(&event, "data-session-id") else {
            return;
        };
        let action = dom::closest_with(&event, "data-action").map(|(_, a)| a);
        let Some(app) = app() else {
            return;
        };
        let Some(session) = app.shell().sessions.borrow().iter().find(|s| s.id == id).cloned() else {
            return;
        };
        match action.as_deref() {
            Some("rename") => begin_rename(&item, session),
            Some("delete") => spawn_local(async move { app.delete_session(id).await }),
            Some("open") => {
                popup::set_open("session-menu", "session-current", false);
                spawn_local(async move {
                    app.switch_session(session).await;
                });
            }
            _ => {}
        }
    });
    dom::on_id("session-list", "dblclick", |event| {
        let Some((item, id)) = dom::closest_with(&event, "data-session-id") else {
            return;
        };
        if dom::closest_with(&event, "data-action").map(|(_, a)| a).as_deref() != Some("open") {
            return;
        }
        let session = app().and_then(|app| app.shell().sessions.borrow().iter().find(|s| s.id == id).cloned());
        if let Some(session) = session {
            begin_rename(&item, session);
        }
    });

    dom::on_id("model-current", "click", |_| {
        let open = !popup::is_open("model-menu");
        popup::set_open("model-menu", "model-current", open);
        if open {
            popup::focus_first_item("model-menu");
        }
    });
    dom::on_id("model-list", "click", |event| {
        if let Some((_, id)) = dom::closest_with(&event, "data-model-id") {
            // Closed at once, so focus goes back to its button before the
            // list is redrawn for the choice.
            popup::set_open("model-menu", "model-current", false);
            run(|app| async move { app.select_model(id).await });
        }
    });

    dom::on_id("settings-toggle", "click", |_| {
        if settings_panel::is_open() {
            settings_panel::set_open(false);
        } else {
            open_settings_panel();
        }
    });
    dom::on_id("settings-close", "click", |_| settings_panel::set_open(false));
}

/// Opens Settings and loads the tool registries, which only Settings shows.
fn open_settings_panel() {
    settings_panel::set_open(true);
    run(|app| async move { app.load_integrations().await });
}

fn begin_rename(item: &Element, session: SessionMeta) {
    let name = session.name.clone();
    header::begin_rename(item, &name, move |committed| {
        let session = session.clone();
        run(|app| async move {
            match committed {
                Some(text) => app.rename_session(session, text).await,
                None => {
                    if let Err(error) = app.refresh_session_list().await {
                        app.shell().status(&error.message, true, None);
                    }
                }
            }
        });
    });
}

fn wire_settings() {
    dom::on_id("settings-tabs", "click", |event| {
        let name = dom::closest_with(&event, "data-tab").map(|(_, t)| t);
        if let Some((tab, _, _)) = settings_panel::TABS
            .iter()
            .find(|(_, n, _)| Some(*n) == name.as_deref())
        {
            session_manager_panel::show_tab(*tab);
        }
    });
    // Arrow keys, Home and End move along the tabs and show each one.
    dom::on_id("settings-tabs", "keydown", |event| {
        let (Some(key), Some(focused)) = (event.dyn_ref::<KeyboardEvent>(), dom::active_element()) else {
            return;
        };
        if let Some(tab) = settings_panel::tab_for_key(&focused, &key.key()) {
            event.prevent_default();
            session_manager_panel::show_tab(tab);
            settings_panel::focus_tab(tab);
        }
    });
    dom::on_id("theme-switch", "click", |event| {
        let theme = match dom::closest_with(&event, "data-theme").map(|(_, t)| t).as_deref() {
            Some("light") => "light",
            Some("dark") => "dark",
            _ => return,
        };
        run(move |app| async move { app.save_theme(theme).await });
    });
    for id in [
        "system-prompt",
        "history-cap",
        "send-message-shortcut",
        "auto-name-model",
    ] {
        for kind in ["input", "change"] {
            dom::on_id(id, kind, |_| {
                if let Some(app) = app() {
                    app.shell().general_dirty.set(true);
                }
            });
        }
    }
    dom::on_id("save-general-settings", "click", |_| {
        let form = settings_panel::read_general();
        run(|app| async move {
            // Once saved, the form mirrors what the worker stored; after a
            // failure the user's edits stay for another try.
            if app.save_general(form).await {
                app.shell().general_dirty.set(false);
                let settings = app.shell().settings.borrow().clone();
                settings_panel::fill_general(&settings, true);
            }
        });
    });
    dom::on_id("add-model-btn", "click", |_| settings_panel::open_model_form(None));
    dom::on_id("mf-cancel", "click", |_| settings_panel::close_model_form());
    // Escape in the form cancels it and goes no further: Settings stays open.
    dom::on_id("model-form", "keydown", |event| {
        if event
            .dyn_ref::<KeyboardEvent>()
            .is_some_and(|key| key.key() == "Escape")
        {
            event.prevent_default();
            event.stop_propagation();
            settings_panel::close_model_form();
        }
    });
    dom::on_id("mf-base-url", "input", |_| settings_panel::untick_insecure());
    dom::on_id("mf-save", "click", |_| {
        let form = settings_panel::read_model_form();
        run(|app| async move {
            app.save_model_form(form).await;
        });
    });
    dom::on_id("model-registry", "click", |event| {
        let Some((_, id)) = dom::closest_with(&event, "data-model-id") else {
            return;
        };
        match dom::closest_with(&event, "data-action").map(|(_, a)| a).as_deref() {
            Some("edit") => {
                let record = app().and_then(|app| app.shell().settings.borrow().model(&id).cloned());
                if let Some(record) = record {
                    settings_panel::open_model_form(Some(&record));
                }
            }
            Some("delete") => run(|app| async move { app.delete_model(id).await }),
            _ => {}
        }
    });
}

fn wire_composer() {
    dom::on_id("send-btn", "click", |event| {
        event.prevent_default();
        run(|app| async move { app.send().await });
    });
    dom::on_id("user-input", "input", |_| composer::autoresize());
    dom::on_id("user-input", "keydown", |event| {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        let Some(app) = app() else {
            return;
        };
        let configured = app.with_state(|s| s.settings.send_message_shortcut);
        if shortcut::should_send(&key_chord(key), configured) {
            event.prevent_default();
            spawn_local(async move { app.send().await });
        }
    });
    dom::on_id("add-context-btn", "click", |event| {
        event.stop_propagation();
        let streaming = app().is_some_and(|app| app.with_state(|s| s.streaming || !s.on_typst));
        if streaming {
            return;
        }
        let open = !composer::is_context_menu_open();
        composer::set_context_menu_open(open);
        if open {
            popup::focus_first_item("add-context-menu");
        }
    });
    dom::on_id("add-context-menu", "click", |event| {
        let kind = match dom::closest_with(&event, "data-add").map(|(_, k)| k).as_deref() {
            Some("selection") => ContextKind::Selection,
            Some("preview") => ContextKind::Preview,
            Some("opened_image") => ContextKind::OpenedImage,
            _ => return,
        };
        composer::set_context_menu_open(false);
        run(move |app| async move { app.add_context(kind).await });
    });
    dom::on_id("context-attachments", "click", |event| {
        if let (Some((_, id)), Some(app)) = (dom::closest_with(&event, "data-attachment-id"), app()) {
            app.remove_attachment(&id);
        }
    });
    dom::on_id("status-copy", "click", |_| {
        if let Some(app) = app() {
            let toast = app.shell().toast.clone();
            spawn_local(async move { toast.copy().await });
        }
    });
    dom::on_id("status-close", "click", |_| {
        if let Some(app) = app() {
            app.shell().toast.dismiss();
        }
    });
}

/// The Edits control: the button toggles its menu, a choice saves the
/// mode, a click elsewhere closes the menu.
fn wire_edit_mode() {
    dom::on_id("editor-permission-btn", "click", |event| {
        event.stop_propagation();
        let open = !edit_mode::is_menu_open();
        edit_mode::set_menu_open(open);
        if open {
            popup::focus_first_item("editor-permission-menu");
        }
    });
    dom::on_id("editor-permission-menu", "click", |event| {
        let mode = match dom::closest_with(&event, "data-editor-approval-mode")
            .map(|(_, m)| m)
            .as_deref()
        {
            Some("auto") => EditorApprovalMode::Auto,
            Some("ask") => EditorApprovalMode::Ask,
            _ => return,
        };
        edit_mode::set_menu_open(false);
        run(move |app| async move { app.set_editor_approval_mode(mode).await });
    });
    let Some(document) = dom::document() else { return };
    dom::on(&document, "click", |event| {
        let target: Option<web_sys::Node> = event.target().and_then(|t| t.dyn_into().ok());
        let inside = by_id("editor-permission-wrap")
            .is_some_and(|container| target.as_ref().is_some_and(|t| container.contains(Some(t))));
        if !inside {
            edit_mode::set_menu_open(false);
        }
    });
}

fn wire_document() {
    let Some(document) = dom::document() else {
        return;
    };
    // Clicks outside a menu close it.
    dom::on(&document, "click", |event| {
        let target: Option<web_sys::Node> = event.target().and_then(|t| t.dyn_into().ok());
        let inside =
            |id: &str| by_id(id).is_some_and(|container| target.as_ref().is_some_and(|t| container.contains(Some(t))));
        if !inside("session-dropdown") {
            popup::set_open("session-menu", "session-current", false);
        }
        if !inside("model-selector") {
            popup::set_open("model-menu", "model-current", false);
        }
        if !inside("add-context-wrap") {
            composer::set_context_menu_open(false);
        }
    });
    // Escape closes the innermost thing: About, then the Context menu, then
    // a header menu, then Settings (focus returns to what opened it).
    dom::on(&document, "keydown", |event| {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if key.key() != "Escape" {
            return;
        }
        if close_about() {
            event.prevent_default();
        } else if composer::is_context_menu_open() {
            event.prevent_default();
            composer::set_context_menu_open(false);
            if let Some(button) = by_id("add-context-btn") {
                dom::focus(&button);
            }
        } else if let Some((menu, button)) = [("session-menu", "session-current"), ("model-menu", "model-current")]
            .into_iter()
            .find(|(menu, _)| popup::is_open(menu))
        {
            event.prevent_default();
            popup::set_open(menu, button, false);
            if let Some(button) = by_id(button) {
                dom::focus(&button);
            }
        } else if settings_panel::is_open() {
            event.prevent_default();
            settings_panel::set_open(false);
            if let Some(toggle) = by_id("settings-toggle") {
                dom::focus(&toggle);
            }
        }
    });
}

fn wire_empty_state(empty: &Element) {
    dom::on(empty, "click", |event| {
        if let Some((_, prompt)) = dom::closest_with(&event, "data-prompt") {
            composer::prefill(&prompt);
        }
    });
}

fn show_version() {
    let label = format!("Version {}", chrome::manifest_version());
    for id in ["about-settings-version", "about-dialog-version"] {
        if let Some(element) = by_id(id) {
            element.set_text_content(Some(&label));
        }
    }
}

async fn boot() -> Result<(), JsValue> {
    let document = dom::document().ok_or_else(|| JsValue::from_str("no document"))?;
    let root = document
        .get_element_by_id("app")
        .ok_or_else(|| JsValue::from_str("#app is missing"))?;
    let chat_container = layout::build(&root)?;
    let chat = ChatView::mount(&chat_container)?;
    let empty = layout::empty_state();
    wire_empty_state(&empty);
    chat.set_empty_state(Some(empty));
    chat.set_recovery_handlers(recovery::request_revert, recovery::toggle_snapshots);
    show_version();

    let controller = Controller::new(WasmShell::new(chat));
    handle::install(&controller);
    controller.shell().toast.track_focus();
    composer::render_attachments(&Attachments::default());
    controller.update_composer();
    wire_header();
    wire_settings();
    wire_composer();
    wire_edit_mode();
    integrations_panel::wire();
    session_manager_panel::wire();
    recovery::wire();
    link_dialog::wire();
    popup::wire();
    wire_document();
    chrome::listen(|message, sender, runtime_id| {
        app().and_then(|app| app.on_runtime_message_from(message, sender, runtime_id))
    });
    controller.start().await;
    if let Some(root) = document.document_element() {
        root.set_attribute("data-panel-ready", "true")?;
    }
    controller.shell().chat.warm_up_renderer();
    Ok(())
}

/// Builds the panel and starts the controller.
pub(crate) fn start() {
    spawn_local(async {
        if let Err(error) = boot().await {
            chrome::console_error(&format!("Typst Side Agent: the panel failed to start: {error:?}"));
        }
    });
}
