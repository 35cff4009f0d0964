//! Markdown of a streaming answer rendered block by block: every completed
//! top-level block goes through [`render`] (event rewriting,
//! ammonia, the audit) exactly once, and only the open last block is left for
//! the end, so neither a frame nor the final render touches text that was
//! already shown as Markdown.
//!
//! Why a split render equals the whole render: CommonMark parses blocks line
//! by line, and at the top level only the last block is open. A top-level
//! block followed by the start of another one is closed, and no later line
//! can change it (setext underlines, table delimiter rows, lazy continuation
//! lines and loose list items all act on the open last block). Only complete
//! lines are looked at, so a half-received line cannot decide anything. The
//! one thing a later line can change in a closed block is its inline
//! content: a link reference definition (`[x]: url`) anywhere turns an
//! earlier `[x]` into a link, and one in a closed block applies to later
//! blocks. A definition always contains `]:`, so once that pair of
//! characters is seen nothing more is committed and the end renders the
//! whole text once ([`Finished::Whole`]), exactly as a whole render would
//! (footnotes, the other cross-block feature, are not enabled).
//!
//! Plain Rust, tested natively (`incremental/tests.rs` compares every split
//! of a corpus, hostile inputs included, with the whole render). The
//! renderer is a parameter only so those tests can count what is rendered.

use super::markdown::{MarkdownError, options, render};
use pulldown_cmark::{Event, Parser};
use std::collections::VecDeque;

/// Source bytes one commit renders at most (a single longer block is still
/// rendered whole): a 100 KB answer that arrives in one batch is shown over
/// several frames, each a short task, instead of in one long one. The
/// view's clock usually stops a commit first; this bounds what one frame
/// inserts. It can be this large because the browser lays out only the
/// block groups near the view (`chat::block_groups`): fewer, larger frames
/// cost less than many small ones, each of which lays out and paints.
pub(crate) const COMMIT_BUDGET_BYTES: usize = 32 * 1024;

/// Source bytes one render call takes at most within a commit (a single
/// longer block is still rendered whole): the unit in which a commit
/// checks the time left in its frame, and the finest split of block groups
/// (a group begins with a slice).
pub(crate) const SLICE_BYTES: usize = 1024;

/// Source bytes one scan for block starts reads past what it read before
/// (to the next line end): a long answer that arrives at once is split
/// into blocks over the frames that render it, not parsed whole in the
/// first one.
pub(crate) const SCAN_BYTES: usize = 16 * 1024;

/// How a source text becomes sanitised, audited HTML: [`render`] in the
/// panel, a counting wrapper of it in tests.
pub(crate) type RenderFn = fn(&str) -> Result<String, MarkdownError>;

/// What one render call made: the sanitised, audited HTML of some
/// consecutive top-level blocks, and the bytes of source they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RenderedSlice {
    pub(crate) html: String,
    pub(crate) source_len: usize,
}

/// Blocks that closed since the last commit, rendered once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    /// Their slices in order, to append after earlier commits (the view
    /// groups them by slice: `chat::block_groups`).
    pub(crate) slices: Vec<RenderedSlice>,
    /// Closed blocks remain past the budget: commit again next frame.
    pub(crate) more: bool,
}

#[cfg(test)]
impl Commit {
    /// The commit's HTML as one string.
    pub(crate) fn html(&self) -> String {
        self.slices.iter().map(|slice| slice.html.as_str()).collect()
    }
}

/// What the end of the text needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finished {
    /// Append this slice (the blocks still open; empty when nothing is
    /// left) after the commits.
    Tail(RenderedSlice),
    /// Replace every commit with the render of this whole text: a reference
    /// definition may change earlier blocks, or a render was refused (the
    /// whole text is then refused too and shown as plain text).
    Whole(String),
}

/// The Markdown of one text segment as it streams.
#[derive(Debug)]
pub(crate) struct IncrementalMarkdown<R = RenderFn> {
    source: String,
    /// Bytes of `source` already rendered and handed out.
    committed: usize,
    /// Line starts of top-level blocks after `committed` (ascending): the
    /// text before each is closed. The last one begins the open block,
    /// where the next scan starts.
    starts: VecDeque<usize>,
    /// End of the text the last scan read: a scan needs a new line.
    scanned_lines: usize,
    /// Complete lines after `scanned_lines` wait for the next scan.
    scan_pending: bool,
    /// Bytes of `source` already searched for `]:`.
    scanned_pairs: usize,
    /// The text is complete: its last line counts as a whole line.
    ended: bool,
    /// Set once a split render could differ from the whole one.
    whole: bool,
    render: R,
}

impl IncrementalMarkdown<RenderFn> {
    /// The panel's renderer: [`render`], the one Markdown boundary.
    pub(crate) fn new() -> Self {
        IncrementalMarkdown::with_renderer(render)
    }
}

impl<R: FnMut(&str) -> Result<String, MarkdownError>> IncrementalMarkdown<R> {
    /// A renderer with `render` in place of [`render`] (tests count with it).
    pub(crate) fn with_renderer(render: R) -> Self {
        IncrementalMarkdown {
            source: String::new(),
            committed: 0,
            starts: VecDeque::new(),
            scanned_lines: 0,
            scan_pending: false,
            scanned_pairs: 0,
            ended: false,
            whole: false,
            render,
        }
    }

    /// Appends streamed text (nothing is parsed here: once per frame,
    /// [`commit`](Self::commit) does that). Ignored once ended.
    pub(crate) fn push(&mut self, text: &str) {
        if self.ended {
            return;
        }
        self.source.push_str(text);
        if !self.whole && has_definition_marker(self.source.as_bytes(), self.scanned_pairs) {
            self.whole = true;
        }
        // The last byte may be a `]` whose `:` is still to come.
        self.scanned_pairs = self.source.len().saturating_sub(1);
    }

    /// The text is complete and is `full` (the segment as the record kept
    /// it; the text received so far is its start). Commits may follow, then
    /// [`finish`](Self::finish).
    pub(crate) fn end(&mut self, full: &str) {
        match full.strip_prefix(self.source.as_str()) {
            Some(rest) => {
                let rest = rest.to_owned();
                self.push(&rest);
            }
            None => {
                self.source = full.to_owned();
                self.whole = true;
            }
        }
        self.ended = true;
    }

    /// Renders closed blocks not yet rendered, up to the budget, if any,
    /// with no clock (the tests' shorthand of [`commit_until`](Self::commit_until)).
    #[cfg(test)]
    pub(crate) fn commit(&mut self) -> Option<Commit> {
        self.commit_until(|| true)
    }

    /// Renders closed blocks not yet rendered in slices of at most
    /// [`SLICE_BYTES`] (a longer block is one slice), within
    /// [`COMMIT_BUDGET_BYTES`], while `more_time()` allows another slice.
    /// The first slice is always rendered, so a commit always progresses:
    /// the panel's clock decides how much fits in a frame, so code that is
    /// still cold (the first answer after the panel opens) renders less per
    /// frame instead of blocking it.
    pub(crate) fn commit_until(&mut self, mut more_time: impl FnMut() -> bool) -> Option<Commit> {
        if self.whole {
            return None;
        }
        self.scan();
        let budget_end = self.committed + COMMIT_BUDGET_BYTES;
        let mut slices = Vec::new();
        while let Some(&first) = self.starts.front() {
            if !slices.is_empty() && (first > budget_end || !more_time()) {
                break;
            }
            let limit = (self.committed + SLICE_BYTES).min(budget_end);
            let mut cut = first;
            while let Some(&next) = self.starts.front().filter(|&&next| next <= limit || next == first) {
                cut = next;
                self.starts.pop_front();
            }
            match (self.render)(&self.source[self.committed..cut]) {
                Ok(html) => {
                    slices.push(RenderedSlice {
                        html,
                        source_len: cut - self.committed,
                    });
                    self.committed = cut;
                }
                Err(_) => {
                    // The end renders the whole text; what this commit
                    // already rendered is shown until then.
                    self.whole = true;
                    break;
                }
            }
        }
        (!slices.is_empty()).then_some(Commit {
            slices,
            more: !self.whole && (!self.starts.is_empty() || self.scan_pending),
        })
    }

    /// The view could not show a commit: only a whole render is right now.
    pub(crate) fn abandon(&mut self) {
        self.whole = true;
    }

    /// The text to show as inert text after the commits: everything not
    /// committed while only the open block is left, or nothing while closed
    /// blocks still wait for a commit (text that arrived faster than one
    /// frame renders). Those blocks render in the next frames; shown as text
    /// now, they would be laid out as text only to be replaced, and the text
    /// after them cannot be shown before them. Once a split render could
    /// differ from the whole one no commit follows, and everything not
    /// committed shows as text until the end.
    pub(crate) fn shown(&self) -> &str {
        let rest = &self.source[self.committed..];
        if self.whole {
            return rest;
        }
        let backlog = self.starts.back().map_or(0, |&start| start - self.committed);
        if self.scan_pending || backlog > 0 {
            return "";
        }
        rest
    }

    /// Bytes of [`text`](Self::text) already committed.
    pub(crate) fn committed_len(&self) -> usize {
        self.committed
    }

    /// The whole text received.
    pub(crate) fn text(&self) -> &str {
        &self.source
    }

    /// Renders what no commit took (the last block, unless commits were
    /// left for it), or hands back the whole text to render.
    pub(crate) fn finish(&mut self) -> Finished {
        if self.whole {
            return Finished::Whole(self.source.clone());
        }
        let tail = &self.source[self.committed..];
        if tail.is_empty() {
            return Finished::Tail(RenderedSlice {
                html: String::new(),
                source_len: 0,
            });
        }
        match (self.render)(tail) {
            Ok(html) => Finished::Tail(RenderedSlice {
                html,
                source_len: tail.len(),
            }),
            Err(_) => Finished::Whole(self.source.clone()),
        }
    }

    /// Finds the block starts in the lines received since the last scan,
    /// reading from the open block on (the blocks before it are closed), at
    /// most [`SCAN_BYTES`] further than before, and further only while no
    /// closed block is found.
    fn scan(&mut self) {
        let complete = if self.ended {
            self.source.len()
        } else {
            self.source.rfind('\n').map_or(0, |newline| newline + 1)
        };
        while complete > self.scanned_lines.max(self.committed) {
            let from = self.starts.back().copied().unwrap_or(self.committed);
            let floor = self.scanned_lines.max(from);
            let end = line_end_near(self.source.as_bytes(), floor, floor + SCAN_BYTES, complete);
            // A prefix of whole lines is what a stream that had sent only
            // those lines would be scanned at: the same blocks are closed.
            self.scanned_lines = end;
            self.scan_pending = end < complete;
            let found = block_starts(&self.source[from..end]);
            self.starts.extend(found.into_iter().map(|start| from + start));
            if !self.starts.is_empty() {
                break;
            }
        }
    }
}

/// Where a scan of the lines after `floor` stops: `complete` when it is
/// within `reach`, else after the last line end in `floor..reach`, or the
/// first one after it when that range has none (so a scan always moves).
fn line_end_near(bytes: &[u8], floor: usize, reach: usize, complete: usize) -> usize {
    if complete <= reach {
        return complete;
    }
    let before = bytes[floor..reach].iter().rposition(|&b| b == b'\n');
    match before {
        Some(newline) => floor + newline + 1,
        None => bytes[reach..complete]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(complete, |newline| reach + newline + 1),
    }
}

/// Whether `]:` (part of every link reference definition) occurs in
/// `bytes` at or after `from`.
fn has_definition_marker(bytes: &[u8], from: usize) -> bool {
    bytes
        .get(from..)
        .is_some_and(|rest| rest.windows(2).any(|pair| pair == b"]:"))
}

/// Line starts of the top-level blocks of `open` (whole lines beginning
/// with a top-level block) after its first block, where a render may be
/// split. A start that cannot be split at safely is left out.
fn block_starts(open: &str) -> Vec<usize> {
    let mut depth = 0usize;
    let mut starts = Vec::new();
    for (event, range) in Parser::new_ext(open, options()).into_offset_iter() {
        let top_level = depth == 0;
        match event {
            Event::Start(_) => depth += 1,
            Event::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        if top_level && range.start > 0 && splits_at(open, range.start).is_some() {
            starts.extend(splits_at(open, range.start));
        }
    }
    starts.dedup();
    starts
}

/// The line start of a top-level block beginning at `start`, if the text
/// may be split there: a top-level block begins its line after at most some
/// indentation; the next part must begin a line as it does here, never with
/// a byte order mark (which a parse drops at the start of its input only).
fn splits_at(open: &str, start: usize) -> Option<usize> {
    let line_start = open[..start].rfind(['\n', '\r']).map_or(0, |end| end + 1);
    let indent_only = open[line_start..start].bytes().all(|b| b == b' ' || b == b'\t');
    (line_start > 0 && indent_only && !open[line_start..].starts_with('\u{feff}')).then_some(line_start)
}

#[cfg(test)]
mod tests;
