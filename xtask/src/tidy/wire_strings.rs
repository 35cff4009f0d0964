//! Rule `wire-string`: a string literal in non-test code that equals a wire
//! error code or a message type the protocol crate defines. Such a string
//! is a second definition of a protocol fact; the hint names the one to use.
//! Protocol's own definition files and the generated page constants are the
//! only places where these strings are written out.

use super::finding::Finding;
use crate::catalogue::WireName;
use crate::scan::js;
use crate::scan::rust::{Kind, Token};
use std::collections::BTreeMap;

/// Every wire string the rule knows, with what it is and how to name it.
pub struct WireStrings {
    by_wire: BTreeMap<String, (&'static str, WireName)>,
}

impl WireStrings {
    pub fn new(error_codes: Vec<WireName>, message_types: Vec<WireName>) -> WireStrings {
        let mut by_wire = BTreeMap::new();
        for name in message_types {
            by_wire.insert(name.wire.clone(), ("message type", name));
        }
        for name in error_codes {
            by_wire.entry(name.wire.clone()).or_insert(("error code", name));
        }
        WireStrings { by_wire }
    }

    fn finding(&self, path: &str, line: usize, text: &str, hint: impl Fn(&WireName) -> String) -> Option<Finding> {
        let (kind, name) = self.by_wire.get(text)?;
        Some(Finding {
            path: path.to_owned(),
            line,
            rule: "wire-string",
            message: format!("the {kind} \"{text}\" is written out"),
            hint: hint(name),
        })
    }

    /// The Rust string literals of `tokens` outside the `test` mask.
    pub fn check_rust(&self, path: &str, tokens: &[Token], test: &[bool]) -> Vec<Finding> {
        tokens
            .iter()
            .enumerate()
            .filter(|(i, t)| t.kind == Kind::Str && !test.get(*i).copied().unwrap_or(false))
            .filter_map(|(_, t)| {
                self.finding(path, t.line, &t.text, |name| {
                    format!("use `{}` (its `as_str()` where a `&str` is needed)", name.rust)
                })
            })
            .collect()
    }

    /// The string literals of a page script or shim.
    pub fn check_js(&self, path: &str, text: &str) -> Vec<Finding> {
        js::string_literals(text)
            .iter()
            .filter_map(|literal| {
                self.finding(path, literal.line, &literal.text, |name| match &name.js {
                    Some(js) => {
                        format!("read `{js}` of the generated constants (globalThis.__typstAgentProtocolConstants)")
                    }
                    None => format!(
                        "the page scripts do not receive this string; it belongs to the Rust side (`{}`)",
                        name.rust
                    ),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::rust;

    fn wire() -> WireStrings {
        let name = |wire: &str, rust: &str, js: Option<&str>| WireName {
            wire: wire.to_owned(),
            rust: rust.to_owned(),
            js: js.map(str::to_owned),
        };
        WireStrings::new(
            vec![name(
                "CANCELLED",
                "protocol::error::response_codes::CANCELLED",
                Some("ERRORS.CANCELLED"),
            )],
            vec![
                name(
                    "PROTOCOL_RESPONSE",
                    "protocol::MessageType::Response",
                    Some("TYPES.RESPONSE"),
                ),
                name("LOAD_THEME", "protocol::MessageType::LoadTheme", None),
            ],
        )
    }

    #[test]
    fn rust_literals_are_found_outside_tests_and_comments() {
        let source = "// \"CANCELLED\"\nconst A: &str = \"CANCELLED\";\nconst B: &str = \"CANCELLED_LATE\";\n#[cfg(test)]\nmod tests { const C: &str = \"PROTOCOL_RESPONSE\"; }";
        let tokens = rust::tokenize(source);
        let found = wire().check_rust("a.rs", &tokens, &rust::test_mask(&tokens));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert!(found[0].hint.contains("protocol::error::response_codes::CANCELLED"));
        assert!(
            wire()
                .check_rust("a.rs", &rust::tokenize("const A: &str = \"fine\";"), &[])
                .is_empty()
        );
    }

    #[test]
    fn js_literals_name_the_generated_constant_or_the_rust_side() {
        let source = "const a = 'PROTOCOL_RESPONSE';\n// 'CANCELLED'\nsend(`LOAD_THEME`);\nconst ok = TYPES.RESPONSE;";
        let found = wire().check_js("x.js", source);
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found[0].hint.contains("TYPES.RESPONSE"));
        assert_eq!(found[1].line, 3);
        assert!(found[1].hint.contains("protocol::MessageType::LoadTheme"));
        assert!(
            wire()
                .check_js("x.js", "const b = constants.ERRORS.CANCELLED;")
                .is_empty()
        );
    }
}
