//! A small builder for DOM nodes, so UI code reads as a tree and never
//! assigns HTML strings: every text goes in as a text node.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

/// The panel's document. The panel only runs in a page, so its absence is a
/// broken environment, reported as an error by callers.
pub fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// An element under construction.
pub struct El(Element);

/// Starts an element of `tag`. Tags are literals of this crate and the panel
/// always has a document, so a failure here is a programming error that the
/// browser tests catch, not something a user or page can cause.
pub fn el(tag: &str) -> El {
    #[allow(clippy::expect_used)]
    let element = document()
        .and_then(|d| d.create_element(tag).ok())
        .expect("the panel document creates elements of its own tag names");
    El(element)
}

impl El {
    pub fn id(self, id: &str) -> Self {
        self.0.set_id(id);
        self
    }

    pub fn class(self, class: &str) -> Self {
        self.0.set_class_name(class);
        self
    }

    /// Sets the text content (a text node; markup in `text` stays text).
    pub fn text(self, text: &str) -> Self {
        self.0.set_text_content(Some(text));
        self
    }

    pub fn attr(self, name: &str, value: &str) -> Self {
        // Attribute names are literals in this crate; a failure would be a typo.
        let _ = self.0.set_attribute(name, value);
        self
    }

    /// Sets `name` when `on`, for boolean attributes such as `hidden`.
    pub fn flag(self, name: &str, on: bool) -> Self {
        if on {
            let _ = self.0.set_attribute(name, "");
        }
        self
    }

    pub fn child(self, child: impl Into<Element>) -> Self {
        let _ = self.0.append_child(&child.into());
        self
    }

    pub fn children(self, children: impl IntoIterator<Item = Element>) -> Self {
        for child in children {
            let _ = self.0.append_child(&child);
        }
        self
    }

    pub fn build(self) -> Element {
        self.0
    }

    pub fn html(self) -> Option<HtmlElement> {
        self.0.dyn_into().ok()
    }
}

impl From<El> for Element {
    fn from(el: El) -> Element {
        el.0
    }
}

/// Shows or hides an element with the `hidden` attribute.
pub fn set_hidden(element: &Element, hidden: bool) {
    let _ = if hidden {
        element.set_attribute("hidden", "")
    } else {
        element.remove_attribute("hidden")
    };
}

pub fn by_id(id: &str) -> Option<Element> {
    document()?.get_element_by_id(id)
}
