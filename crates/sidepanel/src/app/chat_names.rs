//! Automatic chat names: after a send, the naming model (when one is set)
//! proposes a title; only the newest proposal for a chat the user did not
//! rename is kept.

use super::controller::{Controller, field_str};
use super::shell::Shell;
use crate::sessions::{self, SessionMeta};
use protocol::MessageType;
use serde_json::{Value, json};
use std::rc::Rc;

impl<S: Shell + 'static> Controller<S> {
    pub(super) async fn auto_name(self: &Rc<Self>, session: SessionMeta, history: Vec<Value>) -> Result<(), String> {
        let generation = self.state.borrow_mut().titles.next(&session.id);
        if session.user_renamed {
            return Ok(());
        }
        let Some(model) = self
            .state
            .borrow()
            .settings
            .auto_name_model()
            .map(|m| m.as_map().clone())
        else {
            return Ok(());
        };
        let messages = sessions::title_messages(&history);
        if messages.is_empty() {
            return Ok(());
        }
        let answer = self
            .request(
                MessageType::GenerateSessionTitle,
                json!({ "modelConfig": model, "messages": messages }),
            )
            .await
            .map_err(|e| e.message)?;
        let title = match (answer.get("ok").and_then(Value::as_bool), field_str(&answer, "title")) {
            (Some(true), Some(title)) if !title.is_empty() => title.to_owned(),
            _ => {
                let message = answer
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("The naming model returned no title.");
                return Err(message.to_owned());
            }
        };
        let stale = |this: &Self| {
            let state = this.state.borrow();
            !state.titles.is_current(&session.id, generation)
                || state
                    .session
                    .as_ref()
                    .is_some_and(|current| current.id == session.id && current.user_renamed)
        };
        if stale(self) {
            return Ok(());
        }
        let updated = self
            .request(
                MessageType::SessionUpdate,
                json!({ "sessionId": session.id, "name": title, "autoName": true }),
            )
            .await
            .map_err(|e| e.message)?;
        let Some(updated) = SessionMeta::from_value(&updated) else {
            return Ok(());
        };
        if updated.user_renamed || updated.name != title || stale(self) {
            return Ok(());
        }
        let shown = {
            let mut state = self.state.borrow_mut();
            match state.session.as_mut() {
                Some(current) if current.id == session.id => {
                    current.name = updated.name.clone();
                    true
                }
                _ => false,
            }
        };
        if shown {
            self.shell.show_session_name(&updated.name);
            self.refresh_session_list().await.map_err(|e| e.message)?;
        }
        Ok(())
    }
}
