//! Editor edits: turning a write tool's arguments into exact, bounded changes
//! against one editor snapshot ([`resolve`]), the unified diff the user
//! reviews before anything reaches the page ([`diff`]), and the run's commit
//! path that sends them ([`apply`]). Everything but `apply` is pure: the page
//! is touched only by the commit, which receives what the other modules
//! computed.

mod apply;
mod diff;
mod error;
mod resolve;

pub(crate) use apply::run_editor_write;
pub(crate) use diff::{WholeDocumentEdit, whole_document_change, whole_document_edit};
