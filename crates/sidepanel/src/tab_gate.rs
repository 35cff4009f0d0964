//! The tab gate: which tab the panel's window shows, whether that is
//! typst.app (else the banner asks to switch) and which project it opened
//! (else the toast asks for one).

use protocol::constants::{is_typst_app_url, project_of_url};

/// The panel's knowledge of its window's active tab.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ActiveTab {
    pub(crate) id: Option<i64>,
    pub(crate) url: String,
}

pub(crate) const TAB_GATE_TEXT: &str = "Switch to a typst.app tab to use the agent.";
pub(crate) const NO_PROJECT_TEXT: &str = "Open a typst.app project to start.";

impl ActiveTab {
    pub(crate) fn on_typst(&self) -> bool {
        is_typst_app_url(&self.url)
    }

    /// The project id in `https://typst.app/project/<id>`, as the URL has it.
    pub(crate) fn project_id(&self) -> Option<&str> {
        project_of_url(&self.url)
    }
}

/// A message for the toast.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Notice {
    pub(crate) text: String,
    pub(crate) is_error: bool,
}

/// The banner shows off typst.app; on typst.app without a project the toast
/// asks for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TabGate {
    pub(crate) banner_visible: bool,
    pub(crate) notice: Option<Notice>,
    pub(crate) project_id: Option<String>,
}

pub(crate) fn tab_gate(tab: &ActiveTab) -> TabGate {
    let project_id = tab.project_id().map(str::to_owned);
    let notice = (tab.on_typst() && project_id.is_none()).then(|| Notice {
        text: NO_PROJECT_TEXT.to_owned(),
        is_error: true,
    });
    TabGate {
        banner_visible: !tab.on_typst(),
        notice,
        project_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(url: &str) -> ActiveTab {
        ActiveTab {
            id: Some(3),
            url: url.to_owned(),
        }
    }

    #[test]
    fn project_ids_come_from_project_urls_only() {
        assert_eq!(tab("https://typst.app/project/abc123").project_id(), Some("abc123"));
        assert_eq!(tab("https://typst.app/project/abc?x=1#y").project_id(), Some("abc"));
        assert_eq!(tab("https://typst.app/project/a%20b/file").project_id(), Some("a%20b"));
        assert_eq!(tab("https://typst.app/project/").project_id(), None);
        assert_eq!(tab("https://typst.app/").project_id(), None);
        assert_eq!(tab("https://evil.test/typst.app/project/x").project_id(), None);
    }

    #[test]
    fn the_gate_follows_the_active_tab() {
        let off = tab_gate(&tab("https://example.com/"));
        assert!(off.banner_visible);
        assert_eq!(off.notice, None);
        let home = tab_gate(&tab("https://typst.app/"));
        assert!(!home.banner_visible);
        assert_eq!(home.notice.map(|s| s.is_error), Some(true));
        let project = tab_gate(&tab("https://typst.app/project/p1"));
        assert_eq!(
            (project.banner_visible, project.notice, project.project_id.as_deref()),
            (false, None, Some("p1"))
        );
        assert!(tab_gate(&ActiveTab::default()).banner_visible);
    }
}
