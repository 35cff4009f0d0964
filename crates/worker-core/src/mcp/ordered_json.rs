//! JSON read the way `JSON.parse` keeps it and written the way
//! `JSON.stringify` writes it, key order included.
//!
//! A tool result item the client cannot flatten reaches the model as JSON
//! text. `serde_json::Value` sorts object keys; a JavaScript object keeps
//! them in insertion order, except that array-index keys (`"0"`, `"42"`)
//! come first in ascending order. [`Ordered`] keeps what the server sent so
//! the model reads the same text the original gave it.

use protocol::js;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;

/// A JSON value with object members in the order JavaScript holds them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ordered {
    Null,
    Bool(bool),
    /// Every JSON number is a double in JavaScript.
    Number(f64),
    String(String),
    Array(Vec<Ordered>),
    /// Members in insertion order; a repeated key keeps its first place and
    /// its last value, as `JSON.parse` does.
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// The member `key` of an object.
    pub(crate) fn get(&self, key: &str) -> Option<&Ordered> {
        match self {
            Ordered::Object(members) => members.iter().find(|(name, _)| name == key).map(|(_, value)| value),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub(crate) fn is_truthy(&self) -> bool {
        match self {
            Ordered::Null => false,
            Ordered::Bool(flag) => *flag,
            Ordered::Number(n) => *n != 0.0 && !n.is_nan(),
            Ordered::String(text) => !text.is_empty(),
            Ordered::Array(_) | Ordered::Object(_) => true,
        }
    }

    /// `String(value)`.
    pub(crate) fn js_string(&self) -> String {
        match self {
            Ordered::Null => "null".to_owned(),
            Ordered::Bool(flag) => flag.to_string(),
            Ordered::Number(n) => js::number_to_string(*n),
            Ordered::String(text) => text.clone(),
            Ordered::Array(items) => items
                .iter()
                .map(|item| match item {
                    Ordered::Null => String::new(),
                    other => other.js_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            Ordered::Object(_) => "[object Object]".to_owned(),
        }
    }

    /// `JSON.stringify(value)`.
    pub(crate) fn stringify(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Ordered::Null => out.push_str("null"),
            Ordered::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
            Ordered::Number(n) if n.is_finite() => out.push_str(&js::number_to_string(*n)),
            Ordered::Number(_) => out.push_str("null"),
            Ordered::String(text) => write_string(text, out),
            Ordered::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Ordered::Object(members) => {
                let mut indexed: Vec<(u32, &(String, Ordered))> = Vec::new();
                let mut named: Vec<&(String, Ordered)> = Vec::new();
                for member in members {
                    match array_index(&member.0) {
                        Some(index) => indexed.push((index, member)),
                        None => named.push(member),
                    }
                }
                protocol::js::sort_by(&mut indexed, |a, b| a.0.cmp(&b.0));
                out.push('{');
                for (i, (name, value)) in indexed.into_iter().map(|(_, m)| m).chain(named).enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(name, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// A key JavaScript treats as an array index: a canonical decimal below
/// 2³² − 1.
fn array_index(key: &str) -> Option<u32> {
    if key != "0" && (key.starts_with('0') || key.is_empty() || !key.bytes().all(|b| b.is_ascii_digit())) {
        return None;
    }
    key.parse::<u32>().ok().filter(|index| *index != u32::MAX)
}

/// A JSON string literal, escaped as `JSON.stringify` escapes it (quotes,
/// backslashes and control characters; serde_json uses the same set).
fn write_string(text: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned()));
}

impl From<&Value> for Ordered {
    fn from(value: &Value) -> Ordered {
        match value {
            Value::Null => Ordered::Null,
            Value::Bool(flag) => Ordered::Bool(*flag),
            Value::Number(_) => Ordered::Number(js::as_number(value).unwrap_or(f64::NAN)),
            Value::String(text) => Ordered::String(text.clone()),
            Value::Array(items) => Ordered::Array(items.iter().map(Ordered::from).collect()),
            Value::Object(map) => Ordered::Object(map.iter().map(|(k, v)| (k.clone(), Ordered::from(v))).collect()),
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ordered, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }
    fn visit_bool<E: de::Error>(self, flag: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(flag))
    }
    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n as f64))
    }
    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n as f64))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n))
    }
    fn visit_str<E: de::Error>(self, text: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(text.to_owned()))
    }
    fn visit_string<E: de::Error>(self, text: String) -> Result<Ordered, E> {
        Ok(Ordered::String(text))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut members: Vec<(String, Ordered)> = Vec::new();
        // Finds a repeated key without a quadratic scan of a hostile object.
        let mut places: HashMap<String, usize> = HashMap::new();
        while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
            match places.get(&key) {
                Some(&place) => members[place].1 = value,
                None => {
                    places.insert(key.clone(), members.len());
                    members.push((key, value));
                }
            }
        }
        Ok(Ordered::Object(members))
    }
}
