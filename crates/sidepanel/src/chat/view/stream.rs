//! The streaming answer of a run: what [`AssistantStream`] does with each
//! run event, and how `Inner` mirrors the stream model's changes (text at
//! most once per animation frame; each Markdown block rendered once, when it
//! closes: `live_text.rs`).

use super::banners::{self, ApprovalBanner};
use super::live_text::{LiveText, Step};
use super::reasoning::{append_reasoning, close_reasoning, reasoning_block};
use super::state::{AssistantStream, Inner};
use super::tool_block::{apply_summary, find_tool_block, remove_banner, set_status, tool_block};
use crate::chat::incremental::SLICE_BYTES;
use crate::chat::labels::{self, ToolStatus};
use crate::chat::model::Change;
use crate::dom;
use crate::edit_review::ApprovalPrompt;
use protocol::answer::ResponseStatus;
use protocol::payloads::{
    ApprovalAction, ApprovalRequired, PreflightAction, PreflightWaiting, StreamItem, ToolCallInfo,
};
use serde_json::{Map, Value};
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// Milliseconds of Markdown rendering one frame starts slices for: with
/// the DOM insertion and layout that follow, a frame's task stays well
/// under the 50 ms of a long task even while the render code is still cold.
const FRAME_RENDER_MS: f64 = 8.0;

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
            let changes = match inner.stream.as_mut() {
                Some(stream) => stream.model.apply_batch(items),
                None => return,
            };
            if !changes.is_empty() {
                // Measured before the DOM changes (the model touches none),
                // and only then: most batches only grow the open text.
                let follow = inner.near_bottom();
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
            let prompt = labels::preflight_prompt(&waiting.name, &waiting.missing, &waiting.hint);
            set_status(&block, &prompt.status);
            remove_banner(&block);
            let banner = banners::preflight_banner(&prompt);
            let _ = block.append_child(&banner);
            inner
                .preflight_actions
                .insert(waiting.call_id.clone(), Rc::new(on_action));
            inner.finish_mutation(follow);
        });
    }

    /// `AI_TOOL_APPROVAL_REQUIRED`: the approval banner (the complete diff
    /// for an editor review) in the call's block; a click calls `on_choice`
    /// with the action and the banner to show the outcome on. Sent again
    /// while that banner is up, only its notice changes.
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
            let prompt = ApprovalPrompt::from_event(approval);
            if let Ok(Some(shown)) = block.query_selector(".tool-approval") {
                banners::set_approval_notice(&shown, prompt.notice.as_deref());
                inner.finish_mutation(follow);
                return;
            }
            set_status(&block, &labels::approval_waiting_status());
            remove_banner(&block);
            let banner = banners::approval_banner(&prompt);
            let _ = banner.set_attribute(
                "data-editor-review",
                if prompt.editor_review { "true" } else { "false" },
            );
            let _ = block.append_child(&banner);
            inner
                .approval_actions
                .insert(approval.call_id.clone(), Rc::new(on_choice));
            inner.finish_mutation(follow);
            // The run waits for this answer: focus that is nowhere (the
            // composer turned off at Send) goes to its first choice.
            if dom::active_element().is_none()
                && let Ok(Some(first)) = banner.query_selector(".tool-approval-btn")
            {
                dom::focus(&first);
            }
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
    pub(super) fn cancel_frame(&mut self) {
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

    /// Shows text that arrived since the last frame, the new suffix only,
    /// as text nodes (unfinished Markdown stays inert), and renders the
    /// next closed Markdown blocks: one budget per frame, another frame
    /// while more wait.
    pub(super) fn flush(&mut self) {
        let follow = self.take_frame();
        let mut step = Step {
            changed: self.take_pending(),
            more: false,
        };
        let rendered = self.render_step();
        step.changed |= rendered.changed;
        step.more = rendered.more;
        if step.changed {
            self.finish_mutation(follow);
        }
        if step.more {
            self.request_frame();
        }
    }

    /// Cancels the pending frame (its work is done now) and says whether
    /// the chat follows new output, as it did when that frame was asked for.
    fn take_frame(&mut self) -> bool {
        let follow_at_request = self.follow_at_request;
        self.cancel_frame();
        follow_at_request.unwrap_or_else(|| self.near_bottom())
    }

    /// Moves the text and reasoning that arrived since the last frame into
    /// the live segments (text is rendered by [`render_step`](Self::render_step)).
    /// True when anything was shown.
    fn take_pending(&mut self) -> bool {
        let Some(stream) = self.stream.as_mut() else {
            return false;
        };
        let mut changed = false;
        let pending = stream.model.take_pending();
        if let (Some(text), Some(live)) = (pending.text, stream.text.as_mut()) {
            live.append(&text);
            changed = true;
        }
        if let (Some((text, _total)), Some(reasoning)) = (pending.reasoning, stream.reasoning.as_ref()) {
            append_reasoning(reasoning, &text);
            changed = true;
        }
        changed
    }

    /// One frame's Markdown: the oldest ended segment first, then the open
    /// one. An ended segment with nothing closed left gets its last block.
    /// Its slices stop once [`FRAME_RENDER_MS`] have passed.
    fn render_step(&mut self) -> Step {
        let deadline = js_sys::Date::now() + FRAME_RENDER_MS;
        let more_time = move || js_sys::Date::now() < deadline;
        if let Some(first) = self.closing.first_mut() {
            let mut step = first.step(more_time);
            if !step.more {
                self.closing.remove(0).finish();
                step.changed = true;
            }
            if self.closing.is_empty()
                && let Some(group) = self.rendering_group.take()
            {
                let _ = group.class_list().remove_1("streaming");
            }
            step.more |= !self.closing.is_empty();
            return step;
        }
        self.stream
            .as_mut()
            .and_then(|stream| stream.text.as_mut())
            .map(|live| live.step(more_time))
            .unwrap_or_default()
    }

    /// Renders every ended segment at once (a new answer starts).
    pub(super) fn finish_rendering_now(&mut self) {
        for live in self.closing.drain(..) {
            live.finish_now();
        }
        if let Some(group) = self.rendering_group.take() {
            let _ = group.class_list().remove_1("streaming");
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
                Change::OpenText => stream.text = LiveText::open(&stream.body),
                Change::CloseText { markdown } => {
                    if let Some(mut live) = stream.text.take() {
                        live.end(&markdown);
                        self.closing.push(live);
                    }
                }
                Change::AddTools(calls) => {
                    for call in &calls {
                        let _ = stream.body.append_child(&tool_block(call, None));
                    }
                }
            }
        }
        if !self.closing.is_empty() {
            self.request_frame();
        }
    }

    pub(super) fn finish_stream(&mut self, status: ResponseStatus) -> Option<Value> {
        // The text that arrived since the last frame joins its segment
        // unrendered: the one render step below takes it, so the end costs
        // one frame's budget, not two.
        let follow = self.take_frame();
        self.take_pending();
        let changes = self.stream.as_mut().map(|s| s.model.finish()).unwrap_or_default();
        self.apply_changes(changes);
        let stream = self.stream.take()?;
        self.preflight_actions.clear();
        self.approval_actions.clear();
        // An end with at most one slice of text left to render is rendered
        // in this task (a short answer shows complete at once); a longer one
        // goes to the frames already asked for, a budget each. Rendering it
        // here would add a render and the layout it forces to the message
        // task: with code still cold, a task of 70–85 ms.
        let unrendered: usize = self.closing.iter().map(LiveText::unrendered_len).sum();
        if unrendered <= SLICE_BYTES {
            let _ = self.render_step();
        }
        if self.closing.is_empty() {
            let _ = stream.group.class_list().remove_1("streaming");
        } else {
            // The ended text renders over the next frames; the class goes
            // with its last block.
            self.rendering_group = Some(stream.group.clone());
            self.request_frame();
        }
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
}
