//! What schema and argument checking report: stable codes, one problem each
//! with its JSON path, and a collector that keeps only the first few.
//!
//! Both checks keep going after a problem (so a tool author sees several at
//! once), but at most [`limits::MAX_VALIDATION_ERRORS`]: a hostile schema or
//! argument value cannot make the report itself large.

use crate::codes::code_subset;
use crate::limits::{self, to_usize};
use serde::Serialize;
use std::fmt;

code_subset! {
    /// Why a schema or an argument value was rejected.
    ToolErrorCode {
        /// The raw arguments were not a string of JSON text.
        ArgumentsNotJsonText,
        /// The raw arguments exceed 256 KiB.
        ArgumentsTooLarge,
        /// The raw arguments are not valid JSON.
        ArgumentsParseError,
        /// The arguments are not a JSON object.
        ArgumentsRootType,
        /// The schema is nested too deeply.
        SchemaDepthLimit,
        /// The schema has too many nodes.
        SchemaNodeLimit,
        /// The schema's root is not `type: "object"`.
        SchemaRootType,
        /// A schema node is neither an object nor a boolean.
        SchemaType,
        /// A keyword outside the supported subset (or `x-mcp-header` on a custom
        /// tool).
        UnsupportedSchemaKeyword,
        /// `type` names none of the seven JSON types.
        SchemaInvalidType,
        /// `required` is not a list of property names.
        SchemaRequired,
        /// `properties` is not an object.
        SchemaProperties,
        /// `additionalProperties` is not a boolean.
        SchemaAdditionalProperties,
        /// `pattern` is too long or not a regular expression.
        SchemaPattern,
        /// `pattern` needs features outside the linear-time subset.
        SchemaPatternUnsafe,
        /// A length or item bound is not a non-negative integer, or a number
        /// bound is not finite.
        SchemaBound,
        /// `enum` is not an array of at most 1,000 values.
        SchemaEnum,
        /// `x-mcp-header` is not an HTTP token on a reachable scalar property.
        InvalidMcpHeader,
        /// Two `x-mcp-header` names differ only in case.
        DuplicateMcpHeader,
        /// `allOf`, `anyOf` or `oneOf` is not an array of 1 to 20 schemas.
        SchemaComposition,
        /// The arguments are nested too deeply or hold too many values.
        ArgumentComplexity,
        /// A `false` schema rejects every value.
        SchemaFalse,
        /// The value differs from `const`.
        Const,
        /// The value is none of `enum`.
        Enum,
        /// The value is not of `type`.
        Type,
        /// The text is shorter than `minLength`.
        MinLength,
        /// The text is longer than `maxLength`.
        MaxLength,
        /// The text does not match `pattern`.
        Pattern,
        /// The number is below `minimum`.
        Minimum,
        /// The number is above `maximum`.
        Maximum,
        /// The array is longer than any argument array may be.
        ArrayLimit,
        /// The array has fewer than `minItems` items.
        MinItems,
        /// The array has more than `maxItems` items.
        MaxItems,
        /// A `required` property is missing.
        Required,
        /// A property outside `properties` where `additionalProperties` is false.
        AdditionalProperty,
        /// The value fails one of the `allOf` schemas.
        AllOf,
        /// The value satisfies none of the `anyOf` schemas.
        AnyOf,
        /// The value satisfies none or several of the `oneOf` schemas.
        OneOf,
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

    /// Whether nothing was found (argument checks try compositions with it).
    #[cfg(feature = "patterns")]
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
