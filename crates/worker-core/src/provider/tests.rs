//! Streaming rounds against the scripted network: request shape, parsing
//! over arbitrary chunk splits, batching, every error code and cancellation
//! at each stage.

use super::sse::RoundOutput;
use super::*;
use crate::batcher::StreamBatcher;
use crate::cancel::Cancellation;
use crate::fakes::{FakeBody, FakeChunk, FakeReply};
use crate::fakes::{FakeClock, FakeNetwork, block_on};
use crate::platform::{Clock, HttpRequest, HttpResponse, Network, NetworkError};
use futures::FutureExt;
use proptest::prelude::*;
use protocol::limits;
use protocol::payloads::StreamChannel;
use protocol::payloads::StreamItem;
use serde_json::json;
use serde_json::{Map, Value};
use std::cell::{Cell, RefCell};

fn model(extra: Value) -> ModelConfig {
    let mut record =
        json!({"apiBaseUrl": "https://model.example/v1", "apiKey": "fixture-key", "modelId": "fixture-model"});
    if let (Some(target), Some(extra)) = (record.as_object_mut(), extra.as_object()) {
        target.extend(extra.clone());
    }
    ModelConfig::from_record(&record)
        .map_err(|e| e.message)
        .expect("valid model")
}

fn record(delta: Value) -> String {
    format!("data: {}\n", json!({"choices": [{"delta": delta}]}))
}

fn sse_reply(chunks: &[&str]) -> FakeReply {
    FakeReply::text(200, "text/event-stream", chunks)
}

fn scripted(chunks: Vec<FakeChunk>) -> FakeNetwork {
    FakeNetwork::answering(move |_| {
        Ok(FakeReply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            chunks: chunks.clone(),
        })
    })
}

type Batches = Vec<Vec<StreamItem>>;

fn round_with<C: Clock>(
    network: &impl Network,
    clock: &C,
    model: &ModelConfig,
    cancel: &Cancellation,
) -> (Result<RoundOutput, ProviderError>, Batches) {
    let batches = RefCell::new(Vec::new());
    let mut batcher = StreamBatcher::new(|items| batches.borrow_mut().push(items));
    let messages = [json!({"role": "user", "content": "hello"})];
    let tools = [json!({"type": "function", "function": {"name": "read_document", "parameters": {}}})];
    let request = RoundRequest {
        model,
        messages: &messages,
        tools: &tools,
    };
    let result = block_on(stream_round(network, clock, &request, cancel, &mut batcher));
    drop(batcher);
    (result, batches.into_inner())
}

fn round(network: &FakeNetwork) -> (Result<RoundOutput, ProviderError>, Batches) {
    round_with(network, &FakeClock::default(), &model(json!({})), &Cancellation::new())
}

fn code(result: &Result<RoundOutput, ProviderError>) -> Option<&'static str> {
    result.as_ref().err().map(|error| error.code().as_str())
}

fn item(channel: StreamChannel, text: &str) -> StreamItem {
    StreamItem {
        channel,
        text: text.to_owned(),
    }
}

#[test]
fn model_records_need_url_key_and_model_id() {
    let incomplete = |record: Value| ModelConfig::from_record(&record).err().map(|e| e.code().as_str());
    assert_eq!(incomplete(Value::Null), Some("MODEL_MISSING"));
    assert_eq!(incomplete(json!("model")), Some("MODEL_INCOMPLETE"));
    assert_eq!(
        incomplete(json!({"apiBaseUrl": " ", "apiKey": "k", "modelId": "m"})),
        Some("MODEL_INCOMPLETE")
    );
    assert_eq!(
        incomplete(json!({"apiBaseUrl": "https://a.example", "apiKey": "", "modelId": "m"})),
        Some("MODEL_INCOMPLETE")
    );
    assert_eq!(
        incomplete(json!({"apiBaseUrl": "https://a.example", "apiKey": "k", "modelId": null})),
        Some("MODEL_INCOMPLETE")
    );
    assert_eq!(
        incomplete(json!({"apiBaseUrl": "not a url", "apiKey": "k", "modelId": "m"})),
        Some("INVALID_URL")
    );
    assert_eq!(
        incomplete(json!({"apiBaseUrl": "https://user:pw@a.example", "apiKey": "k", "modelId": "m"})),
        Some("EMBEDDED_CREDENTIALS")
    );
    assert_eq!(
        incomplete(json!({"apiBaseUrl": "ftp://a.example", "apiKey": "k", "modelId": "m"})),
        Some("UNSUPPORTED_SCHEME")
    );
}

#[test]
fn cleartext_needs_an_acknowledgement_bound_to_the_exact_origin() {
    let record = |extra: Value| {
        let mut base = json!({"apiBaseUrl": "http://lan.example:8080/v1", "apiKey": "k", "modelId": "m"});
        if let (Some(target), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
            target.extend(extra.clone());
        }
        ModelConfig::from_record(&base).map_err(|e| e.code().as_str())
    };
    assert_eq!(
        record(json!({"insecureTransportAcknowledged": true})).err(),
        Some("INSECURE_CONFIRMATION_REQUIRED")
    );
    assert_eq!(
        record(json!({"insecureTransportAcknowledgedOrigin": "http://lan.example"})).err(),
        Some("INSECURE_CONFIRMATION_REQUIRED")
    );
    let accepted = record(json!({"insecureTransportAcknowledgedOrigin": "http://lan.example:8080"}));
    assert_eq!(
        accepted.map(|m| m.chat_completions_url()),
        Ok("http://lan.example:8080/v1/chat/completions".to_owned())
    );
    let loopback =
        ModelConfig::from_record(&json!({"apiBaseUrl": "http://127.0.0.1:11434", "apiKey": "k", "modelId": "m"}));
    assert_eq!(
        loopback.map(|m| m.chat_completions_url()).ok(),
        Some("http://127.0.0.1:11434/chat/completions".to_owned())
    );
}

#[test]
fn model_fields_are_read_like_the_original() {
    let m = model(json!({
        "id": "model-1", "name": "Fixture", "apiBaseUrl": "https://Model.Example//v1///",
        "supportsVision": 1, "reasoningEffort": "  high "
    }));
    assert_eq!(m.chat_completions_url(), "https://model.example//v1/chat/completions");
    assert_eq!((m.id.as_str(), m.name.as_str()), ("model-1", "Fixture"));
    assert!(m.supports_vision);
    assert_eq!(m.reasoning_effort.as_deref(), Some("high"));
    assert!(m.reasoning_replay_enabled());
    for effort in [
        json!("default"),
        json!(" DEFAULT "),
        json!(""),
        json!(null),
        json!(false),
    ] {
        let m = model(json!({"reasoningEffort": effort, "supportsVision": false}));
        assert_eq!(m.reasoning_effort, None, "{effort}");
        assert!(!m.supports_vision);
    }
    assert_eq!(
        model(json!({"apiBaseUrl": "https://model.example"})).chat_completions_url(),
        "https://model.example/chat/completions"
    );
}

#[test]
fn parses_reasoning_content_and_tool_calls_across_chunk_boundaries() {
    let network = FakeNetwork::answering(|_| {
        Ok(sse_reply(&[
            "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"think \"}}]}\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"answer\",\"tool_calls\":[{\"index\":0,\"id\":\"call-1\",\"function\":{\"name\":\"read_\",\"arguments\":\"{\\\"max_\"}}]}}]}\n",
            "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"document\",\"arguments\":\"chars\\\":10}\"}}]}}]}\n",
            "data: [DO",
            "NE]\n\n",
        ]))
    });
    let (result, batches) = round(&network);
    let output = result.map_err(|e| e.message).expect("round succeeds");
    assert_eq!(output.content.as_deref(), Some("answer"));
    assert_eq!(output.reasoning.as_deref(), Some("think "));
    assert_eq!(
        output.tool_calls,
        vec![ProviderToolCall {
            id: "call-1".into(),
            name: "read_document".into(),
            raw_args: "{\"max_chars\":10}".into(),
        }]
    );
    assert_eq!(
        batches,
        vec![vec![
            item(StreamChannel::Reasoning, "think "),
            item(StreamChannel::Content, "answer")
        ]]
    );
}

#[test]
fn sends_exactly_the_documented_request() {
    let network = FakeNetwork::answering(|_| Ok(sse_reply(&["data: [DONE]\n"])));
    let (result, _) = round(&network);
    assert_eq!(result, Ok(RoundOutput::default()));
    let requests = network.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.url, "https://model.example/v1/chat/completions");
    assert_eq!(request.method, "POST");
    assert_eq!(
        request.headers,
        vec![
            ("Authorization".to_owned(), "Bearer fixture-key".to_owned()),
            ("Content-Type".to_owned(), "application/json".to_owned()),
        ]
    );
    let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or_default()).unwrap_or_default();
    assert_eq!(
        body,
        json!({
            "model": "fixture-model",
            "stream": true,
            "messages": [{"role": "user", "content": "hello"}],
            "tools": [{"type": "function", "function": {"name": "read_document", "parameters": {}}}],
        })
    );

    let (_, _) = round_with(
        &network,
        &FakeClock::default(),
        &model(json!({"reasoningEffort": " low "})),
        &Cancellation::new(),
    );
    let body: Value =
        serde_json::from_str(network.requests()[1].body.as_deref().unwrap_or_default()).unwrap_or_default();
    assert_eq!(body["reasoning_effort"], "low");
    assert_eq!(body["tools"].as_array().map(Vec::len), Some(1));
}

#[test]
fn routes_inline_think_blocks_split_across_records() {
    for parts in [
        ["before<think>sec", "ret</think>after"],
        ["before<thi", "nk>secret</think>after"],
    ] {
        let body: String = parts.iter().map(|part| record(json!({"content": part}))).collect();
        let network = FakeNetwork::answering(move |_| Ok(sse_reply(&[&body, "data: [DONE]\n"])));
        let output = round(&network).0.map_err(|e| e.message).expect("round succeeds");
        assert_eq!(output.content.as_deref(), Some("beforeafter"));
        assert_eq!(output.reasoning.as_deref(), Some("secret"));
    }
}

#[test]
fn rejects_duplicate_and_invalid_tool_calls() {
    let duplicate = record(json!({"tool_calls": [
        {"index": 0, "id": "same-id", "function": {"name": "read_document", "arguments": "{}"}},
        {"index": 1, "id": "same-id", "function": {"name": "read_diagnostics", "arguments": "{}"}},
    ]}));
    let network = FakeNetwork::answering(move |_| Ok(sse_reply(&[&duplicate, "data: [DONE]\n"])));
    assert_eq!(code(&round(&network).0), Some("PROVIDER_DUPLICATE_TOOL_CALL_ID"));

    for delta in [
        json!({"tool_calls": [{"index": 0, "id": 7, "function": {"name": "read_document", "arguments": "{}"}}]}),
        json!({"tool_calls": [{"index": 0, "id": "call-1", "function": {"name": "bad tool name", "arguments": "{}"}}]}),
        json!({"tool_calls": [{"index": 64, "id": "call-1", "function": {"name": "read_document", "arguments": "{}"}}]}),
        json!({"tool_calls": {}}),
    ] {
        let body = record(delta.clone());
        let network = FakeNetwork::answering(move |_| Ok(sse_reply(&[&body, "data: [DONE]\n"])));
        assert_eq!(code(&round(&network).0), Some("PROVIDER_INVALID_TOOL_CALL"), "{delta}");
    }
}

#[test]
fn a_parser_failure_stops_reading_the_body() {
    let reads = std::rc::Rc::new(Cell::new(0));
    let counter = reads.clone();
    let network = FakeNetwork::answering(move |_| {
        counter.set(counter.get() + 1);
        Ok(FakeReply {
            status: 200,
            headers: Vec::new(),
            chunks: vec![
                FakeChunk::Data(record(json!({"tool_calls": {}})).into_bytes()),
                FakeChunk::Stall,
            ],
        })
    });
    // Reading on would stall forever; the error ends the round first.
    assert_eq!(code(&round(&network).0), Some("PROVIDER_INVALID_TOOL_CALL"));
    assert_eq!(reads.get(), 1);
}

#[test]
fn reports_http_errors_with_the_status_and_a_bounded_excerpt() {
    let network = FakeNetwork::answering(|_| Ok(FakeReply::text(503, "text/plain", &["provider ", "rejected"])));
    let (result, _) = round(&network);
    assert_eq!(
        result.err(),
        Some(ProviderError::new(
            ProviderErrorCode::HttpError,
            "API 503: provider rejected"
        ))
    );

    let long = format!("{}tail", "é".repeat(300));
    let verbose = FakeNetwork::answering(move |_| Ok(FakeReply::text(400, "text/plain", &[&long])));
    assert_eq!(
        round(&verbose).0.err().map(|e| e.message),
        Some(format!("API 400: {}", "é".repeat(300)))
    );

    let huge = "x".repeat(limits::MAX_PROVIDER_ERROR_BYTES as usize + 1);
    let oversized = FakeNetwork::answering(move |_| Ok(FakeReply::text(500, "text/plain", &[&huge])));
    assert_eq!(
        round(&oversized).0.err().map(|e| e.message),
        Some("API 500: ".to_owned())
    );

    let broken = FakeNetwork::answering(|_| {
        Ok(FakeReply {
            status: 502,
            headers: Vec::new(),
            chunks: vec![FakeChunk::Data(b"partial".to_vec()), FakeChunk::Error("reset".into())],
        })
    });
    assert_eq!(round(&broken).0.err().map(|e| e.message), Some("API 502: ".to_owned()));
}

#[test]
fn tolerates_sixteen_malformed_records_and_fails_on_seventeen() {
    let sixteen = "data: not-json\n".repeat(16);
    let network = FakeNetwork::answering(move |_| Ok(sse_reply(&[&sixteen])));
    assert_eq!(round(&network).0, Ok(RoundOutput::default()));
    let seventeen: Vec<String> = (0..17).map(|_| "data: not-json\n".to_owned()).collect();
    let network = FakeNetwork::answering(move |_| {
        let chunks: Vec<&str> = seventeen.iter().map(String::as_str).collect();
        Ok(sse_reply(&chunks))
    });
    assert_eq!(code(&round(&network).0), Some("PROVIDER_MALFORMED_SSE"));
}

#[test]
fn bounds_declared_and_streamed_bytes_and_output_characters() {
    let declared = FakeNetwork::answering(|_| {
        let mut reply = sse_reply(&["data: [DONE]\n\n"]);
        reply.headers.push((
            "content-length".into(),
            (limits::MAX_PROVIDER_STREAM_BYTES + 1).to_string(),
        ));
        Ok(reply)
    });
    assert_eq!(code(&round(&declared).0), Some("PROVIDER_STREAM_TOO_LARGE"));
    assert_eq!(declared.requests().len(), 1);

    let padding = ": padding\n".repeat(limits::MAX_PROVIDER_STREAM_BYTES as usize / 10);
    let streamed = FakeNetwork::answering(move |_| Ok(sse_reply(&[&padding, ": one more byte\n"])));
    assert_eq!(code(&round(&streamed).0), Some("PROVIDER_STREAM_TOO_LARGE"));

    let big = "x".repeat(limits::MAX_PROVIDER_OUTPUT_CHARS as usize);
    let body = format!(
        "{}{}",
        record(json!({"reasoning_content": big})),
        record(json!({"content": "!"}))
    );
    let too_much = FakeNetwork::answering(move |_| Ok(sse_reply(&[&body])));
    let (result, batches) = round(&too_much);
    assert_eq!(code(&result), Some("PROVIDER_OUTPUT_TOO_LARGE"));
    let delivered: usize = batches.iter().flatten().map(|item| item.text.len()).sum();
    assert_eq!(
        delivered,
        limits::MAX_PROVIDER_OUTPUT_CHARS as usize,
        "partial output is flushed"
    );
}

#[test]
fn network_failures_have_their_own_code() {
    let offline = FakeNetwork::default();
    let (result, _) = round(&offline);
    assert_eq!(code(&result), Some("PROVIDER_NETWORK_ERROR"));
    assert!(
        result
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
            .contains("No route to")
    );

    let reset = scripted(vec![
        FakeChunk::Data(record(json!({"content": "partial"})).into_bytes()),
        FakeChunk::Error("connection reset".into()),
    ]);
    let (result, batches) = round(&reset);
    assert_eq!(code(&result), Some("PROVIDER_NETWORK_ERROR"));
    assert_eq!(batches, vec![vec![item(StreamChannel::Content, "partial")]]);
}

/// A network whose `fetch` never answers and ignores cancellation.
struct HangingNetwork {
    calls: Cell<usize>,
}

impl Network for HangingNetwork {
    type Body = FakeBody;

    async fn fetch(
        &self,
        _request: HttpRequest,
        _cancel: &Cancellation,
    ) -> Result<HttpResponse<FakeBody>, NetworkError> {
        self.calls.set(self.calls.get() + 1);
        std::future::pending().await
    }
}

#[test]
fn a_cancelled_run_sends_nothing() {
    let network = FakeNetwork::answering(|_| Ok(sse_reply(&["data: [DONE]\n"])));
    let cancel = Cancellation::new();
    cancel.cancel();
    let (result, _) = round_with(&network, &FakeClock::default(), &model(json!({})), &cancel);
    assert_eq!(code(&result), Some("CANCELLED"));
    assert!(network.requests().is_empty());
}

#[test]
fn cancelling_while_waiting_for_headers_ends_the_round() {
    let network = HangingNetwork { calls: Cell::new(0) };
    let cancel = Cancellation::new();
    let model = model(json!({}));
    let clock = FakeClock::default();
    let mut batcher = StreamBatcher::new(|_items| {});
    let request = RoundRequest {
        model: &model,
        messages: &[],
        tools: &[],
    };
    let mut pending = Box::pin(stream_round(&network, &clock, &request, &cancel, &mut batcher));
    assert!(pending.as_mut().now_or_never().is_none(), "the fetch hangs");
    assert_eq!(network.calls.get(), 1);
    cancel.cancel();
    let result = pending.now_or_never();
    assert_eq!(result.map(|r| code(&r)), Some(Some("CANCELLED")));
}

#[test]
fn cancelling_while_reading_an_error_body_ends_the_round() {
    let network = FakeNetwork::answering(|_| {
        Ok(FakeReply {
            status: 503,
            headers: Vec::new(),
            chunks: vec![FakeChunk::Stall],
        })
    });
    let cancel = Cancellation::new();
    let model = model(json!({}));
    let clock = FakeClock::default();
    let mut batcher = StreamBatcher::new(|_items| {});
    let request = RoundRequest {
        model: &model,
        messages: &[],
        tools: &[],
    };
    let mut pending = Box::pin(stream_round(&network, &clock, &request, &cancel, &mut batcher));
    assert!(pending.as_mut().now_or_never().is_none());
    cancel.cancel();
    assert_eq!(pending.now_or_never().map(|r| code(&r)), Some(Some("CANCELLED")));
}

#[test]
fn a_stalled_stream_emits_its_pending_batch_then_stops_on_cancel() {
    let network = scripted(vec![
        FakeChunk::Data(record(json!({"reasoning_content": "plan", "content": "Hel"})).into_bytes()),
        FakeChunk::Data(record(json!({"content": "lo"})).into_bytes()),
        FakeChunk::Stall,
    ]);
    let cancel = Cancellation::new();
    let model = model(json!({}));
    let clock = FakeClock::default();
    let batches = RefCell::new(Vec::new());
    let mut batcher = StreamBatcher::new(|items| batches.borrow_mut().push(items));
    let request = RoundRequest {
        model: &model,
        messages: &[],
        tools: &[],
    };
    {
        let mut pending = Box::pin(stream_round(&network, &clock, &request, &cancel, &mut batcher));
        assert!(pending.as_mut().now_or_never().is_none(), "the server stalls");
        assert_eq!(
            *batches.borrow(),
            vec![vec![
                item(StreamChannel::Reasoning, "plan"),
                item(StreamChannel::Content, "Hello")
            ]],
            "the pending batch went out when its timer fired"
        );
        assert_eq!(clock.slept_ms(), u64::from(crate::batcher::FLUSH_DELAY_MS));
        cancel.cancel();
        assert_eq!(pending.now_or_never().map(|r| code(&r)), Some(Some("CANCELLED")));
    }
    assert_eq!(batches.borrow().len(), 1, "nothing is emitted twice");
}

/// A clock that moves forward by `step` ms every time it is read.
struct TickingClock {
    now: Cell<f64>,
    step: f64,
}

impl Clock for TickingClock {
    fn now_ms(&self) -> f64 {
        self.now.set(self.now.get() + self.step);
        self.now.get()
    }
    async fn sleep(&self, ms: u32) {
        self.now.set(self.now.get() + f64::from(ms));
    }
    fn uuid(&self) -> String {
        String::new()
    }
}

#[test]
fn a_fast_stream_still_emits_batches_while_it_runs() {
    let chunks: Vec<FakeChunk> = (0..10)
        .map(|i| FakeChunk::Data(record(json!({"content": format!("{i}")})).into_bytes()))
        .collect();
    let network = scripted(chunks);
    let clock = TickingClock {
        now: Cell::new(0.0),
        step: 10.0,
    };
    let (result, batches) = round_with(&network, &clock, &model(json!({})), &Cancellation::new());
    assert_eq!(result.map(|o| o.content), Ok(Some("0123456789".to_owned())));
    assert!(batches.len() > 1, "batches are emitted before the stream ends");
    let text: String = batches.iter().flatten().map(|item| item.text.as_str()).collect();
    assert_eq!(text, "0123456789");
}

#[derive(Debug, Clone)]
struct Delta {
    reasoning: Option<(u8, String)>,
    content: Option<String>,
}

fn delta_strategy() -> impl Strategy<Value = Delta> {
    let text = "[a-zé😀中 \"\\\\\n]{0,6}";
    (proptest::option::of((0u8..4, text)), proptest::option::of(text))
        .prop_map(|(reasoning, content)| Delta { reasoning, content })
}

fn delta_json(delta: &Delta) -> Value {
    let mut object = Map::new();
    if let Some((dialect, text)) = &delta.reasoning {
        let (key, value) = match dialect {
            0 => ("reasoning_content", json!(text)),
            1 => ("reasoning", json!(text)),
            2 => ("reasoning", json!({"content": text})),
            _ => ("thinking", json!(text)),
        };
        object.insert(key.to_owned(), value);
    }
    if let Some(content) = &delta.content {
        object.insert("content".to_owned(), json!(content));
    }
    Value::Object(object)
}

fn merged(pieces: impl IntoIterator<Item = (StreamChannel, String)>) -> Vec<(StreamChannel, String)> {
    let mut out: Vec<(StreamChannel, String)> = Vec::new();
    for (channel, text) in pieces {
        if text.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last, existing)) if *last == channel => existing.push_str(&text),
            _ => out.push((channel, text)),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn any_chunking_of_a_stream_gives_the_same_round(
        deltas in proptest::collection::vec(delta_strategy(), 0..12),
        crlf in proptest::collection::vec(any::<bool>(), 12),
        cuts in proptest::collection::vec(0usize..4_000, 0..12),
        step in 0.0f64..20.0,
    ) {
        let mut body = String::from(": stream opened\n\n");
        for (index, delta) in deltas.iter().enumerate() {
            let ending = if crlf.get(index).copied().unwrap_or(false) { "\r\n" } else { "\n" };
            body.push_str(&format!("data: {}{ending}", json!({"choices": [{"delta": delta_json(delta)}]})));
        }
        body.push_str("data: [DONE]\r\n");
        let bytes = body.into_bytes();
        let mut bounds: Vec<usize> = cuts.into_iter().map(|cut| cut % (bytes.len() + 1)).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut chunks = Vec::new();
        let mut start = 0;
        for end in bounds.into_iter().chain([bytes.len()]) {
            chunks.push(FakeChunk::Data(bytes[start..end].to_vec()));
            start = end;
        }
        let network = scripted(chunks);
        let clock = TickingClock { now: Cell::new(0.0), step };
        let (result, batches) = round_with(&network, &clock, &model(json!({})), &Cancellation::new());
        let output = result.map_err(|e| e.message);
        prop_assert!(output.is_ok(), "{:?}", output);
        let output = output.unwrap_or_default();

        let expected = merged(deltas.iter().flat_map(|delta| {
            [
                (StreamChannel::Reasoning, delta.reasoning.as_ref().map(|(_, t)| t.clone()).unwrap_or_default()),
                (StreamChannel::Content, delta.content.clone().unwrap_or_default()),
            ]
        }));
        let content: String = expected.iter().filter(|(c, _)| *c == StreamChannel::Content).map(|(_, t)| t.as_str()).collect();
        let reasoning: String = expected.iter().filter(|(c, _)| *c == StreamChannel::Reasoning).map(|(_, t)| t.as_str()).collect();
        prop_assert_eq!(output.content.unwrap_or_default(), content);
        prop_assert_eq!(output.reasoning.unwrap_or_default(), reasoning);
        let emitted = merged(batches.into_iter().flatten().map(|item| (item.channel, item.text)));
        prop_assert_eq!(emitted, expected);
    }
}
