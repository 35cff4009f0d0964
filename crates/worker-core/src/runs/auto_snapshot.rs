//! The chat's automatic document snapshot, which follows the runs of that
//! chat.
//!
//! A complete run stores one automatic copy of the focused document, so the
//! user can return to what the answer left. The copy is dropped when it no
//! longer shows the document: at a run's start and after a stopped or failed
//! run when the live document differs, and by every editor write of a run
//! (the copy showed the document before it). Everything here is best effort
//! except the outcome of a complete run, which rides on `AI_STREAM_DONE`
//! (the snapshot, or why it was not saved).

use crate::cancel::Cancellation;
use crate::journals::{DocumentState, JournalStore, Snapshots};
use crate::page_client::{self, edit_snapshot_request};
use crate::platform::{Clock, Platform, Tabs};
use crate::race::first_of;
use crate::runs::state::RunContext;
use crate::storage::is_write_failure;
use content_bridge::context::PageContext;
use protocol::js;
use protocol::payloads::StreamDone;

/// The longest `snapshotWarning` of `AI_STREAM_DONE`.
const MAX_SNAPSHOT_WARNING_CHARS: usize = 500;

/// The warning for a snapshot that was not stored for `reason`.
fn not_saved(reason: &str) -> String {
    format!("The response completed, but its document snapshot was not saved: {reason}")
}

fn snapshot_journal<'r, P: Platform>(run: &'r RunContext<'_, P>) -> Snapshots<'r, P::Storage, P::Clock> {
    Snapshots::new(JournalStore::on(run.platform, &run.store.queue))
}

/// Drops the chat's automatic snapshot of `file_label` after the run wrote
/// to that file. Best effort: a copy that stays is replaced by the next
/// complete run.
pub(crate) async fn forget_after_write<P: Platform>(run: &RunContext<'_, P>, file_label: &str) {
    let _ = snapshot_journal(run)
        .delete_automatic_for_file(&run.project_id, &run.session_id, Some(file_label))
        .await;
}

/// The focused document as snapshot maintenance sees it.
pub(crate) struct LiveDocument {
    pub(crate) context: PageContext,
    pub(crate) file_label: String,
    pub(crate) text: String,
}

/// Reads the focused document of the run's tab, if the tab still shows the
/// page the run started on (a tab that moved to another project must never
/// feed this chat's snapshots). `cancel` is the run's while it runs; the
/// reads after its end (Stop included) take a fresh one.
async fn read_live_document<P: Platform>(
    run: &RunContext<'_, P>,
    cancel: &Cancellation,
) -> Result<LiveDocument, String> {
    let tab_id = i64::try_from(run.tab_id).unwrap_or(i64::MAX);
    if !run.shows_start_page(&run.platform.tabs().get(tab_id).await) {
        return Err("the Typst tab was closed or has navigated since the run began".to_owned());
    }
    let request = edit_snapshot_request();
    let context = page_client::read_context(
        run.platform,
        run.tab_id,
        &request,
        Some(&run.run_id),
        cancel,
        Some(run.document.as_ref()),
    )
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
pub(crate) async fn invalidate_diverged_snapshot<P: Platform>(
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
const END_MAINTENANCE_GRACE_MS: u32 = 2_000;

/// [`invalidate_diverged_snapshot`] at the end of a stopped or failed run,
/// bounded by [`END_MAINTENANCE_GRACE_MS`].
pub(crate) async fn invalidate_diverged_snapshot_at_end<P: Platform>(run: &RunContext<'_, P>) {
    let fresh = Cancellation::new();
    // Whichever ends first ends the wait; the check goes first so a page
    // that answers at once is never cut short.
    first_of(
        invalidate_diverged_snapshot(run, &fresh),
        run.platform.clock().sleep(END_MAINTENANCE_GRACE_MS),
    )
    .await;
}

/// After a complete run: one automatic snapshot of the focused document for
/// the chat, or the warning `AI_STREAM_DONE` carries when it was not stored
/// (a refused write names the snapshot itself: "Saving the document
/// snapshot failed: …").
pub(crate) async fn completed_response_snapshot<P: Platform>(run: &RunContext<'_, P>) -> StreamDone {
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
            .map_err(|error| {
                if is_write_failure(error.code) {
                    format!("The response completed. {}", error.message)
                } else {
                    not_saved(&error.message)
                }
            }),
        Err(reason) => Err(not_saved(&reason)),
    };
    match stored {
        Ok(snapshot) => StreamDone {
            snapshot: Some(snapshot),
            snapshot_warning: None,
        },
        Err(warning) => StreamDone {
            snapshot: None,
            snapshot_warning: Some(js::truncate_utf16(&warning, MAX_SNAPSHOT_WARNING_CHARS).to_owned()),
        },
    }
}
