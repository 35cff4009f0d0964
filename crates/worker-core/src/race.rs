//! Waiting for whichever of two futures finishes first.
//!
//! The provider races a body read against the batch timer and a request
//! against its timeout; the page client and the run's end bound a best-effort
//! page call by a grace timer. Only the loser of such a race may be dropped, and the
//! caller decides which: passing `read.as_mut()` keeps a pinned read alive
//! across several timer rounds, because dropping a browser body read would
//! lose the chunk it was about to deliver.

use std::future::Future;
use std::pin::pin;
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

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

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
