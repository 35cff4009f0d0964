//! The settings the panel edits: the General form, the model registry, the
//! transforms behind each model mutation, and the theme (stored apart, with
//! `LOAD_THEME` / `SAVE_THEME`).
//!
//! The worker owns and re-validates settings; the panel keeps a copy to show
//! and to send with a run. Model records stay JSON objects so fields this
//! version does not know survive an edit. Every mutation is computed against
//! the settings as they are when it runs (mutations are queued, see
//! `app`), and keeps the active and auto-naming references valid: a removed
//! active model falls back to the first one, a removed naming model to Off.

use protocol::constants::{EditorApprovalMode, SendMessageShortcut, is_reasoning_effort_default};
use protocol::endpoint_policy::{EndpointError, InsecureAcknowledgement, InsecureConsent, validate_endpoint_url};
use protocol::js;
use protocol::payloads::{RegistryMutation, SettingsField};
use serde_json::{Map, Value, json};

/// Default history cap (`maxHistoryMessages`).
pub(crate) const DEFAULT_HISTORY_CAP: u32 = 40;
/// Range of the history cap input.
pub(crate) const MIN_HISTORY_CAP: u32 = 8;
pub(crate) const MAX_HISTORY_CAP: u32 = 200;

/// The reasoning-effort choices of the model form: (stored value, label).
pub(crate) const REASONING_EFFORTS: [(&str, &str); 5] = [
    ("default", "Default"),
    ("minimal", "Minimal"),
    ("low", "Low"),
    ("medium", "Medium"),
    ("high", "High"),
];

/// One configured model, as stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelRecord(Map<String, Value>);

fn text(map: &Map<String, Value>, key: &str) -> String {
    match map.get(key) {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    }
}

impl ModelRecord {
    /// Records without a string id cannot be selected or edited and are
    /// ignored (the worker refuses to store them).
    pub(crate) fn from_value(value: &Value) -> Option<ModelRecord> {
        let map = value.as_object()?;
        map.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())?;
        Some(ModelRecord(map.clone()))
    }

    pub(crate) fn id(&self) -> String {
        text(&self.0, "id")
    }

    pub(crate) fn name(&self) -> String {
        text(&self.0, "name")
    }

    pub(crate) fn model_id(&self) -> String {
        text(&self.0, "modelId")
    }

    pub(crate) fn api_base_url(&self) -> String {
        text(&self.0, "apiBaseUrl")
    }

    pub(crate) fn api_key(&self) -> String {
        text(&self.0, "apiKey")
    }

    pub(crate) fn supports_vision(&self) -> bool {
        js::is_truthy(self.0.get("supportsVision"))
    }

    pub(crate) fn insecure_acknowledged(&self) -> bool {
        js::is_truthy(self.0.get("insecureTransportAcknowledged"))
    }

    /// The stored effort, or `None` when it means the provider default.
    pub(crate) fn reasoning_effort(&self) -> Option<String> {
        let value = self.0.get("reasoningEffort");
        (!is_reasoning_effort_default(value)).then(|| value.map(js::js_string).unwrap_or_default())
    }

    /// Name, else model id, else a generic word: what menus show.
    pub(crate) fn label(&self) -> String {
        [self.name(), self.model_id()]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or_else(|| "Model".to_owned())
    }

    /// `host · modelId` for the registry row.
    pub(crate) fn summary(&self) -> String {
        format!("{} · {}", url_host(&self.api_base_url()), self.model_id())
    }

    pub(crate) fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::Object(self.0.clone())
    }

    /// `{...self, ...other}`.
    fn merged(&self, other: &ModelRecord) -> ModelRecord {
        let mut map = self.0.clone();
        for (key, value) in &other.0 {
            map.insert(key.clone(), value.clone());
        }
        ModelRecord(map)
    }
}

/// `new URL(url).host` (host and explicit port) for a registry row, or the
/// text itself when it is no URL: every registry row names its endpoint so.
pub(crate) fn url_host(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str()
                .map(|h| u.port().map_or_else(|| h.to_owned(), |p| format!("{h}:{p}")))
        })
        .unwrap_or_else(|| url.to_owned())
}

/// The panel's copy of the settings.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Settings {
    pub(crate) system_prompt: String,
    pub(crate) models: Vec<ModelRecord>,
    pub(crate) active_model_id: Option<String>,
    pub(crate) max_history_messages: u32,
    pub(crate) auto_name_model_id: Option<String>,
    pub(crate) editor_approval_mode: EditorApprovalMode,
    pub(crate) send_message_shortcut: SendMessageShortcut,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            system_prompt: String::new(),
            models: Vec::new(),
            active_model_id: None,
            max_history_messages: DEFAULT_HISTORY_CAP,
            auto_name_model_id: None,
            editor_approval_mode: EditorApprovalMode::Ask,
            send_message_shortcut: SendMessageShortcut::Enter,
        }
    }
}

fn optional_id(value: Option<&Value>) -> Option<String> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl Settings {
    /// Reads a `LOAD_SETTINGS` / `SAVE_SETTINGS` answer leniently: anything
    /// malformed takes its default instead of failing the whole panel.
    pub(crate) fn from_value(value: &Value) -> Settings {
        let Some(map) = value.as_object() else {
            return Settings::default();
        };
        let models = map
            .get("models")
            .and_then(Value::as_array)
            .map(|models| models.iter().filter_map(ModelRecord::from_value).collect())
            .unwrap_or_default();
        let cap = map
            .get("maxHistoryMessages")
            .and_then(js::as_number)
            .filter(|n| n.is_finite() && *n > 0.0)
            .map_or(DEFAULT_HISTORY_CAP, clamp_history_cap);
        Settings {
            system_prompt: text(map, "systemPrompt"),
            models,
            active_model_id: optional_id(map.get("activeModelId")),
            max_history_messages: cap,
            auto_name_model_id: optional_id(map.get("autoNameModelId")),
            editor_approval_mode: EditorApprovalMode::normalize(map.get("editorApprovalMode")),
            send_message_shortcut: SendMessageShortcut::normalize(map.get("sendMessageShortcut")),
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        json!({
            "systemPrompt": self.system_prompt,
            "models": self.models.iter().map(ModelRecord::to_value).collect::<Vec<_>>(),
            "activeModelId": self.active_model_id,
            "maxHistoryMessages": self.max_history_messages,
            "autoNameModelId": self.auto_name_model_id,
            "editorApprovalMode": self.editor_approval_mode.as_str(),
            "sendMessageShortcut": self.send_message_shortcut.as_str(),
        })
    }

    pub(crate) fn to_map(&self) -> Map<String, Value> {
        match self.to_value() {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    pub(crate) fn model(&self, id: &str) -> Option<&ModelRecord> {
        self.models.iter().find(|m| m.id() == id)
    }

    /// The model a run uses: the selected one, else the first.
    pub(crate) fn active_model(&self) -> Option<&ModelRecord> {
        self.active_model_id
            .as_deref()
            .and_then(|id| self.model(id))
            .or_else(|| self.models.first())
    }

    /// The naming model, if it still exists.
    pub(crate) fn auto_name_model(&self) -> Option<&ModelRecord> {
        self.auto_name_model_id.as_deref().and_then(|id| self.model(id))
    }

    /// Points dangling references at something valid.
    fn repair_references(&mut self) {
        if self
            .active_model_id
            .as_deref()
            .is_none_or(|id| self.model(id).is_none())
        {
            self.active_model_id = self.models.first().map(ModelRecord::id);
        }
        if self
            .auto_name_model_id
            .as_deref()
            .is_none_or(|id| self.model(id).is_none())
        {
            self.auto_name_model_id = None;
        }
    }
}

/// Only `'light'` switches the theme; everything else is the dark default.
pub(crate) fn theme_name(answer: Option<&str>) -> &'static str {
    match answer {
        Some("light") => "light",
        _ => "dark",
    }
}

/// `Math.max(8, Math.min(200, Number(input) || 40))`, then whole messages.
pub(crate) fn parse_history_cap(input: &str) -> u32 {
    let trimmed = js::js_trim(input);
    let number = if trimmed.is_empty() {
        0.0
    } else {
        trimmed.parse::<f64>().unwrap_or(f64::NAN)
    };
    if !number.is_finite() || number == 0.0 {
        return DEFAULT_HISTORY_CAP;
    }
    clamp_history_cap(number)
}

fn clamp_history_cap(number: f64) -> u32 {
    let clamped = number
        .clamp(f64::from(MIN_HISTORY_CAP), f64::from(MAX_HISTORY_CAP))
        .floor();
    // In range 8..=200 after the clamp, so the conversion is exact.
    clamped as u32
}

/// What the General tab's Save button read from the form.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GeneralForm {
    pub(crate) system_prompt: String,
    pub(crate) history_cap: String,
    pub(crate) auto_name_model_id: String,
    pub(crate) send_message_shortcut: String,
}

/// The fields a General save copies (the worker ignores the rest).
pub(crate) const GENERAL_FIELDS: [SettingsField; 4] = [
    SettingsField::SystemPrompt,
    SettingsField::MaxHistoryMessages,
    SettingsField::AutoNameModelId,
    SettingsField::SendMessageShortcut,
];

/// The settings a General save proposes.
pub(crate) fn apply_general(current: &Settings, form: &GeneralForm) -> Settings {
    let auto_name = Some(form.auto_name_model_id.clone()).filter(|id| !id.is_empty() && current.model(id).is_some());
    Settings {
        system_prompt: js::js_trim(&form.system_prompt).to_owned(),
        max_history_messages: parse_history_cap(&form.history_cap),
        auto_name_model_id: auto_name,
        send_message_shortcut: SendMessageShortcut::normalize(Some(&Value::String(form.send_message_shortcut.clone()))),
        ..current.clone()
    }
}

/// What the model form holds when Save is pressed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ModelForm {
    /// Empty when adding.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) api_base_url: String,
    pub(crate) insecure_confirmed: bool,
    pub(crate) api_key: String,
    pub(crate) model_id: String,
    pub(crate) supports_vision: bool,
    pub(crate) reasoning_effort: String,
}

impl ModelForm {
    /// The form filled from a record (editing) or empty (adding).
    pub(crate) fn for_record(record: Option<&ModelRecord>) -> ModelForm {
        let Some(record) = record else {
            return ModelForm {
                reasoning_effort: "default".to_owned(),
                ..ModelForm::default()
            };
        };
        let effort = record.reasoning_effort().unwrap_or_else(|| "default".to_owned());
        ModelForm {
            id: record.id(),
            name: record.name(),
            api_base_url: record.api_base_url(),
            insecure_confirmed: record.insecure_acknowledged(),
            api_key: record.api_key(),
            model_id: record.model_id(),
            supports_vision: record.supports_vision(),
            reasoning_effort: effort,
        }
    }
}

/// Why the model form was not saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelFormError {
    /// Name, URL, key or model id is empty.
    MissingFields,
    /// The URL failed the endpoint policy.
    Endpoint(EndpointError),
}

impl std::fmt::Display for ModelFormError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelFormError::MissingFields => f.write_str("Fill in the name, API base URL, API key and model ID."),
            ModelFormError::Endpoint(error) => f.write_str(&error.message),
        }
    }
}

/// Checks the form and builds the record to upsert. `new_id` names a new
/// model; an edited one keeps its id and any fields the form does not show.
pub(crate) fn model_record_from_form(
    settings: &Settings,
    form: &ModelForm,
    new_id: &str,
) -> Result<ModelRecord, ModelFormError> {
    let name = js::js_trim(&form.name);
    let url = js::js_trim(&form.api_base_url);
    let key = js::js_trim(&form.api_key);
    let model_id = js::js_trim(&form.model_id);
    if name.is_empty() || url.is_empty() || key.is_empty() || model_id.is_empty() {
        return Err(ModelFormError::MissingFields);
    }
    let endpoint = validate_endpoint_url(
        url,
        InsecureConsent {
            confirmed: form.insecure_confirmed,
            confirmed_origin: None,
        },
    )
    .map_err(ModelFormError::Endpoint)?;
    let effort = REASONING_EFFORTS
        .iter()
        .map(|(value, _)| *value)
        .find(|value| *value == form.reasoning_effort)
        .unwrap_or("default");
    let existing = (!form.id.is_empty()).then(|| settings.model(&form.id)).flatten();
    let mut map = existing.map(|m| m.as_map().clone()).unwrap_or_default();
    let id = if form.id.is_empty() { new_id } else { form.id.as_str() };
    map.insert("id".to_owned(), json!(id));
    map.insert("name".to_owned(), json!(name));
    map.insert("apiBaseUrl".to_owned(), json!(endpoint.url));
    map.insert("apiKey".to_owned(), json!(key));
    map.insert("modelId".to_owned(), json!(model_id));
    map.insert("supportsVision".to_owned(), json!(form.supports_vision));
    map.insert("reasoningEffort".to_owned(), json!(effort));
    InsecureAcknowledgement::for_endpoint(Some(&endpoint), form.insecure_confirmed).apply_to(&mut map);
    Ok(ModelRecord(map))
}

/// A change to the model registry, before it is applied.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ModelChange {
    Upsert(ModelRecord),
    Remove(String),
    Select(String),
}

/// Why a model change cannot apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModelChangeError {
    UnknownModel,
}

impl std::fmt::Display for ModelChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelChangeError::UnknownModel => f.write_str("That model no longer exists."),
        }
    }
}

impl ModelChange {
    /// The settings after the change and the `modelMutation` that tells the
    /// worker what changed.
    pub(crate) fn apply(&self, current: &Settings) -> Result<(Settings, RegistryMutation), ModelChangeError> {
        let mut next = current.clone();
        let mutation = match self {
            ModelChange::Upsert(record) => {
                let id = record.id();
                match next.models.iter_mut().find(|m| m.id() == id) {
                    Some(existing) => *existing = existing.merged(record),
                    None => next.models.push(record.clone()),
                }
                next.repair_references();
                RegistryMutation::Upsert {
                    record: record.as_map().clone(),
                }
            }
            ModelChange::Remove(id) => {
                next.models.retain(|m| m.id() != *id);
                next.repair_references();
                RegistryMutation::Remove { id: id.clone() }
            }
            ModelChange::Select(id) => {
                if current.model(id).is_none() {
                    return Err(ModelChangeError::UnknownModel);
                }
                next.active_model_id = Some(id.clone());
                RegistryMutation::Select { id: id.clone() }
            }
        };
        Ok((next, mutation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str) -> ModelRecord {
        ModelRecord::from_value(&json!({"id": id, "name": format!("Model {id}"), "modelId": id})).expect("model")
    }

    fn settings(ids: &[&str], active: Option<&str>, auto: Option<&str>) -> Settings {
        Settings {
            models: ids.iter().map(|id| model(id)).collect(),
            active_model_id: active.map(str::to_owned),
            auto_name_model_id: auto.map(str::to_owned),
            ..Settings::default()
        }
    }

    #[test]
    fn loading_is_lenient_and_normalises() {
        let loaded = Settings::from_value(&json!({
            "systemPrompt": "Be brief", "models": [{"id": "a", "name": "A"}, {"name": "no id"}, 5],
            "activeModelId": "a", "maxHistoryMessages": "many", "autoNameModelId": null,
            "editorApprovalMode": "AUTO", "sendMessageShortcut": "ctrl-enter", "future": true
        }));
        assert_eq!(loaded.models.len(), 1);
        assert_eq!(loaded.max_history_messages, 40);
        assert_eq!(loaded.editor_approval_mode, EditorApprovalMode::Ask);
        assert_eq!(loaded.send_message_shortcut, SendMessageShortcut::CtrlEnter);
        assert_eq!(Settings::from_value(&json!(null)), Settings::default());
        assert_eq!(
            Settings::from_value(&json!({"maxHistoryMessages": 500})).max_history_messages,
            200
        );
        let round = Settings::from_value(&loaded.to_value());
        assert_eq!(round, loaded);
    }

    #[test]
    fn the_active_model_falls_back_to_the_first() {
        assert_eq!(
            settings(&["a", "b"], Some("b"), None)
                .active_model()
                .map(ModelRecord::id)
                .as_deref(),
            Some("b")
        );
        assert_eq!(
            settings(&["a", "b"], Some("x"), None)
                .active_model()
                .map(ModelRecord::id)
                .as_deref(),
            Some("a")
        );
        assert!(settings(&[], None, None).active_model().is_none());
    }

    #[test]
    fn history_cap_follows_javascript_number_rules_then_clamps() {
        for (input, expected) in [
            ("", 40),
            ("abc", 40),
            ("0", 40),
            ("5", 8),
            ("8", 8),
            ("120", 120),
            (" 64 ", 64),
            ("120.9", 120),
            ("1e3", 200),
            ("-3", 8),
            ("Infinity", 40),
        ] {
            assert_eq!(parse_history_cap(input), expected, "{input:?}");
        }
    }

    #[test]
    fn general_save_copies_form_values_and_drops_unknown_naming_models() {
        let current = settings(&["a"], Some("a"), None);
        let form = GeneralForm {
            system_prompt: "  Answer in haiku.  ".to_owned(),
            history_cap: "300".to_owned(),
            auto_name_model_id: "a".to_owned(),
            send_message_shortcut: "shift-enter".to_owned(),
        };
        let next = apply_general(&current, &form);
        assert_eq!(next.system_prompt, "Answer in haiku.");
        assert_eq!(next.max_history_messages, 200);
        assert_eq!(next.auto_name_model_id.as_deref(), Some("a"));
        assert_eq!(next.send_message_shortcut, SendMessageShortcut::ShiftEnter);
        assert_eq!(next.models, current.models);
        let gone = apply_general(
            &current,
            &GeneralForm {
                auto_name_model_id: "zzz".to_owned(),
                ..form
            },
        );
        assert_eq!(gone.auto_name_model_id, None);
    }

    fn form(url: &str, insecure: bool) -> ModelForm {
        ModelForm {
            id: String::new(),
            name: " Fixture ".to_owned(),
            api_base_url: url.to_owned(),
            insecure_confirmed: insecure,
            api_key: "sk-test".to_owned(),
            model_id: "fixture-model".to_owned(),
            supports_vision: true,
            reasoning_effort: "high".to_owned(),
        }
    }

    #[test]
    fn model_form_requires_every_text_field() {
        let current = Settings::default();
        for blank in 0..4 {
            let mut f = form("https://model.fixture/v1", false);
            match blank {
                0 => f.name = "  ".to_owned(),
                1 => f.api_base_url = String::new(),
                2 => f.api_key = String::new(),
                _ => f.model_id = String::new(),
            }
            assert_eq!(
                model_record_from_form(&current, &f, "new"),
                Err(ModelFormError::MissingFields)
            );
        }
    }

    #[test]
    fn model_form_applies_the_endpoint_policy_and_binds_cleartext_consent_to_the_origin() {
        let current = Settings::default();
        let https = model_record_from_form(&current, &form("https://model.fixture/v1", false), "m1").expect("https");
        assert_eq!(https.api_base_url(), "https://model.fixture/v1");
        assert_eq!(https.name(), "Fixture");
        assert_eq!(https.id(), "m1");
        assert_eq!(https.as_map()["insecureTransportAcknowledged"], json!(false));
        assert_eq!(https.as_map()["insecureTransportAcknowledgedOrigin"], json!(null));
        assert_eq!(https.reasoning_effort().as_deref(), Some("high"));

        let refused = model_record_from_form(&current, &form("http://10.0.0.2:8080/v1", false), "m2");
        assert!(
            matches!(refused, Err(ModelFormError::Endpoint(ref e)) if e.code.as_str() == "INSECURE_CONFIRMATION_REQUIRED")
        );
        let http = model_record_from_form(&current, &form("http://10.0.0.2:8080/v1", true), "m2").expect("http");
        assert_eq!(
            http.as_map()["insecureTransportAcknowledgedOrigin"],
            json!("http://10.0.0.2:8080")
        );
        let loopback = model_record_from_form(&current, &form("http://localhost:11434/v1", true), "m3").expect("lo");
        assert_eq!(loopback.as_map()["insecureTransportAcknowledged"], json!(false));
        let bad = model_record_from_form(&current, &form("ftp://x.example", false), "m4");
        assert!(matches!(bad, Err(ModelFormError::Endpoint(ref e)) if e.code.as_str() == "UNSUPPORTED_SCHEME"));
        let creds = model_record_from_form(&current, &form("https://u:p@x.example", false), "m5");
        assert!(matches!(creds, Err(ModelFormError::Endpoint(ref e)) if e.code.as_str() == "EMBEDDED_CREDENTIALS"));
    }

    #[test]
    fn editing_keeps_the_id_and_unknown_fields_and_unknown_efforts_become_default() {
        let stored = ModelRecord::from_value(&json!({"id": "m", "name": "Old", "custom": 7})).expect("model");
        let current = Settings {
            models: vec![stored.clone()],
            ..Settings::default()
        };
        let mut edit = ModelForm::for_record(Some(&stored));
        assert_eq!(edit.reasoning_effort, "default");
        edit.api_base_url = "https://model.fixture".to_owned();
        edit.api_key = "k".to_owned();
        edit.model_id = "x".to_owned();
        edit.reasoning_effort = "extreme".to_owned();
        let record = model_record_from_form(&current, &edit, "ignored").expect("record");
        assert_eq!(record.id(), "m");
        assert_eq!(record.as_map()["custom"], json!(7));
        assert_eq!(record.api_base_url(), "https://model.fixture/");
        assert_eq!(record.reasoning_effort(), None);
        assert_eq!(ModelForm::for_record(None).reasoning_effort, "default");
    }

    #[test]
    fn removing_repairs_active_and_naming_references() {
        let current = settings(&["a", "b"], Some("a"), Some("a"));
        let (next, mutation) = ModelChange::Remove("a".to_owned()).apply(&current).expect("remove");
        assert_eq!(next.models.iter().map(ModelRecord::id).collect::<Vec<_>>(), ["b"]);
        assert_eq!(next.active_model_id.as_deref(), Some("b"));
        assert_eq!(next.auto_name_model_id, None);
        assert_eq!(mutation, RegistryMutation::Remove { id: "a".to_owned() });
        let (empty, _) = ModelChange::Remove("b".to_owned()).apply(&next).expect("remove");
        assert_eq!(empty.active_model_id, None);
    }

    #[test]
    fn upsert_merges_or_appends_and_select_refuses_unknown_models() {
        let current = settings(&["a"], Some("missing"), Some("missing"));
        let updated = ModelRecord::from_value(&json!({"id": "a", "name": "Renamed"})).expect("model");
        let (next, mutation) = ModelChange::Upsert(updated).apply(&current).expect("upsert");
        assert_eq!(next.models[0].name(), "Renamed");
        assert_eq!(next.models[0].model_id(), "a", "merged, not replaced");
        assert_eq!(next.active_model_id.as_deref(), Some("a"));
        assert_eq!(next.auto_name_model_id, None);
        assert!(matches!(mutation, RegistryMutation::Upsert { .. }));
        let (next, _) = ModelChange::Upsert(model("b")).apply(&next).expect("append");
        assert_eq!(next.models.len(), 2);
        let (selected, mutation) = ModelChange::Select("b".to_owned()).apply(&next).expect("select");
        assert_eq!(selected.active_model_id.as_deref(), Some("b"));
        assert_eq!(
            serde_json::to_value(&mutation).ok(),
            Some(json!({"type": "select", "id": "b"}))
        );
        assert_eq!(
            ModelChange::Select("zzz".to_owned()).apply(&next).err(),
            Some(ModelChangeError::UnknownModel)
        );
    }

    #[test]
    fn labels_and_summaries() {
        let record = ModelRecord::from_value(
            &json!({"id": "m", "modelId": "gpt", "apiBaseUrl": "https://api.example.com:8443/v1"}),
        )
        .expect("m");
        assert_eq!(record.label(), "gpt");
        assert_eq!(record.summary(), "api.example.com:8443 · gpt");
        let bare = ModelRecord::from_value(&json!({"id": "m"})).expect("m");
        assert_eq!(bare.label(), "Model");
    }

    #[test]
    fn only_light_is_light() {
        assert_eq!(theme_name(Some("light")), "light");
        assert_eq!(theme_name(Some("Light")), "dark");
        assert_eq!(theme_name(None), "dark");
    }
}
