//! The chat's one delegated click listener: which banner or recovery
//! button was pressed, and the callback it belongs to.

use super::banners::{self, ApprovalBanner};
use super::state::{Click, Inner, PreflightCallback};
use crate::dom;
use protocol::payloads::PreflightAction;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event};

impl Inner {
    pub(super) fn click(&self, event: &Event) -> Option<Click> {
        let target = event.target()?.dyn_into::<Element>().ok()?;
        if let Some(button) = target.closest(".tool-approval-btn").ok()? {
            let action = banners::parse_action(&button.get_attribute("data-approval-action")?)?;
            let block = button.closest(".tool-block").ok()??;
            let banner = button.closest(".tool-approval").ok()??;
            let call_id = block.get_attribute("data-call-id")?;
            let callback = self.approval_actions.get(&call_id)?.clone();
            let editor_review = banner.get_attribute("data-editor-review").as_deref() == Some("true");
            return Some(Click::Approval(
                callback,
                action,
                ApprovalBanner {
                    block,
                    banner,
                    editor_review,
                },
            ));
        }
        if let Some(button) = target.closest(".edit-revert-button").ok()? {
            if self.recovery.disabled || dom::is_disabled(&button) {
                return None;
            }
            let control = button.closest(".edit-revert-control").ok()??;
            let checkpoint = self
                .recovery
                .checkpoints
                .get(&control.get_attribute("data-checkpoint-id")?)?
                .clone();
            return Some(Click::Revert(self.recovery.on_revert.clone()?, control, checkpoint));
        }
        if let Some(button) = target.closest(".response-snapshot-button").ok()? {
            if self.recovery.disabled || dom::is_disabled(&button) {
                return None;
            }
            return Some(Click::Snapshot(self.recovery.on_snapshot.clone()?, button));
        }
        self.preflight_click(&target)
            .map(|(callback, action)| Click::Preflight(callback, action))
    }

    fn preflight_click(&self, target: &Element) -> Option<(PreflightCallback, PreflightAction)> {
        let button = target.closest(".tool-preflight-btn").ok()??;
        let action = match button.get_attribute("data-action")?.as_str() {
            "retry" => PreflightAction::Retry,
            "cancel" => PreflightAction::Cancel,
            _ => return None,
        };
        let block = button.closest(".tool-block").ok()??;
        let call_id = block.get_attribute("data-call-id")?;
        let callback = self.preflight_actions.get(&call_id)?.clone();
        Some((callback, action))
    }
}
