//! One registry of every tool a run offers, keyed by exact visible name.
//!
//! A run builds it once, from the ten built-ins. The registry is the only
//! bridge between the name a model writes and what runs: each route carries
//! its compiled argument schema and the source-owned policy, so dispatch
//! never trusts the model for anything but the name and the arguments. Names
//! are matched exactly; a second route with a taken name is refused
//! ([`ToolRegistry::add`]), never shadowed.

use crate::tools::metadata::{Approval, Effect, Preflight, builtin_policy};
use crate::tools::specs::builtin_specs;
use protocol::ErrorCode;
use protocol::tool_schema::{SchemaOptions, ToolSchema};
use serde_json::Value;
use std::collections::HashMap;

/// One callable tool.
#[derive(Debug, Clone)]
pub(crate) struct Route {
    /// The exact function name the model sees and calls.
    pub(crate) name: String,
    /// Stable identity used for "Allow for run" grants.
    pub(crate) identity: String,
    /// The compiled parameter schema; arguments are validated against it
    /// immediately before dispatch.
    pub(crate) schema: ToolSchema,
    /// The OpenAI function spec sent to the provider.
    pub(crate) spec: Value,
    pub(crate) effect: Effect,
    pub(crate) approval: Approval,
    pub(crate) destination: String,
    pub(crate) preflight: Option<Preflight>,
    /// Checked against the run's captured tab before anything else.
    pub(crate) uses_tab: bool,
}

/// A tool that could not be registered. `TOOL_NAME_COLLISION` and schema
/// errors make a run fail with `TOOL_REGISTRY_INVALID`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegistryError {
    pub(crate) code: ErrorCode,
    pub(crate) name: String,
    pub(crate) message: String,
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
            })?;
        }
        Ok(registry)
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
mod tests {
    use super::*;

    fn registry() -> ToolRegistry {
        match ToolRegistry::with_builtins() {
            Ok(registry) => registry,
            Err(error) => panic!("built-ins do not register: {error:?}"),
        }
    }

    #[test]
    fn builtins_register_in_order_with_their_policies() {
        let registry = registry();
        let specs = registry.specs();
        let names: Vec<&str> = specs
            .iter()
            .filter_map(|spec| spec["function"]["name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "read_file_structure",
                "open_project_file",
                "read_document",
                "read_diagnostics",
                "read_typst_docs",
                "replace_lines",
                "search_replace",
                "patch_document",
                "insert_at_cursor",
                "replace_selection"
            ]
        );
        assert_eq!(registry.specs().len(), 10);
        let read = registry.route("read_document");
        assert_eq!(
            read.map(|r| (r.effect, r.approval)),
            Some((Effect::Read, Approval::Automatic))
        );
        assert_eq!(read.map(|r| r.identity.as_str()), Some("builtin:read_document"));
        let write = registry.route("replace_lines");
        assert_eq!(write.map(|r| r.effect), Some(Effect::EditorWrite));
    }

    #[test]
    fn names_are_exact_and_collisions_are_refused() {
        let mut registry = registry();
        assert!(registry.route("Read_Document").is_none());
        assert!(registry.route("read_document ").is_none());
        let Some(mut copy) = registry.route("read_document").cloned() else {
            panic!("read_document missing");
        };
        copy.identity = "custom:t1".into();
        let refused = registry.add(copy.clone()).err();
        assert_eq!(refused.map(|e| e.code.as_str()), Some("TOOL_NAME_COLLISION"));
        copy.name = "search_arxiv".into();
        copy.spec["function"]["name"] = "search_arxiv".into();
        assert!(registry.add(copy).is_ok());
        assert_eq!(
            registry.route("search_arxiv").map(|r| r.identity.as_str()),
            Some("custom:t1")
        );
        assert_eq!(registry.specs().len(), 11);
    }
}
