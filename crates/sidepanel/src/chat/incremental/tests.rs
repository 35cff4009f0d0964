//! Tests of `chat::markdown::incremental`: for a corpus of Markdown (the
//! hostile inputs of the render tests included), every way of streaming it
//! ends in exactly the HTML a whole render gives, and every byte is rendered
//! once unless a reference definition forces the one whole render.

use super::*;
use std::cell::RefCell;

/// Answers covering the CommonMark cases where later text acts on earlier
/// text, and the hostile inputs of `markdown/tests.rs`.
const CORPUS: &[&str] = &[
    "# Title\n\nSome **bold**, *em*, ~~gone~~ and `code`.\n\n> quote\n\n- a\n- b\n\n1. one\n\n---\n\n```rust\nfn x() {}\n```\n",
    "para one\nstill one\n\npara two\n",
    "Setext\n---\n\nnext\n===\nafter\n",
    "text\n| a |\n|---|\n| 1 |\n\nmore\n",
    "text\n-\nmore\n- item\n",
    "| a | b |\n|:--|--:|\n| 1 | 2 |\n\nafter table\n| x |\n|---|\n",
    "- a\n- b\n\n- loose\n\n  continued\n\nout\n\n- new list\n",
    "1. one\n2. two\n\n3. three\nlazy line\n\n10) other\n",
    "> quote\nlazy continuation\n\n> second\n>\n> > nested\n\nplain\n",
    "```\nunclosed fence\n\nstill code\n",
    "~~~md\n# not a heading\n~~~\n\n    indented code\n\n    more\n\ntext\n",
    "<div>\nfirst\nsecond\n</div>\n\n<script>\nalert(1)\n\n</script>\n\nafter\n",
    "<pre>\n\nblank inside\n</pre>\ntext\n",
    "[a][x] and [b][y] and <javascript:alert(1)>\n\n[x]: https://ok.example\n[y]: javascript:alert(2)\n",
    "See [x] here.\n\nMore text.\n\n[x]: https://late.example\n",
    "[x]: https://early.example\n\nThen [x] used.\n",
    "> [q]: https://quoted.example\n\n[q]\n",
    "![alt][pic]\n\n[pic]: javascript:alert(1)\n",
    "See https://typst.app/docs/reference. Or (https://example.com/a_(b)).\n\nhttp://plain.example\n",
    "[click](javascript:alert(1))\n\n[ok](https://ok.example \"t\")\n\n![img](https://img.example/a.png)\n",
    "<img src=x onerror=alert(1)>\n\n<svg onload=alert(1)><circle r=1 /></svg>\n\nbefore <span onclick=\"x()\">mid</span> after\n",
    "<!-- hidden comment --> text\n\n<details open ontoggle=alert(1)>\n\n<base href=\"https://evil.example/\">\n",
    "[x](https://ok.example \"a\\\" onmouseover=\\\"alert(1)\")\n\n<scr<script>ipt>alert(1)</script>\n",
    "**bold\n\n[link](https://exa\n\n| a |\n|--\n\n![img](https://x\n\n<scr\n\n&#106;ava",
    "crlf line\r\nsecond\r\n\r\n- item\r\n- item\r\n\r\nend\r\n",
    "cr only\rsecond\r\rthird\r",
    "tabs\n\n\t- tabbed item\n\t\tdeeper\n\nx\n",
    "   - indented list\n     continued\n\n   para\n",
    "text\n\n\u{feff}bom mid text\n\nend\n",
    "***\n---\n___\n\n# h1\n## h2 ##\n\n  ### h3\n",
    "a\\\nb  \nc\n\n\\[not]: a def\n",
    "unicode é 日本語 🎉 **wörds**\n\nzweite Zeile\n",
    "> quote\n- list in\n\n```\ncode\n```\nafter fence\n",
    "",
    "\n\n\n",
    "no trailing newline",
];

/// What one stream of `chunks` ends as: the HTML shown, and the sources
/// rendered along the way.
fn stream(chunks: &[&str]) -> (Result<String, MarkdownError>, Vec<String>) {
    let rendered = RefCell::new(Vec::new());
    let counting = |source: &str| {
        rendered.borrow_mut().push(source.to_owned());
        render(source)
    };
    let mut markdown = IncrementalMarkdown::with_renderer(counting);
    let mut shown = String::new();
    for chunk in chunks {
        markdown.push(chunk);
        if let Some(commit) = markdown.commit() {
            shown.push_str(&commit.html());
            // Each slice is one render call, and says how much source it took.
            let calls = rendered.borrow();
            let lens: Vec<usize> = calls[calls.len() - commit.slices.len()..]
                .iter()
                .map(String::len)
                .collect();
            let said: Vec<usize> = commit.slices.iter().map(|slice| slice.source_len).collect();
            assert_eq!(said, lens, "chunks {chunks:?}");
        }
        // The inert text continues exactly where the rendered text ends.
        let committed = markdown.committed_len();
        assert!(
            markdown.text()[committed..].starts_with(markdown.shown()),
            "chunks {chunks:?}"
        );
        assert_eq!(rendered.borrow().concat().len(), committed, "chunks {chunks:?}");
    }
    let full = chunks.concat();
    markdown.end(&full);
    while let Some(commit) = markdown.commit() {
        shown.push_str(&commit.html());
    }
    let out = match markdown.finish() {
        Finished::Tail(tail) => Ok(shown + &tail.html),
        Finished::Whole(text) => {
            assert_eq!(text, full);
            render(&text)
        }
    };
    (out, rendered.into_inner())
}

fn check(chunks: &[&str]) {
    let full = chunks.concat();
    let (out, rendered) = stream(chunks);
    assert_eq!(out, render(&full), "chunks {chunks:?}");
    if !full.contains("]:") && render(&full).is_ok() {
        // Every byte went through the renderer exactly once, in order.
        assert_eq!(rendered.concat(), full, "chunks {chunks:?}");
    }
}

/// A small deterministic generator, so a failure names its chunking.
fn chunk_sizes(seed: u64, len: usize, max: usize) -> Vec<usize> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut sizes = Vec::new();
    let mut total = 0;
    while total < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let size = 1 + usize::try_from(state >> 33).expect("fits") % max;
        sizes.push(size.min(len - total));
        total += size;
    }
    sizes
}

fn split_at_sizes<'a>(text: &'a str, sizes: &[usize]) -> Vec<&'a str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    for size in sizes {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if end > start {
            chunks.push(&text[start..end]);
        }
        start = end;
        if start >= text.len() {
            break;
        }
    }
    chunks
}

#[test]
fn every_split_point_of_the_corpus_gives_the_whole_render() {
    for text in CORPUS {
        check(&[text]);
        for (at, _) in text.char_indices().skip(1) {
            check(&[&text[..at], &text[at..]]);
        }
    }
}

#[test]
fn one_character_at_a_time_gives_the_whole_render() {
    for text in CORPUS {
        let chars: Vec<&str> = text
            .char_indices()
            .map(|(at, c)| &text[at..at + c.len_utf8()])
            .collect();
        check(&chars);
    }
}

#[test]
fn the_whole_corpus_in_random_chunks_gives_the_whole_render() {
    let joined = CORPUS.join("\n\n");
    let without_definitions: String = CORPUS
        .iter()
        .filter(|text| !text.contains("]:"))
        .copied()
        .collect::<Vec<_>>()
        .join("\n\n");
    for text in [joined, without_definitions] {
        for seed in 0..40 {
            let sizes = chunk_sizes(seed, text.len(), 1 + (seed as usize % 7) * 9);
            check(&split_at_sizes(&text, &sizes));
        }
    }
}

#[test]
fn a_long_answer_renders_each_completed_block_once() {
    let unit = "Typst **markup** with `code`, a [link](https://typst.app/docs/) and plain words.\n\n";
    let answer = unit.repeat(400);
    let sizes = chunk_sizes(7, answer.len(), 60);
    let chunks = split_at_sizes(&answer, &sizes);
    let (out, rendered) = stream(&chunks);
    assert_eq!(out, render(&answer));
    assert_eq!(rendered.concat(), answer);
    // Many commits along the way, each of a few paragraphs; the final render
    // is only the open last block.
    assert!(rendered.len() > 100, "{} renders", rendered.len());
    assert!(
        rendered.iter().all(|source| source.len() <= COMMIT_BUDGET_BYTES),
        "a commit past the budget"
    );
    let last = rendered.last().expect("a final render");
    assert_eq!(last.as_str(), unit, "the final render is the last block only");
}

#[test]
fn a_definition_anywhere_ends_in_one_whole_render() {
    let text = "See [x] here.\n\nMore.\n\nAnd more.\n\n[x]: https://late.example\n";
    let chunks: Vec<&str> = text.split_inclusive('\n').collect();
    let rendered = RefCell::new(Vec::new());
    let mut markdown = IncrementalMarkdown::with_renderer(|source: &str| {
        rendered.borrow_mut().push(source.to_owned());
        render(source)
    });
    let mut commits = 0;
    for chunk in &chunks {
        markdown.push(chunk);
        commits += usize::from(markdown.commit().is_some());
    }
    assert!(commits > 0, "blocks before the definition were committed");
    markdown.end(text);
    assert_eq!(markdown.commit(), None);
    let Finished::Whole(whole) = markdown.finish() else {
        panic!("a definition must end in a whole render");
    };
    assert_eq!(whole, text);
    assert!(render(&whole).expect("renders").contains("https://late.example"));
    // The marker split across two pushes is still seen.
    let mut split = IncrementalMarkdown::new();
    split.push("a\n\nb\n\n[x]");
    split.push(": https://x.example\n\nc\n\n");
    assert_eq!(split.commit(), None);
    assert!(matches!(split.finish(), Finished::Whole(_)));
}

#[test]
fn a_refused_render_leaves_the_refusal_to_the_whole_render() {
    let mut markdown = IncrementalMarkdown::with_renderer(|_: &str| Err(MarkdownError::Malformed));
    markdown.push("one\n\ntwo\n\nthree");
    assert_eq!(markdown.commit(), None);
    assert_eq!(markdown.finish(), Finished::Whole("one\n\ntwo\n\nthree".into()));
}

#[test]
fn text_that_does_not_continue_the_source_is_rendered_whole() {
    let mut markdown = IncrementalMarkdown::new();
    markdown.push("one\n\ntwo\n\n");
    assert!(markdown.commit().is_some());
    markdown.end("other");
    assert_eq!(markdown.commit(), None);
    assert_eq!(markdown.finish(), Finished::Whole("other".into()));
    let mut abandoned = IncrementalMarkdown::new();
    abandoned.push("one\n\ntwo\n\n");
    abandoned.abandon();
    assert_eq!(abandoned.commit(), None);
    assert_eq!(abandoned.finish(), Finished::Whole("one\n\ntwo\n\n".into()));
}

#[test]
fn commits_report_the_source_they_take_from_the_tail() {
    let mut markdown = IncrementalMarkdown::new();
    markdown.push("é 🎉\n\nnext\n\nopen");
    // "next" is the last block of the complete lines: it stays open, as a
    // setext underline on the next line would still change it.
    let commit = markdown.commit().expect("one closed block");
    assert_eq!(markdown.committed_len(), "é 🎉\n\n".len());
    assert_eq!(markdown.shown(), "next\n\nopen");
    assert_eq!(commit.html(), render("é 🎉\n\n").expect("renders"));
    assert!(!commit.more);
    // Nothing new: no parse, no commit.
    assert_eq!(markdown.commit(), None);
}

#[test]
fn a_backlog_is_committed_within_the_budget_and_the_end_closes_the_last_line() {
    let paragraph = format!("{}\n\n", "word ".repeat(200));
    let answer = paragraph.repeat(40) + "last line, no newline";
    let mut markdown = IncrementalMarkdown::new();
    markdown.push(&answer);
    let mut commits = Vec::new();
    while let Some(commit) = markdown.commit() {
        let more = commit.more;
        commits.push(commit);
        if !more {
            break;
        }
    }
    assert!(
        commits.len() >= answer.len() / COMMIT_BUDGET_BYTES,
        "{} commits",
        commits.len()
    );
    // While the backlog waited, none of it was shown as text; once the next
    // commit takes all of it, the text after it shows.
    let mut again = IncrementalMarkdown::new();
    again.push(&answer);
    let _ = again.commit();
    assert_eq!(again.shown(), "");
    while again.commit().is_some_and(|commit| commit.more) {}
    assert_eq!(again.shown(), &answer[again.committed_len()..]);
    // Without the end, the last paragraph may still get a setext underline.
    assert_eq!(markdown.commit(), None);
    markdown.end(&answer);
    let last = markdown.commit().expect("the end closes the last paragraph");
    assert!(!last.more);
    assert_eq!(
        markdown.finish(),
        Finished::Tail(RenderedSlice {
            html: render("last line, no newline").expect("renders"),
            source_len: "last line, no newline".len(),
        })
    );
}

#[test]
fn a_commit_out_of_time_renders_one_slice_and_the_slices_add_up_to_the_whole_render() {
    let paragraph = format!(
        "{}\n\n",
        "Typst **markup** with `code` and a [link](https://typst.app/docs/). ".repeat(4)
    );
    let answer = paragraph.repeat(60) + "last";
    let rendered = RefCell::new(Vec::new());
    let mut markdown = IncrementalMarkdown::with_renderer(|source: &str| {
        rendered.borrow_mut().push(source.to_owned());
        render(source)
    });
    markdown.push(&answer);
    markdown.end(&answer);
    let mut shown = String::new();
    // No time left: every commit is exactly one slice, one render call.
    while let Some(commit) = markdown.commit_until(|| false) {
        shown.push_str(&commit.html());
        let last = rendered.borrow().last().cloned().unwrap_or_default();
        assert!(last.len() <= SLICE_BYTES, "a slice of {} bytes", last.len());
        assert_eq!(rendered.borrow().concat().len(), markdown.committed_len());
        if !commit.more {
            break;
        }
    }
    assert!(rendered.borrow().len() >= answer.len() / SLICE_BYTES);
    let Finished::Tail(tail) = markdown.finish() else {
        panic!("no definition, no refusal: the tail is rendered alone");
    };
    assert_eq!(shown + &tail.html, render(&answer).expect("renders"));
    // With time, one commit takes several slices, up to the budget.
    let mut timed = IncrementalMarkdown::new();
    timed.push(&answer);
    let mut slices = 0;
    let commit = timed
        .commit_until(|| {
            slices += 1;
            true
        })
        .expect("closed blocks");
    assert!(slices >= 2, "{slices} more slices were asked for");
    assert!(timed.committed_len() > SLICE_BYTES && timed.committed_len() <= COMMIT_BUDGET_BYTES);
    assert!(commit.more);
}

#[test]
fn a_refusal_after_rendered_slices_keeps_them_and_ends_in_the_whole_render() {
    let calls = RefCell::new(0);
    let mut markdown = IncrementalMarkdown::with_renderer(|source: &str| {
        *calls.borrow_mut() += 1;
        if *calls.borrow() > 1 {
            return Err(MarkdownError::Malformed);
        }
        render(source)
    });
    let paragraph = format!("{}\n\n", "word ".repeat(300));
    let answer = paragraph.repeat(6);
    markdown.push(&answer);
    let commit = markdown.commit_until(|| true).expect("the first slice rendered");
    assert_eq!(commit.html(), render(&paragraph).expect("renders"));
    assert!(!commit.more);
    assert_eq!(markdown.commit_until(|| true), None);
    assert_eq!(markdown.finish(), Finished::Whole(answer));
}

#[test]
fn a_long_answer_that_arrives_at_once_is_scanned_a_part_per_commit_and_ends_in_the_whole_render() {
    let unit = "Typst **markup** with `code`, a [link](https://typst.app/docs/) and plain words to fill the line.\n\n";
    let code = format!("```\n{}```\n\n", "let x = 1;\n".repeat(2 * SCAN_BYTES / 11));
    let answer = unit.repeat(300) + &code + &unit.repeat(300) + "last";
    let rendered = RefCell::new(Vec::new());
    let mut markdown = IncrementalMarkdown::with_renderer(|source: &str| {
        rendered.borrow_mut().push(source.to_owned());
        render(source)
    });
    markdown.push(&answer);
    let mut shown = String::new();
    let first = markdown.commit().expect("closed blocks");
    shown.push_str(&first.html());
    assert!(first.more);
    // The first scan read about SCAN_BYTES, not the whole answer: the rest
    // waits, and none of it is shown as text meanwhile.
    assert!(
        markdown.scanned_lines <= SCAN_BYTES + unit.len(),
        "{}",
        markdown.scanned_lines
    );
    assert_eq!(markdown.shown(), "");
    let mut commits = 1;
    while let Some(commit) = markdown.commit() {
        shown.push_str(&commit.html());
        commits += 1;
        if !commit.more {
            break;
        }
    }
    assert!(
        commits > (answer.len() - code.len()) / COMMIT_BUDGET_BYTES,
        "{commits} commits"
    );
    // The code block, longer than a scan, was found and committed whole.
    assert!(rendered.borrow().iter().any(|source| source.contains(&code)));
    markdown.end(&answer);
    while let Some(commit) = markdown.commit() {
        shown.push_str(&commit.html());
    }
    let Finished::Tail(tail) = markdown.finish() else {
        panic!("no definition, no refusal: the tail is rendered alone");
    };
    assert_eq!(shown + &tail.html, render(&answer).expect("renders"));
    assert_eq!(rendered.borrow().concat(), answer);
}

#[test]
fn inert_text_waits_while_closed_blocks_wait_for_a_commit() {
    let paragraph = format!("{}\n\n", "word ".repeat(300));
    let mut markdown = IncrementalMarkdown::new();
    markdown.push(&format!("{paragraph}{paragraph}{paragraph}open\n"));
    // A frame with no time left still renders one slice: one paragraph.
    let mut shown_per_frame = Vec::new();
    while let Some(commit) = markdown.commit_until(|| false) {
        shown_per_frame.push(markdown.shown().to_owned());
        if !commit.more {
            break;
        }
    }
    assert_eq!(shown_per_frame, ["", "", "open\n"]);
    // Once a reference definition makes a whole render due, no commit
    // follows: everything not committed is text until the end, closed
    // blocks included.
    let mut whole = IncrementalMarkdown::new();
    whole.push(&format!("{paragraph}{paragraph}open\n"));
    assert!(whole.commit_until(|| false).is_some_and(|commit| commit.more));
    assert_eq!(whole.shown(), "");
    whole.push("[x]: https://typst.app\n");
    assert_eq!(whole.commit_until(|| true), None);
    assert_eq!(whole.shown(), format!("{paragraph}open\n[x]: https://typst.app\n"));
}
