//! Why a provider request failed ([`ProviderError`]): the code the run or
//! the title request reports, and a sentence for the user.

use protocol::ErrorCode;
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
    /// The catalogue code this is.
    pub(crate) const fn code(self) -> ErrorCode {
        match self {
            ProviderErrorCode::ModelMissing => ErrorCode::ModelMissing,
            ProviderErrorCode::ModelIncomplete => ErrorCode::ModelIncomplete,
            ProviderErrorCode::RequestInvalid => ErrorCode::ProviderRequestInvalid,
            ProviderErrorCode::NetworkError => ErrorCode::ProviderNetworkError,
            ProviderErrorCode::HttpError => ErrorCode::ProviderHttpError,
            ProviderErrorCode::StreamTooLarge => ErrorCode::ProviderStreamTooLarge,
            ProviderErrorCode::OutputTooLarge => ErrorCode::ProviderOutputTooLarge,
            ProviderErrorCode::MalformedSse => ErrorCode::ProviderMalformedSse,
            ProviderErrorCode::InvalidToolCall => ErrorCode::ProviderInvalidToolCall,
            ProviderErrorCode::DuplicateToolCallId => ErrorCode::ProviderDuplicateToolCallId,
            ProviderErrorCode::TitleContextEmpty => ErrorCode::TitleContextEmpty,
            ProviderErrorCode::TitleResponseTooLarge => ErrorCode::TitleResponseTooLarge,
            ProviderErrorCode::TitleInvalidJson => ErrorCode::TitleInvalidJson,
            ProviderErrorCode::TitleEmpty => ErrorCode::TitleEmpty,
            ProviderErrorCode::Endpoint(code) => code.code(),
            ProviderErrorCode::Cancelled => ErrorCode::Cancelled,
            ProviderErrorCode::Timeout => ErrorCode::Timeout,
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

    /// The catalogue code (`PROVIDER_HTTP_ERROR`, `CANCELLED`, …).
    pub(crate) fn code(&self) -> ErrorCode {
        self.code.code()
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
        write!(f, "{}: {}", self.code(), self.message)
    }
}

impl std::error::Error for ProviderError {}
