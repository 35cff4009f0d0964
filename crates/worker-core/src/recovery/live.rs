//! What every recovery operation shares: whether a run owns the tab, the
//! tab's project scope, one `edit` read of the live editor, one guarded
//! whole-document replacement and the read-back that confirms it, with the
//! page codes a recovery error may carry to the panel.

use crate::cancel::Cancellation;
use crate::edits::whole_document_change;
use crate::envelope::RequestError;
use crate::page_client::{apply_edit, edit_snapshot_request, read_context};
use crate::platform::{Platform, Tabs};
use crate::runs::Runs;
use content_bridge::PageError;
use protocol::ErrorCode;
use protocol::active_file::is_identified_file_label;
use protocol::constants::{is_typst_app_url, project_of_url};
use protocol::js;
use protocol::payloads::PageApplyEdit;

/// Whether an agent run is active on `tab_id`.
pub(crate) fn run_active_on(runs: &Runs, tab_id: u64) -> bool {
    runs.summaries().iter().any(|run| run.tab_id == tab_id)
}

/// Requires `tab_id` to be a typst.app tab that shows `project_id`.
pub(crate) async fn check_tab_scope(
    tabs: &impl Tabs,
    tab_id: u64,
    project_id: &str,
    mismatch_code: ErrorCode,
) -> Result<(), RequestError> {
    let not_typst = || {
        RequestError::new(
            ErrorCode::NotTypstTab,
            "The selected tab is no longer a typst.app page.",
        )
    };
    let key = i64::try_from(tab_id).map_err(|_| not_typst())?;
    let tab = tabs.get(key).await.map_err(|_| not_typst())?;
    if !is_typst_app_url(&tab.url) {
        return Err(not_typst());
    }
    if project_of_url(&tab.url) != Some(project_id) {
        return Err(RequestError::new(
            mismatch_code,
            "The selected tab no longer shows the project this belongs to.",
        ));
    }
    Ok(())
}

/// The live editor as one `edit` read saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LiveEditor {
    pub(crate) text: String,
    pub(crate) editor_token: String,
    pub(crate) file_label: String,
}

/// Page codes a recovery error may carry to the panel; anything else from
/// the (untrusted) page becomes the operation's own failure code.
const PAGE_CODES: &[ErrorCode] = &[
    ErrorCode::Cancelled,
    ErrorCode::EditorUnavailable,
    ErrorCode::EditFileUnknown,
    ErrorCode::EditPreviewBusy,
    ErrorCode::InvalidPageResponse,
    ErrorCode::InvalidPreparedEdit,
    ErrorCode::PagePendingLimit,
    ErrorCode::PageRequestTimeout,
    ErrorCode::PageUnloaded,
    ErrorCode::RequestFailed,
    ErrorCode::StaleEditPreview,
];

fn known_code(code: &str, fallback: ErrorCode) -> ErrorCode {
    ErrorCode::from_wire(code)
        .filter(|code| PAGE_CODES.contains(code))
        .unwrap_or(fallback)
}

fn page_failure(error: PageError, fallback: ErrorCode) -> RequestError {
    RequestError::new(known_code(&error.code, fallback), error.message)
}

/// Reads the focused document (`PAGE_GET_CONTEXT`, `edit` projection);
/// anything but a full text with an editor token is `unavailable_code`.
pub(crate) async fn read_live_editor<P: Platform>(
    platform: &P,
    tab_id: u64,
    unavailable_code: ErrorCode,
) -> Result<LiveEditor, RequestError> {
    let request = edit_snapshot_request();
    // A recovery is not part of a run and has no Stop; the page's own
    // timeout bounds the wait.
    let context = read_context(platform, tab_id, &request, None, &Cancellation::new(), None)
        .await
        .map_err(|error| page_failure(error, unavailable_code))?;
    let unavailable = |message: &str| RequestError::new(unavailable_code, message);
    let token = context
        .state()
        .map(|state| state.editor_token.clone())
        .unwrap_or_default();
    let Some(text) = context.text() else {
        return Err(unavailable(
            context.error().unwrap_or("The live Typst editor could not be read."),
        ));
    };
    if token.is_empty() {
        return Err(unavailable("The live Typst editor could not be read."));
    }
    Ok(LiveEditor {
        text: text.to_owned(),
        editor_token: token,
        file_label: context.file_label(),
    })
}

/// Refuses a write back into the editor (revert, restore) unless both the
/// record and the focused editor name a file: two unidentified files share
/// the default label, so comparing labels would not tell them apart.
pub(crate) fn require_identified_files(record_label: &str, live_label: &str, what: &str) -> Result<(), RequestError> {
    if !is_identified_file_label(record_label) {
        return Err(RequestError::new(
            ErrorCode::EditFileUnknown,
            format!("This {what} was saved without a known file name, so it cannot be written into the editor safely."),
        ));
    }
    if !is_identified_file_label(live_label) {
        return Err(RequestError::new(
            ErrorCode::EditFileUnknown,
            format!(
                "The page does not show which file is open in the editor. Open {record_label} so its name shows \
                 above the editor, then try the {what} again."
            ),
        ));
    }
    Ok(())
}

/// What a guarded whole-document replacement writes and how it is named.
pub(crate) struct Replacement<'a> {
    /// The synthetic run id (`revert-<uuid>`, `snapshot-restore-<uuid>`).
    pub(crate) run_id: String,
    /// `revert-<checkpointId>`, `restore-<snapshotId>`.
    pub(crate) call_id: String,
    /// The file the replacement is for; the page refuses another one.
    pub(crate) file_label: &'a str,
    pub(crate) text: &'a str,
    /// The code of a refusal the page gave no known code for.
    pub(crate) failure_code: ErrorCode,
}

/// One guarded whole-document replacement: the page applies it only while
/// the editor still shows exactly `live` in the replacement's file.
pub(crate) async fn replace_document<P: Platform>(
    platform: &P,
    tab_id: u64,
    live: &LiveEditor,
    replacement: &Replacement<'_>,
) -> Result<(), RequestError> {
    let request = PageApplyEdit {
        expected_text: live.text.clone(),
        expected_editor_token: live.editor_token.clone(),
        expected_file_label: replacement.file_label.to_owned(),
        changes: vec![whole_document_change(&live.text, replacement.text)],
        call_id: replacement.call_id.clone(),
        reviewed_diff: false,
    };
    // A recovery is not part of a run and has no Stop; the page's own
    // timeout bounds the wait.
    apply_edit(platform, tab_id, &replacement.run_id, &request, &Cancellation::new())
        .await
        .map(drop)
        .map_err(|error| {
            RequestError::new(
                known_code(error.code(), replacement.failure_code),
                js::truncate_utf16(error.message(), 2_000),
            )
        })
}

/// Reads the document back after a replacement the page reported as done:
/// only exactly `replacement.text` in its file confirms it. Anything else
/// is `EDIT_APPLY_UNVERIFIED`, and the caller keeps whatever says which
/// states are possible (a revert stays `reverting`, a restore's rescue copy
/// stays).
pub(crate) async fn confirm_replaced<P: Platform>(
    platform: &P,
    tab_id: u64,
    replacement: &Replacement<'_>,
) -> Result<(), RequestError> {
    let unverified = |what: &str| {
        RequestError::new(
            ErrorCode::EditApplyUnverified,
            format!("The page reported the document as replaced, but {what}. Check the document before trying again."),
        )
    };
    let live = read_live_editor(platform, tab_id, ErrorCode::EditApplyUnverified)
        .await
        .map_err(|error| unverified(&format!("it could not be read back ({})", error.message)))?;
    if live.file_label != replacement.file_label {
        return Err(unverified("another file was focused when it was read back"));
    }
    if live.text != replacement.text {
        return Err(unverified("the text read back afterwards is not the replacement"));
    }
    Ok(())
}
