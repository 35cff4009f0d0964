//! All fakes bundled as one [`Platform`]. The page is a type parameter so a
//! test can put in a page of its own (one that never answers, say) and keep
//! every other fake.

use super::{FakeBrowser, FakeClock, FakeNetwork, FakePages, MemoryStorage};
use crate::platform::{Pages, Platform};

#[derive(Default)]
pub(crate) struct FakePlatform<G: Pages = FakePages> {
    pub(crate) browser: FakeBrowser,
    pub(crate) clock: FakeClock,
    pub(crate) pages: G,
    pub(crate) network: FakeNetwork,
}

impl<G: Pages> Platform for FakePlatform<G> {
    type Storage = MemoryStorage;
    type Tabs = FakeBrowser;
    type Scripting = FakeBrowser;
    type Messenger = FakeBrowser;
    type Clock = FakeClock;
    type Pages = G;
    type Network = FakeNetwork;
    type NetRules = FakeBrowser;

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
    fn pages(&self) -> &G {
        &self.pages
    }
    fn network(&self) -> &FakeNetwork {
        &self.network
    }
    fn net_rules(&self) -> &FakeBrowser {
        &self.browser
    }
}
