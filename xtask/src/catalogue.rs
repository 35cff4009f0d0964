//! The wire names the `protocol` crate defines — every error code and every
//! message type — with the names Rust and the page scripts use for them.
//!
//! `codegen` emits the codes into the page scripts' constants and `tidy`
//! refuses the same strings written out by hand. Both read the catalogue
//! here, so a code the protocol crate gains reaches both without an edit.
//! Every code is a variant of `protocol::ErrorCode`, so both lists come from
//! the crate itself (`ErrorCode::ALL`, `MessageType::ALL`), never from its
//! source text.

use protocol::{ErrorCode, MessageType};

/// One wire string and how code should name it instead of writing it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireName {
    /// The exact string on the wire.
    pub wire: String,
    /// The Rust path of its definition.
    pub rust: String,
    /// How the page scripts read it from the generated constants, when they can.
    pub js: Option<String>,
}

/// Message types a page script sends or receives (the generated `TYPES`).
pub fn page_visible(message_type: MessageType) -> bool {
    message_type == MessageType::Response
        || message_type.as_str().starts_with("PAGE_")
        || matches!(
            message_type,
            MessageType::QuickAttachSelection | MessageType::QuickAttachImagePreview
        )
}

/// Every message type, in registry order.
pub fn message_types() -> Vec<WireName> {
    MessageType::ALL
        .iter()
        .map(|t| WireName {
            wire: t.as_str().to_owned(),
            rust: format!("protocol::MessageType::{t:?}"),
            js: page_visible(*t).then(|| format!("TYPES.{}", t.constant_name())),
        })
        .collect()
}

/// Every error code of the catalogue, in declaration order.
pub fn error_codes() -> Vec<WireName> {
    ErrorCode::ALL
        .iter()
        .map(|code| WireName {
            wire: code.as_str().to_owned(),
            rust: format!("protocol::ErrorCode::{code:?}"),
            js: Some(format!("ERRORS.{}", code.as_str())),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_holds_validation_and_runtime_codes_once_each() {
        let codes = error_codes();
        let wires: Vec<&str> = codes.iter().map(|c| c.wire.as_str()).collect();
        for expected in [
            "CANCELLED",
            "INTERNAL_ERROR",
            "TIMEOUT",
            "INVALID_PAGE_RESPONSE",
            "PAGE_UNLOADED",
        ] {
            assert!(wires.contains(&expected), "{expected} is missing");
        }
        let cancelled = codes.iter().find(|c| c.wire == "CANCELLED").expect("cancelled");
        assert_eq!(cancelled.rust, "protocol::ErrorCode::Cancelled");
        assert_eq!(cancelled.js.as_deref(), Some("ERRORS.CANCELLED"));
        let mut unique = wires.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), wires.len(), "a wire string is listed twice");
    }

    #[test]
    fn message_types_name_their_page_constant_when_the_page_sees_them() {
        let types = message_types();
        let response = types.iter().find(|t| t.wire == "PROTOCOL_RESPONSE").expect("response");
        assert_eq!(response.js.as_deref(), Some("TYPES.RESPONSE"));
        assert_eq!(response.rust, "protocol::MessageType::Response");
        let settings = types.iter().find(|t| t.wire == "LOAD_SETTINGS").expect("settings");
        assert_eq!(settings.js, None);
    }
}
