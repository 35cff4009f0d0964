//! Which URLs the worker may send model, custom-tool and MCP traffic to, and
//! which headers a user may configure for them.
//!
//! URLs are parsed with WHATWG semantics (the `url` crate), as the browser's
//! `URL` does. HTTPS is allowed; plain HTTP only to loopback hosts, or to a
//! non-loopback origin the user acknowledged for that exact origin. Legacy
//! boolean-only acknowledgements fail closed. Embedded credentials and other
//! schemes are refused. Headers are bounded and may not override what the
//! transport manages.

use crate::codes::code_subset;
use crate::js;
use crate::limits::{self, to_usize};
use crate::tool_schema::is_http_token;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

code_subset! {
    /// Why an endpoint or header record was refused.
    EndpointErrorCode {
        /// The URL does not parse.
        InvalidUrl,
        /// The URL carries a user name or password.
        EmbeddedCredentials,
        /// The scheme is neither `https` nor `http`.
        UnsupportedScheme,
        /// Plain HTTP to a non-loopback origin the user has not acknowledged.
        InsecureConfirmationRequired,
        /// The headers are not a JSON object.
        InvalidHeaders,
        /// More than 32 headers.
        HeaderLimit,
        /// A header name is not a short token, or its value not a short
        /// single-line string.
        InvalidHeader,
        /// A header the transport manages itself.
        ProtectedHeader,
    }
}

/// `{code, path:'$', message, details?}`; `details.origin` names the origin
/// that needs an acknowledgement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointError {
    /// The stable code callers branch on.
    pub code: EndpointErrorCode,
    /// Always `$`: the whole record.
    pub path: &'static str,
    /// The sentence for people.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The origin to acknowledge, for `INSECURE_CONFIRMATION_REQUIRED`.
    pub details: Option<OriginDetails>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
/// The origin an insecure-transport acknowledgement would cover.
pub struct OriginDetails {
    /// `scheme://host[:port]`.
    pub origin: String,
}

impl fmt::Display for EndpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for EndpointError {}

fn fail(code: EndpointErrorCode, message: impl Into<String>) -> EndpointError {
    EndpointError {
        code,
        path: "$",
        message: message.into(),
        details: None,
    }
}

/// How traffic to an accepted endpoint travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Transport {
    /// Encrypted transport.
    Https,
    /// HTTP to `localhost`, `*.localhost`, `::1` or `127.0.0.0/8`.
    LoopbackHttp,
    /// HTTP to an origin the user acknowledged.
    AcknowledgedHttp,
}

/// An accepted endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The WHATWG-serialised URL (a bare origin gains `/`).
    pub url: String,
    /// `scheme://host[:port]`.
    pub origin: String,
    /// How the traffic travels.
    pub transport: Transport,
}

impl Endpoint {
    /// Traffic is not encrypted.
    pub fn insecure(&self) -> bool {
        self.transport != Transport::Https
    }

    /// `Some(loopback)` for HTTP endpoints, `None` for HTTPS (the original
    /// only reported it for HTTP).
    pub fn loopback(&self) -> Option<bool> {
        match self.transport {
            Transport::Https => None,
            Transport::LoopbackHttp => Some(true),
            Transport::AcknowledgedHttp => Some(false),
        }
    }
}

/// The user's cleartext acknowledgement, if any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InsecureConsent<'a> {
    /// Acknowledged just now, in the form being saved.
    pub confirmed: bool,
    /// The origin a stored acknowledgement is bound to.
    pub confirmed_origin: Option<&'a str>,
}

/// `validateEndpointUrl`.
pub fn validate_endpoint_url(input: &str, consent: InsecureConsent<'_>) -> Result<Endpoint, EndpointError> {
    let url = url::Url::parse(input).map_err(|_| fail(EndpointErrorCode::InvalidUrl, "Enter a valid HTTP(S) URL."))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(fail(
            EndpointErrorCode::EmbeddedCredentials,
            "Endpoint URLs may not contain credentials; use the key or headers field instead.",
        ));
    }
    let origin = url.origin().ascii_serialization();
    let href = url.as_str().to_owned();
    match url.scheme() {
        "https" => {
            return Ok(Endpoint {
                url: href,
                origin,
                transport: Transport::Https,
            });
        }
        "http" => {}
        _ => {
            return Err(fail(
                EndpointErrorCode::UnsupportedScheme,
                "Only HTTPS endpoints, and HTTP endpoints you approve, are supported.",
            ));
        }
    }
    if url.host_str().is_some_and(is_loopback_hostname) {
        return Ok(Endpoint {
            url: href,
            origin,
            transport: Transport::LoopbackHttp,
        });
    }
    if !consent.confirmed && consent.confirmed_origin != Some(origin.as_str()) {
        let mut error = fail(
            EndpointErrorCode::InsecureConfirmationRequired,
            format!(
                "HTTP sends keys and project data without encryption. Confirm this exact origin to continue: {origin}"
            ),
        );
        error.details = Some(OriginDetails { origin });
        return Err(error);
    }
    Ok(Endpoint {
        url: href,
        origin,
        transport: Transport::AcknowledgedHttp,
    })
}

/// `validateEndpointUrl` for a stored JSON value (`String(input || '')`).
pub fn validate_endpoint_value(input: Option<&Value>, consent: InsecureConsent<'_>) -> Result<Endpoint, EndpointError> {
    let text = if js::is_truthy(input) {
        input.map(js::js_string).unwrap_or_default()
    } else {
        String::new()
    };
    validate_endpoint_url(&text, consent)
}

/// `localhost`, `*.localhost`, `::1` (with or without brackets) and
/// `127.a.b.c` with every part at most 255.
pub fn is_loopback_hostname(hostname: &str) -> bool {
    let h = hostname.strip_prefix('[').unwrap_or(hostname);
    let h = h.strip_suffix(']').unwrap_or(h).to_lowercase();
    if h == "localhost" || h.ends_with(".localhost") || h == "::1" {
        return true;
    }
    let parts: Vec<&str> = h.split('.').collect();
    parts.len() == 4
        && parts[0] == "127"
        && parts[1..].iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// The acknowledgement fields stored with a record.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InsecureAcknowledgement {
    /// The user acknowledged sending this record's traffic unencrypted.
    pub insecure_transport_acknowledged: bool,
    /// The exact origin that acknowledgement covers.
    pub insecure_transport_acknowledged_origin: Option<String>,
}

impl InsecureAcknowledgement {
    /// `insecureAcknowledgementFields`: consent is stored only for the exact
    /// non-loopback HTTP origin just reviewed.
    pub fn for_endpoint(endpoint: Option<&Endpoint>, confirmed: bool) -> InsecureAcknowledgement {
        let origin = endpoint
            .filter(|e| confirmed && e.transport == Transport::AcknowledgedHttp)
            .map(|e| e.origin.clone());
        InsecureAcknowledgement {
            insecure_transport_acknowledged: origin.is_some(),
            insecure_transport_acknowledged_origin: origin,
        }
    }

    /// `normalizeInsecureAcknowledgement`: recomputes the fields from the
    /// record's endpoint and stored origin; a boolean without an origin
    /// counts for nothing.
    pub fn normalize(record: &Map<String, Value>, endpoint_field: &str) -> InsecureAcknowledgement {
        let stored = record
            .get("insecureTransportAcknowledgedOrigin")
            .and_then(Value::as_str)
            .unwrap_or("");
        let checked = validate_endpoint_value(
            record.get(endpoint_field),
            InsecureConsent {
                confirmed: false,
                confirmed_origin: Some(stored),
            },
        );
        let origin = checked
            .ok()
            .filter(|e| e.transport == Transport::AcknowledgedHttp && e.origin == stored)
            .map(|e| e.origin);
        InsecureAcknowledgement {
            insecure_transport_acknowledged: origin.is_some(),
            insecure_transport_acknowledged_origin: origin,
        }
    }

    /// Writes the fields into a record.
    pub fn apply_to(&self, record: &mut Map<String, Value>) {
        record.insert(
            "insecureTransportAcknowledged".to_owned(),
            Value::Bool(self.insecure_transport_acknowledged),
        );
        record.insert(
            "insecureTransportAcknowledgedOrigin".to_owned(),
            self.insecure_transport_acknowledged_origin
                .clone()
                .map_or(Value::Null, Value::String),
        );
    }
}

/// Headers the transport sets itself on plain (model and custom-tool) requests.
pub const PROTECTED_HEADERS: &[&str] = &["content-type", "content-length", "host", "origin"];

/// Headers the MCP transport sets itself (plus any `mcp-param-*`). The
/// original's set, plus `mcp-session-id`, which the port's 2025 handshake
/// manages: a configured one would otherwise be accepted at save time and
/// refused on every request.
pub const PROTECTED_MCP_HEADERS: &[&str] = &[
    "content-type",
    "accept",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "mcp-session-id",
];

/// The prefix of the headers that carry `x-mcp-header` arguments
/// (`Mcp-Param-<name>`), in lower case; all of them are the transport's.
pub const MCP_PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// Which transport a header record is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderPolicy {
    #[default]
    /// Model and custom-tool requests.
    Plain,
    /// MCP requests, whose `mcp-*` protocol headers are managed too.
    Mcp,
}

/// Whether the transport manages a header name under a policy.
pub fn is_protected_header(name: &str, policy: HeaderPolicy) -> bool {
    let lower = name.to_ascii_lowercase();
    let fixed = match policy {
        HeaderPolicy::Plain => PROTECTED_HEADERS,
        HeaderPolicy::Mcp => PROTECTED_MCP_HEADERS,
    };
    fixed.contains(&lower.as_str())
        || lower.starts_with("sec-")
        || (policy == HeaderPolicy::Mcp && lower.starts_with(MCP_PARAM_HEADER_PREFIX))
}

/// `validateHeaderRecord`: `null`/absent is an empty record; otherwise an
/// object of at most 32 token names (1–128 characters) with single-line
/// string values of at most 4,096 characters, none of them protected.
pub fn validate_header_record(
    headers: Option<&Value>,
    policy: HeaderPolicy,
) -> Result<Map<String, Value>, EndpointError> {
    let map = match headers {
        None | Some(Value::Null) => return Ok(Map::new()),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(fail(
                EndpointErrorCode::InvalidHeaders,
                "Headers must be a JSON object.",
            ));
        }
    };
    if map.len() > to_usize(limits::MAX_HEADERS) {
        return Err(fail(
            EndpointErrorCode::HeaderLimit,
            "At most 32 custom headers are allowed.",
        ));
    }
    for (name, value) in map {
        let valid_value = value
            .as_str()
            .is_some_and(|v| js::utf16_len(v) <= to_usize(limits::MAX_HEADER_VALUE_CHARS) && !v.contains(['\r', '\n']));
        if !is_http_token(name) || name.len() > to_usize(limits::MAX_HEADER_NAME_CHARS) || !valid_value {
            return Err(fail(
                EndpointErrorCode::InvalidHeader,
                "Header names and values must be short single-line strings.",
            ));
        }
        if is_protected_header(name, policy) {
            return Err(fail(
                EndpointErrorCode::ProtectedHeader,
                format!("The transport sets the \"{name}\" header itself."),
            ));
        }
    }
    Ok(map.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn code(input: &str, consent: InsecureConsent<'_>) -> Option<&'static str> {
        validate_endpoint_url(input, consent).err().map(|e| e.code.as_str())
    }

    #[test]
    fn https_and_loopback_http_are_allowed() {
        assert!(validate_endpoint_url("https://example.com/path", InsecureConsent::default()).is_ok());
        for host in [
            "localhost",
            "api.localhost",
            "127.0.0.1",
            "127.255.20.3",
            "::1",
            "[::1]",
            "LOCALHOST",
        ] {
            assert!(is_loopback_hostname(host), "{host}");
        }
        for host in ["127.0.0.256", "128.0.0.1", "localhost.example", "127.0.0", "::2"] {
            assert!(!is_loopback_hostname(host), "{host}");
        }
        let local = validate_endpoint_url("http://localhost:7000/mcp", InsecureConsent::default());
        assert_eq!(
            local.map(|e| (e.transport, e.loopback())),
            Ok((Transport::LoopbackHttp, Some(true)))
        );
        assert!(validate_endpoint_url("http://[::1]:7000/mcp", InsecureConsent::default()).is_ok());
        assert!(validate_endpoint_url("http://127.1/", InsecureConsent::default()).is_ok());
        let bare = validate_endpoint_url("https://Example.COM", InsecureConsent::default());
        assert_eq!(
            bare.map(|e| (e.url, e.origin)),
            Ok(("https://example.com/".to_owned(), "https://example.com".to_owned()))
        );
    }

    #[test]
    fn cleartext_credentials_and_other_schemes_are_refused() {
        let cleartext = validate_endpoint_url("http://192.168.1.5/tool", InsecureConsent::default());
        assert_eq!(
            cleartext.as_ref().err().map(|e| e.code),
            Some(EndpointErrorCode::InsecureConfirmationRequired)
        );
        assert_eq!(
            cleartext.err().and_then(|e| e.details).map(|d| d.origin),
            Some("http://192.168.1.5".to_owned())
        );
        let confirmed = InsecureConsent {
            confirmed: true,
            confirmed_origin: None,
        };
        assert_eq!(code("http://192.168.1.5/tool", confirmed), None);
        let bound = InsecureConsent {
            confirmed: false,
            confirmed_origin: Some("http://192.168.1.5"),
        };
        assert_eq!(code("http://192.168.1.5/tool", bound), None);
        let other = InsecureConsent {
            confirmed: false,
            confirmed_origin: Some("http://other.example"),
        };
        assert_eq!(
            code("http://192.168.1.5/tool", other),
            Some("INSECURE_CONFIRMATION_REQUIRED")
        );
        let legacy = json!({"endpoint": "http://192.168.1.5/tool", "insecureTransportAcknowledged": true});
        let legacy = InsecureAcknowledgement::normalize(legacy.as_object().unwrap_or(&Map::new()), "endpoint");
        assert!(!legacy.insecure_transport_acknowledged);
        let stored =
            json!({"endpoint": "http://192.168.1.5/tool", "insecureTransportAcknowledgedOrigin": "http://192.168.1.5"});
        let stored = InsecureAcknowledgement::normalize(stored.as_object().unwrap_or(&Map::new()), "endpoint");
        assert!(stored.insecure_transport_acknowledged);
        assert_eq!(
            code("https://user:pass@example.com", InsecureConsent::default()),
            Some("EMBEDDED_CREDENTIALS")
        );
        assert_eq!(
            code("https://user@example.com", InsecureConsent::default()),
            Some("EMBEDDED_CREDENTIALS")
        );
        assert_eq!(
            code("file:///tmp/tool", InsecureConsent::default()),
            Some("UNSUPPORTED_SCHEME")
        );
        assert_eq!(
            code("ftp://example.com", InsecureConsent::default()),
            Some("UNSUPPORTED_SCHEME")
        );
        assert_eq!(code("not a url", InsecureConsent::default()), Some("INVALID_URL"));
        assert_eq!(code("", InsecureConsent::default()), Some("INVALID_URL"));
    }

    #[test]
    fn acknowledgement_fields_bind_the_exact_origin() {
        let endpoint = validate_endpoint_url(
            "http://10.0.0.2:8080/x",
            InsecureConsent {
                confirmed: true,
                confirmed_origin: None,
            },
        );
        let fields = InsecureAcknowledgement::for_endpoint(endpoint.as_ref().ok(), true);
        assert_eq!(
            fields.insecure_transport_acknowledged_origin.as_deref(),
            Some("http://10.0.0.2:8080")
        );
        let loopback = validate_endpoint_url("http://localhost/", InsecureConsent::default());
        assert_eq!(
            InsecureAcknowledgement::for_endpoint(loopback.as_ref().ok(), true),
            InsecureAcknowledgement::default()
        );
        assert_eq!(
            InsecureAcknowledgement::for_endpoint(endpoint.as_ref().ok(), false),
            InsecureAcknowledgement::default()
        );
    }

    #[test]
    fn headers_are_bounded_and_cannot_override_the_transport() {
        let ok = validate_header_record(Some(&json!({"Authorization": "Bearer test"})), HeaderPolicy::Plain);
        assert!(ok.is_ok());
        let code = |headers: Value, policy| {
            validate_header_record(Some(&headers), policy)
                .err()
                .map(|e| e.code.as_str())
        };
        assert_eq!(
            code(json!({"Host": "evil.example"}), HeaderPolicy::Plain),
            Some("PROTECTED_HEADER")
        );
        assert_eq!(
            code(json!({"Mcp-Method": "other"}), HeaderPolicy::Mcp),
            Some("PROTECTED_HEADER")
        );
        assert_eq!(code(json!({"Mcp-Method": "other"}), HeaderPolicy::Plain), None);
        assert_eq!(
            code(json!({"Mcp-Param-X": "1"}), HeaderPolicy::Mcp),
            Some("PROTECTED_HEADER")
        );
        assert_eq!(
            code(json!({"Sec-Fetch-Site": "1"}), HeaderPolicy::Plain),
            Some("PROTECTED_HEADER")
        );
        assert_eq!(
            code(json!({"Test": "line\r\nbreak"}), HeaderPolicy::Plain),
            Some("INVALID_HEADER")
        );
        assert_eq!(
            code(json!({"Bad Name": "x"}), HeaderPolicy::Plain),
            Some("INVALID_HEADER")
        );
        assert_eq!(code(json!({"X": 1}), HeaderPolicy::Plain), Some("INVALID_HEADER"));
        assert_eq!(
            code(json!({"X": "v".repeat(4097)}), HeaderPolicy::Plain),
            Some("INVALID_HEADER")
        );
        assert_eq!(
            code(json!({"x".repeat(129): "v"}), HeaderPolicy::Plain),
            Some("INVALID_HEADER")
        );
        assert_eq!(code(json!([]), HeaderPolicy::Plain), Some("INVALID_HEADERS"));
        let many: Map<String, Value> = (0..33).map(|i| (format!("X-{i}"), json!("v"))).collect();
        assert_eq!(code(Value::Object(many), HeaderPolicy::Plain), Some("HEADER_LIMIT"));
        assert_eq!(validate_header_record(None, HeaderPolicy::Mcp), Ok(Map::new()));
    }
}
