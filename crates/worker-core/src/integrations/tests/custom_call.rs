//! One custom-tool call ([`call_custom_tool`]): every way its answer can
//! come back as the model's result, the timeout, the caps, and Stop in the
//! middle of the request (which must abort it).

use super::support::{TOOL_URL, tool};
use crate::cancel::{CallbackGuard, Cancellation, Cancelled};
use crate::fakes::{FakeBody, FakeChunk, FakeClock, FakeNetwork, FakeReply, block_on};
use crate::integrations::call_custom_tool;
use crate::platform::{HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use crate::runs::ToolOutput;
use futures::FutureExt;
use protocol::registry_records::CustomTool;
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::rc::Rc;

fn lookup() -> CustomTool {
    CustomTool::from_stored(&tool("t1", "lookup_paper", TOOL_URL))
}

fn args() -> Map<String, Value> {
    json!({"query": "typst"}).as_object().cloned().unwrap_or_default()
}

fn call_with(network: &FakeNetwork, tool: &CustomTool) -> Result<ToolOutput, Cancelled> {
    block_on(call_custom_tool(
        network,
        &FakeClock::default(),
        tool,
        &args(),
        &Cancellation::new(),
    ))
}

fn answered(reply: impl Fn() -> FakeReply + 'static) -> Value {
    let network = FakeNetwork::answering(move |_| Ok(reply()));
    Value::Object(call_with(&network, &lookup()).expect("not cancelled"))
}

#[test]
fn a_json_answer_is_the_result_and_an_error_status_keeps_its_body() {
    let ok = answered(|| FakeReply::text(200, "application/json", &["{\"hits\": [1, 2]}"]));
    assert_eq!(ok, json!({"ok": true, "result": {"hits": [1, 2]}}));
    let marked = answered(|| FakeReply::text(200, "application/json", &["\u{FEFF}{\"a\": 1}"]));
    assert_eq!(
        marked,
        json!({"ok": true, "result": {"a": 1}}),
        "a byte-order mark is dropped"
    );
    let failed = answered(|| FakeReply::text(500, "application/json", &["{\"error\": \"down\"}"]));
    assert_eq!(
        failed,
        json!({"ok": false, "code": "CUSTOM_HTTP_ERROR", "error": "HTTP 500", "body": {"error": "down"}})
    );
    let missing = answered(|| FakeReply::text(404, "text/html", &["<h1>Not found</h1>"]));
    assert_eq!(missing["body"], json!({"raw": "<h1>Not found</h1>"}));
}

#[test]
fn a_body_that_is_not_json_is_kept_as_its_first_64000_characters() {
    let plain = answered(|| FakeReply::text(200, "text/plain", &["plain text, ", "not JSON\n"]));
    assert_eq!(plain, json!({"ok": true, "result": {"raw": "plain text, not JSON\n"}}));
    let long = answered(|| FakeReply::text(200, "text/plain", &[&"é".repeat(70_000)]));
    assert_eq!(
        long["result"]["raw"].as_str().map(|raw| raw.chars().count()),
        Some(64_000)
    );
}

#[test]
fn an_answer_over_256_kib_is_refused_whether_declared_or_streamed() {
    let declared = answered(|| FakeReply {
        status: 200,
        headers: vec![("content-length".into(), "300000".into())],
        chunks: vec![FakeChunk::Data(b"{}".to_vec())],
    });
    assert_eq!(declared["code"], "CUSTOM_RESPONSE_TOO_LARGE");
    assert_eq!(declared["error"], "Custom-tool response exceeds the 256 KiB limit.");
    let streamed = answered(|| FakeReply {
        status: 200,
        headers: Vec::new(),
        chunks: vec![
            FakeChunk::Data(vec![b' '; 200_000]),
            FakeChunk::Data(vec![b' '; 70_000]),
        ],
    });
    assert_eq!(streamed["code"], "CUSTOM_RESPONSE_TOO_LARGE");
    let exact = answered(|| FakeReply {
        status: 200,
        headers: Vec::new(),
        chunks: vec![FakeChunk::Data(vec![b'1'; 262_144])],
    });
    assert_eq!(exact["ok"], true, "256 KiB exactly is allowed");
}

#[test]
fn a_silent_endpoint_times_out_after_30_seconds() {
    let network = FakeNetwork::answering(|_| {
        Ok(FakeReply {
            status: 200,
            headers: Vec::new(),
            chunks: vec![FakeChunk::Stall],
        })
    });
    let clock = FakeClock::default();
    let result = block_on(call_custom_tool(
        &network,
        &clock,
        &lookup(),
        &args(),
        &Cancellation::new(),
    ));
    assert_eq!(
        result.map(Value::Object),
        Ok(json!({"ok": false, "code": "TIMEOUT", "error": "Custom tool timed out."}))
    );
    assert_eq!(clock.sleeps(), [30_000]);
}

#[test]
fn unreachable_endpoints_broken_bodies_and_refused_endpoints_are_results() {
    let network = FakeNetwork::answering(|_| Err(NetworkError::Failed("Failed to fetch".into())));
    assert_eq!(
        call_with(&network, &lookup()).map(Value::Object),
        Ok(json!({"ok": false, "code": "CUSTOM_TOOL_ERROR", "error": "Failed to fetch"}))
    );
    let broken = answered(|| FakeReply {
        status: 200,
        headers: Vec::new(),
        chunks: vec![
            FakeChunk::Data(b"{".to_vec()),
            FakeChunk::Error("network changed".into()),
        ],
    });
    assert_eq!(broken["code"], "CUSTOM_TOOL_ERROR");
    let cleartext = CustomTool::from_stored(&tool("t1", "lookup_paper", "http://192.0.2.7/lookup"));
    let refused = call_with(&FakeNetwork::default(), &cleartext).map(Value::Object);
    assert_eq!(
        refused.map(|r| r["code"].clone()),
        Ok(json!("INSECURE_CONFIRMATION_REQUIRED"))
    );
}

/// The fakes' network, counting requests whose cancellation fired while
/// they were still open (the browser would abort them).
struct Aborts {
    inner: FakeNetwork,
    aborted: Rc<Cell<usize>>,
}

struct AbortBody {
    inner: FakeBody,
    _watch: CallbackGuard,
}

impl ResponseBody for AbortBody {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, NetworkError>> {
        self.inner.next_chunk().await
    }
}

impl Network for Aborts {
    type Body = AbortBody;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancellation,
    ) -> Result<HttpResponse<AbortBody>, NetworkError> {
        let aborted = self.aborted.clone();
        let watch = cancel.on_cancel(move || aborted.set(aborted.get() + 1));
        let response = self.inner.fetch(request, cancel).await?;
        Ok(HttpResponse {
            status: response.status,
            headers: response.headers,
            body: AbortBody {
                inner: response.body,
                _watch: watch,
            },
        })
    }
}

#[test]
fn stop_in_the_middle_of_the_request_aborts_it_and_ends_the_call() {
    let network = Aborts {
        inner: FakeNetwork::answering(|_| {
            Ok(FakeReply {
                status: 200,
                headers: Vec::new(),
                chunks: vec![FakeChunk::Data(b"{\"part".to_vec()), FakeChunk::Stall],
            })
        }),
        aborted: Rc::new(Cell::new(0)),
    };
    let clock = FakeClock::default();
    clock.hold_sleeps_from(Some(1_500));
    let cancel = Cancellation::new();
    let tool = lookup();
    let arguments = args();
    let mut call = Box::pin(call_custom_tool(&network, &clock, &tool, &arguments, &cancel));
    assert!(call.as_mut().now_or_never().is_none(), "the answer is still coming");
    cancel.cancel();
    assert_eq!(call.now_or_never(), Some(Err(Cancelled)));
    assert_eq!(network.aborted.get(), 1, "the request was aborted");
    let stopped_before = block_on(call_custom_tool(&network, &clock, &tool, &arguments, &cancel));
    assert_eq!(stopped_before, Err(Cancelled));
    assert_eq!(network.inner.requests().len(), 1, "nothing is sent after Stop");
}
