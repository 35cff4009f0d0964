//! The tools a model can call during a run.
//!
//! `specs` and `metadata` describe the built-ins (what the model sees and
//! what the source decides), `external` the routes of custom tools and MCP
//! servers' tools, `route` what one callable tool is, `registry` maps exact
//! visible names to routes and `plan`
//! orders one round's calls. `preflight` is the banner wait loop,
//! `page` the run's guarded view of its tab (shared with the editor writes),
//! `approval` the approval banner, and `read` executes the read tools. The
//! pipeline one call goes through is the agent's (`crate::agent`), which
//! also sends editor writes to [`crate::edits`].

mod approval;
mod external;
mod metadata;
mod page;
mod plan;
mod preflight;
mod read;
mod registry;
mod route;
mod specs;

pub(crate) use approval::{Review, authorize, await_approval, show_approval};
pub(crate) use metadata::Effect;
pub(crate) use page::{
    capabilities, capabilities_now, check_tab, message_file_context, message_file_context_from, page_context,
};
pub(crate) use plan::execution_order;
pub(crate) use read::run_read_tool;
pub(crate) use registry::{RunRegistry, ToolRegistry};
pub(crate) use route::{RegistryError, Route, Target};
