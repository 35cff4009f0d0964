//! The worker's door by sender: who may send each type is
//! `protocol::sender_policy`'s rule; this module applies it to a runtime
//! message before its payload is read, answers a refusal with
//! `SENDER_NOT_ALLOWED` (a type nobody sends to the worker with
//! `UNROUTED_MESSAGE`, as before), and counts refusals by reason for this worker
//! instance (reported in `SESSION_STORAGE_STATUS` as `senderRefusals`).

use crate::envelope::RequestError;
use crate::platform::BrowserSender;
use protocol::sender_policy::{self, Receiver, Refusal};
use protocol::{ErrorCode, MessageType};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// The refusals this worker instance made, by reason.
#[derive(Default)]
pub(crate) struct SenderGate {
    counts: RefCell<[u64; Refusal::ALL.len()]>,
}

impl SenderGate {
    pub(crate) fn new() -> Self {
        SenderGate::default()
    }

    /// Admits `ty` from `sender` or refuses it (and counts the refusal).
    /// `message` is the raw runtime message: only its `type` is read, so a
    /// refused sender's payload is never parsed.
    pub(crate) fn admit(&self, message: &Value, sender: &BrowserSender, runtime_id: &str) -> Result<(), RequestError> {
        // An unknown type is the envelope check's to report; it routes nowhere.
        let Some(ty) = message
            .get("type")
            .and_then(Value::as_str)
            .and_then(MessageType::from_wire)
        else {
            return Ok(());
        };
        sender_policy::check(Receiver::Worker, ty, &sender.facts(), runtime_id).map_err(|refusal| {
            self.count(refusal);
            match refusal {
                // Nobody sends these to the worker: what the panel has always
                // been told about them stays true, whoever asks.
                Refusal::NeverSent => RequestError::unrouted(ty),
                _ => RequestError::new(
                    ErrorCode::SenderNotAllowed,
                    format!("{} was refused: {}.", ty.as_str(), refusal.explanation()),
                ),
            }
        })
    }

    fn count(&self, refusal: Refusal) {
        let mut counts = self.counts.borrow_mut();
        if let Some(index) = Refusal::ALL.iter().position(|r| *r == refusal) {
            counts[index] = counts[index].saturating_add(1);
        }
    }

    /// Every reason with its count, e.g. `{"notExtensionPage": 2, …}`.
    pub(crate) fn counts(&self) -> Value {
        let counts = self.counts.borrow();
        let map: Map<String, Value> = Refusal::ALL
            .iter()
            .zip(counts.iter())
            .map(|(refusal, count)| (refusal.as_str().to_owned(), Value::from(*count)))
            .collect();
        Value::Object(map)
    }
}

#[cfg(test)]
mod tests;
