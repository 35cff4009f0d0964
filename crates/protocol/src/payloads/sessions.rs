//! Chat sessions: list, create, read, update, delete, import, title
//! (`SESSION_*`, `OPEN_PROJECT_TAB`, `GENERATE_SESSION_TITLE`).
//!
//! Chat messages stay opaque JSON: the worker's session store validates and
//! bounds them, this layer fixes only the request shapes.

use super::fields::{PAYLOAD, SCOPE_ID, any_project_id, exact, fail, project_id, session_id};
use crate::error::{ErrorCode, ProtocolError};
use crate::limits::to_usize;
use crate::wire;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `{projectId}` (`SESSION_LIST`, `SESSION_DELETE_BY_PROJECT`,
/// `OPEN_PROJECT_TAB`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRef {
    /// The typst.app project; may be `''` for the chats of no project.
    pub project_id: String,
}

impl ProjectRef {
    /// The list and delete form: `''` names the chats of no project.
    pub(crate) fn parse_any(p: &Map<String, Value>) -> Result<ProjectRef, ProtocolError> {
        let f = exact(p, &["projectId"], &["projectId"])?;
        let project_id = any_project_id(&f, ErrorCode::InvalidProjectId, "$.payload.projectId")?;
        Ok(ProjectRef { project_id })
    }

    /// The `OPEN_PROJECT_TAB` form: a tab needs a real project.
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<ProjectRef, ProtocolError> {
        let f = exact(p, &["projectId"], &["projectId"])?;
        Ok(ProjectRef {
            project_id: project_id(&f)?,
        })
    }
}

/// `SESSION_CREATE`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionCreate {
    /// The project the chat belongs to (`''` for none).
    pub project_id: String,
    /// The chat's name, when the panel gives one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
}

impl SessionCreate {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SessionCreate, ProtocolError> {
        let f = exact(p, &["projectId", "name"], &["projectId"])?;
        let project_id = any_project_id(&f, ErrorCode::InvalidSessionCreate, PAYLOAD)?;
        let name = wire::optional(f.raw("name"), |v| v.as_str().map(str::to_owned)).map_err(|()| {
            fail(
                ErrorCode::InvalidSessionCreate,
                f.at("name"),
                "Session projectId and name must be strings",
            )
        })?;
        Ok(SessionCreate { project_id, name })
    }
}

/// `{sessionId}` (`SESSION_GET`, `SESSION_DELETE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    /// The chat.
    pub session_id: String,
}

impl SessionRef {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SessionRef, ProtocolError> {
        let f = exact(p, &["sessionId"], &["sessionId"])?;
        Ok(SessionRef {
            session_id: session_id(&f)?,
        })
    }
}

/// `SESSION_UPDATE`: only the fields present change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionUpdate {
    /// The chat.
    pub session_id: String,
    /// The new name.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
    /// The whole new message list.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub messages: Option<Vec<Value>>,
    /// Whether the user has named the chat by hand.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub user_renamed: Option<bool>,
    /// When true, only `name` accompanies it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub auto_name: Option<bool>,
}

impl SessionUpdate {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SessionUpdate, ProtocolError> {
        let f = exact(
            p,
            &["sessionId", "name", "messages", "userRenamed", "autoName"],
            &["sessionId"],
        )?;
        let invalid = |key: &str| {
            fail(
                ErrorCode::InvalidSessionUpdate,
                f.at(key),
                "Session update fields have invalid types",
            )
        };
        let session_id =
            wire::bounded_non_blank(f.raw("sessionId"), to_usize(SCOPE_ID)).ok_or_else(|| invalid("sessionId"))?;
        let name = wire::optional(f.raw("name"), |v| v.as_str().map(str::to_owned)).map_err(|()| invalid("name"))?;
        let messages =
            wire::optional(f.raw("messages"), |v| v.as_array().cloned()).map_err(|()| invalid("messages"))?;
        let user_renamed = wire::optional(f.raw("userRenamed"), Value::as_bool).map_err(|()| invalid("userRenamed"))?;
        let auto_name = wire::optional(f.raw("autoName"), Value::as_bool).map_err(|()| invalid("autoName"))?;
        if auto_name == Some(true) && (name.is_none() || messages.is_some() || user_renamed.is_some()) {
            return Err(fail(
                ErrorCode::InvalidSessionUpdate,
                PAYLOAD,
                "Automatic naming must update only the session name.",
            ));
        }
        Ok(SessionUpdate {
            session_id,
            name,
            messages,
            user_renamed,
            auto_name,
        })
    }
}

/// `SESSION_IMPORT`: one of `exportData` or `records` (an object or an
/// array).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionImport {
    /// A whole export file, as `SESSION_EXPORT` wrote it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub export_data: Option<Value>,
    /// Chat records without the export file around them.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub records: Option<Value>,
}

impl SessionImport {
    /// The data the worker imports (`exportData ?? records`).
    pub fn data(&self) -> Option<&Value> {
        self.export_data.as_ref().or(self.records.as_ref())
    }

    pub(crate) fn parse(p: &Map<String, Value>) -> Result<SessionImport, ProtocolError> {
        let f = exact(p, &["exportData", "records"], &[])?;
        if !p.contains_key("exportData") && !p.contains_key("records") {
            return Err(fail(
                ErrorCode::MissingPayloadField,
                PAYLOAD,
                "Session import requires exportData or records",
            ));
        }
        let export_data = f.get("exportData").cloned();
        let records = f.get("records").cloned();
        let data = export_data.as_ref().or(records.as_ref());
        if !data.is_some_and(|d| d.is_object() || d.is_array()) {
            return Err(fail(
                ErrorCode::InvalidSessionImport,
                PAYLOAD,
                "Session import data must be an object or array",
            ));
        }
        if export_data.is_some() && records.as_ref().is_some_and(|r| !(r.is_object() || r.is_array())) {
            return Err(fail(
                ErrorCode::InvalidSessionImport,
                f.at("records"),
                "Session import data must be an object or array",
            ));
        }
        Ok(SessionImport { export_data, records })
    }
}

/// `GENERATE_SESSION_TITLE`: name a chat from its first messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateSessionTitle {
    /// The model to ask (the worker validates its endpoint).
    pub model_config: Map<String, Value>,
    /// The chat's messages the title is based on.
    pub messages: Vec<Value>,
}

impl GenerateSessionTitle {
    pub(crate) fn parse(p: &Map<String, Value>) -> Result<GenerateSessionTitle, ProtocolError> {
        let f = exact(p, &["modelConfig", "messages"], &["modelConfig", "messages"])?;
        let message = "Title request requires modelConfig and messages";
        let model_config = wire::object(f.raw("modelConfig"))
            .ok_or_else(|| fail(ErrorCode::InvalidTitleRequest, f.at("modelConfig"), message))?;
        let messages = wire::array(f.raw("messages"))
            .ok_or_else(|| fail(ErrorCode::InvalidTitleRequest, f.at("messages"), message))?;
        Ok(GenerateSessionTitle { model_config, messages })
    }
}
