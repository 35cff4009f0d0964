//! The one serialized mutation queue of the worker's local storage.
//!
//! A chat write is several browser calls (new body, index pointer, removal of
//! the old body). Two requests interleaving those calls would publish one
//! index over the other and lose a chat, so every read-modify-write of stored
//! data (settings, the chat repository, the recovery journals) holds this
//! lock for its whole duration. The lock is FIFO: requests run in the order
//! they arrived, as the original's promise chain did, so a panel's two saves
//! of one chat land in the order it sent them. A waiter that is dropped (its
//! request abandoned) leaves the line without blocking the ones behind it.
//! The worker is single-threaded, so plain `RefCell`s suffice.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct State {
    held: bool,
    next_ticket: u64,
    /// Waiting tickets in arrival order, with the waker of their last poll.
    waiting: VecDeque<(u64, Waker)>,
    /// A ticket the lock was handed to that has not been polled since.
    granted: Option<u64>,
}

/// A FIFO async lock (see the module documentation).
#[derive(Default)]
pub(crate) struct MutationQueue {
    state: RefCell<State>,
}

/// Proof of holding the queue; the next waiter runs when it is dropped.
pub(crate) struct QueueGuard<'a> {
    queue: &'a MutationQueue,
}

impl Drop for QueueGuard<'_> {
    fn drop(&mut self) {
        self.queue.release();
    }
}

impl MutationQueue {
    /// Waits for every earlier holder and waiter, then holds the queue.
    pub(crate) fn lock(&self) -> Acquire<'_> {
        Acquire {
            queue: self,
            ticket: None,
            done: false,
        }
    }

    /// Whether some operation holds the queue now, for tests that check no
    /// failure leaves it held.
    #[cfg(test)]
    pub(crate) fn is_held(&self) -> bool {
        self.state.borrow().held
    }

    /// Hands the lock to the first waiter, or frees it.
    fn release(&self) {
        let waker = {
            let mut state = self.state.borrow_mut();
            match state.waiting.pop_front() {
                Some((ticket, waker)) => {
                    state.granted = Some(ticket);
                    Some(waker)
                }
                None => {
                    state.held = false;
                    None
                }
            }
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// The future of [`MutationQueue::lock`].
pub(crate) struct Acquire<'a> {
    queue: &'a MutationQueue,
    ticket: Option<u64>,
    done: bool,
}

impl<'a> Future for Acquire<'a> {
    type Output = QueueGuard<'a>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<QueueGuard<'a>> {
        let queue = self.queue;
        let mut state = queue.state.borrow_mut();
        match self.ticket {
            None => {
                if !state.held && state.waiting.is_empty() {
                    state.held = true;
                    drop(state);
                    self.done = true;
                    return Poll::Ready(QueueGuard { queue });
                }
                let ticket = state.next_ticket;
                state.next_ticket += 1;
                state.waiting.push_back((ticket, cx.waker().clone()));
                drop(state);
                self.ticket = Some(ticket);
                Poll::Pending
            }
            Some(ticket) => {
                if state.granted == Some(ticket) {
                    state.granted = None;
                    drop(state);
                    self.done = true;
                    return Poll::Ready(QueueGuard { queue });
                }
                if let Some(entry) = state.waiting.iter_mut().find(|(t, _)| *t == ticket) {
                    entry.1 = cx.waker().clone();
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Acquire<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Some(ticket) = self.ticket else {
            return;
        };
        let handed_over = {
            let mut state = self.queue.state.borrow_mut();
            if state.granted == Some(ticket) {
                state.granted = None;
                true
            } else {
                state.waiting.retain(|(t, _)| *t != ticket);
                false
            }
        };
        // The lock was already ours: pass it on instead of keeping it forever.
        if handed_over {
            self.queue.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{block_on, yield_now};
    use futures::future::{FutureExt, join3, select};
    use std::cell::RefCell;

    #[test]
    fn holders_run_one_at_a_time_in_arrival_order() {
        let queue = MutationQueue::default();
        let log = RefCell::new(Vec::new());
        let task = |name: &'static str| {
            let queue = &queue;
            let log = &log;
            async move {
                let _guard = queue.lock().await;
                log.borrow_mut().push(format!("{name} start"));
                yield_now().await;
                yield_now().await;
                log.borrow_mut().push(format!("{name} end"));
            }
        };
        block_on(join3(task("a"), task("b"), task("c")));
        assert_eq!(
            log.into_inner(),
            ["a start", "a end", "b start", "b end", "c start", "c end"]
        );
        assert!(!queue.is_held());
    }

    #[test]
    fn an_abandoned_waiter_does_not_block_the_line() {
        let queue = MutationQueue::default();
        block_on(async {
            let first = queue.lock().await;
            // A waiter that gives up (its request was dropped) before its turn.
            let abandoned = queue.lock();
            let winner = select(abandoned, std::future::ready(())).await;
            drop(winner);
            drop(first);
            let _again = queue.lock().await;
            assert!(queue.is_held());
        });
        assert!(!queue.is_held());
    }

    #[test]
    fn a_waiter_dropped_after_being_handed_the_lock_passes_it_on() {
        let queue = MutationQueue::default();
        let log = RefCell::new(Vec::new());
        block_on(async {
            let first = queue.lock().await;
            let mut second = Box::pin(queue.lock());
            // Register the second waiter, then hand it the lock without polling it again.
            assert!(second.as_mut().now_or_never().is_none());
            let third = async {
                let _guard = queue.lock().await;
                log.borrow_mut().push("third");
            };
            let mut third = Box::pin(third);
            assert!(third.as_mut().now_or_never().is_none());
            drop(first);
            drop(second);
            third.await;
        });
        assert_eq!(log.into_inner(), ["third"]);
        assert!(!queue.is_held());
    }
}
