//! The Context menu's attachments: the editor selection and preview
//! captures, and their refresh from the send's tab just before a send. The
//! page's quick attach (`quick_attach.rs`) adds its chips through the same
//! two readers.

use super::controller::{Controller, field_str, page_error};
use super::shell::Shell;
use crate::attachments::{CaptureMode, ContextKind};
use protocol::MessageType;
use serde_json::{Map, Value, json};
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    /// A Context-menu entry.
    pub(crate) async fn add_context(self: &Rc<Self>, kind: ContextKind) {
        let (allowed, tab_id) = {
            let state = self.state.borrow();
            (state.on_typst && !state.streaming, state.tab_id)
        };
        if !allowed {
            return;
        }
        let (busy, failure) = match kind {
            ContextKind::Selection => ("Reading selection…", "Selection failed"),
            ContextKind::Preview => ("Capturing preview…", "Preview failed"),
            ContextKind::OpenedImage => ("Capturing opened image…", "Image capture failed"),
        };
        self.shell.status(busy, false, None);
        let result = match kind {
            ContextKind::Selection => self.attach_selection(tab_id).await,
            ContextKind::Preview => self.attach_preview(tab_id, CaptureMode::Canvas).await,
            ContextKind::OpenedImage => self.attach_preview(tab_id, CaptureMode::Asset).await,
        };
        if let Err(message) = result {
            self.status(&format!("{failure}: {message}"), true);
        }
    }

    pub(super) async fn attach_selection(&self, tab_id: Option<u64>) -> Result<(), String> {
        let mut payload = Map::new();
        if let Some(tab_id) = tab_id {
            payload.insert("tabId".to_owned(), json!(tab_id));
        }
        let context = self
            .request(MessageType::GetEditorContext, Value::Object(payload))
            .await
            .map_err(|e| e.message)?;
        if let Some(error) = page_error(&context) {
            return Err(error);
        }
        let text = field_str(&context, "selectedText").unwrap_or_default().to_owned();
        let file = context.pointer("/workspace/active_editor_file").cloned();
        let id = self.shell.new_id();
        let added = {
            let mut state = self.state.borrow_mut();
            state.attachments.add_selection(id, &text, file.as_ref()).is_some()
        };
        if !added {
            self.shell.status("No text is selected.", true, Some(2_000));
            return Ok(());
        }
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        self.shell.status("Selection added", false, Some(1_500));
        Ok(())
    }

    pub(super) async fn attach_preview(&self, tab_id: Option<u64>, mode: CaptureMode) -> Result<(), String> {
        let answer = self
            .request(MessageType::GetPreview, mode.request(tab_id))
            .await
            .map_err(|e| e.message)?;
        if let Some(error) = page_error(&answer) {
            return Err(error);
        }
        let data_url = field_str(&answer, "dataUrl").unwrap_or_default().to_owned();
        let id = self.shell.new_id();
        self.state
            .borrow_mut()
            .attachments
            .add_preview(id, &data_url, mode)
            .map_err(|e| e.to_string())?;
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        match mode {
            CaptureMode::Asset => self.shell.status("Opened image attached", false, Some(1_500)),
            CaptureMode::Auto => self.shell.status("Image added", false, Some(1_500)),
            CaptureMode::Canvas => self.shell.status("", false, None),
        }
        Ok(())
    }

    pub(crate) fn remove_attachment(&self, id: &str) {
        self.state.borrow_mut().attachments.remove(id);
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
    }

    /// Captures every attached preview again from `tab_id`.
    pub(super) async fn refresh_attachments(&self, tab_id: u64) -> Result<(), String> {
        let previews: Vec<(String, CaptureMode)> = self
            .state
            .borrow()
            .attachments
            .previews
            .iter()
            .map(|p| (p.id.clone(), p.capture_mode))
            .collect();
        if previews.is_empty() {
            return Ok(());
        }
        self.shell.status("Refreshing attachments…", false, None);
        for (id, mode) in previews {
            let answer = self
                .request(MessageType::GetPreview, mode.request(Some(tab_id)))
                .await
                .map_err(|e| e.message)?;
            if let Some(error) = page_error(&answer) {
                return Err(error);
            }
            let data_url = field_str(&answer, "dataUrl").unwrap_or_default().to_owned();
            self.state
                .borrow_mut()
                .attachments
                .refresh_preview(&id, &data_url)
                .map_err(|e| e.to_string())?;
        }
        let attachments = self.state.borrow().attachments.clone();
        self.shell.show_attachments(&attachments);
        self.shell.status("", false, None);
        Ok(())
    }
}
