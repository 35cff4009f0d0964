//! The header's menus: the chats of the project (switch, inline rename,
//! delete, new) and the models (select). Rows are rebuilt from data; clicks
//! reach one delegated listener per list, so rebuilding leaks nothing.

use super::icons;
use crate::dom::{self, by_id, el, icon};
use crate::sessions::{RENAME_MAX_CHARS, SessionMeta};
use crate::settings::Settings;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The row and action (`open`, `rename`, `delete`) that hold the focus in
/// `list`; the rename field counts as its row's Rename button.
fn focused_row(list: &Element) -> Option<(String, String)> {
    let active = dom::active_element().filter(|active| list.contains(Some(active.as_ref())))?;
    let row = active.closest("[data-session-id]").ok()??;
    let action = if active.class_list().contains("dropdown-item-rename-input") {
        "rename".to_owned()
    } else {
        active.get_attribute("data-action")?
    };
    Some((row.get_attribute("data-session-id")?, action))
}

/// After a rebuild, focus goes back to the same row and action; a row that
/// went (deleted) hands it to the row now in its place, else to New chat.
fn restore_focus(list: &Element, before: &[String], (id, action): (String, String)) {
    let rows = dom::query_all(list, "[data-session-id]");
    let same = rows
        .iter()
        .find(|row| row.get_attribute("data-session-id").as_deref() == Some(id.as_str()));
    let (row, action) = match same {
        Some(row) => (Some(row), action.as_str()),
        None => {
            let index = before.iter().position(|known| *known == id).unwrap_or(0);
            (rows.get(index).or(rows.last()), "open")
        }
    };
    let target = row
        .and_then(|row| row.query_selector(&format!("[data-action='{action}']")).ok().flatten())
        .or_else(|| by_id("session-new"));
    if let Some(target) = target {
        dom::focus(&target);
    }
}

/// Rebuilds `#session-list`, keeping the keyboard user's place in it.
pub(crate) fn render_sessions(sessions: &[SessionMeta], current: Option<&str>) {
    let Some(list) = by_id("session-list") else {
        return;
    };
    let focus = focused_row(&list);
    let before: Vec<String> = dom::query_all(&list, "[data-session-id]")
        .iter()
        .filter_map(|row| row.get_attribute("data-session-id"))
        .collect();
    fill_sessions(&list, sessions, current);
    if let Some(focus) = focus {
        restore_focus(&list, &before, focus);
    }
}

fn fill_sessions(list: &Element, sessions: &[SessionMeta], current: Option<&str>) {
    dom::clear(list);
    if sessions.is_empty() {
        let _ = list.append_child(
            &el("div")
                .class("dropdown-empty")
                .attr("role", "listitem")
                .text("No chats yet")
                .build(),
        );
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
    let focused = dom::active_element()
        .filter(|active| list.contains(Some(active.as_ref())))
        .and_then(|active| active.get_attribute("data-model-id"));
    fill_models(&list, settings);
    // A redraw under the keyboard user keeps their place in the menu.
    if let Some(item) = focused.and_then(|id| {
        dom::query_all(&list, "[data-model-id]")
            .into_iter()
            .find(|item| item.get_attribute("data-model-id").as_deref() == Some(id.as_str()))
    }) {
        dom::focus(&item);
    }
}

fn fill_models(list: &Element, settings: &Settings) {
    dom::clear(list);
    if settings.models.is_empty() {
        // A menu always has an item: this one says why there is no other.
        let _ = list.append_child(
            &el("div")
                .class("dropdown-empty")
                .attr("role", "menuitem")
                .attr("aria-disabled", "true")
                .text("No models yet: add one in Settings → Models.")
                .build(),
        );
        return;
    }
    let active = settings.active_model().map(|m| m.id());
    for model in &settings.models {
        let id = model.id();
        let checked = active.as_deref() == Some(id.as_str());
        let mut item = el("button")
            .attr("type", "button")
            .class(if checked {
                "dropdown-item active"
            } else {
                "dropdown-item"
            })
            .attr("data-model-id", &id)
            .attr("role", "menuitemradio")
            .attr("aria-checked", if checked { "true" } else { "false" })
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
