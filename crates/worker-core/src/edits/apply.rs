//! The commit path of editor writes inside a run, and the automatic document
//! snapshot a run leaves behind.
//!
//! A write tool is resolved against one `edit` snapshot of the editor (read
//! once the message's file is focused again). In Ask mode the proposal is
//! drawn over the editor and reviewed in the panel; in Auto mode it goes
//! straight to the commit. Both modes share one commit: the originating tab
//! is revalidated, the file of the message must be focused, a write-ahead
//! checkpoint is stored *before* the page is asked to change anything, and
//! the page applies the changes only if the text, the editor token and the
//! focused file are still exactly those the proposal was computed for.
//! Anything stale fails closed with the page's structured error and no
//! change. The overlay is cleared on every way out, Stop included, because
//! a proposal that outlives its review would mislead the user.
//!
//! A run binds the first file and editor instance it edits: its checkpoint
//! is one pre-run copy of that document, so a later write against another
//! text, editor or file would make Revert restore the wrong thing and is
//! refused (`EDIT_CHECKPOINT_CONFLICT`).

use crate::cancel::{Cancellation, Cancelled};
use crate::edits::resolve::{EditSnapshot, PreparedEdit, prepare_editor_edit};
use crate::journals::checkpoints::{Checkpoints, StageInput};
use crate::journals::snapshots::Snapshots;
use crate::journals::{DocumentState, JournalError, JournalStore};
use crate::page_client;
use crate::platform::{Clock, Platform, Tabs};
use crate::runs::state::{RunContext, ToolOutput, tool_failure};
use crate::tools::dispatch::{Call, Review, authorize};
use crate::tools::preflight::{self, CallInfo};
use crate::tools::read;
use crate::tools::registry::Route;
use content_bridge::context::PageContext;
use content_bridge::edits::{EditError as PageEditError, PreviewOutcome, StaleReason};
use protocol::constants::{EditorApprovalMode, TYPST_APP_PREFIX};
use protocol::diff_preview::DiffPreview;
use protocol::edit_checkpoint::DEFAULT_EDIT_FILE_LABEL;
use protocol::js;
use protocol::payloads::{ContextProjection, ContextRequest, PageApplyEdit, PageShowEditPreview, StreamDone};
use serde_json::{Map, Value, json};
use std::future::Future;

/// How often the preview is shown again after the page reported that
/// another file is focused (each time after the file came back).
pub const PREVIEW_FILE_ATTEMPTS: usize = 16;
/// How often an apply is retried after the page reported that another file
/// is focused.
pub const APPLY_FILE_RETRIES: usize = 15;
/// The longest `snapshotWarning` of `AI_STREAM_DONE`.
pub const MAX_SNAPSHOT_WARNING_CHARS: usize = 500;

/// What a run remembers of its checkpoint between two writes.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCheckpoint {
    pub id: String,
    /// The document as the run's last write left it.
    pub after_hash: String,
    pub after_length: u64,
    pub editor_token: String,
    pub file_label: String,
    pub created_at: f64,
    /// The last commit could not be stored; it is retried before the next
    /// write of the run.
    pub needs_commit: bool,
}

/// One proposal: the snapshot it was computed against, its changes and the
/// diff the user reviews.
struct Proposal {
    snapshot: EditSnapshot,
    prepared: PreparedEdit,
    preview: DiffPreview,
}

impl Proposal {
    fn file_label(&self) -> &str {
        let label = self.snapshot.file_label.as_str();
        if label.is_empty() {
            DEFAULT_EDIT_FILE_LABEL
        } else {
            label
        }
    }

    fn show_request(&self, call_id: &str) -> PageShowEditPreview {
        PageShowEditPreview {
            expected_text: self.snapshot.text.clone(),
            expected_editor_token: self.snapshot.editor_token.clone(),
            expected_file_label: self.file_label().to_owned(),
            changes: self.prepared.changes.clone(),
            call_id: call_id.to_owned(),
            preview: self.preview.clone(),
        }
    }

    fn apply_request(&self, call_id: &str, reviewed_diff: bool) -> PageApplyEdit {
        PageApplyEdit {
            expected_text: self.snapshot.text.clone(),
            expected_editor_token: self.snapshot.editor_token.clone(),
            expected_file_label: self.file_label().to_owned(),
            changes: self.prepared.changes.clone(),
            call_id: call_id.to_owned(),
            reviewed_diff,
        }
    }
}

async fn show_once<P: Platform>(
    run: &RunContext<'_, P>,
    request: &PageShowEditPreview,
) -> Result<PreviewOutcome, PageEditError> {
    page_client::show_edit_preview(run.platform, run.tab_id, &run.run_id, request, &run.cancel).await
}

async fn apply_once<P: Platform>(run: &RunContext<'_, P>, request: &PageApplyEdit) -> Result<(), PageEditError> {
    page_client::apply_edit(run.platform, run.tab_id, &run.run_id, request, &run.cancel)
        .await
        .map(|_| ())
}

/// Removes the call's overlay. It runs after Stop too (the page client
/// sends it without the run's cancellation); a tab that closed or navigated
/// simply fails, and its page took the overlay with it.
async fn clear_preview<P: Platform>(run: &RunContext<'_, P>, call_id: &str) {
    let _ = page_client::clear_edit_preview(run.platform, run.tab_id, &run.run_id, call_id).await;
}

/// A page failure as the model sees it: the page's code and message, and
/// which guard failed when the proposal was stale.
fn edit_failure(error: &PageEditError) -> ToolOutput {
    let mut failure = tool_failure(error.code(), error.message());
    if let Some(reason) = error.stale_reason() {
        failure.insert("staleReason".into(), Value::String(reason.as_str().to_owned()));
    }
    failure
}

fn is_stale_file(error: &PageEditError) -> bool {
    error.stale_reason() == Some(StaleReason::File)
}

/// Waits until the message's file is focused (no wait without one).
async fn wait_for_message_file<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
) -> Result<Result<(), ToolOutput>, Cancelled> {
    if run.message_file().is_none() {
        return Ok(Ok(()));
    }
    let identity = ContextRequest {
        tab_id: None,
        projection: Some(ContextProjection::Numbered),
        start_line: Some(1),
        end_line: Some(1),
        max_chars: Some(1),
    };
    Ok(read::message_file_context(run, call, identity, "editor change")
        .await?
        .map(|_| ()))
}

fn stale_tab(when: &str) -> ToolOutput {
    tool_failure(
        "STALE_RUN_TAB",
        format!("The Typst tab this chat started from navigated {when}, so the document was not changed."),
    )
}

// ----- the tool -----

/// Runs one editor write: preflight, resolution, review (Ask) and commit.
/// `Err` only when the run was cancelled.
pub async fn run_editor_write<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: Call<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    let info = CallInfo {
        id: call.id,
        name: call.name,
    };
    if let Some(needs) = route.preflight
        && let Err(skipped) = preflight::capabilities(run, info, needs).await?
    {
        return Ok(skipped);
    }
    if read::check_tab(run).await?.is_err() {
        return Ok(stale_tab("after this run began"));
    }
    let proposal = match prepare(run, info, args).await? {
        Ok(PreparedCall::Change(proposal)) => proposal,
        Ok(PreparedCall::NoChanges) => {
            let mut result = Map::new();
            result.insert("ok".into(), Value::Bool(true));
            result.insert("no_changes".into(), Value::Bool(true));
            return Ok(result);
        }
        Err(failure) => return Ok(failure),
    };
    if run.approval_mode.get() == EditorApprovalMode::Auto {
        if read::check_tab(run).await?.is_err() {
            return Ok(stale_tab("before the change could be applied"));
        }
        if let Err(failure) = wait_for_message_file(run, info).await? {
            return Ok(failure);
        }
        return commit(run, info, &proposal, false).await;
    }
    let outcome = review_and_commit(run, route, call, args, &proposal).await;
    clear_preview(run, call.id).await;
    outcome
}

/// Resolves the call against one `edit` snapshot of the message's file.
async fn prepare<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
) -> Result<Result<PreparedCall, ToolOutput>, Cancelled> {
    let request = ContextRequest {
        tab_id: None,
        projection: Some(ContextProjection::Edit),
        start_line: None,
        end_line: None,
        max_chars: None,
    };
    let context = match read::message_file_context(run, call, request, "editor change").await? {
        Ok(context) => context,
        Err(failure) => return Ok(Err(failure)),
    };
    // The snapshot's own checks come first: a document over the edit limit
    // is reported as too large, not as an unreadable editor.
    let snapshot = match EditSnapshot::from_context(&context) {
        Ok(snapshot) => snapshot,
        Err(error) => return Ok(Err(tool_failure(error.code(), error.message))),
    };
    let prepared = match prepare_editor_edit(call.name, &Value::Object(args.clone()), &snapshot) {
        Ok(prepared) => prepared,
        Err(error) => return Ok(Err(tool_failure(error.code(), error.message))),
    };
    Ok(Ok(PreparedCall::from_parts(snapshot, prepared)))
}

/// What resolution left to do.
enum PreparedCall {
    /// The document would stay as it is.
    NoChanges,
    Change(Box<Proposal>),
}

impl PreparedCall {
    fn from_parts(snapshot: EditSnapshot, prepared: PreparedEdit) -> PreparedCall {
        match prepared.preview.clone() {
            Some(preview) if !prepared.no_changes => PreparedCall::Change(Box::new(Proposal {
                snapshot,
                prepared,
                preview,
            })),
            _ => PreparedCall::NoChanges,
        }
    }
}

/// Ask mode: draw the proposal, ask the user, then commit what was reviewed.
async fn review_and_commit<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: Call<'_>,
    args: &Map<String, Value>,
    proposal: &Proposal,
) -> Result<ToolOutput, Cancelled> {
    let info = CallInfo {
        id: call.id,
        name: call.name,
    };
    if let Err(failure) = wait_for_message_file(run, info).await? {
        return Ok(failure);
    }
    let drawn = match show_preview(run, info, proposal).await? {
        Ok(drawn) => drawn,
        Err(failure) => return Ok(failure),
    };
    let notice = match (drawn.shown(), drawn.warning()) {
        (_, Some(warning)) => Some(warning.to_owned()),
        (true, None) => None,
        (false, None) => Some(
            "The proposal could not be drawn over the editor; the complete diff below is what would be applied."
                .to_owned(),
        ),
    };
    let review = Review {
        preview: proposal.preview.clone(),
        notice,
    };
    if let Err(denied) = authorize(run, route, call, args, Some(review)).await? {
        return Ok(denied);
    }
    if read::check_tab(run).await?.is_err() {
        return Ok(stale_tab("while the change waited for review"));
    }
    if let Err(failure) = wait_for_message_file(run, info).await? {
        return Ok(failure);
    }
    commit(run, info, proposal, true).await
}

/// `PAGE_SHOW_EDIT_PREVIEW`, drawn again after the file came back when the
/// page says another file is focused. A page that cannot be reached (or
/// answers badly) only costs the overlay: the panel's diff stays complete.
/// A refusal (stale text or editor, another preview busy) ends the call.
async fn show_preview<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    proposal: &Proposal,
) -> Result<Result<PreviewOutcome, ToolOutput>, Cancelled> {
    let request = proposal.show_request(call.id);
    for _ in 0..PREVIEW_FILE_ATTEMPTS {
        let answer = show_once(run, &request).await;
        if run.cancel.is_cancelled() {
            return Err(Cancelled);
        }
        match answer {
            Ok(outcome) => return Ok(Ok(outcome)),
            Err(error) if is_stale_file(&error) && run.message_file().is_some() => {
                if let Err(failure) = wait_for_message_file(run, call).await? {
                    return Ok(Err(failure));
                }
            }
            Err(PageEditError::Refused(refusal)) => return Ok(Err(edit_failure(&PageEditError::Refused(refusal)))),
            Err(PageEditError::Page(error)) => {
                return Ok(Ok(PreviewOutcome::Unavailable {
                    warning: format!("The inline editor preview is unavailable: {}", error.message),
                }));
            }
        }
    }
    Ok(Err(tool_failure(
        "ACTIVE_FILE_RETRY_LIMIT",
        "The open file changed too many times while the proposal was being drawn over the editor.",
    )))
}

// ----- the commit -----

fn checkpoint_failure(error: &JournalError) -> ToolOutput {
    tool_failure(
        error.code,
        format!(
            "The change was not applied because a safe revert point could not be stored first: {}",
            error.message
        ),
    )
}

/// Stores the write-ahead record of this write: a fresh checkpoint for the
/// run's first write, an update of the run's checkpoint afterwards. Returns
/// the checkpoint's id and creation time.
async fn prepare_checkpoint<P: Platform>(
    run: &RunContext<'_, P>,
    journal: &Checkpoints<'_, P::Storage, P::Clock>,
    call_id: &str,
    proposal: &Proposal,
    pending: &DocumentState,
    new_id: &str,
) -> Result<(String, f64), JournalError> {
    let existing = run.checkpoint.borrow().clone();
    let Some(existing) = existing else {
        let meta = journal
            .stage(StageInput {
                id: new_id.to_owned(),
                project_id: run.project_id.clone(),
                session_id: run.session_id.clone(),
                run_id: run.run_id.clone(),
                call_id: call_id.to_owned(),
                file_label: proposal.file_label().to_owned(),
                before_text: proposal.snapshot.text.clone(),
                pending_after: pending.clone(),
            })
            .await?;
        return Ok((meta.id, meta.created_at));
    };
    if existing.needs_commit {
        // The previous write landed but its commit was not stored: finish it
        // before the record moves on.
        journal.commit(&existing.id).await?;
        if let Some(binding) = run.checkpoint.borrow_mut().as_mut() {
            binding.needs_commit = false;
        }
    }
    journal.prepare_update(&existing.id, pending, Some(call_id)).await?;
    Ok((existing.id, existing.created_at))
}

/// Stores the write-ahead checkpoint, asks the page to apply the changes and
/// records the result.
async fn commit<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    proposal: &Proposal,
    reviewed_diff: bool,
) -> Result<ToolOutput, Cancelled> {
    let base = DocumentState::of(&proposal.snapshot.text);
    let pending = DocumentState::of(&proposal.prepared.proposed_text);
    let file_label = proposal.file_label().to_owned();
    let existing = run.checkpoint.borrow().clone();
    if let Some(existing) = &existing
        && (existing.after_hash != base.hash
            || existing.editor_token != proposal.snapshot.editor_token
            || existing.file_label != file_label)
    {
        return Ok(tool_failure(
            "EDIT_CHECKPOINT_CONFLICT",
            "The document changed outside this agent run, or the run moved to another file or editor. The \
             change was not applied, so this response's revert point stays valid.",
        ));
    }

    let journal = Checkpoints::new(JournalStore::new(
        run.platform.storage(),
        run.platform.clock(),
        &run.store.queue,
    ));
    let new_id = format!("edit-{}", run.platform.clock().uuid());
    let request = proposal.apply_request(call.id, reviewed_diff);
    let mut retries = 0;
    let (checkpoint_id, created_at) = loop {
        let (checkpoint_id, created_at) =
            match prepare_checkpoint(run, &journal, call.id, proposal, &pending, &new_id).await {
                Ok(prepared) => prepared,
                Err(error) => return Ok(checkpoint_failure(&error)),
            };
        let answer = apply_once(run, &request).await;
        if run.cancel.is_cancelled() {
            // Whether the page applied is unknown: the prepared record stays
            // so a later Revert decides from the live document's hash.
            return Err(Cancelled);
        }
        let error = match answer {
            Ok(()) => break (checkpoint_id, created_at),
            // Ambiguous as well: the page may have applied the change just
            // before its answer was lost or garbled.
            Err(PageEditError::Page(error)) => return Ok(tool_failure(&error.code, error.message)),
            Err(refused) => refused,
        };
        // The page refused: nothing changed, so the preparation is undone.
        let _ = journal.rollback_preparation(&checkpoint_id).await;
        if !(is_stale_file(&error) && run.message_file().is_some()) {
            return Ok(edit_failure(&error));
        }
        if retries >= APPLY_FILE_RETRIES {
            return Ok(tool_failure(
                "ACTIVE_FILE_RETRY_LIMIT",
                "The open file changed too many times while the change was being applied.",
            ));
        }
        retries += 1;
        if let Err(failure) = wait_for_message_file(run, call).await? {
            return Ok(failure);
        }
    };

    let warning = journal.commit(&checkpoint_id).await.err().map(|error| {
        format!(
            "The change was applied, but its revert point is not final yet: {}",
            error.message
        )
    });
    *run.checkpoint.borrow_mut() = Some(RunCheckpoint {
        id: checkpoint_id.clone(),
        after_hash: pending.hash.clone(),
        after_length: pending.length,
        editor_token: proposal.snapshot.editor_token.clone(),
        file_label: file_label.clone(),
        created_at,
        needs_commit: warning.is_some(),
    });
    // The chat's automatic snapshot showed the document before this write.
    let _ = snapshot_journal(run)
        .delete_automatic_for_file(&run.project_id, &run.session_id, Some(&file_label))
        .await;

    let mut receipt = Map::new();
    receipt.insert("ok".into(), Value::Bool(true));
    receipt.insert("edits_applied".into(), Value::from(proposal.prepared.changes.len()));
    receipt.insert("reviewed_diff".into(), Value::Bool(reviewed_diff));
    receipt.insert(
        "editCheckpoint".into(),
        json!({"id": checkpoint_id, "status": "applied", "fileLabel": file_label, "createdAt": js::number_value(created_at)}),
    );
    if let Some(warning) = warning {
        receipt.insert("warning".into(), Value::String(warning));
    }
    Ok(receipt)
}

fn snapshot_journal<'r, P: Platform>(run: &'r RunContext<'_, P>) -> Snapshots<'r, P::Storage, P::Clock> {
    Snapshots::new(JournalStore::new(
        run.platform.storage(),
        run.platform.clock(),
        &run.store.queue,
    ))
}

// ----- the automatic snapshot -----

/// The focused document as snapshot maintenance sees it.
pub struct LiveDocument {
    pub context: PageContext,
    pub file_label: String,
    pub text: String,
}

/// Reads the focused document of the run's tab, if the tab still shows the
/// page the run started on (a tab that moved to another project must never
/// feed this chat's snapshots). `cancel` is the run's while it runs; the
/// reads after its end (Stop included) take a fresh one.
pub async fn read_live_document<P: Platform>(
    run: &RunContext<'_, P>,
    cancel: &Cancellation,
) -> Result<LiveDocument, String> {
    let expected = run.tab_url.borrow().clone();
    let tab_id = i64::try_from(run.tab_id).unwrap_or(i64::MAX);
    let unchanged = match (run.platform.tabs().get(tab_id).await, expected) {
        (Ok(tab), Some(expected)) => tab.url.starts_with(TYPST_APP_PREFIX) && tab.url == expected,
        _ => false,
    };
    if !unchanged {
        return Err("the Typst tab was closed or has navigated since the run began".to_owned());
    }
    let request = ContextRequest {
        tab_id: None,
        projection: Some(ContextProjection::Edit),
        start_line: None,
        end_line: None,
        max_chars: None,
    };
    let context = page_client::read_context(run.platform, run.tab_id, &request, Some(&run.run_id), cancel)
        .await
        .map_err(|error| error.message)?;
    let Some(text) = context.text().map(str::to_owned) else {
        return Err(context
            .error()
            .unwrap_or("the live Typst editor could not be read")
            .to_owned());
    };
    let file_label = context.file_label();
    Ok(LiveDocument {
        context,
        file_label,
        text,
    })
}

/// Removes the chat's automatic snapshot when the live document no longer
/// matches it. Best effort; the read is returned so the run start can learn
/// the focused file from it.
pub async fn invalidate_diverged_snapshot<P: Platform>(
    run: &RunContext<'_, P>,
    cancel: &Cancellation,
) -> Option<LiveDocument> {
    let live = read_live_document(run, cancel).await.ok()?;
    let _ = snapshot_journal(run)
        .invalidate_diverged_automatic(
            &run.project_id,
            &run.session_id,
            &live.file_label,
            &DocumentState::of(&live.text),
        )
        .await;
    Some(live)
}

/// How long a stopped or failed run waits for its divergence check before
/// it reports its end anyway (a hung page must not delay the terminal event).
pub const END_MAINTENANCE_GRACE_MS: u32 = 2_000;

/// [`invalidate_diverged_snapshot`] at the end of a stopped or failed run,
/// bounded by [`END_MAINTENANCE_GRACE_MS`].
pub async fn invalidate_diverged_snapshot_at_end<P: Platform>(run: &RunContext<'_, P>) {
    let fresh = Cancellation::new();
    let mut check = std::pin::pin!(invalidate_diverged_snapshot(run, &fresh));
    let mut grace = std::pin::pin!(run.platform.clock().sleep(END_MAINTENANCE_GRACE_MS));
    // Whichever ends first ends the wait; the check goes first so a page
    // that answers at once is never cut short.
    std::future::poll_fn(|cx| {
        if check.as_mut().poll(cx).is_ready() || grace.as_mut().poll(cx).is_ready() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
}

/// After a complete run: one automatic snapshot of the focused document for
/// the chat, or the warning `AI_STREAM_DONE` carries when it was not stored.
pub async fn completed_response_snapshot<P: Platform>(run: &RunContext<'_, P>) -> StreamDone {
    let stored = match read_live_document(run, &Cancellation::new()).await {
        Ok(live) => snapshot_journal(run)
            .create_automatic(
                &run.project_id,
                &run.session_id,
                &run.run_id,
                &live.file_label,
                &live.text,
            )
            .await
            .map(|outcome| outcome.snapshot)
            .map_err(|error| error.message),
        Err(reason) => Err(reason),
    };
    match stored {
        Ok(snapshot) => StreamDone {
            snapshot: Some(snapshot),
            snapshot_warning: None,
        },
        Err(reason) => {
            let warning = format!("The response completed, but its document snapshot was not saved: {reason}");
            StreamDone {
                snapshot: None,
                snapshot_warning: Some(js::truncate_utf16(&warning, MAX_SNAPSHOT_WARNING_CHARS).to_owned()),
            }
        }
    }
}

#[cfg(test)]
mod tests;
