//! The tools a model can call during a run.
//!
//! [`specs`] and [`metadata`] describe the built-ins (what the model sees and
//! what the source decides), [`registry`] maps exact visible names to routes,
//! [`plan`] orders one round's calls and [`dispatch`] takes one call from the
//! model's request to its result. [`preflight`] is the banner wait loop,
//! [`page`] the run's guarded view of its tab (shared with the editor
//! writes), [`approval`] the approval banner, and [`read`] executes the read
//! tools.

pub mod approval;
pub mod dispatch;
pub mod metadata;
pub mod page;
pub mod plan;
pub mod preflight;
pub mod read;
pub mod registry;
pub mod specs;
