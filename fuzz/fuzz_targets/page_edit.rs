//! Answers to the edit requests (`PAGE_SHOW_EDIT_PREVIEW`, `PAGE_APPLY_EDIT`,
//! `PAGE_CLEAR_EDIT_PREVIEW`, chosen by the first byte): the first reading,
//! then the answer interpreter against a fixed, valid request. Nothing may
//! panic.
#![no_main]

#[path = "page_common.rs"]
mod page_common;

use content_bridge::edit_requests::{parse_apply_answer, parse_clear_answer, parse_show_answer};
use libfuzzer_sys::fuzz_target;
use protocol::MessageType;
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffPreviewKind, DiffRow, DiffRowKind};
use protocol::edit_checkpoint::TextChange;
use protocol::payloads::{ExpectedDocument, PageApplyEdit, PageShowEditPreview};
use std::sync::OnceLock;

fn row(kind: DiffRowKind, old_line: Option<u64>, new_line: Option<u64>, text: &str) -> DiffRow {
    DiffRow {
        kind,
        old_line,
        new_line,
        text: text.to_owned(),
    }
}

fn change() -> Vec<TextChange> {
    vec![TextChange {
        from: 2,
        to: 3,
        insert: "B".to_owned(),
    }]
}

fn show_request() -> &'static PageShowEditPreview {
    static REQUEST: OnceLock<PageShowEditPreview> = OnceLock::new();
    REQUEST.get_or_init(|| PageShowEditPreview {
        expected: ExpectedDocument::Text {
            text: "a\nb\nc".to_owned(),
        },
        expected_editor_token: "token-1".to_owned(),
        expected_file_label: "main.typ".to_owned(),
        changes: change(),
        call_id: "call-1".to_owned(),
        preview: DiffPreview {
            kind: DiffPreviewKind::UnifiedDiff,
            file_label: "main.typ".to_owned(),
            additions: 1,
            deletions: 1,
            hunks: vec![DiffHunk {
                old_start: 1,
                old_lines: 3,
                new_start: 1,
                new_lines: 3,
                rows: vec![
                    row(DiffRowKind::Context, Some(1), Some(1), "a"),
                    row(DiffRowKind::Delete, Some(2), None, "b"),
                    row(DiffRowKind::Insert, None, Some(2), "B"),
                    row(DiffRowKind::Context, Some(3), Some(3), "c"),
                ],
            }],
        },
    })
}

fn apply_request() -> &'static PageApplyEdit {
    static REQUEST: OnceLock<PageApplyEdit> = OnceLock::new();
    REQUEST.get_or_init(|| PageApplyEdit {
        expected_text: "a\nb\nc".to_owned(),
        expected_editor_token: "token-1".to_owned(),
        expected_file_label: "main.typ".to_owned(),
        changes: change(),
        call_id: "call-1".to_owned(),
        reviewed_diff: true,
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, answer)) = data.split_first() else {
        return;
    };
    match selector % 3 {
        0 => {
            if let Ok(value) = page_common::read(MessageType::PageShowEditPreview, answer) {
                let _ = parse_show_answer(show_request(), &value);
            }
        }
        1 => {
            if let Ok(value) = page_common::read(MessageType::PageApplyEdit, answer) {
                let _ = parse_apply_answer(apply_request(), &value);
            }
        }
        _ => {
            if let Ok(value) = page_common::read(MessageType::PageClearEditPreview, answer) {
                let _ = parse_clear_answer(&value);
            }
        }
    }
});
