//! Agent runs as the worker keeps them: admission, the runs in progress, the
//! waits for the user, what one run carries while it works, the chat's
//! automatic snapshot and the answer the worker saves.
//!
//! [`Runs`] (`active`) is the run state of one worker instance, shared by
//! every message handler; `AI_RUN_RESERVE` and `AI_STREAM_START` are admitted
//! by the `coordinator`. What a run carries while it works is `state`
//! ([`RunContext`]): the tools, the editor writes and the automatic snapshot
//! all work on it. The loop that drives a run, and the run messages' routes,
//! are [`crate::agent`], one floor up, because they call the tools.

mod active;
mod auto_snapshot;
mod coordinator;
mod state;
mod waiters;

pub(crate) use active::Runs;
pub(crate) use auto_snapshot::{
    completed_response_snapshot, forget_after_write, invalidate_diverged_snapshot, invalidate_diverged_snapshot_at_end,
};
pub(crate) use coordinator::{AdmissionError, RunIdentity};
pub(crate) use state::{CallInfo, RunCheckpoint, RunContext, ToolOutput, page_tool_failure, tool_failure};
pub(crate) use waiters::{Waited, wait_for_user};
