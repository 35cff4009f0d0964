//! The rules that look at one file at a time: browser bindings outside the
//! adapter files, file length, function length and `pub mod` in the cdylib
//! crates. Each takes the file's path and text (or tokens) and returns its
//! findings; the caller decides which files are test code.

use super::finding::{Finding, MAX_FILE_LINES, MAX_FUNCTION_LINES};
use crate::scan::rust::{self, Kind, Token};

/// The crates that reach the browser. Only adapter files may name them, so
/// that everything else stays plain Rust that the native tests exercise.
pub const BINDING_CRATES: &[&str] = &[
    "web_sys",
    "js_sys",
    "wasm_bindgen",
    "wasm_bindgen_futures",
    "serde_wasm_bindgen",
    "gloo_timers",
];

/// Whether `path` (inside its crate) is one of `adapters`; an entry ending
/// in `/` names a whole folder.
pub fn is_adapter(path: &str, adapters: &[&str]) -> bool {
    adapters.iter().any(|entry| {
        if entry.ends_with('/') {
            path.starts_with(entry)
        } else {
            path == *entry
        }
    })
}

/// Rule `browser-bindings`: a use of a [`BINDING_CRATES`] crate in a file that
/// is not in the crate's adapter list (one finding per line).
pub fn bindings(path: &str, in_crate: &str, tokens: &[Token], adapters: &[&str]) -> Vec<Finding> {
    if is_adapter(in_crate, adapters) {
        return Vec::new();
    }
    let mut findings: Vec<Finding> = Vec::new();
    for token in tokens {
        if token.kind != Kind::Ident || !BINDING_CRATES.contains(&token.text.as_str()) {
            continue;
        }
        if findings.last().is_some_and(|f| f.line == token.line) {
            continue;
        }
        findings.push(Finding {
            path: path.to_owned(),
            line: token.line,
            rule: "browser-bindings",
            message: format!("`{}` is used outside the crate's adapter files", token.text),
            hint: "move the browser call behind the crate's adapter (a trait or a function of an adapter file), \
                   or add this file to the crate's adapter list in xtask/src/tidy/mod.rs if it is one"
                .to_owned(),
        });
    }
    findings
}

/// Rule `file-length`: more than [`MAX_FILE_LINES`] lines, inline tests included.
pub fn file_length(path: &str, text: &str) -> Option<Finding> {
    let lines = text.lines().count();
    (lines > MAX_FILE_LINES).then(|| Finding {
        path: path.to_owned(),
        line: 1,
        rule: "file-length",
        message: format!("{lines} lines (at most {MAX_FILE_LINES})"),
        hint: "split the file by concern; a large inline `mod tests` moves to a sibling `tests.rs`".to_owned(),
    })
}

/// The index of a function's body `{`, or `None` for a declaration without one.
fn body_start(tokens: &[Token], after_name: usize) -> Option<usize> {
    let mut i = after_name;
    while let Some(token) = tokens.get(i) {
        if token.is_punct("{") {
            return Some(i);
        }
        if token.is_punct(";") {
            return None;
        }
        if token.is_punct("(") || token.is_punct("[") {
            i = rust::matching(tokens, i);
        }
        i += 1;
    }
    None
}

/// Rule `function-length`: a function (or method) whose text spans more than
/// [`MAX_FUNCTION_LINES`] lines, from `fn` to its closing brace. Tokens
/// marked in `test` are skipped.
pub fn function_lengths(path: &str, tokens: &[Token], test: &[bool]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if !token.is_ident("fn") || test.get(i).copied().unwrap_or(false) {
            continue;
        }
        let Some(name) = tokens.get(i + 1).filter(|t| t.kind == Kind::Ident) else {
            continue;
        };
        let Some(open) = body_start(tokens, i + 2) else {
            continue;
        };
        let close = rust::matching(tokens, open);
        let lines = tokens[close].line - token.line + 1;
        if lines > MAX_FUNCTION_LINES {
            findings.push(Finding {
                path: path.to_owned(),
                line: token.line,
                rule: "function-length",
                message: format!("fn `{}` is {lines} lines (at most {MAX_FUNCTION_LINES})", name.text),
                hint: "split it by concern into functions that each do one step".to_owned(),
            });
        }
    }
    findings
}

/// Rule `pub-mod`: a `pub mod` in a cdylib crate, whose modules are private.
pub fn pub_mods(path: &str, tokens: &[Token], test: &[bool]) -> Vec<Finding> {
    tokens
        .windows(3)
        .enumerate()
        .filter(|(i, w)| w[0].is_ident("pub") && w[1].is_ident("mod") && !test.get(*i).copied().unwrap_or(false))
        .map(|(_, w)| Finding {
            path: path.to_owned(),
            line: w[0].line,
            rule: "pub-mod",
            message: format!("`pub mod {}` in a cdylib crate", w[2].text),
            hint: "make it `mod` and give its items `pub(crate)`; re-export a wasm export's item with `pub use`"
                .to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(source: &str) -> Vec<Token> {
        rust::tokenize(source)
    }

    #[test]
    fn bindings_are_allowed_only_in_adapter_files() {
        let code =
            tokens("use wasm_bindgen::JsCast;\nfn f() { web_sys::window(); js_sys::Date::now(); }\n// gloo_timers");
        let adapters = ["src/wasm.rs", "src/shell/"];
        assert!(bindings("crates/x/src/wasm.rs", "src/wasm.rs", &code, &adapters).is_empty());
        assert!(bindings("crates/x/src/shell/a.rs", "src/shell/a.rs", &code, &adapters).is_empty());
        let found = bindings("crates/x/src/app.rs", "src/app.rs", &code, &adapters);
        let lines: Vec<usize> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, vec![1, 2], "one finding per line, comments ignored");
        assert!(found[0].message.contains("wasm_bindgen"));
        assert!(bindings("a.rs", "src/app.rs", &tokens("use wasm_bindgen_cli_support::X;"), &[]).is_empty());
    }

    #[test]
    fn files_over_the_limit_are_reported() {
        let short = "x\n".repeat(MAX_FILE_LINES);
        assert!(file_length("a.rs", &short).is_none());
        let long = "x\n".repeat(MAX_FILE_LINES + 1);
        let finding = file_length("a.rs", &long).expect("finding");
        assert!(finding.message.starts_with("801 lines"));
    }

    #[test]
    fn long_functions_are_reported_and_braces_in_text_do_not_count() {
        let body = "    let x = \"}\"; // }\n".repeat(MAX_FUNCTION_LINES - 2);
        let ok = format!("fn short() {{\n{body}}}\n");
        assert!(function_lengths("a.rs", &tokens(&ok), &[]).is_empty());
        let long_body = "    let c = '}';\n".repeat(MAX_FUNCTION_LINES - 1);
        let source = format!(
            "trait T {{ fn declared(&self); }}\nimpl S {{\n    fn long(&self, f: fn(u8)) -> [u8; 2] {{\n{long_body}    }}\n}}\n"
        );
        let found = function_lengths("a.rs", &tokens(&source), &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 3);
        assert!(found[0].message.contains("fn `long` is 121 lines"));
    }

    #[test]
    fn test_functions_are_not_measured() {
        let long_body = "    x();\n".repeat(MAX_FUNCTION_LINES + 5);
        let source = format!("#[cfg(test)]\nmod tests {{\n    fn long() {{\n{long_body}    }}\n}}\n");
        let code = tokens(&source);
        let mask = rust::test_mask(&code);
        assert!(function_lengths("a.rs", &code, &mask).is_empty());
        assert_eq!(function_lengths("a.rs", &code, &[]).len(), 1);
    }

    #[test]
    fn pub_mod_is_refused_and_private_mods_pass() {
        let code = tokens("mod a;\npub(crate) mod b;\npub mod c;\n#[cfg(test)]\npub mod d;");
        let mask = rust::test_mask(&code);
        let found = pub_mods("crates/worker-core/src/lib.rs", &code, &mask);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, 3);
        assert!(found[0].message.contains("pub mod c"));
    }
}
