//! A worker driven the way the extension drives it, for whole-run tests:
//! every message goes through the router as its own task on one thread, so
//! a test can start a run, let it stall on a stream, a page request or a
//! banner, and then send Stop or a banner answer while it waits.
//!
//! The browser is the fakes' (one typst.app tab, in-memory storage, virtual
//! time), the model endpoint answers from scripted replies ([`Scripts`]) by
//! the model a request names, other HTTP peers (custom tools, MCP servers)
//! answer from responders the test serves by URL prefix, and the page is the
//! test's own: the run suites bring a page that behaves like typst.app for
//! what they exercise.

use super::{FakeBrowser, FakeClock, FakeNetwork, FakePlatform, FakeReply, Scripts, block_on, next_reply};
use crate::platform::{BrowserSender, HttpRequest, NetworkError, Pages, Platform, Tab};
use crate::worker::Worker;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

/// The id of the typst.app tab every run starts from.
pub(crate) const TAB: i64 = 17;
/// What that tab shows when the harness starts.
const TAB_URL: &str = "https://typst.app/project/p1";

/// The answer payload (`{ok:true, data}` or `{ok:false, error}`) of one
/// panel request, sent to `worker` and awaited; the answer must be a
/// response to that very request.
pub(crate) fn ask<P: Platform>(worker: &Worker<P>, kind: &str, payload: Value) -> Value {
    let message = json!({"type": kind, "requestId": "req-1", "payload": payload});
    let reply = block_on(worker.handle_message(&message)).unwrap_or_default();
    assert_eq!(reply["type"], json!("PROTOCOL_RESPONSE"), "{kind}: {reply}");
    assert_eq!(reply["requestId"], json!("req-1"), "{kind}: {reply}");
    reply["payload"].clone()
}

/// The `data` of a request that must succeed.
pub(crate) fn data<P: Platform>(worker: &Worker<P>, kind: &str, payload: Value) -> Value {
    let answer = ask(worker, kind, payload);
    assert_eq!(answer["ok"], json!(true), "{kind}: {answer}");
    answer["data"].clone()
}

/// The error code of a request that must fail.
pub(crate) fn code<P: Platform>(worker: &Worker<P>, kind: &str, payload: Value) -> Value {
    let answer = ask(worker, kind, payload);
    assert_eq!(answer["ok"], json!(false), "{kind}: {answer}");
    answer["error"]["code"].clone()
}

/// The answer of a message sent with [`Harness::send`], once it arrives.
pub(crate) struct Pending(Rc<RefCell<Option<Value>>>);

impl Pending {
    /// The whole response envelope, if the worker has answered.
    pub(crate) fn answer(&self) -> Option<Value> {
        self.0.borrow().clone()
    }
    /// The answer's `data` (`null` while unanswered or on an error).
    pub(crate) fn data(&self) -> Value {
        self.answer()
            .map(|a| a["payload"]["data"].clone())
            .unwrap_or(Value::Null)
    }
    pub(crate) fn is_done(&self) -> bool {
        self.0.borrow().is_some()
    }
}

/// A scripted HTTP peer.
type Responder = Box<dyn FnMut(&HttpRequest) -> Result<FakeReply, NetworkError>>;

/// The peers other than the model, by URL prefix.
type Peers = Rc<RefCell<Vec<(String, Responder)>>>;

/// One worker with its tasks and its scripted model.
pub(crate) struct Harness<G: Pages> {
    pool: LocalPool,
    pub(crate) worker: Rc<Worker<FakePlatform<G>>>,
    /// The model's replies, by the model id a request names.
    pub(crate) scripts: Scripts,
    peers: Peers,
    next: u32,
}

impl<G: Pages + 'static> Harness<G> {
    /// A worker on `pages`, with the typst.app tab [`TAB`] showing
    /// [`TAB_URL`] and `clock` as its time.
    pub(crate) fn new(pages: G, clock: FakeClock) -> Self {
        let platform = FakePlatform {
            browser: FakeBrowser::default(),
            clock,
            pages,
            network: FakeNetwork::default(),
        };
        platform.browser.navigate(TAB, TAB_URL);
        let scripts = Scripts::default();
        let model = scripts.clone();
        let peers: Peers = Rc::default();
        let served = peers.clone();
        platform.network.set_responder(move |request| {
            let mut peers = served.borrow_mut();
            match peers
                .iter_mut()
                .find(|(prefix, _)| request.url.starts_with(prefix.as_str()))
            {
                Some((_, responder)) => responder(request),
                None => next_reply(&model, request),
            }
        });
        Harness {
            pool: LocalPool::new(),
            worker: Rc::new(Worker::new(platform, crate::fakes::VERSION)),
            scripts,
            peers,
            next: 0,
        }
    }

    /// Answers every request whose URL starts with `prefix` with
    /// `responder` (the model keeps every other URL).
    pub(crate) fn serve(
        &self,
        prefix: &str,
        responder: impl FnMut(&HttpRequest) -> Result<FakeReply, NetworkError> + 'static,
    ) {
        self.peers.borrow_mut().push((prefix.to_owned(), Box::new(responder)));
    }

    pub(crate) fn platform(&self) -> &FakePlatform<G> {
        &self.worker.platform
    }

    /// Queues the replies of the model named `model` (runs started with
    /// [`start`](Self::start) name their run id).
    pub(crate) fn script(&self, model: &str, replies: Vec<FakeReply>) {
        self.scripts.borrow_mut().insert(model.to_owned(), replies.into());
    }

    /// Sends a message as its own task and runs every task until all wait.
    pub(crate) fn send(&mut self, kind: &str, run_id: Option<&str>, payload: Value) -> Pending {
        let panel = super::panel_sender(super::EXTENSION_ID);
        self.send_as(kind, run_id, payload, panel)
    }

    /// The typst.app tab's content script as the browser names it in
    /// `sender` (tab [`TAB`] of window 1).
    pub(crate) fn tab_sender() -> BrowserSender {
        super::top_frame_sender(Tab {
            id: Some(TAB),
            window_id: Some(1),
            url: TAB_URL.to_owned(),
        })
    }

    /// [`send`](Self::send) with the browser's `sender` of the message.
    pub(crate) fn send_as(
        &mut self,
        kind: &str,
        run_id: Option<&str>,
        payload: Value,
        sender: BrowserSender,
    ) -> Pending {
        self.next += 1;
        let mut message = json!({"type": kind, "requestId": format!("req-{}", self.next), "payload": payload});
        if let Some(run_id) = run_id {
            message["runId"] = json!(run_id);
        }
        let slot = Rc::new(RefCell::new(None));
        let (worker, out) = (self.worker.clone(), slot.clone());
        self.pool
            .spawner()
            .spawn_local(async move {
                let answer = worker.handle_message_from(&message, &sender).await;
                *out.borrow_mut() = answer;
            })
            .expect("the task starts");
        self.pool.run_until_stalled();
        Pending(slot)
    }

    /// Sends a message that must be answered at once.
    pub(crate) fn call(&mut self, kind: &str, run_id: Option<&str>, payload: Value) -> Value {
        let pending = self.send(kind, run_id, payload);
        pending.answer().expect("answered at once")
    }

    /// Creates a chat in project `p1` holding `messages`.
    pub(crate) fn session(&mut self, messages: Value) -> String {
        let created = self.call("SESSION_CREATE", None, json!({"projectId": "p1"}));
        let id = created["payload"]["data"]["id"]
            .as_str()
            .expect("a session id")
            .to_owned();
        let updated = self.call("SESSION_UPDATE", None, json!({"sessionId": id, "messages": messages}));
        assert_eq!(updated["payload"]["ok"], true, "{updated}");
        id
    }

    pub(crate) fn stored_messages(&mut self, session_id: &str) -> Vec<Value> {
        let got = self.call("SESSION_GET", None, json!({"sessionId": session_id}));
        got["payload"]["data"]["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub(crate) fn reserve(&mut self, run_id: &str, session_id: &str) -> Value {
        self.call(
            "AI_RUN_RESERVE",
            Some(run_id),
            json!({"tabId": TAB, "projectId": "p1", "sessionId": session_id}),
        )
    }

    /// Reserves and starts a run on [`TAB`] whose model id is the run id;
    /// `extra` replaces or adds start fields (`settings`, `modelConfig`,
    /// `activeEditorFile`, …).
    pub(crate) fn start(&mut self, run_id: &str, session_id: &str, messages: Value, extra: Value) -> Pending {
        let reserved = self.reserve(run_id, session_id);
        assert_eq!(reserved["payload"]["data"]["reserved"], true, "{reserved}");
        let mut payload = json!({
            "tabId": TAB, "projectId": "p1", "sessionId": session_id, "messages": messages,
            "settings": {"maxHistoryMessages": 40},
            "modelConfig": {"apiBaseUrl": "https://model.test/v1", "apiKey": "key", "modelId": run_id},
            "attachments": {}
        });
        if let (Some(target), Some(extra)) = (payload.as_object_mut(), extra.as_object()) {
            target.extend(extra.clone());
        }
        self.store_run_config(run_id, &mut payload);
        self.send("AI_STREAM_START", Some(run_id), payload)
    }

    /// Stores the start's settings and model as the panel would have saved
    /// them (the worker runs on what is stored and requires the copies to
    /// match): the model gets the run's id unless the start names one.
    fn store_run_config(&self, run_id: &str, payload: &mut Value) {
        let Some(model) = payload.get_mut("modelConfig").and_then(Value::as_object_mut) else {
            return;
        };
        model.entry("id").or_insert_with(|| json!(run_id));
        let model = Value::Object(model.clone());
        let mut settings = payload.get("settings").cloned().unwrap_or_else(|| json!({}));
        settings["models"] = json!([model.clone()]);
        settings["activeModelId"] = model["id"].clone();
        let storage = &self.platform().browser.storage;
        storage.put(protocol::constants::storage_keys::SETTINGS, settings);
    }

    /// `AI_TOOL_APPROVAL_RESOLVE`: the data of its answer.
    pub(crate) fn resolve(&mut self, run_id: &str, call_id: &str, action: &str) -> Value {
        self.send(
            "AI_TOOL_APPROVAL_RESOLVE",
            Some(run_id),
            json!({"callId": call_id, "action": action}),
        )
        .data()
    }

    /// Every event the run broadcast, in order.
    pub(crate) fn events(&self, run_id: &str) -> Vec<Value> {
        self.platform()
            .browser
            .broadcasts()
            .into_iter()
            .filter(|event| event["runId"] == run_id)
            .collect()
    }

    /// The types of the run's events, in order.
    pub(crate) fn event_types(&self, run_id: &str) -> Vec<String> {
        self.events(run_id)
            .iter()
            .map(|event| event["type"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    /// The payloads of the run's events of one type.
    pub(crate) fn payloads(&self, run_id: &str, kind: &str) -> Vec<Value> {
        self.events(run_id)
            .into_iter()
            .filter(|event| event["type"] == kind)
            .map(|event| event["payload"].clone())
            .collect()
    }

    /// Bodies of the model requests of one run.
    pub(crate) fn model_requests(&self, run_id: &str) -> Vec<Value> {
        self.platform()
            .network
            .requests()
            .iter()
            .filter_map(|request| serde_json::from_str::<Value>(request.body.as_deref()?).ok())
            .filter(|body| body["model"] == run_id)
            .collect()
    }
}
