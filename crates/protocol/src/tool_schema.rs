//! Tool parameter schemas and tool-call arguments.
//!
//! Custom tools and MCP servers describe their parameters with JSON Schema.
//! Only a bounded subset is supported (listed in [`ANNOTATION_KEYWORDS`] and
//! [`VALIDATION_KEYWORDS`]); a schema is checked when it is saved or
//! discovered, and the model's arguments are checked against it immediately
//! before each dispatch. Arguments arrive as JSON text of at most 256 KiB
//! with an object root. String lengths count code points, `1.0` is an
//! integer, and `pattern`s follow [`crate::js_regex`].

use crate::js;
use crate::js_regex::{self, PatternError};
use crate::limits::{self, to_usize};
use regex_automata::meta::Regex;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// Keywords accepted and ignored.
pub const ANNOTATION_KEYWORDS: &[&str] = &[
    "$schema",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords that constrain values.
pub const VALIDATION_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "const",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "allOf",
    "anyOf",
    "oneOf",
    "x-mcp-header",
];

/// The seven JSON types a `type` may name.
pub const SCHEMA_TYPES: &[&str] = &["object", "array", "string", "number", "integer", "boolean", "null"];

macro_rules! tool_codes {
    ($( $variant:ident = $wire:literal, )*) => {
        /// Why a schema or an argument value was rejected.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolErrorCode { $( $variant, )* }

        impl ToolErrorCode {
            pub const ALL: &'static [ToolErrorCode] = &[ $( ToolErrorCode::$variant, )* ];

            pub const fn as_str(self) -> &'static str {
                match self { $( ToolErrorCode::$variant => $wire, )* }
            }
        }
    };
}

tool_codes! {
    ArgumentsNotJsonText = "ARGUMENTS_NOT_JSON_TEXT",
    ArgumentsTooLarge = "ARGUMENTS_TOO_LARGE",
    ArgumentsParseError = "ARGUMENTS_PARSE_ERROR",
    ArgumentsRootType = "ARGUMENTS_ROOT_TYPE",
    SchemaDepthLimit = "SCHEMA_DEPTH_LIMIT",
    SchemaNodeLimit = "SCHEMA_NODE_LIMIT",
    SchemaRootType = "SCHEMA_ROOT_TYPE",
    SchemaType = "SCHEMA_TYPE",
    UnsupportedSchemaKeyword = "UNSUPPORTED_SCHEMA_KEYWORD",
    SchemaInvalidType = "SCHEMA_INVALID_TYPE",
    SchemaRequired = "SCHEMA_REQUIRED",
    SchemaProperties = "SCHEMA_PROPERTIES",
    SchemaAdditionalProperties = "SCHEMA_ADDITIONAL_PROPERTIES",
    SchemaPattern = "SCHEMA_PATTERN",
    SchemaPatternUnsafe = "SCHEMA_PATTERN_UNSAFE",
    SchemaBound = "SCHEMA_BOUND",
    SchemaEnum = "SCHEMA_ENUM",
    InvalidMcpHeader = "INVALID_MCP_HEADER",
    DuplicateMcpHeader = "DUPLICATE_MCP_HEADER",
    SchemaComposition = "SCHEMA_COMPOSITION",
    ArgumentComplexity = "ARGUMENT_COMPLEXITY",
    SchemaFalse = "SCHEMA_FALSE",
    Const = "CONST",
    Enum = "ENUM",
    Type = "TYPE",
    MinLength = "MIN_LENGTH",
    MaxLength = "MAX_LENGTH",
    Pattern = "PATTERN",
    Minimum = "MINIMUM",
    Maximum = "MAXIMUM",
    ArrayLimit = "ARRAY_LIMIT",
    MinItems = "MIN_ITEMS",
    MaxItems = "MAX_ITEMS",
    Required = "REQUIRED",
    AdditionalProperty = "ADDITIONAL_PROPERTY",
    AllOf = "ALLOF",
    AnyOf = "ANYOF",
    OneOf = "ONEOF",
}

impl Serialize for ToolErrorCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl fmt::Display for ToolErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem: `{code, path, message}`; paths look like `$.query` or
/// `$.properties.x.pattern`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolError {
    pub code: ToolErrorCode,
    pub path: String,
    pub message: String,
}

/// Up to eight problems, the first being the one reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolErrors {
    pub errors: Vec<ToolError>,
}

impl ToolErrors {
    fn single(code: ToolErrorCode, message: &str) -> ToolErrors {
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

/// Options of schema checking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Allow `x-mcp-header` (schemas discovered from MCP servers only).
    pub allow_mcp_headers: bool,
}

impl SchemaOptions {
    pub const CUSTOM: SchemaOptions = SchemaOptions {
        allow_mcp_headers: false,
    };
    pub const MCP: SchemaOptions = SchemaOptions {
        allow_mcp_headers: true,
    };
}

#[derive(Default)]
struct Collector {
    errors: Vec<ToolError>,
}

impl Collector {
    fn full(&self) -> bool {
        self.errors.len() >= to_usize(limits::MAX_VALIDATION_ERRORS)
    }

    fn add(&mut self, code: ToolErrorCode, path: String, message: impl Into<String>) {
        if !self.full() {
            self.errors.push(ToolError {
                code,
                path,
                message: message.into(),
            });
        }
    }
}

struct SchemaState {
    nodes: usize,
    collector: Collector,
    allow_mcp_headers: bool,
    header_names: HashSet<String>,
    patterns: HashMap<String, Regex>,
}

/// Whether a header name is an RFC 7230 token.
pub fn is_http_token(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                        | b'-'
                )
        })
}

fn is_known_keyword(key: &str) -> bool {
    ANNOTATION_KEYWORDS.contains(&key) || VALIDATION_KEYWORDS.contains(&key)
}

fn check_schema_node(
    schema: &Value,
    path: &str,
    depth: usize,
    state: &mut SchemaState,
    is_root: bool,
    reachable: bool,
) {
    let c = &mut state.collector;
    if c.full() {
        return;
    }
    if depth > to_usize(limits::MAX_SCHEMA_DEPTH) {
        return c.add(
            ToolErrorCode::SchemaDepthLimit,
            path.to_owned(),
            "The schema is nested too deeply.",
        );
    }
    state.nodes += 1;
    if state.nodes > to_usize(limits::MAX_SCHEMA_NODES) {
        return c.add(
            ToolErrorCode::SchemaNodeLimit,
            path.to_owned(),
            "The schema has too many nodes.",
        );
    }
    let root_message = "A tool schema must have type \"object\" at its root.";
    let map = match schema {
        Value::Bool(_) => {
            if is_root {
                c.add(ToolErrorCode::SchemaRootType, format!("{path}.type"), root_message);
            }
            return;
        }
        Value::Object(map) => map,
        _ => {
            return c.add(
                ToolErrorCode::SchemaType,
                path.to_owned(),
                "A schema node must be an object or a boolean.",
            );
        }
    };
    for key in map.keys().filter(|key| !is_known_keyword(key)) {
        c.add(
            ToolErrorCode::UnsupportedSchemaKeyword,
            format!("{path}.{key}"),
            format!("The JSON Schema keyword {key} is not supported."),
        );
    }
    let get = |key: &str| map.get(key).filter(|v| !v.is_null());
    let type_name = map.get("type").and_then(Value::as_str);
    if is_root && type_name != Some("object") {
        c.add(ToolErrorCode::SchemaRootType, format!("{path}.type"), root_message);
    }
    if get("type").is_some() && !type_name.is_some_and(|t| SCHEMA_TYPES.contains(&t)) {
        c.add(
            ToolErrorCode::SchemaInvalidType,
            format!("{path}.type"),
            "The schema type is not supported.",
        );
    }
    if let Some(required) = get("required")
        && !required
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string))
    {
        c.add(
            ToolErrorCode::SchemaRequired,
            format!("{path}.required"),
            "required must list property names.",
        );
    }
    if get("properties").is_some_and(|p| !p.is_object()) {
        c.add(
            ToolErrorCode::SchemaProperties,
            format!("{path}.properties"),
            "properties must be an object.",
        );
    }
    if get("additionalProperties").is_some_and(|p| !p.is_boolean()) {
        c.add(
            ToolErrorCode::SchemaAdditionalProperties,
            format!("{path}.additionalProperties"),
            "Only a boolean additionalProperties is supported.",
        );
    }
    if let Some(pattern) = get("pattern") {
        let pattern_path = format!("{path}.pattern");
        match pattern.as_str() {
            Some(p) if js::utf16_len(p) <= to_usize(limits::MAX_PATTERN_CHARS) => match js_regex::compile_pattern(p) {
                Ok(regex) => {
                    state.patterns.insert(p.to_owned(), regex);
                }
                Err(PatternError::Syntax) => c.add(
                    ToolErrorCode::SchemaPattern,
                    pattern_path,
                    "pattern is not a valid regular expression.",
                ),
                Err(PatternError::Unsafe) => c.add(
                    ToolErrorCode::SchemaPatternUnsafe,
                    pattern_path,
                    "pattern uses features outside the linear-time subset.",
                ),
            },
            _ => c.add(
                ToolErrorCode::SchemaPattern,
                pattern_path,
                "pattern must be a string of at most 256 characters.",
            ),
        }
    }
    for key in ["minItems", "maxItems", "minLength", "maxLength"] {
        if let Some(bound) = get(key)
            && !(js::is_integer(bound) && js::as_number(bound).is_some_and(|n| n >= 0.0))
        {
            c.add(
                ToolErrorCode::SchemaBound,
                format!("{path}.{key}"),
                format!("{key} must be a non-negative integer."),
            );
        }
    }
    for key in ["minimum", "maximum"] {
        if let Some(bound) = get(key)
            && !js::as_number(bound).is_some_and(f64::is_finite)
        {
            c.add(
                ToolErrorCode::SchemaBound,
                format!("{path}.{key}"),
                format!("{key} must be a finite number."),
            );
        }
    }
    if let Some(values) = get("enum")
        && values
            .as_array()
            .is_none_or(|v| v.len() > to_usize(limits::MAX_ENUM_VALUES))
    {
        c.add(
            ToolErrorCode::SchemaEnum,
            format!("{path}.enum"),
            "enum must be an array of at most 1000 values.",
        );
    }
    if let Some(header) = get("x-mcp-header") {
        let header_path = format!("{path}.x-mcp-header");
        if !state.allow_mcp_headers {
            c.add(
                ToolErrorCode::UnsupportedSchemaKeyword,
                header_path,
                "x-mcp-header is only accepted from MCP servers.",
            );
        } else {
            match header.as_str() {
                Some(name)
                    if reachable && matches!(type_name, Some("string" | "integer" | "boolean")) && is_http_token(name) =>
                {
                    if !state.header_names.insert(name.to_ascii_lowercase()) {
                        c.add(
                            ToolErrorCode::DuplicateMcpHeader,
                            header_path,
                            "x-mcp-header names must differ regardless of case.",
                        );
                    }
                }
                _ => c.add(
                    ToolErrorCode::InvalidMcpHeader,
                    header_path,
                    "x-mcp-header must be an HTTP token on a string, integer or boolean property reachable through properties alone.",
                ),
            }
        }
    }
    if let Some(properties) = get("properties").and_then(Value::as_object) {
        for (key, child) in properties {
            check_schema_node(
                child,
                &format!("{path}.properties.{key}"),
                depth + 1,
                state,
                false,
                reachable,
            );
        }
    }
    if let Some(items) = get("items") {
        check_schema_node(items, &format!("{path}.items"), depth + 1, state, false, false);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        let Some(branches) = get(key) else { continue };
        match branches.as_array() {
            Some(list) if !list.is_empty() && list.len() <= to_usize(limits::MAX_COMPOSITION_BRANCHES) => {
                for (index, child) in list.iter().enumerate() {
                    check_schema_node(child, &format!("{path}.{key}[{index}]"), depth + 1, state, false, false);
                }
            }
            _ => state.collector.add(
                ToolErrorCode::SchemaComposition,
                format!("{path}.{key}"),
                format!("{key} must be an array of 1 to 20 schemas."),
            ),
        }
    }
}

/// A checked schema with its patterns compiled, ready to validate arguments.
#[derive(Debug, Clone)]
pub struct ToolSchema {
    schema: Value,
    patterns: HashMap<String, Regex>,
}

impl ToolSchema {
    /// Checks a schema (`validateToolSchema`).
    pub fn compile(schema: &Value, options: SchemaOptions) -> Result<ToolSchema, ToolErrors> {
        let mut state = SchemaState {
            nodes: 0,
            collector: Collector::default(),
            allow_mcp_headers: options.allow_mcp_headers,
            header_names: HashSet::new(),
            patterns: HashMap::new(),
        };
        check_schema_node(schema, "$", 0, &mut state, true, true);
        if state.collector.errors.is_empty() {
            Ok(ToolSchema {
                schema: schema.clone(),
                patterns: state.patterns,
            })
        } else {
            Err(ToolErrors {
                errors: state.collector.errors,
            })
        }
    }

    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Validates a parsed argument value (`validateToolArguments`).
    pub fn validate(&self, value: &Value) -> Result<(), ToolErrors> {
        let mut state = ValueState::default();
        self.check_value(value, &self.schema, "$", 0, &mut state);
        if state.collector.errors.is_empty() {
            Ok(())
        } else {
            Err(ToolErrors {
                errors: state.collector.errors,
            })
        }
    }

    /// Parses raw argument text and validates it
    /// (`parseAndValidateToolArguments`).
    pub fn parse_and_validate(&self, raw: &str) -> Result<Map<String, Value>, ToolErrors> {
        let arguments = parse_tool_arguments(raw)?;
        self.validate(&Value::Object(arguments.clone()))?;
        Ok(arguments)
    }

    fn check_value(&self, value: &Value, schema: &Value, path: &str, depth: usize, state: &mut ValueState) {
        if state.collector.full() {
            return;
        }
        state.seen += 1;
        if state.seen > to_usize(limits::MAX_VISITED_ARGUMENT_VALUES) || depth > to_usize(limits::MAX_SCHEMA_DEPTH) {
            return state.collector.add(
                ToolErrorCode::ArgumentComplexity,
                path.to_owned(),
                "The arguments are nested too deeply or are too large.",
            );
        }
        let map = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                return state.collector.add(
                    ToolErrorCode::SchemaFalse,
                    path.to_owned(),
                    "The schema rejects this value.",
                );
            }
            Value::Object(map) => map,
            _ => return,
        };
        let c = &mut state.collector;
        let get = |key: &str| map.get(key).filter(|v| !v.is_null());
        if let Some(expected) = map.get("const")
            && !js::deep_equal(value, expected)
        {
            c.add(ToolErrorCode::Const, path.to_owned(), "The value differs from const.");
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array)
            && !values.iter().any(|item| js::deep_equal(item, value))
        {
            c.add(
                ToolErrorCode::Enum,
                path.to_owned(),
                "The value is not one of the enum values.",
            );
        }
        let type_name = map.get("type").and_then(Value::as_str).filter(|t| !t.is_empty());
        let type_ok = type_name.is_none_or(|t| matches_type(value, t));
        if let Some(t) = type_name
            && !type_ok
        {
            c.add(
                ToolErrorCode::Type,
                path.to_owned(),
                format!("Expected a value of type {t}."),
            );
        }
        if c.full() || !type_ok {
            return;
        }
        match value {
            Value::String(text) => {
                let length = js::code_point_len(text) as f64;
                if let Some(min) = get("minLength").and_then(js::as_number)
                    && length < min
                {
                    c.add(
                        ToolErrorCode::MinLength,
                        path.to_owned(),
                        format!("Use at least {} characters.", js::number_to_string(min)),
                    );
                }
                if let Some(max) = get("maxLength").and_then(js::as_number)
                    && length > max
                {
                    c.add(
                        ToolErrorCode::MaxLength,
                        path.to_owned(),
                        format!("Use at most {} characters.", js::number_to_string(max)),
                    );
                }
                if let Some(pattern) = get("pattern").and_then(Value::as_str) {
                    let matched = self.patterns.get(pattern).is_some_and(|re| re.is_match(text.as_str()));
                    if !matched {
                        c.add(
                            ToolErrorCode::Pattern,
                            path.to_owned(),
                            "The text does not match the pattern.",
                        );
                    }
                }
            }
            Value::Number(_) => {
                let n = js::as_number(value).unwrap_or(f64::NAN);
                if let Some(min) = get("minimum").and_then(js::as_number)
                    && n < min
                {
                    c.add(
                        ToolErrorCode::Minimum,
                        path.to_owned(),
                        format!("The number must be at least {}.", js::number_to_string(min)),
                    );
                }
                if let Some(max) = get("maximum").and_then(js::as_number)
                    && n > max
                {
                    c.add(
                        ToolErrorCode::Maximum,
                        path.to_owned(),
                        format!("The number must be at most {}.", js::number_to_string(max)),
                    );
                }
            }
            Value::Array(items) => {
                let count = items.len();
                let limit = to_usize(limits::MAX_ARGUMENT_ARRAY_ITEMS);
                if count > limit {
                    c.add(
                        ToolErrorCode::ArrayLimit,
                        path.to_owned(),
                        "The array is longer than supported.",
                    );
                }
                if let Some(min) = get("minItems").and_then(js::as_number)
                    && (count as f64) < min
                {
                    c.add(
                        ToolErrorCode::MinItems,
                        path.to_owned(),
                        format!("Give at least {} items.", js::number_to_string(min)),
                    );
                }
                if let Some(max) = get("maxItems").and_then(js::as_number)
                    && (count as f64) > max
                {
                    c.add(
                        ToolErrorCode::MaxItems,
                        path.to_owned(),
                        format!("Give at most {} items.", js::number_to_string(max)),
                    );
                }
                if let Some(item_schema) = map.get("items")
                    && count <= limit
                {
                    for (index, item) in items.iter().enumerate() {
                        self.check_value(item, item_schema, &format!("{path}[{index}]"), depth + 1, state);
                    }
                }
            }
            Value::Object(object) => {
                for key in get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !object.contains_key(key) {
                        c.add(
                            ToolErrorCode::Required,
                            format!("{path}.{key}"),
                            format!("The property {key} is required."),
                        );
                    }
                }
                let properties = get("properties").and_then(Value::as_object);
                if let Some(properties) = properties {
                    for (key, child) in properties {
                        if let Some(item) = object.get(key) {
                            self.check_value(item, child, &format!("{path}.{key}"), depth + 1, state);
                        }
                    }
                }
                if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                    for key in object.keys() {
                        if !properties.is_some_and(|p| p.contains_key(key)) {
                            state.collector.add(
                                ToolErrorCode::AdditionalProperty,
                                format!("{path}.{key}"),
                                format!("The property {key} is not allowed."),
                            );
                        }
                    }
                }
            }
            Value::Null | Value::Bool(_) => {}
        }
        for (key, code, message) in [
            (
                "allOf",
                ToolErrorCode::AllOf,
                "The value does not satisfy every allOf schema.",
            ),
            ("anyOf", ToolErrorCode::AnyOf, "The value satisfies no anyOf schema."),
            (
                "oneOf",
                ToolErrorCode::OneOf,
                "The value must satisfy exactly one oneOf schema.",
            ),
        ] {
            let Some(branches) = map.get(key).and_then(Value::as_array) else {
                continue;
            };
            let matches = branches
                .iter()
                .filter(|child| {
                    let mut trial = ValueState::default();
                    self.check_value(value, child, path, depth + 1, &mut trial);
                    trial.collector.errors.is_empty()
                })
                .count();
            let failed = match key {
                "allOf" => matches != branches.len(),
                "anyOf" => matches == 0,
                _ => matches != 1,
            };
            if failed {
                state.collector.add(code, path.to_owned(), message);
            }
        }
    }
}

#[derive(Default)]
struct ValueState {
    collector: Collector,
    seen: usize,
}

fn matches_type(value: &Value, type_name: &str) -> bool {
    match type_name {
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "integer" => js::is_integer(value),
        "number" => js::as_number(value).is_some_and(f64::is_finite),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        _ => false,
    }
}

/// Checks a schema without keeping the compiled form.
pub fn validate_tool_schema(schema: &Value, options: SchemaOptions) -> Result<(), ToolErrors> {
    ToolSchema::compile(schema, options).map(|_| ())
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
pub fn validate_tool_arguments(value: &Value, schema: &Value) -> Result<(), ToolErrors> {
    ToolSchema::compile(schema, SchemaOptions::MCP)?.validate(value)
}

/// Parses and validates raw arguments against a schema.
pub fn parse_and_validate_tool_arguments(raw: &str, schema: &Value) -> Result<Map<String, Value>, ToolErrors> {
    let arguments = parse_tool_arguments(raw)?;
    validate_tool_arguments(&Value::Object(arguments.clone()), schema)?;
    Ok(arguments)
}
