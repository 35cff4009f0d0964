//! Why an editor edit could not be prepared.
//!
//! The codes are the original extension's, because they reach the model in
//! tool results (`{ok:false, code, error}`) and prompts and habits rely on
//! them. The message is for the model and the user: it says what to change.

use protocol::ErrorCode;
use std::fmt;

/// The stable code of an edit failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum EditErrorCode {
    /// The tool is not one of the five editor writes.
    UnsupportedEditTool,
    /// No usable snapshot: no editor, no identity token, no cursor or no
    /// selection where the tool needs one.
    EditContextUnavailable,
    /// The document, the change or its diff is beyond what can be reviewed.
    EditPreviewTooLarge,
    /// An argument has the wrong type or is empty where text is required.
    InvalidEditArguments,
    /// A line range that is malformed or past the end of the document.
    InvalidEditRange,
    /// A search string does not occur in the document.
    EditTargetNotFound,
    /// A search string that must be unique occurs more than once.
    EditTargetAmbiguous,
    /// Two resolved changes touch the same text.
    EditRangesOverlap,
    /// The resolved changes are not a valid change list.
    InvalidEditChanges,
}

impl EditErrorCode {
    /// The catalogue code this is.
    pub(crate) const fn code(self) -> ErrorCode {
        match self {
            EditErrorCode::UnsupportedEditTool => ErrorCode::UnsupportedEditTool,
            EditErrorCode::EditContextUnavailable => ErrorCode::EditContextUnavailable,
            EditErrorCode::EditPreviewTooLarge => ErrorCode::EditPreviewTooLarge,
            EditErrorCode::InvalidEditArguments => ErrorCode::InvalidEditArguments,
            EditErrorCode::InvalidEditRange => ErrorCode::InvalidEditRange,
            EditErrorCode::EditTargetNotFound => ErrorCode::EditTargetNotFound,
            EditErrorCode::EditTargetAmbiguous => ErrorCode::EditTargetAmbiguous,
            EditErrorCode::EditRangesOverlap => ErrorCode::EditRangesOverlap,
            EditErrorCode::InvalidEditChanges => ErrorCode::InvalidEditChanges,
        }
    }
}

/// A failed preparation: nothing was changed and nothing should be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EditError {
    pub(crate) code: EditErrorCode,
    pub(crate) message: String,
}

impl EditError {
    pub(crate) fn new(code: EditErrorCode, message: impl Into<String>) -> EditError {
        EditError {
            code,
            message: message.into(),
        }
    }

    /// The catalogue code, e.g. `EDIT_TARGET_NOT_FOUND`.
    pub(crate) fn code(&self) -> ErrorCode {
        self.code.code()
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for EditError {}
