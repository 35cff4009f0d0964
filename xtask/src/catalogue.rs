//! The wire names the `protocol` crate defines — every error code and every
//! message type — with the names Rust and the page scripts use for them.
//!
//! `codegen` emits the codes into the page scripts' constants and `tidy`
//! refuses the same strings written out by hand. Both read the catalogue
//! here, so a code the protocol crate gains reaches both without an edit.
//!
//! `protocol::ErrorCode::ALL` lists the validation codes. The runtime codes
//! are plain `&str` constants in a module `response_codes`, which Rust cannot
//! enumerate; they are read from the protocol crate's source instead (every
//! `const NAME: &str = "…"` in that module, wherever it lives).

use crate::scan::rust::{self, Kind, Token};
use crate::scan::{self, SourceFile};
use anyhow::{Result, bail};
use protocol::{ErrorCode, MessageType};
use std::path::Path;

/// Where the protocol crate's sources live, from the workspace root.
pub const PROTOCOL_SRC: &str = "crates/protocol/src";

/// The module of runtime error codes inside the protocol crate.
const RESPONSE_CODES_MODULE: &str = "response_codes";

/// One wire string and how code should name it instead of writing it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireName {
    /// The exact string on the wire.
    pub wire: String,
    /// The Rust path of its definition.
    pub rust: String,
    /// How the page scripts read it from the generated constants, when they can.
    pub js: Option<String>,
}

/// Message types a page script sends or receives (the generated `TYPES`).
pub fn page_visible(message_type: MessageType) -> bool {
    message_type == MessageType::Response
        || message_type.as_str().starts_with("PAGE_")
        || matches!(
            message_type,
            MessageType::QuickAttachSelection | MessageType::QuickAttachImagePreview
        )
}

/// Every message type, in registry order.
pub fn message_types() -> Vec<WireName> {
    MessageType::ALL
        .iter()
        .map(|t| WireName {
            wire: t.as_str().to_owned(),
            rust: format!("protocol::MessageType::{t:?}"),
            js: page_visible(*t).then(|| format!("TYPES.{}", t.constant_name())),
        })
        .collect()
}

/// The module path (below the crate root) of a file in the protocol crate.
fn module_path(file: &str) -> Vec<String> {
    let relative = file
        .strip_prefix(PROTOCOL_SRC)
        .unwrap_or(file)
        .trim_start_matches('/')
        .trim_end_matches(".rs");
    let mut parts: Vec<String> = relative.split('/').map(str::to_owned).collect();
    if matches!(parts.last().map(String::as_str), Some("lib" | "mod")) {
        parts.pop();
    }
    parts
}

/// `const NAME: &str = "value"` items between `start` and `end`.
fn string_consts(tokens: &[Token], start: usize, end: usize) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let window = &tokens[start..=end.min(tokens.len().saturating_sub(1))];
    for (i, token) in window.iter().enumerate() {
        if !token.is_ident("const") {
            continue;
        }
        let rest = &window[i + 1..];
        let [name, colon, amp, ..] = rest else { continue };
        let mut j = 3;
        if rest.get(j).is_some_and(|t| t.kind == Kind::Lifetime) {
            j += 1;
        }
        let typed = name.kind == Kind::Ident && colon.is_punct(":") && amp.is_punct("&");
        let (Some(ty), Some(eq), Some(value)) = (rest.get(j), rest.get(j + 1), rest.get(j + 2)) else {
            continue;
        };
        if typed && ty.is_ident("str") && eq.is_punct("=") && value.kind == Kind::Str {
            found.push((name.text.clone(), value.text.clone()));
        }
    }
    found
}

/// The runtime codes in one protocol source file: (Rust path, wire string).
fn response_codes_in(file: &SourceFile) -> Vec<(String, String)> {
    let tokens = rust::tokenize(&file.text);
    let mask = rust::test_mask(&tokens);
    let mut module = module_path(&file.path);
    let mut codes = Vec::new();
    let prefix = |module: &[String]| format!("protocol::{}", module.join("::"));
    if module.last().map(String::as_str) == Some(RESPONSE_CODES_MODULE) {
        for (name, value) in string_consts(&tokens, 0, tokens.len().saturating_sub(1)) {
            codes.push((format!("{}::{name}", prefix(&module)), value));
        }
        return codes;
    }
    module.push(RESPONSE_CODES_MODULE.to_owned());
    for i in 0..tokens.len() {
        let opens = tokens[i].is_ident("mod")
            && tokens.get(i + 1).is_some_and(|t| t.is_ident(RESPONSE_CODES_MODULE))
            && tokens.get(i + 2).is_some_and(|t| t.is_punct("{"));
        if opens && !mask[i] {
            let end = rust::matching(&tokens, i + 2);
            for (name, value) in string_consts(&tokens, i + 2, end) {
                codes.push((format!("{}::{name}", prefix(&module)), value));
            }
        }
    }
    codes
}

/// Every error code: `ErrorCode::ALL`, then the runtime codes, each wire
/// string once.
pub fn error_codes(root: &Path) -> Result<Vec<WireName>> {
    let mut names: Vec<WireName> = ErrorCode::ALL
        .iter()
        .map(|code| WireName {
            wire: code.as_str().to_owned(),
            rust: format!("protocol::ErrorCode::{code:?}"),
            js: Some(format!("ERRORS.{}", code.as_str())),
        })
        .collect();
    let mut runtime = Vec::new();
    for file in scan::files_under(root, PROTOCOL_SRC, &[".rs"])? {
        if !file.is_test() {
            runtime.extend(response_codes_in(&file));
        }
    }
    if runtime.is_empty() {
        bail!("no `{RESPONSE_CODES_MODULE}` module with string constants was found under {PROTOCOL_SRC}");
    }
    for (rust, wire) in runtime {
        if !names.iter().any(|n| n.wire == wire) {
            let js = Some(format!("ERRORS.{wire}"));
            names.push(WireName { wire, rust, js });
        }
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::root;
    use protocol::error::response_codes;

    fn file(path: &str, text: &str) -> SourceFile {
        SourceFile {
            path: path.to_owned(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn reads_an_inline_module_and_skips_tests_and_other_consts() {
        let source = r#"
            pub const OUTSIDE: &str = "NOT_A_CODE";
            pub mod response_codes {
                /// Doc.
                pub const ONE: &str = "ONE";
                pub const TWO: &'static str = "TWO";
                pub const COUNT: u32 = 3;
            }
            #[cfg(test)]
            mod response_codes { pub const NO: &str = "NO"; }
        "#;
        let codes = response_codes_in(&file("crates/protocol/src/error.rs", source));
        assert_eq!(
            codes,
            vec![
                ("protocol::error::response_codes::ONE".to_owned(), "ONE".to_owned()),
                ("protocol::error::response_codes::TWO".to_owned(), "TWO".to_owned()),
            ]
        );
    }

    #[test]
    fn reads_a_module_of_its_own_file() {
        let codes = response_codes_in(&file(
            "crates/protocol/src/error/response_codes.rs",
            "pub const X: &str = \"X\";",
        ));
        assert_eq!(
            codes,
            vec![("protocol::error::response_codes::X".to_owned(), "X".to_owned())]
        );
    }

    #[test]
    fn the_real_catalogue_holds_both_kinds_of_code() {
        let codes = error_codes(&root()).expect("catalogue");
        let wires: Vec<&str> = codes.iter().map(|c| c.wire.as_str()).collect();
        for expected in [
            response_codes::CANCELLED,
            response_codes::INTERNAL_ERROR,
            response_codes::TIMEOUT,
            ErrorCode::InvalidPageResponse.as_str(),
        ] {
            assert!(wires.contains(&expected), "{expected} is missing");
        }
        let mut unique = wires.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), wires.len(), "a wire string is listed twice");
    }

    #[test]
    fn message_types_name_their_page_constant_when_the_page_sees_them() {
        let types = message_types();
        let response = types.iter().find(|t| t.wire == "PROTOCOL_RESPONSE").expect("response");
        assert_eq!(response.js.as_deref(), Some("TYPES.RESPONSE"));
        assert_eq!(response.rust, "protocol::MessageType::Response");
        let settings = types.iter().find(|t| t.wire == "LOAD_SETTINGS").expect("settings");
        assert_eq!(settings.js, None);
    }
}
