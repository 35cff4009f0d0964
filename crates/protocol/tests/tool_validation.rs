//! What the original's `tool-validation` test pins down for schemas and
//! arguments (the registry parts live with the worker).
//!
//! Checking arguments takes compiled patterns, so those tests need the
//! `patterns` feature; the schema tests run in the panel's build too.

use protocol::tool_schema::{
    SchemaOptions, ToolErrorCode, parse_tool_arguments, parse_tool_arguments_value, validate_tool_schema,
};
#[cfg(feature = "patterns")]
use protocol::tool_schema::{ToolSchema, parse_and_validate_tool_arguments};
use serde_json::{Value, json};

#[cfg(feature = "patterns")]
fn schema() -> Value {
    json!({"type": "object", "properties": {
        "query": {"type": "string", "minLength": 2, "maxLength": 20},
        "count": {"type": "integer", "minimum": 1, "maximum": 5}
    }, "required": ["query"], "additionalProperties": false})
}

fn code(result: Result<impl Sized, protocol::tool_schema::ToolErrors>) -> Option<ToolErrorCode> {
    result.err().and_then(|e| e.code())
}

#[test]
fn arguments_parse_without_silent_fallback() {
    assert_eq!(
        code(parse_tool_arguments("{")),
        Some(ToolErrorCode::ArgumentsParseError)
    );
    assert_eq!(code(parse_tool_arguments("[]")), Some(ToolErrorCode::ArgumentsRootType));
    assert_eq!(
        code(parse_tool_arguments_value(&json!({"a": 1}))),
        Some(ToolErrorCode::ArgumentsNotJsonText)
    );
    let big = format!("{{\"a\":\"{}\"}}", "é".repeat(131_072));
    assert_eq!(
        code(parse_tool_arguments(&big)),
        Some(ToolErrorCode::ArgumentsTooLarge),
        "the cap counts UTF-8 bytes"
    );
}

#[cfg(feature = "patterns")]
#[test]
fn arguments_validate_against_the_schema() {
    let ok = parse_and_validate_tool_arguments(r#"{"query":"ok","count":2}"#, &schema());
    assert_eq!(ok.map(Value::Object), Ok(json!({"query": "ok", "count": 2})));
    let short = parse_and_validate_tool_arguments(r#"{"query":"x"}"#, &schema()).expect_err("too short");
    assert_eq!(short.first().map(|e| e.path.as_str()), Some("$.query"));
    assert_eq!(
        code(parse_and_validate_tool_arguments(
            r#"{"query":"ok","extra":1}"#,
            &schema()
        )),
        Some(ToolErrorCode::AdditionalProperty)
    );
    assert!(parse_and_validate_tool_arguments(r#"{"query":"ok","count":2.0}"#, &schema()).is_ok());
    assert!(
        parse_and_validate_tool_arguments(r#"{"query":"😀😀"}"#, &schema()).is_ok(),
        "lengths count code points"
    );
}

#[test]
fn unsupported_and_ambiguous_schemas_are_rejected() {
    let check = |schema: Value| code(validate_tool_schema(&schema, SchemaOptions::CUSTOM));
    assert_eq!(
        check(json!({"type": "object", "properties": {}, "patternProperties": {}})),
        Some(ToolErrorCode::UnsupportedSchemaKeyword)
    );
    assert_eq!(
        check(json!({"type": "array", "items": {"type": "string"}})),
        Some(ToolErrorCode::SchemaRootType)
    );
    assert_eq!(
        check(json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "["}}})),
        Some(ToolErrorCode::SchemaPattern)
    );
    assert_eq!(check(json!(true)), Some(ToolErrorCode::SchemaRootType));
    assert_eq!(check(json!(false)), Some(ToolErrorCode::SchemaRootType));
    for unsafe_pattern in ["(a+)+$", "^a+a+$", "[a]+b"] {
        assert_eq!(
            check(json!({"type": "object", "properties": {"x": {"type": "string", "pattern": unsafe_pattern}}})),
            Some(ToolErrorCode::SchemaPatternUnsafe),
            "{unsafe_pattern}"
        );
    }
    assert_eq!(
        check(json!({"type": "object", "properties": {"x": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$"}}})),
        None
    );
    assert_eq!(
        check(json!({"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "X"}}})),
        Some(ToolErrorCode::UnsupportedSchemaKeyword)
    );
}

#[cfg(feature = "patterns")]
#[test]
fn boolean_items_and_structural_enum_and_const() {
    let no_items =
        json!({"type": "object", "properties": {"values": {"type": "array", "items": false}}, "required": ["values"]});
    assert!(parse_and_validate_tool_arguments(r#"{"values":[]}"#, &no_items).is_ok());
    assert_eq!(
        code(parse_and_validate_tool_arguments(r#"{"values":[1]}"#, &no_items)),
        Some(ToolErrorCode::SchemaFalse)
    );
    let structural = json!({"type": "object", "properties": {
        "exact": {"const": {"a": 1, "b": 2}},
        "choice": {"enum": [{"nested": {"x": true, "y": false}}]}
    }, "required": ["exact", "choice"]});
    assert!(
        parse_and_validate_tool_arguments(
            r#"{"exact":{"b":2,"a":1.0},"choice":{"nested":{"y":false,"x":true}}}"#,
            &structural
        )
        .is_ok()
    );
    assert_eq!(
        code(parse_and_validate_tool_arguments(
            r#"{"exact":{"a":1},"choice":{"nested":{"y":false,"x":true}}}"#,
            &structural
        )),
        Some(ToolErrorCode::Const)
    );
}

#[test]
fn mcp_parameter_headers_need_unique_reachable_scalars() {
    let valid = json!({"type": "object", "properties": {"locale": {"type": "string", "x-mcp-header": "X-Locale"}}});
    assert!(validate_tool_schema(&valid, SchemaOptions::MCP).is_ok());
    let duplicate = json!({"type": "object", "properties": {
        "a": {"type": "string", "x-mcp-header": "X-Choice"},
        "b": {"type": "integer", "x-mcp-header": "x-choice"}
    }});
    assert_eq!(
        code(validate_tool_schema(&duplicate, SchemaOptions::MCP)),
        Some(ToolErrorCode::DuplicateMcpHeader)
    );
    let nested = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "X"}}}});
    assert_eq!(
        code(validate_tool_schema(&nested, SchemaOptions::MCP)),
        Some(ToolErrorCode::InvalidMcpHeader)
    );
}

#[cfg(feature = "patterns")]
#[test]
fn compiled_schemas_validate_repeatedly_and_bound_work() {
    let compiled = ToolSchema::compile(
        &json!({"type": "object", "properties": {
            "tag": {"type": "string", "pattern": "^[a-z]{1,8}$"},
            "list": {"type": "array", "items": {"type": "integer"}}
        }}),
        SchemaOptions::CUSTOM,
    )
    .expect("valid schema");
    assert!(compiled.parse_and_validate(r#"{"tag":"abc"}"#).is_ok());
    assert_eq!(
        code(compiled.parse_and_validate(r#"{"tag":"ABC"}"#)),
        Some(ToolErrorCode::Pattern)
    );
    let long: Vec<u32> = (0..10_001).collect();
    let args = json!({"list": long});
    assert_eq!(code(compiled.validate(&args)), Some(ToolErrorCode::ArrayLimit));
    let mut deep = json!(1);
    for _ in 0..25 {
        deep = json!({"a": deep});
    }
    let open = ToolSchema::compile(&json!({"type": "object"}), SchemaOptions::CUSTOM).expect("valid");
    assert!(open.validate(&deep).is_ok(), "unconstrained nesting is not visited");
    let errors = compiled
        .validate(&json!({"tag": 1, "list": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}))
        .expect_err("invalid");
    assert_eq!(errors.errors.len(), 8, "at most eight errors are collected");
}
