//! Which era a server speaks, found out by asking and remembered per
//! server configuration ([`Exchange::request`]).
//!
//! In `auto` mode the first request is a 2026-07-28 request. A 2xx answer,
//! or a `-32022` that lists 2026-07-28, means the server is modern. The
//! 2025 handshake follows on what real 2025 servers answer a modern request
//! with: any 4xx (but 401/403) carrying a JSON-RPC error or an unparsable
//! body, and a `-32022` that lists no modern version. 401/403, 5xx, network
//! errors and timeouts are errors, never a reason to fall back; so is a
//! `-32020` to `tools/call` (a header the server checks did not match).
//! A remembered era that answers one of those fallback conditions later is
//! forgotten and negotiated once more. A 404 to a request carrying a
//! session id means the session is gone: the handshake runs again, once.

use crate::cancel::Cancellation;
use crate::mcp::endpoint::{LEGACY_VERSIONS, MODERN_VERSION, ProtocolMode, Target};
use crate::mcp::error::{Failure, McpError, RPC_HEADER_MISMATCH, RPC_UNSUPPORTED_VERSION};
use crate::mcp::memory::BoundedMap;
use crate::mcp::request::{Call, LegacySession, RequestIds, Requests};
use crate::mcp::sse::Message;
use crate::mcp::transport::{Post, send};
use crate::platform::{Clock, Network};
use protocol::{ErrorCode, limits};
use serde_json::Value;
use std::cell::RefCell;

/// The era a configuration was found to speak.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Era {
    Modern,
    Legacy(LegacySession),
}

/// An era with the server id it was learnt for (invalidation goes by id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Remembered {
    pub(crate) server_id: String,
    pub(crate) era: Era,
}

/// What the client remembers of eras, per configuration key.
pub(crate) type Eras = RefCell<BoundedMap<Remembered>>;

/// An answer and the version it was spoken in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub(crate) message: Message,
    pub(crate) version: &'static str,
}

/// Everything one logical request needs.
pub(crate) struct Exchange<'a, N, C> {
    pub(crate) network: &'a N,
    pub(crate) clock: &'a C,
    pub(crate) ids: &'a RequestIds,
    pub(crate) eras: &'a Eras,
    pub(crate) requests: Requests<'a>,
    pub(crate) cancel: &'a Cancellation,
}

impl<N: Network, C: Clock> Exchange<'_, N, C> {
    fn target(&self) -> &Target {
        self.requests.target
    }

    /// Sends `call` in the era the configuration speaks, negotiating it
    /// first when it is not known.
    pub(crate) async fn request(&self, call: &Call<'_>) -> Result<Reply, McpError> {
        match self.target().mode {
            ProtocolMode::Modern => self.modern(call).await.map_err(|failure| failure.error),
            ProtocolMode::Legacy => {
                let session = match self.remembered() {
                    Some(Era::Legacy(session)) => session,
                    _ => self.handshake().await.map_err(|failure| failure.error)?,
                };
                self.legacy(call, session).await.map_err(|failure| failure.error)
            }
            ProtocolMode::Auto => self.auto(call).await,
        }
    }

    async fn auto(&self, call: &Call<'_>) -> Result<Reply, McpError> {
        match self.remembered() {
            None => self.probe(call).await,
            Some(Era::Modern) => match self.modern(call).await {
                Err(failure) if falls_back(&failure, call) => {
                    self.forget();
                    self.fallback(call).await
                }
                other => other.map_err(|failure| failure.error),
            },
            Some(Era::Legacy(session)) => match self.legacy(call, session).await {
                Err(failure) if legacy_stopped(&failure) => {
                    self.forget();
                    self.probe(call).await
                }
                other => other.map_err(|failure| failure.error),
            },
        }
    }

    /// A fresh negotiation: 2026-07-28 first.
    async fn probe(&self, call: &Call<'_>) -> Result<Reply, McpError> {
        match self.modern(call).await {
            Ok(reply) => {
                self.remember(Era::Modern);
                Ok(reply)
            }
            Err(failure) if falls_back(&failure, call) => self.fallback(call).await,
            Err(failure) => Err(failure.error),
        }
    }

    /// The 2025 handshake, then the request in that session.
    async fn fallback(&self, call: &Call<'_>) -> Result<Reply, McpError> {
        let session = self.handshake().await.map_err(|failure| failure.error)?;
        self.legacy(call, session).await.map_err(|failure| failure.error)
    }

    async fn modern(&self, call: &Call<'_>) -> Result<Reply, Failure> {
        let post = self.requests.modern(call, self.ids.next()).map_err(Failure::bare)?;
        self.reply(post, MODERN_VERSION).await
    }

    /// A request in a 2025 session; a 404 to one carrying a session id
    /// starts a new session and tries once more.
    async fn legacy(&self, call: &Call<'_>, session: LegacySession) -> Result<Reply, Failure> {
        let post = self.requests.legacy(call, self.ids.next(), &session);
        match self.reply(post, session.version).await {
            Err(failure) if failure.status == Some(404) && session.session_id.is_some() => {
                self.forget();
                let fresh = self.handshake().await?;
                let post = self.requests.legacy(call, self.ids.next(), &fresh);
                self.reply(post, fresh.version).await
            }
            other => other,
        }
    }

    async fn reply(&self, post: Post, version: &'static str) -> Result<Reply, Failure> {
        let answer = send(self.network, self.clock, post, self.cancel).await?;
        match answer.message {
            Some(message) => Ok(Reply { message, version }),
            // Only notifications come back without a message.
            None => Err(Failure::bare(McpError::new(
                ErrorCode::McpStreamEnded,
                "MCP server sent no response.",
            ))),
        }
    }

    /// `initialize` offering 2025-11-25, the version and session the server
    /// chose, `notifications/initialized`; the session is remembered.
    async fn handshake(&self) -> Result<LegacySession, Failure> {
        let answer = send(
            self.network,
            self.clock,
            self.requests.initialize(self.ids.next()),
            self.cancel,
        )
        .await?;
        let result = answer.message.as_ref().and_then(|message| message.value.get("result"));
        let offered = result.and_then(|result| result.get("protocolVersion"));
        let Some(version) = offered
            .and_then(Value::as_str)
            .and_then(|offered| LEGACY_VERSIONS.iter().copied().find(|known| *known == offered))
        else {
            let named = match offered.and_then(Value::as_str) {
                Some(offered) => format!("MCP {offered}"),
                None => "no protocol version".to_owned(),
            };
            return Err(Failure::bare(McpError::new(
                ErrorCode::UnsupportedMcpVersion,
                format!(
                    "The MCP server chose {named}; this client speaks {MODERN_VERSION} and {}.",
                    LEGACY_VERSIONS.join(", ")
                ),
            )));
        };
        let session_id = match answer.session_id {
            Some(id) if !valid_session_id(&id) => {
                return Err(Failure::bare(McpError::new(
                    ErrorCode::McpInvalidSessionId,
                    "The MCP server issued a session id that is not short visible ASCII.",
                )));
            }
            other => other,
        };
        let session = LegacySession { version, session_id };
        send(
            self.network,
            self.clock,
            self.requests.initialized(&session),
            self.cancel,
        )
        .await?;
        self.remember(Era::Legacy(session.clone()));
        Ok(session)
    }

    fn remembered(&self) -> Option<Era> {
        self.eras
            .borrow()
            .get(&self.target().key)
            .map(|remembered| remembered.era.clone())
    }

    fn remember(&self, era: Era) {
        let remembered = Remembered {
            server_id: self.target().server_id.clone(),
            era,
        };
        self.eras.borrow_mut().insert(&self.target().key, remembered);
    }

    fn forget(&self) {
        self.eras.borrow_mut().remove(&self.target().key);
    }
}

/// Whether a failed 2026-07-28 request means "try the 2025 handshake".
fn falls_back(failure: &Failure, call: &Call<'_>) -> bool {
    let code = failure.rpc.as_ref().and_then(|rpc| rpc.code);
    if code == Some(RPC_UNSUPPORTED_VERSION) {
        return !lists_modern(failure);
    }
    if code == Some(RPC_HEADER_MISMATCH) && matches!(call, Call::Tool { .. }) {
        return false;
    }
    legacy_signal(failure)
}

/// Whether a failed request in a remembered 2025 session means the server
/// no longer speaks it (then the era is negotiated again).
fn legacy_stopped(failure: &Failure) -> bool {
    let code = failure.rpc.as_ref().and_then(|rpc| rpc.code);
    code == Some(RPC_UNSUPPORTED_VERSION) || legacy_signal(failure)
}

/// A 4xx other than 401/403 with a JSON-RPC error or a body that does not
/// parse: what servers of the other era answer.
fn legacy_signal(failure: &Failure) -> bool {
    let Some(status) = failure.client_error_status() else {
        return false;
    };
    let unparsable = matches!(
        failure.error.code,
        ErrorCode::McpInvalidJson | ErrorCode::McpStreamEnded | ErrorCode::McpMalformedSse
    );
    status != 401 && status != 403 && (failure.rpc.is_some() || unparsable)
}

fn lists_modern(failure: &Failure) -> bool {
    failure
        .rpc
        .as_ref()
        .and_then(|rpc| rpc.supported.as_ref())
        .is_some_and(|supported| supported.iter().any(|v| v.as_str() == Some(MODERN_VERSION)))
}

/// Visible ASCII (0x21–0x7E), as the 2025 revisions require, and short.
fn valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= limits::to_usize(limits::MAX_MCP_SESSION_ID_CHARS)
        && id.bytes().all(|b| (0x21..=0x7E).contains(&b))
}
