//! Places where a run waits for the user: preflight banners (Retry / Skip)
//! and approval banners (Approve once / Allow for run / Deny).
//!
//! A waiter is keyed by run id and call id, so a click can only answer the
//! exact call of the exact run that asked; an answer for anything else finds
//! no waiter and is reported as such. Every wait is also raced with a timer
//! and with the run's cancellation, so Stop always wins and a forgotten
//! banner cannot hold a run forever.

use crate::cancel::{Cancellation, Cancelled};
use crate::platform::Clock;
use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Debug)]
struct Slot<T> {
    answer: Option<T>,
    waker: Option<Waker>,
}

type Key = (String, String);
type SlotRef<T> = Rc<RefCell<Slot<T>>>;

/// The open waiters of one kind, for every run of the worker.
#[derive(Debug)]
pub(crate) struct Waiters<T> {
    slots: Rc<RefCell<HashMap<Key, SlotRef<T>>>>,
}

impl<T> Default for Waiters<T> {
    fn default() -> Self {
        Waiters {
            slots: Rc::new(RefCell::new(HashMap::new())),
        }
    }
}

/// Resolves with the user's answer; dropping it closes the waiter.
pub(crate) struct Wait<T> {
    key: Key,
    slot: SlotRef<T>,
    slots: Rc<RefCell<HashMap<Key, SlotRef<T>>>>,
}

impl<T: Copy> Future for Wait<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut slot = self.slot.borrow_mut();
        match slot.answer {
            Some(answer) => Poll::Ready(answer),
            None => {
                slot.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for Wait<T> {
    fn drop(&mut self) {
        let mut slots = self.slots.borrow_mut();
        if slots.get(&self.key).is_some_and(|slot| Rc::ptr_eq(slot, &self.slot)) {
            slots.remove(&self.key);
        }
    }
}

fn answer<T>(slot: &SlotRef<T>, value: T) {
    let waker = {
        let mut slot = slot.borrow_mut();
        slot.answer = Some(value);
        slot.waker.take()
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl<T: Copy> Waiters<T> {
    /// Opens the waiter of `(run_id, call_id)`, replacing an older one.
    pub(crate) fn wait(&self, run_id: &str, call_id: &str) -> Wait<T> {
        let key = (run_id.to_owned(), call_id.to_owned());
        let slot = Rc::new(RefCell::new(Slot {
            answer: None,
            waker: None,
        }));
        self.slots.borrow_mut().insert(key.clone(), slot.clone());
        Wait {
            key,
            slot,
            slots: self.slots.clone(),
        }
    }

    /// Answers the waiter of exactly this run and call; false if none waits.
    pub(crate) fn resolve(&self, run_id: &str, call_id: &str, value: T) -> bool {
        let slot = self.slots.borrow_mut().remove(&(run_id.to_owned(), call_id.to_owned()));
        match slot {
            Some(slot) => {
                answer(&slot, value);
                true
            }
            None => false,
        }
    }

    /// Answers every waiter of a run (its end or its cancellation).
    pub(crate) fn resolve_run(&self, run_id: &str, value: T) {
        let slots: Vec<SlotRef<T>> = {
            let mut map = self.slots.borrow_mut();
            let keys: Vec<Key> = map.keys().filter(|(run, _)| run == run_id).cloned().collect();
            keys.iter().filter_map(|key| map.remove(key)).collect()
        };
        for slot in &slots {
            answer(slot, value);
        }
    }

    /// Number of open waiters, for tests that check nothing is left behind.
    #[cfg(test)]
    pub(crate) fn open(&self) -> usize {
        self.slots.borrow().len()
    }
}

/// How a wait for the user ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Waited<T> {
    Answered(T),
    TimedOut,
}

/// Waits for the user's answer to `(run_id, call_id)`, at most `ms`
/// milliseconds, and never past the run's cancellation.
pub(crate) async fn wait_for_user<T: Copy, C: Clock>(
    waiters: &Waiters<T>,
    run_id: &str,
    call_id: &str,
    clock: &C,
    ms: u32,
    cancel: &Cancellation,
) -> Result<Waited<T>, Cancelled> {
    if cancel.is_cancelled() {
        return Err(Cancelled);
    }
    let mut user = std::pin::pin!(waiters.wait(run_id, call_id));
    let mut timer = std::pin::pin!(clock.sleep(ms));
    cancel
        .race(std::future::poll_fn(|cx| {
            if let Poll::Ready(value) = user.as_mut().poll(cx) {
                return Poll::Ready(Waited::Answered(value));
            }
            timer.as_mut().poll(cx).map(|()| Waited::TimedOut)
        }))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{FakeClock, block_on};
    use futures::FutureExt;

    /// A clock whose timers never fire, so only the user or Stop can end a wait.
    struct FrozenClock;

    impl Clock for FrozenClock {
        fn now_ms(&self) -> f64 {
            0.0
        }
        async fn sleep(&self, _ms: u32) {
            std::future::pending::<()>().await
        }
        fn uuid(&self) -> String {
            String::new()
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Choice {
        Yes,
        No,
    }

    #[test]
    fn an_answer_reaches_only_the_exact_run_and_call() {
        let waiters = Waiters::<Choice>::default();
        let cancel = Cancellation::new();
        let mut wait = Box::pin(wait_for_user(&waiters, "run-a", "call-1", &FrozenClock, 1_500, &cancel));
        assert!(wait.as_mut().now_or_never().is_none());
        assert!(!waiters.resolve("run-b", "call-1", Choice::Yes));
        assert!(!waiters.resolve("run-a", "call-2", Choice::Yes));
        assert!(waiters.resolve("run-a", "call-1", Choice::No));
        assert_eq!(wait.now_or_never(), Some(Ok(Waited::Answered(Choice::No))));
        assert!(!waiters.resolve("run-a", "call-1", Choice::Yes), "answered once");
        assert_eq!(waiters.open(), 0);
    }

    #[test]
    fn timers_end_waits_and_dropped_waits_close_their_waiter() {
        let waiters = Waiters::<Choice>::default();
        let clock = FakeClock::default();
        let cancel = Cancellation::new();
        let waited = block_on(wait_for_user(&waiters, "run-a", "call-1", &clock, 1_500, &cancel));
        assert_eq!(waited, Ok(Waited::TimedOut));
        assert_eq!(clock.slept_ms(), 1_500);
        assert_eq!(waiters.open(), 0);
        drop(waiters.wait("run-a", "call-2"));
        assert!(!waiters.resolve("run-a", "call-2", Choice::Yes));
    }

    #[test]
    fn cancellation_and_run_cleanup_end_every_wait() {
        let waiters = Waiters::<Choice>::default();
        let cancel = Cancellation::new();
        let mut first = Box::pin(wait_for_user(&waiters, "run-a", "call-1", &FrozenClock, 1_500, &cancel));
        let mut second = Box::pin(waiters.wait("run-a", "call-2"));
        let mut other = Box::pin(waiters.wait("run-b", "call-1"));
        assert!(first.as_mut().now_or_never().is_none());
        assert!(second.as_mut().now_or_never().is_none());
        waiters.resolve_run("run-a", Choice::No);
        assert_eq!(second.now_or_never(), Some(Choice::No));
        assert!(other.as_mut().now_or_never().is_none(), "other runs keep waiting");
        let mut third = Box::pin(wait_for_user(&waiters, "run-a", "call-3", &FrozenClock, 1_500, &cancel));
        assert!(third.as_mut().now_or_never().is_none());
        cancel.cancel();
        assert_eq!(third.now_or_never(), Some(Err(Cancelled)));
        assert_eq!(
            block_on(wait_for_user(&waiters, "run-a", "call-4", &FrozenClock, 1, &cancel)),
            Err(Cancelled)
        );
        drop(first);
        assert_eq!(waiters.open(), 1, "only run-b still waits");
    }
}
