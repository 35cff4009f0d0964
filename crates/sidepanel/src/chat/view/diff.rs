//! The unified diff of an editor write, text-only: every line of a diff is a
//! text node, so a proposed edit that contains markup shows as that
//! markup's characters. Shown in an approval banner and in the snapshot
//! restore dialog; the words come from [`crate::edit_review`].

use crate::dom::el;
use crate::edit_review;
use protocol::diff_preview::DiffPreview;
use web_sys::Element;

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
                .child(el("span").class("edit-diff-code").text(&row.text))
                .build();
            let _ = body.append_child(&line);
        }
    }
    el("section")
        .class("edit-diff")
        .attr("aria-label", &edit_review::diff_title(preview))
        .child(
            el("div")
                .class("edit-diff-header")
                .child(
                    el("span")
                        .class("edit-diff-file")
                        .attr("title", &preview.file_label)
                        .text(&preview.file_label),
                )
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
