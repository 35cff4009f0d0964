//! Stored messages as elements: a user message with its attachment pills,
//! and an assistant answer rebuilt from its segments.

use super::block_groups::render_grouped_into;
use super::reasoning::reasoning_block;
use super::tool_block::tool_block;
use crate::chat::labels;
use crate::dom::el;
use protocol::answer::{Segment, stored_segments};
use serde_json::Value;
use web_sys::Element;

pub(super) fn user_group(message: &Value) -> Element {
    let parts = labels::user_message_parts(message);
    let body = el("div").class("msg-body");
    let mut attachments: Vec<Element> = parts
        .pills
        .iter()
        .map(|pill| {
            let mut node = el("span")
                .class(if pill.long {
                    "msg-user-pill msg-user-pill-long"
                } else {
                    "msg-user-pill"
                })
                .text(&pill.text);
            if let Some(title) = &pill.title {
                node = node.attr("title", title);
            }
            node.build()
        })
        .collect();
    if !parts.previews.is_empty() {
        let thumbs = parts.previews.iter().map(|preview| match preview {
            labels::SentPreview::Thumbnail { data_url, alt } => el("div")
                .class("msg-user-thumb-wrap")
                .child(el("img").class("msg-user-thumb").attr("alt", alt).attr("src", data_url))
                .build(),
            labels::SentPreview::Omitted { text, reason } => el("span")
                .class("msg-user-pill")
                .attr("title", reason)
                .text(text)
                .build(),
        });
        attachments.push(el("div").class("msg-user-thumbs").children(thumbs).build());
    }
    let body = if attachments.is_empty() {
        body
    } else {
        body.child(el("div").class("msg-user-attachments").children(attachments))
    };
    el("div")
        .class("msg-group msg-user")
        .child(el("div").class("msg-role").text("You"))
        .child(body.child(el("div").class("msg-user-text").text(&parts.text)))
        .build()
}

pub(super) fn assistant_group(message: &Value) -> Element {
    let body = el("div").class("msg-body").build();
    for segment in stored_segments(message) {
        match segment {
            Segment::Tools { calls, results } => {
                for call in &calls {
                    let summary = labels::history_summary(&call.name, results.get(&call.id));
                    let _ = body.append_child(&tool_block(call, Some(&summary)));
                }
            }
            Segment::Reasoning(text) => {
                let _ = body.append_child(&reasoning_block(&text, false).0);
            }
            Segment::Text(text) => {
                let content = el("div").class("msg-content").build();
                render_grouped_into(&content, &text);
                let _ = body.append_child(&content);
            }
        }
    }
    el("div")
        .class("msg-group msg-assistant")
        .child(el("div").class("msg-role").text("Assistant"))
        .child(body)
        .build()
}
