//! The controller handle: the panel's one controller, over what the browser
//! shell keeps for it ([`WasmShell`]; its `Shell` implementation is in
//! `shell/mod.rs`), and how an event handler reaches it.
//!
//! A leaf of `shell/`: the event wiring in `mod.rs` and in its children
//! (`recovery.rs`) take the handle from here, so no child reaches back into
//! `mod.rs`. Handlers never hold a borrow of panel state across a call, so a
//! handler that fires while another flow awaits sees consistent state.

use super::toast::ToastView;
use crate::app::Controller;
use crate::chat::{AssistantStream, ChatView};
use crate::sessions::SessionMeta;
use crate::settings::Settings;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen_futures::spawn_local;

/// The panel's controller over the browser shell.
pub(super) type App = Controller<WasmShell>;

/// What the browser shell keeps beside the DOM.
pub(crate) struct WasmShell {
    pub(super) chat: ChatView,
    pub(super) stream: RefCell<Option<AssistantStream>>,
    pub(super) toast: ToastView,
    /// The General form has edits that were not saved yet.
    pub(super) general_dirty: Cell<bool>,
    /// What the settings views show (for edit and delete lookups).
    pub(super) settings: RefCell<Settings>,
    /// The session menu's rows (for rename lookups).
    pub(super) sessions: RefCell<Vec<SessionMeta>>,
}

impl WasmShell {
    /// The shell around the mounted chat, before anything was loaded.
    pub(super) fn new(chat: ChatView) -> WasmShell {
        WasmShell {
            chat,
            stream: RefCell::new(None),
            toast: ToastView::default(),
            general_dirty: Cell::new(false),
            settings: RefCell::new(Settings::default()),
            sessions: RefCell::new(Vec::new()),
        }
    }
}

thread_local! {
    static APP: RefCell<Option<Rc<App>>> = const { RefCell::new(None) };
}

/// Makes `controller` the one event handlers reach.
pub(super) fn install(controller: &Rc<App>) {
    APP.with(|a| *a.borrow_mut() = Some(Rc::clone(controller)));
}

/// The controller, once the panel has booted.
pub(super) fn app() -> Option<Rc<App>> {
    APP.with(|a| a.borrow().clone())
}

/// Starts a controller flow from an event handler.
pub(super) fn run<F, Fut>(flow: F)
where
    F: FnOnce(Rc<App>) -> Fut,
    Fut: std::future::Future<Output = ()> + 'static,
{
    if let Some(app) = app() {
        spawn_local(flow(app));
    }
}
