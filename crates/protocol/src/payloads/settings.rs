//! Settings and theme requests (`SAVE_SETTINGS`, `SAVE_THEME`).
//!
//! The panel sends its whole settings object. With `fields` or
//! `modelMutation` the worker changes only those on top of what is stored,
//! so one panel saving its prompt cannot overwrite another panel's models;
//! without either the sent object replaces the stored one.

use super::fields::{exact, fail, non_blank_field};
use super::registries::{RegistryMutation, registry_mutation};
use crate::error::{ErrorCode, ProtocolError};
use crate::limits;
use crate::wire;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Settings fields a `SAVE_SETTINGS` may copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SettingsField {
    /// The user's system prompt.
    SystemPrompt,
    /// The model registry.
    Models,
    /// The model runs use.
    ActiveModelId,
    /// How much chat history a run sends.
    MaxHistoryMessages,
    /// The model that names chats.
    AutoNameModelId,
    /// When editor writes need the user's approval.
    EditorApprovalMode,
    /// Which key combination sends a message.
    SendMessageShortcut,
}

impl SettingsField {
    /// Every field, in the order the original listed them.
    pub const ALL: [SettingsField; 7] = [
        SettingsField::SystemPrompt,
        SettingsField::Models,
        SettingsField::ActiveModelId,
        SettingsField::MaxHistoryMessages,
        SettingsField::AutoNameModelId,
        SettingsField::EditorApprovalMode,
        SettingsField::SendMessageShortcut,
    ];

    /// The settings key on the wire and in storage.
    pub const fn as_str(self) -> &'static str {
        match self {
            SettingsField::SystemPrompt => "systemPrompt",
            SettingsField::Models => "models",
            SettingsField::ActiveModelId => "activeModelId",
            SettingsField::MaxHistoryMessages => "maxHistoryMessages",
            SettingsField::AutoNameModelId => "autoNameModelId",
            SettingsField::EditorApprovalMode => "editorApprovalMode",
            SettingsField::SendMessageShortcut => "sendMessageShortcut",
        }
    }

    /// Parses a settings key; `None` for anything else.
    pub fn from_wire(value: &str) -> Option<SettingsField> {
        SettingsField::ALL.into_iter().find(|f| f.as_str() == value)
    }
}

/// `SAVE_SETTINGS`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SaveSettings {
    /// The panel's whole settings object (the worker normalises it).
    pub settings: Map<String, Value>,
    /// Copy only these fields onto the stored settings.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub fields: Option<Vec<SettingsField>>,
    /// One change to the model registry, applied to the stored list.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model_mutation: Option<RegistryMutation>,
}

impl SaveSettings {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SaveSettings, ProtocolError> {
        let f = exact(p, &["settings", "fields", "modelMutation"], &["settings"])?;
        let settings = wire::object(f.raw("settings")).ok_or_else(|| {
            fail(
                ErrorCode::InvalidSettings,
                f.at("settings"),
                "settings must be an object",
            )
        })?;
        let fields = wire::optional(f.raw("fields"), |v| {
            v.as_array()?
                .iter()
                .map(|x| x.as_str().and_then(SettingsField::from_wire))
                .collect()
        })
        .map_err(|()| {
            fail(
                ErrorCode::InvalidSettingsFields,
                f.at("fields"),
                "settings fields are invalid",
            )
        })?;
        let model_mutation = wire::optional(f.raw("modelMutation"), |v| registry_mutation(v, true)).map_err(|()| {
            fail(
                ErrorCode::InvalidModelMutation,
                f.at("modelMutation"),
                "model mutation is invalid",
            )
        })?;
        Ok(SaveSettings {
            settings,
            fields,
            model_mutation,
        })
    }
}

/// `SAVE_THEME`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveTheme {
    /// The theme's name (the panel knows which names exist).
    pub theme: String,
}

impl SaveTheme {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SaveTheme, ProtocolError> {
        let f = exact(p, &["theme"], &["theme"])?;
        let theme = non_blank_field(
            &f,
            "theme",
            limits::MAX_THEME_CHARS,
            ErrorCode::InvalidTheme,
            "theme must be a non-empty string",
        )?;
        Ok(SaveTheme { theme })
    }
}
