//! One registry of every tool a run offers, keyed by exact visible name.
//!
//! A run builds it once, in the original's order: the ten built-ins, then
//! the enabled custom tools, then each enabled MCP server's tools
//! ([`ToolRegistry::for_run`]). The registry is the only bridge between the
//! name a model writes and what runs: each route carries its compiled
//! argument schema, the source-owned policy and what executes it, so
//! dispatch never trusts the model for anything but the name and the
//! arguments. Names are matched exactly; a second route with a taken name is
//! refused ([`ToolRegistry::add`]), never shadowed.
//!
//! A custom tool the user saved must work or the run says why: a bad
//! record, schema or endpoint, or a name collision, fails the run with
//! `TOOL_REGISTRY_INVALID`. An MCP server is not the user's to fix on the
//! spot and must never break a run: a tool of it that cannot be offered
//! (a visible name taken, an identity too long to approve) is left out and
//! reported, like the tools its discovery refused (`INVALID_MCP_SCHEMA`).

use crate::integrations::{LeftOut, ServerTools, Toolset};
use crate::tools::external::{custom_problem, custom_route, mcp_route};
use crate::tools::metadata::builtin_policy;
use crate::tools::route::{RegistryError, Route, Target};
use crate::tools::specs::builtin_specs;
use protocol::ErrorCode;
use protocol::registry_records::{CustomTool, validate_custom_tools};
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use serde_json::Value;
use std::collections::HashMap;

/// The registry of one run, and per MCP server (in the toolset's order)
/// the tools it left out.
#[derive(Debug)]
pub(crate) struct RunRegistry {
    pub(crate) registry: ToolRegistry,
    pub(crate) left_out: Vec<Vec<LeftOut>>,
}

/// The routes of one run, in the order their specs go to the provider.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolRegistry {
    routes: Vec<Route>,
    by_name: HashMap<String, usize>,
}

impl ToolRegistry {
    /// The registry with the built-in tools only.
    pub(crate) fn with_builtins() -> Result<ToolRegistry, RegistryError> {
        let mut registry = ToolRegistry::default();
        for spec in builtin_specs() {
            let name = spec["function"]["name"].as_str().unwrap_or_default().to_owned();
            let invalid = |message: String| RegistryError {
                code: ErrorCode::InvalidBuiltinTool,
                name: name.clone(),
                message,
            };
            let policy = builtin_policy(&name).ok_or_else(|| invalid(format!("{name} has no policy.")))?;
            let schema = ToolSchema::compile(&spec["function"]["parameters"], SchemaOptions::CUSTOM)
                .map_err(|errors| invalid(errors.to_string()))?;
            registry.add(Route {
                identity: format!("builtin:{name}"),
                name,
                schema,
                spec,
                effect: policy.effect,
                approval: policy.approval,
                destination: policy.destination.to_owned(),
                preflight: policy.preflight,
                uses_tab: policy.uses_tab,
                target: Target::Builtin,
            })?;
        }
        Ok(registry)
    }

    /// The registry of a run: the built-ins, `toolset`'s custom tools, then
    /// its servers' tools. `Err` holds every problem of the custom tools
    /// (the run fails with `TOOL_REGISTRY_INVALID`).
    pub(crate) fn for_run(toolset: &Toolset) -> Result<RunRegistry, Vec<RegistryError>> {
        let mut registry = ToolRegistry::with_builtins().map_err(|error| vec![error])?;
        registry.add_custom_tools(&toolset.custom_tools)?;
        let left_out = toolset
            .servers
            .iter()
            .map(|server| registry.add_server_tools(server))
            .collect();
        Ok(RunRegistry { registry, left_out })
    }

    /// The enabled custom tools: the save-time rules on the list, then each
    /// tool's route; every problem is kept.
    fn add_custom_tools(&mut self, tools: &[CustomTool]) -> Result<(), Vec<RegistryError>> {
        let records: Vec<Value> = tools.iter().map(|tool| Value::Object(tool.record().clone())).collect();
        let mut errors: Vec<RegistryError> = match validate_custom_tools(&records) {
            Ok(_) => Vec::new(),
            Err(refused) => refused
                .errors
                .into_iter()
                .map(|problem| {
                    let name = tools
                        .get(problem.index)
                        .map(|tool| tool.name().into_owned())
                        .unwrap_or_default();
                    RegistryError {
                        code: problem.code.code(),
                        message: custom_problem(&name, &problem.message),
                        name,
                    }
                })
                .collect(),
        };
        if errors.is_empty() {
            for tool in tools {
                if let Err(error) = custom_route(tool).and_then(|route| self.add(route)) {
                    errors.push(error);
                }
            }
        }
        if errors.is_empty() { Ok(()) } else { Err(errors) }
    }

    /// One server's tools; what cannot be offered is left out.
    fn add_server_tools(&mut self, server: &ServerTools) -> Vec<LeftOut> {
        let Ok(discovery) = &server.discovered else {
            return Vec::new();
        };
        let listing = &discovery.listing;
        let mut left_out: Vec<LeftOut> = listing
            .errors
            .iter()
            .map(|problem| LeftOut {
                code: problem.code,
                name: problem.name.clone(),
                message: problem.message.clone(),
            })
            .collect();
        for tool in &listing.tools {
            if let Err(error) = mcp_route(server, tool).and_then(|route| self.add(route)) {
                left_out.push(LeftOut {
                    code: error.code,
                    name: tool.name.clone(),
                    message: error.message,
                });
            }
        }
        left_out
    }

    /// Adds a route; a visible name that is already taken is refused.
    pub(crate) fn add(&mut self, route: Route) -> Result<(), RegistryError> {
        if let Some(existing) = self.route(&route.name) {
            return Err(RegistryError {
                code: ErrorCode::ToolNameCollision,
                name: route.name.clone(),
                message: format!(
                    "The function name {} is already used by {}.",
                    route.name, existing.identity
                ),
            });
        }
        self.by_name.insert(route.name.clone(), self.routes.len());
        self.routes.push(route);
        Ok(())
    }

    /// The route of an exact visible name.
    pub(crate) fn route(&self, name: &str) -> Option<&Route> {
        self.by_name.get(name).and_then(|index| self.routes.get(*index))
    }

    /// The `tools` array of a provider request.
    pub(crate) fn specs(&self) -> Vec<Value> {
        self.routes.iter().map(|route| route.spec.clone()).collect()
    }
}

#[cfg(test)]
mod tests;
