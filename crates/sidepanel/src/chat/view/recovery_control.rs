//! The elements of an answer's recovery control: the Revert part for its
//! latest receipt, the Snapshot button and an alert note beneath. Built
//! afresh on every change; the words come from [`crate::recovery`].

use crate::dom::el;
use crate::recovery::RevertState;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use web_sys::Element;

/// Fills a recovery control: the Revert part for `checkpoint` (if any),
/// the Snapshot button (if `snapshot`), and an alert `note` beneath.
pub(super) fn fill_recovery_control(
    control: &Element,
    checkpoint: Option<(&PublicEditCheckpoint, &RevertState)>,
    snapshot: bool,
    disabled: bool,
    note: Option<&str>,
) {
    let state = checkpoint.map_or("available", |(_, revert)| revert.name());
    control.set_class_name(&format!("edit-revert-control response-recovery-control is-{state}"));
    let _ = control.set_attribute("data-revert-state", state);
    let _ = control.set_attribute("data-has-snapshot", if snapshot { "true" } else { "false" });
    let busy = checkpoint.is_some_and(|(_, revert)| *revert == RevertState::Busy);
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
    if let Some((_, revert)) = checkpoint {
        let _ = actions.append_child(&revert_part(revert, disabled));
    }
    if snapshot {
        let _ = actions.append_child(&snapshot_button(disabled || busy));
    }
    control.replace_children_with_node_1(&actions);
    if let Some(note) = note {
        let _ = control.append_child(&alert_note(note));
    }
}

/// The Revert part: a button while the receipt can be reverted (or is
/// being), a status once it was or cannot be.
fn revert_part(revert: &RevertState, disabled: bool) -> Element {
    match revert {
        RevertState::Button { title, .. } => el("button")
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
            .child(el("span").text(revert.label()))
            .build(),
        RevertState::Busy => el("button")
            .class("response-action-button edit-revert-button")
            .attr("type", "button")
            .attr("data-busy", "true")
            .flag("disabled", true)
            .child(
                el("span")
                    .class("edit-revert-button-spinner")
                    .attr("aria-hidden", "true"),
            )
            .child(el("span").text(revert.label()))
            .build(),
        RevertState::Reverted { title } => el("span")
            .class("edit-revert-status is-success")
            .attr("title", title)
            .child(
                el("span")
                    .class("response-action-icon is-success")
                    .attr("aria-hidden", "true"),
            )
            .child(el("span").class("edit-revert-success").text(revert.label()))
            .build(),
        RevertState::Unavailable { reason } => el("span")
            .class("edit-revert-status is-unavailable")
            .attr("title", reason)
            .child(
                el("span")
                    .class("response-action-icon is-unavailable")
                    .attr("aria-hidden", "true"),
            )
            .child(el("span").text(revert.label()))
            .build(),
    }
}

/// The Snapshot button of the latest complete answer.
fn snapshot_button(disabled: bool) -> Element {
    el("button")
        .class("response-action-button response-snapshot-button")
        .attr("type", "button")
        .attr("title", "Open the document snapshots of this chat's latest answer.")
        .attr("aria-haspopup", "dialog")
        .attr("aria-expanded", "false")
        .flag("disabled", disabled)
        .child(
            el("span")
                .class("response-action-icon is-snapshot")
                .attr("aria-hidden", "true"),
        )
        .child(el("span").text("Snapshot"))
        .build()
}

/// The alert under the actions (a failed revert, or a chat not saved).
fn alert_note(note: &str) -> Element {
    el("div")
        .class("edit-revert-note")
        .attr("role", "alert")
        .child(
            el("span")
                .class("edit-revert-note-marker")
                .attr("aria-hidden", "true")
                .text("!"),
        )
        .child(el("span").class("edit-revert-note-copy edit-revert-error").text(note))
        .build()
}
