//! The `workspace` object of a `PAGE_GET_CONTEXT` answer: what typst.app
//! shows around the editor.
//!
//! The page reports hints it read from the layout (the header breadcrumb, the
//! Files sidebar, the asset detail panel). They are untrusted and only
//! normalised here: the file identity through [`ActiveEditorFile::normalize`]
//! and the tree through [`ProjectTree::normalize`], the same rules the panel
//! and the stored messages use. A hint that does not normalise is dropped, not
//! an error, because a layout change on typst.app must degrade to "unknown"
//! rather than break every read.

use protocol::active_file::{ActiveEditorFile, DEFAULT_ACTIVE_FILE_LABEL, normalize_project_relative_path};
use protocol::js;
use protocol::limits::MAX_WORKSPACE_ERROR_CHARS;
use protocol::project_tree::{EntryKind, FolderState, ProjectTree};
use serde_json::Value;

/// Most unclassified rows listed back to the model by `read_file_structure`.
pub const MAX_LISTED_UNKNOWN_ENTRIES: usize = 32;

/// The interpreted workspace hints of one context answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Workspace {
    /// The file the editor shows, from the breadcrumb and its fallbacks.
    pub active_file: Option<ActiveEditorFile>,
    /// The rendered Files sidebar tree (only asked for by the `identity`
    /// projection).
    pub project_tree: Option<ProjectTree>,
    /// The Files sidebar is open and visible.
    pub files_panel_open: bool,
    /// A file name near the focused element, as a clean relative path.
    pub focused_file_hint: Option<String>,
    /// The `Path:` of the asset detail panel, as a clean relative path.
    pub detail_path: Option<String>,
    /// Why the page sent no hints (its extractor failed, or the hints were
    /// larger than the bridge allows).
    pub error: Option<String>,
}

fn clean_path(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).and_then(normalize_project_relative_path)
}

fn first_present<'a>(map: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter()
        .find_map(|key| map.get(*key).filter(|value| !value.is_null()))
}

impl Workspace {
    /// Reads the page's `workspace` value (absent, `null` or an object).
    /// Anything else counts as "no hints".
    pub fn interpret(value: Option<&Value>) -> Workspace {
        let Some(map) = value.and_then(Value::as_object) else {
            return Workspace::default();
        };
        let error = map
            .get("error")
            .and_then(Value::as_str)
            .filter(|text| js::is_non_blank(text))
            .map(|text| js::truncate_utf16(text, MAX_WORKSPACE_ERROR_CHARS as usize).to_owned());
        Workspace {
            active_file: first_present(map, &["active_editor_file", "activeEditorFile"])
                .and_then(ActiveEditorFile::normalize),
            project_tree: first_present(map, &["project_file_tree", "projectFileTree"])
                .and_then(ProjectTree::normalize),
            files_panel_open: map.get("files_panel_open") == Some(&Value::Bool(true)),
            focused_file_hint: clean_path(map.get("focused_element_file_hint")),
            detail_path: clean_path(map.get("detail_path")),
            error,
        }
    }

    /// The label of the file in the editor: the active file's path, else the
    /// focused-element hint, else the asset panel's path, else
    /// [`DEFAULT_ACTIVE_FILE_LABEL`]. Edit previews, checkpoints and snapshots
    /// are bound to this label.
    pub fn file_label(&self) -> String {
        self.active_file
            .as_ref()
            .map(|file| file.relative_path.clone())
            .or_else(|| self.focused_file_hint.clone())
            .or_else(|| self.detail_path.clone())
            .unwrap_or_else(|| DEFAULT_ACTIVE_FILE_LABEL.to_owned())
    }

    /// The tree `read_file_structure` can report: only when the Files
    /// sidebar is open and its tree was read.
    pub fn visible_file_structure(&self) -> Option<FileStructure> {
        if !self.files_panel_open {
            return None;
        }
        self.project_tree.as_ref().map(FileStructure::of)
    }
}

/// Why a file structure is not the whole project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Incompleteness {
    /// Some rows could be neither files nor folders.
    UnclassifiedRows,
    /// Some folders are collapsed, so their children were not rendered.
    CollapsedFolders,
    /// The tree hit the entry, depth or path bound, or had unreadable rows.
    Truncated,
}

/// The project tree as `read_file_structure` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStructure {
    /// The normalised tree the page rendered.
    pub tree: ProjectTree,
    /// Paths of collapsed folders, in tree order.
    pub collapsed_folders: Vec<String>,
    /// Paths of unclassified rows, in tree order, at most
    /// [`MAX_LISTED_UNKNOWN_ENTRIES`].
    pub unknown_entries: Vec<String>,
}

impl FileStructure {
    /// The structure of a normalised tree.
    pub fn of(tree: &ProjectTree) -> FileStructure {
        let collapsed_folders = tree
            .entries
            .iter()
            .filter(|entry| entry.kind == EntryKind::Folder && entry.state == Some(FolderState::Collapsed))
            .map(|entry| entry.path.clone())
            .collect();
        let unknown_entries = tree
            .entries
            .iter()
            .filter(|entry| entry.kind == EntryKind::Unknown)
            .take(MAX_LISTED_UNKNOWN_ENTRIES)
            .map(|entry| entry.path.clone())
            .collect();
        FileStructure {
            tree: tree.clone(),
            collapsed_folders,
            unknown_entries,
        }
    }

    /// The most important reason the structure is incomplete, or `None` when
    /// it lists the whole project (`complete: true`).
    pub fn incompleteness(&self) -> Option<Incompleteness> {
        if !self.unknown_entries.is_empty() {
            Some(Incompleteness::UnclassifiedRows)
        } else if !self.collapsed_folders.is_empty() {
            Some(Incompleteness::CollapsedFolders)
        } else if self.tree.truncated {
            Some(Incompleteness::Truncated)
        } else {
            None
        }
    }

    /// Whether the structure lists the whole project.
    pub fn is_complete(&self) -> bool {
        self.incompleteness().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the fixture page (tests/fixtures/typst-page.html) reports.
    fn fixture_workspace() -> Value {
        json!({
            "preview_kind": "typst_document_render", "detail_path": null, "detail_path_source": null,
            "canvas_max_pixel_area": 249480,
            "active_editor_file": {"projectLabel": "Harness Thesis", "relativePath": "main.typ",
                "basename": "main.typ", "source": "header_breadcrumb", "confidence": "high"},
            "files_panel_open": true, "focused_element_file_hint": null,
            "project_file_tree": {"source": "files_panel_dom", "truncated": false, "entries": [
                {"path": "chapters", "kind": "folder", "state": "expanded"},
                {"path": "chapters/intro.typ", "kind": "file"},
                {"path": "drafts", "kind": "folder", "state": "collapsed"},
                {"path": "main.typ", "kind": "file"},
                {"path": "logo.png", "kind": "file"}
            ]}
        })
    }

    #[test]
    fn reads_identity_tree_and_panel_state() {
        let workspace = Workspace::interpret(Some(&fixture_workspace()));
        let file = workspace
            .active_file
            .clone()
            .map(|f| (f.relative_path, f.project_label, f.source));
        assert_eq!(
            file,
            Some((
                "main.typ".into(),
                Some("Harness Thesis".into()),
                "header_breadcrumb".into()
            ))
        );
        assert!(workspace.files_panel_open);
        assert_eq!(workspace.file_label(), "main.typ");
        let structure = workspace.visible_file_structure();
        assert_eq!(structure.as_ref().map(|s| s.tree.entries.len()), Some(5));
        assert_eq!(
            structure.as_ref().map(|s| s.collapsed_folders.clone()),
            Some(vec!["drafts".to_owned()])
        );
        assert_eq!(
            structure.and_then(|s| s.incompleteness()),
            Some(Incompleteness::CollapsedFolders)
        );
    }

    #[test]
    fn hostile_or_broken_hints_are_dropped_not_trusted() {
        let workspace = Workspace::interpret(Some(&json!({
            "active_editor_file": {"relativePath": "../../etc/passwd.typ", "source": "header_breadcrumb"},
            "files_panel_open": "yes",
            "project_file_tree": {"source": "invented", "entries": [{"path": "a.typ", "kind": "file"}]},
            "focused_element_file_hint": "https://evil.example/x.typ",
            "detail_path": "images\\logo.png"
        })));
        assert_eq!(workspace.active_file, None);
        assert!(!workspace.files_panel_open);
        assert_eq!(workspace.project_tree, None);
        assert_eq!(workspace.focused_file_hint, None);
        assert_eq!(workspace.file_label(), "images/logo.png");
        assert_eq!(workspace.visible_file_structure(), None);
    }

    #[test]
    fn file_label_falls_back_in_order() {
        let hint_only = Workspace::interpret(Some(
            &json!({"focused_element_file_hint": "main.typ", "detail_path": "a.png"}),
        ));
        assert_eq!(hint_only.file_label(), "main.typ");
        assert_eq!(Workspace::interpret(None).file_label(), DEFAULT_ACTIVE_FILE_LABEL);
        assert_eq!(
            Workspace::interpret(Some(&json!([1]))).file_label(),
            DEFAULT_ACTIVE_FILE_LABEL
        );
        let failed = Workspace::interpret(Some(&json!({"error": "x".repeat(1_500)})));
        assert_eq!(failed.error.map(|e| e.len()), Some(1_000));
    }

    #[test]
    fn a_closed_sidebar_has_no_structure_even_with_a_stale_tree() {
        let mut value = fixture_workspace();
        value["files_panel_open"] = json!(false);
        assert_eq!(Workspace::interpret(Some(&value)).visible_file_structure(), None);
    }

    #[test]
    fn incompleteness_prefers_unknown_rows_then_collapsed_then_truncation() {
        let tree = |entries: Value, truncated: bool| {
            ProjectTree::normalize(&json!({"source": "files_panel_dom", "entries": entries, "truncated": truncated}))
        };
        let complete = tree(json!([{"path": "main.typ", "kind": "file"}]), false).map(|t| FileStructure::of(&t));
        assert_eq!(complete.as_ref().map(FileStructure::is_complete), Some(true));
        let truncated = tree(json!([{"path": "main.typ", "kind": "file"}]), true).map(|t| FileStructure::of(&t));
        assert_eq!(
            truncated.and_then(|s| s.incompleteness()),
            Some(Incompleteness::Truncated)
        );
        let mixed = tree(
            json!([{"path": "d", "kind": "folder", "state": "collapsed"}, {"path": "README", "kind": "unknown"}]),
            true,
        )
        .map(|t| FileStructure::of(&t));
        assert_eq!(
            mixed.as_ref().and_then(FileStructure::incompleteness),
            Some(Incompleteness::UnclassifiedRows)
        );
        assert_eq!(mixed.map(|s| s.unknown_entries), Some(vec!["README".to_owned()]));
        let many: Vec<Value> = (0..40)
            .map(|i| json!({"path": format!("row {i}"), "kind": "unknown"}))
            .collect();
        let listed = tree(Value::Array(many), false).map(|t| FileStructure::of(&t).unknown_entries.len());
        assert_eq!(listed, Some(MAX_LISTED_UNKNOWN_ENTRIES));
    }
}
