//! DOM of the settings panel: the General form, the model registry and the
//! model form. Reading a form returns the plain structs of
//! [`crate::settings`], which decide everything else.

use super::icons;
use crate::app::SettingsTab;
use crate::dom::{self, by_id, el, icon};
use crate::settings::{GeneralForm, ModelForm, ModelRecord, Settings};
use crate::shortcut;
use web_sys::Element;

fn input_value(id: &str) -> String {
    dom::input(id).map(|i| i.value()).unwrap_or_default()
}

fn set_input(id: &str, value: &str) {
    if let Some(input) = dom::input(id) {
        input.set_value(value);
    }
}

fn checked(id: &str) -> bool {
    dom::input(id).is_some_and(|i| i.checked())
}

fn set_checked(id: &str, on: bool) {
    if let Some(input) = dom::input(id) {
        input.set_checked(on);
    }
}

fn select_value(id: &str) -> String {
    dom::select(id).map(|s| s.value()).unwrap_or_default()
}

fn set_select(id: &str, value: &str) {
    if let Some(select) = dom::select(id) {
        select.set_value(value);
    }
}

/// Fills the General form. `with_text` is false while the user has unsaved
/// edits there, so a model change elsewhere does not erase them.
pub(crate) fn fill_general(settings: &Settings, with_text: bool) {
    if with_text {
        if let Some(prompt) = dom::textarea("system-prompt") {
            prompt.set_value(&settings.system_prompt);
        }
        set_input("history-cap", &settings.max_history_messages.to_string());
        set_select("send-message-shortcut", settings.send_message_shortcut.as_str());
    }
    if let Some(select) = by_id("auto-name-model") {
        let chosen = if with_text {
            settings.auto_name_model().map(ModelRecord::id).unwrap_or_default()
        } else {
            select_value("auto-name-model")
        };
        dom::clear(&select);
        let _ = select.append_child(&el("option").attr("value", "").text("Off (never rename chats)").build());
        for model in &settings.models {
            let _ = select.append_child(&el("option").attr("value", &model.id()).text(&model.label()).build());
        }
        let known = settings.model(&chosen).is_some();
        set_select("auto-name-model", if known { &chosen } else { "" });
    }
    if let Some(hint) = by_id("send-shortcut-hint") {
        hint.set_text_content(Some(shortcut::label(settings.send_message_shortcut)));
    }
}

pub(crate) fn read_general() -> GeneralForm {
    GeneralForm {
        system_prompt: dom::textarea("system-prompt").map(|t| t.value()).unwrap_or_default(),
        history_cap: input_value("history-cap"),
        auto_name_model_id: select_value("auto-name-model"),
        send_message_shortcut: select_value("send-message-shortcut"),
    }
}

fn badge(class: &str, text: &str) -> Element {
    el("span").class(class).text(text).build()
}

/// Rebuilds `#model-registry`.
pub(crate) fn render_registry(settings: &Settings) {
    let Some(root) = by_id("model-registry") else {
        return;
    };
    dom::clear(&root);
    if settings.models.is_empty() {
        let _ = root.append_child(
            &el("p")
                .class("settings-help")
                .text("No models yet. Add one to start chatting.")
                .build(),
        );
        return;
    }
    for model in &settings.models {
        let mut badges = el("div").class("model-reg-badges");
        if model.supports_vision() {
            badges = badges.child(badge("badge ok", "vision"));
        }
        if let Some(effort) = model.reasoning_effort() {
            badges = badges.child(badge("badge accent", &effort));
        }
        let row = el("div")
            .class("model-reg-item")
            .attr("role", "listitem")
            .attr("data-model-id", &model.id())
            .child(
                el("div")
                    .class("model-reg-info")
                    .child(el("div").class("model-reg-name").text(&model.label()))
                    .child(el("div").class("model-reg-url").text(&model.summary())),
            )
            .child(badges)
            .child(
                el("div")
                    .class("model-reg-actions")
                    .child(
                        el("button")
                            .attr("type", "button")
                            .attr("data-action", "edit")
                            .label("Edit model")
                            .child(icon(13, icons::PENCIL)),
                    )
                    .child(
                        el("button")
                            .attr("type", "button")
                            .class("delete-btn")
                            .attr("data-action", "delete")
                            .label("Delete model")
                            .child(icon(13, icons::CLOSE)),
                    ),
            )
            .build();
        let _ = root.append_child(&row);
    }
}

/// Shows the model form filled for `record` (editing) or empty (adding).
pub(crate) fn open_model_form(record: Option<&ModelRecord>) {
    let form = ModelForm::for_record(record);
    if let Some(title) = by_id("model-form-title") {
        title.set_text_content(Some(if record.is_some() { "Edit model" } else { "Add model" }));
    }
    set_input("model-form-id", &form.id);
    set_input("mf-name", &form.name);
    set_input("mf-base-url", &form.api_base_url);
    set_checked("mf-insecure", form.insecure_confirmed);
    set_input("mf-api-key", &form.api_key);
    set_input("mf-model-id", &form.model_id);
    set_checked("mf-vision", form.supports_vision);
    set_select("mf-reasoning-effort", &form.reasoning_effort);
    if let Some(element) = by_id("model-form") {
        dom::set_hidden(&element, false);
    }
    if let Some(add) = by_id("add-model-btn") {
        dom::set_hidden(&add, true);
    }
    if let Some(name) = by_id("mf-name") {
        dom::focus(&name);
    }
}

pub(crate) fn close_model_form() {
    if let Some(element) = by_id("model-form") {
        dom::set_hidden(&element, true);
    }
    if let Some(add) = by_id("add-model-btn") {
        dom::set_hidden(&add, false);
    }
}

pub(crate) fn read_model_form() -> ModelForm {
    ModelForm {
        id: input_value("model-form-id"),
        name: input_value("mf-name"),
        api_base_url: input_value("mf-base-url"),
        insecure_confirmed: checked("mf-insecure"),
        api_key: input_value("mf-api-key"),
        model_id: input_value("mf-model-id"),
        supports_vision: checked("mf-vision"),
        reasoning_effort: select_value("mf-reasoning-effort"),
    }
}

/// The cleartext acknowledgement binds one origin: editing the URL clears it.
pub(crate) fn untick_insecure() {
    set_checked("mf-insecure", false);
}

pub(crate) fn show_theme(theme: &str) {
    if let Some(root) = dom::document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
    let Some(switch) = by_id("theme-switch") else {
        return;
    };
    let Ok(buttons) = switch.query_selector_all(".seg-opt") else {
        return;
    };
    for index in 0..buttons.length() {
        let Some(button) = buttons
            .item(index)
            .and_then(|n| wasm_bindgen::JsCast::dyn_into::<Element>(n).ok())
        else {
            continue;
        };
        let active = button.get_attribute("data-theme").as_deref() == Some(theme);
        let _ = button.class_list().toggle_with_force("active", active);
        let _ = button.set_attribute("aria-pressed", if active { "true" } else { "false" });
    }
}

/// Opens or closes the settings panel.
pub(crate) fn set_open(open: bool) {
    if let Some(panel) = by_id("settings-panel") {
        let _ = panel.class_list().toggle_with_force("collapsed", !open);
        dom::set_hidden(&panel, !open);
    }
    if let Some(toggle) = by_id("settings-toggle") {
        let _ = toggle.class_list().toggle_with_force("active", open);
        let _ = toggle.set_attribute("aria-expanded", if open { "true" } else { "false" });
    }
}

pub(crate) fn is_open() -> bool {
    by_id("settings-panel").is_some_and(|p| !dom::is_hidden(&p))
}

/// Shows one settings tab.
pub(crate) fn show_tab(tab: SettingsTab) {
    let name = match tab {
        SettingsTab::General => "general",
        SettingsTab::Models => "models",
    };
    let Some(document) = dom::document() else {
        return;
    };
    for (selector, attribute) in [(".settings-tab", "data-tab"), (".settings-tab-pane", "data-pane")] {
        let Ok(nodes) = document.query_selector_all(selector) else {
            continue;
        };
        for index in 0..nodes.length() {
            let Some(node) = nodes
                .item(index)
                .and_then(|n| wasm_bindgen::JsCast::dyn_into::<Element>(n).ok())
            else {
                continue;
            };
            let active = node.get_attribute(attribute).as_deref() == Some(name);
            let _ = node.class_list().toggle_with_force("active", active);
            if attribute == "data-tab" {
                let _ = node.set_attribute("aria-selected", if active { "true" } else { "false" });
            } else {
                dom::set_hidden(&node, !active);
            }
        }
    }
}
