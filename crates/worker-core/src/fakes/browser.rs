//! A fake browser: tabs, side panel, scripting, broadcasts and the
//! `declarativeNetRequest` session rules.

use super::MemoryStorage;
use crate::platform::{Messenger, NetRules, PlatformError, Registration, Scripting, Tab, Tabs, World};
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashSet};
use std::rc::Rc;

/// The tabs of a fake browser, shared with whatever navigates them.
type SharedTabs = Rc<RefCell<Vec<Tab>>>;

/// The id the fake browser gives the extension (Chrome's ids are 32 letters a–p).
pub(crate) const EXTENSION_ID: &str = "abcdefghijklmnopabcdefghijklmnop";

/// Tabs, side panel, scripting, broadcasts and session rules of one fake
/// browser.
#[derive(Default)]
pub(crate) struct FakeBrowser {
    pub(crate) storage: MemoryStorage,
    tabs: SharedTabs,
    active: Cell<Option<i64>>,
    panel: RefCell<BTreeMap<i64, bool>>,
    opened_panels: RefCell<Vec<i64>>,
    panel_open_failure: RefCell<Option<String>>,
    sent: RefCell<Vec<Value>>,
    next_id: Cell<u64>,
    registrations: RefCell<Vec<Registration>>,
    registration_failure: RefCell<Option<String>>,
    refused_tabs: RefCell<HashSet<i64>>,
    injected: RefCell<Vec<(i64, usize, World)>>,
    session_rules: RefCell<BTreeMap<u32, Value>>,
    rule_failure: RefCell<Option<String>>,
    rule_updates: Cell<usize>,
    focused_windows: RefCell<Vec<i64>>,
    create_failure: RefCell<Option<String>>,
}

impl FakeBrowser {
    pub(crate) fn with_tabs(tabs: &[(i64, &str)]) -> Self {
        let browser = FakeBrowser::default();
        *browser.tabs.borrow_mut() = tabs
            .iter()
            .map(|(id, url)| Tab {
                id: Some(*id),
                window_id: Some(1),
                url: (*url).to_owned(),
            })
            .collect();
        browser
    }
    /// Shows `url` in tab `id` (a new tab of window 1 when there is none),
    /// as the user navigating.
    pub(crate) fn navigate(&self, id: i64, url: &str) {
        navigate(&self.tabs, id, url);
    }
    /// [`navigate`](Self::navigate) for code that outlives a borrow of the
    /// browser, such as a scripted model reply.
    pub(crate) fn navigator(&self) -> impl Fn(i64, &str) + 'static {
        let tabs = Rc::clone(&self.tabs);
        move |id, url| navigate(&tabs, id, url)
    }
    pub(crate) fn activate(&self, id: i64) {
        self.active.set(Some(id));
    }
    pub(crate) fn panel_state(&self, id: i64) -> Option<bool> {
        self.panel.borrow().get(&id).copied()
    }
    /// The windows the side panel was opened in, in order.
    pub(crate) fn opened_panels(&self) -> Vec<i64> {
        self.opened_panels.borrow().clone()
    }
    /// Makes every later `open_side_panel` fail with `message` (Chrome's
    /// refusal without a user gesture).
    pub(crate) fn fail_panel_open(&self, message: &str) {
        *self.panel_open_failure.borrow_mut() = Some(message.to_owned());
    }
    pub(crate) fn broadcasts(&self) -> Vec<Value> {
        self.sent.borrow().clone()
    }
    pub(crate) fn registrations(&self) -> Vec<Registration> {
        self.registrations.borrow().clone()
    }
    pub(crate) fn add_registration(&self, registration: Registration) {
        self.registrations.borrow_mut().push(registration);
    }
    pub(crate) fn fail_registration(&self, message: &str) {
        *self.registration_failure.borrow_mut() = Some(message.to_owned());
    }
    pub(crate) fn refuse_injection(&self, tab_id: i64) {
        self.refused_tabs.borrow_mut().insert(tab_id);
    }
    pub(crate) fn injections(&self) -> Vec<(i64, usize, World)> {
        self.injected.borrow().clone()
    }
    /// The session rules now in force, by id.
    pub(crate) fn session_rules(&self) -> BTreeMap<u32, Value> {
        self.session_rules.borrow().clone()
    }
    /// How many rule updates were asked for (failed ones included).
    pub(crate) fn rule_updates(&self) -> usize {
        self.rule_updates.get()
    }
    /// Makes every later rule update fail with `message` (`None`: succeed).
    pub(crate) fn fail_rule_updates(&self, message: Option<&str>) {
        *self.rule_failure.borrow_mut() = message.map(str::to_owned);
    }
    /// The windows `focus` brought to the front, in order.
    pub(crate) fn focused_windows(&self) -> Vec<i64> {
        self.focused_windows.borrow().clone()
    }
    /// Makes every later `create` fail with `message`.
    pub(crate) fn fail_tab_creation(&self, message: &str) {
        *self.create_failure.borrow_mut() = Some(message.to_owned());
    }
    /// The active tab's id.
    pub(crate) fn active_id(&self) -> Option<i64> {
        self.active.get()
    }
    /// Every tab's URL, in order.
    pub(crate) fn tab_urls(&self) -> Vec<String> {
        self.tabs.borrow().iter().map(|tab| tab.url.clone()).collect()
    }
}

fn navigate(tabs: &SharedTabs, id: i64, url: &str) {
    let mut tabs = tabs.borrow_mut();
    match tabs.iter_mut().find(|tab| tab.id == Some(id)) {
        Some(tab) => url.clone_into(&mut tab.url),
        None => tabs.push(Tab {
            id: Some(id),
            window_id: Some(1),
            url: url.to_owned(),
        }),
    }
}

impl Tabs for FakeBrowser {
    async fn all(&self) -> Result<Vec<Tab>, PlatformError> {
        Ok(self.tabs.borrow().clone())
    }
    async fn active(&self) -> Result<Option<Tab>, PlatformError> {
        let id = self.active.get();
        Ok(self
            .tabs
            .borrow()
            .iter()
            .find(|tab| tab.id.is_some() && tab.id == id)
            .cloned())
    }
    async fn get(&self, tab_id: i64) -> Result<Tab, PlatformError> {
        self.tabs
            .borrow()
            .iter()
            .find(|tab| tab.id == Some(tab_id))
            .cloned()
            .ok_or_else(|| PlatformError(format!("No tab with id: {tab_id}.")))
    }
    async fn set_side_panel_enabled(&self, tab_id: i64, enabled: bool) -> Result<(), PlatformError> {
        self.panel.borrow_mut().insert(tab_id, enabled);
        Ok(())
    }
    async fn focus(&self, tab_id: i64, window_id: Option<i64>) -> Result<(), PlatformError> {
        if !self.tabs.borrow().iter().any(|tab| tab.id == Some(tab_id)) {
            return Err(PlatformError(format!("No tab with id: {tab_id}.")));
        }
        self.active.set(Some(tab_id));
        self.focused_windows.borrow_mut().extend(window_id);
        Ok(())
    }
    async fn create(&self, url: &str) -> Result<Tab, PlatformError> {
        if let Some(message) = self.create_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        let id = self.tabs.borrow().iter().filter_map(|tab| tab.id).max().unwrap_or(0) + 1;
        let tab = Tab {
            id: Some(id),
            window_id: Some(1),
            url: url.to_owned(),
        };
        self.tabs.borrow_mut().push(tab.clone());
        self.active.set(Some(id));
        Ok(tab)
    }
    async fn open_side_panel(&self, window_id: i64) -> Result<(), PlatformError> {
        if let Some(message) = self.panel_open_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        self.opened_panels.borrow_mut().push(window_id);
        Ok(())
    }
}

impl Scripting for FakeBrowser {
    async fn registered(&self, ids: &[&str]) -> Result<Vec<Registration>, PlatformError> {
        Ok(self
            .registrations
            .borrow()
            .iter()
            .filter(|r| ids.contains(&r.id.as_str()))
            .cloned()
            .collect())
    }
    async fn register(&self, registration: &Registration) -> Result<(), PlatformError> {
        if let Some(message) = self.registration_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        self.registrations.borrow_mut().push(registration.clone());
        Ok(())
    }
    async fn update(&self, registration: &Registration) -> Result<(), PlatformError> {
        let mut registrations = self.registrations.borrow_mut();
        for existing in registrations.iter_mut().filter(|r| r.id == registration.id) {
            *existing = registration.clone();
        }
        Ok(())
    }
    async fn unregister(&self, ids: &[String]) -> Result<(), PlatformError> {
        self.registrations.borrow_mut().retain(|r| !ids.contains(&r.id));
        Ok(())
    }
    async fn execute_files(&self, tab_id: i64, files: &[&str], world: World) -> Result<(), PlatformError> {
        if self.refused_tabs.borrow().contains(&tab_id) {
            return Err(PlatformError("Cannot access contents of the page.".into()));
        }
        self.injected.borrow_mut().push((tab_id, files.len(), world));
        Ok(())
    }
}

impl Messenger for FakeBrowser {
    fn broadcast(&self, message: Value) {
        self.sent.borrow_mut().push(message);
    }
    fn new_request_id(&self) -> String {
        self.next_id.set(self.next_id.get() + 1);
        format!("req-{}", self.next_id.get())
    }
}

impl NetRules for FakeBrowser {
    fn extension_id(&self) -> String {
        EXTENSION_ID.to_owned()
    }
    async fn update_session_rules(&self, remove_ids: &[u32], add: &[Value]) -> Result<(), PlatformError> {
        self.rule_updates.set(self.rule_updates.get() + 1);
        if let Some(message) = self.rule_failure.borrow().clone() {
            return Err(PlatformError(message));
        }
        // Chrome applies an update whole or not at all.
        let mut rules = self.session_rules.borrow().clone();
        for id in remove_ids {
            rules.remove(id);
        }
        for rule in add {
            let id = rule["id"].as_u64().and_then(|id| u32::try_from(id).ok());
            let id = id.ok_or_else(|| PlatformError("Rule with id must be an integer.".into()))?;
            if rules.insert(id, rule.clone()).is_some() {
                return Err(PlatformError(format!("Rule with id {id} does not have a unique ID.")));
            }
        }
        *self.session_rules.borrow_mut() = rules;
        Ok(())
    }
}

impl<T: Tabs> Tabs for &T {
    async fn all(&self) -> Result<Vec<Tab>, PlatformError> {
        (**self).all().await
    }
    async fn active(&self) -> Result<Option<Tab>, PlatformError> {
        (**self).active().await
    }
    async fn get(&self, tab_id: i64) -> Result<Tab, PlatformError> {
        (**self).get(tab_id).await
    }
    async fn set_side_panel_enabled(&self, tab_id: i64, enabled: bool) -> Result<(), PlatformError> {
        (**self).set_side_panel_enabled(tab_id, enabled).await
    }
    async fn focus(&self, tab_id: i64, window_id: Option<i64>) -> Result<(), PlatformError> {
        (**self).focus(tab_id, window_id).await
    }
    async fn create(&self, url: &str) -> Result<Tab, PlatformError> {
        (**self).create(url).await
    }
    async fn open_side_panel(&self, window_id: i64) -> Result<(), PlatformError> {
        (**self).open_side_panel(window_id).await
    }
}

impl<T: Scripting> Scripting for &T {
    async fn registered(&self, ids: &[&str]) -> Result<Vec<Registration>, PlatformError> {
        (**self).registered(ids).await
    }
    async fn register(&self, registration: &Registration) -> Result<(), PlatformError> {
        (**self).register(registration).await
    }
    async fn update(&self, registration: &Registration) -> Result<(), PlatformError> {
        (**self).update(registration).await
    }
    async fn unregister(&self, ids: &[String]) -> Result<(), PlatformError> {
        (**self).unregister(ids).await
    }
    async fn execute_files(&self, tab_id: i64, files: &[&str], world: World) -> Result<(), PlatformError> {
        (**self).execute_files(tab_id, files, world).await
    }
}

impl<T: Messenger> Messenger for &T {
    fn broadcast(&self, message: Value) {
        (**self).broadcast(message)
    }
    fn new_request_id(&self) -> String {
        (**self).new_request_id()
    }
}
