//! The unified diff: hunks, context, bounds, and the line operations
//! against `similar`'s whole-document diff.

use super::*;
use protocol::edit_checkpoint::apply_text_changes;
use similar::{Algorithm, capture_diff_slices};

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

/// The whole-document diff the previews were built from before
/// [`line_ops`]: the reference its output must equal.
fn reference_ops(before: &str, after: &str) -> Vec<DiffOp> {
    let old: Vec<&str> = before.split('\n').collect();
    let new: Vec<&str> = after.split('\n').collect();
    capture_diff_slices(Algorithm::Myers, &old, &new)
}

fn ops_of(before: &str, after: &str) -> Vec<DiffOp> {
    let old: Vec<&str> = before.split('\n').collect();
    let new: Vec<&str> = after.split('\n').collect();
    let (prefix, suffix) = common_ends(&old, &new);
    line_ops(&old, &new, prefix, suffix)
}

#[test]
fn line_ops_equal_the_whole_document_diff_on_known_cases() {
    let long = numbered(20_000).join("\n");
    let mut bench = numbered(20_000);
    bench.splice(
        9_999..10_002,
        ["A replaced line.".to_owned(), "And one more.".to_owned()],
    );
    let repeated = ["x"; 30].join("\n");
    let cases: Vec<(String, String)> = vec![
        // The bench's replace_lines in the middle of 20,000 lines.
        (long.clone(), bench.join("\n")),
        // A repeated line removed next to its copies: the compaction may
        // slide the change into what the prefix and suffix hold.
        ("a\nb\nb\nc".into(), "a\nb\nc".into()),
        ("a\nb\nb\nb\nc".into(), "a\nb\nb\nb\nb\nc".into()),
        (repeated.clone(), format!("{repeated}\nx")),
        (repeated.clone(), format!("x\n{repeated}")),
        (format!("y\n{repeated}\ny"), format!("y\n{repeated}\nx\nx\ny")),
        // Only one side has lines between the common ends.
        ("a\nc".into(), "a\nb\nc".into()),
        ("a\nb\nc".into(), "a\nc".into()),
        // Changes at the very start and end, and whole replacements.
        ("a\nb".into(), "z\nb".into()),
        ("a\nb".into(), "a\nz".into()),
        ("".into(), "x".into()),
        ("a".into(), "a\n".into()),
        ("a\r\nb\r\nc".into(), "a\r\nB\r\nc".into()),
        ("p\nq\nr".into(), "s\nt".into()),
    ];
    for (before, after) in &cases {
        assert_eq!(
            ops_of(before, after),
            reference_ops(before, after),
            "{before:?} -> {after:?}"
        );
    }
}

proptest::proptest! {
    /// Documents of few distinct lines (so matches are ambiguous and the
    /// compaction has work to do), edited at random places.
    #[test]
    fn line_ops_equal_the_whole_document_diff(
        old in proptest::collection::vec(0u8..4, 0..40),
        edits in proptest::collection::vec((0usize..40, 0usize..4, proptest::collection::vec(0u8..4, 0..5)), 0..4),
    ) {
        let names = ["a", "b", "", "b a"];
        let mut new = old.clone();
        for (at, remove, insert) in edits {
            let at = at.min(new.len());
            let end = (at + remove).min(new.len());
            new.splice(at..end, insert);
        }
        let text = |lines: &[u8]| lines.iter().map(|n| names[usize::from(*n)]).collect::<Vec<_>>().join("\n");
        let (before, after) = (text(&old), text(&new));
        proptest::prop_assert_eq!(ops_of(&before, &after), reference_ops(&before, &after));
    }
}
