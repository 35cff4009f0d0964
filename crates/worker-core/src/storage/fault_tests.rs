//! Storage faults at every write of every action: one table of actions, and
//! for each action every write it makes fails in turn (the N-th write call,
//! alone or with every later `set` too, as on a store that stays full).
//!
//! For each N: (a) every object the user had stored reads back through the
//! public routes, each either as it was before the action or as the action
//! leaves it when it succeeds — never half of one; (b) a failure the user
//! is told of carries `STORAGE_QUOTA_EXCEEDED` and names the action
//! ("Saving the chat failed: …"), and a state that differs from the
//! successful one is always told; (c) once the fault is lifted the same
//! action succeeds.

use crate::fakes::{FakeClock, FakeTypstPages, Harness, TAB, calls, text};
use crate::journals::{Checkpoints, JournalStore};
use crate::storage::StorageAction;
use protocol::constants::storage_keys;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const QUOTA: &str = "QUOTA_BYTES quota exceeded";
const DOC: &str = "= Thesis\nWe cite @knuth here.\n\n== Method\nSome text.";

type Fixture = Harness<FakeTypstPages>;

/// What the fixture stored, for the actions to refer to.
struct Stored {
    chat: String,
    checkpoint: String,
    snapshot: String,
}

/// What one attempt of an action shows the user: the request's answer, or
/// for a run its answer, events and tool results.
struct Attempt {
    /// Every failure the user is shown: `(code, message)`; a snapshot
    /// warning has the code `snapshotWarning`.
    failures: Vec<(String, String)>,
    ok: bool,
}

/// The stored data an action starts from.
#[derive(Clone, Copy)]
enum Profile {
    /// [`fixture`]: settings, tools, servers, a chat, a checkpoint, a snapshot.
    Usual,
    /// [`version1_fixture`]: the original's v1.0 array of chats.
    Version1,
    /// [`old_index_fixture`]: an index without summaries and an orphan body.
    OldIndex,
}

/// One action of the table.
struct Action {
    name: &'static str,
    /// The actions its failures may name.
    names: &'static [StorageAction],
    /// The profile the action starts from.
    profile: Profile,
    /// A run: a failure inside it (its checkpoint, its snapshot) does not
    /// end it, so its chat gains an answer that differs from the
    /// successful one; the chat's earlier messages must stay as they were.
    compound: bool,
    /// States of an object between before and after that the journal writes
    /// ahead on purpose and the same action resumes (`key`, value).
    resumable: fn(&str, Option<&Value>) -> bool,
    /// What the user did after the fixture and before the action.
    setup: fn(&mut Fixture),
    act: fn(&mut Fixture, &Stored, u32) -> Attempt,
}

fn model(id: &str) -> Value {
    json!({"id": id, "name": id, "apiBaseUrl": "https://model.test/v1", "apiKey": "k", "modelId": "m"})
}

fn tool(id: &str, name: &str) -> Value {
    json!({"id": id, "name": name, "endpoint": "https://tools.example/call", "enabled": true})
}

fn server(id: &str, name: &str) -> Value {
    json!({"id": id, "name": name, "url": "https://mcp.example/mcp", "headers": {}, "enabled": true,
        "protocolMode": "auto"})
}

fn user(content: &str) -> Value {
    json!({"role": "user", "content": content})
}

fn must_succeed(h: &mut Fixture, kind: &str, payload: Value) -> Value {
    let answer = h.call(kind, None, payload);
    assert_eq!(answer["payload"]["ok"], true, "{kind}: {answer}");
    answer["payload"]["data"].clone()
}

/// A worker on a typst.app tab showing [`DOC`], with settings, a theme, a
/// custom tool, an MCP server, a chat, and a run of that chat that edited
/// the document (its checkpoint) and completed (its automatic snapshot).
fn fixture() -> (Fixture, Stored) {
    let clock = FakeClock::default();
    clock.hold_sleeps_from(Some(100_000));
    let mut h = Harness::new(FakeTypstPages::default(), clock);
    {
        let mut page = h.platform().pages.page.borrow_mut();
        page.doc = DOC.to_owned();
        page.files_open = false;
    }
    must_succeed(
        &mut h,
        "SAVE_SETTINGS",
        json!({"settings": {"models": [model("m1")], "activeModelId": "m1"}}),
    );
    must_succeed(&mut h, "SAVE_THEME", json!({"theme": "light"}));
    must_succeed(&mut h, "SAVE_CUSTOM_TOOLS", json!({"tools": [tool("t1", "lookup")]}));
    must_succeed(&mut h, "SAVE_MCP_SERVERS", json!({"servers": [server("s1", "Docs")]}));
    let chat = h.session(json!([user("Please edit")]));
    h.script(
        "run-0",
        vec![
            calls(&[(
                "e1",
                "search_replace",
                json!({"search": "= Thesis", "replace": "= Dissertation"}),
            )]),
            text("Renamed."),
        ],
    );
    let run = h.start(
        "run-0",
        &chat,
        json!([user("Please edit")]),
        json!({"settings": {"editorApprovalMode": "auto"}}),
    );
    assert_eq!(run.data()["ok"], true, "{}", run.data());
    let result = h
        .payloads("run-0", "AI_TOOL_RESULT")
        .first()
        .map(|payload| payload["result"].clone())
        .unwrap_or_default();
    let checkpoint = result["editCheckpoint"]["id"].as_str().unwrap_or_default().to_owned();
    assert!(!checkpoint.is_empty(), "{result}");
    let done = h.payloads("run-0", "AI_STREAM_DONE");
    let snapshot = done
        .first()
        .and_then(|done| done["snapshot"]["id"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(!snapshot.is_empty(), "{done:?}");
    (
        h,
        Stored {
            chat,
            checkpoint,
            snapshot,
        },
    )
}

/// A profile of the original's v1.0 (one array of chats, one of them
/// refused by the schema, so the move also writes its backup).
fn version1_fixture() -> (Fixture, Stored) {
    let h = Harness::new(FakeTypstPages::default(), FakeClock::default());
    h.platform().browser.storage.put(
        storage_keys::SESSIONS,
        json!([
            {"id": "legacy-1", "projectId": "p1", "name": "Old", "createdAt": 1, "updatedAt": 2,
             "messages": [user("hello")]},
            {"id": "legacy-2", "projectId": "p1", "name": "Older", "createdAt": 1, "updatedAt": 3,
             "messages": [user("again")]},
            {"projectId": "p1", "messages": "broken"},
        ]),
    );
    let none = Stored {
        chat: String::new(),
        checkpoint: String::new(),
        snapshot: String::new(),
    };
    (h, none)
}

/// A v2 repository written before index entries had `preview` and
/// `searchText`, with a body no entry names (left by an interrupted write):
/// the first chat request of an instance backfills and removes it.
fn old_index_fixture() -> (Fixture, Stored) {
    let h = Harness::new(FakeTypstPages::default(), FakeClock::default());
    let storage = &h.platform().browser.storage;
    let body = |id: &str| format!("{}{id}.b1", storage_keys::SESSION_BODY_PREFIX);
    storage.put(storage_keys::SESSION_MIGRATION, json!({"version": 2, "complete": true}));
    storage.put(
        storage_keys::SESSION_INDEX,
        json!({"version": 2, "sessions": [{"id": "old", "projectId": "p1", "name": "Old", "createdAt": 1,
            "updatedAt": 2, "messageCount": 1, "approxBytes": 10, "bodyKey": body("old")}]}),
    );
    storage.put(
        &body("old"),
        json!({"version": 2, "id": "old", "messages": [user("kept")]}),
    );
    storage.put(&body("gone"), json!({"version": 2, "id": "gone", "messages": []}));
    let none = Stored {
        chat: String::new(),
        checkpoint: String::new(),
        snapshot: String::new(),
    };
    (h, none)
}

/// The answer of one request as an [`Attempt`].
fn request(h: &mut Fixture, kind: &str, payload: Value) -> Attempt {
    let answer = h.call(kind, None, payload);
    let payload = &answer["payload"];
    let ok = payload["ok"] == true;
    let failures = if ok {
        Vec::new()
    } else {
        vec![(
            payload["error"]["code"].as_str().unwrap_or_default().to_owned(),
            payload["error"]["message"].as_str().unwrap_or_default().to_owned(),
        )]
    };
    Attempt { failures, ok }
}

/// A run of the fixture's chat that edits the document in Auto mode and
/// completes: its checkpoint, its answer saved to the chat, its snapshot.
fn run(h: &mut Fixture, stored: &Stored, attempt: u32) -> Attempt {
    let run_id = format!("run-{}", attempt + 1);
    h.script(
        &run_id,
        vec![
            calls(&[(
                "e1",
                "search_replace",
                // Found again by a retry after an attempt that applied it.
                json!({"search": "== Method", "replace": format!("== Method {attempt}")}),
            )]),
            text("Changed."),
        ],
    );
    let pending = h.start(
        &run_id,
        &stored.chat,
        json!([user("Please edit"), user("Once more")]),
        json!({"settings": {"editorApprovalMode": "auto"}}),
    );
    let answer = pending.data();
    let mut failures = Vec::new();
    if answer["ok"] != true {
        failures.push((
            answer["code"].as_str().unwrap_or_default().to_owned(),
            answer["error"].as_str().unwrap_or_default().to_owned(),
        ));
    }
    for result in h.payloads(&run_id, "AI_TOOL_RESULT") {
        if result["result"]["ok"] == false {
            failures.push((
                result["result"]["code"].as_str().unwrap_or_default().to_owned(),
                result["result"]["error"].as_str().unwrap_or_default().to_owned(),
            ));
        }
    }
    for done in h.payloads(&run_id, "AI_STREAM_DONE") {
        if let Some(warning) = done["snapshotWarning"].as_str() {
            failures.push(("snapshotWarning".to_owned(), warning.to_owned()));
        }
    }
    let ok = answer["ok"] == true && failures.is_empty();
    Attempt { failures, ok }
}

fn target(h: &Fixture, stored: &Stored) -> Value {
    let _ = h;
    json!({"snapshotId": stored.snapshot, "tabId": TAB, "projectId": "p1", "sessionId": stored.chat})
}

/// The table: every action of the worker that writes storage.
const ACTIONS: &[Action] = &[
    Action {
        name: "save settings",
        names: &[StorageAction::SaveSettings],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| {
            let settings = json!({"models": [model("m1"), model("m2")], "activeModelId": "m2"});
            request(h, "SAVE_SETTINGS", json!({ "settings": settings }))
        },
    },
    Action {
        name: "save theme",
        names: &[StorageAction::SaveTheme],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| request(h, "SAVE_THEME", json!({"theme": "dark"})),
    },
    Action {
        name: "save a custom tool",
        names: &[StorageAction::SaveCustomTools],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| {
            let mutation = json!({"type": "upsert", "record": tool("t2", "search")});
            request(h, "SAVE_CUSTOM_TOOLS", json!({"tools": [], "mutation": mutation}))
        },
    },
    Action {
        name: "save an MCP server",
        names: &[StorageAction::SaveMcpServers],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| {
            let servers = json!([server("s1", "Docs"), server("s2", "More")]);
            request(h, "SAVE_MCP_SERVERS", json!({ "servers": servers }))
        },
    },
    Action {
        name: "create a chat",
        names: &[StorageAction::CreateChat],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| request(h, "SESSION_CREATE", json!({"projectId": "p1", "name": "Fresh"})),
    },
    Action {
        name: "save a chat's messages",
        names: &[StorageAction::SaveChat],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, stored, _| {
            let messages = json!([user("Please edit"), {"role": "assistant", "content": "Done."}, user("Thanks")]);
            request(
                h,
                "SESSION_UPDATE",
                json!({"sessionId": stored.chat, "messages": messages}),
            )
        },
    },
    Action {
        name: "rename a chat",
        names: &[StorageAction::SaveChat],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, stored, _| {
            request(
                h,
                "SESSION_UPDATE",
                json!({"sessionId": stored.chat, "name": "Renamed", "userRenamed": true}),
            )
        },
    },
    Action {
        name: "delete a chat",
        names: &[StorageAction::DeleteChat],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, stored, _| request(h, "SESSION_DELETE", json!({"sessionId": stored.chat})),
    },
    Action {
        name: "delete a project's chats",
        names: &[StorageAction::DeleteProjectChats],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| request(h, "SESSION_DELETE_BY_PROJECT", json!({"projectId": "p1"})),
    },
    Action {
        name: "import chats",
        names: &[StorageAction::ImportChats],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| {
            let records = json!([
                {"projectId": "p1", "name": "One", "messages": [user("one")]},
                {"projectId": "p2", "name": "Two", "messages": [user("two")]},
            ]);
            request(h, "SESSION_IMPORT", json!({ "records": records }))
        },
    },
    Action {
        name: "a run that edits and completes",
        names: &[
            StorageAction::SaveCheckpoint,
            StorageAction::SaveRunAnswer,
            StorageAction::SaveSnapshot,
        ],
        profile: Profile::Usual,
        compound: true,
        resumable: none,
        setup: nothing,
        act: run,
    },
    Action {
        name: "revert an edit",
        names: &[StorageAction::RecordRevert],
        profile: Profile::Usual,
        compound: false,
        // `reverting` with the pre-run copy kept: the page was restored but
        // the final state was not recorded; the next revert finishes it.
        resumable: |key, value| {
            key == "checkpoint" && value.is_some_and(|v| v["status"] == "reverting" && v["before"].is_string())
        },
        setup: nothing,
        act: |h, stored, _| {
            let payload = json!({"checkpointId": stored.checkpoint, "tabId": TAB, "projectId": "p1",
                "sessionId": stored.chat});
            request(h, "EDIT_CHECKPOINT_REVERT", payload)
        },
    },
    Action {
        name: "restore a snapshot",
        names: &[StorageAction::SaveSnapshot],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: |h| h.platform().pages.page.borrow_mut().doc.push_str("\nTyped later."),
        act: |h, stored, _| {
            let preview = h.call("DOCUMENT_SNAPSHOT_PREVIEW", None, target(h, stored));
            assert_eq!(preview["payload"]["ok"], true, "{preview}");
            let mut restore = target(h, stored);
            restore["baseHash"] = preview["payload"]["data"]["baseHash"].clone();
            restore["baseLength"] = preview["payload"]["data"]["baseLength"].clone();
            request(h, "DOCUMENT_SNAPSHOT_RESTORE", restore)
        },
    },
    Action {
        name: "delete a snapshot",
        names: &[StorageAction::DeleteSnapshot],
        profile: Profile::Usual,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, stored, _| request(h, "DOCUMENT_SNAPSHOT_DELETE", target(h, stored)),
    },
    Action {
        name: "move version-1 chats",
        names: &[StorageAction::MigrateChats],
        profile: Profile::Version1,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| request(h, "SESSION_LIST", json!({"projectId": "p1"})),
    },
    Action {
        name: "prepare an old repository",
        names: &[StorageAction::PrepareChats],
        profile: Profile::OldIndex,
        compound: false,
        resumable: none,
        setup: nothing,
        act: |h, _, _| request(h, "SESSION_LIST", json!({"projectId": "p1"})),
    },
];

/// Everything the user has stored, read through the public routes, one
/// entry per object: `(name, value)`; an absent object has no entry.
fn read_state(h: &mut Fixture, stored: &Stored) -> BTreeMap<String, Value> {
    let mut state = BTreeMap::new();
    for (name, kind) in [
        ("settings", "LOAD_SETTINGS"),
        ("theme", "LOAD_THEME"),
        ("customTools", "LOAD_CUSTOM_TOOLS"),
        ("mcpServers", "LOAD_MCP_SERVERS"),
    ] {
        state.insert(name.to_owned(), must_succeed(h, kind, json!({})));
    }
    let groups = must_succeed(h, "SESSION_LIST_ALL_GROUPED", json!({}));
    for group in groups.as_array().into_iter().flatten() {
        for session in group["sessions"].as_array().into_iter().flatten() {
            let id = session["id"].clone();
            let chat = must_succeed(h, "SESSION_GET", json!({ "sessionId": id }));
            assert!(chat["messages"].is_array(), "a listed chat reads back: {chat}");
            let shown = json!({"projectId": chat["projectId"], "name": chat["name"],
                "userRenamed": chat["userRenamed"], "messages": chat["messages"]});
            state.insert(format!("chat {}", id.as_str().unwrap_or_default()), shown);
        }
    }
    if !stored.chat.is_empty() {
        let list = must_succeed(
            h,
            "DOCUMENT_SNAPSHOT_LIST",
            json!({"tabId": TAB, "projectId": "p1", "sessionId": stored.chat}),
        );
        for snapshot in list["snapshots"].as_array().into_iter().flatten() {
            let id = snapshot["id"].as_str().unwrap_or_default();
            let shown =
                json!({"kind": snapshot["kind"], "title": snapshot["title"], "fileLabel": snapshot["fileLabel"]});
            state.insert(format!("snapshot {id}"), shown);
        }
        let worker = &h.worker;
        let journal = Checkpoints::new(JournalStore::on(&worker.platform, &worker.store.queue));
        let record = futures::executor::block_on(journal.load(&stored.checkpoint)).expect("the journal reads");
        if let Some(record) = record {
            let status = record.meta.to_value()["status"].clone();
            state.insert(
                "checkpoint".to_owned(),
                json!({"status": status, "before": record.before_text}),
            );
        }
    }
    state.insert(
        "document".to_owned(),
        Value::from(h.platform().pages.page.borrow().doc.clone()),
    );
    state
}

fn fresh(action: &Action) -> (Fixture, Stored) {
    let (mut h, stored) = match action.profile {
        Profile::Usual => fixture(),
        Profile::Version1 => version1_fixture(),
        Profile::OldIndex => old_index_fixture(),
    };
    (action.setup)(&mut h);
    (h, stored)
}

/// What the action leaves when nothing fails, and how many writes it makes.
fn reference(action: &Action) -> (BTreeMap<String, Value>, BTreeMap<String, Value>, u64) {
    let (mut h, stored) = fresh(action);
    let before = read_state(&mut h, &stored);
    let (mut h, stored) = fresh(action);
    let storage = h.platform().browser.storage.clone();
    let start = storage.write_calls();
    let attempt = (action.act)(&mut h, &stored, 0);
    assert!(attempt.ok, "{}: {:?}", action.name, attempt.failures);
    let writes = storage.write_calls() - start;
    let after = read_state(&mut h, &stored);
    (before, after, writes)
}

/// The user did nothing.
fn nothing(_: &mut Fixture) {}

/// No state between before and after is resumable.
fn none(_: &str, _: Option<&Value>) -> bool {
    false
}

/// Whether chat `now` keeps every field and message of chat `before`, with
/// messages added after them.
fn extends(before: Option<&Value>, now: Option<&Value>) -> bool {
    let (Some(before), Some(now)) = (before, now) else {
        return false;
    };
    let (Some(old), Some(new)) = (before["messages"].as_array(), now["messages"].as_array()) else {
        return false;
    };
    let same_fields = ["projectId", "name", "userRenamed"].iter().all(|f| before[f] == now[f]);
    same_fields && new.len() >= old.len() && new[..old.len()] == old[..]
}

/// Checks one failed attempt (see the module documentation).
fn check_fault(
    action: &Action,
    at: u64,
    sticky: bool,
    before: &BTreeMap<String, Value>,
    done: &BTreeMap<String, Value>,
) {
    let case = format!("{}: write {at} fails (sticky: {sticky})", action.name);
    let (mut h, stored) = fresh(action);
    let storage = h.platform().browser.storage.clone();
    storage.fail_write_at(at, sticky, QUOTA);
    let attempt = (action.act)(&mut h, &stored, 0);
    assert!(storage.fault_fired(), "{case}: the write was reached");
    for (code, message) in &attempt.failures {
        let named = action
            .names
            .iter()
            .any(|name| message.contains(&format!("{} failed: ", name.subject())));
        assert!(named, "{case}: the failure names the action: {message}");
        assert!(
            code == "STORAGE_QUOTA_EXCEEDED" || (code == "snapshotWarning" && message.contains("storage is full")),
            "{case}: {code} {message}"
        );
    }
    storage.lift_faults();
    let after = read_state(&mut h, &stored);
    let keys: Vec<&String> = before.keys().chain(done.keys()).chain(after.keys()).collect();
    for key in keys {
        let now = after.get(key);
        let grown = action.compound && key.starts_with("chat ") && extends(before.get(key), now);
        let resumable = (action.resumable)(key, now);
        assert!(
            now == before.get(key) || now == done.get(key) || grown || resumable,
            "{case}: {key} is neither as before nor as after success: {now:?}\nbefore {:?}\nafter success {:?}",
            before.get(key),
            done.get(key)
        );
    }
    if attempt.failures.is_empty() && !action.compound {
        assert_eq!(
            &after, done,
            "{case}: a failure nobody was told of changed nothing visible"
        );
    }
    // A failure that was only best effort (an unreferenced body left
    // behind) did not fail the action; there is nothing to retry.
    if !attempt.ok {
        let retry = (action.act)(&mut h, &stored, 1);
        assert!(retry.ok, "{case}: the retry succeeds: {:?}", retry.failures);
    }
}

#[test]
fn every_write_of_every_action_can_fail_without_losing_data_or_silence() {
    for action in ACTIONS {
        let (before, done, writes) = reference(action);
        assert!(writes > 0, "{} writes something", action.name);
        for at in 1..=writes {
            for sticky in [false, true] {
                check_fault(action, at, sticky, &before, &done);
            }
        }
    }
}

#[test]
fn the_table_covers_every_storage_action() {
    use std::collections::HashSet;
    let covered: HashSet<StorageAction> = ACTIONS.iter().flat_map(|a| a.names.iter().copied()).collect();
    let all = [
        StorageAction::SaveSettings,
        StorageAction::SaveTheme,
        StorageAction::SaveCustomTools,
        StorageAction::SaveMcpServers,
        StorageAction::CreateChat,
        StorageAction::SaveChat,
        StorageAction::DeleteChat,
        StorageAction::DeleteProjectChats,
        StorageAction::ImportChats,
        StorageAction::MigrateChats,
        StorageAction::PrepareChats,
        StorageAction::SaveRunAnswer,
        StorageAction::SaveCheckpoint,
        StorageAction::RecordRevert,
        StorageAction::SaveSnapshot,
        StorageAction::DeleteSnapshot,
    ];
    for action in all {
        // A new variant fails to compile here until it is listed above.
        match action {
            StorageAction::SaveSettings
            | StorageAction::SaveTheme
            | StorageAction::SaveCustomTools
            | StorageAction::SaveMcpServers
            | StorageAction::CreateChat
            | StorageAction::SaveChat
            | StorageAction::DeleteChat
            | StorageAction::DeleteProjectChats
            | StorageAction::ImportChats
            | StorageAction::MigrateChats
            | StorageAction::PrepareChats
            | StorageAction::SaveRunAnswer
            | StorageAction::SaveCheckpoint
            | StorageAction::RecordRevert
            | StorageAction::SaveSnapshot
            | StorageAction::DeleteSnapshot => {}
        }
        assert!(covered.contains(&action), "{action:?} has a row");
    }
}
