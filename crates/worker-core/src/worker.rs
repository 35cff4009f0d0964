//! The worker and its single message router: one owner per message family.
//!
//! Every panel→worker request enters here. Messages without a string
//! `requestId` are not for the worker and get no answer; a sender the type's
//! rule does not admit (`protocol::sender_policy`) gets `SENDER_NOT_ALLOWED`
//! before the payload is read; a broken envelope with a `requestId` gets an
//! error answer; a known type the worker does not serve gets
//! `UNROUTED_MESSAGE`. The route below is the one map from a
//! message type to the module that answers it.

use crate::agent;
use crate::bootstrap::StorageAccess;
use crate::envelope::{self, Request, RequestError};
use crate::integrations::{self, Integrations};
use crate::platform::{BrowserSender, NetRules, Platform};
use crate::quick_attach::{self, QuickAttachQueue};
use crate::recovery;
use crate::recovery_tabs::RecoveryTabs;
use crate::registries;
use crate::runs::Runs;
use crate::sender_gate::SenderGate;
use crate::sessions::{self, SessionStore, Sessions};
use crate::startup::{self, Needs, Startup};
use crate::{bootstrap, page_client, settings, tabs, theme, title};
use protocol::{MessageType, Payload};
use serde_json::Value;
use std::cell::RefCell;

/// One family's answer to one request, boxed (see [`Worker::route`]).
type Answer<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Value, RequestError>> + 'a>>;

/// The worker: its platform and the state that lives as long as the worker
/// instance (Chrome may stop it at any time; nothing here must outlive that).
pub struct Worker<P: Platform> {
    pub(crate) platform: P,
    /// The storage mutation queue and the chat repository's per-instance
    /// state; every stored-data write goes through its queue.
    pub(crate) store: SessionStore,
    /// Reservations, active runs and the banners they wait on. Run messages
    /// are handled concurrently; this state is only borrowed between awaits.
    pub(crate) runs: Runs,
    /// Tabs on which a revert or snapshot restore/delete is running.
    pub(crate) recovery: RecoveryTabs,
    /// The MCP client and the `Origin` rules of the MCP servers.
    pub(crate) integrations: Integrations,
    /// Quick attachments waiting for their window's panel (30 s).
    pub(crate) quick_attach: QuickAttachQueue,
    /// What the start-up sequence could set of the storage access level;
    /// `SESSION_STORAGE_STATUS` reports it (the About dialog shows it).
    pub(crate) storage_access: RefCell<StorageAccess>,
    /// The sender checks and the refusals they made.
    pub(crate) senders: SenderGate,
    /// Where the start-up sequence is: what an answer waits for, and the
    /// answers the side work waits for ([`crate::startup`]).
    pub(crate) startup: Startup,
}

impl<P: Platform> Worker<P> {
    /// A fresh worker instance on `platform` (Chrome starts one whenever it
    /// wakes the service worker); `version` is the extension's manifest
    /// version, which the MCP client names to servers.
    pub fn new(platform: P, version: &str) -> Self {
        Worker {
            platform,
            store: SessionStore::new(),
            runs: Runs::new(),
            recovery: RecoveryTabs::new(),
            integrations: Integrations::new(version),
            quick_attach: QuickAttachQueue::new(),
            storage_access: RefCell::new(StorageAccess::Pending),
            senders: SenderGate::new(),
            startup: Startup::default(),
        }
    }

    /// Answers one runtime message as if this extension's side panel sent it.
    #[cfg(test)]
    pub(crate) async fn handle_message(&self, message: &Value) -> Option<Value> {
        let sender = crate::fakes::panel_sender(&self.platform.net_rules().extension_id());
        self.handle_message_from(message, &sender).await
    }

    /// Answers one runtime message sent by `sender` (the browser's account
    /// of who sent it); `None` means the message is not the worker's to
    /// answer. The sender is checked against the type's rule before the
    /// payload is read.
    pub async fn handle_message_from(&self, message: &Value, sender: &BrowserSender) -> Option<Value> {
        let reply_id = envelope::reply_request_id(message)?;
        let needs = message
            .get("type")
            .and_then(Value::as_str)
            .and_then(MessageType::from_wire)
            .map_or(Needs::Independent, startup::needs);
        // Taken before the first await, so a message handed over while the
        // module started holds the side work back from its first step.
        let (_hold, ready) = self.startup.admit(needs);
        ready.await;
        let run_id = message.get("runId").and_then(Value::as_str);
        let runtime_id = self.platform.net_rules().extension_id();
        let answer = match self
            .senders
            .admit(message, sender, &runtime_id)
            .and_then(|()| envelope::check(message))
        {
            Ok(request) => self.route(request, sender).await,
            Err(error) => Err(error),
        };
        Some(match answer {
            Ok(data) => envelope::success(reply_id, run_id, data),
            Err(error) => envelope::failure(reply_id, run_id, &error),
        })
    }

    /// The one map from a message type to the module that answers it.
    ///
    /// Each family's answer is a boxed future of its own rather than a state
    /// of this function's: otherwise the compiler folds every family's
    /// state machine into this one function (over 200 KB of wasm), and the
    /// browser, which compiles a function the first time it runs, compiles
    /// all of it to answer a woken worker's first `LOAD_SETTINGS`.
    async fn route(&self, request: Request, sender: &BrowserSender) -> Result<Value, RequestError> {
        let run_id = request.run_id.clone();
        self.answer(request.payload, run_id, sender).await
    }

    fn answer<'a>(&'a self, payload: Payload, run_id: Option<String>, sender: &'a BrowserSender) -> Answer<'a> {
        let p = &self.platform;
        match payload {
            Payload::LoadTheme(_) => Box::pin(theme::load(p.storage())),
            Payload::SaveTheme(save) => Box::pin(async move { theme::save(p.storage(), &save).await }),
            Payload::LoadSettings(_) => Box::pin(async move { Ok(settings::load(p.storage()).await?) }),
            Payload::SaveSettings(save) => {
                Box::pin(async move { Ok(settings::save(p.storage(), &self.store.queue, &save).await?) })
            }
            payload @ (Payload::GetEditorContext(_) | Payload::GetPreview(_) | Payload::GetDiagnostics(_)) => {
                Box::pin(async move { page_client::route(p, &payload).await })
            }
            Payload::GenerateSessionTitle(request) => {
                Box::pin(title::route(p.storage(), p.network(), p.clock(), request))
            }
            payload @ (Payload::AiRunReserve(_)
            | Payload::AiStreamStart(_)
            | Payload::AiStreamCancel(_)
            | Payload::AiRunStatus(_)
            | Payload::AiToolPreflightResolve(_)
            | Payload::AiToolApprovalResolve(_)) => Box::pin(async move {
                let (runs, store, recovery) = (&self.runs, &self.store, &self.recovery);
                let run_id = run_id.as_deref().unwrap_or_default();
                agent::route(p, runs, store, recovery, &self.integrations, run_id, payload).await
            }),
            payload @ (Payload::EditCheckpointRevert(_)
            | Payload::DocumentSnapshotList(_)
            | Payload::DocumentSnapshotPreview(_)
            | Payload::DocumentSnapshotRestore(_)
            | Payload::DocumentSnapshotDelete(_)) => {
                Box::pin(recovery::route(p, &self.runs, &self.store, &self.recovery, payload))
            }
            // The storage status is the one status answer the panel reads
            // that is not a run's: it also says what the start-up sequence
            // could set of the storage access level (the About dialog shows
            // it) and counts this worker's sender refusals.
            Payload::SessionStorageStatus(_) => Box::pin(async move {
                let access = self.storage_access.borrow().clone();
                let mut status = sessions::storage_status(&self.sessions(), &access).await?;
                if let Some(fields) = status.as_object_mut() {
                    fields.insert("senderRefusals".to_owned(), self.senders.counts());
                }
                Ok(status)
            }),
            payload @ (Payload::SessionList(_)
            | Payload::SessionCreate(_)
            | Payload::SessionGet(_)
            | Payload::SessionUpdate(_)
            | Payload::SessionDelete(_)
            | Payload::SessionListAllGrouped(_)
            | Payload::SessionDeleteByProject(_)
            | Payload::SessionExport(_)
            | Payload::SessionImport(_)) => Box::pin(async move { sessions::route(&self.sessions(), payload).await }),
            payload @ (Payload::LoadCustomTools(_)
            | Payload::SaveCustomTools(_)
            | Payload::LoadMcpServers(_)
            | Payload::SaveMcpServers(_)) => {
                Box::pin(registries::route(p, &self.store.queue, &self.integrations, payload))
            }
            Payload::ProbeMcpServer(probe) => Box::pin(integrations::probe_route(p, &self.integrations, probe)),
            Payload::OpenProjectTab(project) => Box::pin(async move { tabs::open_project(p.tabs(), &project).await }),
            payload @ (Payload::QuickAttachSelection(_) | Payload::QuickAttachImagePreview(_)) => Box::pin(
                quick_attach::dispatch(p, &self.quick_attach, payload.message_type(), sender),
            ),
            Payload::QuickAttachDrain(drain) => Box::pin(std::future::ready(Ok(quick_attach::drain(
                &self.quick_attach,
                p.clock(),
                drain.window_id,
            )))),
            // Every other type travels away from the worker or never reaches
            // it: the answer envelope, the run events and broadcasts the
            // worker sends to panels, the requests it sends to the page (the
            // page scripts answer them) and the two page worlds' own traffic.
            // Listed by name, so a new type fails to compile until it has an
            // owner here.
            elsewhere @ (Payload::Response(_)
            | Payload::AiStreamBatch(_)
            | Payload::AiStreamDone(_)
            | Payload::AiStreamCancelled(_)
            | Payload::AiStreamError(_)
            | Payload::AiToolCalls(_)
            | Payload::AiToolResult(_)
            | Payload::AiToolPreflightWaiting(_)
            | Payload::AiToolPreflightReady(_)
            | Payload::AiToolApprovalRequired(_)
            | Payload::AiRunNotice(_)
            | Payload::ActiveTabChanged(_)
            | Payload::PageGetContext(_)
            | Payload::PageGetPreview(_)
            | Payload::PageGetDiagnostics(_)
            | Payload::PageGetProbe(_)
            | Payload::PageCancelRequest(_)
            | Payload::PageShowEditPreview(_)
            | Payload::PageClearEditPreview(_)
            | Payload::PageApplyEdit(_)
            | Payload::PageQuickSelection(_)
            | Payload::PageQuickImagePreview(_)
            | Payload::PageBridgeInit(_)
            | Payload::PageBridgeReady(_)) => Box::pin(std::future::ready(Err(RequestError::unrouted(
                elsewhere.message_type(),
            )))),
        }
    }

    /// The chat repository over this worker's storage, clock and queue.
    pub(crate) fn sessions(&self) -> Sessions<'_, P::Storage, P::Clock> {
        Sessions::new(self.platform.storage(), self.platform.clock(), &self.store)
    }

    /// The start-up repair sequence, then the MCP servers' `Origin` rules
    /// (the browser drops them when it closes); returns what went wrong,
    /// step by step. `runtime.onInstalled` and `onStartup` run it.
    pub async fn bootstrap(&self) -> Vec<String> {
        let p = &self.platform;
        let outcome = bootstrap::run(p.storage(), p.tabs(), p.scripting(), p.messenger()).await;
        *self.storage_access.borrow_mut() = outcome.storage_access;
        let mut problems = outcome.problems;
        problems.extend(self.sync_origin_rules().await);
        problems
    }

    /// The same steps for a freshly woken instance, ordered by
    /// [`crate::startup`]: the storage access level first, then the
    /// storage answers that came meanwhile, then the tabs, panels and rules.
    pub async fn start_up(&self) -> Vec<String> {
        let p = &self.platform;
        let essential = async {
            let (access, problem) = bootstrap::restrict_storage(p.storage()).await;
            *self.storage_access.borrow_mut() = access;
            problem
        };
        let side_work = |problem: Option<String>| async move {
            let mut problems: Vec<String> = problem.into_iter().collect();
            problems.extend(bootstrap::repair(p.tabs(), p.scripting(), p.messenger()).await);
            problems.extend(self.sync_origin_rules().await);
            problems
        };
        self.startup.run(essential, side_work).await
    }

    async fn sync_origin_rules(&self) -> Option<String> {
        self.integrations.origin_rules.sync(&self.platform).await.err()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{FakePlatform, block_on, code, data};
    use serde_json::json;

    fn worker() -> Worker<FakePlatform> {
        Worker::new(FakePlatform::default(), crate::fakes::VERSION)
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
    fn a_bad_theme_payload_is_refused_before_anything_is_stored() {
        let worker = worker();
        for (payload, code) in [
            (json!({}), "MISSING_PAYLOAD_FIELD"),
            (json!({"theme": ""}), "INVALID_THEME"),
            (json!({"theme": "  "}), "INVALID_THEME"),
            (json!({"theme": 1}), "INVALID_THEME"),
            (json!({"theme": "light", "extra": 1}), "UNKNOWN_PAYLOAD_FIELD"),
        ] {
            let answer =
                block_on(worker.handle_message(&json!({"type": "SAVE_THEME", "requestId": "a", "payload": payload})));
            assert_eq!(
                answer.map(|r| r["payload"]["error"]["code"].clone()),
                Some(json!(code)),
                "{payload}"
            );
        }
        assert_eq!(worker.platform.browser.storage.value(crate::theme::THEME_KEY), None);
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
            code(json!({"type": "PAGE_GET_PROBE", "requestId": "x", "payload": {}})),
            Some(json!("UNROUTED_MESSAGE"))
        );
        assert_eq!(
            code(json!({"type": "OPEN_PROJECT_TAB", "requestId": "x", "payload": {"projectId": " "}})),
            Some(json!("INVALID_PROJECT_ID"))
        );
        let with_run =
            block_on(worker.handle_message(
                &json!({"type": "AI_STREAM_CANCEL", "requestId": "x", "runId": "run-1", "payload": {}}),
            ));
        assert_eq!(with_run.map(|r| r["runId"].clone()), Some(json!("run-1")));
    }

    #[test]
    fn open_project_tab_is_routed_to_the_tabs() {
        let worker = worker();
        let opened = data(&worker, "OPEN_PROJECT_TAB", json!({"projectId": "p9"}));
        let tab_id = opened["tabId"].as_i64();
        assert_eq!(opened["ok"], json!(true));
        assert!(tab_id.is_some());
        let again = data(&worker, "OPEN_PROJECT_TAB", json!({"projectId": "p9"}));
        assert_eq!(
            again["tabId"].as_i64(),
            tab_id,
            "the same tab is focused, not another opened"
        );
    }

    #[test]
    fn a_settings_refusal_names_the_origin_to_acknowledge() {
        let worker = worker();
        let model = json!({"id": "m1", "name": "M", "apiBaseUrl": "http://192.168.1.5/v1", "apiKey": "k",
            "modelId": "x"});
        let answer = crate::fakes::ask(
            &worker,
            "SAVE_SETTINGS",
            json!({"settings": {}, "modelMutation": {"type": "upsert", "record": model}}),
        );
        assert_eq!(answer["error"]["code"], json!("INSECURE_CONFIRMATION_REQUIRED"));
        assert_eq!(answer["error"]["details"], json!({"origin": "http://192.168.1.5"}));
    }

    #[test]
    fn settings_requests_round_trip_and_report_storage_failures() {
        let worker = worker();
        assert_eq!(
            data(&worker, "LOAD_SETTINGS", json!({}))["maxHistoryMessages"],
            json!(40)
        );
        let model = json!({"id": "m1", "name": "M", "apiBaseUrl": "https://api.example/v1", "apiKey": "k",
            "modelId": "x", "supportsVision": false, "reasoningEffort": "default"});
        let saved = data(
            &worker,
            "SAVE_SETTINGS",
            json!({"settings": {}, "modelMutation": {"type": "upsert", "record": model}}),
        );
        assert_eq!(saved["ok"], json!(true));
        assert_eq!(saved["settings"]["activeModelId"], json!("m1"));
        let loaded = data(&worker, "LOAD_SETTINGS", json!({}));
        assert_eq!(
            crate::settings::active_model(&loaded).map(|m| m["modelId"].clone()),
            Some(json!("x"))
        );
        assert_eq!(
            code(
                &worker,
                "SAVE_SETTINGS",
                json!({"settings": {}, "modelMutation": {"type": "select", "id": "zz"}})
            ),
            json!("UNKNOWN_MODEL")
        );
        worker
            .platform
            .browser
            .storage
            .fail_writes("QUOTA_BYTES quota exceeded");
        assert_eq!(
            code(&worker, "SAVE_SETTINGS", json!({"settings": {"systemPrompt": "x"}})),
            json!("STORAGE_QUOTA_EXCEEDED")
        );
        assert_eq!(
            code(&worker, "SESSION_CREATE", json!({"projectId": "p"})),
            json!("STORAGE_QUOTA_EXCEEDED")
        );
    }
}
