//! Scripted stand-ins for the MCP servers people run, answering as
//! `/work/shared/spec/mcp-interop.md` measured them: the official
//! TypeScript SDK v2's `createMcpHandler` (2026-07-28, with or without the
//! stateless 2025 leg), SDK v1 and SDK v2's classic transport (2025 only:
//! a session map, one transport instance, or stateless), and Python `mcp`
//! 2.3 (both eras; stateful or stateless; SSE with `\r\n` or JSON). Each
//! offers the measured `echo`, `add` and `lookup` tools; `lookup`'s
//! `region` carries `x-mcp-header: Region`, and on the 2026-07-28 path a
//! call whose `Mcp-Param-Region` header and body argument disagree (either
//! one missing included) is refused with 400 `-32020`, as the SDK v2
//! handler and Python check it (measured in `tests/tool-servers`).

use super::support::{Seen, accepted, result, sse_reply};
use crate::fakes::FakeReply;
use crate::platform::{HttpRequest, NetworkError};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

/// How answers are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    Json,
    Sse,
}

/// How a classic (2025-only) transport is wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wiring {
    /// The SDK example: a map of sessions, one transport each.
    SessionMap,
    /// One transport instance (the SDK's own answers before `initialize`).
    SingleTransport,
    /// `sessionIdGenerator: undefined`.
    Stateless,
}

/// One measured server configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// SDK v2 `createMcpHandler`; `reject_legacy` is `legacy:'reject'`.
    V2Handler { framing: Framing, reject_legacy: bool },
    /// SDK v1, or SDK v2 with the classic transport (they answer alike).
    Classic { wiring: Wiring, framing: Framing },
    /// Python `mcp` 2.3.0.
    Python { stateful: bool, framing: Framing },
}

/// The 2025 versions the SDK transports accept in a header.
const CLASSIC_HEADER_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
/// The versions `initialize` echoes; anything else gets 2025-11-25.
const INITIALIZE_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// A server's state: its sessions, and whether the single transport was
/// initialised.
pub(crate) struct Server {
    pub(crate) kind: Kind,
    sessions: Vec<String>,
    issued: u32,
    initialized: bool,
}

/// A shared server and the responder the fake network calls.
pub(crate) type Serve = (
    Rc<RefCell<Server>>,
    Box<dyn FnMut(&HttpRequest) -> Result<FakeReply, NetworkError>>,
);

pub(crate) fn serve(kind: Kind) -> Serve {
    let server = Rc::new(RefCell::new(Server {
        kind,
        sessions: Vec::new(),
        issued: 0,
        initialized: false,
    }));
    let shared = server.clone();
    (server, Box::new(move |request| Ok(shared.borrow_mut().answer(request))))
}

fn error_reply(status: u16, id: &Value, code: i64, message: &str, data: Option<Value>) -> FakeReply {
    let mut error = json!({ "code": code, "message": message });
    if let Some(data) = data {
        error["data"] = data;
    }
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": error });
    FakeReply::text(status, "application/json", &[&body.to_string()])
}

impl Server {
    /// Every session id issued so far is forgotten (a restart, a `DELETE`).
    pub(crate) fn expire_sessions(&mut self) {
        self.sessions.clear();
        self.initialized = false;
    }

    pub(crate) fn answer(&mut self, request: &HttpRequest) -> FakeReply {
        let seen = Seen::of(request);
        match self.kind {
            Kind::V2Handler { framing, reject_legacy } => self.v2_handler(&seen, framing, reject_legacy),
            Kind::Classic { wiring, framing } => self.classic(&seen, wiring, framing),
            Kind::Python { stateful, framing } => self.python(&seen, stateful, framing),
        }
    }

    fn v2_handler(&mut self, seen: &Seen, framing: Framing, reject_legacy: bool) -> FakeReply {
        let null = Value::Null;
        if seen.is_modern() {
            if seen.header("mcp-protocol-version") != Some("2026-07-28") {
                let data = json!({ "supported": ["2026-07-28"] });
                return error_reply(400, &null, -32022, "Unsupported protocol version", Some(data));
            }
            if let Some(refusal) = modern_refusal(seen, "missing the required per-request envelope key(s): _meta") {
                return refusal;
            }
            return frame(framing, false, self.tools(seen, true, "5"));
        }
        if reject_legacy {
            let message = match seen.header("mcp-protocol-version") {
                None => "the request did not name a protocol version",
                Some(_) => "Unsupported protocol version",
            };
            let data = json!({ "supported": ["2026-07-28"] });
            return error_reply(400, &seen.id(), -32022, message, Some(data));
        }
        if !accepts_both(seen) {
            return error_reply(406, &null, -32000, "Not Acceptable: Client must accept both", None);
        }
        match seen.method() {
            "initialize" => frame(framing, false, initialize_result(seen)),
            "notifications/initialized" => accepted(),
            _ => frame(framing, false, self.tools(seen, false, "5")),
        }
    }

    fn classic(&mut self, seen: &Seen, wiring: Wiring, framing: Framing) -> FakeReply {
        let null = Value::Null;
        if !accepts_both(seen) {
            return error_reply(406, &null, -32000, "Not Acceptable: Client must accept both", None);
        }
        let session = seen.header("mcp-session-id").map(str::to_owned);
        if seen.method() == "initialize" {
            let mut reply = frame(framing, false, initialize_result(seen));
            if wiring != Wiring::Stateless {
                self.issued += 1;
                let id = format!("session-{}", self.issued);
                self.sessions.push(id.clone());
                self.initialized = true;
                reply.headers.push(("mcp-session-id".to_owned(), id));
            }
            return reply;
        }
        match (wiring, &session) {
            (Wiring::SessionMap, None) => {
                return error_reply(400, &null, -32000, "Bad Request: No valid session ID provided", None);
            }
            (Wiring::SingleTransport, _) if !self.initialized => {
                return error_reply(400, &null, -32000, "Bad Request: Server not initialized", None);
            }
            (Wiring::SingleTransport, None) => {
                return error_reply(
                    400,
                    &null,
                    -32000,
                    "Bad Request: Mcp-Session-Id header is required",
                    None,
                );
            }
            (Wiring::SessionMap | Wiring::SingleTransport, Some(id)) if !self.sessions.contains(id) => {
                return error_reply(404, &null, -32001, "Session not found", None);
            }
            _ => {}
        }
        if let Some(version) = seen.header("mcp-protocol-version")
            && !CLASSIC_HEADER_VERSIONS.contains(&version)
        {
            let message = format!("Bad Request: Unsupported protocol version: {version}");
            return error_reply(400, &null, -32000, &message, None);
        }
        match seen.method() {
            "notifications/initialized" => accepted(),
            _ => frame(framing, false, self.tools(seen, false, "5")),
        }
    }

    fn python(&mut self, seen: &Seen, stateful: bool, framing: Framing) -> FakeReply {
        let accept = seen.header("accept").unwrap_or_default();
        if framing == Framing::Sse && !accept.contains("text/event-stream") {
            return FakeReply::text(406, "application/json", &[]);
        }
        if seen.header("mcp-protocol-version") == Some("2026-07-28") {
            let envelope = "params._meta must be an object carrying the required \
                            'io.modelcontextprotocol/protocolVersion' and \
                            'io.modelcontextprotocol/clientCapabilities' envelope keys";
            if let Some(refusal) = modern_refusal(seen, envelope) {
                return refusal;
            }
            return frame(Framing::Json, true, self.tools(seen, true, "5.0"));
        }
        let null = Value::Null;
        if seen.method() == "initialize" {
            let mut reply = frame(framing, true, initialize_result(seen));
            if stateful {
                self.issued += 1;
                let id = format!("{:032x}", self.issued);
                self.sessions.push(id.clone());
                reply.headers.push(("mcp-session-id".to_owned(), id));
            }
            return reply;
        }
        if stateful {
            match seen.header("mcp-session-id") {
                None => return error_reply(400, &null, -32600, "Bad Request: Missing session ID", None),
                Some(id) if !self.sessions.iter().any(|s| s == id) => {
                    return error_reply(404, &null, -32600, "Session not found", None);
                }
                Some(_) => {}
            }
        }
        match seen.method() {
            "notifications/initialized" => accepted(),
            _ => frame(framing, true, self.tools(seen, false, "5.0")),
        }
    }

    /// `tools/list` and `tools/call` of the measured `echo` and `add`.
    fn tools(&self, seen: &Seen, modern: bool, sum: &str) -> Value {
        let id = seen.id();
        let params = &seen.body["params"];
        match seen.method() {
            "tools/list" => {
                let mut listed =
                    json!({ "tools": [echo_tool(self.kind), add_tool(self.kind), lookup_tool(self.kind)] });
                if modern {
                    listed["resultType"] = json!("complete");
                    listed["ttlMs"] = json!(0);
                }
                result(&id, listed)
            }
            "tools/call" => {
                let text = match params["name"].as_str() {
                    Some("echo") => params["arguments"]["text"].as_str().unwrap_or_default().to_owned(),
                    Some("add") => sum.to_owned(),
                    Some("lookup") => {
                        let argument = |key: &str| params["arguments"][key].as_str().unwrap_or_default().to_owned();
                        format!("{}:{}", argument("region"), argument("query"))
                    }
                    _ => {
                        return json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32602, "message": "Unknown tool" } });
                    }
                };
                result(
                    &id,
                    json!({ "content": [{ "type": "text", "text": text }], "isError": false }),
                )
            }
            other => {
                json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32601, "message": format!("Method not found: {other}") } })
            }
        }
    }
}

/// The modern path's header and envelope checks (SDK v2 and Python alike).
fn modern_refusal(seen: &Seen, envelope_message: &str) -> Option<FakeReply> {
    let null = Value::Null;
    if seen.header("mcp-method") != Some(seen.method()) {
        return Some(error_reply(
            400,
            &null,
            -32020,
            "the required Mcp-Method header is absent",
            None,
        ));
    }
    if seen.method() == "tools/call" && seen.header("mcp-name") != seen.body["params"]["name"].as_str() {
        return Some(error_reply(
            400,
            &null,
            -32020,
            "the required Mcp-Name header is absent",
            None,
        ));
    }
    if seen.method() == "tools/call"
        && seen.body["params"]["name"].as_str() == Some("lookup")
        && seen.header("mcp-param-region") != seen.body["params"]["arguments"]["region"].as_str()
    {
        return Some(error_reply(
            400,
            &seen.id(),
            -32020,
            "the request headers and body disagree: Mcp-Param-Region",
            None,
        ));
    }
    let meta = &seen.body["params"]["_meta"];
    if meta.get("io.modelcontextprotocol/protocolVersion").is_none()
        || meta.get("io.modelcontextprotocol/clientCapabilities").is_none()
    {
        return Some(error_reply(400, &null, -32602, envelope_message, None));
    }
    None
}

fn accepts_both(seen: &Seen) -> bool {
    let accept = seen.header("accept").unwrap_or_default();
    accept.contains("application/json") && accept.contains("text/event-stream")
}

fn initialize_result(seen: &Seen) -> Value {
    let offered = seen.body["params"]["protocolVersion"].as_str().unwrap_or_default();
    let chosen = if INITIALIZE_VERSIONS.contains(&offered) {
        offered
    } else {
        "2025-11-25"
    };
    result(
        &seen.id(),
        json!({
            "protocolVersion": chosen,
            "capabilities": { "tools": { "listChanged": true } },
            "serverInfo": { "name": "fixture", "version": "1.0.0" },
        }),
    )
}

/// A JSON body, or an `event: message` stream (`\r\n` line ends for Python).
fn frame(framing: Framing, crlf: bool, message: Value) -> FakeReply {
    match framing {
        Framing::Json => FakeReply::text(200, "application/json", &[&message.to_string()]),
        Framing::Sse if crlf => {
            let text = format!("event: message\r\ndata: {message}\r\n\r\n");
            FakeReply::text(200, "text/event-stream", &[&text])
        }
        Framing::Sse => sse_reply(200, &[message]),
    }
}

fn schema_dialect(kind: Kind) -> &'static str {
    match kind {
        Kind::Classic { .. } => "http://json-schema.org/draft-07/schema#",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

fn echo_tool(kind: Kind) -> Value {
    let mut tool = json!({
        "name": "echo",
        "description": "Echo the text back.",
        "inputSchema": {
            "$schema": schema_dialect(kind),
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"],
            "additionalProperties": false,
        },
    });
    if matches!(kind, Kind::Python { .. }) {
        tool["title"] = json!("Echo");
        tool["outputSchema"] = json!({ "type": "object", "properties": { "result": { "type": "string" } } });
    }
    tool
}

/// `lookup {region, query}`, `region` mirrored into `Mcp-Param-Region`.
fn lookup_tool(kind: Kind) -> Value {
    json!({
        "name": "lookup",
        "description": "Echo a region and a query.",
        "inputSchema": {
            "$schema": schema_dialect(kind),
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "query": { "type": "string" },
            },
            "required": ["region", "query"],
            "additionalProperties": false,
        },
    })
}

fn add_tool(kind: Kind) -> Value {
    let mut tool = json!({
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": {
            "$schema": schema_dialect(kind),
            "type": "object",
            "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
            "required": ["a", "b"],
        },
    });
    if matches!(kind, Kind::Python { .. }) {
        tool["title"] = json!("Add");
        tool["outputSchema"] = json!({ "type": "object", "properties": { "result": { "type": "number" } } });
    }
    tool
}
