//! DOM of the link confirmation: a click (or middle click) on a link in a
//! rendered answer that [`crate::links::decide`] does not let through opens
//! a dialog with the link's full destination, its site and why it is shown;
//! "Open link" opens it in a new tab, Cancel, Close and Escape do not.
//!
//! The dialog is the panel's ordinary confirmation dialog (`link-dialog-*`):
//! modal, labelled by its title and described by the reasons, focus on
//! Cancel when it opens and back on the link when it closes.

use crate::dom::{self, by_id, el};
use crate::links::{self, LinkDecision, LinkDisclosure};
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event, KeyboardEvent};

/// The links this module guards: those of rendered answers only (the
/// panel's own links, such as the About dialog's, are not model output).
const ANSWER_LINKS: &str = ".msg-content a[href]";

thread_local! {
    /// The destination waiting for confirmation and the link to refocus.
    static PENDING: RefCell<Option<(String, Element)>> = const { RefCell::new(None) };
}

fn part(name: &str) -> Option<Element> {
    by_id(&format!("link-dialog-{name}"))
}

fn open_dialog(href: String, disclosure: &LinkDisclosure, link: Element) {
    let (Some(layer), Some(subtitle), Some(body), Some(cancel)) =
        (part("layer"), part("subtitle"), part("body"), part("cancel"))
    else {
        return;
    };
    subtitle.set_text_content(Some(&disclosure.reasons.join(" ")));
    let site = el("p")
        .class("link-dialog-site")
        .text("Site: ")
        .child(el("strong").text(&disclosure.site))
        .build();
    let destination = el("code")
        .id("link-dialog-destination")
        .class("link-dialog-destination")
        .attr("tabindex", "0")
        .attr("aria-label", &format!("Full address: {}", disclosure.destination))
        .text(&disclosure.destination)
        .build();
    body.replace_children_with_node_2(&site, &destination);
    PENDING.with(|p| *p.borrow_mut() = Some((href, link)));
    dom::set_hidden(&layer, false);
    // The safe answer has the focus: Enter alone opens nothing.
    dom::focus(&cancel);
}

/// Closes the dialog (focus back on the link); true when it was open.
pub(crate) fn close_dialog() -> bool {
    let pending = PENDING.with(|p| p.borrow_mut().take());
    let Some(layer) = part("layer").filter(|layer| !dom::is_hidden(layer)) else {
        return false;
    };
    dom::set_hidden(&layer, true);
    if let Some((_, link)) = pending.filter(|(_, link)| link.is_connected()) {
        dom::focus(&link);
    }
    true
}

fn confirm() {
    let pending = PENDING.with(|p| p.borrow().as_ref().map(|(href, _)| href.clone()));
    if let Some(href) = pending
        && let Some(window) = web_sys::window()
    {
        let _ = window.open_with_url_and_target_and_features(&href, "_blank", "noopener,noreferrer");
    }
    close_dialog();
}

/// A click on an answer's link: let it through, or stop it and ask.
fn on_link_click(event: &Event) {
    let Some(link) = event
        .target()
        .and_then(|target| target.dyn_into::<Element>().ok())
        .and_then(|target| target.closest(ANSWER_LINKS).ok().flatten())
    else {
        return;
    };
    let href = link.get_attribute("href").unwrap_or_default();
    let label = link.text_content().unwrap_or_default();
    if let LinkDecision::Confirm(disclosure) = links::decide(&href, &label) {
        event.prevent_default();
        event.stop_propagation();
        open_dialog(href, &disclosure, link);
    }
}

pub(crate) fn wire() {
    if let Some(document) = dom::document() {
        // Capture: decided before anything else sees the click. A middle
        // click opens a tab without a `click` event, so `auxclick` too.
        for kind in ["click", "auxclick"] {
            let closure = wasm_bindgen::closure::Closure::<dyn FnMut(Event)>::new(|event: Event| on_link_click(&event));
            let _ = document.add_event_listener_with_callback_and_bool(kind, closure.as_ref().unchecked_ref(), true);
            closure.forget();
        }
    }
    dom::on_id("link-dialog-close", "click", |_| {
        close_dialog();
    });
    dom::on_id("link-dialog-cancel", "click", |_| {
        close_dialog();
    });
    dom::on_id("link-dialog-confirm", "click", |_| confirm());
    dom::on_id("link-dialog-layer", "keydown", |event| {
        if event
            .dyn_ref::<KeyboardEvent>()
            .is_some_and(|key| key.key() == "Escape")
            && close_dialog()
        {
            event.prevent_default();
            event.stop_propagation();
        }
    });
}
