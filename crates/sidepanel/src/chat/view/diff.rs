//! The unified diff of an editor write, text-only: every line of a diff is a
//! text node, so a proposed edit that contains markup shows as that
//! markup's characters. Shown in an approval banner and in the snapshot
//! restore dialog; the words come from [`crate::edit_review`]. Invisible and
//! bidi characters are drawn as bordered marks with an accessible name
//! ([`edit_review::code_pieces`]), never as themselves.

use crate::dom::el;
use crate::edit_review::{self, CodePiece};
use protocol::diff_preview::DiffPreview;
use web_sys::Element;

/// A span of `class` holding `text` as text nodes and marks.
fn code_span(class: &str, text: &str) -> Element {
    let mut span = el("span").class(class);
    for piece in edit_review::code_pieces(text) {
        span = match piece {
            CodePiece::Text(text) => span.append_text(&text),
            CodePiece::Mark { text, label, class } => span.child(
                el("span")
                    .class(class)
                    .attr("role", "img")
                    .attr("aria-label", &label)
                    .text(&text),
            ),
        };
    }
    span.build()
}

/// The whole diff, however large: a header with the file and `+A −D`, then
/// every hunk header and row with old/new line numbers and a marker.
pub(crate) fn diff_element(preview: &DiffPreview) -> Element {
    let (additions, deletions) = edit_review::diff_stats(preview);
    let body = el("div").class("edit-diff-body").attr("tabindex", "0").build();
    for hunk in &preview.hunks {
        let _ = body.append_child(
            &el("div")
                .class("edit-diff-hunk-header")
                .text(&edit_review::hunk_header(hunk))
                .build(),
        );
        for row in &hunk.rows {
            let line = el("div")
                .class(&format!("edit-diff-row edit-diff-{}", edit_review::row_kind(row.kind)))
                .child(
                    el("span")
                        .class("edit-diff-line-number")
                        .text(&edit_review::line_number(row.old_line)),
                )
                .child(
                    el("span")
                        .class("edit-diff-line-number")
                        .text(&edit_review::line_number(row.new_line)),
                )
                .child(
                    el("span")
                        .class("edit-diff-marker")
                        .text(edit_review::row_marker(row.kind)),
                )
                .build();
            let _ = line.append_child(&code_span("edit-diff-code", &row.text));
            let _ = body.append_child(&line);
        }
    }
    el("section")
        .class("edit-diff")
        .attr("aria-label", &edit_review::diff_title(preview))
        .child(
            el("div")
                .class("edit-diff-header")
                .child({
                    let file = code_span("edit-diff-file", &preview.file_label);
                    let _ = file.set_attribute("title", &edit_review::spoken_text(&preview.file_label));
                    file
                })
                .child(
                    el("span")
                        .class("edit-diff-stats")
                        .child(el("span").class("edit-diff-additions").text(&additions))
                        .child(el("span").class("edit-diff-deletions").text(&deletions)),
                ),
        )
        .child(body)
        .build()
}
