//! Which tabs the side panel is for, telling open panels when that changes,
//! and `OPEN_PROJECT_TAB`.
//!
//! The panel is enabled only on `https://typst.app/` tabs. After a tab
//! changes, the worker broadcasts `ACTIVE_TAB_CHANGED`; panels re-read their
//! window's active tab themselves. "Open project" in the Sessions manager
//! brings a tab that already shows the project to the front, and opens one
//! only when none does (the original always opened another).

use crate::envelope::{self, RequestError};
use crate::platform::{Messenger, PlatformError, Tab, Tabs};
use protocol::constants::{TYPST_APP_PREFIX, is_typst_app_url, project_of_url};
use protocol::payloads::ProjectRef;
use protocol::{ErrorCode, MessageType};
use serde_json::{Value, json};

/// Where a project's editor lives, before its id.
const PROJECT_PATH: &str = "project/";

/// JavaScript's `encodeURIComponent`: every byte outside
/// `A–Z a–z 0–9 - _ . ! ~ * ' ( )` percent-encoded, so an id can never
/// leave its path segment.
fn encode_uri_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The editor URL of a project, its id encoded as the original does.
pub(crate) fn project_url(project_id: &str) -> String {
    format!("{TYPST_APP_PREFIX}{PROJECT_PATH}{}", encode_uri_component(project_id))
}

/// `OPEN_PROJECT_TAB`: focuses a tab that shows the project (the active
/// one first, so a second click changes nothing), else opens the project
/// in a new tab. Answers `{ok: true, tabId}` like the original.
pub(crate) async fn open_project(tabs: &impl Tabs, request: &ProjectRef) -> Result<Value, RequestError> {
    let failed = |error: PlatformError| {
        RequestError::new(
            ErrorCode::RequestFailed,
            format!("The project could not be opened: {error}"),
        )
    };
    let segment = encode_uri_component(&request.project_id);
    let all = tabs.all().await.map_err(failed)?;
    let active = tabs.active().await.ok().flatten().and_then(|tab| tab.id);
    let mut showing: Vec<&Tab> = all
        .iter()
        .filter(|tab| tab.id.is_some() && project_of_url(&tab.url) == Some(&segment))
        .collect();
    protocol::js::sort_by(&mut showing, |a, b| (a.id != active).cmp(&(b.id != active)));
    if let Some((tab, id)) = showing.first().and_then(|tab| tab.id.map(|id| (tab, id))) {
        tabs.focus(id, tab.window_id).await.map_err(failed)?;
        return Ok(json!({ "ok": true, "tabId": id }));
    }
    let created = tabs.create(&project_url(&request.project_id)).await.map_err(failed)?;
    Ok(json!({ "ok": true, "tabId": created.id }))
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

    fn open(browser: &FakeBrowser, project_id: &str) -> Result<Value, RequestError> {
        let request = ProjectRef {
            project_id: project_id.to_owned(),
        };
        block_on(open_project(browser, &request))
    }

    #[test]
    fn open_project_focuses_a_tab_that_shows_the_project() {
        let browser = FakeBrowser::with_tabs(&[
            (1, "https://example.com/"),
            (2, "https://typst.app/project/abc/files?x=1#top"),
            (3, "https://typst.app/project/abcd"),
        ]);
        browser.activate(1);
        assert_eq!(open(&browser, "abc"), Ok(json!({"ok": true, "tabId": 2})));
        assert_eq!(browser.active_id(), Some(2));
        assert_eq!(browser.focused_windows(), vec![1]);
        assert_eq!(browser.tab_urls().len(), 3, "no tab opened");
    }

    #[test]
    fn open_project_prefers_the_active_tab_among_several() {
        let browser = FakeBrowser::with_tabs(&[
            (1, "https://typst.app/project/abc"),
            (2, "https://typst.app/project/abc"),
        ]);
        browser.activate(2);
        assert_eq!(open(&browser, "abc"), Ok(json!({"ok": true, "tabId": 2})));
    }

    #[test]
    fn open_project_opens_the_encoded_url_when_no_tab_shows_it() {
        let browser = FakeBrowser::with_tabs(&[(4, "https://typst.app.evil.test/project/abc")]);
        assert_eq!(open(&browser, "abc"), Ok(json!({"ok": true, "tabId": 5})));
        assert_eq!(browser.tab_urls()[1], "https://typst.app/project/abc");
        assert_eq!(browser.active_id(), Some(5));
        assert_eq!(
            open(&browser, "abc"),
            Ok(json!({"ok": true, "tabId": 5})),
            "then focused"
        );
        open(&browser, "a/b?c#d é").expect("opened");
        assert_eq!(
            browser.tab_urls().last().map(String::as_str),
            Some("https://typst.app/project/a%2Fb%3Fc%23d%20%C3%A9")
        );
        assert_eq!(
            open(&browser, "a/b?c#d é"),
            Ok(json!({"ok": true, "tabId": 6})),
            "found again"
        );
    }

    #[test]
    fn open_project_reports_a_browser_refusal() {
        let browser = FakeBrowser::default();
        browser.fail_tab_creation("Tabs cannot be edited right now.");
        let error = open(&browser, "abc").expect_err("refused");
        assert_eq!(error.code, ErrorCode::RequestFailed);
        assert!(error.message.contains("Tabs cannot be edited right now."));
    }

    #[test]
    fn encoding_matches_encode_uri_component() {
        assert_eq!(encode_uri_component("AZaz09-_.!~*'()"), "AZaz09-_.!~*'()");
        assert_eq!(encode_uri_component(" %/🙂"), "%20%25%2F%F0%9F%99%82");
        assert_eq!(project_url("p1"), "https://typst.app/project/p1");
    }

    #[test]
    fn no_active_tab_reports_null() {
        assert_eq!(
            active_tab_payload(None),
            json!({"onTypst": false, "url": "", "tabId": null})
        );
    }
}
