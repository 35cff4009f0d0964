//! A scripted page: answers `chrome.tabs.sendMessage` from a closure and
//! records what the worker sent. A closure answers with a value (sent as its
//! JSON text, as the browser adapter hands it over) or, to play a hostile
//! page, with any text at all.

use crate::platform::{Pages, PlatformError};
use serde_json::Value;
use std::cell::RefCell;

type Responder = Box<dyn FnMut(i64, &Value) -> Result<Option<String>, PlatformError>>;

pub(crate) struct FakePages {
    responder: RefCell<Responder>,
    sent: RefCell<Vec<(i64, Value)>>,
}

impl Default for FakePages {
    fn default() -> Self {
        FakePages::answering(|_, _| {
            Err(PlatformError(
                "Could not establish connection. Receiving end does not exist.".into(),
            ))
        })
    }
}

impl FakePages {
    pub(crate) fn answering(
        responder: impl FnMut(i64, &Value) -> Result<Option<Value>, PlatformError> + 'static,
    ) -> Self {
        FakePages {
            responder: RefCell::new(as_text(responder)),
            sent: RefCell::new(Vec::new()),
        }
    }
    pub(crate) fn set_responder(
        &self,
        responder: impl FnMut(i64, &Value) -> Result<Option<Value>, PlatformError> + 'static,
    ) {
        *self.responder.borrow_mut() = as_text(responder);
    }
    /// Answers with `responder`'s text as it is (deep nesting, huge strings,
    /// text that is not JSON).
    pub(crate) fn set_text_responder(
        &self,
        responder: impl FnMut(i64, &Value) -> Result<Option<String>, PlatformError> + 'static,
    ) {
        *self.responder.borrow_mut() = Box::new(responder);
    }
    pub(crate) fn sent(&self) -> Vec<(i64, Value)> {
        self.sent.borrow().clone()
    }
}

fn as_text(mut responder: impl FnMut(i64, &Value) -> Result<Option<Value>, PlatformError> + 'static) -> Responder {
    Box::new(move |tab_id, message| Ok(responder(tab_id, message)?.map(|answer| answer.to_string())))
}

impl Pages for FakePages {
    async fn send(&self, tab_id: i64, message: Value, _max_bytes: usize) -> Result<Option<String>, PlatformError> {
        self.sent.borrow_mut().push((tab_id, message.clone()));
        (self.responder.borrow_mut())(tab_id, &message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::block_on;
    use serde_json::json;

    #[test]
    fn answers_from_the_responder_and_records_messages() {
        let pages = FakePages::default();
        assert!(block_on(pages.send(4, json!({"type": "PAGE_GET_PROBE"}), 100)).is_err());
        pages.set_responder(|tab, message| Ok(Some(json!({"tab": tab, "echo": message["type"]}))));
        assert_eq!(
            block_on(pages.send(5, json!({"type": "X"}), 100)),
            Ok(Some(json!({"tab": 5, "echo": "X"}).to_string()))
        );
        assert_eq!(pages.sent().len(), 2);
    }
}
