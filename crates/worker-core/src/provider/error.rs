//! Why a provider request failed ([`ProviderError`]): the code the run or
//! the title request reports, and a sentence for the user.

use protocol::endpoint_policy::EndpointErrorCode;
use std::fmt;

/// The stable code of a provider failure (the original's codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ProviderErrorCode {
    /// No model record at all.
    ModelMissing,
    /// Base URL, API key or model id is blank.
    ModelIncomplete,
    /// The base URL failed the endpoint policy.
    Endpoint(EndpointErrorCode),
    /// The request body could not be encoded.
    RequestInvalid,
    /// `fetch` or a body read failed.
    NetworkError,
    /// A non-2xx answer.
    HttpError,
    StreamTooLarge,
    OutputTooLarge,
    MalformedSse,
    InvalidToolCall,
    DuplicateToolCallId,
    Cancelled,
    Timeout,
    TitleContextEmpty,
    TitleResponseTooLarge,
    TitleInvalidJson,
    TitleEmpty,
}

impl ProviderErrorCode {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ProviderErrorCode::ModelMissing => "MODEL_MISSING",
            ProviderErrorCode::ModelIncomplete => "MODEL_INCOMPLETE",
            ProviderErrorCode::Endpoint(code) => code.as_str(),
            ProviderErrorCode::RequestInvalid => "PROVIDER_REQUEST_INVALID",
            ProviderErrorCode::NetworkError => "PROVIDER_NETWORK_ERROR",
            ProviderErrorCode::HttpError => "PROVIDER_HTTP_ERROR",
            ProviderErrorCode::StreamTooLarge => "PROVIDER_STREAM_TOO_LARGE",
            ProviderErrorCode::OutputTooLarge => "PROVIDER_OUTPUT_TOO_LARGE",
            ProviderErrorCode::MalformedSse => "PROVIDER_MALFORMED_SSE",
            ProviderErrorCode::InvalidToolCall => "PROVIDER_INVALID_TOOL_CALL",
            ProviderErrorCode::DuplicateToolCallId => "PROVIDER_DUPLICATE_TOOL_CALL_ID",
            ProviderErrorCode::Cancelled => protocol::ErrorCode::Cancelled.as_str(),
            ProviderErrorCode::Timeout => protocol::ErrorCode::Timeout.as_str(),
            ProviderErrorCode::TitleContextEmpty => "TITLE_CONTEXT_EMPTY",
            ProviderErrorCode::TitleResponseTooLarge => "TITLE_RESPONSE_TOO_LARGE",
            ProviderErrorCode::TitleInvalidJson => "TITLE_INVALID_JSON",
            ProviderErrorCode::TitleEmpty => "TITLE_EMPTY",
        }
    }
}

/// A provider failure with its code and a message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderError {
    pub(crate) code: ProviderErrorCode,
    pub(crate) message: String,
}

impl ProviderError {
    pub(crate) fn new(code: ProviderErrorCode, message: impl Into<String>) -> Self {
        ProviderError {
            code,
            message: message.into(),
        }
    }

    /// The wire code (`PROVIDER_HTTP_ERROR`, `CANCELLED`, …).
    pub(crate) fn code_str(&self) -> &'static str {
        self.code.as_str()
    }

    pub(crate) fn cancelled() -> Self {
        ProviderError::new(ProviderErrorCode::Cancelled, "The request to the model was cancelled.")
    }

    pub(crate) fn network(message: &str) -> Self {
        ProviderError::new(
            ProviderErrorCode::NetworkError,
            format!("The model endpoint could not be reached: {message}"),
        )
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ProviderError {}
