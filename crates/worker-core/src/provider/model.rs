//! The model record a run or a title request uses ([`ModelConfig`]),
//! checked once before anything is sent: complete, and its base URL
//! accepted by the endpoint policy.

use crate::provider::error::{ProviderError, ProviderErrorCode};
use protocol::constants::is_reasoning_effort_default;
use protocol::endpoint_policy::{Endpoint, InsecureConsent, validate_endpoint_value};
use protocol::js;
use serde_json::{Map, Value};

/// A model record checked for use: complete, and its URL accepted by the
/// endpoint policy with the record's own origin-bound acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModelConfig {
    /// The record's `id` (`''` when absent).
    pub(crate) id: String,
    /// The record's display `name` (`''` when absent).
    pub(crate) name: String,
    pub(crate) api_key: String,
    pub(crate) model_id: String,
    pub(crate) supports_vision: bool,
    /// The trimmed effort to send; `None` means the provider's default.
    pub(crate) reasoning_effort: Option<String>,
    pub(crate) endpoint: Endpoint,
}

/// `String(value || '')`: falsy values are empty.
fn text_field(record: &Map<String, Value>, key: &str) -> String {
    let value = record.get(key);
    if js::is_truthy(value) {
        value.map(js::js_string).unwrap_or_default()
    } else {
        String::new()
    }
}

impl ModelConfig {
    /// Checks a stored model record
    /// (`{id, name, apiBaseUrl, apiKey, modelId, supportsVision, reasoningEffort,
    /// insecureTransportAcknowledged, insecureTransportAcknowledgedOrigin}`).
    /// Only the stored origin counts as cleartext consent: a bare boolean
    /// from an older version fails closed.
    pub(crate) fn from_record(record: &Value) -> Result<ModelConfig, ProviderError> {
        let empty = Map::new();
        let map = match record {
            Value::Null => {
                return Err(ProviderError::new(
                    ProviderErrorCode::ModelMissing,
                    "No model is configured. Add one in Settings → Models.",
                ));
            }
            Value::Object(map) => map,
            _ => &empty,
        };
        let base_url = text_field(map, "apiBaseUrl");
        let api_key = text_field(map, "apiKey");
        let model_id = text_field(map, "modelId");
        if [&base_url, &api_key, &model_id]
            .iter()
            .any(|field| !js::is_non_blank(field))
        {
            return Err(ProviderError::new(
                ProviderErrorCode::ModelIncomplete,
                "The model needs an API base URL, an API key and a model ID.",
            ));
        }
        let consent = InsecureConsent {
            confirmed: false,
            confirmed_origin: map.get("insecureTransportAcknowledgedOrigin").and_then(Value::as_str),
        };
        let endpoint = validate_endpoint_value(map.get("apiBaseUrl"), consent)
            .map_err(|error| ProviderError::new(ProviderErrorCode::Endpoint(error.code), error.message))?;
        let effort = js::js_trim(&text_field(map, "reasoningEffort")).to_owned();
        let reasoning_effort = (!is_reasoning_effort_default(Some(&Value::String(effort.clone())))).then_some(effort);
        Ok(ModelConfig {
            id: text_field(map, "id"),
            name: text_field(map, "name"),
            api_key,
            model_id,
            supports_vision: js::is_truthy(map.get("supportsVision")),
            reasoning_effort,
            endpoint,
        })
    }

    /// The normalised base URL without trailing slashes, plus
    /// `/chat/completions`.
    pub(crate) fn chat_completions_url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.url.trim_end_matches('/'))
    }

    /// A non-default reasoning effort is configured; such models expect
    /// `reasoning_content` on every assistant tool-call turn.
    pub(crate) fn reasoning_replay_enabled(&self) -> bool {
        self.reasoning_effort.is_some()
    }
}
