//! A small builder for DOM nodes, so UI code reads as a tree and never
//! assigns HTML strings: every text goes in as a text node.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

/// The panel's document. The panel only runs in a page, so its absence is a
/// broken environment, reported as an error by callers.
pub(crate) fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// An element under construction.
pub(crate) struct El(Element);

/// Starts an element of `tag`. Tags are literals of this crate and the panel
/// always has a document, so a failure here is a programming error that the
/// browser tests catch, not something a user or page can cause.
pub(crate) fn el(tag: &str) -> El {
    #[allow(clippy::expect_used)]
    let element = document()
        .and_then(|d| d.create_element(tag).ok())
        .expect("the panel document creates elements of its own tag names");
    El(element)
}

impl El {
    pub(crate) fn id(self, id: &str) -> Self {
        self.0.set_id(id);
        self
    }

    pub(crate) fn class(self, class: &str) -> Self {
        self.0.set_class_name(class);
        self
    }

    /// Sets the text content (a text node; markup in `text` stays text).
    pub(crate) fn text(self, text: &str) -> Self {
        self.0.set_text_content(Some(text));
        self
    }

    pub(crate) fn attr(self, name: &str, value: &str) -> Self {
        // Attribute names are literals in this crate; a failure would be a typo.
        let _ = self.0.set_attribute(name, value);
        self
    }

    /// Sets `name` when `on`, for boolean attributes such as `hidden`.
    pub(crate) fn flag(self, name: &str, on: bool) -> Self {
        if on {
            let _ = self.0.set_attribute(name, "");
        }
        self
    }

    pub(crate) fn child(self, child: impl Into<Element>) -> Self {
        let _ = self.0.append_child(&child.into());
        self
    }

    pub(crate) fn children(self, children: impl IntoIterator<Item = Element>) -> Self {
        for child in children {
            let _ = self.0.append_child(&child);
        }
        self
    }

    pub(crate) fn build(self) -> Element {
        self.0
    }
}

impl From<El> for Element {
    fn from(el: El) -> Element {
        el.0
    }
}

/// A text node of the panel's document (markup in `text` stays text).
pub(crate) fn text_node(text: &str) -> Option<web_sys::Text> {
    Some(document()?.create_text_node(text))
}

/// The elements under `root` matching `selector`.
pub(crate) fn query_all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(nodes) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|index| nodes.get(index)?.dyn_into::<Element>().ok())
        .collect()
}

/// The elements of the panel's document matching `selector`.
pub(crate) fn query_document(selector: &str) -> Vec<Element> {
    let Some(nodes) = document().and_then(|d| d.query_selector_all(selector).ok()) else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|index| nodes.item(index)?.dyn_into::<Element>().ok())
        .collect()
}

/// Shows or hides an element with the `hidden` attribute.
pub(crate) fn set_hidden(element: &Element, hidden: bool) {
    let _ = if hidden {
        element.set_attribute("hidden", "")
    } else {
        element.remove_attribute("hidden")
    };
}

pub(crate) fn by_id(id: &str) -> Option<Element> {
    document()?.get_element_by_id(id)
}

impl El {
    /// Sets `aria-label` and `title` together (icon buttons need both).
    pub(crate) fn label(self, label: &str) -> Self {
        self.attr("aria-label", label).attr("title", label)
    }

    /// Appends a text node after the existing children.
    pub(crate) fn append_text(self, text: &str) -> Self {
        if let Some(node) = document().map(|d| d.create_text_node(text)) {
            let _ = self.0.append_child(&node);
        }
        self
    }
}

const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";

/// A 24×24 stroked line icon drawn from `paths` (SVG path data written for
/// this panel). Decorative: hidden from assistive technology.
pub(crate) fn icon(size: u32, paths: &[&str]) -> Element {
    let size = size.to_string();
    let Some(document) = document() else {
        return el("span").build();
    };
    let Ok(svg) = document.create_element_ns(Some(SVG_NAMESPACE), "svg") else {
        return el("span").build();
    };
    for (name, value) in [
        ("width", size.as_str()),
        ("height", size.as_str()),
        ("viewBox", "0 0 24 24"),
        ("fill", "none"),
        ("stroke", "currentColor"),
        ("stroke-width", "2"),
        ("stroke-linecap", "round"),
        ("stroke-linejoin", "round"),
        ("aria-hidden", "true"),
        ("focusable", "false"),
    ] {
        let _ = svg.set_attribute(name, value);
    }
    for d in paths {
        if let Ok(path) = document.create_element_ns(Some(SVG_NAMESPACE), "path") {
            let _ = path.set_attribute("d", d);
            let _ = svg.append_child(&path);
        }
    }
    svg
}

/// Adds a listener that lives as long as the page (for elements built once).
pub(crate) fn on(target: &web_sys::EventTarget, event: &str, handler: impl FnMut(web_sys::Event) + 'static) {
    let closure = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

/// `on` for an element looked up by id, when it exists.
pub(crate) fn on_id(id: &str, event: &str, handler: impl FnMut(web_sys::Event) + 'static) {
    if let Some(element) = by_id(id) {
        on(&element, event, handler);
    }
}

/// The closest element (from the event target up) carrying `attribute`,
/// and that attribute's value: the delegated-click lookup.
pub(crate) fn closest_with(event: &web_sys::Event, attribute: &str) -> Option<(Element, String)> {
    let target: Element = event.target()?.dyn_into().ok()?;
    let found = target.closest(&format!("[{attribute}]")).ok()??;
    let value = found.get_attribute(attribute)?;
    Some((found, value))
}

/// Removes every child of `element`.
pub(crate) fn clear(element: &Element) {
    while let Some(child) = element.first_child() {
        let _ = element.remove_child(&child);
    }
}

pub(crate) fn input(id: &str) -> Option<web_sys::HtmlInputElement> {
    by_id(id)?.dyn_into().ok()
}

pub(crate) fn textarea(id: &str) -> Option<web_sys::HtmlTextAreaElement> {
    by_id(id)?.dyn_into().ok()
}

pub(crate) fn select(id: &str) -> Option<web_sys::HtmlSelectElement> {
    by_id(id)?.dyn_into().ok()
}

/// Whether a control carries the `disabled` attribute.
pub(crate) fn is_disabled(element: &Element) -> bool {
    element.has_attribute("disabled")
}

/// Sets `disabled` on a form control of any kind.
pub(crate) fn set_disabled(element: &Element, disabled: bool) {
    let _ = if disabled {
        element.set_attribute("disabled", "")
    } else {
        element.remove_attribute("disabled")
    };
}

pub(crate) fn is_hidden(element: &Element) -> bool {
    element.has_attribute("hidden")
}

pub(crate) fn focus(element: &Element) {
    if let Some(html) = element.dyn_ref::<HtmlElement>() {
        let _ = html.focus();
    }
}

/// The focused element, unless focus is nowhere in particular (the body).
pub(crate) fn active_element() -> Option<Element> {
    let document = document()?;
    let active = document.active_element()?;
    let body: Option<Element> = document.body().map(Into::into);
    (Some(&active) != body.as_ref()).then_some(active)
}

/// Whether focus is on `container` or inside it.
pub(crate) fn has_focus_within(container: &Element) -> bool {
    active_element().is_some_and(|active| container.contains(Some(active.as_ref())))
}

/// Before `container` hides or loses the focused control: focus `fallback`
/// when focus is inside, so it does not fall back to the page's start.
pub(crate) fn keep_focus(container: &Element, fallback: &Element) {
    if has_focus_within(container) && fallback.is_connected() {
        focus(fallback);
    }
}
