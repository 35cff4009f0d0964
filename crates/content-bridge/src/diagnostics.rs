//! `PAGE_GET_DIAGNOSTICS`: the merged lint underlines and Improve-panel rows
//! the page reports.
//!
//! Each item has exactly the fields severity, message, line, column, kind,
//! original and suggestion (the protocol crate checks them and their bounds).
//! This module keeps the answer typed, checks that its counts agree, and
//! tells compiler diagnostics, spelling suggestions and parser status rows
//! apart, because `read_diagnostics` reports them separately: a spelling
//! suggestion is not a compiler warning, and a status row ("the panel could
//! not be read") is neither.

use crate::request::PageError;
use protocol::MessageType;
use protocol::page_response::{PageDiagnostic, PageResponseData};
use serde_json::{Map, Value, json};

/// `kind` of a spelling suggestion from the Misspellings section.
pub const KIND_SPELLING: &str = "spelling";
/// `kind` of a row that reports the reader's own state (the panel could not
/// be parsed), not a finding about the document.
pub const KIND_STATUS: &str = "typst-status";

/// How one item counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticClass {
    /// A Typst compiler error, warning or summary placeholder.
    Compiler,
    /// A spelling suggestion ([`KIND_SPELLING`]).
    Spelling,
    /// The reader's own state ([`KIND_STATUS`]).
    Status,
}

/// The class of one item, by its `kind`.
pub fn class_of(item: &PageDiagnostic) -> DiagnosticClass {
    match item.kind.as_deref() {
        Some(KIND_SPELLING) => DiagnosticClass::Spelling,
        Some(KIND_STATUS) => DiagnosticClass::Status,
        _ => DiagnosticClass::Compiler,
    }
}

/// The counts `read_diagnostics` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiagnosticCounts {
    /// Compiler items with severity `error`.
    pub errors: usize,
    /// Compiler items with severity `warning`.
    pub warnings: usize,
    /// Spelling suggestions.
    pub spelling: usize,
    /// Status rows of the reader.
    pub status: usize,
}

/// A checked `PAGE_GET_DIAGNOSTICS` answer. Two reads that compare equal
/// agree on everything the model would see (the stability check of
/// `read_diagnostics` reads until two consecutive answers are equal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageDiagnostics {
    /// The items the page sent, in its order.
    pub items: Vec<PageDiagnostic>,
    /// The page could not read diagnostics (no editor).
    pub error: Option<String>,
    /// How many items the page found before bounding them.
    pub total_count: Option<u64>,
    /// Items were left out to stay within the bridge bounds.
    pub truncated: bool,
}

impl PageDiagnostics {
    /// Checks the page's `data` (shape, bounds, and that `truncated` agrees
    /// with `totalCount`).
    pub fn parse(data: &Value) -> Result<PageDiagnostics, PageError> {
        let wire = match PageResponseData::parse(MessageType::PageGetDiagnostics, data) {
            Ok(PageResponseData::Diagnostics(wire)) => wire,
            Ok(_) => {
                return Err(PageError::invalid(
                    "The page answered a diagnostics request with other data.",
                ));
            }
            Err(error) => return Err(PageError::invalid(error.message)),
        };
        let truncated = wire.truncated == Some(true);
        if let Some(total) = wire.total_count {
            let shown = wire.diagnostics.len() as u64;
            if truncated != (total > shown) {
                return Err(PageError::invalid(
                    "The page's diagnostics are inconsistent: truncated does not match totalCount.",
                ));
            }
        }
        Ok(PageDiagnostics {
            items: wire.diagnostics,
            error: wire.error.filter(|text| !text.trim().is_empty()),
            total_count: wire.total_count,
            truncated,
        })
    }

    /// Every item the page found, including those left out.
    pub fn total(&self) -> u64 {
        self.total_count.unwrap_or(self.items.len() as u64)
    }

    /// The items counted by class and severity.
    pub fn counts(&self) -> DiagnosticCounts {
        let mut counts = DiagnosticCounts::default();
        for item in &self.items {
            match class_of(item) {
                DiagnosticClass::Spelling => counts.spelling += 1,
                DiagnosticClass::Status => counts.status += 1,
                DiagnosticClass::Compiler => match item.severity.as_deref() {
                    Some("error") => counts.errors += 1,
                    Some("warning") => counts.warnings += 1,
                    _ => {}
                },
            }
        }
        counts
    }

    /// The items as the page sent them: all seven fields, `null` where empty.
    pub fn items_value(&self) -> Value {
        Value::Array(self.items.iter().map(item_value).collect())
    }
}

/// One item with all seven fields, in the page's order.
pub fn item_value(item: &PageDiagnostic) -> Value {
    let mut map = Map::new();
    map.insert("severity".into(), json!(item.severity));
    map.insert("message".into(), json!(item.message));
    map.insert("line".into(), json!(item.line));
    map.insert("column".into(), json!(item.column));
    map.insert("kind".into(), json!(item.kind));
    map.insert("original".into(), json!(item.original));
    map.insert("suggestion".into(), json!(item.suggestion));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(severity: &str, kind: &str, line: Option<u64>) -> Value {
        json!({"severity": severity, "message": format!("{kind} {severity}"), "line": line, "column": null,
            "kind": kind, "original": null, "suggestion": null})
    }

    #[test]
    fn the_fixture_answer_counts_one_compiler_error() {
        let data = json!({"diagnostics": [{"severity": "error", "message": "unknown variable: undefined-thing",
            "line": 3, "column": 25, "kind": "typst", "original": null, "suggestion": null}],
            "totalCount": 1, "truncated": false});
        let parsed = PageDiagnostics::parse(&data).expect("valid");
        assert_eq!(
            parsed.counts(),
            DiagnosticCounts {
                errors: 1,
                ..DiagnosticCounts::default()
            }
        );
        assert_eq!(parsed.items_value(), data["diagnostics"]);
        assert_eq!((parsed.total(), parsed.truncated), (1, false));
    }

    #[test]
    fn spelling_and_status_rows_are_not_compiler_findings() {
        let data = json!({"diagnostics": [
            item("error", "typst", Some(3)),
            item("warning", "typst", Some(4)),
            item("error", "typst-summary", None),
            item("warning", "spelling", Some(9)),
            item("info", "spelling", Some(9)),
            item("warning", "typst-status", None),
            item("info", "typst", Some(2)),
        ], "totalCount": 7, "truncated": false});
        let counts = PageDiagnostics::parse(&data).map(|d| d.counts());
        assert_eq!(
            counts,
            Ok(DiagnosticCounts {
                errors: 2,
                warnings: 1,
                spelling: 2,
                status: 1
            })
        );
    }

    #[test]
    fn bounds_and_counts_must_agree() {
        let one = [item("error", "typst", Some(1))];
        for bad in [
            json!({"diagnostics": one, "totalCount": 3, "truncated": false}),
            json!({"diagnostics": one, "totalCount": 1, "truncated": true}),
            json!({"diagnostics": one, "totalCount": 0}),
            json!({"diagnostics": [{"message": "m", "extra": 1}]}),
            json!({"diagnostics": "none"}),
            json!({"diagnostics": [{"severity": "x".repeat(17), "message": "m"}]}),
        ] {
            let result = PageDiagnostics::parse(&bad).map_err(|e| e.code);
            assert_eq!(result, Err("INVALID_PAGE_RESPONSE".to_owned()), "{bad}");
        }
        let cut = json!({"diagnostics": one, "totalCount": 250, "truncated": true});
        assert_eq!(PageDiagnostics::parse(&cut).map(|d| d.total()), Ok(250));
    }

    #[test]
    fn equal_reads_are_stable_and_different_reads_are_not() {
        let first = json!({"diagnostics": [item("error", "typst", Some(3))], "totalCount": 1, "truncated": false});
        let moved = json!({"diagnostics": [item("error", "typst", Some(4))], "totalCount": 1, "truncated": false});
        let a = PageDiagnostics::parse(&first);
        assert_eq!(a, PageDiagnostics::parse(&first));
        assert_ne!(a, PageDiagnostics::parse(&moved));
        let without_editor = PageDiagnostics::parse(&json!({"diagnostics": [], "error": "EditorView not found"}));
        assert_eq!(
            without_editor.map(|d| (d.total(), d.error)),
            Ok((0, Some("EditorView not found".to_owned())))
        );
    }
}
