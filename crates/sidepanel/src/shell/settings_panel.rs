//! DOM of the settings panel: the General form, the model registry and the
//! model form. Reading a form returns the plain structs of
//! [`crate::settings`], which decide everything else.

use super::form::{checked, set_checked, set_value, value};
use super::registry_row::{RegistryRow, badge, registry_row};
use crate::app::SettingsTab;
use crate::dom::{self, by_id, el};
use crate::settings::{GeneralForm, ModelForm, ModelRecord, Settings};
use crate::shortcut;
use web_sys::Element;

/// Fills the General form. `with_text` is false while the user has unsaved
/// edits there, so a model change elsewhere does not erase them.
pub(crate) fn fill_general(settings: &Settings, with_text: bool) {
    if with_text {
        set_value("system-prompt", &settings.system_prompt);
        set_value("history-cap", &settings.max_history_messages.to_string());
        set_value("send-message-shortcut", settings.send_message_shortcut.as_str());
    }
    if let Some(select) = by_id("auto-name-model") {
        let chosen = if with_text {
            settings.auto_name_model().map(ModelRecord::id).unwrap_or_default()
        } else {
            value("auto-name-model")
        };
        dom::clear(&select);
        let _ = select.append_child(&el("option").attr("value", "").text("Off (never rename chats)").build());
        for model in &settings.models {
            let _ = select.append_child(&el("option").attr("value", &model.id()).text(&model.label()).build());
        }
        let known = settings.model(&chosen).is_some();
        set_value("auto-name-model", if known { &chosen } else { "" });
    }
    if let Some(hint) = by_id("send-shortcut-hint") {
        hint.set_text_content(Some(shortcut::label(settings.send_message_shortcut)));
    }
}

pub(crate) fn read_general() -> GeneralForm {
    GeneralForm {
        system_prompt: value("system-prompt"),
        history_cap: value("history-cap"),
        auto_name_model_id: value("auto-name-model"),
        send_message_shortcut: value("send-message-shortcut"),
    }
}

/// Rebuilds `#model-registry`.
pub(crate) fn render_registry(settings: &Settings) {
    let Some(root) = by_id("model-registry") else {
        return;
    };
    dom::clear(&root);
    // A list while it has rows; its empty note is not a list item.
    let _ = if settings.models.is_empty() {
        root.remove_attribute("role")
    } else {
        root.set_attribute("role", "list")
    };
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
        let mut badges = Vec::new();
        if model.supports_vision() {
            badges.push(badge("badge ok", "vision"));
        }
        if let Some(effort) = model.reasoning_effort() {
            badges.push(badge("badge accent", &effort));
        }
        let row = registry_row(RegistryRow {
            id_attribute: "data-model-id",
            id: &model.id(),
            title: &model.label(),
            meta: &model.summary(),
            badges,
            edit_label: "Edit model",
            delete_label: "Delete model",
        });
        let _ = root.append_child(&row);
    }
}

/// Shows the model form filled for `record` (editing) or empty (adding).
pub(crate) fn open_model_form(record: Option<&ModelRecord>) {
    let form = ModelForm::for_record(record);
    if let Some(title) = by_id("model-form-title") {
        title.set_text_content(Some(if record.is_some() { "Edit model" } else { "Add model" }));
    }
    set_value("model-form-id", &form.id);
    set_value("mf-name", &form.name);
    set_value("mf-base-url", &form.api_base_url);
    set_checked("mf-insecure", form.insecure_confirmed);
    set_value("mf-api-key", &form.api_key);
    set_value("mf-model-id", &form.model_id);
    set_checked("mf-vision", form.supports_vision);
    set_value("mf-reasoning-effort", &form.reasoning_effort);
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

/// Closes the model form. Focus that was in it goes back to what opened it:
/// the edited model's Edit button, else Add model.
pub(crate) fn close_model_form() {
    let Some(form) = by_id("model-form") else {
        return;
    };
    let had_focus = dom::has_focus_within(&form);
    dom::set_hidden(&form, true);
    let add = by_id("add-model-btn");
    if let Some(add) = &add {
        dom::set_hidden(add, false);
    }
    if !had_focus {
        return;
    }
    let edited = value("model-form-id");
    let edit = dom::query_document("#model-registry [data-model-id]")
        .into_iter()
        .find(|row| !edited.is_empty() && row.get_attribute("data-model-id").as_deref() == Some(edited.as_str()))
        .and_then(|row| row.query_selector("[data-action='edit']").ok().flatten());
    if let Some(target) = edit.or(add) {
        dom::focus(&target);
    }
}

pub(crate) fn read_model_form() -> ModelForm {
    ModelForm {
        id: value("model-form-id"),
        name: value("mf-name"),
        api_base_url: value("mf-base-url"),
        insecure_confirmed: checked("mf-insecure"),
        api_key: value("mf-api-key"),
        model_id: value("mf-model-id"),
        supports_vision: checked("mf-vision"),
        reasoning_effort: value("mf-reasoning-effort"),
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

/// Opens or closes the settings panel; focus inside a closing panel goes
/// to the Settings button.
pub(crate) fn set_open(open: bool) {
    if let Some(panel) = by_id("settings-panel") {
        if !open && let Some(toggle) = by_id("settings-toggle") {
            dom::keep_focus(&panel, &toggle);
        }
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

/// The settings tabs in their order: the tab, its `data-tab` name (also
/// in the ids `settings-tab-<name>` and `settings-pane-<name>`) and label.
pub(super) const TABS: [(SettingsTab, &str, &str); 5] = [
    (SettingsTab::General, "general", "General"),
    (SettingsTab::Models, "models", "Models"),
    (SettingsTab::Tools, "tools", "Tools"),
    (SettingsTab::Mcp, "mcp", "MCP"),
    (SettingsTab::Sessions, "sessions", "Sessions"),
];

/// Arrow keys, Home and End on a focused tab: the tab to show and focus.
pub(crate) fn tab_for_key(focused: &Element, key: &str) -> Option<SettingsTab> {
    let name = focused.get_attribute("data-tab")?;
    let index = TABS.iter().position(|(_, n, _)| *n == name)?;
    let next = match key {
        "ArrowRight" => (index + 1) % TABS.len(),
        "ArrowLeft" => index.checked_sub(1).unwrap_or(TABS.len() - 1),
        "Home" => 0,
        "End" => TABS.len() - 1,
        _ => return None,
    };
    TABS.get(next).map(|(tab, _, _)| *tab)
}

/// Focuses the tab button of `tab`.
pub(crate) fn focus_tab(tab: SettingsTab) {
    if let Some(button) = TABS
        .iter()
        .find(|(t, _, _)| *t == tab)
        .and_then(|(_, name, _)| by_id(&format!("settings-tab-{name}")))
    {
        dom::focus(&button);
    }
}

/// Shows one settings tab.
pub(crate) fn show_tab(tab: SettingsTab) {
    let Some(name) = TABS.iter().find(|(t, _, _)| *t == tab).map(|(_, name, _)| *name) else {
        return;
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
