//! Quick attach: the page's "Add to agent" buttons, from the click to the
//! panel of the window they were clicked in.
//!
//! The page sends `QUICK_ATTACH_SELECTION` or `QUICK_ATTACH_IMAGE_PREVIEW`
//! with an empty payload; where it came from is the message's sender, which
//! the browser fills in and the page cannot choose. The worker gives the
//! event an id, queues it, opens the side panel of that window and
//! broadcasts it with its origin. A panel that was already open takes the
//! broadcast; one that the click opened starts too late for it and takes the
//! window's queued events with `QUICK_ATTACH_DRAIN`. The panel reads the
//! selection or the image itself, from the originating tab, so nothing of the
//! page travels in these messages.
//!
//! The queue lives in memory only, as in the original: an event is worth
//! 30 seconds, and a worker that Chrome stopped in between has nobody waiting
//! for it.

use crate::envelope::{self, RequestError};
use crate::platform::{BrowserSender, Clock, Messenger, Platform, Tabs};
use protocol::constants::project_of_url;
use protocol::payloads::QuickAttachOrigin;
use protocol::{ErrorCode, MessageType, limits};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::collections::VecDeque;

/// One queued event.
struct Queued {
    kind: MessageType,
    origin: QuickAttachOrigin,
    created_at_ms: f64,
}

/// The events no panel has drained yet, oldest first: at most
/// [`limits::MAX_QUICK_ATTACH_QUEUE`], none older than
/// [`limits::QUICK_ATTACH_TTL_MS`].
#[derive(Default)]
pub(crate) struct QuickAttachQueue {
    entries: RefCell<VecDeque<Queued>>,
}

impl QuickAttachQueue {
    pub(crate) fn new() -> Self {
        QuickAttachQueue::default()
    }

    /// Drops what expired, then the oldest beyond the bound.
    fn prune(entries: &mut VecDeque<Queued>, now_ms: f64) {
        let cutoff = now_ms - f64::from(limits::QUICK_ATTACH_TTL_MS);
        while entries.front().is_some_and(|entry| entry.created_at_ms < cutoff) {
            entries.pop_front();
        }
        while entries.len() > limits::MAX_QUICK_ATTACH_QUEUE as usize {
            entries.pop_front();
        }
    }

    fn push(&self, kind: MessageType, origin: QuickAttachOrigin, now_ms: f64) {
        let mut entries = self.entries.borrow_mut();
        entries.push_back(Queued {
            kind,
            origin,
            created_at_ms: now_ms,
        });
        Self::prune(&mut entries, now_ms);
    }

    /// Removes and returns the live events of `window_id`, oldest first.
    fn drain(&self, window_id: u64, now_ms: f64) -> Vec<(MessageType, QuickAttachOrigin)> {
        let mut entries = self.entries.borrow_mut();
        Self::prune(&mut entries, now_ms);
        let (taken, kept): (VecDeque<Queued>, VecDeque<Queued>) =
            entries.drain(..).partition(|entry| entry.origin.window_id == window_id);
        *entries = kept;
        taken.into_iter().map(|entry| (entry.kind, entry.origin)).collect()
    }
}

/// The tab and window of a sender, if it is a typst.app project tab.
fn source_of(sender: &BrowserSender) -> Result<(u64, u64), RequestError> {
    let tab = sender.tab.as_ref();
    let id = |value: Option<i64>| value.and_then(|v| u64::try_from(v).ok());
    let (Some(tab_id), Some(window_id)) = (id(tab.and_then(|t| t.id)), id(tab.and_then(|t| t.window_id))) else {
        return Err(RequestError::new(
            ErrorCode::QuickAttachSourceMissing,
            "Quick attachment requires an originating tab and window.",
        ));
    };
    let url = tab.and_then(|t| t.url.as_deref()).unwrap_or_default();
    if project_of_url(url).is_none() {
        return Err(RequestError::new(
            ErrorCode::InvalidQuickAttachSource,
            "Quick attachment is accepted only from a typst.app project tab.",
        ));
    }
    Ok((tab_id, window_id))
}

fn event_payload(origin: &QuickAttachOrigin) -> Value {
    serde_json::to_value(origin).unwrap_or_else(|_| json!({}))
}

/// `QUICK_ATTACH_SELECTION` / `QUICK_ATTACH_IMAGE_PREVIEW` from a page:
/// queue, open the window's panel, broadcast. The payload is ignored (the
/// protocol lets only `{}` or an origin through, and an origin is the
/// worker's to give). The panel is opened before anything else is awaited,
/// because Chrome honours `sidePanel.open` only while the click's user
/// gesture lasts. A refusal to open is reported to the page, but the event
/// is still queued and broadcast: a panel that is already open takes it.
pub(crate) async fn dispatch<P: Platform>(
    p: &P,
    queue: &QuickAttachQueue,
    kind: MessageType,
    sender: &BrowserSender,
) -> Result<Value, RequestError> {
    let (tab_id, window_id) = source_of(sender)?;
    let origin = QuickAttachOrigin {
        tab_id,
        window_id,
        event_id: Some(format!("quick-{}", p.clock().uuid())),
    };
    queue.push(kind, origin.clone(), p.clock().now_ms());
    let window = i64::try_from(window_id).unwrap_or(i64::MAX);
    let opened = p.tabs().open_side_panel(window).await;
    let messenger = p.messenger();
    messenger.broadcast(envelope::request(
        kind,
        messenger.new_request_id(),
        event_payload(&origin),
    ));
    match opened {
        Ok(()) => Ok(json!({ "ok": true, "eventId": origin.event_id })),
        Err(error) => Err(RequestError::new(
            ErrorCode::RequestFailed,
            format!("The side panel could not be opened: {error}"),
        )),
    }
}

/// `QUICK_ATTACH_DRAIN`: the window's queued events as
/// `[{type, payload:{tabId, windowId, eventId}}]`, removed from the queue.
pub(crate) fn drain(queue: &QuickAttachQueue, clock: &impl Clock, window_id: u64) -> Value {
    let drained = queue.drain(window_id, clock.now_ms());
    Value::Array(
        drained
            .iter()
            .map(|(kind, origin)| json!({ "type": kind.as_str(), "payload": event_payload(origin) }))
            .collect(),
    )
}

#[cfg(test)]
mod tests;
