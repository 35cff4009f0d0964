//! Tests of the MCP client, against scripted servers on the fakes' network
//! and virtual clock. The scripted servers (`servers`) also serve the run
//! tests of `crate::integrations`.

mod calls;
mod discovery;
mod headers;
mod interop;
mod negotiation;
pub(crate) mod servers;
mod session;
mod sse;
mod support;
mod transport;
