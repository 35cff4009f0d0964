//! Reconnecting: when the panel opens on a chat whose run is still going in
//! the worker, it shows that the run continues (Stop stays available) and
//! reloads the chat at its end.

use super::controller::{Controller, field_str};
use super::run_events::Terminal;
use super::shell::Shell;
use crate::history::History;
use crate::run_ui::PanelRun;
use crate::sessions::Session;
use crate::worker_client::WorkerError;
use protocol::MessageType;
use serde_json::{Value, json};
use std::rc::Rc;

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

impl<S: Shell + 'static> Controller<S> {
    /// On load: if the opened chat still has a run in the worker, show that
    /// it continues (Stop stays available) and reload the chat at its end.
    pub(super) async fn recover_active_run(self: &Rc<Self>) -> Result<(), WorkerError> {
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
            // The composer is usable while this reload is on its way: what
            // it reads may be older than a turn sent meanwhile.
            let shown = self.shown_history();
            let refreshed = self
                .request(MessageType::SessionGet, json!({ "sessionId": session_id }))
                .await?;
            if let Some(session) = Session::from_value(&refreshed)
                && self.reload_still_current(&shown)
            {
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

    /// The history the chat shows, and its length (a new chat replaces it,
    /// a send grows it).
    fn shown_history(&self) -> (History, usize) {
        let state = self.state.borrow();
        (state.history.clone(), state.history.len())
    }

    /// Whether a reload read since `before` may replace the chat: nothing
    /// was sent or opened meanwhile, and no send or run is under way.
    fn reload_still_current(&self, before: &(History, usize)) -> bool {
        let idle = {
            let state = self.state.borrow();
            state.run_ui.current().is_none() && !state.transitions.has_active_send()
        };
        idle && self.shown_history() == *before
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

    pub(super) async fn finish_reconnected_run(self: &Rc<Self>, run: Rc<PanelRun>, terminal: Terminal) {
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
