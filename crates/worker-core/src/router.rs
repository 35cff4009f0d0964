//! The worker's single message router: one owner per message family.
//!
//! Every panel→worker request enters here. Messages without a string
//! `requestId` are not for the worker and get no answer; a broken envelope
//! with a `requestId` gets an error answer; a known type the worker does not
//! serve gets `UNROUTED_MESSAGE`.

use crate::envelope::{self, Request, RequestError};
use crate::platform::Platform;
use crate::recovery::{self, RecoveryTabs};
use crate::runs::{self, Runs};
use crate::sessions::{self, SessionStore, Sessions};
use crate::{bootstrap, theme};
use protocol::MessageType;
use serde_json::{Map, Value};

/// The worker: its platform and the state that lives as long as the worker
/// instance (Chrome may stop it at any time; nothing here must outlive that).
pub struct Worker<P: Platform> {
    pub platform: P,
    /// The storage mutation queue and the chat repository's per-instance
    /// state; every stored-data write goes through its queue.
    pub store: SessionStore,
    /// Reservations, active runs and the banners they wait on. Run messages
    /// are handled concurrently; this state is only borrowed between awaits.
    pub runs: Runs,
    /// Tabs on which a revert or snapshot restore/delete is running.
    pub recovery: RecoveryTabs,
}

fn expect_empty(payload: &Map<String, Value>) -> Result<(), RequestError> {
    match payload.keys().next() {
        Some(field) => Err(RequestError::new(
            "UNKNOWN_PAYLOAD_FIELD",
            format!("Unknown payload field: {field}"),
        )),
        None => Ok(()),
    }
}

impl<P: Platform> Worker<P> {
    pub fn new(platform: P) -> Self {
        Worker {
            platform,
            store: SessionStore::new(),
            runs: Runs::new(),
            recovery: RecoveryTabs::new(),
        }
    }

    /// Answers one runtime message; `None` means the message is not the
    /// worker's to answer.
    pub async fn handle_message(&self, message: &Value) -> Option<Value> {
        let reply_id = envelope::reply_request_id(message)?;
        let run_id = message.get("runId").and_then(Value::as_str);
        let answer = match envelope::check(message) {
            Ok(request) => self.route(&request).await,
            Err(error) => Err(error),
        };
        Some(match answer {
            Ok(data) => envelope::success(reply_id, run_id, data),
            Err(error) => envelope::failure(reply_id, run_id, &error),
        })
    }

    async fn route(&self, request: &Request) -> Result<Value, RequestError> {
        match request.message_type {
            MessageType::LoadTheme => {
                expect_empty(&request.payload)?;
                theme::load(self.platform.storage()).await
            }
            MessageType::SaveTheme => theme::save(self.platform.storage(), &request.payload).await,
            MessageType::GetEditorContext | MessageType::GetPreview | MessageType::GetDiagnostics => {
                crate::page_client::route(&self.platform, request).await
            }
            MessageType::GenerateSessionTitle => {
                crate::title::handle(self.platform.network(), self.platform.clock(), &request.payload).await
            }
            other if runs::routes::is_routed(other) => {
                runs::routes::handle(&self.platform, &self.runs, &self.store, &self.recovery, request).await
            }
            other if recovery::routes::is_routed(other) => {
                recovery::routes::handle(&self.platform, &self.runs, &self.store, &self.recovery, request).await
            }
            other if sessions::routes::is_routed(other) => {
                sessions::routes::handle(self.platform.storage(), self.platform.clock(), &self.store, request).await
            }
            other => Err(RequestError::new(
                "UNROUTED_MESSAGE",
                format!("{} has no route in the worker.", other.as_str()),
            )),
        }
    }

    /// The chat repository, for the run engine's transcript saves.
    pub fn sessions(&self) -> Sessions<'_, P::Storage, P::Clock> {
        Sessions::new(self.platform.storage(), self.platform.clock(), &self.store)
    }

    /// The start-up repair sequence; returns what went wrong, step by step.
    pub async fn bootstrap(&self) -> Vec<String> {
        let p = &self.platform;
        bootstrap::run(p.storage(), p.tabs(), p.scripting(), p.messenger()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{FakePlatform, block_on};
    use serde_json::json;

    fn worker() -> Worker<FakePlatform> {
        Worker::new(FakePlatform::default())
    }

    #[test]
    fn answers_theme_requests_with_response_envelopes() {
        let worker = worker();
        let saved = block_on(
            worker.handle_message(&json!({"type": "SAVE_THEME", "requestId": "a", "payload": {"theme": "light"}})),
        );
        assert_eq!(
            saved,
            Some(json!({"type": "PROTOCOL_RESPONSE", "requestId": "a", "payload": {"ok": true, "data": {"ok": true}}}))
        );
        let loaded = block_on(worker.handle_message(&json!({"type": "LOAD_THEME", "requestId": "b", "payload": {}})));
        assert_eq!(loaded.map(|r| r["payload"]["data"].clone()), Some(json!("light")));
    }

    #[test]
    fn ignores_messages_without_a_request_id() {
        let worker = worker();
        assert_eq!(
            block_on(worker.handle_message(&json!({"type": "LOAD_THEME", "payload": {}}))),
            None
        );
        assert_eq!(block_on(worker.handle_message(&json!("LOAD_THEME"))), None);
    }

    #[test]
    fn answers_broken_and_unrouted_messages_with_errors() {
        let worker = worker();
        let code =
            |message: Value| block_on(worker.handle_message(&message)).map(|r| r["payload"]["error"]["code"].clone());
        assert_eq!(
            code(json!({"type": "NOT_A_TYPE", "requestId": "x", "payload": {}})),
            Some(json!("UNKNOWN_MESSAGE_TYPE"))
        );
        assert_eq!(
            code(json!({"type": "LOAD_THEME", "requestId": "x", "payload": {"a": 1}})),
            Some(json!("UNKNOWN_PAYLOAD_FIELD"))
        );
        assert_eq!(
            code(json!({"type": "OPEN_PROJECT_TAB", "requestId": "x", "payload": {"projectId": "p"}})),
            Some(json!("UNROUTED_MESSAGE"))
        );
        let with_run =
            block_on(worker.handle_message(
                &json!({"type": "AI_STREAM_CANCEL", "requestId": "x", "runId": "run-1", "payload": {}}),
            ));
        assert_eq!(with_run.map(|r| r["runId"].clone()), Some(json!("run-1")));
    }
}
