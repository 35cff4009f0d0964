//! Sends `chat::warm_up`'s samples through the streaming renderer and the
//! HTML sink's inert parse and audit, one sample per idle callback, once
//! the panel is ready, and lays each result out once, unseen, with the
//! chat's own rules. Nothing stays in the page: each sample is inserted,
//! measured and removed within its callback, before anything is painted.
//!
//! Why idle callbacks: the browser runs them only when no input, frame or
//! message waits, so a user who types at once is never delayed, and each
//! sample is its own short task instead of one long one.
//!
//! Why the layout: a font at a size the page has not drawn yet needs the
//! browser's font settings for it, a synchronous request to the browser
//! process. In a browser that had just started, the first frame of the
//! first answer waited 22 ms for one (traced: `GetWebFontRenderStyleForStrike`
//! inside a 40 ms frame, for the monospace face of inline code). Laid out
//! here, the samples (which use every element an answer may contain, so
//! every face and size of the chat's Markdown rules) make those requests
//! while the panel is idle.

use super::html_sink::rendered_fragment;
use super::state::ChatView;
use crate::chat::incremental::{Finished, IncrementalMarkdown};
use crate::chat::warm_up::SAMPLES;
use crate::dom::el;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DocumentFragment, Element};

/// The class of a sample's holder: chat.css keeps it out of sight and out
/// of the chat's flow while it exists.
const HOLDER_CLASS: &str = "msg-warm-up";

impl ChatView {
    /// Starts the warm-up (start-up calls it once, after the panel is ready).
    pub(crate) fn warm_up_renderer(&self) {
        let messages = self.inner.borrow().messages.clone();
        schedule(messages, 0);
    }
}

fn schedule(messages: Element, index: usize) {
    let Some(sample) = SAMPLES.get(index) else { return };
    let Some(window) = web_sys::window() else { return };
    let callback = Closure::once_into_js(move || {
        lay_out(&messages, &render_sample(sample));
        schedule(messages, index + 1);
    });
    // No idle time (or no support) means no warm-up: the first answer then
    // compiles what it uses, as it would without this file.
    let _ = window.request_idle_callback(callback.unchecked_ref());
}

/// The path a streamed text takes: commits, then the tail (every sample
/// takes it; `chat::warm_up`'s tests check that none falls back to a whole
/// render). Returns the audited fragments.
fn render_sample(sample: &str) -> Vec<DocumentFragment> {
    let mut fragments = Vec::new();
    let mut markdown = IncrementalMarkdown::new();
    markdown.push(sample);
    markdown.end(sample);
    while let Some(commit) = markdown.commit_until(|| true) {
        fragments.extend(
            commit
                .slices
                .iter()
                .filter_map(|slice| rendered_fragment(&slice.html).ok()),
        );
        if !commit.more {
            break;
        }
    }
    if let Finished::Tail(slice) = markdown.finish() {
        fragments.extend(rendered_fragment(&slice.html).ok());
    }
    fragments
}

/// Lays a sample's `fragments` (audited sink output) out inside `messages`,
/// in one `.msg-content` like an answer's, and takes them out again.
fn lay_out(messages: &Element, fragments: &[DocumentFragment]) {
    let holder = el("div").class(&format!("msg-content {HOLDER_CLASS}")).build();
    let _ = holder.set_attribute("aria-hidden", "true");
    for fragment in fragments {
        let _ = holder.append_child(fragment);
    }
    if messages.append_child(&holder).is_ok() {
        // Reading a size lays the holder out now, fonts included.
        let _ = holder.scroll_height();
    }
    holder.remove();
}
