//! Quick attach in the panel: which of the worker's events this panel takes,
//! in what order, and each only once.
//!
//! An event reaches a panel twice at most: as the worker's broadcast (a panel
//! that was open) and in the answer of `QUICK_ATTACH_DRAIN` (a panel that the
//! click opened drains its window's queue when it starts). Events are kept by
//! their id, so the second copy is dropped; events that arrive while the
//! panel is still starting wait until it knows its tab. The panel's own copy
//! of the page's empty request (runtime messages reach every extension page)
//! carries no origin and is ignored, and so is an event of another tab or
//! window.

use protocol::limits;
use protocol::messages::{ParseOptions, Payload, parse_envelope};
use protocol::payloads::QuickAttachOrigin;
use serde_json::{Value, json};
use std::collections::VecDeque;

/// What the page's button offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QuickAttachKind {
    /// "Add to agent" beside the editor selection.
    Selection,
    /// "Add image to agent" beside the opened image.
    Image,
}

/// One event of the worker: its kind and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QuickAttachEvent {
    pub(crate) kind: QuickAttachKind,
    pub(crate) origin: QuickAttachOrigin,
}

impl QuickAttachEvent {
    /// The event a parsed runtime message carries, if it is a quick attach
    /// with an origin (the worker's form).
    pub(crate) fn from_payload(payload: &Payload) -> Option<QuickAttachEvent> {
        let (kind, attach) = match payload {
            Payload::QuickAttachSelection(attach) => (QuickAttachKind::Selection, attach),
            Payload::QuickAttachImagePreview(attach) => (QuickAttachKind::Image, attach),
            _ => return None,
        };
        Some(QuickAttachEvent {
            kind,
            origin: attach.origin.clone()?,
        })
    }

    /// Whether the event belongs to the panel showing `tab_id` in `window_id`.
    pub(crate) fn is_for(&self, tab_id: Option<u64>, window_id: Option<u64>) -> bool {
        tab_id == Some(self.origin.tab_id) && window_id == Some(self.origin.window_id)
    }
}

/// The events of a `QUICK_ATTACH_DRAIN` answer (`[{type, payload}]`), each
/// read by the protocol's parser of its type; anything else is skipped.
pub(crate) fn drained_events(answer: &Value) -> Vec<QuickAttachEvent> {
    answer
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let message = json!({"type": item.get("type")?, "requestId": "drain", "payload": item.get("payload")?});
            let envelope = parse_envelope(&message, &ParseOptions::default()).ok()?;
            QuickAttachEvent::from_payload(&envelope.payload)
        })
        .collect()
}

/// The panel's quick-attach inbox: events waiting to be delivered, one at a
/// time, and the ids already taken.
#[derive(Debug, Default)]
pub(crate) struct QuickAttachInbox {
    seen: VecDeque<String>,
    pending: VecDeque<QuickAttachEvent>,
    /// The panel finished starting (it knows its tab and window).
    ready: bool,
    /// A delivery is under way; later events wait for it.
    delivering: bool,
}

impl QuickAttachInbox {
    /// Takes `event` unless its id was taken before; the oldest ids are
    /// forgotten beyond [`limits::MAX_SEEN_QUICK_ATTACH_IDS`].
    pub(crate) fn accept(&mut self, event: QuickAttachEvent) -> bool {
        if let Some(id) = &event.origin.event_id {
            if self.seen.contains(id) {
                return false;
            }
            self.seen.push_back(id.clone());
            while self.seen.len() > limits::MAX_SEEN_QUICK_ATTACH_IDS as usize {
                self.seen.pop_front();
            }
        }
        self.pending.push_back(event);
        true
    }

    /// Marks the panel started; the events that waited are delivered next.
    pub(crate) fn set_ready(&mut self) {
        self.ready = true;
    }

    /// Whether the panel finished starting.
    pub(crate) fn is_ready(&self) -> bool {
        self.ready
    }

    /// Starts a delivery run when one may start: the panel is ready, none is
    /// under way and something waits. The caller then takes events with
    /// [`next`](Self::next) until it returns `None`.
    pub(crate) fn begin_delivery(&mut self) -> bool {
        if !self.ready || self.delivering || self.pending.is_empty() {
            return false;
        }
        self.delivering = true;
        true
    }

    /// The next event of a delivery run; `None` ends the run.
    pub(crate) fn next(&mut self) -> Option<QuickAttachEvent> {
        let next = self.pending.pop_front();
        if next.is_none() {
            self.delivering = false;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: QuickAttachKind, id: Option<&str>) -> QuickAttachEvent {
        QuickAttachEvent {
            kind,
            origin: QuickAttachOrigin {
                tab_id: 7,
                window_id: 1,
                event_id: id.map(str::to_owned),
            },
        }
    }

    #[test]
    fn an_event_is_taken_once_by_id_and_ids_are_bounded() {
        let mut inbox = QuickAttachInbox::default();
        assert!(inbox.accept(event(QuickAttachKind::Selection, Some("quick-1"))));
        assert!(!inbox.accept(event(QuickAttachKind::Selection, Some("quick-1"))));
        assert!(inbox.accept(event(QuickAttachKind::Image, None)));
        assert!(inbox.accept(event(QuickAttachKind::Image, None)), "no id, no dedupe");
        for n in 2..=129 {
            assert!(inbox.accept(event(QuickAttachKind::Selection, Some(&format!("quick-{n}")))));
        }
        assert!(
            inbox.accept(event(QuickAttachKind::Selection, Some("quick-1"))),
            "the oldest id was forgotten after 128 more"
        );
        assert!(!inbox.accept(event(QuickAttachKind::Selection, Some("quick-129"))));
    }

    #[test]
    fn events_wait_until_the_panel_is_ready_and_are_delivered_one_run_at_a_time() {
        let mut inbox = QuickAttachInbox::default();
        inbox.accept(event(QuickAttachKind::Selection, Some("a")));
        assert!(!inbox.begin_delivery(), "not started yet");
        inbox.set_ready();
        assert!(inbox.begin_delivery());
        assert!(!inbox.begin_delivery(), "one run at a time");
        inbox.accept(event(QuickAttachKind::Image, Some("b")));
        assert_eq!(inbox.next().map(|e| e.kind), Some(QuickAttachKind::Selection));
        assert_eq!(inbox.next().map(|e| e.kind), Some(QuickAttachKind::Image));
        assert_eq!(inbox.next(), None);
        assert!(!inbox.begin_delivery(), "nothing waits");
        inbox.accept(event(QuickAttachKind::Image, Some("c")));
        assert!(inbox.begin_delivery());
    }

    #[test]
    fn only_the_worker_form_for_this_tab_and_window_counts() {
        let parse = |message: Value| parse_envelope(&message, &ParseOptions::default()).expect("valid");
        let page = parse(json!({"type": "QUICK_ATTACH_SELECTION", "requestId": "q", "payload": {}}));
        assert_eq!(
            QuickAttachEvent::from_payload(&page.payload),
            None,
            "the page's own copy"
        );
        let worker = parse(json!({"type": "QUICK_ATTACH_IMAGE_PREVIEW", "requestId": "q",
            "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-x"}}));
        let event = QuickAttachEvent::from_payload(&worker.payload).expect("an event");
        assert_eq!(event.kind, QuickAttachKind::Image);
        assert!(event.is_for(Some(7), Some(1)));
        assert!(!event.is_for(Some(8), Some(1)), "another tab");
        assert!(!event.is_for(Some(7), Some(2)), "another window");
        assert!(!event.is_for(None, None));
    }

    #[test]
    fn a_drain_answer_is_read_item_by_item_with_the_protocols_parser() {
        let answer = json!([
            {"type": "QUICK_ATTACH_SELECTION", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-1"}},
            {"type": "QUICK_ATTACH_IMAGE_PREVIEW", "payload": {"tabId": 7, "windowId": -1}},
            {"type": "SESSION_LIST", "payload": {"projectId": "p1"}},
            {"type": "QUICK_ATTACH_IMAGE_PREVIEW", "payload": {}},
            "junk",
            {"type": "QUICK_ATTACH_IMAGE_PREVIEW", "payload": {"tabId": 7, "windowId": 1, "eventId": "quick-2"}}
        ]);
        let events = drained_events(&answer);
        assert_eq!(
            events
                .iter()
                .map(|e| (e.kind, e.origin.event_id.clone()))
                .collect::<Vec<_>>(),
            [
                (QuickAttachKind::Selection, Some("quick-1".to_owned())),
                (QuickAttachKind::Image, Some("quick-2".to_owned()))
            ]
        );
        assert!(drained_events(&json!({"not": "a list"})).is_empty());
    }
}
