//! What schema and argument checking report: stable codes, one problem each
//! with its JSON path, and a collector that keeps only the first few.
//!
//! Both checks keep going after a problem (so a tool author sees several at
//! once), but at most [`limits::MAX_VALIDATION_ERRORS`]: a hostile schema or
//! argument value cannot make the report itself large.

use crate::codes::wire_codes;
use crate::limits::{self, to_usize};
use serde::Serialize;
use std::fmt;

wire_codes! {
    /// Why a schema or an argument value was rejected.
    ToolErrorCode {
        /// The raw arguments were not a string of JSON text.
        ArgumentsNotJsonText = "ARGUMENTS_NOT_JSON_TEXT",
        /// The raw arguments exceed 256 KiB.
        ArgumentsTooLarge = "ARGUMENTS_TOO_LARGE",
        /// The raw arguments are not valid JSON.
        ArgumentsParseError = "ARGUMENTS_PARSE_ERROR",
        /// The arguments are not a JSON object.
        ArgumentsRootType = "ARGUMENTS_ROOT_TYPE",
        /// The schema is nested too deeply.
        SchemaDepthLimit = "SCHEMA_DEPTH_LIMIT",
        /// The schema has too many nodes.
        SchemaNodeLimit = "SCHEMA_NODE_LIMIT",
        /// The schema's root is not `type: "object"`.
        SchemaRootType = "SCHEMA_ROOT_TYPE",
        /// A schema node is neither an object nor a boolean.
        SchemaType = "SCHEMA_TYPE",
        /// A keyword outside the supported subset (or `x-mcp-header` on a custom
        /// tool).
        UnsupportedSchemaKeyword = "UNSUPPORTED_SCHEMA_KEYWORD",
        /// `type` names none of the seven JSON types.
        SchemaInvalidType = "SCHEMA_INVALID_TYPE",
        /// `required` is not a list of property names.
        SchemaRequired = "SCHEMA_REQUIRED",
        /// `properties` is not an object.
        SchemaProperties = "SCHEMA_PROPERTIES",
        /// `additionalProperties` is not a boolean.
        SchemaAdditionalProperties = "SCHEMA_ADDITIONAL_PROPERTIES",
        /// `pattern` is too long or not a regular expression.
        SchemaPattern = "SCHEMA_PATTERN",
        /// `pattern` needs features outside the linear-time subset.
        SchemaPatternUnsafe = "SCHEMA_PATTERN_UNSAFE",
        /// A length or item bound is not a non-negative integer, or a number
        /// bound is not finite.
        SchemaBound = "SCHEMA_BOUND",
        /// `enum` is not an array of at most 1,000 values.
        SchemaEnum = "SCHEMA_ENUM",
        /// `x-mcp-header` is not an HTTP token on a reachable scalar property.
        InvalidMcpHeader = "INVALID_MCP_HEADER",
        /// Two `x-mcp-header` names differ only in case.
        DuplicateMcpHeader = "DUPLICATE_MCP_HEADER",
        /// `allOf`, `anyOf` or `oneOf` is not an array of 1 to 20 schemas.
        SchemaComposition = "SCHEMA_COMPOSITION",
        /// The arguments are nested too deeply or hold too many values.
        ArgumentComplexity = "ARGUMENT_COMPLEXITY",
        /// A `false` schema rejects every value.
        SchemaFalse = "SCHEMA_FALSE",
        /// The value differs from `const`.
        Const = "CONST",
        /// The value is none of `enum`.
        Enum = "ENUM",
        /// The value is not of `type`.
        Type = "TYPE",
        /// The text is shorter than `minLength`.
        MinLength = "MIN_LENGTH",
        /// The text is longer than `maxLength`.
        MaxLength = "MAX_LENGTH",
        /// The text does not match `pattern`.
        Pattern = "PATTERN",
        /// The number is below `minimum`.
        Minimum = "MINIMUM",
        /// The number is above `maximum`.
        Maximum = "MAXIMUM",
        /// The array is longer than any argument array may be.
        ArrayLimit = "ARRAY_LIMIT",
        /// The array has fewer than `minItems` items.
        MinItems = "MIN_ITEMS",
        /// The array has more than `maxItems` items.
        MaxItems = "MAX_ITEMS",
        /// A `required` property is missing.
        Required = "REQUIRED",
        /// A property outside `properties` where `additionalProperties` is false.
        AdditionalProperty = "ADDITIONAL_PROPERTY",
        /// The value fails one of the `allOf` schemas.
        AllOf = "ALLOF",
        /// The value satisfies none of the `anyOf` schemas.
        AnyOf = "ANYOF",
        /// The value satisfies none or several of the `oneOf` schemas.
        OneOf = "ONEOF",
    }
}

/// One problem: `{code, path, message}`; paths look like `$.query` or
/// `$.properties.x.pattern`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    /// The stable code callers branch on.
    pub code: ToolErrorCode,
    /// Where in the schema or the arguments the problem is.
    pub path: String,
    /// The sentence for people (the model reads it too).
    pub message: String,
}

/// Up to eight problems, the first being the one reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolErrors {
    /// The problems, in the order they were found.
    pub errors: Vec<ToolError>,
}

impl ToolErrors {
    /// One problem at the root (`$`).
    pub(crate) fn single(code: ToolErrorCode, message: &str) -> ToolErrors {
        ToolErrors {
            errors: vec![ToolError {
                code,
                path: "$".to_owned(),
                message: message.to_owned(),
            }],
        }
    }

    /// The first problem.
    pub fn first(&self) -> Option<&ToolError> {
        self.errors.first()
    }

    /// Code of the first problem.
    pub fn code(&self) -> Option<ToolErrorCode> {
        self.first().map(|e| e.code)
    }
}

impl fmt::Display for ToolErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.first() {
            Some(e) => write!(f, "{} at {}: {}", e.code, e.path, e.message),
            None => f.write_str("invalid"),
        }
    }
}

impl std::error::Error for ToolErrors {}

/// Collects problems up to the limit and drops the rest.
#[derive(Default)]
pub(crate) struct Collector {
    errors: Vec<ToolError>,
}

impl Collector {
    /// Whether the limit is reached (checks stop descending then).
    pub(crate) fn full(&self) -> bool {
        self.errors.len() >= to_usize(limits::MAX_VALIDATION_ERRORS)
    }

    /// Keeps one more problem unless the collector is full.
    pub(crate) fn add(&mut self, code: ToolErrorCode, path: String, message: impl Into<String>) {
        if !self.full() {
            self.errors.push(ToolError {
                code,
                path,
                message: message.into(),
            });
        }
    }

    /// Whether nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Ok` when nothing was found, else every kept problem.
    pub(crate) fn finish(self) -> Result<(), ToolErrors> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ToolErrors { errors: self.errors })
        }
    }
}
