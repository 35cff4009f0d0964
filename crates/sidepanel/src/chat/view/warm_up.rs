//! Sends `chat::warm_up`'s samples through the streaming renderer and the
//! HTML sink's inert parse and audit, one sample per idle callback, once
//! the panel is ready. Nothing reaches the page: the fragments are dropped.
//!
//! Why idle callbacks: the browser runs them only when no input, frame or
//! message waits, so a user who types at once is never delayed, and each
//! sample is its own short task instead of one long one.

use super::html_sink::rendered_fragment;
use crate::chat::incremental::{Finished, IncrementalMarkdown};
use crate::chat::warm_up::SAMPLES;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Starts the warm-up (start-up calls it once, after the panel is ready).
pub(crate) fn warm_up_renderer() {
    schedule(0);
}

fn schedule(index: usize) {
    let Some(sample) = SAMPLES.get(index) else { return };
    let Some(window) = web_sys::window() else { return };
    let callback = Closure::once_into_js(move || {
        render_sample(sample);
        schedule(index + 1);
    });
    // No idle time (or no support) means no warm-up: the first answer then
    // compiles what it uses, as it would without this file.
    let _ = window.request_idle_callback(callback.unchecked_ref());
}

/// The path a streamed text takes: commits, then the tail (every sample
/// takes it; `chat::warm_up`'s tests check that none falls back to a whole
/// render).
fn render_sample(sample: &str) {
    let mut markdown = IncrementalMarkdown::new();
    markdown.push(sample);
    markdown.end(sample);
    while let Some(commit) = markdown.commit_until(|| true) {
        for slice in &commit.slices {
            let _ = rendered_fragment(&slice.html);
        }
        if !commit.more {
            break;
        }
    }
    if let Finished::Tail(slice) = markdown.finish() {
        let _ = rendered_fragment(&slice.html);
    }
}
