//! Unified line diffs for edit previews, built with `similar`.
