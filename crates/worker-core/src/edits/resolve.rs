//! Resolving a write tool call against one editor snapshot into absolute changes.
