//! Editor edits: turning a write tool's arguments into exact, bounded changes
//! against one editor snapshot, and the unified diff the user reviews before
//! anything reaches the page. Everything but [`apply`] is pure: the page is
//! touched only by the commit path in [`apply`], which receives what the
//! other modules computed.

pub mod apply;
pub mod diff;
mod error;
pub mod resolve;

pub use error::{EditError, EditErrorCode};
