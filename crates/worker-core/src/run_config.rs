//! Runs and title requests use what is stored, not what the request carries.
//!
//! `AI_STREAM_START` and `GENERATE_SESSION_TITLE` carry the panel's copies of
//! the settings and the model (the wire format keeps them), but a request's
//! content is chosen by its sender: a copy could point a stored key at
//! another endpoint or turn on Auto approve. So the worker uses the stored
//! settings and the stored model the copy names by `id`; a copy that differs
//! from what is stored in a field that matters is refused with
//! `RUN_CONFIG_MISMATCH` (the settings changed since the panel read them;
//! the panel reloads them and the user sends again). Custom tools and MCP
//! servers are always read from storage when a run gathers its tools.

use crate::settings;
use protocol::constants::EditorApprovalMode;
use serde_json::{Map, Value};

/// A copy that differs from what is stored; the text says what differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigMismatch(pub(crate) String);

impl ConfigMismatch {
    fn of(what: &str) -> Self {
        ConfigMismatch(format!(
            "The settings changed since this panel read them ({what}). The panel reloads them; send the message again."
        ))
    }
}

/// The settings fields a run reads, compared when the copy carries them.
const SETTINGS_FIELDS: [&str; 2] = ["systemPrompt", "maxHistoryMessages"];

/// The model fields that decide where a request goes and with which key.
const MODEL_FIELDS: [(&str, &str); 3] = [
    ("apiBaseUrl", "the model's endpoint"),
    ("modelId", "the model name"),
    ("apiKey", "the model's API key"),
];

/// Checks the request's settings copy against the stored (loaded,
/// normalised) settings: the approval mode always (an absent mode reads as
/// the stored default would), the prompt and history length when present.
pub(crate) fn check_settings(copy: &Map<String, Value>, stored: &Value) -> Result<(), ConfigMismatch> {
    let mode = |value: Option<&Value>| EditorApprovalMode::normalize(value);
    if copy.contains_key("editorApprovalMode")
        && mode(copy.get("editorApprovalMode")) != mode(stored.get("editorApprovalMode"))
    {
        return Err(ConfigMismatch::of("the editor approval mode"));
    }
    for field in SETTINGS_FIELDS {
        if let Some(value) = copy.get(field)
            && stored.get(field) != Some(value)
        {
            return Err(ConfigMismatch::of(field));
        }
    }
    Ok(())
}

/// The stored model a request uses: the one its copy names by `id` (the
/// copy must agree with it on endpoint, model name and key), or the active
/// model when it sends none (`Null` without models, which the model check
/// then refuses).
pub(crate) fn stored_model(copy: Option<&Map<String, Value>>, stored: &Value) -> Result<Value, ConfigMismatch> {
    let Some(copy) = copy else {
        return Ok(settings::active_model(stored).unwrap_or(Value::Null));
    };
    let id = copy.get("id").and_then(Value::as_str);
    let models = stored.get("models").and_then(Value::as_array);
    let Some(record) = models
        .into_iter()
        .flatten()
        .find(|model| id.is_some() && model.get("id").and_then(Value::as_str) == id)
    else {
        return Err(ConfigMismatch::of("the model is not in Settings"));
    };
    for (field, what) in MODEL_FIELDS {
        if copy.get(field) != record.get(field) {
            return Err(ConfigMismatch::of(what));
        }
    }
    Ok(record.clone())
}

#[cfg(test)]
mod tests;
