//! Named values shared by the panel and the worker: the Typst URL prefix
//! (and the project a typst.app URL shows),
//! approval modes, send shortcuts, storage keys, schema versions and the
//! built-in tool names.
//!
//! Normalisation fails closed: anything but an exact known value becomes the
//! safe default, as in the original.

use serde::{Deserialize, Serialize};

/// Every typst.app page starts with this.
pub const TYPST_APP_PREFIX: &str = "https://typst.app/";

/// Whether `url` is a typst.app page.
pub fn is_typst_app_url(url: &str) -> bool {
    url.starts_with(TYPST_APP_PREFIX)
}

/// The project a typst.app page shows: the raw path segment after the first
/// `typst.app/project/`, as the original read it from a tab's URL; `None`
/// off typst.app or where no segment follows. The panel (which project the
/// chat belongs to) and the worker (which tab shows a project) read it here,
/// so the two can never disagree about a tab.
pub fn project_of_url(url: &str) -> Option<&str> {
    if !is_typst_app_url(url) {
        return None;
    }
    let (_, rest) = url.split_once("typst.app/project/")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(&rest[..end]).filter(|id| !id.is_empty())
}

/// Whether editor writes wait for a reviewed diff or apply at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EditorApprovalMode {
    #[default]
    /// Each editor write waits until the user approves its diff.
    Ask,
    /// Editor writes apply at once (a checkpoint still allows revert).
    Auto,
}

impl EditorApprovalMode {
    /// The stored settings value.
    pub const fn as_str(self) -> &'static str {
        match self {
            EditorApprovalMode::Ask => "ask",
            EditorApprovalMode::Auto => "auto",
        }
    }

    /// Only the exact string `auto` selects automatic apply; anything else,
    /// including legacy values, keeps the reviewed workflow.
    pub fn normalize(value: Option<&serde_json::Value>) -> EditorApprovalMode {
        match value.and_then(serde_json::Value::as_str) {
            Some("auto") => EditorApprovalMode::Auto,
            _ => EditorApprovalMode::Ask,
        }
    }
}

/// Which key chord sends a composed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum SendMessageShortcut {
    #[default]
    #[serde(rename = "enter")]
    /// Enter sends; Shift+Enter breaks the line.
    Enter,
    #[serde(rename = "shift-enter")]
    /// Shift+Enter sends; Enter breaks the line.
    ShiftEnter,
    #[serde(rename = "ctrl-enter")]
    /// Ctrl+Enter sends; Enter breaks the line.
    CtrlEnter,
}

impl SendMessageShortcut {
    /// Every shortcut, in the order the settings list them.
    pub const ALL: [SendMessageShortcut; 3] = [
        SendMessageShortcut::Enter,
        SendMessageShortcut::ShiftEnter,
        SendMessageShortcut::CtrlEnter,
    ];

    /// The stored settings value.
    pub const fn as_str(self) -> &'static str {
        match self {
            SendMessageShortcut::Enter => "enter",
            SendMessageShortcut::ShiftEnter => "shift-enter",
            SendMessageShortcut::CtrlEnter => "ctrl-enter",
        }
    }

    /// Unknown values keep plain Enter, the original behaviour.
    pub fn normalize(value: Option<&serde_json::Value>) -> SendMessageShortcut {
        match value.and_then(serde_json::Value::as_str) {
            Some("shift-enter") => SendMessageShortcut::ShiftEnter,
            Some("ctrl-enter") => SendMessageShortcut::CtrlEnter,
            _ => SendMessageShortcut::Enter,
        }
    }
}

/// True when a reasoning-effort setting means "provider default", so the
/// request omits `reasoning_effort` (empty or `default` after trimming,
/// case-insensitively; a missing value counts as empty).
pub fn is_reasoning_effort_default(value: Option<&serde_json::Value>) -> bool {
    let text = match value {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(other) => crate::js::js_string(other),
    };
    let text = crate::js::js_trim(&text).to_lowercase();
    text.is_empty() || text == "default"
}

/// Keys of `chrome.storage.local`. Body keys are a prefix followed by an id.
pub mod storage_keys {
    /// The user's settings record.
    pub const SETTINGS: &str = "typstAgent.settings";
    /// Version-1 session aggregate, kept only until the v2 migration finishes.
    pub const SESSIONS: &str = "typstAgent.sessions";
    /// The v2 session index (one entry per chat).
    pub const SESSION_INDEX: &str = "typstAgent.sessionIndex.v2";
    /// Prefix of a v2 session body key; the chat id follows.
    pub const SESSION_BODY_PREFIX: &str = "typstAgent.sessionBody.v2.";
    /// Marker that the v1 → v2 session migration finished.
    pub const SESSION_MIGRATION: &str = "typstAgent.sessionMigration.v2";
    /// The port's backup of version-1 chats the v2 schema refused: each record
    /// exactly as stored, beside the id its repaired form migrated to. Written
    /// before the version-1 store is removed and never removed by the worker
    /// (`SESSION_STORAGE_STATUS` lists it as `legacyBackup`). The original has
    /// no such key; it deleted those chats.
    pub const SESSION_MIGRATION_BACKUP: &str = "typstAgent.sessionMigrationBackup.v2";
    /// The edit-checkpoint index.
    pub const EDIT_CHECKPOINT_INDEX: &str = "typstAgent.editCheckpointIndex.v1";
    /// Prefix of an edit-checkpoint body key; the checkpoint id follows.
    pub const EDIT_CHECKPOINT_BODY_PREFIX: &str = "typstAgent.editCheckpointBody.v1.";
    /// The document-snapshot index.
    pub const DOCUMENT_SNAPSHOT_INDEX: &str = "typstAgent.documentSnapshotIndex.v1";
    /// Prefix of a document-snapshot body key; the snapshot id follows.
    pub const DOCUMENT_SNAPSHOT_BODY_PREFIX: &str = "typstAgent.documentSnapshotBody.v1.";
    /// The custom tools registry.
    pub const CUSTOM_TOOLS: &str = "typstAgent.customTools";
    /// The MCP servers registry.
    pub const MCP_SERVERS: &str = "typstAgent.mcpServers";
    /// The panel's theme name.
    pub const THEME: &str = "typstAgent.theme";

    /// Every fixed key (prefixes excluded), in the original's order.
    pub const ALL: &[&str] = &[
        SETTINGS,
        SESSIONS,
        SESSION_INDEX,
        SESSION_MIGRATION,
        EDIT_CHECKPOINT_INDEX,
        DOCUMENT_SNAPSHOT_INDEX,
        CUSTOM_TOOLS,
        MCP_SERVERS,
        THEME,
    ];
}

/// `version` fields of the stored and exported documents.
pub mod schema_versions {
    /// Session index, bodies and migration marker.
    pub const SESSION_REPOSITORY: u32 = 2;
    /// Edit-checkpoint index and bodies.
    pub const EDIT_CHECKPOINT_JOURNAL: u32 = 1;
    /// Document-snapshot index and bodies.
    pub const DOCUMENT_SNAPSHOT_JOURNAL: u32 = 1;
    /// Session export documents.
    pub const SESSION_EXPORT: u32 = 2;
    /// `format` of session export documents.
    pub const SESSION_EXPORT_FORMAT: &str = "typst-side-agent-sessions";
}

/// Theme names; storage falls back to dark.
pub mod themes {
    /// The dark theme.
    pub const DARK: &str = "dark";
    /// The light theme.
    pub const LIGHT: &str = "light";
    /// The theme used when none (or an unknown one) is stored.
    pub const DEFAULT: &str = DARK;
}

/// The ten built-in tools, in the order every provider request lists them.
/// A custom tool may not take one of these names, whatever its case.
pub const BUILTIN_TOOL_NAMES: [&str; 10] = [
    "read_file_structure",
    "open_project_file",
    "read_document",
    "read_diagnostics",
    "read_typst_docs",
    "replace_lines",
    "search_replace",
    "patch_document",
    "insert_at_cursor",
    "replace_selection",
];

/// The built-in tools that edit the editor buffer (and create checkpoints).
pub const EDITOR_WRITE_TOOLS: [&str; 5] = [
    "replace_lines",
    "search_replace",
    "patch_document",
    "insert_at_cursor",
    "replace_selection",
];

/// The first `declarativeNetRequest` session rule id of the block the
/// worker owns for MCP servers' origins (it removes `Origin` from the
/// extension's own requests to them). The block is
/// [`crate::limits::MAX_MCP_ORIGIN_RULES`] ids long; every update removes
/// the whole block and adds the current rules, so a rule of an origin that
/// is no longer configured never outlives an update. New in the port.
pub const MCP_ORIGIN_RULE_FIRST_ID: u32 = 1_000;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_project_is_read_from_a_typst_app_url_only() {
        let cases = [
            ("https://typst.app/project/abc123", Some("abc123")),
            ("https://typst.app/project/abc?x=1#y", Some("abc")),
            ("https://typst.app/project/abc/files#top", Some("abc")),
            ("https://typst.app/project/a%20b/file", Some("a%20b")),
            ("https://typst.app/project/", None),
            ("https://typst.app/project/?x", None),
            ("https://typst.app/", None),
            ("https://typst.app/app", None),
            ("https://evil.test/typst.app/project/x", None),
            ("http://typst.app/project/x", None),
            ("", None),
        ];
        for (url, project) in cases {
            assert_eq!(project_of_url(url), project, "{url}");
        }
        assert!(is_typst_app_url("https://typst.app/"));
        assert!(!is_typst_app_url("https://typst.app.evil.test/"));
    }

    #[test]
    fn modes_and_shortcuts_fail_closed() {
        assert_eq!(
            EditorApprovalMode::normalize(Some(&json!("auto"))),
            EditorApprovalMode::Auto
        );
        for value in [json!("AUTO"), json!(" auto"), json!(true), json!(null)] {
            assert_eq!(EditorApprovalMode::normalize(Some(&value)), EditorApprovalMode::Ask);
        }
        assert_eq!(EditorApprovalMode::normalize(None), EditorApprovalMode::Ask);
        assert_eq!(
            SendMessageShortcut::normalize(Some(&json!("ctrl-enter"))),
            SendMessageShortcut::CtrlEnter
        );
        assert_eq!(
            SendMessageShortcut::normalize(Some(&json!("shift-enter"))),
            SendMessageShortcut::ShiftEnter
        );
        assert_eq!(
            SendMessageShortcut::normalize(Some(&json!("alt-enter"))),
            SendMessageShortcut::Enter
        );
        assert_eq!(
            serde_json::to_value(SendMessageShortcut::ShiftEnter).ok(),
            Some(json!("shift-enter"))
        );
    }

    #[test]
    fn the_editor_writes_are_the_last_five_built_ins() {
        assert_eq!(BUILTIN_TOOL_NAMES[5..], EDITOR_WRITE_TOOLS);
    }

    #[test]
    fn reasoning_effort_default_detection() {
        assert!(is_reasoning_effort_default(None));
        assert!(is_reasoning_effort_default(Some(&json!(" Default "))));
        assert!(is_reasoning_effort_default(Some(&json!(""))));
        assert!(!is_reasoning_effort_default(Some(&json!("high"))));
    }
}
