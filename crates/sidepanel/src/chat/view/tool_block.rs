//! Tool blocks: one per call, with its label, status pill and collapsible
//! detail, and the small edits the run events make to them. Shared by the
//! stream, the stored messages and the approval banner.

use crate::chat::labels::{self, ResultSummary, ToolStatus};
use crate::dom::{self, el};
use protocol::payloads::ToolCallInfo;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// A tool block: label, status pill and a collapsible detail. `summary` is
/// given for calls shown from history; live calls start as running.
pub(super) fn tool_block(call: &ToolCallInfo, summary: Option<&ResultSummary>) -> Element {
    let status = summary.map_or_else(ToolStatus::running, |s| s.status.clone());
    let detail_text = summary
        .and_then(|s| s.detail.clone())
        .unwrap_or_else(|| labels::tool_detail(&call.name, &call.args));
    el("div")
        .class("tool-block")
        .attr("data-call-id", &call.id)
        .attr("data-tool-name", &call.name)
        .child(
            el("details")
                .class("tool-block-main")
                .child(
                    el("summary")
                        .class("tool-block-header")
                        .child(
                            el("span")
                                .class("tool-block-label")
                                .child(el("span").class("tool-block-icon").attr("aria-hidden", "true"))
                                .child(
                                    el("span")
                                        .class("tool-block-name")
                                        .text(&labels::tool_label(&call.name, &call.args)),
                                ),
                        )
                        .child(el("span").class(status.kind.class()).text(&status.text)),
                )
                .child(el("pre").class("tool-block-detail").text(&detail_text)),
        )
        .build()
}

pub(super) fn set_status(block: &Element, status: &ToolStatus) {
    if let Ok(Some(pill)) = block.query_selector(".tool-status") {
        pill.set_class_name(status.kind.class());
        pill.set_text_content(Some(&status.text));
    }
}

pub(super) fn apply_summary(block: &Element, summary: &ResultSummary) {
    set_status(block, &summary.status);
    if let (Some(detail), Ok(Some(pre))) = (&summary.detail, block.query_selector(".tool-block-detail")) {
        pre.set_text_content(Some(detail));
    }
}

pub(super) fn remove_banner(block: &Element) {
    if let Ok(Some(banner)) = block.query_selector(".tool-preflight") {
        keep_focus_in_block(block, &banner);
        banner.remove();
    }
}

/// Before a banner goes or turns its buttons off: focus inside it moves to
/// its block's header, which then says what happened to the call.
pub(super) fn keep_focus_in_block(block: &Element, banner: &Element) {
    if let Ok(Some(header)) = block.query_selector(".tool-block-header") {
        dom::keep_focus(banner, &header);
    }
}

/// The block of `call_id` in `root`, compared exactly (ids are not escaped
/// into a selector).
pub(super) fn find_tool_block(root: &Element, call_id: &str) -> Option<Element> {
    let blocks = root.query_selector_all(".tool-block").ok()?;
    (0..blocks.length())
        .filter_map(|index| blocks.get(index)?.dyn_into::<Element>().ok())
        .find(|block| block.get_attribute("data-call-id").as_deref() == Some(call_id))
}
