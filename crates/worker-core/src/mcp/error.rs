//! Why an MCP request failed: [`McpError`], what callers see, and
//! [`Failure`], the same error with the facts the era negotiation decides on
//! (the HTTP status and the JSON-RPC error), so no decision has to re-read a
//! message text.

use protocol::ErrorCode;
use serde_json::{Value, json};
use std::fmt;

/// A failed discovery or call: a catalogue code to branch on, a sentence for
/// people, and structured facts where the original gave them (`{status}` for
/// HTTP errors, `{status, rpcCode, data}` for JSON-RPC errors, `{origin}`
/// for an unacknowledged cleartext origin).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct McpError {
    /// The stable code (`MCP_HTTP_ERROR`, `TIMEOUT`, `CANCELLED`, …).
    pub(crate) code: ErrorCode,
    /// The sentence for people (the model reads it in a failed tool result).
    pub(crate) message: String,
    /// Structured facts, when there are any.
    pub(crate) details: Option<Value>,
}

impl McpError {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> McpError {
        McpError {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub(crate) fn with_details(mut self, details: Value) -> McpError {
        self.details = Some(details);
        self
    }

    pub(crate) fn cancelled() -> McpError {
        McpError::new(ErrorCode::Cancelled, "MCP request cancelled.")
    }

    pub(crate) fn timeout() -> McpError {
        McpError::new(ErrorCode::Timeout, "MCP request timed out.")
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// The JSON-RPC `error` member of an answer, as far as negotiation reads it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcError {
    /// `error.code` when it is a number.
    pub(crate) code: Option<f64>,
    /// `error.data.supported` when it is an array (the versions a server
    /// names in its `-32022` answer).
    pub(crate) supported: Option<Vec<Value>>,
}

/// JSON-RPC code of "unsupported protocol version" (2026-07-28).
pub(crate) const RPC_UNSUPPORTED_VERSION: f64 = -32022.0;
/// JSON-RPC code of a missing or mismatched `Mcp-Method`, `Mcp-Name` or
/// `Mcp-Param-*` header (2026-07-28).
pub(crate) const RPC_HEADER_MISMATCH: f64 = -32020.0;

/// One failed exchange: the caller's error plus the HTTP status of the
/// answer, if one arrived, and its JSON-RPC error, if it had one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    pub(crate) error: McpError,
    pub(crate) status: Option<u16>,
    pub(crate) rpc: Option<RpcError>,
}

impl Failure {
    /// A failure with no answer behind it (cancelled, timed out, refused
    /// before sending, unreachable).
    pub(crate) fn bare(error: McpError) -> Failure {
        Failure {
            error,
            status: None,
            rpc: None,
        }
    }

    /// A failure reading the body of an answer with this status. A non-2xx
    /// status is kept in the error's details when it has none of its own
    /// (`{status}`), so whoever explains the failure can tell a 403 page
    /// from a 404 one without reading the message.
    pub(crate) fn answered(status: u16, error: McpError) -> Failure {
        let error = if error.details.is_none() && !(200..300).contains(&status) {
            error.with_details(json!({ "status": status }))
        } else {
            error
        };
        Failure {
            error,
            status: Some(status),
            rpc: None,
        }
    }

    /// The answer's JSON-RPC `error` member (`MCP_JSON_RPC_ERROR`, or
    /// `UNSUPPORTED_MCP_VERSION` for -32022). `status` is the HTTP status of
    /// a non-2xx answer (`None` for a 2xx one, as the original reported it);
    /// `offered` is the version the request spoke.
    pub(crate) fn from_rpc_error(error: &Value, status: u16, offered: &str) -> Failure {
        let code = error.get("code").and_then(protocol::js::as_number);
        let data = error.get("data").cloned().unwrap_or(Value::Null);
        let supported = data.get("supported").and_then(Value::as_array).cloned();
        let http = (!(200..300).contains(&status)).then_some(status);
        let message = if code == Some(RPC_UNSUPPORTED_VERSION) {
            let listed = supported
                .as_deref()
                .map(|versions| {
                    versions
                        .iter()
                        .map(|v| {
                            if v.is_null() {
                                String::new()
                            } else {
                                protocol::js::js_string(v)
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .filter(|text| !text.is_empty())
                .unwrap_or_else(|| "not provided".to_owned());
            format!("Server does not support MCP {offered}. Supported versions: {listed}.")
        } else {
            let text = match error.get("message") {
                Some(message) if protocol::js::is_truthy(Some(message)) => protocol::js::js_string(message),
                _ => protocol::js::json_stringify(error),
            };
            format!("MCP error: {text}")
        };
        let code_name = if code == Some(RPC_UNSUPPORTED_VERSION) {
            ErrorCode::UnsupportedMcpVersion
        } else {
            ErrorCode::McpJsonRpcError
        };
        let details = json!({
            "status": http,
            "rpcCode": error.get("code").cloned().unwrap_or(Value::Null),
            "data": data,
        });
        Failure {
            error: McpError::new(code_name, message).with_details(details),
            status: Some(status),
            rpc: Some(RpcError { code, supported }),
        }
    }

    /// The status when it is a client error (400–499).
    pub(crate) fn client_error_status(&self) -> Option<u16> {
        self.status.filter(|status| (400..500).contains(status))
    }
}
