//! The chat repository's bounds and default names: what the index and the
//! normalised records keep, so every save and import cuts at the same place.

/// Name of a chat created without one.
pub(crate) const NEW_CHAT_NAME: &str = "New chat";
/// Name of an imported chat that has none.
pub(crate) const IMPORTED_CHAT_NAME: &str = "Imported chat";
/// Longest chat name.
pub(crate) const MAX_NAME_CHARS: usize = 200;
/// Longest project id kept from an imported record.
pub(crate) const MAX_PROJECT_ID_CHARS: usize = 256;
/// Longest preview (the first user message) in the index.
pub(crate) const MAX_PREVIEW_CHARS: usize = 160;
/// Longest search text in the index.
pub(crate) const MAX_SEARCH_TEXT_CHARS: usize = 4_000;
