//! The custom-tool and MCP-server forms: what they hold, how each field is
//! checked as the user types, and the record a valid form saves.
//!
//! Every problem belongs to one field ([`FieldError`]), so the panel can show
//! it beside that field: JSON syntax errors with their line and column,
//! schema problems with their keyword paths (`protocol::tool_schema`, where
//! `x-mcp-header` is refused for custom tools), header rules
//! (`protocol::endpoint_policy`, the plain set for tools and the MCP set for
//! servers) and the endpoint policy with its per-origin cleartext
//! acknowledgement. Then the record the form saves is built with protocol's
//! drafts (`registry_records`: normalised URL, acknowledgement, trust
//! fingerprint) and the list it would make is checked with the save-time
//! rules the worker applies (ids, names, reserved built-in names, names
//! taken by another tool), so those problems appear beside their field as
//! the user types too. A form with any problem is not sent. Should the
//! worker still refuse a save (another panel changed the list meanwhile),
//! [`refused_field`] puts its sentence beside the field it names.

use crate::integrations::{IntegrationRecord, RecordChange, RegistryKind};
use crate::worker_client::WorkerError;
use protocol::endpoint_policy::{
    Endpoint, HeaderPolicy, InsecureConsent, validate_endpoint_url, validate_header_record,
};
use protocol::js;
use protocol::registry_records::{
    CustomToolDraft, McpProtocolMode, McpServerDraft, RecordErrors, RecordField, validate_custom_tools,
    validate_mcp_servers,
};
use protocol::tool_schema::{SchemaOptions, validate_tool_schema};
use serde_json::{Map, Value, json};

#[cfg(test)]
mod tests;

/// What the protocol select says for each mode (protocol's
/// [`McpProtocolMode::ALL`] is the list and its order).
pub(crate) fn protocol_mode_label(mode: McpProtocolMode) -> &'static str {
    match mode {
        McpProtocolMode::Auto => "Auto (newest the server supports)",
        McpProtocolMode::Stateless20260728 => "2026-07-28",
        McpProtocolMode::Handshake20251125 => "2025-11-25 (initialize handshake)",
    }
}

/// The parameters a new custom tool starts with.
pub(crate) const NEW_TOOL_PARAMETERS: &str = "{\n  \"type\": \"object\",\n  \"properties\": {},\n  \"required\": []\n}";

/// The id a new record is checked under while it is typed.
const PLACEHOLDER_ID: &str = "new-record";

/// The id a probe sends for a server that has not been saved yet.
pub(crate) const PROBE_SERVER_ID: &str = "probe";

/// A text field of one of the two forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum FormField {
    ToolName,
    ToolDescription,
    ToolEndpoint,
    ToolHeaders,
    ToolParams,
    McpName,
    McpUrl,
    McpHeaders,
    McpProtocol,
}

impl FormField {
    const TOOL: [FormField; 5] = [
        FormField::ToolName,
        FormField::ToolDescription,
        FormField::ToolEndpoint,
        FormField::ToolHeaders,
        FormField::ToolParams,
    ];
    const MCP: [FormField; 4] = [
        FormField::McpName,
        FormField::McpUrl,
        FormField::McpHeaders,
        FormField::McpProtocol,
    ];

    /// The text fields of a registry's form, in the order they appear.
    pub(crate) fn all(kind: RegistryKind) -> &'static [FormField] {
        match kind {
            RegistryKind::CustomTools => &FormField::TOOL,
            RegistryKind::McpServers => &FormField::MCP,
        }
    }

    /// The element id of the control (the original's ids).
    pub(crate) fn element_id(self) -> &'static str {
        match self {
            FormField::ToolName => "tf-name",
            FormField::ToolDescription => "tf-desc",
            FormField::ToolEndpoint => "tf-endpoint",
            FormField::ToolHeaders => "tf-headers",
            FormField::ToolParams => "tf-params",
            FormField::McpName => "mcp-name",
            FormField::McpUrl => "mcp-url",
            FormField::McpHeaders => "mcp-headers",
            FormField::McpProtocol => "mcp-protocol",
        }
    }

    /// The record field the control edits (what a worker refusal names).
    fn record_key(self) -> &'static str {
        match self {
            FormField::ToolDescription => "description",
            FormField::McpName => "name",
            other => other.record_field().map_or("", RecordField::as_str),
        }
    }

    /// The field of protocol's save-time rules this control edits (the
    /// description and a server's name have no rules there).
    fn record_field(self) -> Option<RecordField> {
        match self {
            FormField::ToolName => Some(RecordField::Name),
            FormField::ToolEndpoint => Some(RecordField::Endpoint),
            FormField::ToolHeaders | FormField::McpHeaders => Some(RecordField::Headers),
            FormField::ToolParams => Some(RecordField::Parameters),
            FormField::McpUrl => Some(RecordField::Url),
            FormField::McpProtocol => Some(RecordField::ProtocolMode),
            FormField::ToolDescription | FormField::McpName => None,
        }
    }
}

/// The fields whose edit unticks Trusted: every field the trust fingerprint
/// covers (`protocol::trust_policy`), so trust is never kept for a
/// configuration the user did not look at when ticking it.
pub(crate) fn trust_fields(kind: RegistryKind) -> &'static [FormField] {
    FormField::all(kind)
}

/// The field whose edit unticks the cleartext acknowledgement, which binds
/// one exact origin.
pub(crate) fn endpoint_field(kind: RegistryKind) -> FormField {
    match kind {
        RegistryKind::CustomTools => FormField::ToolEndpoint,
        RegistryKind::McpServers => FormField::McpUrl,
    }
}

/// One problem, shown beside its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub(crate) field: FormField,
    pub(crate) message: String,
}

impl FieldError {
    fn new(field: FormField, message: impl Into<String>) -> FieldError {
        FieldError {
            field,
            message: message.into(),
        }
    }
}

/// The problems of a form so far; a check that fails adds its problem and
/// yields nothing, so every field is checked and all problems are shown.
#[derive(Default)]
struct Problems(Vec<FieldError>);

impl Problems {
    fn push(&mut self, field: FormField, message: &str) {
        self.0.push(FieldError::new(field, message));
    }

    fn take<T>(&mut self, checked: Result<T, FieldError>) -> Option<T> {
        checked.map_err(|error| self.0.push(error)).ok()
    }

    /// Adds the save-time rules' problems of the record at `index`, for
    /// fields that have none yet (the form's own checks say more: JSON
    /// positions, every schema path). A problem of the id goes beside the
    /// first field: the form has no id field, and ids are the panel's own.
    fn add_rules(&mut self, kind: RegistryKind, errors: &RecordErrors, index: usize) {
        for error in errors.of_record(index) {
            let field = FormField::all(kind)
                .iter()
                .copied()
                .find(|f| f.record_field() == Some(error.field))
                .unwrap_or(FormField::all(kind)[0]);
            if !self.0.iter().any(|p| p.field == field) {
                self.0.push(FieldError::new(field, error.message.clone()));
            }
        }
    }

    fn into_result<T>(self, value: Option<T>) -> Result<T, Vec<FieldError>> {
        match value {
            Some(value) if self.0.is_empty() => Ok(value),
            _ => Err(self.0),
        }
    }
}

/// Where a JSON syntax error is, as people count: `line` from 1 and
/// `column` in characters from 1.
pub(crate) fn json_syntax_message(text: &str, error: &serde_json::Error) -> String {
    let described = error.to_string();
    let what = described
        .rsplit_once(" at line ")
        .map_or(described.as_str(), |(what, _)| what);
    let line = error.line().max(1);
    // serde_json counts the column in bytes of the line; people count characters.
    let line_text = text.split('\n').nth(line - 1).unwrap_or("");
    let mut bytes = error.column().min(line_text.len());
    while !line_text.is_char_boundary(bytes) {
        bytes -= 1;
    }
    let column = line_text[..bytes].chars().count().max(1);
    format!("Not valid JSON: {what} (line {line}, column {column}).")
}

/// An optional JSON field: blank text is `None`.
fn json_text(text: &str, field: FormField) -> Result<Option<Value>, FieldError> {
    let text = js::js_trim(text);
    if text.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(text)
        .map(Some)
        .map_err(|error| FieldError::new(field, json_syntax_message(text, &error)))
}

/// Headers: blank is `{}`; otherwise a JSON object passing the header policy.
fn headers(text: &str, field: FormField, policy: HeaderPolicy) -> Result<Map<String, Value>, FieldError> {
    let value = json_text(text, field)?;
    validate_header_record(value.as_ref(), policy).map_err(|error| FieldError::new(field, error.message))
}

/// The endpoint policy, with the cleartext acknowledgement ticked now.
fn endpoint(url: &str, confirmed: bool, field: FormField) -> Result<Endpoint, FieldError> {
    validate_endpoint_url(
        js::js_trim(url),
        InsecureConsent {
            confirmed,
            confirmed_origin: None,
        },
    )
    .map_err(|error| FieldError::new(field, error.message))
}

/// A custom tool's parameters: blank is an empty object schema; otherwise a
/// schema of the supported subset (no `x-mcp-header`), every problem listed
/// with its keyword path.
fn parameters(text: &str, field: FormField) -> Result<Value, FieldError> {
    let schema = json_text(text, field)?.unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    validate_tool_schema(&schema, SchemaOptions::CUSTOM).map_err(|errors| {
        let lines: Vec<String> = errors
            .errors
            .iter()
            .map(|e| format!("{}: {}", e.path, e.message))
            .collect();
        FieldError::new(field, lines.join("\n"))
    })?;
    Ok(schema)
}

/// A stored JSON value as the form shows it (`JSON.stringify(v, null, 2)`
/// when truthy, else blank).
fn pretty(value: Option<&Value>) -> String {
    value
        .filter(|v| js::is_truthy(Some(v)))
        .and_then(|v| serde_json::to_string_pretty(v).ok())
        .unwrap_or_default()
}

/// Checks the list the record would make (protocol's save-time rules, as
/// the worker applies them) and adds the record's problems.
fn check_rules(problems: &mut Problems, kind: RegistryKind, current: &[IntegrationRecord], record: &IntegrationRecord) {
    let (next, _) = RecordChange::Upsert(record.clone()).apply(current);
    let id = record.id();
    let Some(index) = next.iter().position(|r| r.id() == id) else {
        return;
    };
    let list: Vec<Value> = next.iter().map(IntegrationRecord::to_value).collect();
    let checked = match kind {
        RegistryKind::CustomTools => validate_custom_tools(&list).map(|_| ()),
        RegistryKind::McpServers => validate_mcp_servers(&list).map(|_| ()),
    };
    if let Err(errors) = checked {
        problems.add_rules(kind, &errors, index);
    }
}

/// What the custom-tool form holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ToolForm {
    /// Empty when adding.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) endpoint: String,
    pub(crate) headers: String,
    pub(crate) parameters: String,
    pub(crate) enabled: bool,
    pub(crate) trusted: bool,
    pub(crate) insecure_confirmed: bool,
}

impl ToolForm {
    /// The form filled from a record (editing) or for a new tool.
    pub(crate) fn for_record(record: Option<&IntegrationRecord>) -> ToolForm {
        let Some(record) = record else {
            return ToolForm {
                parameters: NEW_TOOL_PARAMETERS.to_owned(),
                enabled: true,
                ..ToolForm::default()
            };
        };
        ToolForm {
            id: record.id(),
            name: record.name(),
            description: record.description(),
            endpoint: record.text("endpoint"),
            headers: pretty(record.get("headers")),
            parameters: pretty(record.get("parameters")),
            enabled: record.enabled(),
            trusted: record.trusted(),
            insecure_confirmed: record.insecure_acknowledged(),
        }
    }

    /// Checks every field and builds the record to upsert; `new_id` names a
    /// new tool, `current` is the list it joins.
    pub(crate) fn record(
        &self,
        new_id: &str,
        current: &[IntegrationRecord],
    ) -> Result<IntegrationRecord, Vec<FieldError>> {
        let mut problems = Problems::default();
        let endpoint = problems.take(endpoint(
            &self.endpoint,
            self.insecure_confirmed,
            FormField::ToolEndpoint,
        ));
        let headers = problems.take(headers(&self.headers, FormField::ToolHeaders, HeaderPolicy::Plain));
        let parameters = problems.take(parameters(&self.parameters, FormField::ToolParams));
        let id = if self.id.is_empty() { new_id } else { self.id.as_str() };
        // Fields that failed their own check stand in as their defaults, so
        // the rules of the others (the name's, say) are still checked.
        let draft = CustomToolDraft {
            name: js::js_trim(&self.name).to_owned(),
            description: js::js_trim(&self.description).to_owned(),
            endpoint: js::js_trim(&self.endpoint).to_owned(),
            headers: headers.clone().unwrap_or_default(),
            parameters: parameters
                .clone()
                .unwrap_or_else(|| CustomToolDraft::new(id).parameters),
            enabled: self.enabled,
            trusted_auto_run: self.trusted,
            insecure_transport_acknowledged: self.insecure_confirmed,
            ..CustomToolDraft::new(id)
        };
        let record = IntegrationRecord::from_map(draft.to_record());
        check_rules(&mut problems, RegistryKind::CustomTools, current, &record);
        problems.into_result(endpoint.and(headers).and(parameters).map(|_| record))
    }
}

/// What the MCP-server form holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct McpForm {
    /// Empty when adding.
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) url: String,
    pub(crate) headers: String,
    pub(crate) protocol_mode: String,
    pub(crate) enabled: bool,
    pub(crate) trusted: bool,
    pub(crate) insecure_confirmed: bool,
}

impl McpForm {
    /// The form filled from a record (editing) or for a new server.
    pub(crate) fn for_record(record: Option<&IntegrationRecord>) -> McpForm {
        let Some(record) = record else {
            return McpForm {
                protocol_mode: McpProtocolMode::default().as_str().to_owned(),
                enabled: true,
                ..McpForm::default()
            };
        };
        let mode = record.text("protocolMode");
        McpForm {
            id: record.id(),
            name: record.name(),
            url: record.text("url"),
            headers: pretty(record.get("headers")),
            protocol_mode: if mode.is_empty() {
                McpProtocolMode::default().as_str().to_owned()
            } else {
                mode
            },
            enabled: record.enabled(),
            trusted: record.trusted(),
            insecure_confirmed: record.insecure_acknowledged(),
        }
    }

    /// Checks the form's own fields and builds the record for `id`.
    fn checked(&self, id: &str) -> (Problems, Option<IntegrationRecord>) {
        let mut problems = Problems::default();
        let name = js::js_trim(&self.name);
        if name.is_empty() {
            problems.push(FormField::McpName, "Give the server a name.");
        }
        let mode = McpProtocolMode::from_wire(&self.protocol_mode);
        if mode.is_none() {
            problems.push(FormField::McpProtocol, "Choose one of the listed protocol versions.");
        }
        let endpoint = problems.take(endpoint(&self.url, self.insecure_confirmed, FormField::McpUrl));
        let headers = problems.take(headers(&self.headers, FormField::McpHeaders, HeaderPolicy::Mcp));
        let draft = McpServerDraft {
            name: name.to_owned(),
            url: js::js_trim(&self.url).to_owned(),
            headers: headers.clone().unwrap_or_default(),
            enabled: self.enabled,
            protocol_mode: mode.unwrap_or_default(),
            trusted_auto_run: self.trusted,
            insecure_transport_acknowledged: self.insecure_confirmed,
            ..McpServerDraft::new(id)
        };
        let record = IntegrationRecord::from_map(draft.to_record());
        let valid = endpoint.and(headers).and(mode).map(|_| record);
        (problems, valid)
    }

    /// Checks every field and builds the record to upsert; `new_id` names a
    /// new server, `current` is the list it joins.
    pub(crate) fn record(
        &self,
        new_id: &str,
        current: &[IntegrationRecord],
    ) -> Result<IntegrationRecord, Vec<FieldError>> {
        let id = if self.id.is_empty() { new_id } else { self.id.as_str() };
        let (mut problems, record) = self.checked(id);
        if let Some(record) = &record {
            check_rules(&mut problems, RegistryKind::McpServers, current, record);
        }
        problems.into_result(record)
    }

    /// The `server` of `PROBE_MCP_SERVER`: the form's fields under its id, or
    /// [`PROBE_SERVER_ID`] before the server was saved, without a
    /// fingerprint (a probe trusts nothing; the original sent none).
    pub(crate) fn probe_server(&self) -> Result<Map<String, Value>, Vec<FieldError>> {
        let (problems, record) = self.checked(if self.id.is_empty() { PROBE_SERVER_ID } else { &self.id });
        let mut server = problems.into_result(record)?.as_map().clone();
        server.remove("trustedAutoRunFingerprint");
        Ok(server)
    }
}

/// A form of either registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IntegrationForm {
    Tool(ToolForm),
    Mcp(McpForm),
}

impl IntegrationForm {
    /// The form for a record of `kind` (editing) or a new one.
    pub(crate) fn for_record(kind: RegistryKind, record: Option<&IntegrationRecord>) -> IntegrationForm {
        match kind {
            RegistryKind::CustomTools => IntegrationForm::Tool(ToolForm::for_record(record)),
            RegistryKind::McpServers => IntegrationForm::Mcp(McpForm::for_record(record)),
        }
    }

    pub(crate) fn kind(&self) -> RegistryKind {
        match self {
            IntegrationForm::Tool(_) => RegistryKind::CustomTools,
            IntegrationForm::Mcp(_) => RegistryKind::McpServers,
        }
    }

    /// The record to upsert into `current`; `new_id` names a new one.
    pub(crate) fn record(
        &self,
        new_id: &str,
        current: &[IntegrationRecord],
    ) -> Result<IntegrationRecord, Vec<FieldError>> {
        match self {
            IntegrationForm::Tool(form) => form.record(new_id, current),
            IntegrationForm::Mcp(form) => form.record(new_id, current),
        }
    }

    /// Every problem of the form as it is, joining `current` (what the
    /// panel shows as the user types). A new record is checked under a
    /// placeholder id, since its real one is drawn only when it is saved.
    pub(crate) fn problems(&self, current: &[IntegrationRecord]) -> Vec<FieldError> {
        self.record(PLACEHOLDER_ID, current).err().unwrap_or_default()
    }
}

/// The field a worker's refusal of a save names, with the worker's sentence:
/// `error.details.field` (a record field such as `name`), else the first
/// record field in `error.details.path` (`$.record.name`,
/// `$.tools[1].parameters.properties.q`). `None` when it names no field of
/// this form (an id, for example): the status line says why then.
pub(crate) fn refused_field(kind: RegistryKind, error: &WorkerError) -> Option<FieldError> {
    let details = error.details.as_ref()?;
    let named = details.get("field").and_then(Value::as_str).map(str::to_owned);
    let from_path = || {
        let path = details.get("path").and_then(Value::as_str)?;
        path.split(['.', '['])
            .map(|segment| segment.trim_end_matches(']'))
            .find(|segment| FormField::all(kind).iter().any(|f| f.record_key() == *segment))
            .map(str::to_owned)
    };
    let key = named.or_else(from_path)?;
    let field = FormField::all(kind).iter().copied().find(|f| f.record_key() == key)?;
    Some(FieldError::new(field, error.message.clone()))
}
