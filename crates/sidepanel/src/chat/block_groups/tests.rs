//! Tests of `chat::block_groups`: tables of pieces and where they go, and
//! the renderer's real output for the paragraph test.

use super::*;
use crate::chat::markdown::render;

/// One piece: whether it starts with a paragraph, its bytes, and where it goes.
type Piece = (bool, usize, Placement);

/// Named sequences of pieces, in order.
const CASES: &[(&str, &[Piece])] = &[
    (
        "the first piece opens a group, whatever it is",
        &[(false, 10, Placement::Open)],
    ),
    (
        "a paragraph joins while the group is short",
        &[
            (true, 100, Placement::Open),
            (true, 100, Placement::Join),
            (true, GROUP_BYTES - 201, Placement::Join),
        ],
    ),
    (
        "a paragraph opens a new group once the last one holds GROUP_BYTES",
        &[
            (true, GROUP_BYTES - 1, Placement::Open),
            (true, 1, Placement::Join),
            (true, 5, Placement::Open),
        ],
    ),
    (
        "anything else joins, however full the group is",
        &[
            (true, GROUP_BYTES + 1, Placement::Open),
            (false, 2 * GROUP_BYTES, Placement::Join),
            (false, 10, Placement::Join),
            (true, 10, Placement::Open),
        ],
    ),
    (
        "a piece larger than a group is one group",
        &[(true, 50 * GROUP_BYTES, Placement::Open), (true, 10, Placement::Open)],
    ),
];

#[test]
fn places_pieces_as_the_table_says() {
    for (name, pieces) in CASES {
        let mut groups = BlockGroups::default();
        let placed: Vec<Placement> = pieces.iter().map(|&(p, bytes, _)| groups.place(p, bytes)).collect();
        let expected: Vec<Placement> = pieces.iter().map(|&(_, _, placement)| placement).collect();
        assert_eq!(placed, expected, "{name}");
    }
}

#[test]
fn knows_a_rendered_paragraph_from_other_blocks() {
    let cases: &[(&str, bool)] = &[
        ("plain words\n", true),
        ("**bold** start\n", true),
        ("<b>raw</b> html\n", true),
        ("# heading\n", false),
        ("- item\n", false),
        ("> quote\n", false),
        ("```\ncode\n```\n", false),
        ("| a |\n|---|\n| 1 |\n", false),
        ("---\n", false),
        ("", false),
    ];
    for (markdown, expected) in cases {
        let html = render(markdown).expect("renders");
        assert_eq!(starts_with_paragraph(&html), *expected, "{markdown:?} → {html:?}");
    }
}
