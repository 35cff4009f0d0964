//! Document recovery: reverting agent responses (`EDIT_CHECKPOINT_REVERT`)
//! and listing, previewing, restoring and deleting document snapshots
//! (`DOCUMENT_SNAPSHOT_*`).
//!
//! Every operation that writes to the editor replaces the whole document in
//! one guarded `PAGE_APPLY_EDIT`: the page applies it only if the live text,
//! editor instance and focused file are exactly what the worker verified a
//! moment before, so a recovery can never overwrite work it did not see. On
//! one tab at most one recovery runs at a time, never while an agent run owns
//! the tab, and no agent run starts while a recovery runs
//! (`recovery_tabs`).

mod live;
mod revert;
mod routes;
mod snapshot_ops;

#[cfg(test)]
mod tests;

pub(crate) use live::project_of_url;
pub(crate) use routes::route;
