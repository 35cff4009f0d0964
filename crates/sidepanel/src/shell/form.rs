//! What every settings form is built from and read through: buttons,
//! labelled fields and check boxes, sections, and the accessors that read
//! and fill controls by id.
//!
//! A leaf of `shell/`: the static layout (`layout.rs`,
//! `integrations_layout.rs`) and the settings views (`settings_panel.rs`,
//! `integrations_panel.rs`) take these from here, so the General, Models,
//! Tools and MCP forms look and behave alike.

use crate::dom::{self, El, el};
use web_sys::Element;

/// A `type="button"` button of `class`.
pub(super) fn button(class: &str) -> El {
    el("button").attr("type", "button").class(class)
}

/// A control with its visible label around it (the label names it).
pub(super) fn field(label: &str, control: Element) -> Element {
    el("label")
        .class("field")
        .child(el("span").class("field-label").text(label))
        .child(control)
        .build()
}

/// The id of the element that shows a control's problem.
pub(super) fn error_id(control_id: &str) -> String {
    format!("{control_id}-error")
}

/// A labelled control with the place beside it where its problem is shown
/// (`<id>-error`, referenced by `aria-describedby` while it says anything).
pub(super) fn checked_field(label: &str, control_id: &str, control: Element) -> Element {
    el("div")
        .class("field-group")
        .child(field(label, control))
        .child(
            el("p")
                .id(&error_id(control_id))
                .class("field-error")
                .flag("hidden", true),
        )
        .build()
}

/// A check box with its label.
pub(super) fn check_field(id: &str, label: &str) -> Element {
    el("label")
        .class("check-field")
        .child(el("input").id(id).attr("type", "checkbox"))
        .child(el("span").text(label))
        .build()
}

/// A single-line input without autocompletion or spell checking.
pub(super) fn text_input(id: &str, kind: &str, placeholder: &str) -> Element {
    el("input")
        .id(id)
        .attr("type", kind)
        .attr("placeholder", placeholder)
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .build()
}

/// A multi-line input for JSON.
pub(super) fn json_input(id: &str, rows: u32, placeholder: &str) -> Element {
    el("textarea")
        .id(id)
        .class("json-input")
        .attr("rows", &rows.to_string())
        .attr("placeholder", placeholder)
        .attr("spellcheck", "false")
        .attr("autocomplete", "off")
        .build()
}

/// A settings pane: the tab panel its tab names.
pub(super) fn settings_pane(name: &str) -> El {
    el("section")
        .class(if name == "general" {
            "settings-tab-pane active"
        } else {
            "settings-tab-pane"
        })
        .id(&format!("settings-pane-{name}"))
        .attr("data-pane", name)
        .attr("role", "tabpanel")
        .attr("aria-labelledby", &format!("settings-tab-{name}"))
        .flag("hidden", name != "general")
}

/// A titled group of a settings pane.
pub(super) fn section(label: &str, children: Vec<Element>) -> Element {
    el("div")
        .class("settings-section")
        .child(el("div").class("settings-label").text(label))
        .children(children)
        .build()
}

/// The value of an input, a text area or a select with this id.
pub(super) fn value(id: &str) -> String {
    if let Some(input) = dom::input(id) {
        return input.value();
    }
    if let Some(area) = dom::textarea(id) {
        return area.value();
    }
    dom::select(id).map(|s| s.value()).unwrap_or_default()
}

/// Sets the value of an input, a text area or a select with this id.
pub(super) fn set_value(id: &str, text: &str) {
    if let Some(input) = dom::input(id) {
        input.set_value(text);
    } else if let Some(area) = dom::textarea(id) {
        area.set_value(text);
    } else if let Some(select) = dom::select(id) {
        select.set_value(text);
    }
}

pub(super) fn checked(id: &str) -> bool {
    dom::input(id).is_some_and(|i| i.checked())
}

pub(super) fn set_checked(id: &str, on: bool) {
    if let Some(input) = dom::input(id) {
        input.set_checked(on);
    }
}

/// Shows `problem` beside the control `control_id` (or clears it): the
/// message element, `aria-invalid` and `aria-describedby` change together.
pub(super) fn show_problem(control_id: &str, problem: Option<&str>) {
    let error_id = error_id(control_id);
    if let Some(message) = dom::by_id(&error_id) {
        message.set_text_content(problem);
        dom::set_hidden(&message, problem.is_none());
    }
    let Some(control) = dom::by_id(control_id) else {
        return;
    };
    let _ = match problem {
        Some(_) => control
            .set_attribute("aria-invalid", "true")
            .and_then(|()| control.set_attribute("aria-describedby", &error_id)),
        None => control
            .remove_attribute("aria-invalid")
            .and_then(|()| control.remove_attribute("aria-describedby")),
    };
}
