//! In-memory stand-ins for the browser, for native tests. Each fake records
//! what the worker did and can be scripted to answer or fail.

mod browser;
mod clock;
mod harness;
mod hooked_storage;
mod model;
mod network;
mod pages;
mod platform;
mod senders;
mod storage;
mod typst_page;

pub(crate) use browser::{EXTENSION_ID, FakeBrowser};
pub(crate) use clock::FakeClock;
pub(crate) use futures::executor::block_on;
pub(crate) use harness::{Harness, Pending, TAB, ask, code, data};
pub(crate) use hooked_storage::HookedStorage;
pub(crate) use model::{Scripts, calls, next_reply, sse, text};
pub(crate) use network::{FakeBody, FakeChunk, FakeNetwork, FakeReply};
pub(crate) use pages::FakePages;
pub(crate) use platform::FakePlatform;
pub(crate) use senders::{content_sender, panel_sender, top_frame_sender};
pub(crate) use storage::MemoryStorage;
pub(crate) use typst_page::{FakeTypstPages, TypstPage, diagnostic, file_value};

/// The extension version fake workers are made with (what their MCP client
/// names to servers).
pub(crate) const VERSION: &str = "9.8.7";

/// Returns `Pending` once, so concurrent test futures interleave at every
/// storage call.
pub(crate) async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            std::task::Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
    .await;
}
