//! The chat history a panel shows, shared by reference.
//!
//! A send captures the history it started from and a run appends its answer
//! to that same history, even if the user has since switched chats. Two
//! histories are "the same" only when they are the same allocation: a chat
//! reloaded from storage is a new history, so a send prepared against the old
//! one notices that the ground moved and sends nothing.

use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// Display messages (`{role:'user'|'assistant', …}`) of one open chat.
#[derive(Clone, Default)]
pub(crate) struct History(Rc<RefCell<Vec<Value>>>);

impl History {
    /// A fresh history holding a copy of `messages`.
    pub(crate) fn new(messages: Vec<Value>) -> History {
        History(Rc::new(RefCell::new(messages)))
    }

    pub(crate) fn push(&self, message: Value) {
        self.0.borrow_mut().push(message);
    }

    /// A copy of the messages (for requests and rendering).
    pub(crate) fn snapshot(&self) -> Vec<Value> {
        self.0.borrow().clone()
    }

    /// Changes the messages in place (a revert's receipts, a restore's
    /// note) and returns a copy of the result to save.
    pub(crate) fn update(&self, change: impl FnOnce(&mut Vec<Value>)) -> Vec<Value> {
        let mut messages = self.0.borrow_mut();
        change(&mut messages);
        messages.clone()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.borrow().len()
    }
}

impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for History {}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "History({} messages)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identity_is_by_allocation_not_content() {
        let a = History::new(vec![json!({"role": "user", "content": "hi"})]);
        let b = History::new(a.snapshot());
        assert_ne!(a, b);
        let alias = a.clone();
        alias.push(json!({"role": "assistant", "content": "hello"}));
        assert_eq!(a, alias);
        assert_eq!(a.len(), 2);
        assert_eq!(b.len(), 1);
    }
}
