//! The chats of the open project: opening the newest, switching from the
//! session menu (stopping a run of another chat first), saving, creating,
//! renaming and deleting, and catching up after the Sessions manager
//! changed chats behind the menu's back.

use super::controller::Controller;
use super::shell::Shell;
use crate::history::History;
use crate::sessions::{self, AfterDelete, NEW_CHAT_NAME, Session, SessionMeta};
use crate::worker_client::WorkerError;
use protocol::{ErrorCode, MessageType};
use serde_json::{Value, json};
use std::rc::Rc;

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

impl<S: Shell + 'static> Controller<S> {
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
        Session::from_value(&created)
            .ok_or_else(|| WorkerError::panel(ErrorCode::InvalidResponse, "The new chat could not be read."))
    }

    /// Opens `project_id`'s newest chat, creating "New chat" when it has none.
    pub(super) async fn load_sessions_for_project(
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

    pub(super) async fn save_messages(&self, session_id: &str, messages: Vec<Value>) -> Result<(), WorkerError> {
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

    /// After chats changed elsewhere (the Sessions manager deleted, renamed
    /// or imported some): the menu shows the project's chats again; an open
    /// chat that is gone gives way to the project's newest, or a new one; a
    /// rename of the open chat reaches the header.
    pub(super) async fn reconcile_chats(self: &Rc<Self>) -> Result<(), WorkerError> {
        let Some(project_id) = self.state.borrow().project_id.clone() else {
            return Ok(());
        };
        let list = self.list_sessions(&project_id).await?;
        let Some(current) = self.state.borrow().session.clone() else {
            self.shell.show_session_list(&list, None);
            return Ok(());
        };
        match list.iter().find(|meta| meta.id == current.id) {
            Some(still) => {
                if still.name != current.name {
                    if let Some(open) = self.state.borrow_mut().session.as_mut() {
                        open.name.clone_from(&still.name);
                    }
                    self.shell.show_session_name(still.display_name());
                }
                self.shell.show_session_list(&list, Some(&current.id));
                Ok(())
            }
            None => {
                self.forget_deleted_session(&current.id);
                match list.first() {
                    Some(newest) => self
                        .switch_session_inner(SwitchTarget::Meta(newest.clone()), None, None)
                        .await
                        .map(|_| ()),
                    None => self.create_new_session_inner().await,
                }
            }
        }
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
}
