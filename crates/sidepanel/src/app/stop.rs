//! Stop: cancelling the run the panel shows (sticky even before it
//! started), and stopping it before the panel navigates to another chat or
//! project.

use super::controller::Controller;
use super::shell::Shell;
use crate::run_ui::PanelRun;
use futures::future;
use protocol::MessageType;
use serde_json::json;
use std::rc::Rc;

/// How long a chat switch waits for a cancelled run's terminal event.
pub(crate) const NAVIGATION_CANCEL_WAIT_MS: u32 = 2_500;

impl<S: Shell + 'static> Controller<S> {
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

    /// Before switching chats or projects: stop the run, wait a little for
    /// its end, then end it here ourselves.
    pub(super) async fn cancel_active_run_before_navigation(self: &Rc<Self>) {
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

    /// The run ended before it started (Stop during preparation).
    pub(super) fn end_run_stopped(self: &Rc<Self>, run: &Rc<PanelRun>) {
        self.finalize_stream(Some(run), false);
        self.state.borrow_mut().run_ui.complete(run);
        self.update_composer();
        self.status("Stopped", false);
    }
}
