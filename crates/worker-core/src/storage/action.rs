//! Which user action a storage write belongs to ([`StorageAction`]), so a
//! write the browser refused tells the user what was not saved ("Saving the
//! chat failed: …") while the code stays the storage code
//! (`STORAGE_QUOTA_EXCEEDED`, `STORAGE_WRITE_FAILED`) the panel and the
//! tests branch on.
//!
//! The name is given once, by the operation that owns the writes (the route
//! or the journal operation); an inner operation that named its action
//! first keeps it, because it is the more precise one (a failed migration
//! inside a chat list is a failed migration).

use protocol::ErrorCode;

/// An action whose storage writes can fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum StorageAction {
    /// `SAVE_SETTINGS`.
    SaveSettings,
    /// `SAVE_THEME`.
    SaveTheme,
    /// `SAVE_CUSTOM_TOOLS`.
    SaveCustomTools,
    /// `SAVE_MCP_SERVERS`.
    SaveMcpServers,
    /// `SESSION_CREATE`.
    CreateChat,
    /// `SESSION_UPDATE`.
    SaveChat,
    /// `SESSION_DELETE`.
    DeleteChat,
    /// `SESSION_DELETE_BY_PROJECT`.
    DeleteProjectChats,
    /// `SESSION_IMPORT`.
    ImportChats,
    /// The move of version-1 chats into the repository.
    MigrateChats,
    /// The once-per-instance repair of the repository (summaries, orphans).
    PrepareChats,
    /// The run's answer saved to the chat it started from.
    SaveRunAnswer,
    /// An edit checkpoint staged, updated, committed or rolled back.
    SaveCheckpoint,
    /// A revert's progress recorded in the checkpoint journal.
    RecordRevert,
    /// A document snapshot stored (manual, rescue or automatic).
    SaveSnapshot,
    /// A document snapshot deleted.
    DeleteSnapshot,
}

impl StorageAction {
    /// The action as the subject of "… failed".
    pub(crate) const fn subject(self) -> &'static str {
        match self {
            StorageAction::SaveSettings => "Saving the settings",
            StorageAction::SaveTheme => "Saving the theme",
            StorageAction::SaveCustomTools => "Saving the custom tools",
            StorageAction::SaveMcpServers => "Saving the MCP servers",
            StorageAction::CreateChat => "Creating the chat",
            StorageAction::SaveChat => "Saving the chat",
            StorageAction::DeleteChat => "Deleting the chat",
            StorageAction::DeleteProjectChats => "Deleting the project's chats",
            StorageAction::ImportChats => "Importing the chats",
            StorageAction::MigrateChats => "Moving the saved chats to the current format",
            StorageAction::PrepareChats => "Preparing the saved chats",
            StorageAction::SaveRunAnswer => "Saving the answer to its chat",
            StorageAction::SaveCheckpoint => "Saving the edit checkpoint",
            StorageAction::RecordRevert => "Recording the revert",
            StorageAction::SaveSnapshot => "Saving the document snapshot",
            StorageAction::DeleteSnapshot => "Deleting the document snapshot",
        }
    }

    /// `message` prefixed with the action: "Saving the chat failed: …".
    pub(crate) fn failed(self, message: &str) -> String {
        format!("{} failed: {message}", self.subject())
    }
}

/// Whether `code` is a refused write, the failures that name their action.
pub(crate) const fn is_write_failure(code: ErrorCode) -> bool {
    matches!(code, ErrorCode::StorageQuotaExceeded | ErrorCode::StorageWriteFailed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_its_action_first() {
        assert_eq!(
            StorageAction::SaveChat.failed("Chrome's local storage is full."),
            "Saving the chat failed: Chrome's local storage is full."
        );
        assert!(is_write_failure(ErrorCode::StorageQuotaExceeded));
        assert!(is_write_failure(ErrorCode::StorageWriteFailed));
        assert!(!is_write_failure(ErrorCode::StorageReadFailed));
        assert!(!is_write_failure(ErrorCode::SessionTooLarge));
    }
}
