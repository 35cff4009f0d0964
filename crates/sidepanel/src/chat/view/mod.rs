//! DOM of the chat (wasm only): mirrors `chat::model` changes and
//! `chat::labels` texts into elements under `#messages`.
//!
//! Every text goes in as a text node. The one exception is `html_sink.rs`,
//! the panel's only HTML sink: the output of `chat::markdown::render`
//! (already sanitised and audited) is parsed there by an inert `<template>`,
//! its elements are audited again, and only then adopted into the page.
//!
//! `state.rs` holds the state ([`ChatView`], [`AssistantStream`] and the
//! shared `Inner`) and scrolling; this file mounts the chat and renders its
//! history; `stream.rs` drives a run's bubble (its open text segment in
//! `live_text.rs`, Markdown block by block), `clicks.rs` reads the
//! delegated click, `recovery.rs` keeps the answers' Revert/Snapshot
//! controls, `warm_up.rs` runs `chat::warm_up`'s samples through the
//! renderer and the sink's parse once the panel is idle, and lays them out
//! once, unseen. The other files only build elements
//! and know nothing of this state: `groups.rs` (stored messages),
//! `tool_block.rs`, `reasoning.rs`, `banners.rs` (preflight and approval),
//! `diff.rs`, `recovery_control.rs` and `html_sink.rs`.
//!
//! State lives in one `Rc<RefCell<Inner>>`. Browser callbacks (animation
//! frame, scroll, clicks) hold only a `Weak` to it, and a caller's callback
//! is invoked after the borrow is released, so it may call back in.

mod banners;
mod block_groups;
mod clicks;
mod diff;
mod groups;
mod html_sink;
mod live_text;
mod reasoning;
mod recovery;
mod recovery_control;
mod state;
mod stream;
mod tool_block;
mod warm_up;

pub(crate) use diff::diff_element;
pub(crate) use state::{AssistantStream, ChatView};

use super::model::StreamModel;
use crate::dom::el;
use groups::{assistant_group, user_group};
use protocol::answer::{ResponseStatus, latest_completed_response_index};
use serde_json::Value;
use state::{Click, Inner, Recovery, StreamDom};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{AddEventListenerOptions, Element, Event};

const JUMP_LABEL: &str = "Jump to latest ↓";

impl ChatView {
    /// Builds `#messages` and `#jump-latest` inside `container` and wires
    /// the scroll, click and frame callbacks (once per panel).
    pub(crate) fn mount(container: &Element) -> Result<ChatView, JsValue> {
        // A named region the keyboard can scroll (it takes focus).
        let messages = el("div")
            .id("messages")
            .class("messages")
            .attr("role", "region")
            .attr("aria-label", "Chat messages")
            .attr("tabindex", "0")
            .build();
        let jump = el("button")
            .id("jump-latest")
            .class("jump-latest")
            .attr("type", "button")
            .flag("hidden", true)
            .text(JUMP_LABEL)
            .build();
        container.class_list().add_1("chat-area")?;
        container.append_child(&messages)?;
        container.append_child(&jump)?;
        let view = ChatView {
            inner: Rc::new(RefCell::new(Inner {
                messages,
                jump,
                empty_state: None,
                stream: None,
                next_stream_id: 1,
                frame: None,
                follow_at_request: None,
                frame_callback: None,
                closing: Vec::new(),
                rendering_group: None,
                preflight_actions: HashMap::new(),
                approval_actions: HashMap::new(),
                recovery: Recovery::default(),
            })),
        };
        view.wire()?;
        Ok(view)
    }

    fn wire(&self) -> Result<(), JsValue> {
        let weak = Rc::downgrade(&self.inner);
        let frame = Closure::<dyn FnMut(f64)>::new({
            let weak = weak.clone();
            move |_time: f64| {
                if let Some(inner) = weak.upgrade() {
                    let mut inner = inner.borrow_mut();
                    inner.frame = None;
                    inner.flush();
                }
            }
        });
        let (messages, jump) = {
            let mut inner = self.inner.borrow_mut();
            inner.frame_callback = Some(frame);
            (inner.messages.clone(), inner.jump.clone())
        };

        let on_jump = Closure::<dyn FnMut(Event)>::new({
            let weak = weak.clone();
            move |_event: Event| {
                if let Some(inner) = weak.upgrade() {
                    inner.borrow().scroll_to_bottom();
                }
            }
        });
        jump.add_event_listener_with_callback("click", on_jump.as_ref().unchecked_ref())?;
        on_jump.forget();

        // Scroll events do not bubble: one capturing listener sees both the
        // chat's own scrolling and a live reasoning block's.
        let on_scroll = Closure::<dyn FnMut(Event)>::new({
            let weak = weak.clone();
            move |event: Event| {
                if let Some(inner) = weak.upgrade() {
                    inner.borrow_mut().on_scroll(&event);
                }
            }
        });
        let options = AddEventListenerOptions::new();
        options.set_capture(true);
        options.set_passive(true);
        messages.add_event_listener_with_callback_and_add_event_listener_options(
            "scroll",
            on_scroll.as_ref().unchecked_ref(),
            &options,
        )?;
        on_scroll.forget();

        // One delegated listener for every banner and recovery button.
        let on_click = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
            let Some(inner) = weak.upgrade() else { return };
            let click = inner.borrow().click(&event);
            // The borrow is released: the callback may use the chat.
            match click {
                Some(Click::Preflight(callback, action)) => callback(action),
                Some(Click::Approval(callback, action, banner)) => callback(action, banner),
                Some(Click::Revert(callback, control, checkpoint)) => callback(control, checkpoint),
                Some(Click::Snapshot(callback, button)) => callback(button),
                None => {}
            }
        });
        messages.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref())?;
        on_click.forget();
        Ok(())
    }

    /// The element shown while the chat has no messages (the caller's
    /// suggestions), or none.
    pub(crate) fn set_empty_state(&self, element: Option<Element>) {
        let mut inner = self.inner.borrow_mut();
        if let Some(old) = inner.empty_state.take() {
            old.remove();
        }
        inner.empty_state = element;
        if inner.messages.child_element_count() == 0 {
            inner.show_empty_state();
        }
    }

    /// Replaces the chat with `messages` (display messages as stored). An
    /// unfinished stream is dropped with the old content.
    pub(crate) fn render_history(&self, messages: &[Value]) {
        let mut inner = self.inner.borrow_mut();
        inner.reset();
        let latest_complete = latest_completed_response_index(messages);
        for (index, message) in messages.iter().enumerate() {
            let group = match message.get("role").and_then(Value::as_str) {
                Some("user") => user_group(message),
                Some("assistant") => {
                    let group = assistant_group(message);
                    inner.add_recovery_control(&group, message, latest_complete == Some(index));
                    group
                }
                _ => continue,
            };
            let _ = inner.messages.append_child(&group);
        }
        if inner.messages.child_element_count() == 0 {
            inner.show_empty_state();
        }
        inner.scroll_to_bottom();
    }

    /// Shows a user message (at Send).
    pub(crate) fn append_user(&self, entry: &Value) {
        let inner = self.inner.borrow();
        inner.hide_empty_state();
        let _ = inner.messages.append_child(&user_group(entry));
        inner.scroll_to_bottom();
    }

    /// Starts the streaming bubble of a run. A stream still open is
    /// finished as incomplete first.
    pub(crate) fn begin_assistant(&self) -> AssistantStream {
        let mut inner = self.inner.borrow_mut();
        if inner.stream.is_some() {
            inner.finish_stream(ResponseStatus::Incomplete);
        }
        inner.finish_rendering_now();
        inner.hide_empty_state();
        let body = el("div").class("msg-body").build();
        let group = el("div")
            .class("msg-group msg-assistant streaming")
            .child(el("div").class("msg-role").text("Assistant"))
            .child(body.clone())
            .build();
        let _ = inner.messages.append_child(&group);
        let id = inner.next_stream_id;
        inner.next_stream_id += 1;
        inner.stream = Some(StreamDom {
            id,
            model: StreamModel::new(),
            group,
            body,
            text: None,
            reasoning: None,
        });
        inner.scroll_to_bottom();
        AssistantStream { view: self.clone(), id }
    }

    pub(crate) fn scroll_to_bottom(&self) {
        self.inner.borrow().scroll_to_bottom();
    }
}
