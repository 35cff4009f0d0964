//! Schema checking: any JSON schema is accepted or rejected with codes, and an
//! accepted schema validates arbitrary values without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    for options in [SchemaOptions::CUSTOM, SchemaOptions::MCP] {
        if let Ok(schema) = ToolSchema::compile(&value, options) {
            let _ = schema.validate(&value);
            let _ = schema.validate(&serde_json::json!({}));
            if let Some(default) = value.get("default") {
                let _ = schema.validate(default);
            }
            if let Some(examples) = value.get("examples").and_then(Value::as_array) {
                for example in examples {
                    let _ = schema.validate(example);
                }
            }
        }
    }
});
