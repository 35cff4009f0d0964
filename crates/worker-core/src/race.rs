//! Waiting for whichever of two futures finishes first ([`first_of`]), for
//! every one of several ([`all_of`]), and for both of two ([`both`]).
//!
//! The provider races a body read against the batch timer and a request
//! against its timeout; the page client and the run's end bound a best-effort
//! page call by a grace timer. Only the loser of such a race may be dropped, and the
//! caller decides which: passing `read.as_mut()` keeps a pinned read alive
//! across several timer rounds, because dropping a browser body read would
//! lose the chunk it was about to deliver.

use std::future::Future;
use std::pin::{Pin, pin};
use std::task::Poll;

/// Which side of [`first_of`] finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Either<A, B> {
    Left(A),
    Right(B),
}

/// Polls `left` first, then `right`; resolves with the first that is ready.
pub(crate) async fn first_of<A: Future, B: Future>(left: A, right: B) -> Either<A::Output, B::Output> {
    let mut left = pin!(left);
    let mut right = pin!(right);
    std::future::poll_fn(|cx| {
        if let Poll::Ready(value) = left.as_mut().poll(cx) {
            return Poll::Ready(Either::Left(value));
        }
        if let Poll::Ready(value) = right.as_mut().poll(cx) {
            return Poll::Ready(Either::Right(value));
        }
        Poll::Pending
    })
    .await
}

/// Polls every future until all are ready (a run discovers its MCP servers
/// side by side, so the slowest one, not their sum, bounds the wait); the
/// outputs come back in the order of `futures`.
pub(crate) async fn all_of<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_some() {
                continue;
            }
            match future.as_mut().poll(cx) {
                Poll::Ready(value) => *output = Some(value),
                Poll::Pending => waiting = true,
            }
        }
        if waiting { Poll::Pending } else { Poll::Ready(()) }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

/// Polls both futures until each is ready (an editor write sends its page
/// probe and its edit read together); the outputs come back as `(a, b)`.
pub(crate) async fn both<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    let mut left = None;
    let mut right = None;
    std::future::poll_fn(|cx| {
        if left.is_none()
            && let Poll::Ready(value) = a.as_mut().poll(cx)
        {
            left = Some(value);
        }
        if right.is_none()
            && let Poll::Ready(value) = b.as_mut().poll(cx)
        {
            right = Some(value);
        }
        match (left.take(), right.take()) {
            (Some(left), Some(right)) => Poll::Ready((left, right)),
            (l, r) => {
                left = l;
                right = r;
                Poll::Pending
            }
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[test]
    fn both_waits_for_each_future_and_keeps_their_order() {
        assert_eq!(both(async { 1 }, async { "b" }).now_or_never(), Some((1, "b")));
        assert_eq!(both(async { 1 }, std::future::pending::<u8>()).now_or_never(), None);
        assert_eq!(both(std::future::pending::<u8>(), async { 2 }).now_or_never(), None);
    }

    #[test]
    fn all_of_waits_for_every_future_and_keeps_their_order() {
        assert_eq!(
            all_of(vec![async { 1 }.boxed_local(), async { 2 }.boxed_local()]).now_or_never(),
            Some(vec![1, 2])
        );
        assert_eq!(
            all_of(Vec::<std::future::Ready<u8>>::new()).now_or_never(),
            Some(vec![])
        );
        let one_pending = vec![async { 1 }.boxed_local(), std::future::pending::<u8>().boxed_local()];
        assert_eq!(all_of(one_pending).now_or_never(), None);
    }

    #[test]
    fn the_left_side_wins_a_tie_and_a_pending_side_loses() {
        assert_eq!(first_of(async { 1 }, async { 2 }).now_or_never(), Some(Either::Left(1)));
        assert_eq!(
            first_of(std::future::pending::<u8>(), async { 2 }).now_or_never(),
            Some(Either::Right(2))
        );
        assert_eq!(
            first_of(std::future::pending::<u8>(), std::future::pending::<u8>()).now_or_never(),
            None
        );
    }
}
