//! Unified line diffs for the previews the user reviews before an edit, a
//! Revert or a snapshot restore reaches the document.
//!
//! Lines are the document split on `\n` (a `\r` stays at the end of its row,
//! so a CRLF document shows exactly what it holds). The line diff is Myers'
//! algorithm from `similar`; changed rows are grouped into hunks with three
//! rows of context, and two hunks whose context would touch or overlap become
//! one. `oldStart`/`newStart` are the line numbers at the hunk's first row,
//! as the original showed them.
//!
//! Every preview is bounded before it is built: a diff the user could not
//! reasonably review (too many changed rows, too much changed text, or more
//! than the wire shape in [`protocol::diff_preview`] allows) is refused with
//! `EDIT_PREVIEW_TOO_LARGE`, whose message the caller can show as a notice.
//! What is returned always passes [`DiffPreview::parse`].

use super::error::{EditError, EditErrorCode};
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffPreviewKind, DiffRow, DiffRowKind};
use protocol::edit_checkpoint::{DEFAULT_EDIT_FILE_LABEL, TextChange};
use protocol::js;
use protocol::limits::{self, to_usize};
use similar::{Algorithm, DiffOp, DiffTag, capture_diff_slices, group_diff_ops};
use std::collections::HashMap;

/// Rows of unchanged lines shown around each change.
const DIFF_CONTEXT_LINES: usize = 3;
/// Most inserted plus deleted lines a diff may have (its edit distance).
const MAX_DIFF_EDIT_DISTANCE: usize = 4_000;
/// Most UTF-16 units of inserted and deleted line text in one diff.
const MAX_DIFF_CHANGED_TEXT_CHARS: usize = 256_000;

fn too_large(message: String) -> EditError {
    EditError::new(EditErrorCode::EditPreviewTooLarge, message)
}

/// The label a preview shows: the caller's file label, or the default label
/// when it is blank, cut to the wire bound (the label is only displayed; the
/// commit guard compares the caller's full label).
fn preview_file_label(file_label: &str) -> String {
    if !js::is_non_blank(file_label) {
        return DEFAULT_EDIT_FILE_LABEL.to_owned();
    }
    js::truncate_utf16(file_label, to_usize(limits::MAX_FILE_LABEL_CHARS)).to_owned()
}

/// The two line lists without their common first and last lines, which a
/// line diff never changes.
fn changed_middles<'a, 'b>(old: &'a [&'b str], new: &'a [&'b str]) -> (&'a [&'b str], &'a [&'b str]) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let old_rest = old.get(prefix..).unwrap_or_default();
    let new_rest = new.get(prefix..).unwrap_or_default();
    let suffix = old_rest
        .iter()
        .rev()
        .zip(new_rest.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (
        old_rest.get(..old_rest.len() - suffix).unwrap_or_default(),
        new_rest.get(..new_rest.len() - suffix).unwrap_or_default(),
    )
}

/// A lower bound of the edit distance that costs one pass: a line value that
/// occurs a different number of times on each side must be deleted or
/// inserted at least that many times. It refuses a pair of unrelated
/// documents at once, with an honest count in the message.
fn edit_distance_lower_bound(old: &[&str], new: &[&str]) -> usize {
    let mut balance: HashMap<&str, i64> = HashMap::new();
    for line in old {
        *balance.entry(line).or_default() += 1;
    }
    for line in new {
        *balance.entry(line).or_default() -= 1;
    }
    balance.values().map(|count| count.unsigned_abs() as usize).sum()
}

/// Whether the edit distance (inserted plus deleted lines) is at most
/// `limit`: the forward pass of Myers' algorithm, stopped after `limit`
/// rounds. `similar` offers only a wall-clock deadline, which would make
/// the answer depend on the machine; this bound keeps the work at
/// `O((N + M) · limit)` whatever the input (a reordering of many lines has a
/// zero multiset bound but a huge distance), so `similar` only ever runs on
/// diffs that will be shown.
fn edit_distance_at_most(old: &[&str], new: &[&str], limit: usize) -> bool {
    let (n, m) = (old.len(), new.len());
    if n.abs_diff(m) > limit {
        return false;
    }
    let max = limit.min(n + m);
    // `furthest[k + offset]` is the furthest x reached on diagonal k = x - y.
    let offset = max + 1;
    let mut furthest = vec![0usize; 2 * max + 3];
    let at = |furthest: &[usize], index: usize| furthest.get(index).copied().unwrap_or(0);
    for distance in 0..=max {
        for step in 0..=distance {
            // k runs over -distance, -distance + 2, ..., distance.
            let index = offset + 2 * step - distance;
            let x_start = if step == 0 || (step != distance && at(&furthest, index - 1) < at(&furthest, index + 1)) {
                at(&furthest, index + 1)
            } else {
                at(&furthest, index - 1) + 1
            };
            // y = x - k, with k = index - offset.
            let Some(mut y) = (x_start + offset).checked_sub(index) else {
                continue;
            };
            let mut x = x_start;
            while x < n && y < m && old.get(x) == new.get(y) {
                x += 1;
                y += 1;
            }
            if let Some(slot) = furthest.get_mut(index) {
                *slot = x;
            }
            if x >= n && y >= m {
                return true;
            }
        }
    }
    false
}

fn too_complex(changed: String) -> EditError {
    too_large(format!(
        "The line diff is too complex to review safely ({changed} changed lines; limit {MAX_DIFF_EDIT_DISTANCE})."
    ))
}

fn row(kind: DiffRowKind, old_line: Option<usize>, new_line: Option<usize>, text: &str) -> DiffRow {
    DiffRow {
        kind,
        old_line: old_line.map(|line| line as u64 + 1),
        new_line: new_line.map(|line| line as u64 + 1),
        text: text.to_owned(),
    }
}

/// The rows of one diff operation, in order: deletions before insertions.
fn op_rows(op: &DiffOp, old: &[&str], new: &[&str], rows: &mut Vec<DiffRow>) {
    let (tag, old_range, new_range) = op.as_tag_tuple();
    let old_lines = old.get(old_range.clone()).unwrap_or_default();
    let new_lines = new.get(new_range.clone()).unwrap_or_default();
    match tag {
        DiffTag::Equal => {
            for (offset, text) in old_lines.iter().enumerate() {
                let (old_index, new_index) = (old_range.start + offset, new_range.start + offset);
                rows.push(row(DiffRowKind::Context, Some(old_index), Some(new_index), text));
            }
        }
        DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
            for (offset, text) in old_lines.iter().enumerate() {
                rows.push(row(DiffRowKind::Delete, Some(old_range.start + offset), None, text));
            }
            for (offset, text) in new_lines.iter().enumerate() {
                rows.push(row(DiffRowKind::Insert, None, Some(new_range.start + offset), text));
            }
        }
    }
}

/// The unified diff from `before` to `after`, or `None` when they are equal
/// (a preview needs at least one changed line).
///
/// Fails with `EDIT_PREVIEW_TOO_LARGE` when the diff has more than
/// [`MAX_DIFF_EDIT_DISTANCE`] changed lines, more than
/// [`MAX_DIFF_CHANGED_TEXT_CHARS`] of changed text, or would exceed the wire
/// bounds (hunks, rows, text) of a [`DiffPreview`].
pub(crate) fn unified_diff(before: &str, after: &str, file_label: &str) -> Result<Option<DiffPreview>, EditError> {
    if before == after {
        return Ok(None);
    }
    let old: Vec<&str> = before.split('\n').collect();
    let new: Vec<&str> = after.split('\n').collect();
    let (old_middle, new_middle) = changed_middles(&old, &new);
    let bound = edit_distance_lower_bound(old_middle, new_middle);
    if bound > MAX_DIFF_EDIT_DISTANCE {
        return Err(too_complex(format!("at least {bound}")));
    }
    if !edit_distance_at_most(old_middle, new_middle, MAX_DIFF_EDIT_DISTANCE) {
        return Err(too_complex(format!("more than {MAX_DIFF_EDIT_DISTANCE}")));
    }
    let ops = capture_diff_slices(Algorithm::Myers, &old, &new);

    let mut additions = 0usize;
    let mut deletions = 0usize;
    let mut changed_chars = 0usize;
    for op in &ops {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == DiffTag::Equal {
            continue;
        }
        deletions += old_range.len();
        additions += new_range.len();
        let deleted = old.get(old_range).unwrap_or_default();
        let inserted = new.get(new_range).unwrap_or_default();
        changed_chars += deleted
            .iter()
            .chain(inserted)
            .map(|line| js::utf16_len(line))
            .sum::<usize>();
    }
    // Myers' result is minimal, so this holds after the check above; it
    // stays as the guard of what is shown.
    let distance = additions + deletions;
    if distance > MAX_DIFF_EDIT_DISTANCE {
        return Err(too_complex(distance.to_string()));
    }
    if changed_chars > MAX_DIFF_CHANGED_TEXT_CHARS {
        return Err(too_large(format!(
            "The diff contains too much changed text to review safely ({changed_chars} characters; limit {MAX_DIFF_CHANGED_TEXT_CHARS})."
        )));
    }

    let groups = group_diff_ops(ops, DIFF_CONTEXT_LINES);
    if groups.len() > to_usize(limits::MAX_DIFF_HUNKS) {
        return Err(too_large(format!(
            "The diff has too many separate changes to display ({} hunks; limit {}).",
            groups.len(),
            limits::MAX_DIFF_HUNKS
        )));
    }
    let mut hunks = Vec::with_capacity(groups.len());
    let mut total_rows = 0usize;
    let mut total_chars = 0usize;
    for group in &groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_span = first.old_range().start..last.old_range().end;
        let new_span = first.new_range().start..last.new_range().end;
        let mut rows = Vec::with_capacity(old_span.len() + new_span.len());
        for op in group {
            op_rows(op, &old, &new, &mut rows);
        }
        total_rows += rows.len();
        total_chars += rows.iter().map(|row| js::utf16_len(&row.text)).sum::<usize>();
        if total_rows > to_usize(limits::MAX_DIFF_ROWS) {
            return Err(too_large(format!(
                "The diff has too many rows to display (more than {}).",
                limits::MAX_DIFF_ROWS
            )));
        }
        if total_chars > to_usize(limits::MAX_DIFF_TEXT_CHARS) {
            return Err(too_large(format!(
                "The diff has too much text to display (more than {} characters).",
                limits::MAX_DIFF_TEXT_CHARS
            )));
        }
        hunks.push(DiffHunk {
            old_start: old_span.start as u64 + 1,
            old_lines: old_span.len() as u64,
            new_start: new_span.start as u64 + 1,
            new_lines: new_span.len() as u64,
            rows,
        });
    }
    Ok(Some(DiffPreview {
        kind: DiffPreviewKind::UnifiedDiff,
        file_label: preview_file_label(file_label),
        additions: additions as u64,
        deletions: deletions as u64,
        hunks,
    }))
}

/// What Revert and snapshot restore show and send: the live document is
/// replaced as a whole by the saved text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WholeDocumentEdit {
    /// The live document already equals the saved text: nothing to do.
    Unchanged,
    /// A replacement with its preview, or with a notice (the
    /// `EDIT_PREVIEW_TOO_LARGE` message) when the diff cannot be displayed;
    /// the replacement itself stays possible then.
    Replace {
        change: TextChange,
        preview: Option<DiffPreview>,
        notice: Option<String>,
    },
}

/// The single change that turns `current` into `target` (all of `current`,
/// in UTF-16 units, replaced by `target`).
pub(crate) fn whole_document_change(current: &str, target: &str) -> TextChange {
    TextChange {
        from: 0,
        to: js::utf16_len(current) as u64,
        insert: target.to_owned(),
    }
}

/// The whole-document replacement from `current` to `target` and its diff.
pub(crate) fn whole_document_edit(current: &str, target: &str, file_label: &str) -> WholeDocumentEdit {
    if current == target {
        return WholeDocumentEdit::Unchanged;
    }
    let change = whole_document_change(current, target);
    match unified_diff(current, target, file_label) {
        Ok(preview) => WholeDocumentEdit::Replace {
            change,
            preview,
            notice: None,
        },
        Err(error) => WholeDocumentEdit::Replace {
            change,
            preview: None,
            notice: Some(error.message),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::edit_checkpoint::apply_text_changes;

    fn diff(before: &str, after: &str) -> DiffPreview {
        let preview = unified_diff(before, after, "main.typ")
            .expect("diff builds")
            .expect("texts differ");
        assert_eq!(
            DiffPreview::parse(&preview.to_value()).as_ref(),
            Some(&preview),
            "the preview must pass the wire validator"
        );
        preview
    }

    fn kinds_and_text(hunk: &DiffHunk) -> Vec<(DiffRowKind, Option<u64>, Option<u64>, &str)> {
        hunk.rows
            .iter()
            .map(|row| (row.kind, row.old_line, row.new_line, row.text.as_str()))
            .collect()
    }

    fn numbered(count: usize) -> Vec<String> {
        (1..=count).map(|n| format!("line {n}")).collect()
    }

    use DiffRowKind::{Context as C, Delete as D, Insert as I};

    #[test]
    fn equal_texts_have_no_preview() {
        assert_eq!(unified_diff("same\ntext", "same\ntext", "main.typ"), Ok(None));
        assert_eq!(unified_diff("", "", "main.typ"), Ok(None));
    }

    #[test]
    fn a_replaced_line_shows_context_and_both_line_numbers() {
        let preview = diff("= Title\nOld paragraph\nLast", "= Title\nNew paragraph\nLast");
        assert_eq!((preview.additions, preview.deletions), (1, 1));
        assert_eq!(preview.file_label, "main.typ");
        let [hunk] = preview.hunks.as_slice() else {
            panic!("one hunk expected: {preview:?}");
        };
        assert_eq!(
            (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines),
            (1, 3, 1, 3)
        );
        assert_eq!(
            kinds_and_text(hunk),
            vec![
                (C, Some(1), Some(1), "= Title"),
                (D, Some(2), None, "Old paragraph"),
                (I, None, Some(2), "New paragraph"),
                (C, Some(3), Some(3), "Last"),
            ]
        );
    }

    #[test]
    fn distant_changes_form_separate_hunks_with_three_context_rows() {
        let before = numbered(24);
        let mut after = before.clone();
        after[1] = "changed 2".into();
        after[21] = "changed 22".into();
        let preview = diff(&before.join("\n"), &after.join("\n"));
        assert_eq!((preview.additions, preview.deletions), (2, 2));
        let [first, second] = preview.hunks.as_slice() else {
            panic!("two hunks expected: {preview:?}");
        };
        // Line 2 changed: one line of context above (line 1), three below (3-5).
        assert_eq!(
            (first.old_start, first.old_lines, first.new_start, first.new_lines),
            (1, 5, 1, 5)
        );
        assert_eq!(first.rows.first().map(|r| r.text.as_str()), Some("line 1"));
        assert_eq!(first.rows.last().map(|r| r.text.as_str()), Some("line 5"));
        // Line 22 changed: context 19-21 above, 23-24 below.
        assert_eq!(
            (second.old_start, second.old_lines, second.new_start, second.new_lines),
            (19, 6, 19, 6)
        );
        assert_eq!(second.rows.first().map(|r| r.text.as_str()), Some("line 19"));
        assert_eq!(second.rows.last().map(|r| r.text.as_str()), Some("line 24"));
    }

    #[test]
    fn changes_six_lines_apart_merge_and_seven_apart_split() {
        let before = numbered(40);
        // Changed lines 10 and 17: six unchanged lines between them.
        let mut merged = before.clone();
        merged[9] = "x".into();
        merged[16] = "y".into();
        let preview = diff(&before.join("\n"), &merged.join("\n"));
        assert_eq!(preview.hunks.len(), 1);
        let hunk = &preview.hunks[0];
        assert_eq!((hunk.old_start, hunk.old_lines), (7, 14));
        assert_eq!(hunk.rows.iter().filter(|r| r.kind == C).count(), 12);

        // Changed lines 10 and 18: seven unchanged lines between them.
        let mut split = before.clone();
        split[9] = "x".into();
        split[17] = "y".into();
        let preview = diff(&before.join("\n"), &split.join("\n"));
        assert_eq!(preview.hunks.len(), 2);
        assert_eq!((preview.hunks[0].old_start, preview.hunks[0].old_lines), (7, 7));
        assert_eq!((preview.hunks[1].old_start, preview.hunks[1].old_lines), (15, 7));
    }

    #[test]
    fn pure_insertions_and_deletions_count_and_number_lines() {
        let preview = diff("a\nb\nc", "a\nb\nnew 1\nnew 2\nc");
        assert_eq!((preview.additions, preview.deletions), (2, 0));
        let hunk = &preview.hunks[0];
        assert_eq!(
            (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines),
            (1, 3, 1, 5)
        );
        assert_eq!(
            kinds_and_text(hunk),
            vec![
                (C, Some(1), Some(1), "a"),
                (C, Some(2), Some(2), "b"),
                (I, None, Some(3), "new 1"),
                (I, None, Some(4), "new 2"),
                (C, Some(3), Some(5), "c"),
            ]
        );

        let preview = diff("a\nb\nc\nd", "a\nd");
        assert_eq!((preview.additions, preview.deletions), (0, 2));
        assert_eq!(
            kinds_and_text(&preview.hunks[0]),
            vec![
                (C, Some(1), Some(1), "a"),
                (D, Some(2), None, "b"),
                (D, Some(3), None, "c"),
                (C, Some(4), Some(2), "d"),
            ]
        );
    }

    #[test]
    fn a_hunk_that_starts_with_an_insertion_uses_the_line_cursors() {
        let preview = diff("a", "new\na");
        let hunk = &preview.hunks[0];
        assert_eq!(
            (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines),
            (1, 1, 1, 2)
        );
        assert_eq!(kinds_and_text(hunk)[0], (I, None, Some(1), "new"));
    }

    #[test]
    fn end_of_document_newlines_and_empty_documents_are_lines_too() {
        // Adding a final newline adds an empty last line.
        let preview = diff("a", "a\n");
        assert_eq!((preview.additions, preview.deletions), (1, 0));
        assert_eq!(kinds_and_text(&preview.hunks[0]).last(), Some(&(I, None, Some(2), "")));

        // An empty document is one empty line.
        let preview = diff("", "x");
        assert_eq!(
            kinds_and_text(&preview.hunks[0]),
            vec![(D, Some(1), None, ""), (I, None, Some(1), "x")]
        );
    }

    #[test]
    fn crlf_rows_keep_their_carriage_return() {
        let preview = diff("a\r\nb\r\nc", "a\r\nB\r\nc");
        assert_eq!(
            kinds_and_text(&preview.hunks[0]),
            vec![
                (C, Some(1), Some(1), "a\r"),
                (D, Some(2), None, "b\r"),
                (I, None, Some(2), "B\r"),
                (C, Some(3), Some(3), "c"),
            ]
        );
    }

    #[test]
    fn the_file_label_falls_back_and_is_bounded() {
        let preview = unified_diff("a", "b", "  ").expect("diff").expect("changed");
        assert_eq!(preview.file_label, DEFAULT_EDIT_FILE_LABEL);
        let long = format!("{}.typ", "d/".repeat(200));
        let preview = unified_diff("a", "b", &long).expect("diff").expect("changed");
        assert_eq!(js::utf16_len(&preview.file_label), 240);
        assert!(DiffPreview::is_valid(&preview.to_value()));
    }

    #[test]
    fn unrelated_documents_are_refused_before_diffing() {
        let before = (0..3_000).map(|n| format!("old {n}")).collect::<Vec<_>>().join("\n");
        let after = (0..3_000).map(|n| format!("new {n}")).collect::<Vec<_>>().join("\n");
        let error = unified_diff(&before, &after, "main.typ").expect_err("too complex");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
        assert!(error.message.contains("6000"), "{}", error.message);
    }

    #[test]
    fn an_edit_distance_just_over_the_limit_is_refused_and_at_the_limit_accepted() {
        // 2,000 replaced lines are 4,000 changed rows: exactly the limit.
        let before = numbered(2_001).join("\n");
        let mut lines = numbered(2_001);
        for line in lines.iter_mut().take(2_000) {
            line.push('!');
        }
        let preview = diff(&before, &lines.join("\n"));
        assert_eq!(preview.additions + preview.deletions, 4_000);

        lines[2_000].push('!');
        let error = unified_diff(&before, &lines.join("\n"), "main.typ").expect_err("over the limit");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
    }

    #[test]
    fn a_reordering_that_the_cheap_bound_misses_is_still_refused() {
        // The same lines in reverse order: the multiset bound is zero, the
        // real edit distance is far above the limit.
        let lines = numbered(2_100);
        let reversed: Vec<String> = lines.iter().rev().cloned().collect();
        let error = unified_diff(&lines.join("\n"), &reversed.join("\n"), "main.typ").expect_err("too complex");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
        assert!(error.message.contains("more than 4000"), "{}", error.message);
    }

    /// The edit distance by the textbook LCS table, for small inputs.
    fn reference_distance(old: &[&str], new: &[&str]) -> usize {
        let mut table = vec![vec![0usize; new.len() + 1]; old.len() + 1];
        for i in (0..old.len()).rev() {
            for j in (0..new.len()).rev() {
                table[i][j] = if old[i] == new[j] {
                    table[i + 1][j + 1] + 1
                } else {
                    table[i + 1][j].max(table[i][j + 1])
                };
            }
        }
        old.len() + new.len() - 2 * table[0][0]
    }

    #[test]
    fn the_bounded_distance_check_agrees_with_known_distances() {
        let cases: [(&[&str], &[&str], usize); 6] = [
            (&[], &[], 0),
            (&["a"], &[], 1),
            (&[], &["a", "b"], 2),
            (&["a", "b", "c"], &["a", "x", "c"], 2),
            (&["a", "b", "c", "d"], &["d", "c", "b", "a"], 6),
            (&["a", "b", "a", "b"], &["b", "a", "b", "a"], 2),
        ];
        for (old, new, distance) in cases {
            assert_eq!(reference_distance(old, new), distance, "{old:?} {new:?}");
            assert!(
                edit_distance_at_most(old, new, distance),
                "{old:?} {new:?} within {distance}"
            );
            if distance > 0 {
                assert!(
                    !edit_distance_at_most(old, new, distance - 1),
                    "{old:?} {new:?} over {}",
                    distance - 1
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_bounded_distance_check_matches_the_lcs_distance(
            old in proptest::collection::vec(0u8..4, 0..24),
            new in proptest::collection::vec(0u8..4, 0..24),
            limit in 0usize..40,
        ) {
            let names = ["a", "b", "c", "d"];
            let old: Vec<&str> = old.iter().map(|n| names[usize::from(*n)]).collect();
            let new: Vec<&str> = new.iter().map(|n| names[usize::from(*n)]).collect();
            let distance = reference_distance(&old, &new);
            proptest::prop_assert_eq!(edit_distance_at_most(&old, &new, limit), distance <= limit);
            // similar's Myers is minimal too, so the previews count the same.
            let ops = capture_diff_slices(Algorithm::Myers, &old, &new);
            let changed: usize = ops
                .iter()
                .filter(|op| op.tag() != DiffTag::Equal)
                .map(|op| op.old_range().len() + op.new_range().len())
                .sum();
            proptest::prop_assert_eq!(changed, distance);
        }
    }

    #[test]
    fn too_much_changed_text_is_refused() {
        let long = "x".repeat(MAX_DIFF_CHANGED_TEXT_CHARS);
        let error = unified_diff("a", &long, "main.typ").expect_err("too much text");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
        assert!(error.message.contains("256001"), "{}", error.message);
    }

    #[test]
    fn more_hunks_than_the_wire_allows_are_refused() {
        // 300 isolated changes, each eight lines apart.
        let before = numbered(2_400);
        let mut after = before.clone();
        for index in (0..2_400).step_by(8) {
            after[index] = format!("changed {index}");
        }
        let error = unified_diff(&before.join("\n"), &after.join("\n"), "main.typ").expect_err("too many hunks");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
        assert!(error.message.contains("300 hunks"), "{}", error.message);
    }

    #[test]
    fn more_rows_than_the_wire_allows_are_refused() {
        // 250 separate hunks (within the hunk bound), each 8 replaced lines
        // plus 6 context rows: 5,500 rows at an edit distance of exactly 4,000.
        let before = numbered(250 * 20);
        let mut after = before.clone();
        for block in 0..250 {
            for offset in 0..8 {
                after[block * 20 + offset] = format!("changed {block} {offset}");
            }
        }
        let error = unified_diff(&before.join("\n"), &after.join("\n"), "main.typ").expect_err("too many rows");
        assert_eq!(error.code().as_str(), "EDIT_PREVIEW_TOO_LARGE");
    }

    #[test]
    fn whole_document_edits_replace_everything_and_keep_a_notice_when_too_large() {
        assert_eq!(
            whole_document_edit("same", "same", "main.typ"),
            WholeDocumentEdit::Unchanged
        );

        let current = "a\u{1F600}\nb";
        let WholeDocumentEdit::Replace {
            change,
            preview,
            notice,
        } = whole_document_edit(current, "a\nc", "main.typ")
        else {
            panic!("a replacement expected");
        };
        assert_eq!((change.from, change.to), (0, 5));
        assert_eq!(apply_text_changes(current, &[change]).as_deref(), Ok("a\nc"));
        assert_eq!(notice, None);
        let preview = preview.expect("small diff has a preview");
        assert_eq!((preview.additions, preview.deletions), (2, 2));

        let before = (0..5_000).map(|n| format!("old {n}")).collect::<Vec<_>>().join("\n");
        let WholeDocumentEdit::Replace {
            change,
            preview,
            notice,
        } = whole_document_edit(&before, "new", "main.typ")
        else {
            panic!("a replacement expected");
        };
        assert!(preview.is_none(), "5,001 changed lines have no preview");
        assert!(notice.is_some_and(|text| !text.is_empty()));
        assert_eq!(apply_text_changes(&before, &[change]).as_deref(), Ok("new"));
    }

    #[test]
    fn a_twenty_thousand_line_document_gets_its_preview() {
        let before = numbered(20_000);
        let mut after = before.clone();
        for index in [5, 4_000, 9_999, 15_000, 19_999] {
            after[index] = format!("edited {index}");
        }
        after.insert(12_000, "inserted".into());
        let preview = diff(&before.join("\n"), &after.join("\n"));
        assert_eq!((preview.additions, preview.deletions), (6, 5));
        assert_eq!(preview.hunks.len(), 6);
        let last = preview.hunks.last().expect("hunks");
        assert_eq!(
            last.rows.last().map(|r| (r.old_line, r.new_line)),
            Some((None, Some(20_001)))
        );
    }
}
