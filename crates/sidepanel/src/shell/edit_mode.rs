//! DOM of the Edits control above the composer: the button that says
//! whether the agent's editor writes wait for a review (Ask) or not (Auto),
//! and its menu. The words come from [`crate::edit_review`]; the mode is
//! saved by the controller (the listeners are wired in `mod.rs`).

use super::popup;
use crate::dom::{self, by_id};
use crate::edit_review;
use protocol::constants::EditorApprovalMode;
use std::cell::Cell;

thread_local! {
    /// The Edits control had the focus when it was turned off.
    static REFOCUS: Cell<bool> = const { Cell::new(false) };
}

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
        // A disabled button drops the focus (while the mode saves, a run
        // streams): it takes it back when enabled again, unless the user
        // went elsewhere meanwhile.
        let wrap = by_id("editor-permission-wrap");
        if disabled && wrap.as_ref().is_some_and(dom::has_focus_within) {
            REFOCUS.set(true);
        }
        dom::set_disabled(&button, disabled);
        if !disabled && REFOCUS.replace(false) && dom::active_element().is_none() {
            dom::focus(&button);
        }
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
    popup::set_open("editor-permission-menu", "editor-permission-btn", open);
}

pub(super) fn is_menu_open() -> bool {
    popup::is_open("editor-permission-menu")
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
