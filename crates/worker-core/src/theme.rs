//! The panel's colour theme, stored as `'dark'` or `'light'`.

use crate::envelope::RequestError;
use crate::platform::Storage;
use crate::storage::{StorageAction, StorageError};
use protocol::ErrorCode;
use protocol::payloads::SaveTheme;
use serde_json::{Value, json};

/// Storage key of the theme (shared with the original's users' data).
pub(crate) const THEME_KEY: &str = "typstAgent.theme";

const DARK: &str = "dark";
const LIGHT: &str = "light";

/// Anything but exactly `'light'` reads as the default, `'dark'`.
pub(crate) fn normalize(value: Option<&Value>) -> &'static str {
    match value.and_then(Value::as_str) {
        Some(LIGHT) => LIGHT,
        _ => DARK,
    }
}

pub(crate) async fn load(storage: &impl Storage) -> Result<Value, RequestError> {
    let stored = storage.get(THEME_KEY).await.map_err(|error| {
        RequestError::new(
            ErrorCode::StorageReadFailed,
            format!("Could not read the theme: {error}"),
        )
    })?;
    Ok(Value::from(normalize(stored.as_ref())))
}

/// `SAVE_THEME {theme}` (the envelope check has required one non-blank
/// string): anything but `'light'` is stored as `'dark'`.
pub(crate) async fn save(storage: &impl Storage, request: &SaveTheme) -> Result<Value, RequestError> {
    let value = if request.theme == LIGHT { LIGHT } else { DARK };
    storage
        .set(THEME_KEY, Value::from(value))
        .await
        .map_err(|error| StorageError::write(&error).during(StorageAction::SaveTheme))?;
    Ok(json!({ "ok": true }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{MemoryStorage, block_on};

    fn theme(name: &str) -> SaveTheme {
        SaveTheme { theme: name.to_owned() }
    }

    #[test]
    fn defaults_to_dark_and_saves_light() {
        let storage = MemoryStorage::default();
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
        let saved = block_on(save(&storage, &theme("light")));
        assert_eq!(saved, Ok(json!({"ok": true})));
        assert_eq!(block_on(load(&storage)), Ok(json!("light")));
    }

    #[test]
    fn unknown_themes_are_stored_as_dark() {
        let storage = MemoryStorage::default();
        assert!(block_on(save(&storage, &theme("solarized"))).is_ok());
        assert_eq!(storage.value(THEME_KEY), Some(json!("dark")));
        storage.put(THEME_KEY, json!(42));
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
    }

    #[test]
    fn reports_write_failures_naming_the_theme() {
        let storage = MemoryStorage::default();
        storage.fail_writes("QUOTA_BYTES quota exceeded");
        let result = block_on(save(&storage, &theme("light")));
        let Err(error) = result else {
            panic!("a refused write fails the save");
        };
        assert_eq!(error.code.as_str(), "STORAGE_QUOTA_EXCEEDED");
        assert!(
            error.message.starts_with("Saving the theme failed: "),
            "{}",
            error.message
        );
        storage.fail_writes("IO error");
        let result = block_on(save(&storage, &theme("light")));
        assert_eq!(result.map_err(|e| e.code.as_str()), Err("STORAGE_WRITE_FAILED"));
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
    }
}
