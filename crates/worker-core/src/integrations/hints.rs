//! What a failed probe tells the user to check ([`probe_hint`]): for each
//! failure the probe can meet, which server setting or which field of the
//! form fixes it. The code and message stay the failure's own; the hint is
//! the extra sentence under them (`details.hint`).

use crate::integrations::origin_rules::Coverage;
use crate::mcp::{LEGACY_VERSIONS, MODERN_VERSION};
use protocol::{ErrorCode, js};
use serde_json::Value;

/// What the probe knew when it failed.
#[derive(Debug, Clone)]
pub(crate) struct ProbeContext<'a> {
    /// The server's origin, once its URL passed the endpoint policy.
    pub(crate) origin: Option<&'a str>,
    /// The protocol setting as stored (`auto`, `2026-07-28`, `2025-11-25`).
    pub(crate) protocol_mode: &'a str,
    /// Whether the requests went out without `Origin` (`None` when nothing
    /// was sent).
    pub(crate) coverage: Option<Coverage>,
    /// `chrome-extension://<id>`, the `Origin` the browser sends.
    pub(crate) extension_origin: &'a str,
}

impl ProbeContext<'_> {
    fn address(&self) -> &str {
        self.origin.unwrap_or("that address")
    }
}

/// The sentence that says what to check for a failure with `code`,
/// `message` and `details` (the HTTP status is read from `details.status`).
pub(crate) fn probe_hint(
    code: ErrorCode,
    message: &str,
    details: Option<&Value>,
    context: &ProbeContext<'_>,
) -> String {
    let status = details
        .and_then(|details| details.get("status"))
        .and_then(Value::as_u64)
        .and_then(|status| u16::try_from(status).ok());
    if let Some(status) = status
        && matches!(
            code,
            ErrorCode::McpHttpError
                | ErrorCode::McpJsonRpcError
                | ErrorCode::McpInvalidJson
                | ErrorCode::McpStreamEnded
        )
    {
        // An HTTP error status says more than the shape of its body.
        return http_hint(status, message, context);
    }
    match code {
        ErrorCode::McpNetworkError => format!(
            "Nothing answered at {}: check that the server is running and listening at that address and port, \
             that the host name resolves, and for https that its certificate is valid for that name. \
             Redirects are not followed, so the URL must be the endpoint itself.",
            context.address()
        ),
        ErrorCode::Timeout => format!(
            "The server at {} did not answer within {} seconds: check that it is running, not stuck, and that the \
             URL is its MCP endpoint.",
            context.address(),
            protocol::limits::MCP_DISCOVERY_TIMEOUT_MS / 1_000
        ),
        ErrorCode::UnsupportedMcpVersion => version_hint(details, context),
        ErrorCode::McpInvalidJson => "The address answered with something that is not JSON-RPC: check that the URL \
             is the server's MCP endpoint and not a web page."
            .to_owned(),
        ErrorCode::McpMalformedSse | ErrorCode::McpStreamEnded => "The server's event stream ended or broke before \
             its answer: check the server's log; a proxy that buffers or cuts event streams causes this too."
            .to_owned(),
        ErrorCode::McpResponseTooLarge => "One answer of the server passed 2 MiB: let it list its tools in smaller \
             pages (nextCursor), or offer fewer or smaller tools."
            .to_owned(),
        ErrorCode::McpPageLimit => "The server's tool list went on for more than 20 pages: check that its \
             nextCursor ends, or let it put more tools on a page."
            .to_owned(),
        ErrorCode::McpToolLimit => "The server offers more than 500 tools; this client takes at most 500. Offer \
             fewer tools on this endpoint."
            .to_owned(),
        ErrorCode::McpResponseIdMismatch => "The server answered with another request's id: check the server, or a \
             proxy between it and the browser."
            .to_owned(),
        ErrorCode::McpInputRequiredUnsupported => "The server asks for multi-round input, which this client does \
             not offer."
            .to_owned(),
        ErrorCode::McpInvalidSessionId => "The server issued a session id that is not short visible ASCII, as the \
             2025 protocol requires: check the server's session handling."
            .to_owned(),
        other => record_hint(other, context),
    }
}

/// The hint of a failure that happened before anything was sent: a field
/// of the form.
pub(crate) fn record_hint(code: ErrorCode, context: &ProbeContext<'_>) -> String {
    match code {
        ErrorCode::UnsupportedMcpVersion => format!(
            "Choose a Protocol this client speaks: Auto (it tries {MODERN_VERSION} and falls back to the 2025 \
             handshake), {MODERN_VERSION} or {}.",
            LEGACY_VERSIONS.first().copied().unwrap_or_default()
        ),
        ErrorCode::InvalidUrl => "Enter the server's whole endpoint URL, such as http://127.0.0.1:8000/mcp.".to_owned(),
        ErrorCode::EmbeddedCredentials => "Take the user name and password out of the URL and put credentials in \
             Headers instead (for example \"Authorization\": \"Bearer <token>\")."
            .to_owned(),
        ErrorCode::UnsupportedScheme => "Use an https:// URL, or http:// for a server on this computer.".to_owned(),
        ErrorCode::InsecureConfirmationRequired => format!(
            "Use https://, or tick \"Allow non-loopback HTTP\" to accept cleartext HTTP to {} (keys and project \
             data then travel unencrypted).",
            context.address()
        ),
        ErrorCode::InvalidHeaders
        | ErrorCode::HeaderLimit
        | ErrorCode::InvalidHeader
        | ErrorCode::ProtectedHeader
        | ErrorCode::McpHeaderConflict => "Fix Headers: a JSON object of at most 32 \"Name\": \"value\" pairs, \
             without the headers the MCP transport sets itself (Accept, Content-Type, MCP-Protocol-Version, \
             Mcp-Session-Id, Mcp-Method, Mcp-Name, Mcp-Param-*)."
            .to_owned(),
        ErrorCode::InvalidMcpServerId | ErrorCode::DuplicateMcpServerId => "The form's server id is not usable: \
             close the form and add the server again."
            .to_owned(),
        _ => "Check the URL, Headers and Protocol of the form, and the server's log.".to_owned(),
    }
}

/// The hint of an HTTP answer outside 2xx.
fn http_hint(status: u16, message: &str, context: &ProbeContext<'_>) -> String {
    let lower = message.to_lowercase();
    match status {
        401 => "The server wants credentials: add or correct them in Headers (for example \"Authorization\": \
             \"Bearer <token>\") and probe again."
            .to_owned(),
        403 if lower.contains("origin") => origin_hint(context),
        403 => {
            "The server refused access: check the credentials in Headers and that they may use this server.".to_owned()
        }
        421 => format!(
            "The server's DNS-rebinding protection refused the Host of {}: use a host name it allows (a Python mcp \
             server on 127.0.0.1 allows 127.0.0.1, localhost and [::1]) or add this one to its allowed hosts.",
            context.address()
        ),
        404 => {
            "Nothing is served at this path: check the path of the URL (servers usually serve MCP at /mcp).".to_owned()
        }
        405 | 406 => format!(
            "The address answered HTTP {status}, so it is not a Streamable-HTTP MCP endpoint: check that the URL is \
             the server's MCP endpoint and that the server uses the Streamable HTTP transport (not the older \
             HTTP+SSE transport or stdio)."
        ),
        400 if lower.contains("content-type") => "The server refused the request's Content-Type: it is not a \
             Streamable-HTTP MCP endpoint, or a proxy changes the request."
            .to_owned(),
        500..=599 => format!("The server failed (HTTP {status}): see its log."),
        _ => format!(
            "The server refused the request (HTTP {status}): see its message and log, and check the URL, Headers \
             and Protocol."
        ),
    }
}

/// The hint of a 403 that names the `Origin` header.
fn origin_hint(context: &ProbeContext<'_>) -> String {
    let allow = format!(
        "Allow {} in the server's allowed origins (Python mcp: transport_security=TransportSecuritySettings(\
         allowed_origins=[…])), or turn its DNS-rebinding protection off for this address.",
        context.extension_origin
    );
    match &context.coverage {
        Some(Coverage::Removed) => format!(
            "The server refused the request's Origin although the extension removes Origin from its own requests \
             to {}: something between them (a proxy) may add one. {allow}",
            context.address()
        ),
        Some(Coverage::BeyondLimit) => format!(
            "The server refused the browser's Origin header ({}); the extension removes it for at most {} server \
             origins and {} is past them. Disable servers you do not use, or: {allow}",
            context.extension_origin,
            protocol::limits::MAX_MCP_ORIGIN_RULES,
            context.address()
        ),
        Some(Coverage::Refused(reason)) => format!(
            "The server refused the browser's Origin header ({}) and the extension could not remove it ({reason}). \
             {allow}",
            context.extension_origin
        ),
        None => format!("The server refused the browser's Origin header. {allow}"),
    }
}

/// The hint of `UNSUPPORTED_MCP_VERSION`: what the server named, what this
/// client speaks, and that `auto` negotiates.
fn version_hint(details: Option<&Value>, context: &ProbeContext<'_>) -> String {
    let named: Vec<String> = details
        .and_then(|details| details.pointer("/data/supported"))
        .and_then(Value::as_array)
        .map(|versions| versions.iter().map(js::js_string).collect())
        .unwrap_or_default();
    let server = if named.is_empty() {
        String::new()
    } else {
        format!("The server named {}. ", named.join(", "))
    };
    let setting = match context.protocol_mode {
        "" | "auto" => format!(
            "Protocol is already Auto, which tries {MODERN_VERSION} and then the 2025 handshake; the server speaks \
             neither, so it needs an update."
        ),
        mode => format!(
            "Protocol is set to {mode} only: choose Auto, which tries {MODERN_VERSION} and falls back to the 2025 \
             handshake."
        ),
    };
    format!(
        "{server}This client speaks {MODERN_VERSION} and, through the 2025 handshake, {}. {setting}",
        LEGACY_VERSIONS.join(", ")
    )
}
