//! Argument validation: raw argument text (after the first NUL; before it, an
//! optional schema) is parsed and validated against the schema without
//! panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use serde_json::{Value, json};
use std::sync::OnceLock;

fn fixed() -> &'static ToolSchema {
    static SCHEMA: OnceLock<ToolSchema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = json!({"type": "object", "properties": {
            "query": {"type": "string", "minLength": 2, "maxLength": 20, "pattern": "^[a-z0-9 ]+$"},
            "count": {"type": "integer", "minimum": 1, "maximum": 5},
            "ratio": {"type": "number", "maximum": 1.5},
            "tags": {"type": "array", "items": {"enum": ["a", "b", {"c": [1]}]}, "maxItems": 4},
            "mode": {"const": {"a": 1}},
            "choice": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
            "any": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "all": {"allOf": [{"type": "integer"}, {"minimum": 3}]},
            "nested": {"type": "object", "properties": {"deep": {"type": "array", "items": {"type": "object"}}}, "additionalProperties": false},
            "never": false
        }, "required": ["query"]});
        match ToolSchema::compile(&schema, SchemaOptions::MCP) {
            Ok(compiled) => compiled,
            Err(errors) => panic!("the fixed fuzz schema is valid: {errors}"),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let (schema_bytes, raw) = match data.iter().position(|b| *b == 0) {
        Some(split) => (&data[..split], &data[split + 1..]),
        None => (&[][..], data),
    };
    let raw = String::from_utf8_lossy(raw);
    let _ = fixed().parse_and_validate(&raw);
    if let Ok(schema) = serde_json::from_slice::<Value>(schema_bytes)
        && let Ok(compiled) = ToolSchema::compile(&schema, SchemaOptions::MCP)
    {
        let _ = compiled.parse_and_validate(&raw);
    }
});
