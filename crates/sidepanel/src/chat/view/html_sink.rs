//! THE PANEL'S ONLY HTML SINK: the one place a string of HTML becomes DOM.
//!
//! Its only input is the sanitised, audited output of
//! `chat::markdown::render` (the model's Markdown: a whole text, or the
//! closed blocks of a streaming one that `chat::incremental::IncrementalMarkdown`
//! passed through that same function). A `<template>` element
//! parses that string inertly (no script runs, nothing loads), then every
//! element of the result is audited a second time against the same
//! allowlist; only then does `block_groups.rs` adopt the fragment into the
//! page. Anything refused at any step is shown as plain text instead. No
//! other code in the panel assigns an HTML string: everything else goes in
//! as text nodes.

use crate::chat::markdown::{self, MarkdownError};
use crate::dom;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DocumentFragment, Element, HtmlTemplateElement};

const HTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";

/// `text` rendered as Markdown, parsed and audited: the fragment to adopt,
/// or why it must be shown as plain text.
pub(super) fn markdown_fragment(text: &str) -> Result<DocumentFragment, MarkdownError> {
    markdown::render(text).and_then(|html| rendered_fragment(&html))
}

/// Logs why rendered Markdown is shown as text (the caller shows it).
pub(super) fn warn_refused(error: &MarkdownError) {
    web_sys::console::warn_1(&JsValue::from_str(&format!(
        "Typst Side Agent: Markdown shown as text ({}): {error}",
        error.code()
    )));
}

/// THE ONLY PLACE THE PANEL PARSES AN HTML STRING. Its input is the
/// sanitised, audited output of `chat::markdown::render`; a `<template>`
/// parses it inertly (no script runs, nothing loads), and every element of
/// the result is checked against the same allowlist before it is adopted.
pub(super) fn rendered_fragment(html: &str) -> Result<DocumentFragment, MarkdownError> {
    let template: HtmlTemplateElement = dom::document()
        .and_then(|d| d.create_element("template").ok())
        .and_then(|t| t.dyn_into().ok())
        .ok_or(MarkdownError::Malformed)?;
    template.set_inner_html(html);
    let fragment = template.content();
    audit_fragment(&fragment)?;
    Ok(fragment)
}

/// Walks every element of `fragment` (iteratively: answers can nest deeply).
fn audit_fragment(fragment: &DocumentFragment) -> Result<(), MarkdownError> {
    let mut stack: Vec<Element> = Vec::new();
    let mut next = fragment.first_element_child();
    while let Some(element) = next {
        next = element.next_element_sibling();
        stack.push(element);
    }
    while let Some(element) = stack.pop() {
        let name = element.local_name();
        if element.namespace_uri().as_deref() != Some(HTML_NAMESPACE) {
            return Err(MarkdownError::ForbiddenElement(name));
        }
        markdown::element_allowed(&name)?;
        let mut has_href = false;
        // Most elements carry none: one call instead of a list of names.
        let attributes = if element.has_attributes() {
            element.get_attribute_names()
        } else {
            js_sys::Array::new()
        };
        for attribute in attributes.iter() {
            let attribute = attribute.as_string().unwrap_or_default();
            let value = element.get_attribute(&attribute).unwrap_or_default();
            markdown::attribute_allowed(&name, &attribute, &value)?;
            has_href |= attribute == "href";
        }
        if name == "a" {
            markdown::link_complete(has_href)?;
        }
        let mut child = element.first_element_child();
        while let Some(element) = child {
            child = element.next_element_sibling();
            stack.push(element);
        }
    }
    Ok(())
}
