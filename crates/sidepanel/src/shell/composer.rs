//! DOM of the composer: enabled states, Send/Stop, attachment chips, the
//! auto-growing input and the Context menu.

use super::{icons, popup};
use crate::app::ComposerState;
use crate::attachments::{Attachments, selection_chip_label};
use crate::dom::{self, by_id, el, icon};
use crate::shortcut;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Tallest the input grows before it scrolls.
pub(crate) const INPUT_MAX_HEIGHT_PX: i32 = 130;

fn each(selector: &str, mut f: impl FnMut(&Element)) {
    let Some(nodes) = dom::document().and_then(|d| d.query_selector_all(selector).ok()) else {
        return;
    };
    for index in 0..nodes.length() {
        if let Some(element) = nodes.item(index).and_then(|n| n.dyn_into::<Element>().ok()) {
            f(&element);
        }
    }
}

pub(crate) fn show(state: ComposerState) {
    if let Some(input) = by_id("user-input") {
        dom::set_disabled(&input, state.input_disabled);
    }
    if let Some(button) = by_id("add-context-btn") {
        dom::set_disabled(&button, state.input_disabled);
    }
    each(".add-context-opt, .empty-suggestion", |b| {
        dom::set_disabled(b, state.input_disabled)
    });
    if state.input_disabled {
        set_context_menu_open(false);
    }
    let label = if state.stop_mode {
        "Stop the run".to_owned()
    } else {
        shortcut::send_button_label(state.shortcut)
    };
    if let Some(send) = by_id("send-btn") {
        dom::set_disabled(&send, state.send_disabled);
        let was_stop = send.class_list().contains("is-stop");
        let _ = send.class_list().toggle_with_force("is-stop", state.stop_mode);
        let _ = send.set_attribute("title", &label);
        let _ = send.set_attribute("aria-label", &label);
        if was_stop != state.stop_mode || send.child_element_count() == 0 {
            dom::clear(&send);
            let _ = send.append_child(&icon(15, if state.stop_mode { icons::STOP } else { icons::SEND }));
        }
    }
    if let Some(hint) = by_id("send-shortcut-hint") {
        hint.set_text_content(Some(shortcut::label(state.shortcut)));
    }
}

/// Rebuilds the chips. Removal buttons carry `data-attachment-id`. Focus on
/// a removal button stays at its place in the row (the next chip's button,
/// else the last one, else the message input).
pub(crate) fn render_attachments(attachments: &Attachments) {
    let Some(root) = by_id("context-attachments") else {
        return;
    };
    let focused = dom::active_element().and_then(|active| {
        dom::query_all(&root, "[data-attachment-id]")
            .iter()
            .position(|button| *button == active)
    });
    dom::clear(&root);
    fill_attachments(&root, attachments);
    if let Some(index) = focused {
        let buttons = dom::query_all(&root, "[data-attachment-id]");
        match buttons.get(index).or(buttons.last()) {
            Some(button) => dom::focus(button),
            None => focus(),
        }
    }
}

fn fill_attachments(root: &Element, attachments: &Attachments) {
    for (index, selection) in attachments.selections.iter().enumerate() {
        let chip = el("div")
            .class("context-chip")
            .child(
                el("span")
                    .class("context-chip-label")
                    .attr("title", &selection.text)
                    .text(&selection_chip_label(index, selection)),
            )
            .child(
                el("button")
                    .attr("type", "button")
                    .class("context-chip-del")
                    .attr("data-attachment-id", &selection.id)
                    .label("Remove selection")
                    .child(icon(11, icons::CLOSE)),
            )
            .build();
        let _ = root.append_child(&chip);
    }
    for (index, preview) in attachments.previews.iter().enumerate() {
        let chip = el("div")
            .class("preview-chip")
            .child(
                el("img")
                    .attr("src", &preview.data_url)
                    .attr("alt", &format!("Attached image {}", index + 1)),
            )
            .child(
                el("button")
                    .attr("type", "button")
                    .class("preview-chip-del")
                    .attr("data-attachment-id", &preview.id)
                    .label("Remove image")
                    .child(icon(11, icons::CLOSE)),
            )
            .build();
        let _ = root.append_child(&chip);
    }
    dom::set_hidden(root, attachments.is_empty());
}

fn textarea() -> Option<web_sys::HtmlTextAreaElement> {
    dom::textarea("user-input")
}

/// Grows the input with its content, up to [`INPUT_MAX_HEIGHT_PX`].
pub(crate) fn autoresize() {
    let Some(input) = textarea() else {
        return;
    };
    let style = input.style();
    let _ = style.set_property("height", "auto");
    let height = input.scroll_height().min(INPUT_MAX_HEIGHT_PX);
    let _ = style.set_property("height", &format!("{height}px"));
}

pub(crate) fn text() -> String {
    textarea().map(|t| t.value()).unwrap_or_default()
}

pub(crate) fn clear() {
    if let Some(input) = textarea() {
        input.set_value("");
    }
    autoresize();
}

pub(crate) fn focus() {
    if let Some(input) = textarea().filter(|t| !t.disabled()) {
        let _ = input.focus();
    }
}

/// A suggestion only prefills the input; the user still sends.
pub(crate) fn prefill(prompt: &str) {
    let Some(input) = textarea().filter(|t| !t.disabled()) else {
        return;
    };
    input.set_value(prompt);
    autoresize();
    let _ = input.focus();
}

pub(crate) fn set_context_menu_open(open: bool) {
    popup::set_open("add-context-menu", "add-context-btn", open);
}

pub(crate) fn is_context_menu_open() -> bool {
    popup::is_open("add-context-menu")
}
