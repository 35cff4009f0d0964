//! One mutation at a time per registry: a change runs after every earlier
//! change of the same registry finished, so each is computed against the
//! list as it is then (the original's promise queue per registry
//! controller). A failed change does not block the ones after it.

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::{LocalBoxFuture, Shared};
use std::cell::RefCell;

/// The queue of one registry (models, custom tools or MCP servers).
#[derive(Default)]
pub(super) struct Turns(RefCell<Option<Shared<LocalBoxFuture<'static, ()>>>>);

impl Turns {
    /// Waits for the previous change, then runs `work`.
    pub(super) async fn take<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let (done, finished) = oneshot::channel::<()>();
        let previous = self.0.borrow_mut().replace(finished.map(|_| ()).boxed_local().shared());
        if let Some(previous) = previous {
            previous.await;
        }
        let result = work.await;
        let _ = done.send(());
        result
    }
}
