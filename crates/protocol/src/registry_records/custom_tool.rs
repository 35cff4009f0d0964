//! Custom HTTP tools (`typstAgent.customTools`): the stored record, the
//! record a form saves, and the save-time rules (the original's
//! `validateCustomToolRecords` and `saveCustomTools`).

use super::errors::{RecordError, RecordErrorCode, RecordErrors, RecordField};
use super::fields::{self, HEADERS, text, text_of};
use crate::constants::BUILTIN_TOOL_NAMES;
use crate::endpoint_policy::{HeaderPolicy, InsecureAcknowledgement, InsecureConsent, validate_endpoint_url};
use crate::tool_schema::{SchemaOptions, validate_tool_schema};
use crate::trust_policy::{custom_tool_trust_fingerprint, has_current_custom_tool_trust};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The schema of a tool stored without `parameters`: no arguments.
fn empty_parameters() -> Value {
    json!({"type": "object", "properties": {}})
}

/// One custom tool as stored, normalised: the acknowledgement holds only for
/// its endpoint's exact stored origin, and `trustedAutoRun` only while its
/// fingerprint matches the configuration. Every other field is kept as it
/// was stored, unknown ones included.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomTool {
    record: Map<String, Value>,
}

impl CustomTool {
    /// The original's `normalizeCustomTool`: any stored value (something that
    /// is not an object has no fields).
    pub fn from_stored(value: &Value) -> CustomTool {
        let record = fields::normalize(
            fields::spread(value),
            "endpoint",
            has_current_custom_tool_trust,
            custom_tool_trust_fingerprint,
        );
        CustomTool { record }
    }

    /// `loadCustomTools`: the stored list, each record normalised; anything
    /// but a list is none.
    pub fn list_from_stored(stored: Option<&Value>) -> Vec<CustomTool> {
        match stored {
            Some(Value::Array(items)) => items.iter().map(CustomTool::from_stored).collect(),
            _ => Vec::new(),
        }
    }

    /// The id (routing and `custom:<id>` approvals).
    pub fn id(&self) -> Cow<'_, str> {
        text(&self.record, "id")
    }

    /// The function name the model calls.
    pub fn name(&self) -> Cow<'_, str> {
        text(&self.record, "name")
    }

    /// The description the model reads (empty when none was given).
    pub fn description(&self) -> Cow<'_, str> {
        text(&self.record, "description")
    }

    /// The endpoint URL the call is POSTed to.
    pub fn endpoint(&self) -> Cow<'_, str> {
        text(&self.record, "endpoint")
    }

    /// The configured headers, when they are an object.
    pub fn headers(&self) -> Option<&Map<String, Value>> {
        self.record.get(HEADERS).and_then(Value::as_object)
    }

    /// The parameter schema (`parameters ?? {type:'object', properties:{}}`).
    pub fn parameters(&self) -> Cow<'_, Value> {
        match self.record.get("parameters") {
            None | Some(Value::Null) => Cow::Owned(empty_parameters()),
            Some(schema) => Cow::Borrowed(schema),
        }
    }

    /// Offered to the model (everything but an explicit `enabled: false`).
    pub fn enabled(&self) -> bool {
        fields::enabled(&self.record)
    }
}

fields::stored_record_accessors!(CustomTool);

/// What the custom-tool form edits; [`CustomToolDraft::to_record`] is the
/// record it saves (as an `upsert`, merged over the stored one).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomToolDraft {
    /// The record's id (a fresh one for a new tool).
    pub id: String,
    /// The function name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The endpoint as typed.
    pub endpoint: String,
    /// The headers, parsed from the form's JSON.
    pub headers: Map<String, Value>,
    /// The parameter schema, parsed from the form's JSON.
    pub parameters: Value,
    /// Offered to the model.
    pub enabled: bool,
    /// "Allow this exact integration to run without per-call approval".
    pub trusted_auto_run: bool,
    /// "Allow non-loopback HTTP" for the endpoint's origin.
    pub insecure_transport_acknowledged: bool,
}

impl CustomToolDraft {
    /// A new tool: on, untrusted, taking no arguments.
    pub fn new(id: impl Into<String>) -> CustomToolDraft {
        CustomToolDraft {
            id: id.into(),
            name: String::new(),
            description: String::new(),
            endpoint: String::new(),
            headers: Map::new(),
            parameters: empty_parameters(),
            enabled: true,
            trusted_auto_run: false,
            insecure_transport_acknowledged: false,
        }
    }

    /// The form opened on a stored tool.
    pub fn from_tool(tool: &CustomTool) -> CustomToolDraft {
        CustomToolDraft {
            id: tool.id().into_owned(),
            name: tool.name().into_owned(),
            description: tool.description().into_owned(),
            endpoint: tool.endpoint().into_owned(),
            headers: tool.headers().cloned().unwrap_or_default(),
            parameters: tool.parameters().into_owned(),
            enabled: tool.enabled(),
            trusted_auto_run: tool.trusted_auto_run(),
            insecure_transport_acknowledged: tool.insecure_transport_acknowledged(),
        }
    }

    /// The record to save: the endpoint as the URL parser writes it (as
    /// typed when it does not parse, so the save reports why), the
    /// acknowledgement bound to that exact origin, and the fingerprint of
    /// this configuration when the user trusts it.
    pub fn to_record(&self) -> Map<String, Value> {
        let consent = InsecureConsent {
            confirmed: self.insecure_transport_acknowledged,
            confirmed_origin: None,
        };
        let endpoint = validate_endpoint_url(&self.endpoint, consent).ok();
        let mut record = Map::new();
        record.insert("id".to_owned(), Value::from(self.id.as_str()));
        record.insert("name".to_owned(), Value::from(self.name.as_str()));
        record.insert("description".to_owned(), Value::from(self.description.as_str()));
        let url = endpoint.as_ref().map_or(self.endpoint.as_str(), |e| e.url.as_str());
        record.insert("endpoint".to_owned(), Value::from(url));
        record.insert(HEADERS.to_owned(), Value::Object(self.headers.clone()));
        record.insert("parameters".to_owned(), self.parameters.clone());
        record.insert(fields::ENABLED.to_owned(), Value::Bool(self.enabled));
        InsecureAcknowledgement::for_endpoint(endpoint.as_ref(), self.insecure_transport_acknowledged)
            .apply_to(&mut record);
        fields::with_fingerprint(record, self.trusted_auto_run, custom_tool_trust_fingerprint)
    }
}

/// The checks of `validateCustomToolRecords`, on the records as given: for
/// each record its id (well-formed, then unique), its name (well-formed, not
/// a built-in's, unique without case) and its schema.
fn check_names_and_schemas(candidate: &[Value], errors: &mut Vec<RecordError>) {
    let reserved: HashSet<String> = BUILTIN_TOOL_NAMES.iter().map(|n| n.to_lowercase()).collect();
    let mut ids = HashSet::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for (index, tool) in candidate.iter().enumerate() {
        let id = text_of(tool, "id");
        let name = text_of(tool, "name");
        let lower = name.to_lowercase();
        let fail = |field, code, message: String| RecordError::new(index, field, code, message);
        if !fields::is_record_id(&id) {
            errors.push(fail(
                RecordField::Id,
                RecordErrorCode::InvalidToolId,
                "Every custom tool needs an id of 1 to 128 letters, digits, '.', '_', ':' or '-'.".to_owned(),
            ));
        } else if !ids.insert(id.clone()) {
            errors.push(fail(
                RecordField::Id,
                RecordErrorCode::DuplicateToolId,
                format!("Another custom tool already has the id {id}; ids must be unique."),
            ));
        }
        if !is_function_name(&name) {
            errors.push(fail(
                RecordField::Name,
                RecordErrorCode::InvalidToolName,
                "A function name has 2 to 41 letters, digits or underscores and starts with a letter.".to_owned(),
            ));
        }
        if reserved.contains(&lower) {
            errors.push(fail(
                RecordField::Name,
                RecordErrorCode::ReservedToolName,
                format!("\"{name}\" is the name of a built-in tool; choose another one."),
            ));
        }
        match names.get(&lower) {
            Some(first) => errors.push(fail(
                RecordField::Name,
                RecordErrorCode::DuplicateToolName,
                format!("\"{name}\" is already taken by the custom tool \"{first}\" (case does not count)."),
            )),
            None => {
                names.insert(lower, name.clone().into_owned());
            }
        }
        let schema = match tool.get("parameters") {
            None | Some(Value::Null) => Cow::Owned(empty_parameters()),
            Some(schema) => Cow::Borrowed(schema),
        };
        if let Err(schema_errors) = validate_tool_schema(&schema, SchemaOptions::CUSTOM) {
            let detail = schema_errors.first().map_or("", |e| e.message.as_str());
            errors.push(fail(
                RecordField::Parameters,
                RecordErrorCode::InvalidCustomSchema,
                format!("The parameter schema is not supported: {detail}"),
            ));
        }
    }
}

/// `^[A-Za-z][A-Za-z0-9_]{1,40}$`.
fn is_function_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic())
        && (2..=41).contains(&name.len())
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The save-time rules of a whole list (`saveCustomTools`): names, ids and
/// schemas of every record first, then each normalised record's endpoint
/// (the acknowledgement bound to its stored origin) and headers (the plain
/// protected set). `Ok` holds the records to store.
pub fn validate_custom_tools(candidate: &[Value]) -> Result<Vec<CustomTool>, RecordErrors> {
    let mut errors = Vec::new();
    check_names_and_schemas(candidate, &mut errors);
    let tools: Vec<CustomTool> = candidate.iter().map(CustomTool::from_stored).collect();
    for (index, tool) in tools.iter().enumerate() {
        errors.extend(fields::check_endpoint(index, RecordField::Endpoint, &tool.record));
        errors.extend(fields::check_headers(index, &tool.record, HeaderPolicy::Plain));
    }
    if errors.is_empty() {
        Ok(tools)
    } else {
        Err(RecordErrors { errors })
    }
}
