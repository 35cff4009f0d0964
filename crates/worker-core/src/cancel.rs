//! Cancellation that reaches every await of a run.
//!
//! A [`Cancellation`] is shared by everything a run waits on: network reads,
//! page requests, timers and user decisions. Cancelling wakes every waiter at
//! once, and callbacks registered with [`Cancellation::on_cancel`] let the
//! platform adapters abort what the browser is doing (a `fetch`, a page
//! request), so Stop never waits for a slow server or page.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

/// The error of an operation stopped by its cancellation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("The operation was cancelled.")
    }
}

type Callback = Box<dyn FnOnce()>;

#[derive(Default)]
struct State {
    cancelled: bool,
    wakers: Vec<Waker>,
    callbacks: Vec<(u64, Callback)>,
    next_callback: u64,
}

/// A cheaply cloned cancellation flag with wake-ups and abort callbacks.
#[derive(Clone, Default)]
pub struct Cancellation(Rc<RefCell<State>>);

/// Keeps an [`Cancellation::on_cancel`] callback registered; dropping it
/// unregisters the callback (the operation finished first).
pub struct CallbackGuard {
    owner: Cancellation,
    id: u64,
}

impl Drop for CallbackGuard {
    fn drop(&mut self) {
        self.owner.0.borrow_mut().callbacks.retain(|(id, _)| *id != self.id);
    }
}

impl Cancellation {
    /// A cancellation that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether it has fired.
    pub fn is_cancelled(&self) -> bool {
        self.0.borrow().cancelled
    }

    /// Cancels once: wakes every waiter and runs every callback.
    pub fn cancel(&self) {
        let (wakers, callbacks) = {
            let mut state = self.0.borrow_mut();
            if state.cancelled {
                return;
            }
            state.cancelled = true;
            (std::mem::take(&mut state.wakers), std::mem::take(&mut state.callbacks))
        };
        for (_, callback) in callbacks {
            callback();
        }
        for waker in wakers {
            waker.wake();
        }
    }

    /// Runs `callback` on cancellation (at once if already cancelled) while
    /// the guard lives.
    pub fn on_cancel(&self, callback: impl FnOnce() + 'static) -> CallbackGuard {
        let id = {
            let mut state = self.0.borrow_mut();
            state.next_callback += 1;
            state.next_callback
        };
        if self.is_cancelled() {
            callback();
        } else {
            self.0.borrow_mut().callbacks.push((id, Box::new(callback)));
        }
        CallbackGuard {
            owner: self.clone(),
            id,
        }
    }

    /// Resolves when cancelled.
    pub(crate) fn cancelled(&self) -> WaitCancelled {
        WaitCancelled(self.clone())
    }

    /// Runs `future` until it finishes or the cancellation fires, whichever
    /// comes first; a future that ignores cancellation is simply dropped.
    pub async fn race<F: Future>(&self, future: F) -> Result<F::Output, Cancelled> {
        if self.is_cancelled() {
            return Err(Cancelled);
        }
        let mut future = std::pin::pin!(future);
        let mut cancelled = self.cancelled();
        std::future::poll_fn(|cx| {
            if let Poll::Ready(()) = Pin::new(&mut cancelled).poll(cx) {
                return Poll::Ready(Err(Cancelled));
            }
            future.as_mut().poll(cx).map(Ok)
        })
        .await
    }

    /// A child that is cancelled with this one but can also be cancelled on
    /// its own (for one operation inside a run).
    pub(crate) fn child(&self) -> (Cancellation, CallbackGuard) {
        let child = Cancellation::new();
        let for_callback = child.clone();
        let guard = self.on_cancel(move || for_callback.cancel());
        (child, guard)
    }
}

/// The future of [`Cancellation::cancelled`].
pub(crate) struct WaitCancelled(Cancellation);

impl Future for WaitCancelled {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.0.0.borrow_mut();
        if state.cancelled {
            return Poll::Ready(());
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;
    use futures::channel::oneshot;
    use std::cell::Cell;

    #[test]
    fn race_returns_the_value_when_not_cancelled() {
        let cancel = Cancellation::new();
        assert_eq!(futures::executor::block_on(cancel.race(async { 7 })), Ok(7));
    }

    #[test]
    fn cancelling_ends_a_pending_race_and_runs_callbacks_once() {
        let cancel = Cancellation::new();
        let calls = Rc::new(Cell::new(0));
        let counted = calls.clone();
        let _guard = cancel.on_cancel(move || counted.set(counted.get() + 1));
        let (_keep, never) = oneshot::channel::<()>();
        let mut race = Box::pin(cancel.race(never));
        assert!(race.as_mut().now_or_never().is_none());
        cancel.cancel();
        cancel.cancel();
        assert_eq!(race.now_or_never(), Some(Err(Cancelled)));
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn dropped_guards_do_not_fire_and_late_callbacks_fire_at_once() {
        let cancel = Cancellation::new();
        let fired = Rc::new(Cell::new(false));
        let flag = fired.clone();
        drop(cancel.on_cancel(move || flag.set(true)));
        cancel.cancel();
        assert!(!fired.get());
        let late = Rc::new(Cell::new(false));
        let flag = late.clone();
        let _guard = cancel.on_cancel(move || flag.set(true));
        assert!(late.get());
        assert_eq!(futures::executor::block_on(cancel.race(async { 1 })), Err(Cancelled));
    }

    #[test]
    fn children_follow_their_parent_but_not_the_reverse() {
        let parent = Cancellation::new();
        let (child, _guard) = parent.child();
        child.cancel();
        assert!(!parent.is_cancelled());
        let (second, _guard2) = parent.child();
        parent.cancel();
        assert!(second.is_cancelled());
    }
}
