//! `cargo xtask codegen`: the page scripts' constants, generated from the
//! `protocol` crate so that JavaScript and Rust cannot disagree.
//!
//! The page scripts run in typst.app's worlds and cannot read Rust, so every
//! number, name and code they share with the worker reaches them through
//! `extension/src/content/protocol-constants.js`: the bridge numbers and file
//! lists, the message types a page sees, every bound of a page request or
//! answer (`LIMITS`), every error code of the catalogue (`ERRORS`), the
//! label of an unidentified file and the characters a diff review shows as
//! marks (`INVISIBLE_CHARS`).
//! `cargo xtask verify` (and `tidy`) fail when the committed file differs
//! from what this module renders.

use crate::catalogue::{self, WireName};
use crate::process::root;
use anyhow::{Context, Result, bail};
use protocol::page_bridge as bridge;
use protocol::{MessageType, active_file, invisible_chars, limits, page_response};
use sha2::{Digest, Sha256};
use std::fs;
use std::path::PathBuf;

pub const GENERATED_PATH: &str = "extension/src/content/protocol-constants.js";

/// `(name, value)` pairs named after their protocol constants, so the page
/// scripts and the Rust code use one name for one bound.
macro_rules! named {
    ($($module:ident :: $name:ident),* $(,)?) => {
        [$((stringify!($name), $module::$name as u64)),*]
    };
}

/// Bridge numbers at the top level of the generated object.
fn bridge_numbers() -> Vec<(&'static str, u64)> {
    named![
        bridge::BRIDGE_VERSION,
        bridge::MAX_PENDING_REQUESTS,
        bridge::REQUEST_TIMEOUT_MS,
        bridge::HANDSHAKE_RETRY_MS,
        bridge::MAIN_RECOVERY_DELAY_MS,
        bridge::MAIN_RECOVERY_MAX_DELAY_MS,
        bridge::MAX_REMEMBERED_NONCES,
        bridge::MAX_REQUEST_ID_CHARS,
        bridge::QUICK_ATTACH_MIN_INTERVAL_MS,
    ]
    .to_vec()
}

/// Every bound a page script enforces (`LIMITS`), in UTF-16 code units unless
/// the name says otherwise.
fn page_limits() -> Vec<(&'static str, u64)> {
    named![
        limits::MAX_PAGE_DOCUMENT_CHARS,
        limits::MAX_PAGE_SELECTION_CHARS,
        limits::MAX_PAGE_WORKSPACE_CHARS,
        limits::MAX_PAGE_DIAGNOSTICS,
        limits::MAX_PAGE_DIAGNOSTICS_CHARS,
        limits::MAX_PREVIEW_DATA_URL_CHARS,
        limits::MAX_CONTEXT_RESPONSE_CHARS,
        page_response::MAX_NUMBERED_DOCUMENT_CHARS,
        limits::MAX_CONTEXT_REQUEST_CHARS,
        limits::DEFAULT_READ_DOC_CHARS,
        limits::MAX_EDITOR_TOKEN_CHARS,
        limits::MAX_PAGE_ERROR_CHARS,
        limits::MAX_ERROR_CODE_CHARS,
        page_response::MAX_PREVIEW_SIDE_PX,
        limits::MAX_DIAGNOSTIC_MESSAGE_CHARS,
        limits::MAX_DIAGNOSTIC_SEVERITY_CHARS,
        limits::MAX_DIAGNOSTIC_KIND_CHARS,
        limits::MAX_DIAGNOSTIC_TEXT_CHARS,
        limits::MAX_EDITOR_TRANSACTION_CHARS,
        limits::MAX_FILE_LABEL_CHARS,
        limits::MAX_PREPARED_CHANGES,
        limits::MAX_PREPARED_INSERT_CHARS,
        limits::MAX_DIFF_HUNKS,
        limits::MAX_DIFF_ROWS,
        limits::MAX_DIFF_TEXT_CHARS,
        limits::MAX_EDIT_RESULT_CHARS,
        limits::MAX_INLINE_DIFF_ROWS,
        limits::MAX_EDIT_WARNING_CHARS,
        limits::MAX_WORKSPACE_ERROR_CHARS,
        limits::MAX_PROJECT_PATH_CHARS,
        limits::MAX_PROJECT_LABEL_CHARS,
        limits::MAX_PROJECT_TREE_ENTRIES,
        limits::MAX_PROJECT_TREE_PATH_CHARS,
        limits::MAX_PROJECT_TREE_SEGMENT_CHARS,
        limits::MAX_PROJECT_TREE_DEPTH,
        limits::MAX_CONTEXT_ANSWER_BYTES,
        limits::MAX_PREVIEW_ANSWER_BYTES,
        limits::MAX_DIAGNOSTICS_ANSWER_BYTES,
        limits::MAX_PROBE_ANSWER_BYTES,
        limits::MAX_EDIT_ANSWER_BYTES,
        limits::MAX_CANCEL_ANSWER_BYTES,
    ]
    .to_vec()
}

fn js_string(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

fn js_list(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    format!("[{}]", items.join(", "))
}

/// A property name: bare when it is an identifier, quoted otherwise.
fn js_key(name: &str) -> String {
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if identifier { name.to_owned() } else { js_string(name) }
}

/// `NAME: value` lines of a frozen object nested one level in.
fn js_object(entries: impl IntoIterator<Item = (String, String)>) -> String {
    let lines: Vec<String> = entries
        .into_iter()
        .map(|(name, value)| format!("      {}: {value}", js_key(&name)))
        .collect();
    format!("Object.freeze({{\n{}\n    }})", lines.join(",\n"))
}

/// The object's members, in order, as `NAME: value` source text.
fn members(codes: &[WireName]) -> Vec<String> {
    let mut members: Vec<String> = bridge_numbers()
        .into_iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect();
    let limits = page_limits()
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_string()));
    members.push(format!("LIMITS: {}", js_object(limits)));
    let errors = codes.iter().map(|c| (c.wire.clone(), js_string(&c.wire)));
    members.push(format!("ERRORS: {}", js_object(errors)));
    let types = MessageType::ALL
        .iter()
        .filter(|t| catalogue::page_visible(**t))
        .map(|t| (t.constant_name().to_owned(), js_string(t.as_str())));
    members.push(format!("TYPES: {}", js_object(types)));
    let page_requests = MessageType::ALL
        .iter()
        .filter(|t| t.is_page_request())
        .map(|t| js_string(t.as_str()));
    members.push(format!("PAGE_REQUESTS: Object.freeze({})", js_list(page_requests)));
    let files = bridge::MAIN_WORLD_FILES.iter().map(|f| js_string(f));
    members.push(format!("MAIN_WORLD_FILES: Object.freeze({})", js_list(files)));
    let probe = bridge::PROBE_FIELDS.iter().map(|f| js_string(f));
    members.push(format!("PROBE_FIELDS: Object.freeze({})", js_list(probe)));
    members.push(format!(
        "DEFAULT_FILE_LABEL: {}",
        js_string(active_file::DEFAULT_ACTIVE_FILE_LABEL)
    ));
    let invisible = invisible_chars::INVISIBLE_RANGES
        .iter()
        .map(|(low, high, kind)| format!("Object.freeze([{low}, {high}, {}])", js_string(kind.as_str())));
    members.push(format!("INVISIBLE_CHARS: Object.freeze({})", js_list(invisible)));
    let spoken = invisible_chars::InvisibleKind::ALL
        .into_iter()
        .map(|kind| (kind.as_str().to_owned(), js_string(kind.spoken())));
    members.push(format!("INVISIBLE_KIND_WORDS: {}", js_object(spoken)));
    members
}

/// The generated file's full text for these error codes.
pub fn render_with(codes: &[WireName]) -> String {
    let body = members(codes)
        .iter()
        .map(|member| format!("    {member}"))
        .collect::<Vec<_>>()
        .join(",\n");
    // A page keeps the object of an older extension version after an update;
    // the revision (a digest of the contents) makes new scripts replace it.
    let digest = Sha256::digest(body.as_bytes());
    let revision: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let mut out = String::new();
    out.push_str("// Generated by `cargo xtask codegen` from the Rust `protocol` crate. Do not edit:\n");
    out.push_str("// change the crate and run the command again (`cargo xtask verify` checks for drift).\n");
    out.push_str("(function (root) {\n  'use strict';\n");
    out.push_str(&format!(
        "  if (root.__typstAgentProtocolConstants?.REVISION === {}) return;\n",
        js_string(&revision)
    ));
    out.push_str("  root.__typstAgentProtocolConstants = Object.freeze({\n");
    out.push_str(&format!("    REVISION: {},\n", js_string(&revision)));
    out.push_str(&body);
    out.push_str("\n  });\n})(globalThis);\n");
    out
}

/// The generated file's full text.
pub fn render() -> Result<String> {
    Ok(render_with(&catalogue::error_codes()))
}

fn path() -> PathBuf {
    root().join(GENERATED_PATH)
}

/// Whether the committed file equals what the protocol crate renders.
pub fn is_current() -> Result<bool> {
    let actual = fs::read_to_string(path()).with_context(|| format!("reading {GENERATED_PATH}"))?;
    Ok(actual == render()?)
}

pub fn codegen(check: bool) -> Result<()> {
    if check {
        if !is_current()? {
            bail!("{GENERATED_PATH} is out of date with the protocol crate; run `cargo xtask codegen`");
        }
        println!("{GENERATED_PATH} matches the protocol crate");
    } else {
        fs::write(path(), render()?).with_context(|| format!("writing {GENERATED_PATH}"))?;
        println!("wrote {GENERATED_PATH}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_member_is_frozen() {
        let mut names: Vec<&str> = page_limits().iter().map(|(n, _)| *n).collect();
        names.extend(bridge_numbers().iter().map(|(n, _)| *n));
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a constant is listed twice");
        let text = render_with(&[]);
        assert!(text.contains("LIMITS: Object.freeze({\n      MAX_PAGE_DOCUMENT_CHARS: 1048576,"));
        assert!(text.contains("MAX_INLINE_DIFF_ROWS: 2000"));
    }

    #[test]
    fn the_revision_follows_the_contents() {
        let code = |wire: &str| WireName {
            wire: wire.to_owned(),
            rust: String::new(),
            js: None,
        };
        let one = render_with(&[code("A")]);
        let two = render_with(&[code("B")]);
        let revision = |text: &str| text.lines().nth(4).map(str::to_owned);
        assert_ne!(revision(&one), revision(&two));
        assert!(one.contains("ERRORS: Object.freeze({\n      A: \"A\"\n    })"));
    }
}
