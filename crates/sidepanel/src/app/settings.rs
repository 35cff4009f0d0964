//! Saving settings: the theme, the General form, the model registry (one
//! change at a time, each against the settings as they are then) and the
//! Edits mode.

use super::controller::Controller;
use super::shell::Shell;
use crate::edit_review;
use crate::settings::{GENERAL_FIELDS, GeneralForm, ModelChange, ModelForm, Settings, model_record_from_form};
use protocol::MessageType;
use protocol::constants::EditorApprovalMode;
use serde_json::json;
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    /// Light/Dark: applied at once, then saved.
    pub(crate) async fn save_theme(self: &Rc<Self>, theme: &'static str) {
        self.shell.show_theme(theme);
        if let Err(error) = self.request(MessageType::SaveTheme, json!({ "theme": theme })).await {
            self.status(&format!("The theme was not saved: {}", error.message), true);
        }
    }

    /// The General tab's Save; true when the worker stored it.
    pub(crate) async fn save_general(self: &Rc<Self>, form: GeneralForm) -> bool {
        let next = {
            let state = self.state.borrow();
            crate::settings::apply_general(&state.settings, &form)
        };
        let fields: Vec<&str> = GENERAL_FIELDS.iter().map(|f| f.as_str()).collect();
        let answer = self
            .request(
                MessageType::SaveSettings,
                json!({ "settings": next.to_map(), "fields": fields }),
            )
            .await;
        match answer {
            Ok(saved) => {
                let committed = saved
                    .get("settings")
                    .filter(|s| s.is_object())
                    .map_or(next, Settings::from_value);
                self.state.borrow_mut().settings = committed.clone();
                self.shell.show_settings(&committed);
                self.update_composer();
                self.shell.status("Settings saved", false, Some(1_500));
                true
            }
            Err(error) => {
                self.status(&format!("Settings were not saved: {}", error.message), true);
                false
            }
        }
    }

    /// Runs one model change after every earlier one finished, against the
    /// settings as they are then; commits what the worker stored.
    async fn change_models(self: &Rc<Self>, change: ModelChange) -> Result<(), String> {
        self.model_turns.take(self.change_models_now(change)).await
    }

    async fn change_models_now(self: &Rc<Self>, change: ModelChange) -> Result<(), String> {
        let current = self.state.borrow().settings.clone();
        let (next, mutation) = change.apply(&current).map_err(|e| e.to_string())?;
        let saved = self
            .request(
                MessageType::SaveSettings,
                json!({ "settings": next.to_map(), "modelMutation": mutation }),
            )
            .await
            .map_err(|e| e.message)?;
        let committed = saved
            .get("settings")
            .filter(|s| s.is_object())
            .map_or(next, Settings::from_value);
        self.state.borrow_mut().settings = committed.clone();
        self.shell.show_settings(&committed);
        self.update_composer();
        Ok(())
    }

    /// The model form's Save.
    pub(crate) async fn save_model_form(self: &Rc<Self>, form: ModelForm) -> bool {
        let record = {
            let state = self.state.borrow();
            model_record_from_form(&state.settings, &form, &self.shell.new_id())
        };
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                self.status(&error.to_string(), true);
                return false;
            }
        };
        match self.change_models(ModelChange::Upsert(record)).await {
            Ok(()) => {
                self.shell.close_model_form();
                self.shell.status("Model saved", false, Some(1_500));
                true
            }
            Err(message) => {
                self.status(&format!("Settings were not saved: {message}"), true);
                false
            }
        }
    }

    pub(crate) async fn delete_model(self: &Rc<Self>, id: String) {
        if let Err(message) = self.change_models(ModelChange::Remove(id)).await {
            self.status(&format!("Settings were not saved: {message}"), true);
        }
    }

    /// A model chosen in the header's model menu.
    pub(crate) async fn select_model(self: &Rc<Self>, id: String) {
        match self.change_models(ModelChange::Select(id)).await {
            Ok(()) => self.shell.close_model_menu(),
            Err(message) => self.status(&format!("Settings were not saved: {message}"), true),
        }
    }

    /// The Edits menu: saves the mode at once (only that field), shows it
    /// while saving, and puts the previous mode back when the save fails.
    pub(crate) async fn set_editor_approval_mode(self: &Rc<Self>, mode: EditorApprovalMode) {
        let (previous, settings) = {
            let mut state = self.state.borrow_mut();
            let previous = state.settings.editor_approval_mode;
            if previous == mode || state.editor_mode_saving || state.streaming || state.transitions.has_active_send() {
                return;
            }
            state.editor_mode_saving = true;
            state.settings.editor_approval_mode = mode;
            (previous, state.settings.clone())
        };
        self.update_composer();
        let answer = self
            .request(
                MessageType::SaveSettings,
                json!({ "settings": settings.to_map(), "fields": ["editorApprovalMode"] }),
            )
            .await;
        match answer {
            Ok(saved) => {
                let committed = saved.get("settings").filter(|s| s.is_object()).map(|value| {
                    let mut state = self.state.borrow_mut();
                    state.settings.editor_approval_mode =
                        protocol::constants::EditorApprovalMode::normalize(value.get("editorApprovalMode"));
                    state.settings.editor_approval_mode
                });
                self.shell.status(
                    edit_review::permission_saved_status(committed.unwrap_or(mode)),
                    false,
                    Some(1_500),
                );
            }
            Err(error) => {
                self.state.borrow_mut().settings.editor_approval_mode = previous;
                self.status(&format!("The Edits setting was not saved: {}", error.message), true);
            }
        }
        self.state.borrow_mut().editor_mode_saving = false;
        self.update_composer();
    }
}
