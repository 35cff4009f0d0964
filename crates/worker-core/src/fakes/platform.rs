//! All fakes bundled as one [`Platform`].

use super::{FakeBrowser, FakeClock, FakeNetwork, FakePages, MemoryStorage};
use crate::platform::Platform;

#[derive(Default)]
pub struct FakePlatform {
    pub browser: FakeBrowser,
    pub clock: FakeClock,
    pub pages: FakePages,
    pub network: FakeNetwork,
}

impl Platform for FakePlatform {
    type Storage = MemoryStorage;
    type Tabs = FakeBrowser;
    type Scripting = FakeBrowser;
    type Messenger = FakeBrowser;
    type Clock = FakeClock;
    type Pages = FakePages;
    type Network = FakeNetwork;

    fn storage(&self) -> &MemoryStorage {
        &self.browser.storage
    }
    fn tabs(&self) -> &FakeBrowser {
        &self.browser
    }
    fn scripting(&self) -> &FakeBrowser {
        &self.browser
    }
    fn messenger(&self) -> &FakeBrowser {
        &self.browser
    }
    fn clock(&self) -> &FakeClock {
        &self.clock
    }
    fn pages(&self) -> &FakePages {
        &self.pages
    }
    fn network(&self) -> &FakeNetwork {
        &self.network
    }
}
