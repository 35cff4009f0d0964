//! Which runtime messages the panel acts on, by sender.
//!
//! `chrome.runtime.sendMessage` from any context of this extension — the
//! worker, another panel, and every content script in a typst.app tab —
//! reaches this page. The panel acts only on the worker's broadcasts (run
//! events, `ACTIVE_TAB_CHANGED`, quick attaches with their origin); the rule
//! is `protocol::sender_policy`'s, so the adapter only reads the sender and
//! asks here. A message whose type the panel takes from the worker but that
//! came from elsewhere is dropped and counted; the first such drop is worth
//! one console warning.

use protocol::MessageType;
use protocol::sender_policy::{self, Receiver, Refusal, Sender, SenderRule};
use serde_json::Value;
use std::collections::BTreeMap;

/// What the panel does with one runtime message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A broadcast of the worker: the controller takes it.
    Accept,
    /// Not a message the panel acts on (another page's request to the
    /// worker, an unknown type): ignored without counting.
    NotForPanel,
    /// A type the panel takes from the worker, sent by someone else.
    Refused {
        /// Why.
        reason: Refusal,
        /// Whether this is the first refusal (the adapter warns once).
        first: bool,
    },
}

/// The panel's refusals by reason, for this page's lifetime.
#[derive(Debug, Default)]
pub(crate) struct BroadcastGate {
    refused: BTreeMap<Refusal, u64>,
}

impl BroadcastGate {
    /// Decides on `message` from `sender`; `runtime_id` is `chrome.runtime.id`.
    pub(crate) fn admit(&mut self, message: &Value, sender: &Sender<'_>, runtime_id: &str) -> Verdict {
        let Some(ty) = message
            .get("type")
            .and_then(Value::as_str)
            .and_then(MessageType::from_wire)
        else {
            return Verdict::NotForPanel;
        };
        if sender_policy::rule_for(Receiver::Panel, ty) == SenderRule::Nobody {
            return Verdict::NotForPanel;
        }
        match sender_policy::check(Receiver::Panel, ty, sender, runtime_id) {
            Ok(()) => Verdict::Accept,
            Err(reason) => {
                let first = self.refused.is_empty();
                *self.refused.entry(reason).or_default() += 1;
                Verdict::Refused { reason, first }
            }
        }
    }

    /// How many messages were refused for `reason`.
    #[cfg(test)]
    pub(crate) fn refused(&self, reason: Refusal) -> u64 {
        self.refused.get(&reason).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ID: &str = "abcdefghijklmnopabcdefghijklmnop";
    const WORKER_URL: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop/src/background/service-worker.js";
    const ORIGIN: &str = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";

    fn worker() -> Sender<'static> {
        Sender {
            id: Some(ID),
            url: Some(WORKER_URL),
            origin: Some(ORIGIN),
            ..Sender::default()
        }
    }

    fn content_script() -> Sender<'static> {
        Sender {
            id: Some(ID),
            url: Some("https://typst.app/project/p1"),
            origin: Some("https://typst.app"),
            frame_id: Some(0),
            has_tab: true,
            tab_url: Some("https://typst.app/project/p1"),
        }
    }

    fn event(kind: &str) -> Value {
        json!({"type": kind, "runId": "run-1", "payload": {}})
    }

    #[test]
    fn only_the_workers_broadcasts_are_taken() {
        let mut gate = BroadcastGate::default();
        for kind in [
            "AI_STREAM_DONE",
            "AI_TOOL_APPROVAL_REQUIRED",
            "ACTIVE_TAB_CHANGED",
            "QUICK_ATTACH_SELECTION",
        ] {
            assert_eq!(gate.admit(&event(kind), &worker(), ID), Verdict::Accept, "{kind}");
        }
        let panel = Sender {
            url: Some("chrome-extension://abcdefghijklmnopabcdefghijklmnop/src/sidepanel/index.html"),
            ..worker()
        };
        assert_eq!(
            gate.admit(&event("AI_STREAM_DONE"), &content_script(), ID),
            Verdict::Refused {
                reason: Refusal::NotWorker,
                first: true
            }
        );
        assert_eq!(
            gate.admit(&event("QUICK_ATTACH_SELECTION"), &content_script(), ID),
            Verdict::Refused {
                reason: Refusal::NotWorker,
                first: false
            }
        );
        assert_eq!(
            gate.admit(&event("AI_STREAM_ERROR"), &panel, ID),
            Verdict::Refused {
                reason: Refusal::NotWorker,
                first: false
            }
        );
        assert_eq!(
            gate.admit(&event("AI_STREAM_BATCH"), &Sender::default(), ID),
            Verdict::Refused {
                reason: Refusal::UnknownSender,
                first: false
            }
        );
        let other = Sender {
            id: Some("z"),
            ..worker()
        };
        assert!(matches!(
            gate.admit(&event("AI_STREAM_DONE"), &other, ID),
            Verdict::Refused {
                reason: Refusal::OtherExtension,
                ..
            }
        ));
        assert_eq!(gate.refused(Refusal::NotWorker), 3);
        assert_eq!(gate.refused(Refusal::UnknownSender), 1);
        assert_eq!(gate.refused(Refusal::OtherExtension), 1);
    }

    #[test]
    fn requests_to_the_worker_and_unknown_types_are_not_the_panels() {
        let mut gate = BroadcastGate::default();
        for message in [
            json!({"type": "LOAD_SETTINGS", "requestId": "r", "payload": {}}),
            json!({"type": "NOT_A_TYPE", "payload": {}}),
            json!("AI_STREAM_DONE"),
        ] {
            assert_eq!(
                gate.admit(&message, &content_script(), ID),
                Verdict::NotForPanel,
                "{message}"
            );
        }
        assert!(Refusal::ALL.iter().all(|reason| gate.refused(*reason) == 0));
    }
}
