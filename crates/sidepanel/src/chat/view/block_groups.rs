//! Rendered Markdown in block groups (`div.msg-blocks`): the DOM side of
//! `chat::block_groups`, which decides which group each piece joins.
//!
//! The HTML itself is parsed and audited only by `html_sink.rs`; this file
//! moves the audited nodes into groups, so a group never holds anything
//! the sink did not let through. chat.css gives each group but the newest
//! `content-visibility: auto`: groups far off screen are neither styled,
//! laid out nor painted, and keep the height they last had (or an
//! estimate, until first shown).

use super::html_sink::{markdown_fragment, rendered_fragment, warn_refused};
use crate::chat::block_groups::{BlockGroups, Placement, starts_with_paragraph};
use crate::chat::incremental::RenderedSlice;
use crate::dom::el;
use wasm_bindgen::JsCast;
use web_sys::{Element, Node};

/// The class of a block group (chat.css).
const GROUP_CLASS: &str = "msg-blocks";
/// The class of a text's newest group, which chat.css always draws: the
/// chat scrolls to its end at the real height of what it shows last, and
/// a group above that is drawn later changes height where the browser's
/// scroll anchoring keeps the view in place.
const NEWEST_CLASS: &str = "msg-blocks-newest";

/// The block groups of one `.msg-content`, filled piece by piece.
pub(super) struct GroupedContent {
    content: Element,
    /// New groups go before this node (a streaming text's tail), or last.
    before: Option<Node>,
    groups: BlockGroups,
    last: Option<Element>,
}

impl GroupedContent {
    /// Groups for `content`, inserted before `before` when given.
    pub(super) fn new(content: Element, before: Option<Node>) -> GroupedContent {
        GroupedContent {
            content,
            before,
            groups: BlockGroups::default(),
            last: None,
        }
    }

    /// Adds one rendered slice, parsed and audited by the sink. False
    /// (nothing added) when the sink refuses it.
    pub(super) fn add_slice(&mut self, slice: &RenderedSlice) -> bool {
        match rendered_fragment(&slice.html) {
            Ok(fragment) => {
                self.add(&fragment, starts_with_paragraph(&slice.html), slice.source_len);
                true
            }
            Err(error) => {
                warn_refused(&error);
                false
            }
        }
    }

    /// Puts `node` (audited content) into the last group or a new one.
    fn add(&mut self, node: &Node, starts_with_paragraph: bool, bytes: usize) {
        let group = match (self.groups.place(starts_with_paragraph, bytes), &self.last) {
            (Placement::Join, Some(last)) => last.clone(),
            _ => {
                let group = el("div").class(&format!("{GROUP_CLASS} {NEWEST_CLASS}")).build();
                let _ = self.content.insert_before(&group, self.before.as_ref());
                if let Some(older) = self.last.replace(group.clone()) {
                    let _ = older.class_list().remove_1(NEWEST_CLASS);
                }
                group
            }
        };
        let _ = group.append_child(node);
    }
}

/// Replaces `element`'s content with `text` rendered as Markdown in block
/// groups, or with `text` as plain text when rendering is refused at any
/// step. The top-level blocks of the one render are grouped by their text.
pub(super) fn render_grouped_into(element: &Element, text: &str) {
    match markdown_fragment(text) {
        Ok(fragment) => {
            element.replace_children_with_node_0();
            let mut grouped = GroupedContent::new(element.clone(), None);
            while let Some(node) = fragment.first_child() {
                // Text between blocks (line breaks) joins the group before it.
                let (paragraph, bytes) = match node.dyn_ref::<Element>() {
                    Some(block) => (
                        block.local_name() == "p",
                        block.text_content().map_or(0, |text| text.len()),
                    ),
                    None => (false, 0),
                };
                grouped.add(&node, paragraph, bytes);
            }
        }
        Err(error) => {
            warn_refused(&error);
            element.set_text_content(Some(text));
        }
    }
}
