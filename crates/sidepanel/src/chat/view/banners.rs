//! The banners inside a tool block: the preflight wait (Retry / Skip) and
//! the approval of a call (with the complete diff for an editor review),
//! and the handle a click handler gets to show an approval's outcome.
//!
//! Text-only like the rest of the chat; the words come from
//! [`crate::chat::labels`] and [`crate::edit_review`].

use super::diff::diff_element;
use super::tool_block::{keep_focus_in_block, set_status};
use crate::chat::labels::{self, PreflightPrompt};
use crate::dom::{self, el};
use crate::edit_review::{self, ApprovalPrompt};
use protocol::payloads::ApprovalAction;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The banner of a waiting preflight: its message and requirement, and
/// Retry / Skip buttons (`data-action` retry / cancel) that the chat's click
/// listener reads.
pub(super) fn preflight_banner(prompt: &PreflightPrompt) -> Element {
    el("div")
        .class("tool-preflight")
        .attr("role", "group")
        .attr("aria-label", "Waiting for the Typst tab")
        .child(el("div").class("tool-preflight-msg").text(&prompt.message))
        .child(
            el("div")
                .class("tool-preflight-missing")
                .flag("hidden", prompt.requirement.is_empty())
                .text(&prompt.requirement),
        )
        .child(
            el("div")
                .class("tool-preflight-actions")
                .child(
                    el("button")
                        .class("tool-preflight-btn tool-preflight-retry")
                        .attr("type", "button")
                        .attr("data-action", "retry")
                        .text(prompt.retry_label),
                )
                .child(
                    el("button")
                        .class("tool-preflight-btn tool-preflight-skip")
                        .attr("type", "button")
                        .attr("data-action", "cancel")
                        .text(prompt.skip_label),
                ),
        )
        .build()
}

fn action_name(action: ApprovalAction) -> &'static str {
    match action {
        ApprovalAction::ApproveOnce => "approve_once",
        ApprovalAction::AllowRun => "allow_run",
        ApprovalAction::Deny => "deny",
    }
}

/// The action of an approval button.
pub(crate) fn parse_action(value: &str) -> Option<ApprovalAction> {
    match value {
        "approve_once" => Some(ApprovalAction::ApproveOnce),
        "allow_run" => Some(ApprovalAction::AllowRun),
        "deny" => Some(ApprovalAction::Deny),
        _ => None,
    }
}

/// The approval banner of a tool block.
pub(crate) fn approval_banner(prompt: &ApprovalPrompt) -> Element {
    let class = if prompt.editor_review {
        "tool-preflight tool-approval tool-edit-approval"
    } else {
        "tool-preflight tool-approval"
    };
    let mut banner = el("div")
        .class(class)
        .attr("role", "group")
        .attr(
            "aria-label",
            if prompt.editor_review {
                "Review the proposed edit"
            } else {
                "Approve the tool call"
            },
        )
        .child(el("div").class("tool-preflight-msg").text(&prompt.message))
        .child(el("div").class("tool-preflight-missing").text(&prompt.destination));
    if let Some(notice) = &prompt.notice {
        banner = banner.child(el("div").class("tool-edit-preview-notice").text(notice));
    }
    if let Some(preview) = &prompt.preview {
        banner = banner.child(diff_element(preview));
    }
    let buttons = prompt.choices.iter().map(|choice| {
        el("button")
            .class(if choice.primary {
                "tool-preflight-btn tool-approval-btn tool-preflight-retry"
            } else {
                "tool-preflight-btn tool-approval-btn tool-preflight-skip"
            })
            .attr("type", "button")
            .attr("data-approval-action", action_name(choice.action))
            .text(choice.label)
            .build()
    });
    banner
        .child(
            el("details")
                .class("tool-approval-disclosure")
                .child(el("summary").text(&prompt.arguments_summary))
                .child(el("pre").class("tool-approval-arguments").text(&prompt.arguments)),
        )
        .child(el("div").class("tool-preflight-actions").children(buttons))
        .build()
}

/// The same review sent again (what the drawing over the editor found came
/// after the review went up): the banner stays, with its buttons, a choice
/// already on its way and the focus; only its notice changes.
pub(crate) fn set_approval_notice(banner: &Element, notice: Option<&str>) {
    let shown = banner.query_selector(".tool-edit-preview-notice").ok().flatten();
    match (shown, notice) {
        (Some(node), Some(text)) => node.set_text_content(Some(text)),
        (Some(node), None) => node.remove(),
        (None, Some(text)) => {
            let node = el("div").class("tool-edit-preview-notice").text(text).build();
            let after = banner.query_selector(".tool-preflight-missing").ok().flatten();
            let before = after.and_then(|missing| missing.next_sibling());
            let _ = banner.insert_before(&node, before.as_ref());
        }
        (None, None) => {}
    }
}

/// A banner whose choice is being delivered: what the click handler gets to
/// show the outcome.
#[derive(Clone)]
pub(crate) struct ApprovalBanner {
    pub(crate) block: Element,
    pub(crate) banner: Element,
    pub(crate) editor_review: bool,
}

impl ApprovalBanner {
    fn buttons(&self, disabled: bool) {
        if let Ok(buttons) = self.banner.query_selector_all("button") {
            for index in 0..buttons.length() {
                if let Some(button) = buttons.get(index).and_then(|n| n.dyn_into::<Element>().ok()) {
                    dom::set_disabled(&button, disabled);
                }
            }
        }
    }

    /// While the answer is on its way: no second click.
    pub(crate) fn sending(&self) {
        keep_focus_in_block(&self.block, &self.banner);
        self.buttons(true);
    }

    /// The worker took the choice: the banner goes, the pill says what now.
    pub(crate) fn submitted(&self, action: ApprovalAction) {
        keep_focus_in_block(&self.block, &self.banner);
        self.banner.remove();
        let status = labels::approval_submitted_status(self.editor_review, action);
        set_status(&self.block, &status);
    }

    /// The call no longer waits: the buttons stay off, the banner says so.
    pub(crate) fn expired(&self) {
        if let Ok(Some(text)) = self.banner.query_selector(".tool-preflight-msg") {
            text.set_text_content(Some(edit_review::APPROVAL_EXPIRED));
        }
    }

    /// The choice was not delivered: the buttons come back with the reason.
    pub(crate) fn failed(&self, message: &str) {
        self.buttons(false);
        if let Ok(Some(text)) = self.banner.query_selector(".tool-preflight-msg") {
            text.set_text_content(Some(&edit_review::approval_submit_error(message)));
        }
    }
}
