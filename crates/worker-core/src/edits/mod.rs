//! Editor edits: turning a write tool's arguments into exact, bounded changes
//! against one editor snapshot, and the unified diff the user reviews before
//! anything reaches the page. Everything here is pure: the page is touched
//! only by the commit path, which receives what these modules computed.

pub mod diff;
mod error;
pub mod resolve;

pub use error::{EditError, EditErrorCode};
