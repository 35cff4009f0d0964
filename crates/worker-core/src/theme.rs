//! The panel's colour theme, stored as `'dark'` or `'light'`.

use crate::envelope::RequestError;
use crate::platform::Storage;
use serde_json::{Map, Value, json};

/// Storage key of the theme (shared with the original's users' data).
pub const THEME_KEY: &str = "typstAgent.theme";

const DARK: &str = "dark";
const LIGHT: &str = "light";

/// Anything but exactly `'light'` reads as the default, `'dark'`.
pub fn normalize(value: Option<&Value>) -> &'static str {
    match value.and_then(Value::as_str) {
        Some(LIGHT) => LIGHT,
        _ => DARK,
    }
}

pub async fn load(storage: &impl Storage) -> Result<Value, RequestError> {
    let stored = storage
        .get(THEME_KEY)
        .await
        .map_err(|error| RequestError::new("STORAGE_READ_FAILED", format!("Could not read the theme: {error}")))?;
    Ok(Value::from(normalize(stored.as_ref())))
}

/// `SAVE_THEME {theme}`: exactly one non-blank string field.
pub async fn save(storage: &impl Storage, payload: &Map<String, Value>) -> Result<Value, RequestError> {
    if let Some(field) = payload.keys().find(|key| *key != "theme") {
        return Err(RequestError::new(
            "UNKNOWN_PAYLOAD_FIELD",
            format!("Unknown payload field: {field}"),
        ));
    }
    let theme = match payload.get("theme") {
        None => {
            return Err(RequestError::new(
                "MISSING_PAYLOAD_FIELD",
                "Missing payload field: theme",
            ));
        }
        Some(Value::String(text)) if !text.trim().is_empty() => text,
        Some(_) => return Err(RequestError::new("INVALID_THEME", "theme must be a non-empty string.")),
    };
    let value = if theme == LIGHT { LIGHT } else { DARK };
    storage
        .set(THEME_KEY, Value::from(value))
        .await
        .map_err(|error| RequestError::new("STORAGE_WRITE_FAILED", format!("Could not save local data: {error}")))?;
    Ok(json!({ "ok": true }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{MemoryStorage, block_on};

    #[test]
    fn defaults_to_dark_and_saves_light() {
        let storage = MemoryStorage::default();
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
        let payload = json!({"theme": "light"});
        let saved = block_on(save(&storage, payload.as_object().expect("object")));
        assert_eq!(saved, Ok(json!({"ok": true})));
        assert_eq!(block_on(load(&storage)), Ok(json!("light")));
    }

    #[test]
    fn unknown_themes_are_stored_as_dark() {
        let storage = MemoryStorage::default();
        let payload = json!({"theme": "solarized"});
        assert!(block_on(save(&storage, payload.as_object().expect("object"))).is_ok());
        assert_eq!(storage.value(THEME_KEY), Some(json!("dark")));
        storage.put(THEME_KEY, json!(42));
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
    }

    #[test]
    fn refuses_bad_payloads_and_reports_write_failures() {
        let storage = MemoryStorage::default();
        for (payload, code) in [
            (json!({}), "MISSING_PAYLOAD_FIELD"),
            (json!({"theme": ""}), "INVALID_THEME"),
            (json!({"theme": "light", "extra": 1}), "UNKNOWN_PAYLOAD_FIELD"),
        ] {
            let result = block_on(save(&storage, payload.as_object().expect("object")));
            assert_eq!(result.map_err(|e| e.code), Err(code));
        }
        storage.fail_writes("QUOTA_BYTES quota exceeded");
        let payload = json!({"theme": "light"});
        let result = block_on(save(&storage, payload.as_object().expect("object")));
        assert_eq!(result.map_err(|e| e.code), Err("STORAGE_WRITE_FAILED"));
        assert_eq!(block_on(load(&storage)), Ok(json!("dark")));
    }
}
