//! The two tool registries in local storage — custom HTTP tools
//! (`typstAgent.customTools`) and MCP servers (`typstAgent.mcpServers`) —
//! and their routes: `LOAD_CUSTOM_TOOLS`, `SAVE_CUSTOM_TOOLS`,
//! `LOAD_MCP_SERVERS`, `SAVE_MCP_SERVERS`.
//!
//! The rules are protocol's `registry_records`; this module only reads and
//! writes. A load normalises every stored record (nothing is written). A
//! save holds the storage mutation queue for its whole read-modify-write: a
//! mutation is applied to the stored list, never to the panel's copy, so two
//! panels saving at once keep each other's changes. Every write of either
//! list goes through [`save`]: what must follow a change of the servers
//! hooks in there (the MCP client forgets what it knew of them, and their
//! `Origin` rules are rebuilt, once the queue is free). A refused save changes nothing
//! and answers the first problem's code, with `details.origin` when a
//! cleartext origin needs the user's acknowledgement; a refused write
//! answers `STORAGE_QUOTA_EXCEEDED` or `STORAGE_WRITE_FAILED` and leaves
//! the stored list as it was.

use crate::envelope::RequestError;
use crate::integrations::Integrations;
use crate::platform::{Platform, Storage};
use crate::storage::{MutationQueue, StorageAction, StorageError};
use protocol::Payload;
use protocol::constants::storage_keys;
use protocol::payloads::RegistryMutation;
use protocol::registry_records::{
    CustomTool, McpServer, RecordErrors, apply_record_mutation, validate_custom_tools, validate_mcp_servers,
};
use serde_json::{Value, json};

#[cfg(test)]
mod tests;

/// One of the two registries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Registry {
    CustomTools,
    McpServers,
}

impl Registry {
    const fn key(self) -> &'static str {
        match self {
            Registry::CustomTools => storage_keys::CUSTOM_TOOLS,
            Registry::McpServers => storage_keys::MCP_SERVERS,
        }
    }

    /// What a refused write of this list tells the user was not saved.
    const fn action(self) -> StorageAction {
        match self {
            Registry::CustomTools => StorageAction::SaveCustomTools,
            Registry::McpServers => StorageAction::SaveMcpServers,
        }
    }

    /// The stored list as a load answers it.
    fn normalize(self, stored: Option<&Value>) -> Vec<Value> {
        match self {
            Registry::CustomTools => CustomTool::list_from_stored(stored)
                .into_iter()
                .map(|tool| Value::Object(tool.into_record()))
                .collect(),
            Registry::McpServers => McpServer::list_from_stored(stored)
                .into_iter()
                .map(|server| Value::Object(server.into_record()))
                .collect(),
        }
    }

    /// The records to store, or why the list is refused.
    fn validate(self, candidate: &[Value]) -> Result<Vec<Value>, RecordErrors> {
        Ok(match self {
            Registry::CustomTools => validate_custom_tools(candidate)?
                .into_iter()
                .map(|tool| Value::Object(tool.into_record()))
                .collect(),
            Registry::McpServers => validate_mcp_servers(candidate)?
                .into_iter()
                .map(|server| Value::Object(server.into_record()))
                .collect(),
        })
    }
}

/// Answers one registry request.
pub(crate) async fn route<P: Platform>(
    platform: &P,
    queue: &MutationQueue,
    integrations: &Integrations,
    payload: Payload,
) -> Result<Value, RequestError> {
    let storage = platform.storage();
    match payload {
        Payload::LoadCustomTools(_) => load(storage, Registry::CustomTools).await,
        Payload::LoadMcpServers(_) => load(storage, Registry::McpServers).await,
        Payload::SaveCustomTools(request) => {
            let saved = save(
                storage,
                queue,
                Registry::CustomTools,
                &request.tools,
                request.mutation.as_ref(),
            )
            .await?;
            Ok(saved.answer())
        }
        Payload::SaveMcpServers(request) => {
            let saved = save(
                storage,
                queue,
                Registry::McpServers,
                &request.servers,
                request.mutation.as_ref(),
            )
            .await?;
            integrations
                .servers_saved(platform, &saved.before, &saved.records)
                .await;
            Ok(saved.answer())
        }
        other => Err(RequestError::unrouted(other.message_type())),
    }
}

/// A save that was written: the list before it and the list as stored.
#[derive(Debug, PartialEq)]
struct Saved {
    before: Vec<Value>,
    records: Vec<Value>,
}

impl Saved {
    /// `{ok: true, records}`.
    fn answer(self) -> Value {
        json!({ "ok": true, "records": self.records })
    }
}

async fn stored(storage: &impl Storage, registry: Registry) -> Result<Vec<Value>, StorageError> {
    let stored = storage
        .get(registry.key())
        .await
        .map_err(|error| StorageError::read(&error))?;
    Ok(registry.normalize(stored.as_ref()))
}

/// `LOAD_CUSTOM_TOOLS` / `LOAD_MCP_SERVERS`: the normalised stored list.
async fn load(storage: &impl Storage, registry: Registry) -> Result<Value, RequestError> {
    Ok(Value::Array(stored(storage, registry).await?))
}

/// `SAVE_CUSTOM_TOOLS` / `SAVE_MCP_SERVERS`: the list as stored. With a
/// mutation the stored list changes, else the sent list replaces it. The
/// queue is held from the read to the write, and free again on return.
async fn save(
    storage: &impl Storage,
    queue: &MutationQueue,
    registry: Registry,
    sent: &[Value],
    mutation: Option<&RegistryMutation>,
) -> Result<Saved, RequestError> {
    let _guard = queue.lock().await;
    let (before, candidate) = match mutation {
        Some(mutation) => {
            let before = stored(storage, registry).await?;
            let changed = apply_record_mutation(&before, mutation)
                .map_err(|error| RequestError::new(error.code(), error.message()))?;
            (before, changed)
        }
        // A replacement does not depend on the stored list; it is read only
        // for what follows the save, so a failed read does not refuse it.
        None => (stored(storage, registry).await.unwrap_or_default(), sent.to_vec()),
    };
    let records = registry.validate(&candidate).map_err(refusal)?;
    storage
        .set(registry.key(), Value::Array(records.clone()))
        .await
        .map_err(|error| StorageError::write(&error).during(registry.action()))?;
    Ok(Saved { before, records })
}

/// The answer to a refused list: its first problem, as the original answered.
fn refusal(errors: RecordErrors) -> RequestError {
    let Some(first) = errors.errors.into_iter().next() else {
        return RequestError::new(protocol::ErrorCode::InternalError, "The records were refused.");
    };
    // The record and field let the panel show a refusal it could not
    // foresee (another panel changed the list) beside the input it is about.
    let mut details = json!({ "index": first.index, "field": first.field.as_str() });
    if let Some(origin) = first.details {
        details["origin"] = json!(origin.origin);
    }
    RequestError::new(first.code.code(), first.message).with_details(details)
}
