//! A hostile page's answers (issue 11): deep nesting, a 60 MB error string,
//! text that is not JSON. Each fails its own request with a clear code; a
//! second tab on the same platform keeps being served.

use super::*;
use crate::envelope;
use crate::fakes::{FakeBrowser, FakePlatform, block_on};
use serde_json::json;

const HOSTILE_TAB: i64 = 3;
const GOOD_TAB: i64 = 4;

fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

/// Tab 3 answers every request with `hostile(request)`; tab 4 answers
/// properly.
fn platform(hostile: impl Fn(&Value) -> String + 'static) -> FakePlatform {
    let platform: FakePlatform = FakePlatform {
        browser: FakeBrowser::with_tabs(&[
            (HOSTILE_TAB, "https://typst.app/project/evil"),
            (GOOD_TAB, "https://typst.app/project/p1"),
        ]),
        ..FakePlatform::default()
    };
    platform.browser.activate(GOOD_TAB);
    platform.pages.set_text_responder(move |tab, request| {
        if tab == HOSTILE_TAB {
            return Ok(Some(hostile(request)));
        }
        let data = json!({"editor": true, "selection": false, "typstCanvas": true,
            "previewImage": false, "improvePanel": false});
        Ok(Some(
            json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"],
            "payload": {"ok": true, "data": data}})
            .to_string(),
        ))
    });
    platform
}

fn deep_workspace(request: &Value) -> String {
    format!(
        r#"{{"type":"PROTOCOL_RESPONSE","requestId":{},"payload":{{"ok":true,"data":{{"workspace":{}}}}}}}"#,
        request["requestId"],
        nested_arrays(5_000)
    )
}

fn huge_error(request: &Value) -> String {
    json!({"type": "PROTOCOL_RESPONSE", "requestId": request["requestId"],
        "payload": {"ok": false, "error": {"code": "PAGE_REQUEST_FAILED", "message": "x".repeat(60 << 20)}}})
    .to_string()
}

fn read(platform: &FakePlatform, tab: i64) -> Result<PageContext, String> {
    let request = ContextRequest::default();
    block_on(read_context(
        platform,
        tab as u64,
        &request,
        Some("run-1"),
        &Cancellation::new(),
        None,
    ))
    .map_err(|e| e.code)
}

#[test]
fn deep_nesting_fails_that_tabs_request_and_the_other_tab_is_served() {
    let platform = platform(deep_workspace);
    assert_eq!(
        read(&platform, HOSTILE_TAB).err().as_deref(),
        Some("PAGE_ANSWER_MALFORMED")
    );
    let good = block_on(probe(&platform, GOOD_TAB as u64, None, &Cancellation::new()));
    assert_eq!(good.map(|p| p.editor), Ok(true));
}

#[test]
fn a_sixty_megabyte_error_fails_that_tabs_request_unread() {
    let platform = platform(huge_error);
    assert_eq!(
        read(&platform, HOSTILE_TAB).err().as_deref(),
        Some("PAGE_ANSWER_TOO_LARGE")
    );
    let edit = block_on(clear_edit_preview(&platform, HOSTILE_TAB as u64, "run-1", "call-1"));
    assert_eq!(
        edit.map_err(|e| e.code().to_owned()),
        Err("PAGE_ANSWER_TOO_LARGE".to_owned())
    );
    let good = block_on(probe(&platform, GOOD_TAB as u64, None, &Cancellation::new()));
    assert_eq!(good.map(|p| p.typst_canvas), Ok(true));
}

#[test]
fn the_page_is_asked_for_no_more_than_the_cap_of_each_type() {
    // The adapter is told each request type's cap, so it never copies more.
    let caps = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let seen = caps.clone();
    struct CapPages(std::rc::Rc<std::cell::RefCell<Vec<(String, usize)>>>);
    impl Pages for CapPages {
        async fn send(
            &self,
            _tab: i64,
            message: Value,
            max_bytes: usize,
        ) -> Result<Option<String>, crate::platform::PlatformError> {
            let kind = message["type"].as_str().unwrap_or_default().to_owned();
            self.0.borrow_mut().push((kind, max_bytes));
            Ok(None)
        }
    }
    let capped = FakePlatform {
        browser: FakeBrowser::default(),
        clock: crate::fakes::FakeClock::default(),
        pages: CapPages(seen),
        network: crate::fakes::FakeNetwork::default(),
    };
    let never = Cancellation::new();
    let _ = block_on(read_context(&capped, 1, &ContextRequest::default(), None, &never, None));
    let _ = block_on(read_diagnostics(&capped, 1, None, &never));
    let _ = block_on(probe(&capped, 1, None, &never));
    assert_eq!(
        *caps.borrow(),
        vec![
            (
                "PAGE_GET_CONTEXT".to_owned(),
                max_answer_bytes(MessageType::PageGetContext)
            ),
            (
                "PAGE_GET_DIAGNOSTICS".to_owned(),
                max_answer_bytes(MessageType::PageGetDiagnostics)
            ),
            ("PAGE_GET_PROBE".to_owned(), max_answer_bytes(MessageType::PageGetProbe)),
        ]
    );
}

#[test]
fn panel_reads_pass_the_bounded_answer_codes_through() {
    for (hostile, expected) in [
        (deep_workspace as fn(&Value) -> String, "PAGE_ANSWER_MALFORMED"),
        (huge_error, "PAGE_ANSWER_TOO_LARGE"),
        (|_: &Value| "not json".to_owned(), "PAGE_ANSWER_MALFORMED"),
    ] {
        let platform = platform(hostile);
        let message = json!({"type": "GET_EDITOR_CONTEXT", "requestId": "r1", "payload": {"tabId": HOSTILE_TAB}});
        let request = envelope::check(&message).expect("a valid panel request");
        let answer = block_on(route(&platform, &request.payload)).map_err(|e| e.code.as_str());
        assert_eq!(answer.err(), Some(expected));
    }
}
