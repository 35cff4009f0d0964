//! The panel's popups by keyboard: opening and closing a menu or disclosure
//! with its button (`aria-expanded` follows, focus goes back to the button
//! when the popup closes around it), arrow keys, Home and End among a
//! menu's items, Tab leaving a menu, and Tab kept inside an open dialog.
//!
//! A leaf of `shell/`: the header, the composer and the Edits control open
//! and close their popups here; `mod.rs` installs the one key listener.

use crate::dom::{self, by_id};
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};

/// The items of a menu that can take focus, in order.
const MENU_ITEMS: &str = "[role^='menuitem']:not([disabled]):not([aria-disabled='true'])";

/// What can take focus inside a dialog, in order.
const FOCUSABLE: &str = "button:not([disabled]), [href], input:not([disabled]):not([type='hidden']), \
                         select:not([disabled]), textarea:not([disabled]), summary, [tabindex='0']";

/// Opens or closes the popup `popup_id` of `button_id`. A popup that closes
/// while focus is inside it gives focus back to its button.
pub(super) fn set_open(popup_id: &str, button_id: &str, open: bool) {
    let button = by_id(button_id);
    if let Some(popup) = by_id(popup_id) {
        if !open && let Some(button) = &button {
            dom::keep_focus(&popup, button);
        }
        dom::set_hidden(&popup, !open);
    }
    if let Some(button) = button {
        let _ = button.set_attribute("aria-expanded", if open { "true" } else { "false" });
    }
}

pub(super) fn is_open(popup_id: &str) -> bool {
    by_id(popup_id).is_some_and(|popup| !dom::is_hidden(&popup))
}

fn items(menu: &Element) -> Vec<Element> {
    dom::query_all(menu, MENU_ITEMS)
}

/// Focuses a just-opened menu's checked item, else its first one.
pub(super) fn focus_first_item(menu_id: &str) {
    let Some(menu) = by_id(menu_id) else { return };
    let items = items(&menu);
    let checked = items
        .iter()
        .find(|item| item.get_attribute("aria-checked").as_deref() == Some("true"));
    if let Some(item) = checked.or(items.first()) {
        dom::focus(item);
    }
}

/// The open menu that holds the focus, and its button.
fn focused_menu() -> Option<(Element, Element)> {
    let active = dom::active_element()?;
    let menu = active.closest("[role='menu']").ok()??;
    if dom::is_hidden(&menu) {
        return None;
    }
    let button = dom::query_document(&format!("[aria-controls='{}']", menu.id()))
        .into_iter()
        .next()?;
    Some((menu, button))
}

/// Arrow keys, Home and End move among the focused menu's items (wrapping);
/// Tab closes it (Shift+Tab lands on its button). Whether the key was used.
fn menu_key(event: &KeyboardEvent) -> bool {
    let Some((menu, button)) = focused_menu() else {
        return false;
    };
    let key = event.key();
    if key == "Tab" {
        let (menu_id, button_id) = (menu.id(), button.id());
        set_open(&menu_id, &button_id, false);
        // Focus is on the button now: Tab goes on from there, Shift+Tab stays.
        return event.shift_key();
    }
    let items = items(&menu);
    let Some(last) = items.len().checked_sub(1) else {
        return false;
    };
    let current = dom::active_element().and_then(|active| items.iter().position(|item| *item == active));
    let next = match (key.as_str(), current) {
        ("ArrowDown", Some(index)) => (index + 1) % items.len(),
        ("ArrowUp", Some(index)) => index.checked_sub(1).unwrap_or(last),
        ("ArrowDown" | "Home", _) => 0,
        ("ArrowUp" | "End", _) => last,
        _ => return false,
    };
    if let Some(item) = items.get(next) {
        dom::focus(item);
    }
    true
}

/// ArrowDown or ArrowUp on a closed menu's button opens it on its first or
/// last item (the button's own click handler opens it).
fn menu_button_key(event: &KeyboardEvent) -> bool {
    let key = event.key();
    if key != "ArrowDown" && key != "ArrowUp" {
        return false;
    }
    let Some(button) = dom::active_element() else {
        return false;
    };
    if button.get_attribute("aria-haspopup").as_deref() != Some("menu")
        || button.get_attribute("aria-expanded").as_deref() == Some("true")
        || dom::is_disabled(&button)
    {
        return false;
    }
    let Some(menu) = button.get_attribute("aria-controls").and_then(|id| by_id(&id)) else {
        return false;
    };
    if let Some(html) = button.dyn_ref::<web_sys::HtmlElement>() {
        html.click();
    }
    if key == "ArrowUp"
        && let Some(item) = items(&menu).last()
    {
        dom::focus(item);
    }
    true
}

/// The dialog Tab must stay in: an open modal dialog, or the popover that
/// holds the focus.
fn trapping_dialog() -> Option<Element> {
    let modal = dom::query_document(".dialog-layer:not([hidden]) [role='dialog']")
        .into_iter()
        .next();
    modal.or_else(|| by_id("snapshot-menu").filter(|menu| !dom::is_hidden(menu) && dom::has_focus_within(menu)))
}

/// Tab and Shift+Tab wrap inside the dialog; focus outside it comes back in.
fn dialog_tab(event: &KeyboardEvent) -> bool {
    if event.key() != "Tab" {
        return false;
    }
    let Some(dialog) = trapping_dialog() else {
        return false;
    };
    let focusable: Vec<Element> = dom::query_all(&dialog, FOCUSABLE)
        .into_iter()
        .filter(|element| {
            element
                .dyn_ref::<web_sys::HtmlElement>()
                .is_some_and(|html| html.offset_parent().is_some())
        })
        .collect();
    let (Some(first), Some(last)) = (focusable.first(), focusable.last()) else {
        return false;
    };
    let active = dom::active_element();
    let inside = active.as_ref().is_some_and(|a| focusable.contains(a));
    let target = match (event.shift_key(), active) {
        (false, Some(a)) if inside && a == *last => first,
        (true, Some(a)) if inside && a == *first => last,
        _ if inside => return false,
        (false, _) => first,
        (true, _) => last,
    };
    dom::focus(target);
    true
}

/// The panel's one listener for popup keys (the chats, model, Context and
/// Edits menus, the dialogs).
pub(super) fn wire() {
    let Some(document) = dom::document() else { return };
    dom::on(&document, "keydown", |event| {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if key.is_composing() || key.alt_key() || key.ctrl_key() || key.meta_key() {
            return;
        }
        if dialog_tab(key) || menu_key(key) || menu_button_key(key) {
            event.prevent_default();
        }
    });
}
