//! Path data of the panel's line icons (24×24, stroked), drawn for this
//! panel from plain geometric strokes.

pub(crate) const CHAT: &[&str] = &["M4 5h16v11H9l-5 4z"];
pub(crate) const CHEVRON_DOWN: &[&str] = &["M6 9l6 6 6-6"];
pub(crate) const CHEVRON_RIGHT: &[&str] = &["M9 6l6 6-6 6"];
pub(crate) const MODEL: &[&str] = &[
    "M7 7h10v10H7z",
    "M10 3v4M14 3v4M10 17v4M14 17v4M3 10h4M3 14h4M17 10h4M17 14h4",
];
pub(crate) const SLIDERS: &[&str] = &["M4 7h9M17 7h3M15 5v4", "M4 17h3M11 17h9M9 15v4", "M4 12h13M19 12h1"];
pub(crate) const CLOSE: &[&str] = &["M6 6l12 12M18 6L6 18"];
pub(crate) const COPY: &[&str] = &["M9 9h11v11H9z", "M5 15H4V4h11v1"];
pub(crate) const CHECK: &[&str] = &["M5 12l4 4L19 6"];
pub(crate) const INFO: &[&str] = &["M12 3a9 9 0 1 0 0.01 0", "M12 11v6", "M12 7.5v.5"];
pub(crate) const WARNING: &[&str] = &["M12 4L2 20h20z", "M12 10v4", "M12 17v.5"];
pub(crate) const PLUS: &[&str] = &["M12 5v14M5 12h14"];
pub(crate) const SEND: &[&str] = &["M5 12h14", "M13 6l6 6-6 6"];
pub(crate) const STOP: &[&str] = &["M7 7h10v10H7z"];
pub(crate) const TRASH: &[&str] = &["M4 7h16", "M9 7V4h6v3", "M6 7l1 13h10l1-13", "M10 11v5M14 11v5"];
pub(crate) const PENCIL: &[&str] = &["M4 20h4L19 9l-4-4L4 16z", "M13 7l4 4"];
pub(crate) const EXTERNAL: &[&str] = &["M7 17L17 7", "M8 7h9v9"];
pub(crate) const FIX: &[&str] = &["M12 4L2 20h20z", "M12 10v4", "M12 17v.5"];
pub(crate) const IMPROVE: &[&str] = &["M4 13l5 5L20 6"];
pub(crate) const EXPLAIN: &[&str] = &["M5 4h10a4 4 0 0 1 4 4v12H9a4 4 0 0 1-4-4z", "M9 9h6M9 13h4"];
