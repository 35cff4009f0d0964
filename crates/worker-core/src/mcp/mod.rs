//! The MCP client: tools of Streamable-HTTP MCP servers, whichever era
//! they speak.
//!
//! Servers people run today speak one of two eras. The 2026-07-28 revision
//! is stateless: every request carries its version, method and client
//! metadata. The 2025 revisions (2025-11-25, -06-18, -03-26) need the
//! `initialize` handshake and often a session. [`McpClient`] speaks
//! 2026-07-28 first and falls back to the handshake when a server's answer
//! says it is a 2025 server (`negotiate.rs` has the rules, measured against
//! the official SDKs' servers), remembers the era per configuration, lists
//! tools with pagination and a cache, and calls them. Everything a server
//! sends is untrusted and bounded (2 MiB per answer, 20 pages, 500 tools,
//! 65,536 characters of result text); every failure is an [`McpError`]
//! with a catalogue code. Only `platform::Network` and `Clock` are used, so
//! the whole client is tested natively against scripted servers.

mod cache;
mod call;
mod client;
mod discovery;
mod endpoint;
mod error;
mod headers;
mod memory;
mod negotiate;
mod ordered_json;
mod render;
mod request;
mod sse;
mod transport;

// The stand-ins of the measured servers serve the run tests too.
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use client::McpClient;
pub(crate) use discovery::{DiscoveredTool, Discovery};
pub(crate) use endpoint::{LEGACY_VERSIONS, MODERN_VERSION, McpEndpoint};
pub(crate) use error::McpError;
