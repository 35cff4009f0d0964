//! Checking a tool's parameter schema when it is saved or discovered.
//!
//! Only a bounded subset of JSON Schema is accepted, and the whole schema is
//! bounded in depth and node count, so checking the model's arguments later
//! is bounded too. Every `pattern` is compiled here once (with `patterns`;
//! otherwise checked by its text); the compiled regexes travel with the
//! checked schema.

use super::errors::{Collector, ToolErrorCode, ToolErrors};
use crate::js;
use crate::js_regex::{self, PatternError};
use crate::limits::{self, to_usize};
use crate::wire::present;
use serde_json::{Map, Value};
use std::collections::HashSet;

/// What checking keeps of a schema's patterns: each compiled, keyed by its
/// source.
#[cfg(feature = "patterns")]
pub(crate) type Patterns = std::collections::HashMap<String, regex_automata::meta::Regex>;
/// Without `patterns` nothing is compiled, so nothing is kept.
#[cfg(not(feature = "patterns"))]
pub(crate) type Patterns = ();

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

/// Options of schema checking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Allow `x-mcp-header` (schemas discovered from MCP servers only).
    pub allow_mcp_headers: bool,
}

impl SchemaOptions {
    /// A custom tool's schema: it has no MCP server to send headers to.
    pub const CUSTOM: SchemaOptions = SchemaOptions {
        allow_mcp_headers: false,
    };
    /// An MCP tool's schema: its server may take arguments as headers.
    pub const MCP: SchemaOptions = SchemaOptions {
        allow_mcp_headers: true,
    };
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

/// Checks a whole schema; on success, its patterns compiled and keyed by
/// their source.
pub(crate) fn check_schema(schema: &Value, options: SchemaOptions) -> Result<Patterns, ToolErrors> {
    let mut state = SchemaState {
        nodes: 0,
        collector: Collector::default(),
        allow_mcp_headers: options.allow_mcp_headers,
        header_names: HashSet::new(),
        patterns: Patterns::default(),
    };
    check_node(schema, "$", 0, &mut state, true, true);
    let SchemaState {
        collector, patterns, ..
    } = state;
    collector.finish().map(|()| patterns)
}

struct SchemaState {
    nodes: usize,
    collector: Collector,
    allow_mcp_headers: bool,
    /// Lower-cased `x-mcp-header` names seen so far.
    header_names: HashSet<String>,
    patterns: Patterns,
}

/// One node; `reachable` says whether it is reached from the root through
/// `properties` alone (only such properties may become MCP headers).
fn check_node(schema: &Value, path: &str, depth: usize, state: &mut SchemaState, is_root: bool, reachable: bool) {
    let Some(map) = node_object(schema, path, depth, state, is_root) else {
        return;
    };
    check_structure(map, path, is_root, &mut state.collector);
    check_pattern(map, path, state);
    check_bounds(map, path, &mut state.collector);
    check_mcp_header(map, path, state, reachable);
    check_children(map, path, depth, state, reachable);
}

/// Counts the node against the limits and returns it when it is an object
/// (a boolean schema needs no further checks).
fn node_object<'a>(
    schema: &'a Value,
    path: &str,
    depth: usize,
    state: &mut SchemaState,
    is_root: bool,
) -> Option<&'a Map<String, Value>> {
    let c = &mut state.collector;
    if c.full() {
        return None;
    }
    if depth > to_usize(limits::MAX_SCHEMA_DEPTH) {
        c.add(
            ToolErrorCode::SchemaDepthLimit,
            path.to_owned(),
            "The schema is nested too deeply.",
        );
        return None;
    }
    state.nodes += 1;
    if state.nodes > to_usize(limits::MAX_SCHEMA_NODES) {
        c.add(
            ToolErrorCode::SchemaNodeLimit,
            path.to_owned(),
            "The schema has too many nodes.",
        );
        return None;
    }
    match schema {
        Value::Bool(_) => {
            if is_root {
                c.add(ToolErrorCode::SchemaRootType, format!("{path}.type"), ROOT_MESSAGE);
            }
            None
        }
        Value::Object(map) => Some(map),
        _ => {
            c.add(
                ToolErrorCode::SchemaType,
                path.to_owned(),
                "A schema node must be an object or a boolean.",
            );
            None
        }
    }
}

const ROOT_MESSAGE: &str = "A tool schema must have type \"object\" at its root.";

/// Unknown keywords, `type`, `required`, `properties` and
/// `additionalProperties`.
fn check_structure(map: &Map<String, Value>, path: &str, is_root: bool, c: &mut Collector) {
    let is_known = |key: &str| ANNOTATION_KEYWORDS.contains(&key) || VALIDATION_KEYWORDS.contains(&key);
    for key in map.keys().filter(|key| !is_known(key)) {
        c.add(
            ToolErrorCode::UnsupportedSchemaKeyword,
            format!("{path}.{key}"),
            format!("The JSON Schema keyword {key} is not supported."),
        );
    }
    let type_name = map.get("type").and_then(Value::as_str);
    if is_root && type_name != Some("object") {
        c.add(ToolErrorCode::SchemaRootType, format!("{path}.type"), ROOT_MESSAGE);
    }
    if present(map, "type").is_some() && !type_name.is_some_and(|t| SCHEMA_TYPES.contains(&t)) {
        c.add(
            ToolErrorCode::SchemaInvalidType,
            format!("{path}.type"),
            "The schema type is not supported.",
        );
    }
    if let Some(required) = present(map, "required")
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
    if present(map, "properties").is_some_and(|p| !p.is_object()) {
        c.add(
            ToolErrorCode::SchemaProperties,
            format!("{path}.properties"),
            "properties must be an object.",
        );
    }
    if present(map, "additionalProperties").is_some_and(|p| !p.is_boolean()) {
        c.add(
            ToolErrorCode::SchemaAdditionalProperties,
            format!("{path}.additionalProperties"),
            "Only a boolean additionalProperties is supported.",
        );
    }
}

/// Compiles a pattern and keeps the regex.
#[cfg(feature = "patterns")]
fn judge_pattern(pattern: &str, patterns: &mut Patterns) -> Result<(), PatternError> {
    let regex = js_regex::compile_pattern(pattern)?;
    patterns.insert(pattern.to_owned(), regex);
    Ok(())
}

/// Checks a pattern by its text; the worker's compile has the last word.
#[cfg(not(feature = "patterns"))]
fn judge_pattern(pattern: &str, (): &mut Patterns) -> Result<(), PatternError> {
    js_regex::check_pattern_text(pattern)
}

/// Checks `pattern` with the linear-time subset, keeping what [`Patterns`]
/// keeps.
fn check_pattern(map: &Map<String, Value>, path: &str, state: &mut SchemaState) {
    let Some(pattern) = present(map, "pattern") else {
        return;
    };
    let c = &mut state.collector;
    let pattern_path = format!("{path}.pattern");
    match pattern.as_str() {
        Some(p) if js::utf16_len(p) <= to_usize(limits::MAX_PATTERN_CHARS) => {
            match judge_pattern(p, &mut state.patterns) {
                Ok(()) => {}
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
            }
        }
        _ => c.add(
            ToolErrorCode::SchemaPattern,
            pattern_path,
            "pattern must be a string of at most 256 characters.",
        ),
    }
}

/// Length, item and number bounds, and the size of `enum`.
fn check_bounds(map: &Map<String, Value>, path: &str, c: &mut Collector) {
    for key in ["minItems", "maxItems", "minLength", "maxLength"] {
        if let Some(bound) = present(map, key)
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
        if let Some(bound) = present(map, key)
            && !js::as_number(bound).is_some_and(f64::is_finite)
        {
            c.add(
                ToolErrorCode::SchemaBound,
                format!("{path}.{key}"),
                format!("{key} must be a finite number."),
            );
        }
    }
    if let Some(values) = present(map, "enum")
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
}

/// `x-mcp-header`: only from MCP servers, only on a scalar property reached
/// through `properties` alone, an HTTP token, unique regardless of case.
fn check_mcp_header(map: &Map<String, Value>, path: &str, state: &mut SchemaState, reachable: bool) {
    let Some(header) = present(map, "x-mcp-header") else {
        return;
    };
    let c = &mut state.collector;
    let header_path = format!("{path}.x-mcp-header");
    if !state.allow_mcp_headers {
        return c.add(
            ToolErrorCode::UnsupportedSchemaKeyword,
            header_path,
            "x-mcp-header is only accepted from MCP servers.",
        );
    }
    let type_name = map.get("type").and_then(Value::as_str);
    match header.as_str() {
        Some(name) if reachable && matches!(type_name, Some("string" | "integer" | "boolean")) && is_http_token(name) => {
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

/// `properties`, `items` and the composition branches.
fn check_children(map: &Map<String, Value>, path: &str, depth: usize, state: &mut SchemaState, reachable: bool) {
    if let Some(properties) = present(map, "properties").and_then(Value::as_object) {
        for (key, child) in properties {
            check_node(
                child,
                &format!("{path}.properties.{key}"),
                depth + 1,
                state,
                false,
                reachable,
            );
        }
    }
    if let Some(items) = present(map, "items") {
        check_node(items, &format!("{path}.items"), depth + 1, state, false, false);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        let Some(branches) = present(map, key) else { continue };
        match branches.as_array() {
            Some(list) if !list.is_empty() && list.len() <= to_usize(limits::MAX_COMPOSITION_BRANCHES) => {
                for (index, child) in list.iter().enumerate() {
                    check_node(child, &format!("{path}.{key}[{index}]"), depth + 1, state, false, false);
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
