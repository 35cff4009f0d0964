//! Tests of the MCP client, against scripted servers on the fakes' network
//! and virtual clock.

mod calls;
mod discovery;
mod headers;
mod interop;
mod negotiation;
mod servers;
mod session;
mod sse;
mod support;
mod transport;
