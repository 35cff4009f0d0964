//! The senders the browser names in `runtime.onMessage`, as Chromium fills
//! them in: this extension's side panel, a content script in a tab's frame,
//! another extension's page.

use crate::platform::{BrowserSender, BrowserSenderTab, Tab};

/// The side panel page of the extension `runtime_id` (no tab).
pub(crate) fn panel_sender(runtime_id: &str) -> BrowserSender {
    BrowserSender {
        id: Some(runtime_id.to_owned()),
        url: Some(format!("chrome-extension://{runtime_id}/src/sidepanel/index.html")),
        origin: Some(format!("chrome-extension://{runtime_id}")),
        frame_id: None,
        tab: None,
    }
}

/// This extension's content script in frame `frame_id` of `tab`, on the
/// page `url` (the tab's own URL for the top frame).
pub(crate) fn content_sender(tab: Tab, url: &str, frame_id: i64) -> BrowserSender {
    // `scheme://host` of the fixture URLs (none carries a port or user).
    let origin = url
        .match_indices('/')
        .nth(2)
        .map_or(url, |(end, _)| &url[..end])
        .to_owned();
    BrowserSender {
        id: Some(super::EXTENSION_ID.to_owned()),
        url: Some(url.to_owned()),
        origin: Some(origin),
        frame_id: Some(frame_id),
        tab: Some(BrowserSenderTab {
            id: tab.id,
            window_id: tab.window_id,
            url: Some(tab.url),
        }),
    }
}

/// The content script in the top frame of `tab`.
pub(crate) fn top_frame_sender(tab: Tab) -> BrowserSender {
    let url = tab.url.clone();
    content_sender(tab, &url, 0)
}
