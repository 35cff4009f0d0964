//! Which tabs the side panel is for, and telling open panels when that changes.
//!
//! The panel is enabled only on `https://typst.app/` tabs. After a tab
//! changes, the worker broadcasts `ACTIVE_TAB_CHANGED`; panels re-read their
//! window's active tab themselves.

use crate::envelope;
use crate::platform::{Messenger, PlatformError, Tab, Tabs};
use protocol::MessageType;
use serde_json::{Value, json};

pub(crate) const TYPST_APP_PREFIX: &str = "https://typst.app/";

pub(crate) fn is_typst_app_url(url: &str) -> bool {
    url.starts_with(TYPST_APP_PREFIX)
}

/// Enables or disables the panel for one tab. A tab that closed in between
/// is not an error.
async fn sync_side_panel(tabs: &impl Tabs, tab_id: i64, url: &str) {
    // The tab may have closed since the event; nothing is left to sync then.
    let _ = tabs.set_side_panel_enabled(tab_id, is_typst_app_url(url)).await;
}

/// The `ACTIVE_TAB_CHANGED` payload for the active tab (or none).
fn active_tab_payload(tab: Option<&Tab>) -> Value {
    let url = tab.map(|tab| tab.url.as_str()).unwrap_or_default();
    json!({
        "onTypst": is_typst_app_url(url),
        "url": url,
        "tabId": tab.and_then(|tab| tab.id),
    })
}

async fn notify_active_tab(tabs: &impl Tabs, messenger: &impl Messenger) {
    // While the browser shuts down the query can fail; there is no panel to tell.
    if let Ok(active) = tabs.active().await {
        let payload = active_tab_payload(active.as_ref());
        let message = envelope::request(MessageType::ActiveTabChanged, messenger.new_request_id(), payload);
        messenger.broadcast(message);
    }
}

/// Re-evaluates the panel for every tab, then tells open panels.
pub(crate) async fn refresh_all(tabs: &impl Tabs, messenger: &impl Messenger) -> Result<(), PlatformError> {
    for tab in tabs.all().await? {
        if let Some(id) = tab.id {
            sync_side_panel(tabs, id, &tab.url).await;
        }
    }
    notify_active_tab(tabs, messenger).await;
    Ok(())
}

/// `tabs.onUpdated`: only URL changes and finished loads matter; panels hear
/// about it when the updated tab is the active one.
pub async fn on_updated(
    tabs: &impl Tabs,
    messenger: &impl Messenger,
    tab_id: i64,
    url_changed: bool,
    complete: bool,
    url: &str,
) {
    if !url_changed && !complete {
        return;
    }
    sync_side_panel(tabs, tab_id, url).await;
    if let Ok(Some(active)) = tabs.active().await
        && active.id == Some(tab_id)
    {
        notify_active_tab(tabs, messenger).await;
    }
}

/// `tabs.onActivated`.
pub async fn on_activated(tabs: &impl Tabs, messenger: &impl Messenger, tab_id: i64) {
    if let Ok(tab) = tabs.get(tab_id).await {
        sync_side_panel(tabs, tab_id, &tab.url).await;
    }
    notify_active_tab(tabs, messenger).await;
}

/// `webNavigation.onHistoryStateUpdated`: typst.app is a single-page app, so
/// moving between projects changes the URL without a load.
pub async fn on_history_state_updated(
    tabs: &impl Tabs,
    messenger: &impl Messenger,
    tab_id: i64,
    frame_id: i64,
    url: &str,
) {
    if frame_id != 0 || !is_typst_app_url(url) {
        return;
    }
    sync_side_panel(tabs, tab_id, url).await;
    notify_active_tab(tabs, messenger).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{FakeBrowser, block_on};

    #[test]
    fn enables_the_panel_only_on_typst_app() {
        let browser = FakeBrowser::with_tabs(&[
            (1, "https://typst.app/project/abc"),
            (2, "https://example.com/"),
            (3, "https://typst.app.evil.test/"),
        ]);
        browser.activate(2);
        assert_eq!(block_on(refresh_all(&browser, &browser)), Ok(()));
        assert_eq!(browser.panel_state(1), Some(true));
        assert_eq!(browser.panel_state(2), Some(false));
        assert_eq!(browser.panel_state(3), Some(false));
        let sent = browser.broadcasts();
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0]["type"], "ACTIVE_TAB_CHANGED");
        assert_eq!(
            sent[0]["payload"],
            json!({"onTypst": false, "url": "https://example.com/", "tabId": 2})
        );
        assert!(sent[0]["requestId"].as_str().is_some_and(|id| !id.is_empty()));
    }

    #[test]
    fn updates_of_background_tabs_do_not_broadcast() {
        let browser = FakeBrowser::with_tabs(&[(1, "https://typst.app/"), (2, "https://typst.app/project/x")]);
        browser.activate(1);
        block_on(on_updated(
            &browser,
            &browser,
            2,
            true,
            false,
            "https://typst.app/project/x",
        ));
        assert_eq!(browser.panel_state(2), Some(true));
        assert!(browser.broadcasts().is_empty());
        block_on(on_updated(&browser, &browser, 1, false, false, "https://typst.app/"));
        assert_eq!(browser.panel_state(1), None, "neither URL change nor load end");
        block_on(on_updated(&browser, &browser, 1, false, true, "https://typst.app/"));
        assert_eq!(browser.broadcasts().len(), 1);
    }

    #[test]
    fn history_updates_count_only_for_top_frames_on_typst() {
        let browser = FakeBrowser::with_tabs(&[(1, "https://typst.app/project/a")]);
        browser.activate(1);
        block_on(on_history_state_updated(
            &browser,
            &browser,
            1,
            3,
            "https://typst.app/project/b",
        ));
        block_on(on_history_state_updated(
            &browser,
            &browser,
            1,
            0,
            "https://example.com/",
        ));
        assert!(browser.broadcasts().is_empty());
        block_on(on_history_state_updated(
            &browser,
            &browser,
            1,
            0,
            "https://typst.app/project/b",
        ));
        assert_eq!(browser.broadcasts().len(), 1);
    }

    #[test]
    fn no_active_tab_reports_null() {
        assert_eq!(
            active_tab_payload(None),
            json!({"onTypst": false, "url": "", "tabId": null})
        );
    }
}
