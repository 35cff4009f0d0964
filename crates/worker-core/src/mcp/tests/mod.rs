//! Tests of the MCP client, against scripted servers on the fakes' network
//! and virtual clock.

mod interop;
mod servers;
mod support;
