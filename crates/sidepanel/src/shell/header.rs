//! The header's menus: the chats of the project (switch, inline rename,
//! delete, new) and the models (select). Rows are rebuilt from data; clicks
//! reach one delegated listener per list, so rebuilding leaks nothing.

use super::icons;
use crate::dom::{self, by_id, el, icon};
use crate::sessions::{RENAME_MAX_CHARS, SessionMeta};
use crate::settings::Settings;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// Rebuilds `#session-list`.
pub(crate) fn render_sessions(sessions: &[SessionMeta], current: Option<&str>) {
    let Some(list) = by_id("session-list") else {
        return;
    };
    dom::clear(&list);
    if sessions.is_empty() {
        let _ = list.append_child(&el("div").class("dropdown-empty").text("No chats yet").build());
        return;
    }
    for session in sessions {
        let active = current == Some(session.id.as_str());
        let item = el("div")
            .class(if active {
                "dropdown-item session-item active"
            } else {
                "dropdown-item session-item"
            })
            .attr("role", "listitem")
            .attr("data-session-id", &session.id)
            .child(
                el("button")
                    .attr("type", "button")
                    .class("dropdown-item-name")
                    .attr("data-action", "open")
                    .attr("title", "Open (double-click to rename)")
                    .text(session.display_name()),
            )
            .child(
                el("button")
                    .attr("type", "button")
                    .class("dropdown-item-rename")
                    .attr("data-action", "rename")
                    .label("Rename chat")
                    .child(icon(12, icons::PENCIL)),
            )
            .child(
                el("button")
                    .attr("type", "button")
                    .class("dropdown-item-del")
                    .attr("data-action", "delete")
                    .label("Delete chat")
                    .child(icon(12, icons::CLOSE)),
            )
            .build();
        let _ = list.append_child(&item);
    }
}

/// Replaces the row's name with an input. `finish(Some(text))` commits
/// (Enter or leaving the field), `finish(None)` cancels (Escape); it runs
/// once.
pub(crate) fn begin_rename(item: &Element, name: &str, finish: impl Fn(Option<String>) + 'static) {
    if item.class_list().contains("renaming") {
        return;
    }
    let Some(label) = item.query_selector(".dropdown-item-name").ok().flatten() else {
        return;
    };
    let _ = item.class_list().add_1("renaming");
    let input_el = el("input")
        .class("dropdown-item-rename-input")
        .attr("type", "text")
        .attr("maxlength", &RENAME_MAX_CHARS.to_string())
        .attr("spellcheck", "false")
        .attr("aria-label", "Chat name")
        .build();
    let Ok(input) = input_el.clone().dyn_into::<web_sys::HtmlInputElement>() else {
        return;
    };
    input.set_value(name);
    let _ = label.replace_with_with_node_1(&input_el);
    let _ = input.focus();
    input.select();

    let done = std::rc::Rc::new(std::cell::Cell::new(false));
    let finish = std::rc::Rc::new(finish);
    let end = {
        let done = done.clone();
        let input = input.clone();
        move |commit: bool| {
            if done.replace(true) {
                return;
            }
            finish(commit.then(|| input.value()));
        }
    };
    let on_key = end.clone();
    dom::on(&input_el, "keydown", move |event| {
        let Some(key) = event
            .dyn_ref::<web_sys::KeyboardEvent>()
            .map(web_sys::KeyboardEvent::key)
        else {
            return;
        };
        match key.as_str() {
            "Enter" => {
                event.prevent_default();
                on_key(true);
            }
            "Escape" => {
                event.prevent_default();
                // The panel's own Escape handling must not close more.
                event.stop_propagation();
                on_key(false);
            }
            _ => {}
        }
    });
    dom::on(&input_el, "blur", move |_| end(true));
    dom::on(&input_el, "click", |event| event.stop_propagation());
}

/// The header's model button and `#model-list`.
pub(crate) fn render_models(settings: &Settings) {
    if let Some(name) = by_id("model-name") {
        let label = settings
            .active_model()
            .map_or_else(|| "No model".to_owned(), |m| m.label());
        name.set_text_content(Some(&label));
    }
    let Some(list) = by_id("model-list") else {
        return;
    };
    dom::clear(&list);
    if settings.models.is_empty() {
        let _ = list.append_child(
            &el("div")
                .class("dropdown-empty")
                .text("No models yet: add one in Settings → Models.")
                .build(),
        );
        return;
    }
    let active = settings.active_model().map(|m| m.id());
    for model in &settings.models {
        let id = model.id();
        let mut item = el("button")
            .attr("type", "button")
            .class(if active.as_deref() == Some(id.as_str()) {
                "dropdown-item active"
            } else {
                "dropdown-item"
            })
            .attr("data-model-id", &id)
            .attr("role", "listitem")
            .child(el("span").class("dropdown-item-name").text(&model.label()));
        if model.supports_vision() {
            item = item.child(
                el("span")
                    .class("vision-badge")
                    .attr("title", "Accepts images")
                    .text("V"),
            );
        }
        let _ = list.append_child(&item.build());
    }
}

/// Opens or closes a header menu and mirrors it on its button.
pub(crate) fn set_menu_open(menu_id: &str, button_id: &str, open: bool) {
    if let Some(menu) = by_id(menu_id) {
        dom::set_hidden(&menu, !open);
    }
    if let Some(button) = by_id(button_id) {
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
    }
}

pub(crate) fn is_menu_open(menu_id: &str) -> bool {
    by_id(menu_id).is_some_and(|menu| !dom::is_hidden(&menu))
}
