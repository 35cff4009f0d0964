//! DOM for editor writes inside the chat: the unified diff, approval
//! banners and a response's recovery control (Revert and Snapshot).
//!
//! Text-only like the rest of the chat: every line of a diff, every label
//! and every reason is a text node, so a proposed edit that contains markup
//! shows as that markup's characters. The words come from [`crate::edits`].

use crate::dom::{self, el};
use crate::edits::{self, ApprovalView, RevertView};
use protocol::diff_preview::DiffPreview;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::payloads::ApprovalAction;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The whole diff, however large: a header with the file and `+A −D`, then
/// every hunk header and row with old/new line numbers and a marker.
pub(crate) fn diff_element(preview: &DiffPreview) -> Element {
    let (additions, deletions) = edits::diff_stats(preview);
    let body = el("div").class("edit-diff-body").attr("tabindex", "0").build();
    for hunk in &preview.hunks {
        let _ = body.append_child(
            &el("div")
                .class("edit-diff-hunk-header")
                .text(&edits::hunk_header(hunk))
                .build(),
        );
        for row in &hunk.rows {
            let line = el("div")
                .class(&format!("edit-diff-row edit-diff-{}", edits::row_kind(row.kind)))
                .child(
                    el("span")
                        .class("edit-diff-line-number")
                        .text(&edits::line_number(row.old_line)),
                )
                .child(
                    el("span")
                        .class("edit-diff-line-number")
                        .text(&edits::line_number(row.new_line)),
                )
                .child(el("span").class("edit-diff-marker").text(edits::row_marker(row.kind)))
                .child(el("span").class("edit-diff-code").text(&row.text))
                .build();
            let _ = body.append_child(&line);
        }
    }
    el("section")
        .class("edit-diff")
        .attr("aria-label", &edits::diff_title(preview))
        .child(
            el("div")
                .class("edit-diff-header")
                .child(
                    el("span")
                        .class("edit-diff-file")
                        .attr("title", &preview.file_label)
                        .text(&preview.file_label),
                )
                .child(
                    el("span")
                        .class("edit-diff-stats")
                        .child(el("span").class("edit-diff-additions").text(&additions))
                        .child(el("span").class("edit-diff-deletions").text(&deletions)),
                ),
        )
        .child(body)
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
pub(crate) fn approval_banner(view: &ApprovalView) -> Element {
    let class = if view.editor_review {
        "tool-preflight tool-approval tool-edit-approval"
    } else {
        "tool-preflight tool-approval"
    };
    let mut banner = el("div")
        .class(class)
        .attr("role", "group")
        .attr(
            "aria-label",
            if view.editor_review {
                "Review the proposed edit"
            } else {
                "Approve the tool call"
            },
        )
        .child(el("div").class("tool-preflight-msg").text(&view.message))
        .child(el("div").class("tool-preflight-missing").text(&view.destination));
    if let Some(notice) = &view.notice {
        banner = banner.child(el("div").class("tool-edit-preview-notice").text(notice));
    }
    if let Some(preview) = &view.preview {
        banner = banner.child(diff_element(preview));
    }
    let buttons = view.choices.iter().map(|choice| {
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
                .child(el("summary").text(&view.arguments_summary))
                .child(el("pre").class("tool-approval-arguments").text(&view.arguments)),
        )
        .child(el("div").class("tool-preflight-actions").children(buttons))
        .build()
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
        self.buttons(true);
    }

    /// The worker took the choice: the banner goes, the pill says what now.
    pub(crate) fn submitted(&self, action: ApprovalAction) {
        self.banner.remove();
        let status = edits::approval_submitted_status(self.editor_review, action);
        super::view::set_status(&self.block, &status);
    }

    /// The call no longer waits: the buttons stay off, the banner says so.
    pub(crate) fn expired(&self) {
        if let Ok(Some(text)) = self.banner.query_selector(".tool-preflight-msg") {
            text.set_text_content(Some(edits::APPROVAL_EXPIRED));
        }
    }

    /// The choice was not delivered: the buttons come back with the reason.
    pub(crate) fn failed(&self, message: &str) {
        self.buttons(false);
        if let Ok(Some(text)) = self.banner.query_selector(".tool-preflight-msg") {
            text.set_text_content(Some(&edits::approval_submit_error(message)));
        }
    }
}

/// Fills a recovery control: the Revert part for `checkpoint` (if any),
/// the Snapshot button (if `snapshot`), and an alert `note` beneath.
pub(crate) fn fill_recovery_control(
    control: &Element,
    checkpoint: Option<(&PublicEditCheckpoint, &RevertView)>,
    snapshot: bool,
    disabled: bool,
    note: Option<&str>,
) {
    let state = checkpoint.map_or("available", |(_, view)| view.state());
    control.set_class_name(&format!("edit-revert-control response-recovery-control is-{state}"));
    let _ = control.set_attribute("data-revert-state", state);
    let _ = control.set_attribute("data-has-snapshot", if snapshot { "true" } else { "false" });
    let busy = checkpoint.is_some_and(|(_, view)| *view == RevertView::Busy);
    let _ = control.set_attribute("aria-busy", if busy { "true" } else { "false" });
    match checkpoint {
        Some((checkpoint, _)) => {
            let _ = control.set_attribute("data-checkpoint-id", &checkpoint.id);
        }
        None => {
            let _ = control.remove_attribute("data-checkpoint-id");
        }
    }
    let actions = el("div").class("response-recovery-actions").build();
    if let Some((_, view)) = checkpoint {
        let part = match view {
            RevertView::Button { title, .. } => el("button")
                .class("response-action-button edit-revert-button")
                .attr("type", "button")
                .attr("title", title)
                .attr("aria-haspopup", "dialog")
                .attr("aria-expanded", "false")
                .flag("disabled", disabled)
                .child(
                    el("span")
                        .class("response-action-icon is-revert")
                        .attr("aria-hidden", "true"),
                )
                .child(el("span").text(view.label()))
                .build(),
            RevertView::Busy => el("button")
                .class("response-action-button edit-revert-button")
                .attr("type", "button")
                .attr("data-busy", "true")
                .flag("disabled", true)
                .child(
                    el("span")
                        .class("edit-revert-button-spinner")
                        .attr("aria-hidden", "true"),
                )
                .child(el("span").text(view.label()))
                .build(),
            RevertView::Reverted { title } => el("span")
                .class("edit-revert-status is-success")
                .attr("title", title)
                .child(
                    el("span")
                        .class("response-action-icon is-success")
                        .attr("aria-hidden", "true"),
                )
                .child(el("span").class("edit-revert-success").text(view.label()))
                .build(),
            RevertView::Unavailable { reason } => el("span")
                .class("edit-revert-status is-unavailable")
                .attr("title", reason)
                .child(
                    el("span")
                        .class("response-action-icon is-unavailable")
                        .attr("aria-hidden", "true"),
                )
                .child(el("span").text(view.label()))
                .build(),
        };
        let _ = actions.append_child(&part);
    }
    if snapshot {
        let button = el("button")
            .class("response-action-button response-snapshot-button")
            .attr("type", "button")
            .attr("title", "Open the document snapshots of this chat's latest answer.")
            .attr("aria-haspopup", "dialog")
            .attr("aria-expanded", "false")
            .flag("disabled", disabled || busy)
            .child(
                el("span")
                    .class("response-action-icon is-snapshot")
                    .attr("aria-hidden", "true"),
            )
            .child(el("span").text("Snapshot"))
            .build();
        let _ = actions.append_child(&button);
    }
    control.replace_children_with_node_1(&actions);
    if let Some(note) = note {
        let _ = control.append_child(
            &el("div")
                .class("edit-revert-note")
                .attr("role", "alert")
                .child(
                    el("span")
                        .class("edit-revert-note-marker")
                        .attr("aria-hidden", "true")
                        .text("!"),
                )
                .child(el("span").class("edit-revert-note-copy edit-revert-error").text(note))
                .build(),
        );
    }
}
