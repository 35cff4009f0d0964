//! The agent loop: from an admitted `AI_STREAM_START` to its one terminal
//! event (`engine`), one tool call from the model's request to its result
//! (`dispatch`), the run's tool budget and read cache (`budget`), and the
//! run messages the router hands over (`routes`).
//!
//! This is the top of the run floors: it drives the tools
//! ([`crate::tools`]) and the editor writes ([`crate::edits`]), which work
//! on the run state of [`crate::runs`]; none of them imports it back.

mod budget;
mod dispatch;
mod engine;
mod routes;

#[cfg(test)]
mod budget_tests;
#[cfg(test)]
mod tests;

pub(crate) use routes::route;
