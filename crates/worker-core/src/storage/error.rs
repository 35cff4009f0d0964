//! The typed error of everything the worker keeps in `chrome.storage.local`
//! (settings and the chat repository), with the original's stable codes.
//!
//! Callers branch on [`StorageErrorCode`]; the message is for people and is
//! written here, not copied from the browser, except for the browser's own
//! failure text that a write error quotes.

use crate::envelope::RequestError;
use crate::platform::PlatformError;
use protocol::endpoint_policy::{EndpointError, EndpointErrorCode};
use serde_json::{Value, json};

/// Why a storage operation failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum StorageErrorCode {
    /// The browser refused a write because local storage is full.
    QuotaExceeded,
    /// The browser refused a write (or removal) for another reason.
    WriteFailed,
    /// The browser failed to read a key.
    ReadFailed,
    InvalidSettings,
    InvalidModelId,
    DuplicateModelId,
    UnknownModel,
    InvalidModelMutation,
    /// A model's API base URL failed the endpoint policy.
    Endpoint(EndpointErrorCode),
    IndexInvalid,
    IndexMissing,
    BodyMissing,
    TooLarge,
    InvalidRecord,
    UnsupportedImportVersion,
    ImportRecordLimit,
    ImportSizeLimit,
    MigrationIdCollision,
    MigrationVerifyFailed,
    EditCheckpointIndexInvalid,
    DocumentSnapshotIndexInvalid,
}

impl StorageErrorCode {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            StorageErrorCode::QuotaExceeded => "STORAGE_QUOTA_EXCEEDED",
            StorageErrorCode::WriteFailed => "STORAGE_WRITE_FAILED",
            StorageErrorCode::ReadFailed => "STORAGE_READ_FAILED",
            StorageErrorCode::InvalidSettings => "INVALID_SETTINGS",
            StorageErrorCode::InvalidModelId => "INVALID_MODEL_ID",
            StorageErrorCode::DuplicateModelId => "DUPLICATE_MODEL_ID",
            StorageErrorCode::UnknownModel => "UNKNOWN_MODEL",
            StorageErrorCode::InvalidModelMutation => "INVALID_MODEL_MUTATION",
            StorageErrorCode::Endpoint(code) => code.as_str(),
            StorageErrorCode::IndexInvalid => "SESSION_INDEX_INVALID",
            StorageErrorCode::IndexMissing => "SESSION_INDEX_MISSING",
            StorageErrorCode::BodyMissing => "SESSION_BODY_MISSING",
            StorageErrorCode::TooLarge => "SESSION_TOO_LARGE",
            StorageErrorCode::InvalidRecord => "INVALID_SESSION_RECORD",
            StorageErrorCode::UnsupportedImportVersion => "UNSUPPORTED_IMPORT_VERSION",
            StorageErrorCode::ImportRecordLimit => "SESSION_IMPORT_RECORD_LIMIT",
            StorageErrorCode::ImportSizeLimit => "SESSION_IMPORT_SIZE_LIMIT",
            StorageErrorCode::MigrationIdCollision => "MIGRATION_ID_COLLISION",
            StorageErrorCode::MigrationVerifyFailed => "MIGRATION_VERIFY_FAILED",
            StorageErrorCode::EditCheckpointIndexInvalid => "EDIT_CHECKPOINT_INDEX_INVALID",
            StorageErrorCode::DocumentSnapshotIndexInvalid => "DOCUMENT_SNAPSHOT_INDEX_INVALID",
        }
    }
}

/// A failed storage operation: a stable code, a sentence, and for endpoint
/// refusals the origin that needs the user's acknowledgement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StorageError {
    pub(crate) code: StorageErrorCode,
    pub(crate) message: String,
    pub(crate) details: Option<Value>,
}

impl StorageError {
    pub(crate) fn new(code: StorageErrorCode, message: impl Into<String>) -> Self {
        StorageError {
            code,
            message: message.into(),
            details: None,
        }
    }

    /// A refused write or removal. Chrome reports a full store with a message
    /// naming the quota (`QUOTA_BYTES`); that case gets its own code so the
    /// panel can tell the user to free space.
    pub(crate) fn write(error: &PlatformError) -> Self {
        let text = error.0.to_ascii_lowercase();
        if text.contains("quota") {
            StorageError::new(
                StorageErrorCode::QuotaExceeded,
                "Chrome's local storage is full, so this change was not saved; the chat shown in the panel is \
                 unsaved. Export or delete old chats, then try again.",
            )
        } else {
            StorageError::new(
                StorageErrorCode::WriteFailed,
                format!("Saving to local storage failed: {}", error.0),
            )
        }
    }

    pub(crate) fn read(error: &PlatformError) -> Self {
        StorageError::new(
            StorageErrorCode::ReadFailed,
            format!("Reading local storage failed: {}", error.0),
        )
    }

    pub(crate) fn invalid_record(message: impl Into<String>) -> Self {
        StorageError::new(StorageErrorCode::InvalidRecord, message)
    }

    pub(crate) fn endpoint(error: EndpointError) -> Self {
        StorageError {
            code: StorageErrorCode::Endpoint(error.code),
            message: error.message,
            details: error.details.map(|details| json!({ "origin": details.origin })),
        }
    }

    pub(crate) fn code(&self) -> &'static str {
        self.code.as_str()
    }
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for StorageError {}

impl From<StorageError> for RequestError {
    fn from(error: StorageError) -> Self {
        RequestError::new(error.code.as_str(), error.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_failures_get_their_own_code_and_others_quote_the_browser() {
        let quota = StorageError::write(&PlatformError("QUOTA_BYTES quota exceeded".into()));
        assert_eq!(quota.code(), "STORAGE_QUOTA_EXCEEDED");
        assert!(quota.message.contains("unsaved"));
        let upper = StorageError::write(&PlatformError("Resource::kQuotaBytes QUOTA".into()));
        assert_eq!(upper.code(), "STORAGE_QUOTA_EXCEEDED");
        let other = StorageError::write(&PlatformError("IO error".into()));
        assert_eq!(other.code(), "STORAGE_WRITE_FAILED");
        assert!(other.message.ends_with("IO error"));
        let request: RequestError = other.into();
        assert_eq!(request.code, "STORAGE_WRITE_FAILED");
    }
}
