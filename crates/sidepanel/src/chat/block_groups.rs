//! Which rendered blocks of an answer share a block group: the
//! `div.msg-blocks` the view puts consecutive top-level blocks in.
//!
//! Why groups: a long answer is thousands of elements, and the browser
//! styles, lays out and paints all of them, though the panel shows a few
//! dozen. A group carries `content-visibility: auto` (chat.css), so the
//! browser skips the groups that are far off screen and keeps a remembered
//! (or estimated) height for them; a streamed answer that arrives faster
//! than it is read is then laid out only where the reader is.
//!
//! Why groups open only at a paragraph: `content-visibility` contains
//! layout, so margins no longer collapse across a group's edge. A paragraph
//! has no top margin in chat.css, so the gap before it is the previous
//! block's bottom margin either way: an answer looks the same split or not.
//! An answer without paragraphs stays one group, which is only slower.
//!
//! Plain Rust, tested natively: [`BlockGroups`] decides, the view
//! (`view/block_groups.rs`) moves the nodes.

/// Bytes a group collects before a paragraph may open the next one: about
/// a screen of text. The browser draws the groups within one and a half
/// views of the one in view, and draws a group whole, so smaller groups draw
/// less beyond that margin; an answer of 100 KB is some hundred of them.
pub(crate) const GROUP_BYTES: usize = 1024;

/// Where the next rendered piece goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Into a new group after the last one.
    Open,
    /// Into the last group.
    Join,
}

/// The grouping of one text segment, piece by piece, in order.
#[derive(Debug, Default)]
pub(crate) struct BlockGroups {
    /// Bytes in the last group; `None` before the first piece.
    open: Option<usize>,
}

impl BlockGroups {
    /// Places the next piece: `bytes` of it (its Markdown source, or its
    /// text when a whole render is split), beginning with a paragraph or not.
    pub(crate) fn place(&mut self, starts_with_paragraph: bool, bytes: usize) -> Placement {
        match self.open {
            Some(held) if held < GROUP_BYTES || !starts_with_paragraph => {
                self.open = Some(held + bytes);
                Placement::Join
            }
            _ => {
                self.open = Some(bytes);
                Placement::Open
            }
        }
    }
}

/// Whether rendered HTML (the output of `chat::markdown::render`, which
/// writes a paragraph as a bare `<p>`) begins with a paragraph.
pub(crate) fn starts_with_paragraph(html: &str) -> bool {
    html.starts_with("<p>")
}

#[cfg(test)]
mod tests;
