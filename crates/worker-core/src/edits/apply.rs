//! The commit path of editor writes inside a run.
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
//! A page's `edits_applied` receipt is not taken on trust: after it, the
//! document is read back, and only a read that shows exactly the edited
//! text commits the checkpoint and drops the chat's automatic snapshot.
//! A read that shows the text before the edit undoes the preparation
//! (nothing changed); anything else leaves the checkpoint `prepared` (Revert
//! decides from the live document then) and keeps the snapshot. Both end
//! the call with `EDIT_APPLY_UNVERIFIED`.
//!
//! A run binds the first file and editor instance it edits: its checkpoint
//! is one pre-run copy of that document, so a later write against another
//! text, editor or file would make Revert restore the wrong thing and is
//! refused (`EDIT_CHECKPOINT_CONFLICT`).

use crate::cancel::Cancelled;
use crate::edits::resolve::{EditSnapshot, PreparedEdit, prepare_editor_edit};
use crate::journals::{Checkpoints, DocumentState, JournalError, JournalStore, StageInput};
use crate::page_client::{self, edit_snapshot_request, file_identity_request};
use crate::platform::{Clock, Platform};
use crate::race::{Either, both, first_of};
use crate::runs::{
    CallInfo, RunCheckpoint, RunContext, ToolOutput, forget_after_write, page_tool_failure, tool_failure,
};
use crate::tools::{
    Review, Route, await_approval, capabilities, capabilities_now, check_tab, message_file_context,
    message_file_context_from, page_context, show_approval,
};
use content_bridge::PageError;
use content_bridge::context::PageContext;
use content_bridge::edit_requests::{PageEditError, PreviewOutcome, StaleReason};
use protocol::ErrorCode;
use protocol::active_file::is_identified_file_label;
use protocol::constants::EditorApprovalMode;
use protocol::diff_preview::DiffPreview;
use protocol::edit_checkpoint::DEFAULT_EDIT_FILE_LABEL;
use protocol::js;
use protocol::payloads::{ExpectedDocument, PageApplyEdit, PageShowEditPreview};
use serde_json::{Map, Value, json};
use std::pin::pin;

/// How often the preview is shown again after the page reported that
/// another file is focused (each time after the file came back).
const PREVIEW_FILE_ATTEMPTS: usize = 16;
/// How often an apply is retried after the page reported that another file
/// is focused.
const APPLY_FILE_RETRIES: usize = 15;

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

    /// The preview request. `by_token`: name the document by the page's
    /// token of the object it was read from, when the read carried one, so
    /// the text does not travel back; otherwise send the whole text.
    fn show_request(&self, call_id: &str, by_token: bool) -> PageShowEditPreview {
        let expected = match &self.snapshot.document_token {
            Some(token) if by_token => ExpectedDocument::Token {
                token: token.clone(),
                length: js::utf16_len(&self.snapshot.text) as u64,
            },
            _ => ExpectedDocument::Text {
                text: self.snapshot.text.clone(),
            },
        };
        PageShowEditPreview {
            expected,
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
    let mut failure = page_tool_failure(error.code(), error.message());
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
    Ok(
        message_file_context(run, call, file_identity_request(), "editor change")
            .await?
            .map(|_| ()),
    )
}

fn stale_tab(when: &str) -> ToolOutput {
    tool_failure(
        ErrorCode::StaleRunTab,
        format!("The Typst tab this chat started from navigated {when}, so the document was not changed."),
    )
}

// ----- the tool -----

/// Runs one editor write: preflight, resolution, review (Ask) and commit.
/// `Err` only when the run was cancelled.
pub(crate) async fn run_editor_write<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
) -> Result<ToolOutput, Cancelled> {
    let first_read = match early_read(run, route, call).await? {
        EarlyRead::Read(read) => Some(*read),
        EarlyRead::Later => None,
        EarlyRead::Ended(failure) => return Ok(failure),
    };
    let proposal = match prepare(run, call, args, first_read).await? {
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
        if check_tab(run).await?.is_err() {
            return Ok(stale_tab("before the change could be applied"));
        }
        if let Err(failure) = wait_for_message_file(run, call).await? {
            return Ok(failure);
        }
        return commit(run, call, &proposal, false).await;
    }
    let outcome = review_and_commit(run, route, call, args, &proposal).await;
    clear_preview(run, call.id).await;
    outcome
}

/// What the first `edit` read of a write came to.
enum EarlyRead {
    /// The probe found everything at once: this is the snapshot's first read.
    Read(Box<Result<PageContext, PageError>>),
    /// Nothing read yet (no preflight, or a wait ran): the snapshot is read
    /// afresh.
    Later,
    /// The call ends with this result (the tab navigated, a wait was given up).
    Ended(ToolOutput),
}

/// The tab check, the page's capabilities and the first `edit` read. The
/// probe and the read go out together, so the 600 KB read of a large
/// document does not wait a page round trip behind the probe: when the
/// probe finds everything at once, the read is the snapshot's first read.
/// Otherwise it is dropped, the wait for the capabilities runs (with its
/// banner), the tab is checked again after it, and the snapshot is read
/// anew. The tab is checked first, so nothing is asked of a tab that
/// navigated since Send.
async fn early_read<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
) -> Result<EarlyRead, Cancelled> {
    if check_tab(run).await?.is_err() {
        return Ok(EarlyRead::Ended(stale_tab("after this run began")));
    }
    let Some(needs) = route.preflight else {
        return Ok(EarlyRead::Later);
    };
    let (ready, read) = both(
        capabilities_now(run, needs),
        page_context(run, &edit_snapshot_request()),
    )
    .await;
    if ready? {
        return Ok(EarlyRead::Read(Box::new(read?)));
    }
    if let Err(skipped) = capabilities(run, call, needs).await? {
        return Ok(EarlyRead::Ended(skipped));
    }
    if check_tab(run).await?.is_err() {
        return Ok(EarlyRead::Ended(stale_tab("after this run began")));
    }
    Ok(EarlyRead::Later)
}

/// Resolves the call against one `edit` snapshot of the message's file
/// (`first_read`, when given, is that snapshot's first read).
async fn prepare<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
    first_read: Option<Result<PageContext, PageError>>,
) -> Result<Result<PreparedCall, ToolOutput>, Cancelled> {
    let context =
        match message_file_context_from(run, call, edit_snapshot_request(), "editor change", first_read).await? {
            Ok(context) => context,
            Err(failure) => return Ok(Err(failure)),
        };
    // The snapshot's own checks come first: a document over the edit limit
    // is reported as too large, not as an unreadable editor.
    let snapshot = match EditSnapshot::from_context(&context) {
        Ok(snapshot) => snapshot,
        Err(error) => return Ok(Err(tool_failure(error.code(), error.message))),
    };
    // A write bound to "some document" could land in another unidentified
    // file; the page refuses it too, this spares the review of a dead end.
    if !is_identified_file_label(&snapshot.file_label) {
        return Ok(Err(tool_failure(
            ErrorCode::EditFileUnknown,
            "The document was not changed: the page does not show which file is open in the editor. Open the file \
             from the Files sidebar so its name shows above the editor, then try again.",
        )));
    }
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

/// Ask mode: ask the user while the proposal is drawn over the editor, then
/// commit what was reviewed.
///
/// The review goes up at once, beside the drawing (which is a page round
/// trip of its own): the panel's diff is complete without the overlay, and
/// the commit re-checks the text, the editor and the file anyway. What the
/// drawing learns comes after it:
/// 1. a notice (the overlay is missing or partial) is sent as the same
///    review again, which the panel takes into the banner it shows;
/// 2. a wait for the message's file put its banner in the review's place,
///    so the review is sent again once the file is back;
/// 3. a refusal (stale text or editor, another preview busy) withdraws the
///    review: its wait is dropped (a late click finds nothing waiting) and
///    the call ends with the refusal, whose result takes the banner down.
///
/// An answer that comes before the drawing ends waits for it, so nothing is
/// applied while a preview request is still on its way, and a refusal still
/// ends the call. The drawing is not preceded by a wait for the message's
/// file: the snapshot was read only once that file was focused, and the
/// page itself refuses a preview for another file (`staleReason: file`).
async fn review_and_commit<P: Platform>(
    run: &RunContext<'_, P>,
    route: &Route,
    call: CallInfo<'_>,
    args: &Map<String, Value>,
    proposal: &Proposal,
) -> Result<ToolOutput, Cancelled> {
    let review = |notice| {
        Some(Review {
            preview: proposal.preview.clone(),
            notice,
        })
    };
    show_approval(run, route, call, args, review(None));
    let mut answer = pin!(await_approval(run, route, call, true));
    let mut drawing = pin!(show_preview(run, call, proposal));
    let answered = match first_of(drawing.as_mut(), answer.as_mut()).await {
        Either::Left(drawn) => {
            let drawn = match drawn? {
                Ok(drawn) => drawn,
                Err(failure) => return Ok(failure),
            };
            let notice = review_notice(&drawn.outcome);
            if notice.is_some() || drawn.waited_for_file {
                show_approval(run, route, call, args, review(notice));
            }
            answer.await?
        }
        Either::Right(answered) => {
            let answered = answered?;
            if let Err(failure) = drawing.await? {
                return Ok(failure);
            }
            answered
        }
    };
    if let Err(denied) = answered {
        return Ok(denied);
    }
    if check_tab(run).await?.is_err() {
        return Ok(stale_tab("while the change waited for review"));
    }
    if let Err(failure) = wait_for_message_file(run, call).await? {
        return Ok(failure);
    }
    commit(run, call, proposal, true).await
}

/// What the review says about the overlay: nothing when it was drawn whole.
fn review_notice(outcome: &PreviewOutcome) -> Option<String> {
    match (outcome.shown(), outcome.warning()) {
        (_, Some(warning)) => Some(warning.to_owned()),
        (true, None) => None,
        (false, None) => Some(
            "The proposal could not be drawn over the editor; the complete diff below is what would be applied."
                .to_owned(),
        ),
    }
}

/// How the drawing ended, and whether it had to wait for the message's file
/// on the way (its banner replaced the review's).
struct Drawn {
    outcome: PreviewOutcome,
    waited_for_file: bool,
}

/// `PAGE_SHOW_EDIT_PREVIEW`, drawn again after the file came back when the
/// page says another file is focused. A page that cannot be reached (or
/// answers badly) only costs the overlay: the panel's diff stays complete.
/// A refusal (stale text or editor, another preview busy) ends the call.
///
/// The first request names the document by its token. A page that holds
/// another document object refuses that as a stale document even when the
/// text is the same (typed and undone, or the file reopened), so that
/// refusal is checked once more with the whole text, compared exactly: the
/// call ends only when the text itself differs, as it would have with the
/// text sent first.
async fn show_preview<P: Platform>(
    run: &RunContext<'_, P>,
    call: CallInfo<'_>,
    proposal: &Proposal,
) -> Result<Result<Drawn, ToolOutput>, Cancelled> {
    let mut request = proposal.show_request(call.id, true);
    let mut waited_for_file = false;
    for _ in 0..PREVIEW_FILE_ATTEMPTS {
        let answer = show_once(run, &request).await;
        if run.cancel.is_cancelled() {
            return Err(Cancelled);
        }
        match answer {
            Ok(outcome) => {
                return Ok(Ok(Drawn {
                    outcome,
                    waited_for_file,
                }));
            }
            Err(error)
                if error.stale_reason() == Some(StaleReason::Document)
                    && matches!(request.expected, ExpectedDocument::Token { .. }) =>
            {
                request = proposal.show_request(call.id, false);
            }
            Err(error) if is_stale_file(&error) && run.message_file().is_some() => {
                waited_for_file = true;
                if let Err(failure) = wait_for_message_file(run, call).await? {
                    return Ok(Err(failure));
                }
            }
            Err(PageEditError::Refused(refusal)) => return Ok(Err(edit_failure(&PageEditError::Refused(refusal)))),
            Err(PageEditError::Page(error)) => {
                return Ok(Ok(Drawn {
                    outcome: PreviewOutcome::Unavailable {
                        warning: format!("The inline editor preview is unavailable: {}", error.message),
                    },
                    waited_for_file,
                }));
            }
        }
    }
    Ok(Err(tool_failure(
        ErrorCode::ActiveFileRetryLimit,
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

/// What the document showed when it was read back after an apply the page
/// reported as done.
enum ReadBack {
    /// Exactly the edited text, in the proposal's file.
    Edited,
    /// Exactly the text the proposal was computed against: nothing landed.
    Unchanged,
    /// Something else, or nothing readable; says what, for the message.
    Other(String),
}

/// Reads the focused document again (the same `edit` read a write is
/// resolved against) and compares it with the proposal's two possible
/// outcomes. `Err` only when the run was cancelled meanwhile.
async fn read_back<P: Platform>(
    run: &RunContext<'_, P>,
    proposal: &Proposal,
    pending: &DocumentState,
) -> Result<ReadBack, Cancelled> {
    let read = page_client::read_context(
        run.platform,
        run.tab_id,
        &edit_snapshot_request(),
        Some(&run.run_id),
        &run.cancel,
        Some(run.document.as_ref()),
    )
    .await;
    if run.cancel.is_cancelled() {
        return Err(Cancelled);
    }
    let live = match read
        .map_err(|error| error.message)
        .and_then(|context| EditSnapshot::from_context(&context).map_err(|error| error.message))
    {
        Ok(live) => live,
        Err(message) => {
            return Ok(ReadBack::Other(format!(
                "the document could not be read back afterwards ({message})"
            )));
        }
    };
    if live.file_label != proposal.snapshot.file_label {
        return Ok(ReadBack::Other(
            "another file was focused when it was read back".to_owned(),
        ));
    }
    if DocumentState::of(&live.text).matches(pending) {
        Ok(ReadBack::Edited)
    } else if live.text == proposal.snapshot.text {
        Ok(ReadBack::Unchanged)
    } else {
        Ok(ReadBack::Other(
            "the document read back afterwards is not the edited text (it may have been typed into at the same \
             moment)"
                .to_owned(),
        ))
    }
}

/// Stores the write-ahead checkpoint, asks the page to apply the changes,
/// reads the document back and records the result.
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
            ErrorCode::EditCheckpointConflict,
            "The document changed outside this agent run, or the run moved to another file or editor. The \
             change was not applied, so this response's revert point stays valid.",
        ));
    }

    let journal = Checkpoints::new(JournalStore::on(run.platform, &run.store.queue));
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
            Err(PageEditError::Page(error)) => return Ok(page_tool_failure(&error.code, error.message)),
            Err(refused) => refused,
        };
        // The page refused: nothing changed, so the preparation is undone.
        let _ = journal.rollback_preparation(&checkpoint_id).await;
        if !(is_stale_file(&error) && run.message_file().is_some()) {
            return Ok(edit_failure(&error));
        }
        if retries >= APPLY_FILE_RETRIES {
            return Ok(tool_failure(
                ErrorCode::ActiveFileRetryLimit,
                "The open file changed too many times while the change was being applied.",
            ));
        }
        retries += 1;
        if let Err(failure) = wait_for_message_file(run, call).await? {
            return Ok(failure);
        }
    };
    match read_back(run, proposal, &pending).await? {
        ReadBack::Edited => {}
        ReadBack::Unchanged => {
            let _ = journal.rollback_preparation(&checkpoint_id).await;
            return Ok(tool_failure(
                ErrorCode::EditApplyUnverified,
                "The page reported the change as applied, but the document read back afterwards is unchanged. \
                 Nothing was applied.",
            ));
        }
        ReadBack::Other(what) => {
            return Ok(tool_failure(
                ErrorCode::EditApplyUnverified,
                format!(
                    "The page reported the change as applied, but {what}, so it is not counted as applied. The \
                     revert point and the chat's snapshot were kept; read the document before editing again."
                ),
            ));
        }
    }

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
    forget_after_write(run, &file_label).await;

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

#[cfg(test)]
mod tests;
