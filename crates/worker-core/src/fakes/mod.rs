//! In-memory stand-ins for the browser, for native tests. Each fake records
//! what the worker did and can be scripted to answer or fail.

mod browser;
mod clock;
pub mod model;
pub mod network;
mod pages;
mod platform;
mod storage;

pub use browser::FakeBrowser;
pub use clock::FakeClock;
pub use futures::executor::block_on;
pub use network::FakeNetwork;
pub use pages::FakePages;
pub use platform::FakePlatform;
pub use storage::MemoryStorage;
