//! `PROBE_MCP_SERVER`: the MCP form's "Probe tools" ([`route`]).
//!
//! The form's record is checked with the save-time rules first (an invalid
//! form is refused before anything is sent), then its origin gets an
//! `Origin` rule for the probe's time, and the server's tools are discovered
//! afresh (the cache is refreshed, never read). The answer is the
//! original's `{ok:true, tools, errors, version, pages, ttlMs, cacheScope,
//! cache}`; a failure keeps its own code, message and details and adds
//! `details.hint`, the sentence that says what to check.

use crate::cancel::Cancellation;
use crate::envelope::RequestError;
use crate::integrations::hints::{ProbeContext, probe_hint, record_hint};
use crate::integrations::origin_rules::server_origin;
use crate::integrations::state::Integrations;
use crate::mcp::{McpEndpoint, McpError};
use crate::platform::{NetRules, Platform};
use protocol::ErrorCode;
use protocol::payloads::ProbeMcpServer;
use protocol::registry_records::{McpServer, RecordErrors, validate_mcp_servers};
use serde_json::{Map, Value, json};

/// Answers `PROBE_MCP_SERVER`.
pub(crate) async fn route<P: Platform>(
    platform: &P,
    integrations: &Integrations,
    request: ProbeMcpServer,
) -> Result<Value, RequestError> {
    let extension_origin = format!("chrome-extension://{}", platform.net_rules().extension_id());
    let server = checked_record(request.server, &extension_origin)?;
    let endpoint = McpEndpoint::from_server(&server);
    let origin = server_origin(&server);
    let rules = &integrations.origin_rules;
    if let Some(origin) = &origin {
        rules.begin_probe(origin);
        // A refused update is reported by the hint, if the server minds.
        let _ = rules.sync(platform).await;
    }
    let coverage = origin.as_deref().map(|origin| rules.coverage(origin));
    let discovered = integrations
        .mcp
        .discover(
            platform.network(),
            platform.clock(),
            &endpoint,
            true,
            &Cancellation::new(),
        )
        .await;
    if let Some(origin) = &origin {
        rules.end_probe(origin);
        let _ = rules.sync(platform).await;
    }
    match discovered {
        Ok(discovery) => {
            let mut answer = Map::new();
            answer.insert("ok".to_owned(), Value::Bool(true));
            if let Value::Object(listing) = discovery.to_json() {
                answer.extend(listing);
            }
            Ok(Value::Object(answer))
        }
        Err(error) => {
            let context = ProbeContext {
                origin: origin.as_deref(),
                protocol_mode: &endpoint.protocol_mode,
                coverage,
                extension_origin: &extension_origin,
            };
            Err(explained(error, &context))
        }
    }
}

/// The one server of the form, normalised, or the first problem the
/// save-time rules find in it (with its field and a hint).
fn checked_record(record: Map<String, Value>, extension_origin: &str) -> Result<McpServer, RequestError> {
    let refusal = |errors: RecordErrors| {
        let Some(first) = errors.errors.into_iter().next() else {
            return RequestError::new(ErrorCode::InvalidMcpServer, "The server record was refused.");
        };
        let origin = first.details.map(|details| details.origin);
        let context = ProbeContext {
            origin: origin.as_deref(),
            protocol_mode: "",
            coverage: None,
            extension_origin,
        };
        let code = first.code.code();
        let mut details = json!({ "field": first.field.as_str() });
        details["hint"] = json!(record_hint(code, &context));
        if let Some(origin) = origin {
            details["origin"] = json!(origin);
        }
        RequestError::new(code, first.message).with_details(details)
    };
    let mut servers = validate_mcp_servers(&[Value::Object(record)]).map_err(refusal)?;
    servers
        .pop()
        .ok_or_else(|| RequestError::new(ErrorCode::InvalidMcpServer, "The probe needs one server record."))
}

/// The failure as the probe answers it: its code, message and details, plus
/// `details.hint`.
fn explained(error: McpError, context: &ProbeContext<'_>) -> RequestError {
    let hint = probe_hint(error.code, &error.message, error.details.as_ref(), context);
    let mut details = match error.details {
        Some(Value::Object(details)) => details,
        _ => Map::new(),
    };
    details.insert("hint".to_owned(), Value::String(hint));
    RequestError::new(error.code, error.message).with_details(Value::Object(details))
}
