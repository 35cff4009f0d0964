//! The Files-sidebar tree the page reads for `read_file_structure`.
//!
//! The page builds it from the DOM; the worker normalises it before the model
//! sees it, so untrusted names cannot smuggle traversal, URLs or control
//! characters, and the size stays bounded.

use crate::active_file::clean_path_segments;
use crate::limits::{self, to_usize};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashSet;

/// The only accepted `source` of a tree.
pub const PROJECT_TREE_SOURCE: &str = "files_panel_dom";

/// What a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A file.
    File,
    /// A folder.
    Folder,
    /// A row the page could not classify.
    Unknown,
}

/// Whether a folder's children are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FolderState {
    /// Its children are listed.
    Expanded,
    /// Its children are hidden.
    Collapsed,
}

/// One row; folders always carry a state, other rows never do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectTreeEntry {
    /// Clean project-relative path.
    pub path: String,
    /// What the row is.
    pub kind: EntryKind,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    /// Folders only: whether the children are shown.
    pub state: Option<FolderState>,
}

/// `{source:'files_panel_dom', entries, truncated}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectTree {
    /// Always `files_panel_dom`.
    pub source: String,
    /// The rows, in sidebar order.
    pub entries: Vec<ProjectTreeEntry>,
    /// Whether the page, or the bound, left rows out.
    pub truncated: bool,
}

/// Like the active-file path but without an extension requirement and with
/// segments of at most 160 characters.
pub fn normalize_project_tree_path(value: &str) -> Option<String> {
    clean_path_segments(
        value,
        to_usize(limits::MAX_PROJECT_TREE_PATH_CHARS),
        Some(to_usize(limits::MAX_PROJECT_TREE_SEGMENT_CHARS)),
    )
    .map(|segments| segments.join("/"))
}

impl ProjectTree {
    /// `normalizeProjectTree`: keeps the first 128 rows, drops invalid and
    /// duplicate ones, and marks the tree truncated when the page did or when
    /// rows were cut. `None` when nothing valid remains.
    pub fn normalize(value: &Value) -> Option<ProjectTree> {
        let map = value.as_object()?;
        if map.get("source")?.as_str()? != PROJECT_TREE_SOURCE {
            return None;
        }
        let raw_entries = map.get("entries")?.as_array()?;
        let max = to_usize(limits::MAX_PROJECT_TREE_ENTRIES);
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        for raw in raw_entries.iter().take(max) {
            let Some(raw) = raw.as_object() else { continue };
            let Some(path) = raw
                .get("path")
                .and_then(Value::as_str)
                .and_then(normalize_project_tree_path)
            else {
                continue;
            };
            let kind = match raw.get("kind").and_then(Value::as_str) {
                Some("file") => EntryKind::File,
                Some("folder") => EntryKind::Folder,
                Some("unknown") => EntryKind::Unknown,
                _ => continue,
            };
            if seen.contains(&path) {
                continue;
            }
            let state = if kind == EntryKind::Folder {
                match raw.get("state").and_then(Value::as_str) {
                    Some("expanded") => Some(FolderState::Expanded),
                    Some("collapsed") => Some(FolderState::Collapsed),
                    _ => continue,
                }
            } else {
                None
            };
            seen.insert(path.clone());
            entries.push(ProjectTreeEntry { path, kind, state });
        }
        if entries.is_empty() {
            return None;
        }
        Some(ProjectTree {
            source: PROJECT_TREE_SOURCE.to_owned(),
            entries,
            truncated: map.get("truncated") == Some(&Value::Bool(true)) || raw_entries.len() > max,
        })
    }

    /// The tree in `workspace.project_file_tree` (or `projectFileTree`).
    pub fn from_context(context: &Value) -> Option<ProjectTree> {
        let workspace = context.as_object()?.get("workspace")?.as_object()?;
        let tree = workspace
            .get("project_file_tree")
            .filter(|v| !v.is_null())
            .or_else(|| workspace.get("projectFileTree"))?;
        ProjectTree::normalize(tree)
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        crate::wire::to_value(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_bounded_hierarchy_and_collapsed_state() {
        let tree = ProjectTree::normalize(&json!({
            "source": "files_panel_dom",
            "entries": [
                {"path": " 123 ", "kind": "folder", "state": "expanded"},
                {"path": "123/not opened folder", "kind": "folder", "state": "collapsed"},
                {"path": "123\\456.typ", "kind": "file"},
                {"path": "main.typ", "kind": "file"},
                {"path": "main.typ", "kind": "file"},
                {"path": "../outside.typ", "kind": "file"}
            ],
            "truncated": false
        }));
        assert_eq!(
            tree.map(|t| t.to_value()),
            Some(json!({
                "source": "files_panel_dom",
                "entries": [
                    {"path": "123", "kind": "folder", "state": "expanded"},
                    {"path": "123/not opened folder", "kind": "folder", "state": "collapsed"},
                    {"path": "123/456.typ", "kind": "file"},
                    {"path": "main.typ", "kind": "file"}
                ],
                "truncated": false
            }))
        );
    }

    #[test]
    fn caps_entries_and_reads_workspace_data_only() {
        let entries: Vec<Value> = (0..limits::MAX_PROJECT_TREE_ENTRIES + 12)
            .map(|i| json!({"path": format!("chapters/{i}.typ"), "kind": "file"}))
            .collect();
        let tree = ProjectTree::from_context(&json!({"workspace": {"project_file_tree": {
            "source": "files_panel_dom", "entries": entries, "truncated": false}}}));
        assert_eq!(tree.as_ref().map(|t| t.entries.len()), Some(128));
        assert_eq!(tree.map(|t| t.truncated), Some(true));
        assert_eq!(
            ProjectTree::from_context(&json!({"projectTree": {
                "source": "files_panel_dom", "entries": entries, "truncated": false}})),
            None
        );
        assert_eq!(
            ProjectTree::from_context(&json!({"workspace": {"project_file_tree": {
                "source": "invented", "entries": entries, "truncated": false}}})),
            None
        );
    }

    #[test]
    fn paths_reject_traversal_protocols_controls_and_long_segments() {
        assert_eq!(
            normalize_project_tree_path("chapters/intro.typ").as_deref(),
            Some("chapters/intro.typ")
        );
        let long = format!("folder/{}", "x".repeat(161));
        for value in [
            "../secret.typ",
            "https://example.com/x.typ",
            "a\nfile.typ",
            long.as_str(),
        ] {
            assert_eq!(normalize_project_tree_path(value), None, "{value}");
        }
    }
}
