//! Characters a reviewer cannot see: zero-width and other invisible format
//! characters, and the bidirectional controls that reorder what is shown.
//!
//! A proposed edit is reviewed by reading its diff. A zero-width space, a
//! soft hyphen or a Unicode tag character changes the text without changing
//! what the diff looks like, and a right-to-left override makes the text
//! read differently from what it is ("Trojan Source"). The panel's diff
//! review and the page overlay therefore never pass these characters to the
//! text renderer: each one is drawn as a visible, labelled mark (`U+202E`).
//! This module is the one list of them; `cargo xtask codegen` writes it into
//! `protocol-constants.js` (`INVISIBLE_CHARS`) for the page overlay.

/// Why a character is shown as a mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvisibleKind {
    /// It draws nothing (zero-width spaces and joiners, soft hyphen, word
    /// joiner, invisible operators, byte-order mark, fillers, tag
    /// characters).
    Invisible,
    /// It changes the order in which the text around it is drawn (embedding,
    /// override and isolate controls, directional marks).
    Bidi,
}

impl InvisibleKind {
    /// Every kind.
    pub const ALL: [InvisibleKind; 2] = [InvisibleKind::Invisible, InvisibleKind::Bidi];

    /// The kind's name in the generated JavaScript and the marks' classes.
    pub const fn as_str(self) -> &'static str {
        match self {
            InvisibleKind::Invisible => "invisible",
            InvisibleKind::Bidi => "bidi",
        }
    }

    /// The words a screen reader hears before the code point.
    pub const fn spoken(self) -> &'static str {
        match self {
            InvisibleKind::Invisible => "invisible character",
            InvisibleKind::Bidi => "text direction control",
        }
    }
}

/// Inclusive code point ranges, in ascending order, with their kind.
pub const INVISIBLE_RANGES: &[(u32, u32, InvisibleKind)] = &[
    (0x00AD, 0x00AD, InvisibleKind::Invisible),   // soft hyphen
    (0x034F, 0x034F, InvisibleKind::Invisible),   // combining grapheme joiner
    (0x061C, 0x061C, InvisibleKind::Bidi),        // Arabic letter mark
    (0x115F, 0x1160, InvisibleKind::Invisible),   // Hangul fillers
    (0x17B4, 0x17B5, InvisibleKind::Invisible),   // Khmer inherent vowels
    (0x180E, 0x180E, InvisibleKind::Invisible),   // Mongolian vowel separator
    (0x200B, 0x200D, InvisibleKind::Invisible),   // zero-width space, non-joiner, joiner
    (0x200E, 0x200F, InvisibleKind::Bidi),        // left-to-right and right-to-left marks
    (0x202A, 0x202E, InvisibleKind::Bidi),        // embeddings, pop, overrides
    (0x2060, 0x2064, InvisibleKind::Invisible),   // word joiner, invisible operators
    (0x2066, 0x2069, InvisibleKind::Bidi),        // isolates and pop
    (0x206A, 0x206F, InvisibleKind::Invisible),   // deprecated format characters
    (0x3164, 0x3164, InvisibleKind::Invisible),   // Hangul filler
    (0xFEFF, 0xFEFF, InvisibleKind::Invisible),   // zero-width no-break space (BOM)
    (0xFFA0, 0xFFA0, InvisibleKind::Invisible),   // halfwidth Hangul filler
    (0xFFF9, 0xFFFB, InvisibleKind::Invisible),   // interlinear annotation
    (0xE0001, 0xE0001, InvisibleKind::Invisible), // language tag
    (0xE0020, 0xE007F, InvisibleKind::Invisible), // tag characters
];

/// Whether `c` is shown as a mark, and why.
pub fn invisible_kind(c: char) -> Option<InvisibleKind> {
    let code = u32::from(c);
    INVISIBLE_RANGES
        .iter()
        .find(|(low, high, _)| (*low..=*high).contains(&code))
        .map(|(_, _, kind)| *kind)
}

/// The mark's visible text: `U+` and at least four upper-case hex digits.
pub fn mark_text(c: char) -> String {
    format!("U+{:04X}", u32::from(c))
}

/// The mark's accessible name, e.g. "text direction control U+202E".
pub fn mark_label(c: char, kind: InvisibleKind) -> String {
    format!("{} {}", kind.spoken(), mark_text(c))
}

/// A run of a text as it is drawn for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewPiece<'a> {
    /// Characters drawn as they are.
    Text(&'a str),
    /// One character drawn as a mark.
    Mark {
        /// The character itself.
        character: char,
        /// Why it is a mark.
        kind: InvisibleKind,
    },
}

/// `text` cut into runs of ordinary characters and one mark per character
/// of [`INVISIBLE_RANGES`]; joining the pieces gives `text` back.
pub fn review_pieces(text: &str) -> Vec<ReviewPiece<'_>> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (index, character) in text.char_indices() {
        if let Some(kind) = invisible_kind(character) {
            if start < index {
                pieces.push(ReviewPiece::Text(&text[start..index]));
            }
            pieces.push(ReviewPiece::Mark { character, kind });
            start = index + character.len_utf8();
        }
    }
    if start < text.len() {
        pieces.push(ReviewPiece::Text(&text[start..]));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranges_are_ordered_and_disjoint() {
        for pair in INVISIBLE_RANGES.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
    }

    #[test]
    fn zero_width_and_bidi_characters_are_marks_and_others_are_not() {
        for c in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{2060}',
            '\u{2064}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{E0041}',
        ] {
            assert_eq!(invisible_kind(c), Some(InvisibleKind::Invisible), "{}", mark_text(c));
        }
        for c in [
            '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}', '\u{061C}', '\u{200E}', '\u{200F}',
        ] {
            assert_eq!(invisible_kind(c), Some(InvisibleKind::Bidi), "{}", mark_text(c));
        }
        for c in ['a', ' ', '\t', 'é', 'א', '\u{2065}', '\u{202F}', '😀', '\u{E0080}'] {
            assert_eq!(invisible_kind(c), None, "{}", mark_text(c));
        }
    }

    #[test]
    fn pieces_join_back_to_the_text_and_name_each_mark() {
        let text = "if x\u{202E} {\u{200B}}\u{E0041}";
        let pieces = review_pieces(text);
        assert_eq!(
            pieces,
            [
                ReviewPiece::Text("if x"),
                ReviewPiece::Mark {
                    character: '\u{202E}',
                    kind: InvisibleKind::Bidi
                },
                ReviewPiece::Text(" {"),
                ReviewPiece::Mark {
                    character: '\u{200B}',
                    kind: InvisibleKind::Invisible
                },
                ReviewPiece::Text("}"),
                ReviewPiece::Mark {
                    character: '\u{E0041}',
                    kind: InvisibleKind::Invisible
                },
            ]
        );
        let joined: String = pieces
            .iter()
            .map(|piece| match piece {
                ReviewPiece::Text(text) => (*text).to_owned(),
                ReviewPiece::Mark { character, .. } => character.to_string(),
            })
            .collect();
        assert_eq!(joined, text);
        assert_eq!(mark_text('\u{202E}'), "U+202E");
        assert_eq!(mark_text('\u{E0041}'), "U+E0041");
        assert_eq!(
            mark_label('\u{202E}', InvisibleKind::Bidi),
            "text direction control U+202E"
        );
        assert_eq!(review_pieces("plain"), [ReviewPiece::Text("plain")]);
        assert!(review_pieces("").is_empty());
    }
}
