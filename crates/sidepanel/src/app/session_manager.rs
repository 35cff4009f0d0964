//! Settings → Sessions: every chat of every project, as the worker lists
//! them, with rename, switch, delete, "Delete all" of a project, "Open
//! project", export to a file and import from one.
//!
//! The worker's grouped list and storage status are fetched when the tab is
//! shown, on Refresh and after every change made here; typing in the filter
//! only redraws from what was fetched. A change that touches the open
//! project ends with `reconcile_chats`, so the header's menu never offers a
//! chat that is gone and the panel never keeps showing one. Confirmations
//! are the shell's (a dialog whose text is decided in
//! `crate::session_manager`); the flows here run after the user confirmed.

use super::controller::Controller;
use super::shell::{SettingsTab, Shell};
use crate::session_manager::{
    self, ImportFileError, ManagerContent, Place, StorageStatus, export_file_name, parse_groups,
};
use crate::sessions::SessionMeta;
use crate::worker_client::WorkerError;
use futures::future::LocalBoxFuture;
use protocol::MessageType;
use serde_json::json;
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    /// "Manage all chats…": Settings opens on Sessions with an empty filter.
    pub(crate) async fn open_session_manager(self: &Rc<Self>) {
        self.state.borrow_mut().manager.query.clear();
        self.shell.clear_session_filter();
        self.shell.close_session_menu();
        self.shell.open_settings(SettingsTab::Sessions);
        self.refresh_session_manager().await;
    }

    /// Fetches the grouped list and the storage status, then redraws.
    pub(crate) async fn refresh_session_manager(self: &Rc<Self>) {
        let groups = self.request(MessageType::SessionListAllGrouped, json!({})).await;
        let storage = self.request(MessageType::SessionStorageStatus, json!({})).await;
        {
            let mut state = self.state.borrow_mut();
            if let Ok(groups) = &groups {
                state.manager.groups = parse_groups(groups);
            }
            state.manager.storage = storage.as_ref().ok().map(StorageStatus::from_value);
        }
        if let Err(error) = groups {
            self.status(&format!("The chats could not be listed: {}", error.message), true);
        }
        self.show_session_manager();
    }

    /// Typing in `sessions-search`: redraws from what was fetched.
    pub(crate) fn filter_session_manager(&self, input: &str) {
        self.state.borrow_mut().manager.query = session_manager::normalize_query(input);
        self.show_session_manager();
    }

    fn manager_content(&self) -> ManagerContent {
        let state = self.state.borrow();
        let place = Place {
            project_id: state.project_id.as_deref(),
            session_id: state.session.as_ref().map(|s| s.id.as_str()),
            now_ms: self.shell.now_ms(),
        };
        session_manager::content(
            &state.manager.groups,
            &state.manager.query,
            state.manager.storage,
            place,
        )
    }

    fn show_session_manager(&self) {
        let content = self.manager_content();
        self.shell.show_session_manager(&content);
    }

    fn managed_session(&self, session_id: &str) -> Option<SessionMeta> {
        let state = self.state.borrow();
        state
            .manager
            .groups
            .iter()
            .flat_map(|group| &group.sessions)
            .find(|session| session.meta.id == session_id)
            .map(|session| session.meta.clone())
    }

    /// After a change here: the header catches up, then the tab redraws.
    async fn after_manager_change(self: &Rc<Self>) {
        if let Err(error) = self.reconcile_chats().await {
            self.status(&error.message, true);
        }
        self.refresh_session_manager().await;
    }

    /// A finished rename in a row (`None` input: cancelled).
    pub(crate) async fn rename_managed_session(self: &Rc<Self>, session_id: String, input: Option<String>) {
        let Some(session) = self.managed_session(&session_id) else {
            return;
        };
        if let Some(input) = input
            && crate::sessions::rename_target(&session.name, &input).is_some()
        {
            self.rename_session(session, input).await;
            self.refresh_session_manager().await;
            return;
        }
        self.show_session_manager();
    }

    /// A row's Switch: opens that chat of the open project (the only ones
    /// offered, as in the original).
    pub(crate) async fn switch_to_managed_session(self: &Rc<Self>, session_id: String) {
        let Some(session) = self.managed_session(&session_id) else {
            return;
        };
        if self.state.borrow().project_id.as_deref() != Some(session.project_id.as_str()) {
            return;
        }
        if self.switch_session(session).await {
            self.shell.close_session_menu();
        }
        self.refresh_session_manager().await;
    }

    /// A row's Delete, once confirmed.
    pub(crate) async fn delete_managed_session(self: &Rc<Self>, session_id: String) {
        match self
            .request(MessageType::SessionDelete, json!({ "sessionId": session_id }))
            .await
        {
            Ok(_) => self.shell.status("Chat deleted", false, Some(1_500)),
            Err(error) => self.status(&format!("The chat was not deleted: {}", error.message), true),
        }
        self.after_manager_change().await;
    }

    /// A card's "Delete all", once confirmed.
    pub(crate) async fn delete_managed_project(self: &Rc<Self>, project_id: String) {
        let answer = self
            .request(MessageType::SessionDeleteByProject, json!({ "projectId": project_id }))
            .await;
        match answer {
            Ok(answer) => {
                let removed = answer.get("removed").and_then(serde_json::Value::as_u64).unwrap_or(0);
                let text = format!("Deleted {}", session_manager::plural(removed, "chat"));
                self.shell.status(&text, false, Some(1_500));
            }
            Err(error) => self.status(&format!("The chats were not deleted: {}", error.message), true),
        }
        self.after_manager_change().await;
    }

    /// A card's "Open project": the worker focuses or opens its tab.
    pub(crate) async fn open_project_tab(self: &Rc<Self>, project_id: String) {
        if let Err(error) = self
            .request(MessageType::OpenProjectTab, json!({ "projectId": project_id }))
            .await
        {
            self.status(&format!("The project could not be opened: {}", error.message), true);
        }
    }

    /// `sessions-export`: the worker's export, saved as a JSON file.
    pub(crate) async fn export_sessions(self: &Rc<Self>) {
        let export = match self.request(MessageType::SessionExport, json!({})).await {
            Ok(export) => export,
            Err(error) => {
                self.status(&format!("Export failed: {}", error.message), true);
                return;
            }
        };
        let chats = session_manager::exported_count(&export);
        if chats == 0 {
            self.shell.status("There are no chats to export.", true, Some(2_000));
            return;
        }
        let text = serde_json::to_string_pretty(&export).unwrap_or_default();
        let name = export_file_name(self.shell.now_ms());
        match self.shell.download(&name, &text) {
            Ok(()) => self
                .shell
                .status(&session_manager::export_status(chats), false, Some(2_000)),
            Err(why) => self.status(&format!("Export failed: {why}"), true),
        }
    }

    /// A file chosen in `sessions-import-file`: `size` is checked before
    /// `read` is awaited (so an oversized file is never read), the text is
    /// checked again, and only a file that passes reaches the worker.
    pub(crate) async fn import_sessions(self: &Rc<Self>, size: f64, read: LocalBoxFuture<'static, Result<String, ()>>) {
        let export = match session_manager::check_import_size(size) {
            Ok(()) => match read.await {
                Ok(text) => session_manager::parse_import_file(&text),
                Err(()) => Err(ImportFileError::Unreadable),
            },
            Err(error) => Err(error),
        };
        let answer = match export {
            Ok(export) => {
                self.request(MessageType::SessionImport, json!({ "exportData": export }))
                    .await
            }
            Err(error) => Err(WorkerError::panel(error.code(), error.message())),
        };
        match answer {
            Ok(answer) => {
                let text = session_manager::import_status(&answer);
                self.shell.status(&text, false, Some(4_000));
                self.after_manager_change().await;
            }
            Err(error) => self.status(&import_failure(&error), true),
        }
    }
}

/// What the toast says when the worker refused an import (nothing changed).
fn import_failure(error: &WorkerError) -> String {
    format!("Import failed, nothing was changed: {}", error.message)
}
