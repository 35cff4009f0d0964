//! Checking the model's arguments against a checked schema, immediately
//! before each dispatch.
//!
//! JavaScript semantics decide: string lengths count code points, `1.0` is an
//! integer, `const` and `enum` compare like the original's deep equality.
//! The number of values visited is bounded, so even a wide schema with
//! compositions cannot make one call expensive.

use super::errors::{Collector, ToolErrorCode, ToolErrors};
use super::schema_check::Patterns;
use crate::js;
use crate::limits::{self, to_usize};
use crate::wire::present;
use serde_json::{Map, Value};

/// Checks `value` against `schema`, whose patterns were compiled into
/// `patterns` when the schema was checked.
pub(crate) fn check_arguments(value: &Value, schema: &Value, patterns: &Patterns) -> Result<(), ToolErrors> {
    let mut state = ValueState::default();
    Checker { patterns }.check(value, schema, "$", 0, &mut state);
    state.collector.finish()
}

#[derive(Default)]
struct ValueState {
    collector: Collector,
    /// Values visited so far, composition trials included.
    seen: usize,
}

struct Checker<'a> {
    patterns: &'a Patterns,
}

impl Checker<'_> {
    fn check(&self, value: &Value, schema: &Value, path: &str, depth: usize, state: &mut ValueState) {
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
        if !check_const_enum_type(value, map, path, &mut state.collector) {
            return;
        }
        match value {
            Value::String(text) => self.check_string(text, map, path, &mut state.collector),
            Value::Number(_) => {
                let n = js::as_number(value).unwrap_or(f64::NAN);
                check_bounds(&mut state.collector, map, path, n, &NUMBER_BOUNDS);
            }
            Value::Array(items) => self.check_array(items, map, path, depth, state),
            Value::Object(object) => self.check_object(object, map, path, depth, state),
            Value::Null | Value::Bool(_) => {}
        }
        self.check_compositions(value, map, path, depth, state);
    }

    /// `minLength`, `maxLength` (in code points) and `pattern`.
    fn check_string(&self, text: &str, map: &Map<String, Value>, path: &str, c: &mut Collector) {
        check_bounds(c, map, path, js::code_point_len(text) as f64, &LENGTH_BOUNDS);
        if let Some(pattern) = present(map, "pattern").and_then(Value::as_str) {
            let matched = self.patterns.get(pattern).is_some_and(|re| re.is_match(text));
            if !matched {
                c.add(
                    ToolErrorCode::Pattern,
                    path.to_owned(),
                    "The text does not match the pattern.",
                );
            }
        }
    }

    /// The argument array limit, `minItems`, `maxItems` and `items`.
    fn check_array(&self, items: &[Value], map: &Map<String, Value>, path: &str, depth: usize, state: &mut ValueState) {
        let c = &mut state.collector;
        let count = items.len();
        let limit = to_usize(limits::MAX_ARGUMENT_ARRAY_ITEMS);
        if count > limit {
            c.add(
                ToolErrorCode::ArrayLimit,
                path.to_owned(),
                "The array is longer than supported.",
            );
        }
        check_bounds(c, map, path, count as f64, &ITEM_BOUNDS);
        if let Some(item_schema) = map.get("items")
            && count <= limit
        {
            for (index, item) in items.iter().enumerate() {
                self.check(item, item_schema, &format!("{path}[{index}]"), depth + 1, state);
            }
        }
    }

    /// `required`, `properties` and `additionalProperties: false`.
    fn check_object(
        &self,
        object: &Map<String, Value>,
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
        state: &mut ValueState,
    ) {
        for key in present(map, "required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(key) {
                state.collector.add(
                    ToolErrorCode::Required,
                    format!("{path}.{key}"),
                    format!("The property {key} is required."),
                );
            }
        }
        let properties = present(map, "properties").and_then(Value::as_object);
        if let Some(properties) = properties {
            for (key, child) in properties {
                if let Some(item) = object.get(key) {
                    self.check(item, child, &format!("{path}.{key}"), depth + 1, state);
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

    /// `allOf`, `anyOf`, `oneOf`: each branch is tried on its own, so a
    /// failing branch's problems are not reported, only the composition's.
    fn check_compositions(
        &self,
        value: &Value,
        map: &Map<String, Value>,
        path: &str,
        depth: usize,
        state: &mut ValueState,
    ) {
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
                    self.check(value, child, path, depth + 1, &mut trial);
                    trial.collector.is_empty()
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

/// `const`, `enum` and `type`; whether the type-specific checks should run
/// (the type matched and the collector has room).
fn check_const_enum_type(value: &Value, map: &Map<String, Value>, path: &str, c: &mut Collector) -> bool {
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
    type_ok && !c.full()
}

/// A numeric bound keyword and how to report crossing it.
struct Bound {
    key: &'static str,
    code: ToolErrorCode,
    /// A `min*` keyword: the value may not be below it (`max*`: above).
    lower: bool,
    /// The message's text before and after the bound's number.
    message: (&'static str, &'static str),
}

const LENGTH_BOUNDS: [Bound; 2] = [
    Bound {
        key: "minLength",
        code: ToolErrorCode::MinLength,
        lower: true,
        message: ("Use at least ", " characters."),
    },
    Bound {
        key: "maxLength",
        code: ToolErrorCode::MaxLength,
        lower: false,
        message: ("Use at most ", " characters."),
    },
];

const ITEM_BOUNDS: [Bound; 2] = [
    Bound {
        key: "minItems",
        code: ToolErrorCode::MinItems,
        lower: true,
        message: ("Give at least ", " items."),
    },
    Bound {
        key: "maxItems",
        code: ToolErrorCode::MaxItems,
        lower: false,
        message: ("Give at most ", " items."),
    },
];

const NUMBER_BOUNDS: [Bound; 2] = [
    Bound {
        key: "minimum",
        code: ToolErrorCode::Minimum,
        lower: true,
        message: ("The number must be at least ", "."),
    },
    Bound {
        key: "maximum",
        code: ToolErrorCode::Maximum,
        lower: false,
        message: ("The number must be at most ", "."),
    },
];

/// Checks `actual` (a length, a count or a number) against each bound the
/// schema sets. A NaN crosses no bound, as in JavaScript.
fn check_bounds(c: &mut Collector, map: &Map<String, Value>, path: &str, actual: f64, bounds: &[Bound]) {
    for bound in bounds {
        let Some(limit) = present(map, bound.key).and_then(js::as_number) else {
            continue;
        };
        let crossed = if bound.lower { actual < limit } else { actual > limit };
        if crossed {
            let (before, after) = bound.message;
            c.add(
                bound.code,
                path.to_owned(),
                format!("{before}{}{after}", js::number_to_string(limit)),
            );
        }
    }
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
