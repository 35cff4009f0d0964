//! The tools a model can call during a run.
//!
//! [`specs`] and [`metadata`] describe the built-ins (what the model sees and
//! what the source decides), [`registry`] maps exact visible names to routes,
//! [`plan`] orders one round's calls, [`preflight`] holds the waits for page
//! capabilities and files, and [`read`] executes the read tools.

pub mod dispatch;
pub mod metadata;
pub mod plan;
pub mod preflight;
pub mod read;
pub mod registry;
pub mod specs;
