//! The send pipeline: capture the chat, the tab and its file, refresh the
//! attachments, reserve the run, show and save the user's turn, then start
//! the run. Each step re-checks that the panel still shows what the send
//! captured; a failure undoes what the send had done.

use super::controller::{Controller, field_str};
use super::shell::Shell;
use crate::attachments::Attachments;
use crate::run_ui::PanelRun;
use crate::settings::Settings;
use crate::transitions::{SendIdentity, SendToken};
use crate::worker_client::WorkerError;
use futures::future::LocalBoxFuture;
use protocol::active_file::ActiveEditorFile;
use protocol::{ErrorCode, MessageType};
use serde_json::{Value, json};
use std::rc::Rc;

/// What a send gathered before it reserved a run.
struct PreparedSend {
    tab_id: u64,
    active_file: ActiveEditorFile,
    /// The attachments as the model gets them.
    attachments: Value,
    /// The attachments as the chat keeps them (thumbnails only).
    sent_attachments: Option<Value>,
}

impl PreparedSend {
    /// The user's turn as it is shown, saved and sent.
    fn user_entry(&self, text: String) -> Value {
        let mut entry = json!({ "role": "user", "content": text, "activeEditorFile": self.active_file.to_value() });
        if let (Some(sent), Some(map)) = (self.sent_attachments.clone(), entry.as_object_mut()) {
            map.insert("sentAttachments".to_owned(), sent);
        }
        entry
    }
}

/// What a send had done when it failed.
#[derive(Default)]
struct SendProgress {
    reserved_run_id: Option<String>,
    started_run: Option<Rc<PanelRun>>,
}

impl<S: Shell + 'static> Controller<S> {
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

    /// The pipeline after the send began. `Ok` also when the send stopped
    /// on its own (with a status saying why); `Err` when a request failed,
    /// for [`Self::send_failed`] to undo what `progress` records.
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
        let Some(prepared) = self.prepare_send(token, &project_id).await? else {
            return Ok(());
        };
        let tab_id = prepared.tab_id;
        let user_entry = prepared.user_entry(text);
        let Some(run_id) = self
            .reserve_run(token, tab_id, &project_id, &session_id, progress)
            .await?
        else {
            return Ok(());
        };
        let run = self.show_run(
            PanelRun {
                run_id: run_id.clone(),
                tab_id,
                project_id: project_id.clone(),
                session_id: session_id.clone(),
                history: origin.history.clone(),
                reconnected: false,
            },
            &user_entry,
        )?;
        progress.started_run = Some(Rc::clone(&run));

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
        self.start_run(&run, &origin.history.snapshot(), prepared);
        Ok(())
    }

    /// Everything a send gathers before it reserves a run: the tab (still
    /// on the send's project), its open file, fresh attachments and their
    /// thumbnails; `None` (with a status) when the send must stop.
    async fn prepare_send(&self, token: &SendToken, project_id: &str) -> Result<Option<PreparedSend>, String> {
        let tab = self.shell.active_tab().await.unwrap_or_default();
        let Some(tab_id) = tab.id.filter(|_| tab.project_id().as_deref() == Some(project_id)) else {
            self.status("The Typst project or chat changed. Send the message again.", true);
            return Ok(None);
        };
        let Some(active_file) = self.identify_file(tab_id).await? else {
            return Ok(None);
        };
        if let Err(message) = self.refresh_attachments(tab_id).await {
            self.status(&format!("Refresh failed: {message}"), true);
            return Ok(None);
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
        if !self.still_prepared(token, tab_id, project_id).await {
            self.status(
                "The Typst project or chat changed while the message was being prepared. Nothing was sent.",
                true,
            );
            return Ok(None);
        }
        Ok(Some(PreparedSend {
            tab_id,
            active_file,
            attachments: Value::Object(attachments),
            sent_attachments,
        }))
    }

    /// The file open in `tab_id` (the run and the user's turn carry it);
    /// `None` (with a status) when the page cannot say which it is.
    async fn identify_file(&self, tab_id: u64) -> Result<Option<ActiveEditorFile>, String> {
        let context = self
            .request(
                MessageType::GetEditorContext,
                json!({ "tabId": tab_id, "projection": "identity" }),
            )
            .await
            .map_err(|e| e.message)?;
        let file = ActiveEditorFile::from_context(&context);
        if file.is_none() {
            self.status(
                "The open Typst file could not be identified, so nothing was sent. Reload the Typst tab and try again.",
                true,
            );
        }
        Ok(file)
    }

    /// After the awaits of preparing: the send is still current, no run
    /// began meanwhile, and the window still shows the same tab and project.
    async fn still_prepared(&self, token: &SendToken, tab_id: u64, project_id: &str) -> bool {
        let confirmed = self.shell.active_tab().await.unwrap_or_default();
        let now = self.current_identity();
        let still_current = {
            let state = self.state.borrow();
            state.transitions.is_send_current(token, &now) && state.run_ui.current().is_none()
        };
        still_current && confirmed.id == Some(tab_id) && confirmed.project_id().as_deref() == Some(project_id)
    }

    /// `AI_RUN_RESERVE` for a fresh run id. `None` (the reservation is
    /// cancelled again, with a status) when the panel moved on meanwhile.
    async fn reserve_run(
        &self,
        token: &SendToken,
        tab_id: u64,
        project_id: &str,
        session_id: &str,
        progress: &mut SendProgress,
    ) -> Result<Option<String>, String> {
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
        if reserved {
            return Ok(Some(run_id));
        }
        self.state.borrow_mut().transitions.cancel_send(token);
        let _ = self
            .shell
            .request(MessageType::AiStreamCancel, json!({}), Some(run_id))
            .await;
        self.status(
            "The Typst project or chat changed while the run was being reserved. Nothing was sent.",
            true,
        );
        Ok(None)
    }

    /// The reserved run becomes the one the panel shows: the user's turn
    /// joins the run's history and the chat, the composer empties and the
    /// answer's bubble opens.
    fn show_run(&self, run: PanelRun, user_entry: &Value) -> Result<Rc<PanelRun>, String> {
        let history = run.history.clone();
        let run = {
            let mut state = self.state.borrow_mut();
            let run = state
                .run_ui
                .begin(run)
                .map_err(|_| "Another run is already shown in this panel.".to_owned())?;
            state.streaming = true;
            run
        };
        self.status("", false);
        history.push(user_entry.clone());
        self.shell.render_user_message(user_entry);
        self.state.borrow_mut().attachments.clear();
        self.shell.show_attachments(&Attachments::default());
        self.shell.scroll_to_bottom();
        self.shell.clear_input();
        self.shell.begin_stream();
        self.update_composer();
        Ok(run)
    }

    /// `AI_STREAM_START` with what the send captured; its answer is watched
    /// in the background (it arrives only when the run ends).
    fn start_run(self: &Rc<Self>, run: &PanelRun, messages: &[Value], prepared: PreparedSend) {
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
                "tabId": run.tab_id,
                "projectId": run.project_id,
                "sessionId": run.session_id,
                "messages": messages,
                "settings": settings,
                "modelConfig": model,
                "attachments": prepared.attachments,
                "activeEditorFile": prepared.active_file.to_value(),
            }),
            Some(run.run_id.clone()),
        );
        let this = Rc::clone(self);
        let run_id = run.run_id.clone();
        self.spawn(async move { this.watch_stream_start(run_id, start).await });
    }

    /// `AI_STREAM_START` answers only when the run ends; a refusal or an
    /// `ok:false` outcome ends the bubble here if no terminal event did.
    async fn watch_stream_start(
        self: &Rc<Self>,
        run_id: String,
        start: LocalBoxFuture<'static, Result<Value, WorkerError>>,
    ) {
        let mut stale_settings = false;
        let failure = match start.await {
            Ok(outcome) if outcome.get("ok").and_then(Value::as_bool) == Some(false) => Some({
                stale_settings = field_str(&outcome, "code") == Some(ErrorCode::RunConfigMismatch.as_str());
                field_str(&outcome, "error")
                    .or_else(|| field_str(&outcome, "message"))
                    .unwrap_or("The run failed.")
                    .to_owned()
            }),
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
        if stale_settings {
            // The worker runs on the stored settings, which changed since
            // this panel read them: read them again, so the next send matches.
            if let Ok(value) = self.request(MessageType::LoadSettings, json!({})).await {
                let settings = Settings::from_value(&value);
                self.state.borrow_mut().settings = settings.clone();
                self.shell.show_settings(&settings);
                self.update_composer();
            }
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
}
