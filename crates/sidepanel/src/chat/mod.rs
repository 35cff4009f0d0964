//! The chat area of the side panel: `#messages`, `#jump-latest`, user and
//! assistant messages, reasoning and tool blocks, preflight banners, the
//! streaming renderer and the one safe Markdown boundary; approval banners
//! with the text-only diff of an editor review, and each answer's Revert /
//! Snapshot control.
//!
//! Plain Rust decides (tested natively): [`markdown`] (Markdown → sanitised
//! HTML), [`incremental`] (which blocks of a streaming text are closed and
//! rendered in a frame), [`block_groups`] (which rendered blocks share a
//! group the browser may skip while it is off screen), [`model`] (the streaming state machine over
//! protocol's saved answer record, whose entry is the saved display message)
//! and [`labels`] (every text a block shows). The wasm-only `view/` mirrors those decisions into
//! DOM nodes; its `html_sink.rs` is the panel's only HTML sink.
//!
//! # API for the rest of the panel (wasm only)
//!
//! ```text
//! let chat = ChatView::mount(&container)?;     // builds #messages + #jump-latest in `container`
//! chat.set_empty_state(Some(suggestions));     // shown while there are no messages (owned by the caller)
//! chat.render_history(&messages);              // display messages (§7.4 shape), replaces everything
//! chat.append_user(&user_entry);               // at Send: {role:'user', content, sentAttachments?}
//! let stream = chat.begin_assistant();         // the streaming bubble of this run
//!
//! // run events of the active run, already parsed with protocol::parse_payload:
//! stream.apply_batch(&batch.items);            // AI_STREAM_BATCH (StreamItem: content | reasoning)
//! stream.add_tool_calls(&calls.calls);         // AI_TOOL_CALLS   (ToolCallInfo)
//! stream.set_tool_result(&r.call_id, &r.name, &r.result);          // AI_TOOL_RESULT
//! stream.show_preflight(&waiting, move |action| { /* send AI_TOOL_PREFLIGHT_RESOLVE
//!                                                    {callId, action} for this run */ });
//! stream.clear_preflight(&ready.call_id);      // AI_TOOL_PREFLIGHT_READY
//! stream.show_approval(&approval, move |action, banner| {
//!     // AI_TOOL_APPROVAL_REQUIRED: send AI_TOOL_APPROVAL_RESOLVE {callId, action}
//!     // for this run; banner.sending(), then banner.submitted(action) or
//!     // banner.failed(message) (the buttons come back).
//! });
//!
//! // editor writes (crate::edit_review and crate::recovery decide the words):
//! chat.set_recovery_handlers(|control, checkpoint| { /* Revert clicked */ },
//!                            |button| { /* Snapshot clicked */ });
//! chat.set_recovery_disabled(streaming || off_project);
//! chat.set_revert_busy(&control);  chat.finish_revert(&control, failed, note);
//! chat.show_checkpoints(&reverted_receipts);   // every control of those ids
//!
//! // terminal event:
//! let entry = stream.finish(ResponseStatus::Complete);   // AI_STREAM_DONE
//! let entry = stream.finish(ResponseStatus::Incomplete); // AI_STREAM_CANCELLED / _ERROR / local stop
//! // `entry` is Some(display message) to push onto the history and save with
//! // SESSION_UPDATE: protocol::answer::AnswerRecord::entry, the same message
//! // the worker saves for the answer. None means nothing arrived: the bubble
//! // was removed (an error before any output shows no empty answer).
//!
//! chat.scroll_to_bottom();
//! ```
//!
//! Rules the caller can rely on:
//! - [`ChatView`] and [`AssistantStream`] are cheap `Clone` handles. A stream
//!   handle goes stale when it finishes, when another `begin_assistant`
//!   starts (the older one is finished as incomplete) or when the chat is
//!   re-rendered or cleared; calls on a stale handle do nothing and
//!   `finish` returns `None`. So late events of a stopped run are harmless.
//! - The preflight callback runs from a click with no chat state borrowed:
//!   it may call back into the chat (e.g. `clear_preflight`). Retry sends
//!   [`PreflightAction::Retry`](protocol::payloads::PreflightAction), Skip
//!   sends `Cancel`. The banner stays until `clear_preflight` or the call's
//!   result; the buttons stay usable (Retry may be pressed again).
//! - Streaming text is appended as inert text at most once per animation
//!   frame; in the same frame every Markdown block it closed is rendered,
//!   once, and replaces its text; the blocks still open are rendered when
//!   the segment closes (reasoning starts, tool calls arrive, or `finish`). Reasoning streams
//!   into an open "Thinking" block that collapses into "Thought".
//! - The chat follows new output only while the user is within 72 px of the
//!   bottom; otherwise `#jump-latest` appears, and scrolling back down or
//!   clicking it hides it again. A rendered answer's blocks sit in block
//!   groups (`div.msg-blocks`) that the browser skips while they are far off
//!   screen; a text's newest group is always drawn, so following lands on
//!   the real end of the answer.
//! - An answer shows a recovery control when it holds an editor-write
//!   receipt (its latest one: Revert, Try revert again, Changes reverted or
//!   Revert unavailable) and, for the latest complete answer only, a
//!   Snapshot button; a newer complete answer takes the Snapshot button.
//! - Nothing here talks to the worker; the callbacks are the only way out.
//!
//! # Measuring render cost (bench)
//!
//! No test hook ships. A harness measures the real message path: seed a
//! model whose scripted endpoint streams the 100 KB answer as 2,000 SSE
//! content deltas, send from the real panel, and read the panel's own
//! Performance timeline through CDP (`Runtime.evaluate` in the panel
//! target): the time from the first `.msg-assistant.streaming` bubble to the
//! moment the bubble loses `streaming` and its `.msg-content` holds the
//! rendered Markdown, plus `performance.getEntriesByType('long-animation-frame')`
//! (or CDP `Performance.getMetrics` `ScriptDuration`/`LayoutDuration` deltas)
//! for the cost itself. The worker batches deltas every 32 ms, so the panel
//! sees roughly one `AI_STREAM_BATCH` per batch window, not 2,000 messages.

mod block_groups;
mod incremental;
mod labels;
mod markdown;
mod model;
mod warm_up;

#[cfg(target_arch = "wasm32")]
mod view;

#[cfg(target_arch = "wasm32")]
pub(crate) use view::{AssistantStream, ChatView, diff_element};
