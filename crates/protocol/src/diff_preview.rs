//! The unified-diff preview that the worker shows in an approval banner and
//! that the page draws over the editor.
//!
//! Both the panel and the page render it, so its shape is bounded here once:
//! exact fields, at most 256 hunks, 5,000 rows and 512,000 text characters,
//! and at least one changed line.

use crate::js;
use crate::limits::{self, to_usize};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a diff row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiffRowKind {
    /// A line both texts share, shown around a change.
    Context,
    /// A line only the old text has.
    Delete,
    /// A line only the new text has.
    Insert,
}

/// One line of a hunk. Inserted rows have no old line number, deleted rows
/// no new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffRow {
    /// What the row shows.
    pub kind: DiffRowKind,
    /// Its 1-based line in the old text, when it has one.
    pub old_line: Option<u64>,
    /// Its 1-based line in the new text, when it has one.
    pub new_line: Option<u64>,
    /// The line's text.
    pub text: String,
}

/// A run of rows with its `@@ -oldStart,oldLines +newStart,newLines @@` header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffHunk {
    /// First old line of the hunk (1-based).
    pub old_start: u64,
    /// How many old lines the hunk covers.
    pub old_lines: u64,
    /// First new line of the hunk (1-based).
    pub new_start: u64,
    /// How many new lines the hunk covers.
    pub new_lines: u64,
    /// The hunk's rows, in order.
    pub rows: Vec<DiffRow>,
}

/// `{kind:'unified-diff', fileLabel, additions, deletions, hunks}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffPreview {
    /// Always `unified-diff`; kept so the value serialises to the wire shape.
    pub kind: DiffPreviewKind,
    /// The file the diff is of, as the user knows it.
    pub file_label: String,
    /// Inserted lines in all hunks.
    pub additions: u64,
    /// Deleted lines in all hunks.
    pub deletions: u64,
    /// The hunks, in document order.
    pub hunks: Vec<DiffHunk>,
}

/// The only preview kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum DiffPreviewKind {
    #[default]
    #[serde(rename = "unified-diff")]
    /// `unified-diff` on the wire.
    UnifiedDiff,
}

fn exact_keys(map: &serde_json::Map<String, Value>, allowed: &[&str]) -> bool {
    map.keys().all(|key| allowed.contains(&key.as_str()))
}

fn line_number(value: Option<&Value>) -> Option<Option<u64>> {
    match value {
        None | Some(Value::Null) => Some(None),
        Some(v) => js::as_safe_uint(v).filter(|n| *n >= 1).map(Some),
    }
}

impl DiffPreview {
    /// Parses a preview, or `None` when any rule is broken (the caller
    /// reports its own code, as the original did).
    pub fn parse(value: &Value) -> Option<DiffPreview> {
        let map = value.as_object()?;
        if !exact_keys(map, &["kind", "fileLabel", "additions", "deletions", "hunks"]) {
            return None;
        }
        if map.get("kind")?.as_str()? != "unified-diff" {
            return None;
        }
        let file_label = map.get("fileLabel")?.as_str()?;
        if !js::is_non_blank(file_label) || js::utf16_len(file_label) > to_usize(limits::MAX_FILE_LABEL_CHARS) {
            return None;
        }
        let additions = js::as_safe_uint(map.get("additions")?)?;
        let deletions = js::as_safe_uint(map.get("deletions")?)?;
        let raw_hunks = map.get("hunks")?.as_array()?;
        if raw_hunks.is_empty() || raw_hunks.len() > to_usize(limits::MAX_DIFF_HUNKS) {
            return None;
        }
        let mut rows_seen = 0usize;
        let mut text_chars = 0usize;
        let mut hunks = Vec::with_capacity(raw_hunks.len());
        for raw in raw_hunks {
            let hunk = raw.as_object()?;
            if !exact_keys(hunk, &["oldStart", "oldLines", "newStart", "newLines", "rows"]) {
                return None;
            }
            let number = |key: &str| hunk.get(key).and_then(js::as_safe_uint);
            let (old_start, old_lines) = (number("oldStart")?, number("oldLines")?);
            let (new_start, new_lines) = (number("newStart")?, number("newLines")?);
            let raw_rows = hunk.get("rows")?.as_array()?;
            if raw_rows.is_empty() {
                return None;
            }
            let mut rows = Vec::with_capacity(raw_rows.len());
            for raw_row in raw_rows {
                let row = raw_row.as_object()?;
                if !exact_keys(row, &["kind", "oldLine", "newLine", "text"]) {
                    return None;
                }
                let kind = match row.get("kind")?.as_str()? {
                    "context" => DiffRowKind::Context,
                    "delete" => DiffRowKind::Delete,
                    "insert" => DiffRowKind::Insert,
                    _ => return None,
                };
                let text = row.get("text")?.as_str()?;
                let old_line = line_number(row.get("oldLine"))?;
                let new_line = line_number(row.get("newLine"))?;
                if (kind == DiffRowKind::Insert && old_line.is_some())
                    || (kind == DiffRowKind::Delete && new_line.is_some())
                {
                    return None;
                }
                rows_seen += 1;
                text_chars += js::utf16_len(text);
                if rows_seen > to_usize(limits::MAX_DIFF_ROWS) || text_chars > to_usize(limits::MAX_DIFF_TEXT_CHARS) {
                    return None;
                }
                rows.push(DiffRow {
                    kind,
                    old_line,
                    new_line,
                    text: text.to_owned(),
                });
            }
            hunks.push(DiffHunk {
                old_start,
                old_lines,
                new_start,
                new_lines,
                rows,
            });
        }
        if additions.saturating_add(deletions) == 0 {
            return None;
        }
        Some(DiffPreview {
            kind: DiffPreviewKind::UnifiedDiff,
            file_label: file_label.to_owned(),
            additions,
            deletions,
            hunks,
        })
    }

    /// Whether `value` is a valid preview.
    pub fn is_valid(value: &Value) -> bool {
        DiffPreview::parse(value).is_some()
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

    fn preview() -> Value {
        json!({
            "kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
            "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "rows": [
                {"kind": "delete", "oldLine": 1, "newLine": null, "text": "old"},
                {"kind": "insert", "oldLine": null, "newLine": 1, "text": "new"}
            ]}]
        })
    }

    #[test]
    fn accepts_and_round_trips() {
        let parsed = DiffPreview::parse(&preview());
        assert!(parsed.is_some());
        let parsed = parsed.expect("valid preview");
        assert_eq!(parsed.to_value(), preview());
    }

    #[test]
    fn rejects_each_broken_rule() {
        type Mutation = Box<dyn Fn(&mut Value)>;
        let cases: Vec<Mutation> = vec![
            Box::new(|v| v["kind"] = json!("split")),
            Box::new(|v| v["fileLabel"] = json!(" ")),
            Box::new(|v| v["fileLabel"] = json!("x".repeat(241))),
            Box::new(|v| v["additions"] = json!(-1)),
            Box::new(|v| v["extra"] = json!(1)),
            Box::new(|v| v["hunks"] = json!([])),
            Box::new(|v| v["hunks"][0]["rows"] = json!([])),
            Box::new(|v| v["hunks"][0]["rows"][0]["kind"] = json!("execute")),
            Box::new(|v| v["hunks"][0]["rows"][0]["newLine"] = json!(1)),
            Box::new(|v| v["hunks"][0]["rows"][1]["oldLine"] = json!(1)),
            Box::new(|v| v["hunks"][0]["rows"][1]["newLine"] = json!(0)),
            Box::new(|v| {
                v["additions"] = json!(0);
                v["deletions"] = json!(0);
            }),
        ];
        for (index, case) in cases.iter().enumerate() {
            let mut value = preview();
            case(&mut value);
            assert!(!DiffPreview::is_valid(&value), "case {index}");
        }
    }
}
