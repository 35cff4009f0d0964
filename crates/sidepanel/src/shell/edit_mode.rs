//! DOM of the Edits control above the composer: the button that says
//! whether the agent's editor writes wait for a review (Ask) or not (Auto),
//! and its menu. The words come from [`crate::edit_review`]; the mode is
//! saved by the controller (the listeners are wired in `mod.rs`).

use crate::dom::{self, by_id};
use crate::edit_review;
use protocol::constants::EditorApprovalMode;

/// Mirrors the saved mode and whether it may change now.
pub(super) fn show_editor_mode(mode: EditorApprovalMode, disabled: bool) {
    let labels = edit_review::permission_labels(mode);
    if let Some(current) = by_id("editor-permission-current") {
        current.set_text_content(Some(labels.short));
    }
    if let Some(button) = by_id("editor-permission-btn") {
        let _ = button.set_attribute("data-mode", mode.as_str());
        let _ = button.set_attribute("aria-label", labels.aria_label);
        let _ = button.set_attribute("title", labels.title);
        dom::set_disabled(&button, disabled);
    }
    for option in dom::query_document("[data-editor-approval-mode]") {
        let active = option.get_attribute("data-editor-approval-mode").as_deref() == Some(mode.as_str());
        let _ = option.class_list().toggle_with_force("active", active);
        let _ = option.set_attribute("aria-checked", if active { "true" } else { "false" });
        dom::set_disabled(&option, disabled);
    }
    if disabled {
        set_menu_open(false);
    }
}

pub(super) fn set_menu_open(open: bool) {
    if let Some(menu) = by_id("editor-permission-menu") {
        dom::set_hidden(&menu, !open);
    }
    if let Some(button) = by_id("editor-permission-btn") {
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
    }
}

pub(super) fn is_menu_open() -> bool {
    by_id("editor-permission-menu").is_some_and(|m| !dom::is_hidden(&m))
}

/// Escape: closes an open menu and gives the focus back to its button.
/// Whether it was open.
pub(super) fn close_menu_on_escape() -> bool {
    if !is_menu_open() {
        return false;
    }
    set_menu_open(false);
    if let Some(button) = by_id("editor-permission-btn") {
        dom::focus(&button);
    }
    true
}
