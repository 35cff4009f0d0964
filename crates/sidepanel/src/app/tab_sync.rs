//! Following the window's active tab: the banner off typst.app, the
//! project a tab opened, and that project's chats.

use super::controller::Controller;
use super::shell::{BrowserTab, Shell};
use crate::tab_gate::{self, Notice};
use crate::worker_client::WorkerError;
use futures::future::LocalBoxFuture;
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    /// Follows the window's active tab: banner, project, that project's chats.
    pub(crate) async fn sync_tab(self: &Rc<Self>) -> Result<(), WorkerError> {
        let (epoch, tab) = self.begin_tab_sync();
        let tab = tab.await;
        self.finish_tab_sync(epoch, tab).await
    }

    /// The first half of [`Self::sync_tab`]: takes this sync's epoch and asks
    /// for the active tab at once. Start-up asks it together with the theme
    /// and the settings (it depends on neither) and applies it after them; a
    /// tab change meanwhile takes a newer epoch, so this sync then gives way.
    pub(super) fn begin_tab_sync(&self) -> (u64, LocalBoxFuture<'static, Option<BrowserTab>>) {
        let epoch = self.state.borrow_mut().transitions.next_tab_sync();
        (epoch, self.shell.active_tab())
    }

    /// The second half of [`Self::sync_tab`]: the tab read under `epoch`.
    pub(super) async fn finish_tab_sync(
        self: &Rc<Self>,
        epoch: u64,
        tab: Option<BrowserTab>,
    ) -> Result<(), WorkerError> {
        let tab = tab.unwrap_or_default();
        if !self.state.borrow().transitions.is_tab_sync_current(epoch) {
            return Ok(());
        }
        let gate = tab_gate::tab_gate(&tab.active_tab());
        let (changed_project, learned_window) = {
            let mut state = self.state.borrow_mut();
            state.on_typst = !gate.banner_visible;
            state.tab_id = tab.id;
            // The window's quick-attach queue is drained by window id. Start-up
            // drains it once, but a tab change that arrives while start-up
            // waits makes start-up's own tab read stale, and then the window
            // is first known here, after that drain found no window to ask
            // about: this sync drains it instead.
            let learned_window =
                tab.window_id.is_some() && state.window_id != tab.window_id && state.quick_attach.is_ready();
            state.window_id = tab.window_id;
            let changed_project = if state.on_typst {
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
            };
            (changed_project, learned_window)
        };
        if learned_window {
            let this = Rc::clone(self);
            self.spawn(async move { this.drain_window().await });
        }
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
                    self.show_notice(gate.notice.as_ref());
                }
                None => self.show_notice(gate.notice.as_ref()),
            }
        }
        self.update_composer();
        Ok(())
    }

    /// What the gate asks of the user in the toast (on typst.app without a
    /// project: to open one).
    fn show_notice(&self, notice: Option<&Notice>) {
        if let Some(notice) = notice {
            self.status(&notice.text, notice.is_error);
        }
    }

    pub(super) fn is_tab_sync_current(&self, epoch: Option<u64>) -> bool {
        epoch.is_none_or(|e| self.state.borrow().transitions.is_tab_sync_current(e))
    }
}
