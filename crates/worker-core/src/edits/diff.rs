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
use similar::algorithms::{Capture, Compact, DiffHook, Replace, myers};
use similar::{DiffOp, DiffTag, group_diff_ops};
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

/// How many first lines, and then how many last lines of the rest, two line
/// lists share: a line diff never changes them.
fn common_ends(old: &[&str], new: &[&str]) -> (usize, usize) {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let old_rest = old.get(prefix..).unwrap_or_default();
    let new_rest = new.get(prefix..).unwrap_or_default();
    let suffix = old_rest
        .iter()
        .rev()
        .zip(new_rest.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (prefix, suffix)
}

/// The lines of `lines` between its first `prefix` and last `suffix` lines.
fn middle<'a, 'b>(lines: &'a [&'b str], prefix: usize, suffix: usize) -> &'a [&'b str] {
    lines
        .get(prefix..lines.len().saturating_sub(suffix))
        .unwrap_or_default()
}

/// Hands the common first and last lines to the wrapped hook around a diff
/// of the lines between them, as one whole-document Myers run would.
struct CommonEnds<D> {
    inner: D,
    /// The common last lines: old index, new index, count.
    suffix: (usize, usize, usize),
}

impl<D: DiffHook> DiffHook for CommonEnds<D> {
    type Error = D::Error;

    fn equal(&mut self, old_index: usize, new_index: usize, len: usize) -> Result<(), D::Error> {
        self.inner.equal(old_index, new_index, len)
    }

    fn delete(&mut self, old_index: usize, old_len: usize, new_index: usize) -> Result<(), D::Error> {
        self.inner.delete(old_index, old_len, new_index)
    }

    fn insert(&mut self, old_index: usize, new_index: usize, new_len: usize) -> Result<(), D::Error> {
        self.inner.insert(old_index, new_index, new_len)
    }

    fn finish(&mut self) -> Result<(), D::Error> {
        let (old_index, new_index, len) = self.suffix;
        if len > 0 {
            self.inner.equal(old_index, new_index, len)?;
        }
        self.inner.finish()
    }
}

/// The line diff `similar::capture_diff_slices(Algorithm::Myers, old, new)`
/// returns, without its cost on a long document. That function searches
/// the edit graph only after it strips the common first and last lines,
/// but it first allocates the search arrays for the whole document and
/// compares those lines again; here they are handed to the same hooks
/// (`Compact`, `Replace`, `Capture`) around a Myers run over the lines
/// between them, so every hook sees the same calls in the same order. The
/// tests compare both on generated documents.
fn line_ops(old: &[&str], new: &[&str], prefix: usize, suffix: usize) -> Vec<DiffOp> {
    let mut hook = CommonEnds {
        inner: Compact::new(Replace::new(Capture::new()), old, new),
        suffix: (old.len() - suffix, new.len() - suffix, suffix),
    };
    // Capture, Replace and Compact never fail (their error is `Infallible`).
    let mut run = || -> Result<(), std::convert::Infallible> {
        if prefix > 0 {
            hook.equal(0, 0, prefix)?;
        }
        myers::diff(
            &mut hook,
            old,
            prefix..old.len() - suffix,
            new,
            prefix..new.len() - suffix,
        )
    };
    match run() {
        Ok(()) => hook.inner.into_inner().into_inner().into_ops(),
        Err(never) => match never {},
    }
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
    let (prefix, suffix) = common_ends(&old, &new);
    let (old_middle, new_middle) = (middle(&old, prefix, suffix), middle(&new, prefix, suffix));
    let bound = edit_distance_lower_bound(old_middle, new_middle);
    if bound > MAX_DIFF_EDIT_DISTANCE {
        return Err(too_complex(format!("at least {bound}")));
    }
    if !edit_distance_at_most(old_middle, new_middle, MAX_DIFF_EDIT_DISTANCE) {
        return Err(too_complex(format!("more than {MAX_DIFF_EDIT_DISTANCE}")));
    }
    let ops = line_ops(&old, &new, prefix, suffix);

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
mod tests;
