//! The Revert/Snapshot control under an answer: which answers get one, the
//! receipt each shows, and the caller's handlers (the shell's recovery
//! flows). The elements themselves come from `recovery_control.rs`.

use super::recovery_control::fill_recovery_control;
use super::state::{ChatView, Inner};
use crate::dom::{self, el};
use crate::recovery::{self, RevertState};
use protocol::edit_checkpoint::PublicEditCheckpoint;
use serde_json::Value;
use std::rc::Rc;
use web_sys::Element;

impl ChatView {
    /// What a click on Revert (the control and its receipt) and on Snapshot
    /// (the button) does.
    pub(crate) fn set_recovery_handlers(
        &self,
        on_revert: impl Fn(Element, PublicEditCheckpoint) + 'static,
        on_snapshot: impl Fn(Element) + 'static,
    ) {
        let mut inner = self.inner.borrow_mut();
        inner.recovery.on_revert = Some(Rc::new(on_revert));
        inner.recovery.on_snapshot = Some(Rc::new(on_snapshot));
    }

    /// Turns every Revert and Snapshot button off (a run streams, the panel
    /// left its project) or back on.
    pub(crate) fn set_recovery_disabled(&self, disabled: bool) {
        let mut inner = self.inner.borrow_mut();
        inner.recovery.disabled = disabled;
        for button in dom::query_all(&inner.messages, ".edit-revert-button, .response-snapshot-button") {
            let busy = button.get_attribute("data-busy").as_deref() == Some("true");
            dom::set_disabled(&button, disabled || busy);
        }
    }

    /// Receipts whose state changed: every control of those ids shows it.
    pub(crate) fn show_checkpoints(&self, checkpoints: &[PublicEditCheckpoint]) {
        let mut inner = self.inner.borrow_mut();
        for checkpoint in checkpoints {
            if !inner.recovery.checkpoints.contains_key(&checkpoint.id) {
                continue;
            }
            inner
                .recovery
                .checkpoints
                .insert(checkpoint.id.clone(), checkpoint.clone());
            for control in dom::query_all(&inner.messages, ".edit-revert-control") {
                if control.get_attribute("data-checkpoint-id").as_deref() == Some(checkpoint.id.as_str()) {
                    inner.fill_control(&control, Some(&recovery::revert_state(checkpoint, false)), None);
                }
            }
        }
    }

    /// A revert of `control`'s receipt is under way.
    pub(crate) fn set_revert_busy(&self, control: &Element) {
        self.inner
            .borrow()
            .fill_control(control, Some(&RevertState::Busy), None);
    }

    /// Shows `control` again after a revert: its receipt's state, "Try
    /// revert again" after `error`, and `note` (an error or a save problem).
    pub(crate) fn finish_revert(&self, control: &Element, error: bool, note: Option<&str>) {
        let inner = self.inner.borrow();
        let revert = control
            .get_attribute("data-checkpoint-id")
            .and_then(|id| inner.recovery.checkpoints.get(&id))
            .map(|checkpoint| recovery::revert_state(checkpoint, error));
        inner.fill_control(control, revert.as_ref(), note);
    }
}

impl Inner {
    /// Appends the Revert/Snapshot control to an answer's group when it has
    /// a receipt or is the latest complete answer.
    pub(super) fn add_recovery_control(&mut self, group: &Element, message: &Value, snapshot: bool) {
        let checkpoint = PublicEditCheckpoint::latest_in_message(message, js_sys::Date::now());
        if checkpoint.is_none() && !snapshot {
            return;
        }
        // Focusable from script: it keeps the focus after a revert that
        // left it without a button.
        let control = el("div")
            .class("edit-revert-control response-recovery-control")
            .attr("tabindex", "-1")
            .build();
        let _ = control.set_attribute("data-has-snapshot", if snapshot { "true" } else { "false" });
        let revert = checkpoint.as_ref().map(|c| recovery::revert_state(c, false));
        if let Some(checkpoint) = checkpoint {
            let _ = control.set_attribute("data-checkpoint-id", &checkpoint.id);
            self.recovery.checkpoints.insert(checkpoint.id.clone(), checkpoint);
        }
        self.fill_control(&control, revert.as_ref(), None);
        // After the answer's body, not inside it: the body holds exactly what
        // the model produced.
        let _ = group.append_child(&control);
    }

    /// Redraws a control with `revert` for its receipt (none: Snapshot only).
    fn fill_control(&self, control: &Element, revert: Option<&RevertState>, note: Option<&str>) {
        let checkpoint = control
            .get_attribute("data-checkpoint-id")
            .and_then(|id| self.recovery.checkpoints.get(&id));
        let snapshot = control.get_attribute("data-has-snapshot").as_deref() == Some("true");
        fill_recovery_control(control, checkpoint.zip(revert), snapshot, self.recovery.disabled, note);
    }

    /// A newer complete answer takes the Snapshot button; controls left
    /// with nothing go.
    pub(super) fn remove_snapshot_buttons(&self) {
        for button in dom::query_all(&self.messages, ".response-snapshot-button") {
            let control = button.closest(".response-recovery-control").ok().flatten();
            button.remove();
            if let Some(control) = control {
                let _ = control.set_attribute("data-has-snapshot", "false");
                if control.get_attribute("data-checkpoint-id").is_none() {
                    control.remove();
                }
            }
        }
    }
}
