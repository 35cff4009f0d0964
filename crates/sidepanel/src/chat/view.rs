//! DOM of the chat: mirrors `chat::model` changes and `chat::labels` texts
//! into elements under `#messages`.
//!
//! Every text goes in as a text node. The single exception is
//! [`markdown_fragment`]: the output of `chat::markdown::render` (already
//! sanitised and audited) is parsed by an inert `<template>` element, its
//! elements are audited again, and only then adopted into the page. No
//! other code in the panel assigns HTML strings.
//!
//! State lives in one `Rc<RefCell<Inner>>`. Browser callbacks (animation
//! frame, scroll, clicks) hold only a `Weak` to it, and a caller's preflight
//! callback is invoked after the borrow is released, so it may call back in.

use super::edit_view::{self, ApprovalBanner};
use super::labels::{self, REASONING_DONE_TITLE, REASONING_LIVE_TITLE, ResultSummary, ToolStatus};
use super::markdown::{self, MarkdownError};
use super::model::{Change, ResponseStatus, Segment, StreamModel, assistant_segments, latest_completed_response_index};
use crate::dom::{self, el};
use crate::edits::{self, ApprovalView, RevertView};
use protocol::edit_checkpoint::PublicEditCheckpoint;
use protocol::payloads::{
    ApprovalAction, ApprovalRequired, PreflightAction, PreflightWaiting, StreamItem, ToolCallInfo,
};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{AddEventListenerOptions, DocumentFragment, Element, Event, HtmlTemplateElement, Text};

/// The chat follows new output only while the user is this close to the bottom.
pub(crate) const FOLLOW_THRESHOLD_PX: i32 = 72;
/// A live reasoning block follows its own output within this distance.
pub(crate) const REASONING_FOLLOW_THRESHOLD_PX: i32 = 2;

const JUMP_LABEL: &str = "Jump to latest ↓";
const HTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";

type PreflightCallback = Rc<dyn Fn(PreflightAction)>;
type ApprovalCallback = Rc<dyn Fn(ApprovalAction, ApprovalBanner)>;
type RevertCallback = Rc<dyn Fn(Element, PublicEditCheckpoint)>;
type SnapshotCallback = Rc<dyn Fn(Element)>;

/// A click the chat hands to the caller (after releasing its borrow).
enum Click {
    Preflight(PreflightCallback, PreflightAction),
    Approval(ApprovalCallback, ApprovalAction, ApprovalBanner),
    Revert(RevertCallback, Element, PublicEditCheckpoint),
    Snapshot(SnapshotCallback, Element),
}

/// The recovery controls (Revert, Snapshot) of answers in the chat.
#[derive(Default)]
struct Recovery {
    /// Actions are off while a run streams or the panel is off its project.
    disabled: bool,
    /// The receipt each rendered control shows, by checkpoint id.
    checkpoints: HashMap<String, PublicEditCheckpoint>,
    on_revert: Option<RevertCallback>,
    on_snapshot: Option<SnapshotCallback>,
}

/// The chat area. Cheap to clone; all clones drive the same DOM.
#[derive(Clone)]
pub(crate) struct ChatView {
    inner: Rc<RefCell<Inner>>,
}

/// The streaming answer of one run. Goes stale when finished or replaced.
#[derive(Clone)]
pub(crate) struct AssistantStream {
    view: ChatView,
    id: u64,
}

struct Inner {
    messages: Element,
    jump: Element,
    empty_state: Option<Element>,
    stream: Option<StreamDom>,
    next_stream_id: u64,
    frame: Option<i32>,
    /// Whether the chat was near the bottom when the pending frame was
    /// requested: measured before the DOM grows, as the user saw it.
    follow_at_request: Option<bool>,
    frame_callback: Option<Closure<dyn FnMut(f64)>>,
    preflight_actions: HashMap<String, PreflightCallback>,
    approval_actions: HashMap<String, ApprovalCallback>,
    recovery: Recovery,
}

struct StreamDom {
    id: u64,
    model: StreamModel,
    group: Element,
    body: Element,
    text: Option<(Element, Text)>,
    reasoning: Option<LiveReasoning>,
}

struct LiveReasoning {
    block: Element,
    title: Element,
    meta: Element,
    body: Element,
    text: Text,
    follow: bool,
}

fn text_node(text: &str) -> Option<Text> {
    Some(dom::document()?.create_text_node(text))
}

impl ChatView {
    /// Builds `#messages` and `#jump-latest` inside `container` and wires
    /// the scroll, click and frame callbacks (once per panel).
    pub(crate) fn mount(container: &Element) -> Result<ChatView, JsValue> {
        let messages = el("div")
            .id("messages")
            .class("messages")
            .attr("aria-label", "Chat messages")
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

    /// What a click on Revert (the control and its receipt) and on Snapshot
    /// (the button) does.
    pub(crate) fn set_recovery_handlers(
        &self,
        on_revert: impl Fn(Element, PublicEditCheckpoint) + 'static,
        on_snapshot: impl Fn(Element) + 'static,
    ) {
        let mut inner = self.inner.borrow_mut();
        inner.recovery.on_revert = Some(Rc::new(on_revert));
        inner.recovery.on_snapshot = Some(Rc::new(on_snapshot));
    }

    /// Turns every Revert and Snapshot button off (a run streams, the panel
    /// left its project) or back on.
    pub(crate) fn set_recovery_disabled(&self, disabled: bool) {
        let mut inner = self.inner.borrow_mut();
        inner.recovery.disabled = disabled;
        for button in query_all(&inner.messages, ".edit-revert-button, .response-snapshot-button") {
            let busy = button.get_attribute("data-busy").as_deref() == Some("true");
            dom::set_disabled(&button, disabled || busy);
        }
    }

    /// Receipts whose state changed: every control of those ids shows it.
    pub(crate) fn show_checkpoints(&self, checkpoints: &[PublicEditCheckpoint]) {
        let mut inner = self.inner.borrow_mut();
        for checkpoint in checkpoints {
            if !inner.recovery.checkpoints.contains_key(&checkpoint.id) {
                continue;
            }
            inner
                .recovery
                .checkpoints
                .insert(checkpoint.id.clone(), checkpoint.clone());
            for control in query_all(&inner.messages, ".edit-revert-control") {
                if control.get_attribute("data-checkpoint-id").as_deref() == Some(checkpoint.id.as_str()) {
                    inner.fill_control(&control, Some(&edits::revert_view(checkpoint, false)), None);
                }
            }
        }
    }

    /// A revert of `control`'s receipt is under way.
    pub(crate) fn set_revert_busy(&self, control: &Element) {
        self.inner.borrow().fill_control(control, Some(&RevertView::Busy), None);
    }

    /// Shows `control` again after a revert: its receipt's state, "Try
    /// revert again" after `error`, and `note` (an error or a save problem).
    pub(crate) fn finish_revert(&self, control: &Element, error: bool, note: Option<&str>) {
        let inner = self.inner.borrow();
        let view = control
            .get_attribute("data-checkpoint-id")
            .and_then(|id| inner.recovery.checkpoints.get(&id))
            .map(|checkpoint| edits::revert_view(checkpoint, error));
        inner.fill_control(control, view.as_ref(), note);
    }
}

impl AssistantStream {
    /// Runs `f` on the inner state if this stream is still the open one.
    fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> Option<R> {
        let mut inner = self.view.inner.borrow_mut();
        if inner.stream.as_ref().map(|s| s.id) != Some(self.id) {
            return None;
        }
        Some(f(&mut inner))
    }

    /// `AI_STREAM_BATCH`: appends in order; text shows at the next frame.
    pub(crate) fn apply_batch(&self, items: &[StreamItem]) {
        self.with(|inner| {
            let follow = inner.near_bottom();
            let changes = match inner.stream.as_mut() {
                Some(stream) => stream.model.apply_batch(items),
                None => return,
            };
            if !changes.is_empty() {
                inner.apply_changes(changes);
                inner.finish_mutation(follow);
            }
            inner.request_frame();
        });
    }

    /// `AI_TOOL_CALLS`: closes the open segment and adds a running block per call.
    pub(crate) fn add_tool_calls(&self, calls: &[ToolCallInfo]) {
        self.with(|inner| {
            inner.flush();
            let follow = inner.near_bottom();
            let changes = match inner.stream.as_mut() {
                Some(stream) => stream.model.add_tool_calls(calls),
                None => return,
            };
            inner.apply_changes(changes);
            inner.finish_mutation(follow);
        });
    }

    /// `AI_TOOL_RESULT`: the block's pill shows the result summary.
    pub(crate) fn set_tool_result(&self, call_id: &str, name: &str, result: &Map<String, Value>) {
        self.with(|inner| {
            inner.flush();
            let follow = inner.near_bottom();
            let Some(stream) = inner.stream.as_mut() else { return };
            if !stream.model.set_tool_result(call_id, result) {
                return;
            }
            let Some(block) = find_tool_block(&stream.body, call_id) else {
                return;
            };
            remove_banner(&block);
            inner.preflight_actions.remove(call_id);
            inner.approval_actions.remove(call_id);
            apply_summary(&block, &labels::result_summary(name, &Value::Object(result.clone())));
            inner.finish_mutation(follow);
        });
    }

    /// `AI_TOOL_PREFLIGHT_WAITING`: a banner in the call's block with Retry
    /// and Skip, which call `on_action` with `Retry` or `Cancel`.
    pub(crate) fn show_preflight(&self, waiting: &PreflightWaiting, on_action: impl Fn(PreflightAction) + 'static) {
        self.with(|inner| {
            let follow = inner.near_bottom();
            let Some(block) = inner
                .stream
                .as_ref()
                .and_then(|s| find_tool_block(&s.body, &waiting.call_id))
            else {
                return;
            };
            let view = labels::preflight_view(&waiting.name, &waiting.missing, &waiting.hint);
            set_status(&block, &view.status);
            remove_banner(&block);
            let banner = el("div")
                .class("tool-preflight")
                .attr("role", "group")
                .attr("aria-label", "Waiting for the Typst tab")
                .child(el("div").class("tool-preflight-msg").text(&view.message))
                .child(
                    el("div")
                        .class("tool-preflight-missing")
                        .flag("hidden", view.requirement.is_empty())
                        .text(&view.requirement),
                )
                .child(
                    el("div")
                        .class("tool-preflight-actions")
                        .child(
                            el("button")
                                .class("tool-preflight-btn tool-preflight-retry")
                                .attr("type", "button")
                                .attr("data-action", "retry")
                                .text(view.retry_label),
                        )
                        .child(
                            el("button")
                                .class("tool-preflight-btn tool-preflight-skip")
                                .attr("type", "button")
                                .attr("data-action", "cancel")
                                .text(view.skip_label),
                        ),
                )
                .build();
            let _ = block.append_child(&banner);
            inner
                .preflight_actions
                .insert(waiting.call_id.clone(), Rc::new(on_action));
            inner.finish_mutation(follow);
        });
    }

    /// `AI_TOOL_APPROVAL_REQUIRED`: the approval banner (the complete diff
    /// for an editor review) in the call's block; a click calls `on_choice`
    /// with the action and the banner to show the outcome on.
    pub(crate) fn show_approval(
        &self,
        approval: &ApprovalRequired,
        on_choice: impl Fn(ApprovalAction, ApprovalBanner) + 'static,
    ) {
        self.with(|inner| {
            let follow = inner.near_bottom();
            let Some(block) = inner
                .stream
                .as_ref()
                .and_then(|s| find_tool_block(&s.body, &approval.call_id))
            else {
                return;
            };
            let view = ApprovalView::from_event(approval);
            set_status(&block, &edits::approval_waiting_status());
            remove_banner(&block);
            let banner = edit_view::approval_banner(&view);
            let _ = banner.set_attribute("data-editor-review", if view.editor_review { "true" } else { "false" });
            let _ = block.append_child(&banner);
            inner
                .approval_actions
                .insert(approval.call_id.clone(), Rc::new(on_choice));
            inner.finish_mutation(follow);
        });
    }

    /// `AI_TOOL_PREFLIGHT_READY`: the banner goes, the call runs again.
    pub(crate) fn clear_preflight(&self, call_id: &str) {
        self.with(|inner| {
            inner.preflight_actions.remove(call_id);
            if let Some(block) = inner.stream.as_ref().and_then(|s| find_tool_block(&s.body, call_id)) {
                remove_banner(&block);
                set_status(&block, &ToolStatus::running());
            }
        });
    }

    /// Whether anything worth keeping arrived (text, reasoning or tool calls).
    pub(crate) fn has_output(&self) -> bool {
        self.with(|inner| inner.stream.as_ref().is_some_and(|s| s.model.has_output()))
            .unwrap_or(false)
    }

    /// Ends the stream: the last text segment gets its Markdown render.
    /// Returns the display message to save, or `None` (and removes the
    /// bubble) when nothing arrived.
    pub(crate) fn finish(&self, status: ResponseStatus) -> Option<Value> {
        self.with(|inner| inner.finish_stream(status)).flatten()
    }
}

impl Inner {
    fn near_bottom(&self) -> bool {
        let m = &self.messages;
        m.scroll_height() - m.scroll_top() - m.client_height() <= FOLLOW_THRESHOLD_PX
    }

    fn scroll_to_bottom(&self) {
        self.messages.set_scroll_top(self.messages.scroll_height());
        dom::set_hidden(&self.jump, true);
    }

    /// After the DOM grew: keep following, or offer the jump button.
    fn finish_mutation(&self, follow: bool) {
        if follow {
            self.scroll_to_bottom();
        } else {
            dom::set_hidden(&self.jump, false);
        }
    }

    fn on_scroll(&mut self, event: &Event) {
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

    fn click(&self, event: &Event) -> Option<Click> {
        let target = event.target()?.dyn_into::<Element>().ok()?;
        if let Some(button) = target.closest(".tool-approval-btn").ok()? {
            let action = edit_view::parse_action(&button.get_attribute("data-approval-action")?)?;
            let block = button.closest(".tool-block").ok()??;
            let banner = button.closest(".tool-approval").ok()??;
            let call_id = block.get_attribute("data-call-id")?;
            let callback = self.approval_actions.get(&call_id)?.clone();
            let editor_review = banner.get_attribute("data-editor-review").as_deref() == Some("true");
            return Some(Click::Approval(
                callback,
                action,
                ApprovalBanner {
                    block,
                    banner,
                    editor_review,
                },
            ));
        }
        if let Some(button) = target.closest(".edit-revert-button").ok()? {
            if self.recovery.disabled || dom::is_disabled(&button) {
                return None;
            }
            let control = button.closest(".edit-revert-control").ok()??;
            let checkpoint = self
                .recovery
                .checkpoints
                .get(&control.get_attribute("data-checkpoint-id")?)?
                .clone();
            return Some(Click::Revert(self.recovery.on_revert.clone()?, control, checkpoint));
        }
        if let Some(button) = target.closest(".response-snapshot-button").ok()? {
            if self.recovery.disabled || dom::is_disabled(&button) {
                return None;
            }
            return Some(Click::Snapshot(self.recovery.on_snapshot.clone()?, button));
        }
        self.preflight_click(&target)
            .map(|(callback, action)| Click::Preflight(callback, action))
    }

    fn preflight_click(&self, target: &Element) -> Option<(PreflightCallback, PreflightAction)> {
        let button = target.closest(".tool-preflight-btn").ok()??;
        let action = match button.get_attribute("data-action")?.as_str() {
            "retry" => PreflightAction::Retry,
            "cancel" => PreflightAction::Cancel,
            _ => return None,
        };
        let block = button.closest(".tool-block").ok()??;
        let call_id = block.get_attribute("data-call-id")?;
        let callback = self.preflight_actions.get(&call_id)?.clone();
        Some((callback, action))
    }

    fn show_empty_state(&self) {
        if let Some(empty) = &self.empty_state {
            let _ = self.messages.append_child(empty);
        }
    }

    fn hide_empty_state(&self) {
        if let Some(empty) = &self.empty_state {
            empty.remove();
        }
    }

    fn cancel_frame(&mut self) {
        if let Some(handle) = self.frame.take()
            && let Some(window) = web_sys::window()
        {
            let _ = window.cancel_animation_frame(handle);
        }
        self.follow_at_request = None;
    }

    /// Asks for one frame to show pending text; a frame already requested
    /// covers it (this is the once-per-frame batching).
    fn request_frame(&mut self) {
        if self.frame.is_some() {
            return;
        }
        let Some(callback) = self.frame_callback.as_ref() else {
            return;
        };
        let Some(window) = web_sys::window() else { return };
        let follow = self.near_bottom();
        if let Ok(handle) = window.request_animation_frame(callback.as_ref().unchecked_ref()) {
            self.frame = Some(handle);
            self.follow_at_request = Some(follow);
        }
    }

    /// Shows text that arrived since the last frame: the new suffix only,
    /// as text nodes (unfinished Markdown stays inert).
    fn flush(&mut self) {
        let follow_at_request = self.follow_at_request;
        self.cancel_frame();
        let follow = follow_at_request.unwrap_or_else(|| self.near_bottom());
        let Some(stream) = self.stream.as_mut() else { return };
        let pending = stream.model.take_pending();
        let mut changed = false;
        if let (Some(text), Some((_, node))) = (pending.text, stream.text.as_ref()) {
            let _ = node.append_data(&text);
            changed = true;
        }
        if let (Some((text, _total)), Some(reasoning)) = (pending.reasoning, stream.reasoning.as_ref()) {
            append_reasoning(reasoning, &text);
            changed = true;
        }
        if changed {
            self.finish_mutation(follow);
        }
    }

    fn apply_changes(&mut self, changes: Vec<Change>) {
        let Some(stream) = self.stream.as_mut() else { return };
        for change in changes {
            match change {
                Change::OpenReasoning => {
                    let (block, parts) = reasoning_block("", true);
                    let _ = stream.body.append_child(&block);
                    stream.reasoning = parts;
                }
                Change::CloseReasoning { pending } => {
                    if let Some(reasoning) = stream.reasoning.take() {
                        if !pending.is_empty() {
                            append_reasoning(&reasoning, &pending);
                        }
                        close_reasoning(&reasoning);
                    }
                }
                Change::OpenText => {
                    let Some(node) = text_node("") else { continue };
                    let content = el("div").class("msg-content").build();
                    let _ = content.append_child(&node);
                    let _ = stream.body.append_child(&content);
                    stream.text = Some((content, node));
                }
                Change::CloseText { markdown } => {
                    if let Some((content, _)) = stream.text.take() {
                        render_markdown_into(&content, &markdown);
                    }
                }
                Change::AddTools(calls) => {
                    for call in &calls {
                        let _ = stream.body.append_child(&tool_block(call, None));
                    }
                }
            }
        }
    }

    fn finish_stream(&mut self, status: ResponseStatus) -> Option<Value> {
        self.flush();
        let follow = self.near_bottom();
        let changes = self.stream.as_mut().map(|s| s.model.finish()).unwrap_or_default();
        self.apply_changes(changes);
        let stream = self.stream.take()?;
        self.preflight_actions.clear();
        self.approval_actions.clear();
        let _ = stream.group.class_list().remove_1("streaming");
        let entry = stream.model.display_entry(status);
        if let Some(entry) = &entry {
            let complete = status == ResponseStatus::Complete;
            if complete {
                self.remove_snapshot_buttons();
            }
            self.add_recovery_control(&stream.group, entry, complete);
        }
        if entry.is_none() {
            stream.group.remove();
            if self.messages.child_element_count() == 0 {
                self.show_empty_state();
            }
        }
        self.finish_mutation(follow);
        entry
    }

    /// Appends the Revert/Snapshot control to an answer's group when it has
    /// a receipt or is the latest complete answer.
    fn add_recovery_control(&mut self, group: &Element, message: &Value, snapshot: bool) {
        let checkpoint = PublicEditCheckpoint::latest_in_message(message, js_sys::Date::now());
        if checkpoint.is_none() && !snapshot {
            return;
        }
        let control = el("div").class("edit-revert-control response-recovery-control").build();
        let _ = control.set_attribute("data-has-snapshot", if snapshot { "true" } else { "false" });
        let view = checkpoint.as_ref().map(|c| edits::revert_view(c, false));
        if let Some(checkpoint) = checkpoint {
            let _ = control.set_attribute("data-checkpoint-id", &checkpoint.id);
            self.recovery.checkpoints.insert(checkpoint.id.clone(), checkpoint);
        }
        self.fill_control(&control, view.as_ref(), None);
        // After the answer's body, not inside it: the body holds exactly what
        // the model produced.
        let _ = group.append_child(&control);
    }

    /// Redraws a control with `view` for its receipt (none: Snapshot only).
    fn fill_control(&self, control: &Element, view: Option<&RevertView>, note: Option<&str>) {
        let checkpoint = control
            .get_attribute("data-checkpoint-id")
            .and_then(|id| self.recovery.checkpoints.get(&id));
        let snapshot = control.get_attribute("data-has-snapshot").as_deref() == Some("true");
        edit_view::fill_recovery_control(control, checkpoint.zip(view), snapshot, self.recovery.disabled, note);
    }

    /// A newer complete answer takes the Snapshot button; controls left
    /// with nothing go.
    fn remove_snapshot_buttons(&self) {
        for button in query_all(&self.messages, ".response-snapshot-button") {
            let control = button.closest(".response-recovery-control").ok().flatten();
            button.remove();
            if let Some(control) = control {
                let _ = control.set_attribute("data-has-snapshot", "false");
                if control.get_attribute("data-checkpoint-id").is_none() {
                    control.remove();
                }
            }
        }
    }

    /// Drops the stream and every message.
    fn reset(&mut self) {
        self.cancel_frame();
        self.stream = None;
        self.preflight_actions.clear();
        self.approval_actions.clear();
        self.recovery.checkpoints.clear();
        self.messages.replace_children_with_node_0();
        dom::set_hidden(&self.jump, true);
    }
}

fn append_reasoning(reasoning: &LiveReasoning, text: &str) {
    let _ = reasoning.text.append_data(text);
    reasoning
        .meta
        .set_text_content(Some(&labels::reasoning_meta(reasoning.text.length() as usize)));
    if reasoning.follow {
        reasoning.body.set_scroll_top(reasoning.body.scroll_height());
    }
}

fn close_reasoning(reasoning: &LiveReasoning) {
    let _ = reasoning.block.remove_attribute("open");
    let _ = reasoning.block.class_list().remove_1("is-live");
    reasoning.title.set_text_content(Some(REASONING_DONE_TITLE));
}

/// A reasoning block: a `<details>` whose summary names it and counts its
/// characters. Live blocks start open and follow their own output.
fn reasoning_block(text: &str, live: bool) -> (Element, Option<LiveReasoning>) {
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
    let node = text_node(text);
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

/// A tool block: label, status pill and a collapsible detail. `summary` is
/// given for calls shown from history; live calls start as running.
fn tool_block(call: &ToolCallInfo, summary: Option<&ResultSummary>) -> Element {
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

/// The elements under `root` matching `selector`.
fn query_all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(nodes) = root.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..nodes.length())
        .filter_map(|index| nodes.get(index)?.dyn_into::<Element>().ok())
        .collect()
}

pub(super) fn set_status(block: &Element, status: &ToolStatus) {
    if let Ok(Some(pill)) = block.query_selector(".tool-status") {
        pill.set_class_name(status.kind.class());
        pill.set_text_content(Some(&status.text));
    }
}

fn apply_summary(block: &Element, summary: &ResultSummary) {
    set_status(block, &summary.status);
    if let (Some(detail), Ok(Some(pre))) = (&summary.detail, block.query_selector(".tool-block-detail")) {
        pre.set_text_content(Some(detail));
    }
}

fn remove_banner(block: &Element) {
    if let Ok(Some(banner)) = block.query_selector(".tool-preflight") {
        banner.remove();
    }
}

/// The block of `call_id` in `root`, compared exactly (ids are not escaped
/// into a selector).
fn find_tool_block(root: &Element, call_id: &str) -> Option<Element> {
    let blocks = root.query_selector_all(".tool-block").ok()?;
    (0..blocks.length())
        .filter_map(|index| blocks.get(index)?.dyn_into::<Element>().ok())
        .find(|block| block.get_attribute("data-call-id").as_deref() == Some(call_id))
}

fn user_group(message: &Value) -> Element {
    let view = labels::user_message_view(message);
    let body = el("div").class("msg-body");
    let mut attachments: Vec<Element> = view
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
    if !view.previews.is_empty() {
        let thumbs = view.previews.iter().map(|preview| match preview {
            labels::PreviewView::Thumbnail { data_url, alt } => el("div")
                .class("msg-user-thumb-wrap")
                .child(el("img").class("msg-user-thumb").attr("alt", alt).attr("src", data_url))
                .build(),
            labels::PreviewView::Omitted { text, reason } => el("span")
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
        .child(body.child(el("div").class("msg-user-text").text(&view.text)))
        .build()
}

fn assistant_group(message: &Value) -> Element {
    let body = el("div").class("msg-body").build();
    for segment in assistant_segments(message) {
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
                render_markdown_into(&content, &text);
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

/// Replaces `element`'s content with `text` rendered as Markdown, or with
/// `text` as plain text when rendering is refused at any step.
fn render_markdown_into(element: &Element, text: &str) {
    match markdown_fragment(text) {
        Ok(fragment) => element.replace_children_with_node_1(&fragment),
        Err(error) => {
            web_sys::console::warn_1(&JsValue::from_str(&format!(
                "Typst Side Agent: Markdown shown as text ({}): {error}",
                error.code()
            )));
            element.set_text_content(Some(text));
        }
    }
}

/// THE ONLY PLACE THE PANEL PARSES AN HTML STRING. Its input is the
/// sanitised, audited output of `chat::markdown::render`; a `<template>`
/// parses it inertly (no script runs, nothing loads), and every element of
/// the result is checked against the same allowlist before it is adopted.
fn markdown_fragment(text: &str) -> Result<DocumentFragment, MarkdownError> {
    let html = markdown::render(text)?;
    let template: HtmlTemplateElement = dom::document()
        .and_then(|d| d.create_element("template").ok())
        .and_then(|t| t.dyn_into().ok())
        .ok_or(MarkdownError::Malformed)?;
    template.set_inner_html(&html);
    let fragment = template.content();
    audit_fragment(&fragment)?;
    Ok(fragment)
}

/// Walks every element of `fragment` (iteratively: answers can nest deeply).
fn audit_fragment(fragment: &DocumentFragment) -> Result<(), MarkdownError> {
    let mut stack: Vec<Element> = Vec::new();
    let mut next = fragment.first_element_child();
    while let Some(element) = next {
        next = element.next_element_sibling();
        stack.push(element);
    }
    while let Some(element) = stack.pop() {
        let name = element.local_name();
        if element.namespace_uri().as_deref() != Some(HTML_NAMESPACE) {
            return Err(MarkdownError::ForbiddenElement(name));
        }
        markdown::element_allowed(&name)?;
        let mut has_href = false;
        for attribute in element.get_attribute_names().iter() {
            let attribute = attribute.as_string().unwrap_or_default();
            let value = element.get_attribute(&attribute).unwrap_or_default();
            markdown::attribute_allowed(&name, &attribute, &value)?;
            has_href |= attribute == "href";
        }
        if name == "a" {
            markdown::link_complete(has_href)?;
        }
        let mut child = element.first_element_child();
        while let Some(element) = child {
            child = element.next_element_sibling();
            stack.push(element);
        }
    }
    Ok(())
}
