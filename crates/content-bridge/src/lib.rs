//! The page contract of Typst Side Agent.
//!
//! Architecture invariant: the page scripts only read raw facts from typst.app
//! and CodeMirror; every decision about those facts is made here, in plain
//! Rust that the worker calls and that is tested natively. This crate builds
//! the requests the worker sends to a page and checks and interprets each
//! answer. It knows nothing of `chrome.*` and exports nothing to wasm.
//!
//! Layers: `protocol::page_response` checks each answer's fields and bounds;
//! the modules here check what only the request and the answer together can
//! tell (a numbered range is the one asked for, an image is what it claims)
//! and turn the answer into the values the worker works with.
//!
//! - [`request`]: request envelopes, answer unwrapping, [`PageError`].
//! - [`context`]: `PAGE_GET_CONTEXT` ([`context::PageContext`]).
//! - [`workspace`]: the file identity, Files tree and panel state in a context.
//! - [`diagnostics`]: `PAGE_GET_DIAGNOSTICS` ([`diagnostics::PageDiagnostics`]).
//! - [`preview`]: `PAGE_GET_PREVIEW` ([`preview::PagePreview`]).
//! - [`probe`]: `PAGE_GET_PROBE` ([`probe::PageProbe`]).
//! - [`edits`]: `PAGE_SHOW_EDIT_PREVIEW`, `PAGE_APPLY_EDIT` and
//!   `PAGE_CLEAR_EDIT_PREVIEW` (request checks, [`edits::EditError`]).

pub mod context;
pub mod diagnostics;
pub mod edits;
pub mod preview;
pub mod probe;
pub mod request;
pub mod workspace;

pub use request::{PageError, page_request, unwrap_page_response};

#[cfg(test)]
mod page_script_limits {
    //! The page scripts carry their own copy of the bridge bounds (they
    //! cannot read Rust). These tests read that copy and fail when it drifts.

    use protocol::limits;
    use protocol::page_response;

    const BRIDGE_ADAPTER: &str = include_str!("../../../extension/src/content/bridge-protocol.js");

    fn js_limit(name: &str) -> Option<u64> {
        let start = BRIDGE_ADAPTER.find("const LIMITS = Object.freeze({")?;
        let block = BRIDGE_ADAPTER.get(start..)?;
        let block = block.get(..block.find("});")?)?;
        block.lines().find_map(|line| {
            let (key, value) = line.trim().split_once(':')?;
            (key.trim() == name).then(|| value.trim().trim_end_matches(',').parse().ok())?
        })
    }

    #[test]
    fn bridge_adapter_limits_equal_the_protocol_crate() {
        let expected: [(&str, u64); 27] = [
            ("MAX_PAGE_DOCUMENT_CHARS", limits::MAX_PAGE_DOCUMENT_CHARS.into()),
            ("MAX_PAGE_SELECTION_CHARS", limits::MAX_PAGE_SELECTION_CHARS.into()),
            ("MAX_PAGE_WORKSPACE_CHARS", limits::MAX_PAGE_WORKSPACE_CHARS.into()),
            ("MAX_PAGE_DIAGNOSTICS", limits::MAX_PAGE_DIAGNOSTICS.into()),
            ("MAX_PAGE_DIAGNOSTICS_CHARS", limits::MAX_PAGE_DIAGNOSTICS_CHARS.into()),
            ("MAX_PREVIEW_DATA_URL_CHARS", limits::MAX_PREVIEW_DATA_URL_CHARS.into()),
            (
                "MAX_CONTEXT_RESPONSE_CHARS",
                page_response::MAX_CONTEXT_RESPONSE_CHARS as u64,
            ),
            (
                "MAX_NUMBERED_DOCUMENT_CHARS",
                page_response::MAX_NUMBERED_DOCUMENT_CHARS as u64,
            ),
            ("MAX_CONTEXT_REQUEST_CHARS", limits::MAX_CONTEXT_REQUEST_CHARS.into()),
            ("DEFAULT_READ_DOC_CHARS", limits::DEFAULT_READ_DOC_CHARS.into()),
            ("MAX_EDITOR_TOKEN_CHARS", limits::MAX_EDITOR_TOKEN_CHARS.into()),
            ("MAX_PAGE_ERROR_CHARS", page_response::MAX_PAGE_ERROR_CHARS as u64),
            ("MAX_PREVIEW_SIDE_PX", page_response::MAX_PREVIEW_SIDE_PX),
            // Belongs in protocol: the diagnostic item bounds are literals in
            // `page_response` (2,000 / 16 / 32 / 500); named here until then.
            ("MAX_DIAGNOSTIC_MESSAGE_CHARS", 2_000),
            ("MAX_DIAGNOSTIC_SEVERITY_CHARS", 16),
            ("MAX_DIAGNOSTIC_KIND_CHARS", 32),
            ("MAX_DIAGNOSTIC_TEXT_CHARS", 500),
            (
                "MAX_EDITOR_TRANSACTION_CHARS",
                limits::MAX_EDITOR_TRANSACTION_CHARS.into(),
            ),
            ("MAX_FILE_LABEL_CHARS", limits::MAX_FILE_LABEL_CHARS.into()),
            ("MAX_PREPARED_CHANGES", limits::MAX_PREPARED_CHANGES.into()),
            ("MAX_PREPARED_INSERT_CHARS", limits::MAX_PREPARED_INSERT_CHARS.into()),
            ("MAX_DIFF_HUNKS", limits::MAX_DIFF_HUNKS.into()),
            ("MAX_DIFF_ROWS", limits::MAX_DIFF_ROWS.into()),
            ("MAX_DIFF_TEXT_CHARS", limits::MAX_DIFF_TEXT_CHARS.into()),
            ("MAX_EDIT_RESULT_CHARS", page_response::MAX_EDIT_RESULT_CHARS as u64),
            ("MAX_INLINE_DIFF_ROWS", crate::edits::MAX_INLINE_DIFF_ROWS),
            ("MAX_EDIT_WARNING_CHARS", crate::edits::MAX_EDIT_WARNING_CHARS.into()),
        ];
        for (name, value) in expected {
            assert_eq!(js_limit(name), Some(value), "bridge-protocol.js LIMITS.{name}");
        }
    }

    #[test]
    fn the_reader_finds_nothing_that_is_not_there() {
        assert_eq!(js_limit("NOT_A_LIMIT"), None);
    }
}
