//! What the MCP tests share: a client on the fakes' network and virtual
//! clock ([`Rig`]), readers of the requests it sent ([`Seen`]), builders of
//! JSON-RPC answers in both framings, and networks that stall or count
//! aborted requests.

use crate::cancel::{CallbackGuard, Cancellation};
use crate::fakes::{FakeChunk, FakeClock, FakeNetwork, FakeReply, block_on};
use crate::mcp::call::McpToolResult;
use crate::mcp::{DiscoveredTool, Discovery, McpClient, McpEndpoint, McpError};
use crate::platform::{HttpRequest, HttpResponse, Network, NetworkError, ResponseBody};
use protocol::ErrorCode;
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::rc::Rc;

pub(super) const URL: &str = "https://mcp.example/rpc";

/// The original tests' server: `auto` mode with one configured header.
pub(super) fn endpoint() -> McpEndpoint {
    McpEndpoint {
        id: "server-1".to_owned(),
        url: URL.to_owned(),
        headers: vec![("Authorization".to_owned(), "Bearer fixture".to_owned())],
        protocol_mode: "auto".to_owned(),
        insecure_acknowledged_origin: None,
    }
}

pub(super) fn endpoint_with_mode(mode: &str) -> McpEndpoint {
    McpEndpoint {
        protocol_mode: mode.to_owned(),
        ..endpoint()
    }
}

/// One request as a server reads it.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Value,
}

impl Seen {
    pub(super) fn of(request: &HttpRequest) -> Seen {
        Seen {
            headers: request.headers.clone(),
            body: request
                .body
                .as_deref()
                .and_then(|body| serde_json::from_str(body).ok())
                .unwrap_or(Value::Null),
        }
    }

    /// A header by name, in any case.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(super) fn method(&self) -> &str {
        self.body["method"].as_str().unwrap_or_default()
    }

    pub(super) fn id(&self) -> Value {
        self.body.get("id").cloned().unwrap_or(Value::Null)
    }

    /// Whether the request speaks 2026-07-28 (header or envelope).
    pub(super) fn is_modern(&self) -> bool {
        self.header("mcp-protocol-version") == Some("2026-07-28") || self.body["params"].get("_meta").is_some()
    }
}

/// A JSON body.
pub(super) fn json_reply(status: u16, value: &Value) -> FakeReply {
    FakeReply::text(status, "application/json", &[&value.to_string()])
}

/// An event stream of `event: message` events, one per value.
pub(super) fn sse_reply(status: u16, values: &[Value]) -> FakeReply {
    let text: String = values
        .iter()
        .map(|value| format!("event: message\ndata: {value}\n\n"))
        .collect();
    FakeReply::text(status, "text/event-stream", &[&text])
}

/// An accepted notification.
pub(super) fn accepted() -> FakeReply {
    FakeReply {
        status: 202,
        headers: Vec::new(),
        chunks: Vec::new(),
    }
}

pub(super) fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

pub(super) fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// A tool as discovery would give it.
pub(super) fn tool(name: &str, schema: Value) -> DiscoveredTool {
    DiscoveredTool {
        name: name.to_owned(),
        schema: protocol::tool_schema::ToolSchema::compile(&schema, protocol::tool_schema::SchemaOptions::MCP)
            .expect("a valid schema"),
        raw: json!({ "name": name, "inputSchema": schema }),
    }
}

pub(super) fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().expect("an object")
}

/// The code of a failure.
pub(super) fn code<T: std::fmt::Debug>(outcome: Result<T, McpError>) -> ErrorCode {
    outcome.expect_err("a failure").code
}

/// A client, a scripted network and a virtual clock.
pub(super) struct Rig<N: Network = FakeNetwork> {
    pub(super) network: N,
    pub(super) clock: FakeClock,
    pub(super) client: McpClient,
}

impl Rig<FakeNetwork> {
    pub(super) fn new(responder: impl FnMut(&HttpRequest) -> Result<FakeReply, NetworkError> + 'static) -> Rig {
        Rig::on(FakeNetwork::answering(responder))
    }

    /// Every request sent so far.
    pub(super) fn seen(&self) -> Vec<Seen> {
        self.network.requests().iter().map(Seen::of).collect()
    }
}

impl<N: Network> Rig<N> {
    pub(super) fn on(network: N) -> Rig<N> {
        Rig {
            network,
            clock: FakeClock::default(),
            client: McpClient::new("9.8.7"),
        }
    }

    pub(super) fn discover(&self, endpoint: &McpEndpoint, force_refresh: bool) -> Result<Discovery, McpError> {
        self.discover_with(endpoint, force_refresh, &Cancellation::new())
    }

    pub(super) fn discover_with(
        &self,
        endpoint: &McpEndpoint,
        force_refresh: bool,
        cancel: &Cancellation,
    ) -> Result<Discovery, McpError> {
        block_on(
            self.client
                .discover(&self.network, &self.clock, endpoint, force_refresh, cancel),
        )
    }

    pub(super) fn call(
        &self,
        endpoint: &McpEndpoint,
        tool: &DiscoveredTool,
        arguments: Value,
    ) -> Result<McpToolResult, McpError> {
        let arguments = args(arguments);
        block_on(self.client.call(
            &self.network,
            &self.clock,
            endpoint,
            tool,
            &arguments,
            &Cancellation::new(),
        ))
    }
}

/// A network whose requests never get an answer, until cancelled.
pub(super) struct SilentNetwork;

impl Network for SilentNetwork {
    type Body = crate::fakes::FakeBody;

    async fn fetch(
        &self,
        _request: HttpRequest,
        cancel: &Cancellation,
    ) -> Result<HttpResponse<Self::Body>, NetworkError> {
        cancel.cancelled().await;
        Err(NetworkError::Cancelled)
    }
}

/// The fakes' network, counting requests whose cancellation fired while
/// their response was still being read (the browser would abort them).
pub(super) struct Watched {
    pub(super) inner: FakeNetwork,
    pub(super) aborted: Rc<Cell<usize>>,
}

impl Watched {
    pub(super) fn answering(chunks: Vec<FakeChunk>, content_type: &str) -> Watched {
        let content_type = content_type.to_owned();
        Watched {
            inner: FakeNetwork::answering(move |_| {
                Ok(FakeReply {
                    status: 200,
                    headers: vec![("content-type".to_owned(), content_type.clone())],
                    chunks: chunks.clone(),
                })
            }),
            aborted: Rc::new(Cell::new(0)),
        }
    }
}

pub(super) struct WatchedBody {
    inner: crate::fakes::FakeBody,
    _abort: CallbackGuard,
}

impl ResponseBody for WatchedBody {
    async fn next_chunk(&mut self) -> Option<Result<Vec<u8>, NetworkError>> {
        self.inner.next_chunk().await
    }
}

impl Network for Watched {
    type Body = WatchedBody;

    async fn fetch(
        &self,
        request: HttpRequest,
        cancel: &Cancellation,
    ) -> Result<HttpResponse<WatchedBody>, NetworkError> {
        let response = self.inner.fetch(request, cancel).await?;
        let aborted = self.aborted.clone();
        let guard = cancel.on_cancel(move || aborted.set(aborted.get() + 1));
        Ok(HttpResponse {
            status: response.status,
            headers: response.headers,
            body: WatchedBody {
                inner: response.body,
                _abort: guard,
            },
        })
    }
}
