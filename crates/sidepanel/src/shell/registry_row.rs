//! One row of a settings registry (models, custom tools, MCP servers): the
//! record's name, a second line that says where it points, its badges, and
//! Edit and Delete buttons, each a real labelled button.
//!
//! A leaf of `shell/`: `settings_panel.rs` and `integrations_panel.rs` build
//! their rows here, so every registry reads and works alike. Buttons carry
//! `data-action` (`edit`, `delete`, `toggle`) and the row its record's id
//! under `id_attribute`; the panels find the record from there.

use super::icons;
use crate::dom::{El, el, icon};
use web_sys::Element;

/// What a row shows.
pub(super) struct RegistryRow<'a> {
    /// The data attribute that carries the id (`data-model-id`, …).
    pub(super) id_attribute: &'a str,
    pub(super) id: &'a str,
    pub(super) title: &'a str,
    pub(super) meta: &'a str,
    /// Badges and switches between the text and the buttons.
    pub(super) badges: Vec<Element>,
    pub(super) edit_label: &'a str,
    pub(super) delete_label: &'a str,
}

/// A small round label.
pub(super) fn badge(class: &str, text: &str) -> Element {
    el("span").class(class).text(text).build()
}

fn action(class: &str, action: &str, label: &str, paths: &[&str]) -> El {
    el("button")
        .attr("type", "button")
        .class(class)
        .attr("data-action", action)
        .label(label)
        .child(icon(13, paths))
}

/// The row, a `listitem` of its registry's `list`.
pub(super) fn registry_row(row: RegistryRow<'_>) -> Element {
    let mut info = el("div")
        .class("reg-info")
        .child(el("div").class("reg-name").text(row.title));
    if !row.meta.is_empty() {
        info = info.child(el("div").class("reg-meta").text(row.meta));
    }
    el("div")
        .class("reg-item")
        .attr("role", "listitem")
        .attr(row.id_attribute, row.id)
        .child(info)
        .child(el("div").class("reg-badges").children(row.badges))
        .child(
            el("div")
                .class("reg-actions")
                .child(action("", "edit", row.edit_label, icons::PENCIL))
                .child(action("delete-btn", "delete", row.delete_label, icons::CLOSE)),
        )
        .build()
}
