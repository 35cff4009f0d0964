//! Reasoning blocks: a `<details>` whose summary names it ("Thinking" while
//! it streams, "Thought" after) and counts its characters.

use crate::chat::labels::{self, REASONING_DONE_TITLE, REASONING_LIVE_TITLE};
use crate::dom::{self, el};
use web_sys::{Element, Text};

/// The parts of the live block the stream keeps appending to.
pub(super) struct LiveReasoning {
    block: Element,
    title: Element,
    meta: Element,
    pub(super) body: Element,
    text: Text,
    pub(super) follow: bool,
}

pub(super) fn append_reasoning(reasoning: &LiveReasoning, text: &str) {
    let _ = reasoning.text.append_data(text);
    reasoning
        .meta
        .set_text_content(Some(&labels::reasoning_meta(reasoning.text.length() as usize)));
    if reasoning.follow {
        reasoning.body.set_scroll_top(reasoning.body.scroll_height());
    }
}

pub(super) fn close_reasoning(reasoning: &LiveReasoning) {
    let _ = reasoning.block.remove_attribute("open");
    let _ = reasoning.block.class_list().remove_1("is-live");
    reasoning.title.set_text_content(Some(REASONING_DONE_TITLE));
}

/// A reasoning block: a `<details>` whose summary names it and counts its
/// characters. Live blocks start open and follow their own output.
pub(super) fn reasoning_block(text: &str, live: bool) -> (Element, Option<LiveReasoning>) {
    let title = el("span")
        .class("reasoning-title")
        .text(if live {
            REASONING_LIVE_TITLE
        } else {
            REASONING_DONE_TITLE
        })
        .build();
    let meta = el("span").class("reasoning-meta").build();
    let body = el("pre").class("reasoning-body").build();
    let node = dom::text_node(text);
    if let Some(node) = &node {
        let _ = body.append_child(node);
        meta.set_text_content(Some(&labels::reasoning_meta(node.length() as usize)));
    }
    let block = el("details")
        .class(if live {
            "reasoning-block is-live"
        } else {
            "reasoning-block"
        })
        .flag("open", live)
        .child(
            el("summary")
                .class("reasoning-header")
                .child(el("span").class("reasoning-icon").attr("aria-hidden", "true"))
                .child(title.clone())
                .child(meta.clone()),
        )
        .child(body.clone())
        .build();
    let parts = match (live, node) {
        (true, Some(text)) => Some(LiveReasoning {
            block: block.clone(),
            title,
            meta,
            body,
            text,
            follow: true,
        }),
        _ => None,
    };
    (block, parts)
}
