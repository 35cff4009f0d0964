//! What a refused registry save reports: one problem per record field, with
//! the stable code, and the one refused change (`INVALID_REGISTRY_MUTATION`).
//!
//! Every problem names the record's position and the field, so a form can
//! show it beside its input; the worker answers with the first one, which is
//! the one the original reported.

use crate::codes::code_subset;
use crate::endpoint_policy::{EndpointError, EndpointErrorCode, OriginDetails};
use crate::error::ErrorCode;
use serde::Serialize;
use std::fmt;

code_subset! {
    /// Why a custom tool or MCP server record was refused.
    RecordErrorCode {
        /// A custom tool's id is missing or malformed.
        InvalidToolId,
        /// Two custom tools share an id.
        DuplicateToolId,
        /// A custom tool's function name is malformed.
        InvalidToolName,
        /// A custom tool takes a built-in tool's name.
        ReservedToolName,
        /// Two custom tools share a function name (compared without case).
        DuplicateToolName,
        /// A custom tool's parameter schema is outside the supported subset.
        InvalidCustomSchema,
        /// An MCP server's id is missing or malformed.
        InvalidMcpServerId,
        /// Two MCP servers share an id.
        DuplicateMcpServerId,
        /// An MCP server's protocol mode is unknown.
        UnsupportedMcpVersion,
        /// The endpoint does not parse.
        InvalidUrl,
        /// The endpoint carries a user name or password.
        EmbeddedCredentials,
        /// The endpoint's scheme is neither `https` nor `http`.
        UnsupportedScheme,
        /// Plain HTTP to an origin the user has not acknowledged.
        InsecureConfirmationRequired,
        /// The headers are not a JSON object.
        InvalidHeaders,
        /// More than 32 headers.
        HeaderLimit,
        /// A header name or value is malformed or too long.
        InvalidHeader,
        /// A header the transport sets itself.
        ProtectedHeader,
    }
}

impl From<EndpointErrorCode> for RecordErrorCode {
    fn from(code: EndpointErrorCode) -> RecordErrorCode {
        match code {
            EndpointErrorCode::InvalidUrl => RecordErrorCode::InvalidUrl,
            EndpointErrorCode::EmbeddedCredentials => RecordErrorCode::EmbeddedCredentials,
            EndpointErrorCode::UnsupportedScheme => RecordErrorCode::UnsupportedScheme,
            EndpointErrorCode::InsecureConfirmationRequired => RecordErrorCode::InsecureConfirmationRequired,
            EndpointErrorCode::InvalidHeaders => RecordErrorCode::InvalidHeaders,
            EndpointErrorCode::HeaderLimit => RecordErrorCode::HeaderLimit,
            EndpointErrorCode::InvalidHeader => RecordErrorCode::InvalidHeader,
            EndpointErrorCode::ProtectedHeader => RecordErrorCode::ProtectedHeader,
        }
    }
}

/// The record field a problem belongs to (its JSON key is [`RecordField::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordField {
    /// `id`.
    Id,
    /// `name` (custom tools: the function name).
    Name,
    /// `parameters` (custom tools).
    Parameters,
    /// `endpoint` (custom tools).
    Endpoint,
    /// `url` (MCP servers).
    Url,
    /// `headers`.
    Headers,
    /// `protocolMode` (MCP servers).
    ProtocolMode,
}

impl RecordField {
    /// The record's JSON key.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordField::Id => "id",
            RecordField::Name => "name",
            RecordField::Parameters => "parameters",
            RecordField::Endpoint => "endpoint",
            RecordField::Url => "url",
            RecordField::Headers => "headers",
            RecordField::ProtocolMode => "protocolMode",
        }
    }
}

impl Serialize for RecordField {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One problem of one record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordError {
    /// The record's position in the list that was checked.
    pub index: usize,
    /// The field to show the problem beside.
    pub field: RecordField,
    /// The stable code callers branch on.
    pub code: RecordErrorCode,
    /// The sentence for people.
    pub message: String,
    /// The origin to acknowledge, for `INSECURE_CONFIRMATION_REQUIRED`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<OriginDetails>,
}

impl RecordError {
    pub(crate) fn new(index: usize, field: RecordField, code: RecordErrorCode, message: impl Into<String>) -> Self {
        RecordError {
            index,
            field,
            code,
            message: message.into(),
            details: None,
        }
    }

    pub(crate) fn endpoint(index: usize, field: RecordField, error: EndpointError) -> Self {
        RecordError {
            index,
            field,
            code: error.code.into(),
            message: error.message,
            details: error.details,
        }
    }
}

/// Every problem of a refused list, in the order the original checked them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordErrors {
    /// The problems; never empty.
    pub errors: Vec<RecordError>,
}

impl RecordErrors {
    /// The problem a save answers with (the original's one error).
    pub fn first(&self) -> Option<&RecordError> {
        self.errors.first()
    }

    /// The problems of the record at `index`, for the form that edits it.
    pub fn of_record(&self, index: usize) -> impl Iterator<Item = &RecordError> {
        self.errors.iter().filter(move |error| error.index == index)
    }
}

impl fmt::Display for RecordErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.first() {
            Some(e) => write!(f, "{} at [{}].{}: {}", e.code, e.index, e.field.as_str(), e.message),
            None => f.write_str("invalid records"),
        }
    }
}

impl std::error::Error for RecordErrors {}

/// A registry change the tool and server lists do not take: `select` exists
/// for models only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MutationError;

impl MutationError {
    /// `INVALID_REGISTRY_MUTATION`.
    pub const fn code(self) -> ErrorCode {
        ErrorCode::InvalidRegistryMutation
    }

    /// The sentence for people.
    pub const fn message(self) -> &'static str {
        "Tools and MCP servers can be added, edited, replaced, removed or switched on and off; only models are \
         selected."
    }
}

impl fmt::Display for MutationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for MutationError {}
