//! The user's settings (`typstAgent.settings`): defaults, normalisation on
//! load, and validated saves (`LOAD_SETTINGS`, `SAVE_SETTINGS`).
//!
//! The worker owns the stored record. A panel saves either a whole settings
//! object, or only named `fields` and/or one `modelMutation`; the latter are
//! applied to the freshly stored record inside the storage mutation queue,
//! so two panels (or two forms of one panel) saving at once never undo each
//! other's changes. Everything that decides where traffic goes fails closed:
//! each model's API base URL passes the endpoint policy, a cleartext
//! acknowledgement counts only for the exact origin it was given for (a
//! legacy `true` without an origin counts for nothing), and an unknown
//! approval mode means "ask".

use crate::platform::Storage;
use crate::storage::{MutationQueue, StorageAction, StorageError, StorageErrorCode};
use protocol::constants::{EditorApprovalMode, SendMessageShortcut, storage_keys};
use protocol::endpoint_policy::{InsecureAcknowledgement, InsecureConsent, validate_endpoint_value};
use protocol::payloads::{RegistryMutation, SaveSettings};
use protocol::registry_records::is_record_id;
use serde_json::{Map, Value, json};

/// History cap used when the stored one is missing or not a number.
pub(crate) const DEFAULT_MAX_HISTORY_MESSAGES: u32 = 40;

/// The settings of a fresh install.
fn defaults() -> Map<String, Value> {
    let value = json!({
        "systemPrompt": "",
        "models": [],
        "activeModelId": null,
        "maxHistoryMessages": DEFAULT_MAX_HISTORY_MESSAGES,
        "autoNameModelId": null,
        "editorApprovalMode": EditorApprovalMode::default().as_str(),
        "sendMessageShortcut": SendMessageShortcut::default().as_str(),
    });
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// A model record with its cleartext acknowledgement recomputed from its
/// URL and stored origin. Something that is not a record keeps only the
/// (false) acknowledgement, so validation then refuses it for its id.
fn normalize_model(model: &Value) -> Value {
    let mut record = model.as_object().cloned().unwrap_or_default();
    InsecureAcknowledgement::normalize(&record, "apiBaseUrl").apply_to(&mut record);
    Value::Object(record)
}

fn model_id(model: &Value) -> Option<&str> {
    model.get("id").and_then(Value::as_str)
}

/// Settings as stored, merged over the defaults and normalised: models are an
/// array with recomputed acknowledgements, the active model defaults to the
/// first one, a missing history cap becomes 40, and mode and shortcut fail
/// closed.
fn normalize_loaded(raw: Option<&Value>) -> Map<String, Value> {
    let mut settings = defaults();
    if let Some(stored) = raw.and_then(Value::as_object) {
        settings.extend(stored.clone());
    }
    let models: Vec<Value> = settings
        .get("models")
        .and_then(Value::as_array)
        .map(|models| models.iter().map(normalize_model).collect())
        .unwrap_or_default();
    if !protocol::js::is_truthy(settings.get("activeModelId"))
        && let Some(first) = models.first()
    {
        settings.insert("activeModelId".into(), model_id(first).map_or(Value::Null, Value::from));
    }
    settings.insert("models".into(), Value::Array(models));
    normalize_scalars(&mut settings);
    settings
}

/// The fields every stored record gets, whatever the panel sent.
fn normalize_scalars(settings: &mut Map<String, Value>) {
    if !settings.get("maxHistoryMessages").is_some_and(Value::is_number) {
        settings.insert("maxHistoryMessages".into(), Value::from(DEFAULT_MAX_HISTORY_MESSAGES));
    }
    if !settings.get("systemPrompt").is_some_and(Value::is_string) {
        settings.insert("systemPrompt".into(), Value::from(""));
    }
    let mode = EditorApprovalMode::normalize(settings.get("editorApprovalMode"));
    settings.insert("editorApprovalMode".into(), Value::from(mode.as_str()));
    let shortcut = SendMessageShortcut::normalize(settings.get("sendMessageShortcut"));
    settings.insert("sendMessageShortcut".into(), Value::from(shortcut.as_str()));
}

/// `LOAD_SETTINGS`: the normalised stored settings.
pub(crate) async fn load(storage: &impl Storage) -> Result<Value, StorageError> {
    let stored = storage
        .get(storage_keys::SETTINGS)
        .await
        .map_err(|error| StorageError::read(&error))?;
    Ok(Value::Object(normalize_loaded(stored.as_ref())))
}

/// The model a run uses when its request names none: the active model, or
/// the first one if the active id is missing or dangling; `None` without
/// models.
pub(crate) fn active_model(settings: &Value) -> Option<Value> {
    let models = settings.get("models")?.as_array()?;
    let active = settings.get("activeModelId").and_then(Value::as_str);
    models
        .iter()
        .find(|model| active.is_some() && model_id(model) == active)
        .or_else(|| models.first())
        .cloned()
}

fn apply_model_mutation(
    mut settings: Map<String, Value>,
    mutation: &RegistryMutation,
) -> Result<Map<String, Value>, StorageError> {
    let mut models: Vec<Value> = settings
        .get("models")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    match mutation {
        RegistryMutation::Upsert { record } => {
            let id = record.get("id");
            match models.iter_mut().find(|model| model.get("id") == id) {
                Some(Value::Object(existing)) => existing.extend(record.clone()),
                Some(other) => *other = Value::Object(record.clone()),
                None => models.push(Value::Object(record.clone())),
            }
        }
        RegistryMutation::Remove { id } => {
            if let Some(position) = models.iter().position(|model| model_id(model) == Some(id)) {
                models.remove(position);
            }
        }
        RegistryMutation::Replace { records } => models = records.clone(),
        RegistryMutation::Select { id } => {
            if !models.iter().any(|model| model_id(model) == Some(id)) {
                return Err(StorageError::new(
                    StorageErrorCode::UnknownModel,
                    "The selected model no longer exists.",
                ));
            }
            settings.insert("models".into(), Value::Array(models));
            settings.insert("activeModelId".into(), Value::from(id.as_str()));
            return Ok(settings);
        }
        RegistryMutation::Toggle { .. } => {
            return Err(StorageError::new(
                StorageErrorCode::InvalidModelMutation,
                "Models cannot be switched on or off; select, add, edit or remove one instead.",
            ));
        }
    }
    let has = |key: &str| {
        let id = settings.get(key).and_then(Value::as_str);
        id.is_some() && models.iter().any(|model| model_id(model) == id)
    };
    let (active_known, auto_name_known) = (has("activeModelId"), has("autoNameModelId"));
    if !active_known {
        let first = models.first().and_then(model_id).map_or(Value::Null, Value::from);
        settings.insert("activeModelId".into(), first);
    }
    if !auto_name_known {
        settings.insert("autoNameModelId".into(), Value::Null);
    }
    settings.insert("models".into(), Value::Array(models));
    Ok(settings)
}

/// Checks a candidate record before it is stored and repairs what can be
/// repaired: dangling active and auto-name ids.
pub(crate) fn validate(candidate: &Map<String, Value>) -> Result<Map<String, Value>, StorageError> {
    let mut safe = defaults();
    safe.extend(candidate.clone());
    normalize_scalars(&mut safe);
    let Some(models) = safe.get("models").and_then(Value::as_array) else {
        return Err(StorageError::new(
            StorageErrorCode::InvalidSettings,
            "The models setting must be a list.",
        ));
    };
    let models: Vec<Value> = models.iter().map(normalize_model).collect();
    let mut ids: Vec<&str> = Vec::with_capacity(models.len());
    for model in &models {
        let Some(id) = model_id(model).filter(|id| is_record_id(id)) else {
            return Err(StorageError::new(
                StorageErrorCode::InvalidModelId,
                "Every model needs an id of 1 to 128 letters, digits, '.', '_', ':' or '-'.",
            ));
        };
        if ids.contains(&id) {
            return Err(StorageError::new(
                StorageErrorCode::DuplicateModelId,
                format!("Two models share the id {id}; model ids must be unique."),
            ));
        }
        ids.push(id);
        let origin = model.get("insecureTransportAcknowledgedOrigin").and_then(Value::as_str);
        validate_endpoint_value(
            model.get("apiBaseUrl"),
            InsecureConsent {
                confirmed: false,
                confirmed_origin: origin,
            },
        )
        .map_err(StorageError::endpoint)?;
    }
    let known = |key: &str| {
        safe.get(key)
            .and_then(Value::as_str)
            .filter(|id| ids.contains(id))
            .is_some()
    };
    let active_known = known("activeModelId");
    let auto_name_known = known("autoNameModelId");
    let first = ids.first().map_or(Value::Null, |id| Value::from(*id));
    if !active_known {
        safe.insert("activeModelId".into(), first);
    }
    if !auto_name_known {
        safe.insert("autoNameModelId".into(), Value::Null);
    }
    safe.insert("models".into(), Value::Array(models));
    Ok(safe)
}

/// `SAVE_SETTINGS`: `{ok: true, settings}` with the record as stored.
///
/// With `fields` and/or `modelMutation` only those change, on top of the
/// current stored record; without either the sent object replaces it.
pub(crate) async fn save(
    storage: &impl Storage,
    queue: &MutationQueue,
    request: &SaveSettings,
) -> Result<Value, StorageError> {
    let _guard = queue.lock().await;
    let candidate = if request.fields.is_some() || request.model_mutation.is_some() {
        let stored = storage
            .get(storage_keys::SETTINGS)
            .await
            .map_err(|error| StorageError::read(&error))?;
        let mut current = normalize_loaded(stored.as_ref());
        for field in request.fields.iter().flatten() {
            if let Some(value) = request.settings.get(field.as_str()) {
                current.insert(field.as_str().to_owned(), value.clone());
            }
        }
        match &request.model_mutation {
            Some(mutation) => apply_model_mutation(current, mutation)?,
            None => current,
        }
    } else {
        request.settings.clone()
    };
    let safe = Value::Object(validate(&candidate)?);
    storage
        .set(storage_keys::SETTINGS, safe.clone())
        .await
        .map_err(|error| StorageError::write(&error).during(StorageAction::SaveSettings))?;
    Ok(json!({ "ok": true, "settings": safe }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::HookedStorage;
    use crate::fakes::{MemoryStorage, block_on};
    use futures::future::join;
    use protocol::payloads::SettingsField;

    fn model(id: &str, url: &str) -> Value {
        json!({"id": id, "name": id, "apiBaseUrl": url, "apiKey": "k", "modelId": "m"})
    }

    fn request(
        settings: Value,
        fields: Option<Vec<SettingsField>>,
        mutation: Option<RegistryMutation>,
    ) -> SaveSettings {
        SaveSettings {
            settings: settings.as_object().cloned().unwrap_or_default(),
            fields,
            model_mutation: mutation,
        }
    }

    fn save_now(storage: &MemoryStorage, request: SaveSettings) -> Result<Value, StorageError> {
        block_on(save(storage, &MutationQueue::default(), &request))
    }

    fn loaded(storage: &MemoryStorage) -> Value {
        block_on(load(storage)).expect("settings load")
    }

    #[test]
    fn a_fresh_install_loads_the_defaults() {
        let storage = MemoryStorage::default();
        assert_eq!(
            loaded(&storage),
            json!({"systemPrompt": "", "models": [], "activeModelId": null, "maxHistoryMessages": 40,
                "autoNameModelId": null, "editorApprovalMode": "ask", "sendMessageShortcut": "enter"})
        );
    }

    #[test]
    fn loading_normalises_stored_values() {
        let storage = MemoryStorage::default();
        storage.put(
            storage_keys::SETTINGS,
            json!({"models": [model("a", "https://a.example/v1"), model("b", "https://b.example/v1")],
                "maxHistoryMessages": "many", "editorApprovalMode": "unexpected",
                "sendMessageShortcut": "alt-enter", "custom": 1}),
        );
        let settings = loaded(&storage);
        assert_eq!(settings["activeModelId"], json!("a"));
        assert_eq!(settings["maxHistoryMessages"], json!(40));
        assert_eq!(settings["editorApprovalMode"], json!("ask"));
        assert_eq!(settings["sendMessageShortcut"], json!("enter"));
        assert_eq!(settings["custom"], json!(1));
        assert_eq!(settings["models"][1]["insecureTransportAcknowledged"], json!(false));
        storage.put(storage_keys::SETTINGS, json!({"models": "nope"}));
        assert_eq!(loaded(&storage)["models"], json!([]));
        storage.put(storage_keys::SETTINGS, json!(["not", "settings"]));
        assert_eq!(loaded(&storage)["models"], json!([]));
    }

    #[test]
    fn cleartext_acknowledgements_count_only_for_their_exact_origin() {
        let storage = MemoryStorage::default();
        let mut legacy = model("legacy", "http://192.168.1.5/v1");
        legacy["insecureTransportAcknowledged"] = json!(true);
        let mut exact = model("exact", "http://192.168.1.6/v1");
        exact["insecureTransportAcknowledged"] = json!(true);
        exact["insecureTransportAcknowledgedOrigin"] = json!("http://192.168.1.6");
        storage.put(
            storage_keys::SETTINGS,
            json!({"models": [legacy.clone(), exact.clone()]}),
        );
        let models = loaded(&storage)["models"].clone();
        assert_eq!(
            (
                models[0]["insecureTransportAcknowledged"].clone(),
                models[0]["insecureTransportAcknowledgedOrigin"].clone()
            ),
            (json!(false), Value::Null)
        );
        assert_eq!(
            models[1]["insecureTransportAcknowledgedOrigin"],
            json!("http://192.168.1.6")
        );
        // Saving the legacy record fails closed and names the origin to confirm.
        let refused = save_now(&storage, request(json!({"models": [legacy]}), None, None)).expect_err("refused");
        assert_eq!(refused.code().as_str(), "INSECURE_CONFIRMATION_REQUIRED");
        assert_eq!(refused.details, Some(json!({"origin": "http://192.168.1.5"})));
        assert!(save_now(&storage, request(json!({"models": [exact]}), None, None)).is_ok());
        // Loopback HTTP needs no acknowledgement.
        let local = model("local", "http://localhost:11434/v1");
        assert!(save_now(&storage, request(json!({"models": [local]}), None, None)).is_ok());
    }

    #[test]
    fn approval_mode_and_shortcut_persist_and_fail_closed() {
        let storage = MemoryStorage::default();
        assert!(save_now(&storage, request(json!({"editorApprovalMode": "auto"}), None, None)).is_ok());
        assert_eq!(loaded(&storage)["editorApprovalMode"], json!("auto"));
        assert!(save_now(&storage, request(json!({"editorApprovalMode": "AUTO"}), None, None)).is_ok());
        assert_eq!(
            storage
                .value(storage_keys::SETTINGS)
                .map(|s| s["editorApprovalMode"].clone()),
            Some(json!("ask"))
        );
        let fields = Some(vec![SettingsField::SendMessageShortcut]);
        assert!(
            save_now(
                &storage,
                request(json!({"sendMessageShortcut": "ctrl-enter"}), fields.clone(), None)
            )
            .is_ok()
        );
        assert_eq!(loaded(&storage)["sendMessageShortcut"], json!("ctrl-enter"));
        assert!(
            save_now(
                &storage,
                request(json!({"sendMessageShortcut": "unexpected"}), fields, None)
            )
            .is_ok()
        );
        assert_eq!(
            storage
                .value(storage_keys::SETTINGS)
                .map(|s| s["sendMessageShortcut"].clone()),
            Some(json!("enter"))
        );
    }

    #[test]
    fn field_saves_copy_only_the_listed_fields() {
        let storage = MemoryStorage::default();
        let a = model("a", "https://a.example/v1");
        assert!(
            save_now(
                &storage,
                request(json!({"models": [a], "systemPrompt": "old"}), None, None)
            )
            .is_ok()
        );
        let saved = save_now(
            &storage,
            request(
                json!({"systemPrompt": "new", "models": [], "maxHistoryMessages": 12}),
                Some(vec![SettingsField::SystemPrompt, SettingsField::ActiveModelId]),
                None,
            ),
        )
        .expect("saved");
        assert_eq!(saved["ok"], json!(true));
        assert_eq!(saved["settings"]["systemPrompt"], json!("new"));
        assert_eq!(saved["settings"]["maxHistoryMessages"], json!(40));
        assert_eq!(saved["settings"]["models"].as_array().map(Vec::len), Some(1));
        assert_eq!(saved["settings"]["activeModelId"], json!("a"));
    }

    #[test]
    fn model_mutations_upsert_remove_replace_and_select() {
        let storage = MemoryStorage::default();
        let upsert = |record: Value| RegistryMutation::Upsert {
            record: record.as_object().cloned().unwrap_or_default(),
        };
        let mutate = |mutation| save_now(&storage, request(json!({}), None, Some(mutation)));
        assert!(mutate(upsert(model("a", "https://a.example/v1"))).is_ok());
        assert!(mutate(upsert(model("b", "https://b.example/v1"))).is_ok());
        assert!(mutate(upsert(json!({"id": "a", "name": "Renamed"}))).is_ok());
        let settings = loaded(&storage);
        assert_eq!(settings["models"][0]["name"], json!("Renamed"));
        assert_eq!(settings["models"][0]["apiKey"], json!("k"));
        assert_eq!(settings["activeModelId"], json!("a"));

        assert!(mutate(RegistryMutation::Select { id: "b".into() }).is_ok());
        assert_eq!(loaded(&storage)["activeModelId"], json!("b"));
        assert_eq!(
            mutate(RegistryMutation::Select { id: "zzz".into() }).map_err(|e| e.code().as_str()),
            Err("UNKNOWN_MODEL")
        );
        let fields = Some(vec![SettingsField::AutoNameModelId]);
        assert!(save_now(&storage, request(json!({"autoNameModelId": "b"}), fields, None)).is_ok());
        assert!(mutate(RegistryMutation::Remove { id: "b".into() }).is_ok());
        let settings = loaded(&storage);
        assert_eq!(settings["activeModelId"], json!("a"));
        assert_eq!(settings["autoNameModelId"], Value::Null);

        assert!(
            mutate(RegistryMutation::Replace {
                records: vec![model("c", "https://c.example/v1")]
            })
            .is_ok()
        );
        assert_eq!(loaded(&storage)["activeModelId"], json!("c"));
        assert_eq!(
            mutate(RegistryMutation::Toggle { id: "c".into() }).map_err(|e| e.code().as_str()),
            Err("INVALID_MODEL_MUTATION")
        );
        assert!(mutate(RegistryMutation::Remove { id: "c".into() }).is_ok());
        assert_eq!(loaded(&storage)["activeModelId"], Value::Null);
    }

    #[test]
    fn invalid_models_are_refused_and_nothing_is_written() {
        let storage = MemoryStorage::default();
        for (settings, code) in [
            (json!({"models": {}}), "INVALID_SETTINGS"),
            (
                json!({"models": [{"apiBaseUrl": "https://a.example"}]}),
                "INVALID_MODEL_ID",
            ),
            (
                json!({"models": [model("bad id", "https://a.example")]}),
                "INVALID_MODEL_ID",
            ),
            (
                json!({"models": [model(&"x".repeat(129), "https://a.example")]}),
                "INVALID_MODEL_ID",
            ),
            (json!({"models": [7]}), "INVALID_MODEL_ID"),
            (
                json!({"models": [model("a", "https://a.example"), model("a", "https://b.example")]}),
                "DUPLICATE_MODEL_ID",
            ),
            (json!({"models": [model("a", "ftp://a.example")]}), "UNSUPPORTED_SCHEME"),
            (
                json!({"models": [model("a", "https://user:pw@a.example")]}),
                "EMBEDDED_CREDENTIALS",
            ),
            (json!({"models": [model("a", "not a url")]}), "INVALID_URL"),
        ] {
            let result = save_now(&storage, request(settings.clone(), None, None));
            assert_eq!(result.map_err(|e| e.code().as_str()), Err(code), "{settings}");
        }
        assert_eq!(storage.value(storage_keys::SETTINGS), None);
    }

    #[test]
    fn dangling_ids_are_repaired_on_save() {
        let storage = MemoryStorage::default();
        let settings = json!({"models": [model("a", "https://a.example")], "activeModelId": "gone",
            "autoNameModelId": "gone"});
        let saved = save_now(&storage, request(settings, None, None)).expect("saved");
        assert_eq!(saved["settings"]["activeModelId"], json!("a"));
        assert_eq!(saved["settings"]["autoNameModelId"], Value::Null);
    }

    #[test]
    fn the_active_model_falls_back_to_the_first() {
        let a = model("a", "https://a.example");
        let b = model("b", "https://b.example");
        assert_eq!(
            active_model(&json!({"models": [a, b], "activeModelId": "b"})),
            Some(b.clone())
        );
        assert_eq!(
            active_model(&json!({"models": [a, b], "activeModelId": "gone"})),
            Some(a.clone())
        );
        assert_eq!(active_model(&json!({"models": [a], "activeModelId": null})), Some(a));
        assert_eq!(active_model(&json!({"models": []})), None);
    }

    #[test]
    fn overlapping_writers_keep_each_others_changes() {
        let storage = MemoryStorage::default();
        let queue = MutationQueue::default();
        let a = model("a", "https://a.example/v1");
        assert!(block_on(save(&storage, &queue, &request(json!({"models": [a]}), None, None))).is_ok());
        // Every storage call yields, so the two saves would interleave their
        // read and write without the queue.
        let slow = HookedStorage::default();
        slow.put(
            storage_keys::SETTINGS,
            storage.value(storage_keys::SETTINGS).unwrap_or_default(),
        );
        let prompt = request(
            json!({"systemPrompt": "updated"}),
            Some(vec![SettingsField::SystemPrompt]),
            None,
        );
        let upsert = request(
            json!({}),
            None,
            Some(RegistryMutation::Upsert {
                record: model("b", "https://b.example/v1")
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            }),
        );
        let (first, second) = block_on(join(save(&slow, &queue, &prompt), save(&slow, &queue, &upsert)));
        assert!(first.is_ok() && second.is_ok());
        let settings = block_on(load(&slow)).expect("settings load");
        assert_eq!(settings["systemPrompt"], json!("updated"));
        assert_eq!(settings["models"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn write_failures_keep_the_stored_settings() {
        let storage = MemoryStorage::default();
        assert!(save_now(&storage, request(json!({"systemPrompt": "kept"}), None, None)).is_ok());
        storage.fail_writes("QUOTA_BYTES quota exceeded");
        let result = save_now(&storage, request(json!({"systemPrompt": "lost"}), None, None));
        assert_eq!(result.map_err(|e| e.code().as_str()), Err("STORAGE_QUOTA_EXCEEDED"));
        assert_eq!(loaded(&storage)["systemPrompt"], json!("kept"));
    }
}
