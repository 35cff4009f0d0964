//! Tests of custom tools and MCP servers in the worker: one custom-tool
//! call, the `Origin` rules, the probe's answers and hints, and whole runs
//! with both kinds of tools (through the [`crate::fakes::Harness`], with the
//! scripted servers of `crate::mcp::tests::servers`).

mod approvals;
mod custom_call;
mod origin_rules;
mod probe;
mod runs;
mod support;
