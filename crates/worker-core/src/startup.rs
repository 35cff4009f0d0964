//! The order of a woken worker's first moments: what an answer waits for,
//! and what waits for the answers.
//!
//! A worker that Chrome wakes for a message has that message waiting while
//! the module loads. Its answer is what the sender waits on, so the start-up
//! sequence ([`crate::bootstrap`]) is split in two:
//!
//! 1. the *essential* step, the storage access level: the one thing an
//!    answer reports (`SESSION_STORAGE_STATUS`), so that answer waits for it
//!    ([`Needs::StorageAccess`]);
//! 2. the *side work*: the main-world registration, the scripts in open
//!    typst.app tabs, the side panel per tab, the panel sync and the MCP
//!    `Origin` rules. No storage answer depends on it, so it waits until the
//!    storage answers that arrived before it started are given
//!    ([`Needs::Nothing`], [`Needs::StorageAccess`]), instead of competing
//!    with them for the one thread and the browser's queue.
//!
//! Answers that may themselves wait on the side work or on something slow
//! (a page read in a tab the side work repairs, a run, a model or MCP
//! server, a tab or panel opened) do not hold it back ([`Needs::Independent`]):
//! holding it for them could only delay the repair they may be waiting on.
//!
//! A worker that never starts the sequence (the native tests' plain
//! [`crate::worker::Worker::new`]) answers everything at once, as before.

use protocol::MessageType;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// What the answer to one message needs from the start-up sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Nothing: a storage read or write, answered at once; the side work
    /// waits until it is.
    Nothing,
    /// The storage access level step, whose outcome the answer reports; the
    /// side work waits for this answer too.
    StorageAccess,
    /// Nothing, and the side work does not wait for it either.
    Independent,
}

/// What `message_type`'s answer needs (see the module doc). Types the worker
/// does not answer are [`Needs::Independent`]: they are refused at once.
pub(crate) fn needs(message_type: MessageType) -> Needs {
    use MessageType as T;
    match message_type {
        T::SessionStorageStatus => Needs::StorageAccess,
        T::LoadTheme
        | T::SaveTheme
        | T::LoadSettings
        | T::SaveSettings
        | T::SessionList
        | T::SessionCreate
        | T::SessionGet
        | T::SessionUpdate
        | T::SessionDelete
        | T::SessionListAllGrouped
        | T::SessionDeleteByProject
        | T::SessionExport
        | T::SessionImport
        | T::LoadCustomTools
        | T::SaveCustomTools
        | T::LoadMcpServers
        | T::QuickAttachDrain => Needs::Nothing,
        _ => Needs::Independent,
    }
}

/// A flag that futures can wait on; once open it stays open.
#[derive(Default)]
struct Latch {
    open: Cell<bool>,
    waiting: RefCell<Vec<Waker>>,
}

impl Latch {
    fn open(&self) {
        self.open.set(true);
        for waker in self.waiting.borrow_mut().drain(..) {
            waker.wake();
        }
    }

    fn wait(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |context: &mut Context<'_>| {
            if self.open.get() {
                Poll::Ready(())
            } else {
                self.waiting.borrow_mut().push(context.waker().clone());
                Poll::Pending
            }
        })
    }
}

/// Where this worker instance is in its start-up sequence.
#[derive(Default)]
pub(crate) struct Startup {
    /// The sequence has begun: answers that need a step wait for it.
    begun: Cell<bool>,
    essential: Latch,
    /// The side work has begun: answers no longer hold it back.
    side_work_begun: Cell<bool>,
    holds: Rc<Holds>,
}

/// The storage answers given out before the side work began and not yet
/// done, and who waits for there to be none.
#[derive(Default)]
struct Holds {
    count: Cell<usize>,
    waiting: RefCell<Vec<Waker>>,
}

impl Holds {
    /// Resolves when no answer holds the side work back (checked each time
    /// the last hold goes, since a new one may come before the waiter runs).
    fn none_left(&self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |context: &mut Context<'_>| {
            if self.count.get() == 0 {
                Poll::Ready(())
            } else {
                self.waiting.borrow_mut().push(context.waker().clone());
                Poll::Pending
            }
        })
    }
}

/// Keeps the side work waiting while the answer it belongs to is being made.
pub(crate) struct Hold(Rc<Holds>);

impl Drop for Hold {
    fn drop(&mut self) {
        let left = self.0.count.get().saturating_sub(1);
        self.0.count.set(left);
        if left == 0 {
            for waker in self.0.waiting.borrow_mut().drain(..) {
                waker.wake();
            }
        }
    }
}

impl Startup {
    /// Marks the sequence as begun. Called synchronously when the module is
    /// ready, before the messages that waited for it are handed over, so
    /// each of them sees the sequence it must wait for.
    pub(crate) fn begin(&self) {
        self.begun.set(true);
    }

    /// Waits for what an answer of `needs` depends on, and returns the hold
    /// that keeps the side work back until the answer is given (drop it
    /// then). Must be called in the message's first, synchronous step.
    pub(crate) fn admit(&self, needs: Needs) -> (Option<Hold>, impl Future<Output = ()> + '_) {
        let hold = (needs != Needs::Independent && self.begun.get() && !self.side_work_begun.get()).then(|| {
            self.holds.count.set(self.holds.count.get() + 1);
            Hold(Rc::clone(&self.holds))
        });
        let waits = needs == Needs::StorageAccess && self.begun.get();
        (hold, async move {
            if waits {
                self.essential.wait().await;
            }
        })
    }

    /// The sequence: `essential`, then the answers it holds back, then
    /// `side_work`.
    pub(crate) async fn run<E, S: Future>(
        &self,
        essential: impl Future<Output = E>,
        side_work: impl FnOnce(E) -> S,
    ) -> S::Output {
        self.begin();
        let essential = essential.await;
        self.essential.open();
        self.holds.none_left().await;
        self.side_work_begun.set(true);
        side_work(essential).await
    }
}

#[cfg(test)]
mod tests;
