//! What the About dialog says about this browser's storage protection.
//!
//! The worker asks Chrome at start-up to limit `chrome.storage.local`
//! (chats, API keys) to the extension's own pages, so content scripts in
//! typst.app cannot read it. Where the browser cannot do that, the worker
//! reports it in `SESSION_STORAGE_STATUS` (`storageAccess`), and the dialog
//! says so plainly, with the reason. Plain decisions, tested natively.

use serde_json::Value;

/// The sentence the dialog shows for a `SESSION_STORAGE_STATUS` answer;
/// `None` when storage is limited as it should be, or the worker is still
/// starting (the dialog asks again each time it opens).
pub(crate) fn storage_access_notice(status: &Value) -> Option<String> {
    let access = status.get("storageAccess")?;
    let reason = access
        .get("reason")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|reason| !reason.is_empty());
    let lead = "Stored chats and API keys could not be limited to this extension's own pages, so its scripts \
                on typst.app pages can read them too.";
    match access.get("state").and_then(Value::as_str)? {
        "trusted-contexts" | "pending" => None,
        "unsupported" => Some(format!(
            "{lead} {} Updating the browser adds this protection.",
            reason.unwrap_or("This browser does not offer the setting.")
        )),
        _ => Some(format!(
            "{lead} The browser refused the setting: {}",
            reason.unwrap_or("no reason was given.")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limited_or_starting_storage_needs_no_notice() {
        for access in [json!({"state": "trusted-contexts"}), json!({"state": "pending"})] {
            assert_eq!(
                storage_access_notice(&json!({"bytes": 1, "storageAccess": access})),
                None
            );
        }
        assert_eq!(
            storage_access_notice(&json!({"bytes": 1})),
            None,
            "an older worker says nothing"
        );
    }

    #[test]
    fn storage_that_could_not_be_limited_is_said_plainly_with_the_reason() {
        let unsupported = json!({"storageAccess": {"state": "unsupported",
            "reason": "This browser does not offer chrome.storage.local.setAccessLevel."}});
        let notice = storage_access_notice(&unsupported).expect("a notice");
        assert!(
            notice.starts_with("Stored chats and API keys could not be limited"),
            "{notice}"
        );
        assert!(notice.contains("chrome.storage.local.setAccessLevel"), "{notice}");
        let failed = json!({"storageAccess": {"state": "failed", "reason": "Access denied."}});
        assert!(
            storage_access_notice(&failed)
                .is_some_and(|n| n.ends_with("The browser refused the setting: Access denied.")),
        );
        let unexplained = json!({"storageAccess": {"state": "something-new"}});
        assert!(storage_access_notice(&unexplained).is_some_and(|n| n.ends_with("no reason was given.")));
    }
}
