//! Quick attachments ("Add to agent" on the page) are bound to the tab and
//! window they came from, so a panel only takes the ones meant for it.

use crate::js;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The tab and window a quick attachment came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuickAttachSource {
    pub tab_id: u64,
    pub window_id: u64,
}

impl QuickAttachSource {
    /// From Chrome's `MessageSender`: `sender.tab.id` and `sender.tab.windowId`
    /// must both be non-negative integers.
    pub fn from_sender(sender: &Value) -> Option<QuickAttachSource> {
        let tab = sender.get("tab")?;
        Some(QuickAttachSource {
            tab_id: js::as_safe_uint(tab.get("id")?)?,
            window_id: js::as_safe_uint(tab.get("windowId")?)?,
        })
    }

    /// Whether a panel whose active tab and window are these should take it.
    pub fn is_for_panel(&self, active_tab_id: Option<u64>, active_window_id: Option<u64>) -> bool {
        active_tab_id == Some(self.tab_id) && active_window_id == Some(self.window_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn carries_and_enforces_the_originating_tab_and_window() {
        let source = QuickAttachSource::from_sender(&json!({"tab": {"id": 17, "windowId": 3}}));
        assert_eq!(
            source,
            Some(QuickAttachSource {
                tab_id: 17,
                window_id: 3
            })
        );
        assert_eq!(QuickAttachSource::from_sender(&json!({"tab": {"id": 17}})), None);
        assert_eq!(
            QuickAttachSource::from_sender(&json!({"tab": {"id": -1, "windowId": 3}})),
            None
        );
        let source = QuickAttachSource {
            tab_id: 17,
            window_id: 3,
        };
        assert!(source.is_for_panel(Some(17), Some(3)));
        assert!(!source.is_for_panel(Some(18), Some(3)));
        assert!(!source.is_for_panel(Some(17), Some(4)));
        assert!(!source.is_for_panel(None, None));
    }
}
