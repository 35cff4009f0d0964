//! The chat's state: [`ChatView`], [`AssistantStream`], the shared `Inner`
//! with its open stream and the callbacks of its controls, and the small
//! steps every part of the view takes on it (scrolling, following new
//! output, the empty state, reset).
//!
//! A leaf of `chat/view/`: `mod.rs` (mounting and history), `stream.rs`,
//! `clicks.rs` and `recovery.rs` all work on this state and take it from
//! here, so none of them reaches back into `mod.rs`.

use super::banners::ApprovalBanner;
use super::live_text::LiveText;
use super::reasoning::LiveReasoning;
use crate::chat::model::StreamModel;
use crate::dom;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::payloads::{ApprovalAction, PreflightAction};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, Event};

/// The chat follows new output only while the user is this close to the bottom.
const FOLLOW_THRESHOLD_PX: i32 = 72;
/// A live reasoning block follows its own output within this distance.
const REASONING_FOLLOW_THRESHOLD_PX: i32 = 2;

pub(super) type PreflightCallback = Rc<dyn Fn(PreflightAction)>;
pub(super) type ApprovalCallback = Rc<dyn Fn(ApprovalAction, ApprovalBanner)>;
pub(super) type RevertCallback = Rc<dyn Fn(Element, PublicEditCheckpoint)>;
pub(super) type SnapshotCallback = Rc<dyn Fn(Element)>;

/// A click the chat hands to the caller (after releasing its borrow).
pub(super) enum Click {
    Preflight(PreflightCallback, PreflightAction),
    Approval(ApprovalCallback, ApprovalAction, ApprovalBanner),
    Revert(RevertCallback, Element, PublicEditCheckpoint),
    Snapshot(SnapshotCallback, Element),
}

/// The recovery controls (Revert, Snapshot) of answers in the chat.
#[derive(Default)]
pub(super) struct Recovery {
    /// Actions are off while a run streams or the panel is off its project.
    pub(super) disabled: bool,
    /// The receipt each rendered control shows, by checkpoint id.
    pub(super) checkpoints: HashMap<String, PublicEditCheckpoint>,
    pub(super) on_revert: Option<RevertCallback>,
    pub(super) on_snapshot: Option<SnapshotCallback>,
}

/// The chat area. Cheap to clone; all clones drive the same DOM.
#[derive(Clone)]
pub(crate) struct ChatView {
    pub(super) inner: Rc<RefCell<Inner>>,
}

/// The streaming answer of one run. Goes stale when finished or replaced.
#[derive(Clone)]
pub(crate) struct AssistantStream {
    pub(super) view: ChatView,
    pub(super) id: u64,
}

pub(super) struct Inner {
    pub(super) messages: Element,
    pub(super) jump: Element,
    pub(super) empty_state: Option<Element>,
    pub(super) stream: Option<StreamDom>,
    pub(super) next_stream_id: u64,
    pub(super) frame: Option<i32>,
    /// Whether the chat was near the bottom when the pending frame was
    /// requested: measured before the DOM grows, as the user saw it.
    pub(super) follow_at_request: Option<bool>,
    pub(super) frame_callback: Option<Closure<dyn FnMut(f64)>>,
    /// Text segments that ended but whose closed blocks are still being
    /// rendered, a budget per frame, oldest first.
    pub(super) closing: Vec<LiveText>,
    /// A finished answer that keeps its `streaming` class until `closing`
    /// is rendered, so "not streaming" still means "fully rendered".
    pub(super) rendering_group: Option<Element>,
    pub(super) preflight_actions: HashMap<String, PreflightCallback>,
    pub(super) approval_actions: HashMap<String, ApprovalCallback>,
    pub(super) recovery: Recovery,
}

pub(super) struct StreamDom {
    pub(super) id: u64,
    pub(super) model: StreamModel,
    pub(super) group: Element,
    pub(super) body: Element,
    pub(super) text: Option<LiveText>,
    pub(super) reasoning: Option<LiveReasoning>,
}

impl Inner {
    pub(super) fn near_bottom(&self) -> bool {
        let m = &self.messages;
        m.scroll_height() - m.scroll_top() - m.client_height() <= FOLLOW_THRESHOLD_PX
    }

    /// Scrolls to the newest output; the jump button goes, and focus on it
    /// moves to the chat it scrolled.
    pub(super) fn scroll_to_bottom(&self) {
        self.messages.set_scroll_top(self.messages.scroll_height());
        dom::keep_focus(&self.jump, &self.messages);
        dom::set_hidden(&self.jump, true);
    }

    /// After the DOM grew: keep following, or offer the jump button.
    pub(super) fn finish_mutation(&self, follow: bool) {
        if follow {
            self.scroll_to_bottom();
        } else {
            dom::set_hidden(&self.jump, false);
        }
    }

    pub(super) fn on_scroll(&mut self, event: &Event) {
        let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
            return;
        };
        if target == self.messages {
            if self.near_bottom() {
                dom::set_hidden(&self.jump, true);
            }
            return;
        }
        if let Some(reasoning) = self.stream.as_mut().and_then(|s| s.reasoning.as_mut())
            && target == reasoning.body
        {
            let body = &reasoning.body;
            reasoning.follow =
                body.scroll_height() - body.scroll_top() - body.client_height() <= REASONING_FOLLOW_THRESHOLD_PX;
        }
    }

    pub(super) fn show_empty_state(&self) {
        if let Some(empty) = &self.empty_state {
            let _ = self.messages.append_child(empty);
        }
    }

    pub(super) fn hide_empty_state(&self) {
        if let Some(empty) = &self.empty_state {
            empty.remove();
        }
    }

    /// Drops the stream and every message.
    pub(super) fn reset(&mut self) {
        self.cancel_frame();
        self.stream = None;
        self.closing.clear();
        self.rendering_group = None;
        self.preflight_actions.clear();
        self.approval_actions.clear();
        self.recovery.checkpoints.clear();
        self.messages.replace_children_with_node_0();
        dom::set_hidden(&self.jump, true);
    }
}
