//! What the panel shows around an editor write under review: the approval
//! banner of a tool call (an editor review with its diff, or an external
//! call), the diff rows, and the Edits control that says whether writes
//! wait for a review. The tool block's status pill words, approvals
//! included, are in `chat::labels`.
//!
//! Plain decisions only, tested natively: the chat's DOM draws exactly what
//! these functions return. Every input came from a worker or a model, so
//! nothing here assumes a shape it did not check.

use protocol::constants::EditorApprovalMode;
use protocol::diff_preview::{DiffHunk, DiffPreview, DiffRowKind};
use protocol::invisible_chars::{InvisibleKind, ReviewPiece, mark_label, mark_text, review_pieces};
use protocol::js::truncate_utf16;
use protocol::payloads::{ApprovalAction, ApprovalRequired};

/// Characters of a preview notice a banner or dialog shows.
pub(crate) const PREVIEW_NOTICE_CHARS: usize = 500;
/// Characters of the argument summary the banner shows.
pub(crate) const ARGUMENT_CHARS_SHOWN: usize = 2_000;

// ------------------------------------------------------------------ approvals

/// One button of an approval banner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ApprovalChoice {
    pub(crate) label: &'static str,
    pub(crate) action: ApprovalAction,
    /// Primary choices look like Retry; refusals like Skip.
    pub(crate) primary: bool,
}

/// The banner an `AI_TOOL_APPROVAL_REQUIRED` event shows in its tool block.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApprovalPrompt {
    /// An editor write with a diff: Apply changes / Reject and the diff.
    pub(crate) editor_review: bool,
    pub(crate) message: String,
    pub(crate) destination: String,
    /// Shown only for editor reviews, when the worker sent one.
    pub(crate) notice: Option<String>,
    pub(crate) arguments_summary: String,
    pub(crate) arguments: String,
    pub(crate) choices: Vec<ApprovalChoice>,
    pub(crate) preview: Option<DiffPreview>,
}

/// `1234567` → `1,234,567` (the English grouping the panel uses).
pub(crate) fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

impl ApprovalPrompt {
    pub(crate) fn from_event(event: &ApprovalRequired) -> ApprovalPrompt {
        let preview = (event.effect == "editor-write")
            .then(|| event.preview.clone())
            .flatten();
        let editor_review = preview.is_some();
        let name = if event.name.is_empty() { "Tool" } else { &event.name };
        let message = if editor_review {
            "Check the proposed change to the document before it is applied.".to_owned()
        } else if event.effect == "editor-write" {
            format!("{name} wants to change the document.")
        } else {
            format!("{name} wants to make an external call.")
        };
        let destination = if event.destination.is_empty() {
            "unknown"
        } else {
            &event.destination
        };
        let notice = event
            .preview_notice
            .as_deref()
            .map(|n| truncate_utf16(n, PREVIEW_NOTICE_CHARS).to_owned())
            .filter(|n| editor_review && !n.is_empty());
        let arguments_summary = if event.arguments_truncated {
            format!(
                "Tool arguments (first {} of {} characters)",
                group_thousands(ARGUMENT_CHARS_SHOWN as u64),
                group_thousands(event.argument_chars)
            )
        } else {
            format!("Tool arguments ({} characters)", group_thousands(event.argument_chars))
        };
        let choices = if editor_review {
            vec![
                ApprovalChoice {
                    label: "Apply changes",
                    action: ApprovalAction::ApproveOnce,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Reject",
                    action: ApprovalAction::Deny,
                    primary: false,
                },
            ]
        } else {
            vec![
                ApprovalChoice {
                    label: "Approve once",
                    action: ApprovalAction::ApproveOnce,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Allow for run",
                    action: ApprovalAction::AllowRun,
                    primary: true,
                },
                ApprovalChoice {
                    label: "Deny",
                    action: ApprovalAction::Deny,
                    primary: false,
                },
            ]
        };
        ApprovalPrompt {
            editor_review,
            message,
            destination: format!("Destination: {destination}"),
            notice,
            arguments_summary,
            arguments: truncate_utf16(&event.arguments, ARGUMENT_CHARS_SHOWN).to_owned(),
            choices,
            preview,
        }
    }
}

/// The banner message after a failed submission (the buttons come back).
pub(crate) fn approval_submit_error(message: &str) -> String {
    format!("The choice was not delivered: {message}")
}

/// The banner message when the call had stopped waiting (timed out, or the
/// run ended) before the choice arrived.
pub(crate) const APPROVAL_EXPIRED: &str = "This call is no longer waiting for an answer.";

// ------------------------------------------------------------------ diff

/// `+A` and `−D` (U+2212) for the diff header.
pub(crate) fn diff_stats(preview: &DiffPreview) -> (String, String) {
    (
        format!("+{}", preview.additions),
        format!("\u{2212}{}", preview.deletions),
    )
}

/// `@@ -oldStart,oldLines +newStart,newLines @@`.
pub(crate) fn hunk_header(hunk: &DiffHunk) -> String {
    format!(
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
    )
}

/// The marker column of a row.
pub(crate) const fn row_marker(kind: DiffRowKind) -> &'static str {
    match kind {
        DiffRowKind::Insert => "+",
        DiffRowKind::Delete => "\u{2212}",
        DiffRowKind::Context => " ",
    }
}

/// The CSS class suffix of a row (`edit-diff-<kind>`).
pub(crate) const fn row_kind(kind: DiffRowKind) -> &'static str {
    match kind {
        DiffRowKind::Insert => "insert",
        DiffRowKind::Delete => "delete",
        DiffRowKind::Context => "context",
    }
}

/// A line number cell: empty where the row has none.
pub(crate) fn line_number(value: Option<u64>) -> String {
    value.map(|n| n.to_string()).unwrap_or_default()
}

/// The accessible name of a diff section; invisible and bidi characters of
/// the file label are spoken as their code points.
pub(crate) fn diff_title(preview: &DiffPreview) -> String {
    format!("Proposed changes to {}", spoken_text(&preview.file_label))
}

/// A run of a diff line (or file label) as the review draws it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CodePiece {
    /// A text node.
    Text(String),
    /// A bordered mark for one invisible or bidi character: `text` is its
    /// code point (`U+202E`), `label` its accessible name, `class` its CSS
    /// class. The character itself is never drawn, so it can neither hide
    /// text nor reorder what the reviewer reads.
    Mark {
        text: String,
        label: String,
        class: &'static str,
    },
}

/// `text` as the diff review draws it (`protocol::invisible_chars`).
pub(crate) fn code_pieces(text: &str) -> Vec<CodePiece> {
    review_pieces(text)
        .into_iter()
        .map(|piece| match piece {
            ReviewPiece::Text(text) => CodePiece::Text(text.to_owned()),
            ReviewPiece::Mark { character, kind } => CodePiece::Mark {
                text: mark_text(character),
                label: mark_label(character, kind),
                class: match kind {
                    InvisibleKind::Invisible => "edit-diff-mark edit-diff-mark-invisible",
                    InvisibleKind::Bidi => "edit-diff-mark edit-diff-mark-bidi",
                },
            },
        })
        .collect()
}

/// `text` with each invisible or bidi character replaced by its code point,
/// for attributes (accessible names, tooltips), which hold plain text.
pub(crate) fn spoken_text(text: &str) -> String {
    review_pieces(text)
        .into_iter()
        .map(|piece| match piece {
            ReviewPiece::Text(text) => text.to_owned(),
            ReviewPiece::Mark { character, .. } => format!(" {} ", mark_text(character)),
        })
        .collect()
}

// ------------------------------------------------------------------ Edits control

/// What the Edits button says in each mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PermissionLabels {
    pub(crate) short: &'static str,
    /// The button's accessible name: it starts with the visible words
    /// ("Edits", then `short`), so speech users can say what they see.
    pub(crate) aria_label: &'static str,
    pub(crate) title: &'static str,
}

pub(crate) const fn permission_labels(mode: EditorApprovalMode) -> PermissionLabels {
    match mode {
        EditorApprovalMode::Auto => PermissionLabels {
            short: "Auto",
            aria_label: "Edits: Auto (document edits are applied without review)",
            title: "The agent's document edits are applied without asking",
        },
        EditorApprovalMode::Ask => PermissionLabels {
            short: "Ask",
            aria_label: "Edits: Ask (document edits wait for your review)",
            title: "You review each document edit before it is applied",
        },
    }
}

/// The toast after the mode was saved.
pub(crate) const fn permission_saved_status(mode: EditorApprovalMode) -> &'static str {
    match mode {
        EditorApprovalMode::Auto => "Document edits will be applied without asking",
        EditorApprovalMode::Ask => "Document edits will wait for your review",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn preview() -> Value {
        json!({"kind": "unified-diff", "fileLabel": "main.typ", "additions": 1, "deletions": 1,
               "hunks": [{"oldStart": 1, "oldLines": 2, "newStart": 1, "newLines": 2, "rows": [
                   {"kind": "context", "oldLine": 1, "newLine": 1, "text": "= Title"},
                   {"kind": "delete", "oldLine": 2, "newLine": null, "text": "old"},
                   {"kind": "insert", "oldLine": null, "newLine": 2, "text": "new"}]}]})
    }

    fn approval(effect: &str, with_preview: bool, truncated: bool) -> ApprovalRequired {
        let mut value = json!({"callId": "c1", "name": "replace_lines", "identity": "builtin:replace_lines",
            "effect": effect, "destination": "main.typ", "arguments": "{\n  \"a\": 1\n}",
            "argumentChars": if truncated { 12_345 } else { 14 }, "argumentsTruncated": truncated,
            "previewNotice": "Overlay unavailable"});
        if with_preview {
            value["preview"] = preview();
        }
        serde_json::from_value(value).expect("approval payload")
    }

    #[test]
    fn invisible_and_bidi_characters_are_drawn_as_named_marks_never_as_themselves() {
        let line = "let ok = \"user\u{202E} \u{2066}// admin\u{2069}\u{2066}\"\u{200B};";
        let pieces = code_pieces(line);
        let mark = |text: &str, label: &str, class: &'static str| CodePiece::Mark {
            text: text.to_owned(),
            label: label.to_owned(),
            class,
        };
        const BIDI: &str = "edit-diff-mark edit-diff-mark-bidi";
        assert_eq!(
            pieces,
            [
                CodePiece::Text("let ok = \"user".to_owned()),
                mark("U+202E", "text direction control U+202E", BIDI),
                CodePiece::Text(" ".to_owned()),
                mark("U+2066", "text direction control U+2066", BIDI),
                CodePiece::Text("// admin".to_owned()),
                mark("U+2069", "text direction control U+2069", BIDI),
                mark("U+2066", "text direction control U+2066", BIDI),
                CodePiece::Text("\"".to_owned()),
                mark(
                    "U+200B",
                    "invisible character U+200B",
                    "edit-diff-mark edit-diff-mark-invisible"
                ),
                CodePiece::Text(";".to_owned()),
            ]
        );
        // No drawn text holds one of the characters.
        for piece in &pieces {
            if let CodePiece::Text(text) = piece {
                assert!(
                    text.chars()
                        .all(|c| protocol::invisible_chars::invisible_kind(c).is_none()),
                    "{text:?}"
                );
            }
        }
        assert_eq!(code_pieces("plain"), [CodePiece::Text("plain".to_owned())]);
        let mut hidden: DiffPreview = serde_json::from_value(preview()).expect("preview");
        hidden.file_label = "main\u{202E}pyt.typ".to_owned();
        assert_eq!(diff_title(&hidden), "Proposed changes to main U+202E pyt.typ");
    }

    #[test]
    fn editor_reviews_offer_apply_and_reject_with_the_diff_and_notice() {
        let view = ApprovalPrompt::from_event(&approval("editor-write", true, false));
        assert!(view.editor_review);
        assert_eq!(view.destination, "Destination: main.typ");
        assert_eq!(view.notice.as_deref(), Some("Overlay unavailable"));
        let actions: Vec<_> = view.choices.iter().map(|c| (c.label, c.action)).collect();
        assert_eq!(
            actions,
            [
                ("Apply changes", ApprovalAction::ApproveOnce),
                ("Reject", ApprovalAction::Deny)
            ]
        );
        assert_eq!(view.preview.as_ref().map(|p| p.hunks.len()), Some(1));
        assert_eq!(view.arguments_summary, "Tool arguments (14 characters)");
    }

    #[test]
    fn external_calls_offer_three_choices_and_no_diff() {
        let view = ApprovalPrompt::from_event(&approval("external", false, true));
        assert!(!view.editor_review);
        assert!(view.notice.is_none());
        assert!(view.message.contains("replace_lines"));
        let actions: Vec<_> = view.choices.iter().map(|c| c.action).collect();
        assert_eq!(
            actions,
            [
                ApprovalAction::ApproveOnce,
                ApprovalAction::AllowRun,
                ApprovalAction::Deny
            ]
        );
        assert_eq!(
            view.arguments_summary,
            "Tool arguments (first 2,000 of 12,345 characters)"
        );
        // An editor write without a diff is not a review either.
        assert!(!ApprovalPrompt::from_event(&approval("editor-write", false, false)).editor_review);
    }

    #[test]
    fn diff_parts_use_unified_headers_and_a_true_minus() {
        let preview = DiffPreview::parse(&preview()).expect("valid preview");
        assert_eq!(diff_stats(&preview), ("+1".to_owned(), "\u{2212}1".to_owned()));
        assert_eq!(hunk_header(&preview.hunks[0]), "@@ -1,2 +1,2 @@");
        let rows: Vec<_> = preview.hunks[0]
            .rows
            .iter()
            .map(|r| (line_number(r.old_line), line_number(r.new_line), row_marker(r.kind)))
            .collect();
        assert_eq!(
            rows,
            [
                ("1".to_owned(), "1".to_owned(), " "),
                ("2".to_owned(), String::new(), "\u{2212}"),
                (String::new(), "2".to_owned(), "+")
            ]
        );
        assert_eq!(diff_title(&preview), "Proposed changes to main.typ");
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1_000), "1,000");
        assert_eq!(group_thousands(1_234_567), "1,234,567");
    }
}
