//! The typed error of everything the worker keeps in `chrome.storage.local`
//! (settings and the chat repository), with the original's stable codes.
//!
//! Callers branch on [`StorageErrorCode`]; the message is for people and is
//! written here, not copied from the browser, except for the browser's own
//! failure text that a write error quotes.

use crate::envelope::RequestError;
use crate::platform::PlatformError;
use crate::storage::action::{StorageAction, is_write_failure};
use protocol::ErrorCode;
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
    /// The catalogue code this is.
    pub(crate) const fn code(self) -> ErrorCode {
        match self {
            StorageErrorCode::QuotaExceeded => ErrorCode::StorageQuotaExceeded,
            StorageErrorCode::WriteFailed => ErrorCode::StorageWriteFailed,
            StorageErrorCode::ReadFailed => ErrorCode::StorageReadFailed,
            StorageErrorCode::InvalidSettings => ErrorCode::InvalidSettings,
            StorageErrorCode::InvalidModelId => ErrorCode::InvalidModelId,
            StorageErrorCode::DuplicateModelId => ErrorCode::DuplicateModelId,
            StorageErrorCode::UnknownModel => ErrorCode::UnknownModel,
            StorageErrorCode::InvalidModelMutation => ErrorCode::InvalidModelMutation,
            StorageErrorCode::Endpoint(code) => code.code(),
            StorageErrorCode::IndexInvalid => ErrorCode::SessionIndexInvalid,
            StorageErrorCode::IndexMissing => ErrorCode::SessionIndexMissing,
            StorageErrorCode::BodyMissing => ErrorCode::SessionBodyMissing,
            StorageErrorCode::TooLarge => ErrorCode::SessionTooLarge,
            StorageErrorCode::InvalidRecord => ErrorCode::InvalidSessionRecord,
            StorageErrorCode::UnsupportedImportVersion => ErrorCode::UnsupportedImportVersion,
            StorageErrorCode::ImportRecordLimit => ErrorCode::SessionImportRecordLimit,
            StorageErrorCode::ImportSizeLimit => ErrorCode::SessionImportSizeLimit,
            StorageErrorCode::MigrationIdCollision => ErrorCode::MigrationIdCollision,
            StorageErrorCode::MigrationVerifyFailed => ErrorCode::MigrationVerifyFailed,
            StorageErrorCode::EditCheckpointIndexInvalid => ErrorCode::EditCheckpointIndexInvalid,
            StorageErrorCode::DocumentSnapshotIndexInvalid => ErrorCode::DocumentSnapshotIndexInvalid,
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
    /// The action a refused write named (see [`StorageError::during`]).
    pub(crate) action: Option<StorageAction>,
}

impl StorageError {
    pub(crate) fn new(code: StorageErrorCode, message: impl Into<String>) -> Self {
        StorageError {
            code,
            message: message.into(),
            details: None,
            action: None,
        }
    }

    /// A refused write names `action` in its message ("Saving the chat
    /// failed: …"), unless an inner operation already named its own; other
    /// failures (a refused record, a damaged index) say what they are and
    /// stay as they are.
    #[must_use]
    pub(crate) fn during(mut self, action: StorageAction) -> Self {
        if self.action.is_none() && is_write_failure(self.code()) {
            self.message = action.failed(&self.message);
            self.action = Some(action);
        }
        self
    }

    /// A refused write or removal. Chrome reports a full store with a message
    /// naming the quota (`QUOTA_BYTES quota exceeded`), and a full disk with
    /// LevelDB's "No space left on device"; both get the quota code so the
    /// panel can tell the user to free space.
    pub(crate) fn write(error: &PlatformError) -> Self {
        let text = error.0.to_ascii_lowercase();
        if text.contains("quota") || text.contains("no space left") {
            StorageError::new(
                StorageErrorCode::QuotaExceeded,
                "Chrome's local storage is full, so this change is unsaved; what was saved before is intact. \
                 Export or delete old chats, or free disk space, then try again.",
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
            action: None,
        }
    }

    /// The catalogue code.
    pub(crate) fn code(&self) -> ErrorCode {
        self.code.code()
    }
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for StorageError {}

/// The answer keeps `details`: an endpoint refusal's `details.origin` is what
/// the panel asks the user to acknowledge.
impl From<StorageError> for RequestError {
    fn from(error: StorageError) -> Self {
        let request = RequestError::new(error.code(), error.message);
        match error.details {
            Some(details) => request.with_details(details),
            None => request,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::endpoint_policy::{InsecureConsent, validate_endpoint_url};

    #[test]
    fn quota_failures_get_their_own_code_and_others_quote_the_browser() {
        let quota = StorageError::write(&PlatformError("QUOTA_BYTES quota exceeded".into()));
        assert_eq!(quota.code().as_str(), "STORAGE_QUOTA_EXCEEDED");
        assert!(quota.message.contains("unsaved"));
        let named = quota.clone().during(StorageAction::SaveChat);
        assert!(
            named
                .message
                .starts_with("Saving the chat failed: Chrome's local storage is full")
        );
        // The first action named is kept: the inner operation knows better.
        assert_eq!(named.clone().during(StorageAction::SaveSettings), named);
        let disk = StorageError::write(&PlatformError("IO error: No space left on device".into()));
        assert_eq!(disk.code().as_str(), "STORAGE_QUOTA_EXCEEDED");
        let refused = StorageError::invalid_record("bad").during(StorageAction::SaveChat);
        assert_eq!(refused.message, "bad");
        let upper = StorageError::write(&PlatformError("Resource::kQuotaBytes QUOTA".into()));
        assert_eq!(upper.code().as_str(), "STORAGE_QUOTA_EXCEEDED");
        let other = StorageError::write(&PlatformError("IO error".into()));
        assert_eq!(other.code().as_str(), "STORAGE_WRITE_FAILED");
        assert!(other.message.ends_with("IO error"));
        let request: RequestError = other.into();
        assert_eq!(request.code.as_str(), "STORAGE_WRITE_FAILED");
        assert_eq!(request.details, None);
    }

    #[test]
    fn an_endpoint_refusal_keeps_its_origin_in_the_answer() {
        let refused = validate_endpoint_url("http://192.168.1.5/v1", InsecureConsent::default());
        let Err(refused) = refused else {
            panic!("cleartext to a LAN host needs an acknowledgement");
        };
        let request: RequestError = StorageError::endpoint(refused).into();
        assert_eq!(request.code.as_str(), "INSECURE_CONFIRMATION_REQUIRED");
        assert_eq!(request.details, Some(json!({"origin": "http://192.168.1.5"})));
    }
}
