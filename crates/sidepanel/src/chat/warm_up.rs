//! Markdown that the panel renders and lays out once after start-up, in
//! idle time, and throws away: the first answer after the panel opens then
//! renders with code that is already compiled and fonts whose settings the
//! browser already gave (`view/warm_up.rs` says why the layout matters).
//!
//! Why: Chrome compiles a WebAssembly function the first time it is called
//! (lazy compilation), and compiled code lives only as long as the panel's
//! module. The renderer's path (pulldown-cmark, the event rewriting,
//! ammonia over html5ever, the DOM audit) is several hundred functions;
//! compiled during the first answer, that compile ran on the main thread
//! inside its first frames (traced on the bench's 100 KB answer in a fresh
//! panel: 63 ms of lazy compilation during the stream; 12 ms with these
//! samples rendered first). These samples walk the block and inline kinds
//! an answer uses, so the compile happens while the panel is idle, one
//! sample per idle callback (`view/warm_up.rs`), each a short task.
//!
//! Plain data, tested natively: every sample renders, and together they
//! produce every element an answer may contain.

/// One sample per idle callback; the first is the one every answer needs
/// (paragraphs and inline markup), the rest add one family of blocks each.
pub(crate) const SAMPLES: &[&str] = &[
    "Typst **markup** with *emphasis*, `code`, ~~struck~~ text and a \
     [link](https://typst.app/docs/).\nA second line  \nafter a hard break, \
     an autolink <https://typst.app>, a mail link <mailto:team@typst.app>, \
     an entity &amp; and raw <b>HTML</b> that stays text.\n\nA second \
     paragraph with ![an image](https://typst.app/assets/logo.png) and a \
     [relative link](docs/reference).\n",
    "# Title\n\n## Section\n\n### Part\n\n#### Detail\n\n##### Note\n\n\
     ###### Aside\n\nSetext heading\n---\n\n- one\n- two\n  - nested\n\n\
     1. first\n2. second\n\n> a quoted **line**\n> > and a nested one\n\n***\n",
    "```typst\n#set page(width: 10cm)\n= Heading\n#let x = 1 < 2\n```\n\n\
     ~~~\nplain fence\n~~~\n\n    indented code\n",
    "| Name | Value |\n|:-----|------:|\n| `width` | **10cm** |\n| *gap* | [x](https://typst.app) |\n\nA closing paragraph.\n",
];

#[cfg(test)]
mod tests;
