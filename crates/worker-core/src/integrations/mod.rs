//! Custom HTTP tools and MCP servers in the worker: what a run gathers of
//! them when it starts (`toolset`), one call of a custom tool
//! (`custom_call`), the MCP form's probe and what its failures mean
//! (`probe`, `hints`), the `Origin` rules for the servers (`origin_rules`),
//! and what the worker keeps of all this in memory (`state`).
//!
//! The stored records and their rules are protocol's `registry_records`;
//! the MCP protocol itself is [`crate::mcp`]; the routes a run offers are
//! [`crate::tools`]. This module is the glue between them and the worker.

mod custom_call;
mod hints;
mod origin_rules;
mod probe;
mod state;
mod toolset;

#[cfg(test)]
mod tests;

pub(crate) use custom_call::call_custom_tool;
pub(crate) use origin_rules::server_origin;
pub(crate) use probe::route as probe_route;
pub(crate) use state::Integrations;
pub(crate) use toolset::{GatherError, LeftOut, ServerTools, Toolset, gather, run_notices, server_notice};
