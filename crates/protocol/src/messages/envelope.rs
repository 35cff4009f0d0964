//! The envelope around every payload: `{type, requestId?, runId?, payload}`
//! (the page bridge adds `nonce`), its parser [`parse_envelope`] and its
//! builders.
//!
//! Which ids a message must carry follows from its type alone (requests
//! carry a `requestId`, run-scoped types a `runId`), so a receiver never has
//! to know more than the type to check an envelope.

use super::payload::{Payload, parse_payload};
use crate::error::{ErrorCode, ProtocolError};
use crate::js;
use crate::limits::{self, to_usize};
use crate::message_type::{MessageKind, MessageType};
use crate::payloads::fields::{PAYLOAD, fail};
use crate::payloads::{ResponseError, ResponsePayload};
use serde_json::{Map, Value};

/// A validated message.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// Required where the type asks for an answer or is one; optional elsewhere.
    pub request_id: Option<String>,
    /// Required on run-scoped types; optional elsewhere.
    pub run_id: Option<String>,
    /// Only on the page bridge (isolated ↔ main world).
    pub nonce: Option<String>,
    /// The typed payload; it also names the message type.
    pub payload: Payload,
}

/// Extra conditions a receiver puts on a message.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions<'a> {
    /// Only this type is accepted (`UNEXPECTED_MESSAGE_TYPE`).
    pub expected_type: Option<MessageType>,
    /// Only these types are accepted (`DISALLOWED_MESSAGE_TYPE`).
    pub allowed_types: Option<&'a [MessageType]>,
    /// The message travels over the page bridge and must carry a `nonce`;
    /// without this flag a `nonce` field is refused.
    pub bridge: bool,
}

impl<'a> ParseOptions<'a> {
    /// Accept only `message_type` (a requester waiting for its answer).
    pub fn expecting(message_type: MessageType) -> ParseOptions<'a> {
        ParseOptions {
            expected_type: Some(message_type),
            ..ParseOptions::default()
        }
    }

    /// Accept only `types` (a receiver that routes just these).
    pub fn allowing(types: &'a [MessageType]) -> ParseOptions<'a> {
        ParseOptions {
            allowed_types: Some(types),
            ..ParseOptions::default()
        }
    }

    /// A page-bridge message, which must carry the bridge's `nonce`.
    pub fn bridge() -> ParseOptions<'a> {
        ParseOptions {
            bridge: true,
            ..ParseOptions::default()
        }
    }
}

/// Validates a whole message (`validateEnvelope`).
pub fn parse_envelope(value: &Value, options: &ParseOptions<'_>) -> Result<Envelope, ProtocolError> {
    let Some(map) = value.as_object() else {
        return Err(fail(ErrorCode::InvalidEnvelope, "$", "Message must be an object"));
    };
    let ty = accepted_type(map, options)?;
    let envelope_fields: &[&str] = if options.bridge {
        &["type", "requestId", "runId", "nonce", "payload"]
    } else {
        &["type", "requestId", "runId", "payload"]
    };
    if let Some(unknown) = map.keys().find(|k| !envelope_fields.contains(&k.as_str())) {
        return Err(fail(
            ErrorCode::UnknownEnvelopeField,
            format!("$.{unknown}"),
            &format!("Unknown envelope field: {unknown}"),
        ));
    }
    let request_id = envelope_id(
        map,
        "requestId",
        ty.requires_request_id(),
        ErrorCode::InvalidRequestId,
        ty,
    )?;
    let run_id = envelope_id(map, "runId", ty.is_run_scoped(), ErrorCode::InvalidRunId, ty)?;
    let nonce = if options.bridge {
        envelope_id(map, "nonce", true, ErrorCode::InvalidNonce, ty)?
    } else {
        None
    };
    let Some(payload) = map.get("payload").filter(|p| p.is_object()) else {
        return Err(fail(
            ErrorCode::InvalidPayload,
            PAYLOAD,
            "Message payload must be an object",
        ));
    };
    let payload = parse_payload(ty, payload)?;
    Ok(Envelope {
        request_id,
        run_id,
        nonce,
        payload,
    })
}

/// The message's type, if it is known and the receiver accepts it.
fn accepted_type(map: &Map<String, Value>, options: &ParseOptions<'_>) -> Result<MessageType, ProtocolError> {
    let Some(ty) = map.get("type").and_then(Value::as_str).and_then(MessageType::from_wire) else {
        return Err(fail(ErrorCode::UnknownMessageType, "$.type", "Unknown message type"));
    };
    if let Some(expected) = options.expected_type
        && ty != expected
    {
        return Err(fail(
            ErrorCode::UnexpectedMessageType,
            "$.type",
            &format!("Expected {}", expected.as_str()),
        ));
    }
    if let Some(allowed) = options.allowed_types
        && !allowed.contains(&ty)
    {
        return Err(fail(
            ErrorCode::DisallowedMessageType,
            "$.type",
            &format!("Message type {} is not accepted here", ty.as_str()),
        ));
    }
    Ok(ty)
}

/// One of the envelope's ids: non-blank and bounded; `null` counts as
/// absent where the id is optional.
fn envelope_id(
    map: &Map<String, Value>,
    key: &str,
    required: bool,
    code: ErrorCode,
    ty: MessageType,
) -> Result<Option<String>, ProtocolError> {
    let path = format!("$.{key}");
    match map.get(key) {
        None | Some(Value::Null) if !required => Ok(None),
        Some(Value::String(s))
            if js::is_non_blank(s) && js::utf16_len(s) <= to_usize(limits::MAX_ENVELOPE_ID_CHARS) =>
        {
            Ok(Some(s.clone()))
        }
        _ => Err(fail(
            code,
            path,
            &format!(
                "{} requires a non-blank {key} of at most {} characters",
                ty.as_str(),
                limits::MAX_ENVELOPE_ID_CHARS
            ),
        )),
    }
}

impl Envelope {
    /// The message type, which the payload determines.
    pub fn message_type(&self) -> MessageType {
        self.payload.message_type()
    }

    /// A request (`buildRequest`); `request_id` is the caller's fresh id.
    pub fn request(payload: Payload, request_id: impl Into<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id: None,
            nonce: None,
            payload,
        }
    }

    /// Adds the run id (run-scoped requests; optional on page requests).
    pub fn with_run_id(mut self, run_id: impl Into<String>) -> Envelope {
        self.run_id = Some(run_id.into());
        self
    }

    /// Adds the page bridge's nonce.
    pub fn with_nonce(mut self, nonce: impl Into<String>) -> Envelope {
        self.nonce = Some(nonce.into());
        self
    }

    /// A run event (`buildRunEvent`): no request id.
    pub fn run_event(payload: Payload, run_id: impl Into<String>) -> Envelope {
        Envelope {
            request_id: None,
            run_id: Some(run_id.into()),
            nonce: None,
            payload,
        }
    }

    /// A non-run event (optionally with a request id, as the worker's
    /// broadcasts carry one).
    pub fn event(payload: Payload) -> Envelope {
        Envelope {
            request_id: None,
            run_id: None,
            nonce: None,
            payload,
        }
    }

    /// `successResponse`.
    pub fn success(request_id: impl Into<String>, data: Value, run_id: Option<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id,
            nonce: None,
            payload: Payload::Response(ResponsePayload::Ok(data)),
        }
    }

    /// `errorResponse`.
    pub fn failure(request_id: impl Into<String>, error: ResponseError, run_id: Option<String>) -> Envelope {
        Envelope {
            request_id: Some(request_id.into()),
            run_id,
            nonce: None,
            payload: Payload::Response(ResponsePayload::Err(error)),
        }
    }

    /// The exact wire JSON.
    pub fn to_value(&self) -> Value {
        let mut map = Map::new();
        map.insert(
            "type".to_owned(),
            Value::String(self.message_type().as_str().to_owned()),
        );
        if let Some(id) = &self.request_id {
            map.insert("requestId".to_owned(), Value::String(id.clone()));
        }
        if let Some(id) = &self.run_id {
            map.insert("runId".to_owned(), Value::String(id.clone()));
        }
        if let Some(nonce) = &self.nonce {
            map.insert("nonce".to_owned(), Value::String(nonce.clone()));
        }
        map.insert("payload".to_owned(), self.payload.to_value());
        Value::Object(map)
    }

    /// Whether this is a run event (run-scoped and not a request).
    pub fn is_run_event(&self) -> bool {
        let ty = self.message_type();
        ty.is_run_scoped() && ty.kind() == MessageKind::Event
    }
}
