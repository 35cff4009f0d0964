//! Tool parameter schemas and tool-call arguments.
//!
//! Custom tools and MCP servers describe their parameters with JSON Schema.
//! Only a bounded subset is supported (listed in [`ANNOTATION_KEYWORDS`] and
//! [`VALIDATION_KEYWORDS`]); a schema is checked when it is saved or
//! discovered, and the model's arguments are checked against it immediately
//! before each dispatch. Arguments arrive as JSON text of at most 256 KiB
//! with an object root. String lengths count code points, `1.0` is an
//! integer, and `pattern`s follow [`crate::js_regex`].
//!
//! Without protocol's `patterns` feature (the panel's build),
//! [`validate_tool_schema`] judges patterns by their text, and checking
//! arguments against a schema (`ToolSchema`, `validate_tool_arguments`) is
//! absent: it needs compiled patterns, and only the worker checks arguments.

mod errors;
mod schema_check;
#[cfg(feature = "patterns")]
mod value_check;

pub use errors::{ToolError, ToolErrorCode, ToolErrors};
pub use schema_check::{ANNOTATION_KEYWORDS, SCHEMA_TYPES, SchemaOptions, VALIDATION_KEYWORDS, is_http_token};

use crate::limits::{self, to_usize};
use serde_json::{Map, Value};

/// A checked schema with its patterns compiled, ready to validate arguments.
#[cfg(feature = "patterns")]
#[derive(Debug, Clone)]
pub struct ToolSchema {
    schema: Value,
    patterns: schema_check::Patterns,
}

#[cfg(feature = "patterns")]
impl ToolSchema {
    /// Checks a schema (`validateToolSchema`).
    pub fn compile(schema: &Value, options: SchemaOptions) -> Result<ToolSchema, ToolErrors> {
        let patterns = schema_check::check_schema(schema, options)?;
        Ok(ToolSchema {
            schema: schema.clone(),
            patterns,
        })
    }

    /// The schema as it was checked (the tool's function spec sends it).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Validates a parsed argument value (`validateToolArguments`).
    pub fn validate(&self, value: &Value) -> Result<(), ToolErrors> {
        value_check::check_arguments(value, &self.schema, &self.patterns)
    }

    /// Parses raw argument text and validates it
    /// (`parseAndValidateToolArguments`).
    pub fn parse_and_validate(&self, raw: &str) -> Result<Map<String, Value>, ToolErrors> {
        let arguments = parse_tool_arguments(raw)?;
        self.validate(&Value::Object(arguments.clone()))?;
        Ok(arguments)
    }
}

/// Checks a schema without keeping the compiled form (with `patterns`;
/// without it, its patterns by their text).
pub fn validate_tool_schema(schema: &Value, options: SchemaOptions) -> Result<(), ToolErrors> {
    schema_check::check_schema(schema, options).map(drop)
}

/// Parses the model's raw argument text (`parseToolArguments`).
pub fn parse_tool_arguments(raw: &str) -> Result<Map<String, Value>, ToolErrors> {
    if raw.len() > to_usize(limits::MAX_ARGUMENT_BYTES) {
        return Err(ToolErrors::single(
            ToolErrorCode::ArgumentsTooLarge,
            "Tool arguments exceed the 256 KiB limit.",
        ));
    }
    let value: Value = serde_json::from_str(raw)
        .map_err(|_| ToolErrors::single(ToolErrorCode::ArgumentsParseError, "Tool arguments are not valid JSON."))?;
    match value {
        Value::Object(map) => Ok(map),
        _ => Err(ToolErrors::single(
            ToolErrorCode::ArgumentsRootType,
            "Tool arguments must be a JSON object.",
        )),
    }
}

/// Like [`parse_tool_arguments`] for a value that should be JSON text
/// (anything but a string is `ARGUMENTS_NOT_JSON_TEXT`).
pub fn parse_tool_arguments_value(raw: &Value) -> Result<Map<String, Value>, ToolErrors> {
    match raw {
        Value::String(text) => parse_tool_arguments(text),
        _ => Err(ToolErrors::single(
            ToolErrorCode::ArgumentsNotJsonText,
            "Tool arguments must be JSON text.",
        )),
    }
}

/// Validates arguments against a schema that is re-checked first (with MCP
/// headers allowed), as the original did immediately before dispatch.
#[cfg(feature = "patterns")]
pub fn validate_tool_arguments(value: &Value, schema: &Value) -> Result<(), ToolErrors> {
    ToolSchema::compile(schema, SchemaOptions::MCP)?.validate(value)
}

/// Parses and validates raw arguments against a schema.
#[cfg(feature = "patterns")]
pub fn parse_and_validate_tool_arguments(raw: &str, schema: &Value) -> Result<Map<String, Value>, ToolErrors> {
    let arguments = parse_tool_arguments(raw)?;
    validate_tool_arguments(&Value::Object(arguments.clone()), schema)?;
    Ok(arguments)
}
