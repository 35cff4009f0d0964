//! A text segment of a streaming answer in the DOM: the Markdown blocks
//! that already closed, each shown once as its sanitised fragment (in block
//! groups, `block_groups.rs`), followed by one inert text node with the
//! text still open, inside a
//! `span.msg-stream-tail` that alone keeps its line breaks (`pre-wrap`): were
//! the whole `.msg-content` pre-wrap, every rendered block would lay out as
//! preformatted text each frame and all of them again when streaming ends.
//!
//! Why: rendering the whole answer when it ends re-parses and re-sanitises
//! everything in one long task, and re-rendering it per frame would cost
//! that on every frame. `chat::incremental::IncrementalMarkdown` decides which
//! blocks are closed and how many go in one frame (plain Rust, tested
//! natively); this file only moves its output into the page, through the one
//! HTML sink. Unfinished Markdown stays inert text until its block closes.

use super::block_groups::{GroupedContent, render_grouped_into};
use crate::chat::incremental::{Finished, IncrementalMarkdown};
use crate::dom::{self, el};
use protocol::js::utf16_len;
use web_sys::{Element, Text};

/// A text segment being streamed or, once ended, still being rendered.
pub(super) struct LiveText {
    content: Element,
    /// `span.msg-stream-tail`, the tail's holder: rendered blocks go in before it.
    holder: Element,
    /// The text not yet rendered, as text (never parsed as HTML).
    tail: Text,
    /// Bytes of the text received that the tail shows, counted from the
    /// start of the segment (so the rendered part is included).
    shown_end: usize,
    /// Bytes of the text received that are rendered.
    rendered: usize,
    markdown: IncrementalMarkdown,
    /// Where rendered slices go: block groups before `holder`.
    grouped: GroupedContent,
}

/// The class of the tail's holder (chat.css gives it `white-space: pre-wrap`).
const TAIL_CLASS: &str = "msg-stream-tail";

/// What one frame's step did.
#[derive(Default)]
pub(super) struct Step {
    /// Rendered blocks went into the page.
    pub(super) changed: bool,
    /// More closed blocks wait for the next frame.
    pub(super) more: bool,
}

impl LiveText {
    /// Appends an empty `.msg-content` to `body`.
    pub(super) fn open(body: &Element) -> Option<LiveText> {
        let tail = dom::text_node("")?;
        let holder = el("span").class(TAIL_CLASS).build();
        let _ = holder.append_child(&tail);
        let content = el("div").class("msg-content").build();
        let _ = content.append_child(&holder);
        let _ = body.append_child(&content);
        let grouped = GroupedContent::new(content.clone(), Some(holder.clone().into()));
        Some(LiveText {
            content,
            holder,
            tail,
            shown_end: 0,
            rendered: 0,
            markdown: IncrementalMarkdown::new(),
            grouped,
        })
    }

    /// Takes `text`, new since the last frame; [`step`](Self::step) shows it.
    pub(super) fn append(&mut self, text: &str) {
        self.markdown.push(text);
    }

    /// Renders the next closed blocks (within the frame's budget, slice by
    /// slice while `more_time()` allows) in place of their text, and shows
    /// the text after them.
    pub(super) fn step(&mut self, more_time: impl FnMut() -> bool) -> Step {
        let mut step = Step::default();
        if let Some(commit) = self.markdown.commit_until(more_time) {
            let shown = commit
                .slices
                .iter()
                .take_while(|slice| self.grouped.add_slice(slice))
                .count();
            step.changed = shown > 0;
            if shown == commit.slices.len() {
                step.more = commit.more;
            } else {
                // Refused in the DOM: the whole text gets the one render
                // that decides how it is shown, at the end.
                self.markdown.abandon();
            }
        }
        step.changed |= self.show_tail();
        step
    }

    /// Brings the tail text node to what the renderer shows, never taking
    /// back text already shown: its rendered start is deleted and its new
    /// end appended (no rewrite of the text in between).
    fn show_tail(&mut self) -> bool {
        let text = self.markdown.text();
        let start = self.markdown.committed_len();
        let end = (start + self.markdown.shown().len())
            .max(self.shown_end)
            .min(text.len());
        if start == self.rendered && end == self.shown_end {
            return false;
        }
        if start <= self.shown_end {
            if start > self.rendered {
                let gone = u32::try_from(utf16_len(&text[self.rendered..start])).unwrap_or(u32::MAX);
                let _ = self.tail.delete_data(0, gone);
            }
            let _ = self.tail.append_data(&text[self.shown_end..end]);
        } else {
            self.tail.set_data(&text[start..end]);
        }
        self.rendered = start;
        self.shown_end = end;
        true
    }

    /// Bytes of the text received that are not rendered yet.
    pub(super) fn unrendered_len(&self) -> usize {
        self.markdown.text().len() - self.markdown.committed_len()
    }

    /// The segment is complete; `markdown` is its whole text. Its remaining
    /// closed blocks are rendered by later steps, then [`finish`](Self::finish).
    pub(super) fn end(&mut self, markdown: &str) {
        self.markdown.end(markdown);
    }

    /// Renders what the steps left (the last block), or the whole text
    /// when a split render could differ from it.
    pub(super) fn finish(mut self) {
        match self.markdown.finish() {
            Finished::Tail(slice) if slice.html.is_empty() => self.holder.remove(),
            Finished::Tail(slice) if self.grouped.add_slice(&slice) => self.holder.remove(),
            // Refused in the DOM: the whole text decides, as it would alone.
            Finished::Tail(_) => render_grouped_into(&self.content, self.markdown.text()),
            Finished::Whole(text) => render_grouped_into(&self.content, &text),
        }
    }

    /// Ends and renders everything now (a new stream starts).
    pub(super) fn finish_now(mut self) {
        while self.step(|| true).more {}
        self.finish();
    }
}
