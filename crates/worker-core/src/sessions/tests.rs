//! Behaviour of the chat repository against a storage that yields at every
//! call and can fail chosen writes, as the original's storage tests pinned
//! it down.

use super::limits::{MAX_NAME_CHARS, MAX_PREVIEW_CHARS, MAX_SEARCH_TEXT_CHARS};
use super::repository::{SessionChanges, TranscriptOutcome};
use super::*;
use crate::fakes::{FakeClock, HookedStorage, block_on};
use crate::platform::PlatformError;
use crate::platform::Storage;
use crate::storage::StorageError;
use futures::future::{join, join3};
use protocol::constants::storage_keys;
use protocol::limits::{MAX_SESSION_IMPORT_FILE_BYTES, MAX_SESSION_IMPORT_RECORDS, STORAGE_WARNING_BYTES};
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

const BODY: &str = storage_keys::SESSION_BODY_PREFIX;
const INDEX: &str = storage_keys::SESSION_INDEX;

struct Env {
    storage: HookedStorage,
    clock: FakeClock,
    store: SessionStore,
}

impl Env {
    fn new() -> Self {
        Env::with(HookedStorage::default())
    }

    fn with(storage: HookedStorage) -> Self {
        Env {
            storage,
            clock: FakeClock::default(),
            store: SessionStore::new(),
        }
    }

    fn repo(&self) -> Sessions<'_, HookedStorage, FakeClock> {
        Sessions::new(&self.storage, &self.clock, &self.store)
    }

    /// A new worker instance over the same storage.
    fn restart(&mut self) {
        self.store = SessionStore::new();
    }

    fn create(&self, project: &str, name: &str) -> Value {
        block_on(self.repo().create(project, Some(name))).expect("create")
    }

    fn set_messages(&self, id: &str, messages: Value) -> Result<Option<Value>, StorageError> {
        let changes = SessionChanges {
            messages: messages.as_array().cloned(),
            ..SessionChanges::default()
        };
        block_on(self.repo().update(id, changes))
    }

    fn get(&self, id: &str) -> Option<Value> {
        block_on(self.repo().get(id)).expect("get")
    }

    fn list(&self, project: &str) -> Result<Vec<Value>, StorageError> {
        block_on(self.repo().list(project))
    }

    fn index(&self) -> Value {
        self.storage.value(INDEX).unwrap_or_default()
    }

    fn body_keys(&self) -> Vec<String> {
        self.storage.keys_with(BODY)
    }
}

fn id_of(session: &Value) -> String {
    session["id"].as_str().unwrap_or_default().to_owned()
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text})
}

fn first_content(session: Option<Value>) -> Value {
    session.map(|s| s["messages"][0]["content"].clone()).unwrap_or_default()
}

fn fail_key(key: &'static str, message: &'static str) -> impl Fn(&str) -> Result<(), PlatformError> {
    move |written: &str| {
        if written == key {
            Err(PlatformError(message.to_owned()))
        } else {
            Ok(())
        }
    }
}

#[test]
fn concurrent_creates_updates_and_deletes_are_serialized() {
    let env = Env::new();
    let repo = env.repo();
    let (a, b, c) = block_on(join3(
        repo.create("project-a", Some("A")),
        repo.create("project-a", Some("B")),
        repo.create("project-b", Some("C")),
    ));
    let (a, b, c) = (a.expect("a"), b.expect("b"), c.expect("c"));
    assert_eq!(env.list("project-a").map(|l| l.len()), Ok(2));
    let repo = &repo;
    let update = |id: String, text: &'static str| async move {
        let changes = SessionChanges {
            messages: Some(vec![user(text)]),
            ..SessionChanges::default()
        };
        repo.update(&id, changes).await
    };
    let (first, second) = block_on(join(update(id_of(&a), "one"), update(id_of(&b), "two")));
    assert!(first.is_ok() && second.is_ok());
    assert_eq!(first_content(env.get(&id_of(&a))), json!("one"));
    assert_eq!(first_content(env.get(&id_of(&b))), json!("two"));
    let removed = block_on(repo.delete_by_project("project-a")).expect("delete");
    assert_eq!(removed, json!({"ok": true, "removed": 2}));
    assert_eq!(env.list("project-a").map(|l| l.len()), Ok(0));
    assert_eq!(env.get(&id_of(&c)).map(|s| s["name"].clone()), Some(json!("C")));
    assert_eq!(block_on(repo.delete(&id_of(&c))), Ok(json!({"ok": true, "removed": 1})));
    assert_eq!(env.body_keys(), Vec::<String>::new());
}

#[test]
fn a_read_holds_one_committed_version_while_an_update_waits() {
    let env = Env::new();
    let session = env.create("project", "Snapshot");
    let id = id_of(&session);
    assert!(env.set_messages(&id, json!([user("old")])).is_ok());
    let repo = env.repo();
    let changes = SessionChanges {
        messages: Some(vec![user("new")]),
        ..SessionChanges::default()
    };
    // The read's body read is slow: without the queue the update would
    // publish its body and remove the old one in between.
    let old_key = env.index()["sessions"][0]["bodyKey"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    env.storage.delay_reads_of(&old_key, 20);
    let (read, update) = block_on(join(repo.get(&id), repo.update(&id, changes)));
    assert_eq!(first_content(read.expect("read")), json!("old"));
    assert_eq!(first_content(update.expect("update")), json!("new"));
    assert_eq!(first_content(env.get(&id)), json!("new"));
}

#[test]
fn created_chats_have_the_original_shape() {
    let env = Env::new();
    let session = env.create("p", "");
    assert_eq!(
        session,
        json!({"id": "00000000-0000-4000-8000-000000000001", "projectId": "p", "name": "New chat", "messages": [],
            "createdAt": 1_700_000_000_000_i64, "updatedAt": 1_700_000_000_000_i64, "userRenamed": false})
    );
    let entry = env.index()["sessions"][0].clone();
    let key = entry["bodyKey"].as_str().unwrap_or_default().to_owned();
    assert!(key.starts_with(&format!("{BODY}{}.", id_of(&session))));
    assert_eq!(
        env.storage.value(&key),
        Some(json!({"version": 2, "id": id_of(&session), "messages": []}))
    );
    assert_eq!(
        entry["approxBytes"],
        json!(js_len(&json!({"version": 2, "id": id_of(&session), "messages": []})))
    );
    assert_eq!(env.index()["version"], json!(2));
    let long = env.create("p", &"n".repeat(300));
    assert_eq!(long["name"].as_str().map(str::len), Some(MAX_NAME_CHARS));
}

fn js_len(value: &Value) -> usize {
    protocol::js::json_stringify(value).len()
}

#[test]
fn the_body_is_written_before_the_index_and_an_oversized_update_keeps_the_old_chat() {
    let env = Env::new();
    let session = env.create("project", "Chat");
    let writes = env.storage.writes.borrow().clone();
    let body = writes.iter().position(|key| key.starts_with(BODY));
    let index = writes.iter().rposition(|key| key == INDEX);
    assert!(body.is_some() && body < index, "{writes:?}");
    let id = id_of(&session);
    assert!(env.set_messages(&id, json!([user("safe")])).is_ok());
    // Each message fits its own bound; together they pass 1 MiB.
    let big: Vec<Value> = (0..5).map(|_| user(&"x".repeat(250_000))).collect();
    let error = env.set_messages(&id, Value::Array(big)).expect_err("too large");
    assert_eq!(error.code().as_str(), "SESSION_TOO_LARGE");
    assert!(
        error.message.contains("1.19 MiB") && error.message.contains("not saved"),
        "{}",
        error.message
    );
    let huge = env.set_messages(&id, json!([user(&"x".repeat(1_048_577))]));
    assert_eq!(huge.map_err(|e| e.code().as_str()), Err("INVALID_SESSION_RECORD"));
    assert_eq!(first_content(env.get(&id)), json!("safe"));
    assert_eq!(env.body_keys().len(), 1);
}

#[test]
fn a_failed_index_write_leaves_the_prior_record_readable() {
    let env = Env::new();
    let session = env.create("project", "Chat");
    let id = id_of(&session);
    assert!(env.set_messages(&id, json!([user("committed")])).is_ok());
    let before = env.index();
    env.storage
        .before_set(fail_key(INDEX, "simulated interrupted index write"));
    let error = env
        .set_messages(&id, json!([user("uncommitted")]))
        .expect_err("index write fails");
    assert_eq!(error.code().as_str(), "STORAGE_WRITE_FAILED");
    assert!(error.message.contains("simulated interrupted index write"));
    env.storage.clear_hooks();
    assert_eq!(env.index(), before);
    assert_eq!(first_content(env.get(&id)), json!("committed"));
    // The staged body was removed again: only the published one is left.
    assert_eq!(
        env.body_keys(),
        vec![before["sessions"][0]["bodyKey"].as_str().unwrap_or_default().to_owned()]
    );
}

#[test]
fn a_failed_index_write_on_create_removes_the_staged_body() {
    let env = Env::new();
    let kept = env.create("p", "Kept");
    env.storage.before_set(fail_key(INDEX, "index refused"));
    let error = block_on(env.repo().create("p", Some("Lost"))).expect_err("index write fails");
    assert_eq!(error.code().as_str(), "STORAGE_WRITE_FAILED");
    env.storage.clear_hooks();
    assert_eq!(env.list("p").map(|l| l.len()), Ok(1));
    assert_eq!(env.body_keys().len(), 1);
    assert!(env.get(&id_of(&kept)).is_some());
}

#[test]
fn quota_failures_have_a_stable_code_and_do_not_poison_later_writes() {
    let env = Env::new();
    let refuse = Rc::new(Cell::new(true));
    let flag = Rc::clone(&refuse);
    env.storage.before_set(move |_| {
        if flag.get() {
            Err(PlatformError("QUOTA_BYTES quota exceeded".into()))
        } else {
            Ok(())
        }
    });
    let error = block_on(env.repo().create("p", Some("A"))).expect_err("quota");
    assert_eq!(error.code().as_str(), "STORAGE_QUOTA_EXCEEDED");
    assert!(error.message.contains("unsaved"));
    refuse.set(false);
    assert_eq!(env.create("p", "B")["name"], json!("B"));
}

#[test]
fn automatic_names_never_overwrite_a_manual_rename() {
    let env = Env::new();
    let id = id_of(&env.create("project", "New chat"));
    let rename = |name: &str, auto_name: bool, user_renamed: Option<bool>| {
        block_on(env.repo().update(
            &id,
            SessionChanges {
                name: Some(name.to_owned()),
                auto_name,
                user_renamed,
                ..SessionChanges::default()
            },
        ))
        .expect("update")
        .unwrap_or_default()
    };
    assert_eq!(rename("First generated", true, None)["name"], json!("First generated"));
    assert_eq!(
        rename("Second generated", true, None)["name"],
        json!("Second generated")
    );
    assert_eq!(rename("My title", false, Some(true))["userRenamed"], json!(true));
    let writes = env.storage.writes.borrow().len();
    let guarded = rename("Late generated title", true, None);
    assert_eq!(
        (guarded["name"].clone(), guarded["userRenamed"].clone()),
        (json!("My title"), json!(true))
    );
    assert_eq!(
        env.storage.writes.borrow().len(),
        writes,
        "a refused auto-name writes nothing"
    );
    assert_eq!(env.get(&id).map(|s| s["name"].clone()), Some(json!("My title")));
    assert_eq!(rename("", false, None)["name"], json!("New chat"));
}

#[test]
fn unknown_chats_read_as_null_and_missing_bodies_refuse_updates() {
    let env = Env::new();
    assert_eq!(env.get("nope"), None);
    assert_eq!(env.set_messages("nope", json!([])), Ok(None));
    assert_eq!(
        block_on(env.repo().delete("nope")),
        Ok(json!({"ok": true, "removed": 0}))
    );
    let id = id_of(&env.create("p", "A"));
    let key = env.index()["sessions"][0]["bodyKey"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    block_on(env.storage.inner.remove(&[key])).expect("remove");
    assert_eq!(env.get(&id), None);
    assert_eq!(
        env.set_messages(&id, json!([])).map_err(|e| e.code().as_str()),
        Err("SESSION_BODY_MISSING")
    );
}

#[test]
fn listing_returns_metadata_only_and_reads_a_body_only_when_selected() {
    let env = Env::new();
    env.create("project-a", "A");
    env.clock.advance(10.0);
    let b = env.create("project-a", "B");
    env.create("project-b", "C");
    let body_keys = env.body_keys();
    env.storage.reads.borrow_mut().clear();
    let listed = env.list("project-a").expect("list");
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[0]["id"], b["id"], "newest first");
    for item in &listed {
        for hidden in ["messages", "bodyKey", "searchText"] {
            assert_eq!(item.get(hidden), None, "{hidden}");
        }
        assert_eq!(item["preview"], json!(""));
    }
    assert!(env.storage.reads.borrow().iter().all(|key| !body_keys.contains(key)));
    env.get(&id_of(&b));
    assert!(env.storage.reads.borrow().iter().any(|key| body_keys.contains(key)));
}

#[test]
fn previews_and_search_text_are_maintained() {
    let env = Env::new();
    let id = id_of(&env.create("p", "A"));
    let messages = json!([
        {"role": "assistant", "content": "  Hello\n\nthere  "},
        {"role": "user", "content": format!("First   QUESTION {}", "q".repeat(300))},
        {"role": "user", "content": "second"},
    ]);
    assert!(env.set_messages(&id, messages).is_ok());
    let entry = env.index()["sessions"][0].clone();
    let preview = entry["preview"].as_str().unwrap_or_default();
    assert!(preview.starts_with("First QUESTION qqq"));
    assert_eq!(preview.len(), MAX_PREVIEW_CHARS);
    let search = entry["searchText"].as_str().unwrap_or_default();
    assert!(search.starts_with("hello there first question"));
    assert!(search.ends_with(" second"));
    assert_eq!(entry["messageCount"], json!(3));
    let long: Vec<Value> = (0..3).map(|_| user(&"w".repeat(3_000))).collect();
    assert!(env.set_messages(&id, Value::Array(long)).is_ok());
    let search = env.index()["sessions"][0]["searchText"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(search.len(), MAX_SEARCH_TEXT_CHARS + 1, "two parts joined by one space");
}

#[test]
fn invalid_indexes_fail_closed_without_touching_bodies() {
    let key = format!("{BODY}preserved.version");
    for index in [
        json!({"version": 999, "sessions": []}),
        json!({"version": 2, "sessions": {}}),
        json!({"version": 2, "sessions": [{"id": "x", "projectId": "p", "name": "n", "createdAt": 1, "updatedAt": 1,
            "messageCount": 1.5, "approxBytes": 1}]}),
        json!({"version": 2, "sessions": [{"id": "x", "projectId": "p", "name": "n", "createdAt": 1, "updatedAt": 1,
            "messageCount": 1, "approxBytes": 1, "bodyKey": "elsewhere"}]}),
        json!({"version": 2, "sessions": [{"id": "", "projectId": "p", "name": "n", "createdAt": 1, "updatedAt": 1,
            "messageCount": 1, "approxBytes": 1}]}),
        json!("garbage"),
    ] {
        let storage = HookedStorage::with(&[
            (INDEX, index.clone()),
            (storage_keys::SESSION_MIGRATION, json!({"version": 2, "complete": true})),
            (
                &key,
                json!({"version": 2, "id": "preserved", "messages": [user("keep me")]}),
            ),
        ]);
        let env = Env::with(storage);
        assert_eq!(
            env.list("p").map_err(|e| e.code().as_str()),
            Err("SESSION_INDEX_INVALID"),
            "{index}"
        );
        let create = block_on(env.repo().create("p", None));
        assert_eq!(create.map_err(|e| e.code().as_str()), Err("SESSION_INDEX_INVALID"));
        assert_eq!(
            env.storage.value(&key).map(|b| b["messages"][0]["content"].clone()),
            Some(json!("keep me"))
        );
        assert_eq!(env.storage.value(INDEX), Some(index));
    }
}

#[test]
fn an_index_damaged_after_start_still_fails_closed() {
    let env = Env::new();
    let id = id_of(&env.create("p", "A"));
    env.storage.put(INDEX, json!({"version": 2, "sessions": [{"id": id}]}));
    assert_eq!(
        env.list("p").map_err(|e| e.code().as_str()),
        Err("SESSION_INDEX_INVALID")
    );
    assert_eq!(
        block_on(env.repo().delete(&id)).map_err(|e| e.code().as_str()),
        Err("SESSION_INDEX_INVALID")
    );
    assert_eq!(env.body_keys().len(), 1);
}

#[test]
fn a_missing_index_with_bodies_fails_closed() {
    let key = format!("{BODY}preserved.version");
    let storage = HookedStorage::with(&[
        (storage_keys::SESSION_MIGRATION, json!({"version": 2, "complete": true})),
        (&key, json!({"version": 2, "id": "preserved", "messages": []})),
    ]);
    let env = Env::with(storage);
    assert_eq!(
        env.list("p").map_err(|e| e.code().as_str()),
        Err("SESSION_INDEX_MISSING")
    );
    let create = block_on(env.repo().create("p", None));
    assert_eq!(create.map_err(|e| e.code().as_str()), Err("SESSION_INDEX_MISSING"));
    assert_eq!(env.storage.value(INDEX), None);
    assert!(env.storage.value(&key).is_some());
}

#[test]
fn a_missing_index_resumes_migration_only_when_every_body_is_legacy_data() {
    let legacy = json!([{"id": "legacy", "projectId": "p", "name": "Legacy", "messages": []}]);
    let unrelated = format!("{BODY}newer.version");
    let storage = HookedStorage::with(&[
        (storage_keys::SESSIONS, legacy.clone()),
        (
            &unrelated,
            json!({"version": 2, "id": "newer", "messages": [user("preserve newer data")]}),
        ),
    ]);
    let env = Env::with(storage);
    assert_eq!(
        env.list("p").map_err(|e| e.code().as_str()),
        Err("SESSION_INDEX_MISSING")
    );
    assert_eq!(env.storage.value(INDEX), None);
    assert!(env.storage.value(&unrelated).is_some());
    assert_eq!(env.storage.value(storage_keys::SESSIONS), Some(legacy.clone()));

    // A body that is exactly what the migration writes lets it resume.
    let own = format!("{BODY}legacy.first-attempt");
    let storage = HookedStorage::with(&[
        (storage_keys::SESSIONS, legacy),
        (&own, json!({"version": 2, "id": "legacy", "messages": []})),
    ]);
    let env = Env::with(storage);
    let listed = env.list("p").expect("migrated");
    assert_eq!(listed.len(), 1);
    assert_eq!(env.body_keys().len(), 1, "the earlier attempt's body was cleaned up");
}

#[test]
fn old_index_entries_get_their_summaries_once() {
    let key = format!("{BODY}old.version");
    let storage = HookedStorage::with(&[
        (storage_keys::SESSION_MIGRATION, json!({"version": 2, "complete": true})),
        (
            INDEX,
            json!({"version": 2, "sessions": [{"id": "old", "projectId": "p", "name": "Old", "createdAt": 1,
                "updatedAt": 2, "messageCount": 1, "approxBytes": 100, "bodyKey": key, "userRenamed": false}]}),
        ),
        (
            &key,
            json!({"version": 2, "id": "old", "messages": [user("Searchable old message")]}),
        ),
    ]);
    let env = Env::with(storage);
    let listed = env.list("p").expect("list");
    assert_eq!(listed[0]["preview"], json!("Searchable old message"));
    assert_eq!(listed[0].get("searchText"), None);
    assert_eq!(
        env.index()["sessions"][0]["searchText"],
        json!("searchable old message")
    );
}

#[test]
fn legacy_body_keys_without_a_version_are_still_read() {
    let key = format!("{BODY}old");
    let storage = HookedStorage::with(&[
        (storage_keys::SESSION_MIGRATION, json!({"version": 2, "complete": true})),
        (
            INDEX,
            json!({"version": 2, "sessions": [{"id": "old", "projectId": "p", "name": "Old", "createdAt": 1,
                "updatedAt": 2, "messageCount": 1, "approxBytes": 10, "preview": "", "searchText": ""}]}),
        ),
        (&key, json!({"version": 2, "id": "old", "messages": [user("hi")]})),
    ]);
    let env = Env::with(storage);
    assert_eq!(first_content(env.get("old")), json!("hi"));
    assert!(env.set_messages("old", json!([user("next")])).is_ok());
    assert_eq!(env.storage.value(&key), None, "the unversioned body was replaced");
    assert_eq!(first_content(env.get("old")), json!("next"));
}

#[test]
fn orphan_bodies_are_removed_on_the_first_use_of_each_worker_instance() {
    let mut env = Env::new();
    let id = id_of(&env.create("p", "A"));
    let orphan = format!("{BODY}{id}.left-by-a-crash");
    env.storage
        .put(&orphan, json!({"version": 2, "id": id, "messages": []}));
    assert!(env.list("p").is_ok());
    assert!(env.storage.value(&orphan).is_some(), "checked once per instance only");
    env.restart();
    assert!(env.list("p").is_ok());
    assert_eq!(env.storage.value(&orphan), None);
    assert!(env.get(&id).is_some());
}

#[test]
fn a_failed_old_body_removal_leaves_an_orphan_for_the_next_start() {
    let mut env = Env::new();
    let id = id_of(&env.create("p", "A"));
    let first_key = env.body_keys();
    env.storage.before_remove(|_| Err(PlatformError("busy".into())));
    assert!(
        env.set_messages(&id, json!([user("v2")])).is_ok(),
        "removal failures are not errors"
    );
    env.storage.clear_hooks();
    assert_eq!(env.body_keys().len(), 2);
    env.restart();
    assert_eq!(first_content(env.get(&id)), json!("v2"));
    assert_eq!(env.body_keys().len(), 1);
    assert_ne!(env.body_keys(), first_key);
}

#[test]
fn legacy_chats_migrate_once_with_display_only_attachment_markers() {
    let legacy = json!([{"id": "legacy-1", "projectId": "p", "name": "Old", "createdAt": 1, "updatedAt": 2,
        "messages": [{"role": "user", "content": "hello", "sentAttachments": {"document": true, "diagnosticsCount": 3}}]}]);
    let env = Env::with(HookedStorage::with(&[(storage_keys::SESSIONS, legacy)]));
    let listed = env.list("p").expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["createdAt"], json!(1));
    let loaded = env.get(&id_of(&listed[0])).expect("migrated");
    assert_eq!(loaded["messages"][0]["sentAttachments"]["legacyDocument"], json!(true));
    assert_eq!(
        loaded["messages"][0]["sentAttachments"]["legacyDiagnosticsCount"],
        json!(3)
    );
    assert_eq!(env.storage.value(storage_keys::SESSIONS), None);
    let marker = env.storage.value(storage_keys::SESSION_MIGRATION).unwrap_or_default();
    assert_eq!(marker["complete"], json!(true));
    assert_eq!(marker["completedIds"], json!(["legacy-1"]));
}

#[test]
fn legacy_migration_keeps_every_record_when_ids_collide_and_backs_up_rejections() {
    let legacy = json!([
        {"id": "duplicate", "projectId": "p", "name": "First", "messages": [user("one")]},
        {"id": "duplicate", "projectId": "p", "name": "Second", "messages": [user("two")]},
        {"projectId": "p", "name": "No id", "messages": [user("three")]},
        {"projectId": "p", "messages": "broken"},
    ]);
    let env = Env::with(HookedStorage::with(&[(storage_keys::SESSIONS, legacy)]));
    let listed = env.list("p").expect("list");
    // The broken record is counted as rejected, as the original counts it,
    // but it is backed up as stored and migrated as an empty chat.
    assert_eq!(listed.len(), 4);
    let repaired = listed
        .iter()
        .find(|s| s["name"] == json!("Imported chat"))
        .expect("repaired");
    assert_eq!(repaired["messageCount"], json!(0));
    let backup = env
        .storage
        .value(storage_keys::SESSION_MIGRATION_BACKUP)
        .unwrap_or_default();
    assert_eq!(
        backup["records"],
        json!([{"legacyIndex": 3, "reason": "Chat messages must be an array.", "migratedAs": repaired["id"],
            "record": {"projectId": "p", "messages": "broken"}}])
    );
    let listed: Vec<Value> = listed
        .into_iter()
        .filter(|s| s["name"] != json!("Imported chat"))
        .collect();
    let ids: Vec<String> = listed.iter().map(id_of).collect();
    assert!(ids.iter().any(|id| id.starts_with("duplicate-legacy-0-")));
    assert!(ids.iter().any(|id| id.starts_with("duplicate-legacy-1-")));
    let derived = format!("legacy-2-{}", fingerprint::stable_id("p\u{0}No id"));
    assert!(ids.contains(&derived), "{ids:?}");
    let mut contents: Vec<Value> = ids.iter().map(|id| first_content(env.get(id))).collect();
    contents.sort_by_key(Value::to_string);
    assert_eq!(contents, [json!("one"), json!("three"), json!("two")]);
    let marker = env.storage.value(storage_keys::SESSION_MIGRATION).unwrap_or_default();
    assert_eq!(marker["rejected"], json!(1));
    assert!(
        marker["completedIds"]
            .as_array()
            .is_some_and(|ids| ids.contains(&json!("legacy-index-3")))
    );
}

#[test]
fn legacy_migration_resumes_after_every_write_phase_and_cleans_orphans() {
    let legacy = json!([
        {"id": "legacy-a", "projectId": "p", "name": "A", "createdAt": 1, "updatedAt": 2, "messages": [user("one")]},
        {"id": "legacy-b", "projectId": "p", "name": "B", "createdAt": 3, "updatedAt": 4, "messages": [user("two")]},
    ]);
    for fail_at in 1..=7_usize {
        let mut env = Env::with(HookedStorage::with(&[(storage_keys::SESSIONS, legacy.clone())]));
        let writes = Rc::new(Cell::new(0_usize));
        let counter = Rc::clone(&writes);
        env.storage.before_set(move |_| {
            counter.set(counter.get() + 1);
            if counter.get() == fail_at {
                Err(PlatformError(format!("interrupt-{fail_at}")))
            } else {
                Ok(())
            }
        });
        let error = env.list("p").expect_err("interrupted");
        assert!(
            error.message.contains(&format!("interrupt-{fail_at}")),
            "phase {fail_at}"
        );
        env.restart();
        let mut recovered: Vec<String> = env.list("p").expect("recovered").iter().map(id_of).collect();
        recovered.sort();
        assert_eq!(recovered, ["legacy-a", "legacy-b"], "phase {fail_at}");
        let marker = env.storage.value(storage_keys::SESSION_MIGRATION).unwrap_or_default();
        assert_eq!(marker["complete"], json!(true), "phase {fail_at}");
        assert_eq!(env.storage.value(storage_keys::SESSIONS), None, "phase {fail_at}");
        let mut referenced: Vec<String> = env.index()["sessions"]
            .as_array()
            .map(|s| {
                s.iter()
                    .filter_map(|m| m["bodyKey"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        referenced.sort();
        assert_eq!(env.body_keys(), referenced, "phase {fail_at}");
    }
}

#[test]
fn a_completed_migration_retries_the_legacy_key_removal() {
    let legacy = json!([{"id": "legacy", "projectId": "p", "name": "A", "messages": []}]);
    let mut env = Env::with(HookedStorage::with(&[(storage_keys::SESSIONS, legacy)]));
    let failed = Rc::new(Cell::new(false));
    let flag = Rc::clone(&failed);
    env.storage.before_remove(move |key| {
        if key == storage_keys::SESSIONS && !flag.get() {
            flag.set(true);
            Err(PlatformError("remove interrupted".into()))
        } else {
            Ok(())
        }
    });
    assert!(env.list("p").is_err_and(|e| e.message.contains("remove interrupted")));
    assert_eq!(
        env.storage
            .value(storage_keys::SESSION_MIGRATION)
            .map(|m| m["complete"].clone()),
        Some(json!(true))
    );
    env.restart();
    assert_eq!(env.list("p").map(|l| l.len()), Ok(1));
    assert_eq!(env.storage.value(storage_keys::SESSIONS), None);
}

#[test]
fn oversized_legacy_chats_are_kept_and_marked() {
    let big: Vec<Value> = (0..5).map(|_| user(&"x".repeat(250_000))).collect();
    let legacy = json!([{"id": "big", "projectId": "p", "name": "Big", "messages": big}]);
    let env = Env::with(HookedStorage::with(&[(storage_keys::SESSIONS, legacy)]));
    assert_eq!(env.list("p").map(|l| l.len()), Ok(1));
    let key = env.index()["sessions"][0]["bodyKey"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        env.storage.value(&key).map(|b| b["oversizedLegacy"].clone()),
        Some(json!(true))
    );
    assert_eq!(
        env.get("big").map(|s| s["messages"].as_array().map(Vec::len)),
        Some(Some(5))
    );
}

fn import(env: &Env, data: Value) -> Result<Value, StorageError> {
    block_on(env.repo().import(&data))
}

#[test]
fn imports_reject_malformed_records_and_bound_what_they_keep() {
    let env = Env::new();
    let valid = json!({"id": "imported", "projectId": "p", "name": "Imported", "messages": [
        {"role": "user", "content": "hello", "activeEditorFile": {"projectLabel": "Project",
            "relativePath": "chapters/intro.typ", "basename": "intro.typ", "source": "header_breadcrumb",
            "confidence": "high"},
         "sentAttachments": {"previews": [
            {"dataUrl": "https://remote.example/image.png"},
            {"dataUrl": "data:image/webp;base64,AAAA", "width": 1, "height": 1, "mimeType": "image/webp",
             "thumbnail": true}]}},
        {"role": "assistant", "content": "done", "segments": [{"type": "tools",
            "calls": [{"id": "c", "name": "external", "args": {}}],
            "results": {"c": {"ok": true, "data": "x".repeat(10_000)}}}]},
    ]});
    let result = import(
        &env,
        json!({"version": 2, "sessions": [valid, {"projectId": "p", "messages": "bad"}]}),
    );
    assert_eq!(
        result,
        Ok(json!({"ok": true, "imported": 1, "rejected": 1, "renamed": 0}))
    );
    let listed = env.list("p").expect("list");
    assert_eq!(listed[0]["id"], json!("imported"));
    let imported = env.get("imported").expect("imported");
    assert_eq!(
        imported["messages"][0]["activeEditorFile"]["relativePath"],
        json!("chapters/intro.typ")
    );
    assert_eq!(
        imported["messages"][0]["sentAttachments"]["previews"][0]["omitted"],
        json!(true)
    );
    assert_eq!(
        imported["messages"][0]["sentAttachments"]["previews"][1]["thumbnail"],
        json!(true)
    );
    let summary = imported["messages"][1]["segments"][0]["results"]["c"]["summary"]
        .as_str()
        .unwrap_or_default();
    assert!(protocol::js::utf16_len(summary) <= 4_001);
    let exported = block_on(env.repo().export()).expect("export");
    assert_eq!(exported["version"], json!(2));
    assert_eq!(exported["format"], json!("typst-side-agent-sessions"));
    assert_eq!(
        exported["retention"],
        json!({"previewMaxBytes": 204_800, "toolResultMaxChars": 4_000, "sessionMaxBytes": 1_048_576})
    );
    assert_eq!(exported["sessions"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        exported["sessions"][0]["messages"][0]["activeEditorFile"]["relativePath"],
        json!("chapters/intro.typ")
    );
}

#[test]
fn imports_accept_bare_arrays_and_version_one_and_refuse_other_versions() {
    let env = Env::new();
    assert_eq!(
        import(&env, json!([{"id": "a", "messages": []}])),
        Ok(json!({"ok": true, "imported": 1, "rejected": 0, "renamed": 0}))
    );
    assert_eq!(
        import(&env, json!({"version": 1, "sessions": [{"id": "a", "messages": []}]})),
        Ok(json!({"ok": true, "imported": 1, "rejected": 0, "renamed": 1}))
    );
    let ids: Vec<String> = env.list("").expect("list").iter().map(id_of).collect();
    assert_eq!(ids.len(), 2);
    assert!(
        ids.contains(&"a".to_owned()),
        "the first keeps its id, the colliding one gets a new id"
    );
    assert_eq!(env.get("a").map(|s| s["name"].clone()), Some(json!("Imported chat")));
    for bad in [
        json!({"version": 3, "sessions": []}),
        json!({"version": 2}),
        json!({"version": "x", "sessions": []}),
    ] {
        assert_eq!(
            import(&env, bad.clone()).map_err(|e| e.code().as_str()),
            Err("UNSUPPORTED_IMPORT_VERSION"),
            "{bad}"
        );
    }
}

#[test]
fn imports_enforce_the_record_limit_before_writing_anything() {
    let env = Env::new();
    let records: Vec<Value> = (0..=MAX_SESSION_IMPORT_RECORDS)
        .map(|i| json!({"id": format!("too-many-{i}"), "projectId": "p", "messages": []}))
        .collect();
    assert_eq!(
        import(&env, Value::Array(records)).map_err(|e| e.code().as_str()),
        Err("SESSION_IMPORT_RECORD_LIMIT")
    );
    assert_eq!(env.body_keys(), Vec::<String>::new());
}

#[test]
fn imports_larger_than_the_originals_file_bound_are_refused_before_anything_is_read() {
    let env = Env::new();
    let text = "z".repeat(MAX_SESSION_IMPORT_FILE_BYTES as usize);
    let data = json!([{"id": "big", "projectId": "p", "messages": [{"role": "user", "content": text}]}]);
    assert_eq!(
        import(&env, data).map_err(|e| e.code().as_str()),
        Err("SESSION_IMPORT_SIZE_LIMIT")
    );
    assert_eq!(env.body_keys(), Vec::<String>::new());
}

#[test]
fn imports_enforce_the_aggregate_size_and_reject_oversized_records() {
    let env = Env::new();
    let big = |id: &str| {
        let messages: Vec<Value> = (0..4).map(|_| user(&"x".repeat(250_000))).collect();
        json!({"id": id, "messages": messages})
    };
    let too_large = json!({"id": "huge", "messages": (0..5).map(|_| user(&"x".repeat(250_000))).collect::<Vec<_>>()});
    assert_eq!(
        import(&env, json!([big("a"), too_large])),
        Ok(json!({"ok": true, "imported": 1, "rejected": 1, "renamed": 0}))
    );
    let records: Vec<Value> = (0..9).map(|i| big(&format!("b{i}"))).collect();
    assert_eq!(
        import(&env, Value::Array(records)).map_err(|e| e.code().as_str()),
        Err("SESSION_IMPORT_SIZE_LIMIT")
    );
    assert_eq!(env.body_keys().len(), 1, "an aborted import writes nothing");
}

#[test]
fn a_failed_import_publication_rolls_back_every_written_body() {
    let env = Env::new();
    let existing = id_of(&env.create("p", "Existing"));
    let index = env.index();
    let keys = env.body_keys();
    env.storage.before_set(fail_key(INDEX, "index publication failed"));
    let records = json!([{"id": "imported", "projectId": "p", "messages": [user("new")]}, {"messages": []}]);
    assert!(import(&env, records).is_err_and(|e| e.message.contains("index publication failed")));
    env.storage.clear_hooks();
    assert_eq!(env.index(), index);
    assert_eq!(env.body_keys(), keys);
    assert_eq!(env.get(&existing).map(|s| s["name"].clone()), Some(json!("Existing")));
}

#[test]
fn imports_reject_coerced_objects_and_unknown_segments() {
    let env = Env::new();
    let records = json!([
        {"id": "object-content", "projectId": "p", "messages": [{"role": "user", "content": {"toString": "hostile"}}]},
        {"id": "unknown-segment", "projectId": "p", "messages": [{"role": "assistant", "content": "",
            "segments": [{"type": "html", "content": "<img src=x>"}]}]},
        {"id": "bad-tool-json", "projectId": "p", "messages": [{"role": "assistant", "content": "",
            "toolCalls": [{"id": "c", "function": {"name": "read_document", "arguments": "{"}}]}]},
    ]);
    assert_eq!(
        import(&env, json!({"version": 2, "sessions": records})),
        Ok(json!({"ok": true, "imported": 0, "rejected": 3, "renamed": 0}))
    );
    assert_eq!(env.list("p").map(|l| l.len()), Ok(0));
}

fn seed_journals(env: &Env, sessions: &[(&str, &str)]) {
    let mut checkpoints = Vec::new();
    let mut snapshots = Vec::new();
    for (index, (project, session)) in sessions.iter().enumerate() {
        let checkpoint_key = format!("{}edit-{index}", storage_keys::EDIT_CHECKPOINT_BODY_PREFIX);
        env.storage.put(
            &checkpoint_key,
            json!({"version": 1, "id": format!("edit-{index}"), "beforeText": "private"}),
        );
        let hash = protocol::edit_checkpoint::sha256_text("private");
        checkpoints.push(json!({
            "id": format!("edit-{index}"), "projectId": project, "sessionId": session, "runId": "run",
            "callId": "call", "fileLabel": "main.typ", "status": "applied", "previousStatus": "",
            "beforeHash": hash, "beforeLength": 7, "afterHash": hash, "afterLength": 7,
            "pendingAfterHash": null, "pendingAfterLength": null, "previousAfterHash": null,
            "previousAfterLength": null, "createdAt": 1, "updatedAt": 1, "approxBytes": 50,
            "bodyKey": checkpoint_key,
        }));
        for kind in ["automatic", "manual"] {
            let id = format!("snapshot-{kind}-{index}");
            let key = format!("{}{id}", storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX);
            env.storage.put(&key, json!({"version": 1, "id": id, "text": "doc"}));
            let (session_id, run_id) = if kind == "automatic" {
                (json!(session), json!("run"))
            } else {
                (Value::Null, Value::Null)
            };
            snapshots.push(json!({
                "id": id, "kind": kind, "projectId": project, "fileLabel": "main.typ", "title": "Copy",
                "textHash": protocol::edit_checkpoint::sha256_text("doc"), "textLength": 3, "createdAt": 1,
                "approxBytes": 40, "sessionId": session_id, "runId": run_id, "bodyKey": key,
            }));
        }
    }
    env.storage.put(
        storage_keys::EDIT_CHECKPOINT_INDEX,
        json!({"version": 1, "entries": checkpoints}),
    );
    env.storage.put(
        storage_keys::DOCUMENT_SNAPSHOT_INDEX,
        json!({"version": 1, "entries": snapshots}),
    );
}

fn entry_ids(env: &Env, key: &str) -> Vec<String> {
    env.storage
        .value(key)
        .and_then(|index| {
            index["entries"]
                .as_array()
                .map(|e| e.iter().filter_map(|x| x["id"].as_str().map(str::to_owned)).collect())
        })
        .unwrap_or_default()
}

#[test]
fn deleting_chats_removes_their_checkpoints_and_automatic_snapshots() {
    let env = Env::new();
    let first = id_of(&env.create("project-delete", "First"));
    let second = id_of(&env.create("project-delete", "Second"));
    let third = id_of(&env.create("project-keep", "Third"));
    seed_journals(
        &env,
        &[
            ("project-delete", &first),
            ("project-delete", &second),
            ("project-keep", &third),
        ],
    );
    assert!(block_on(env.repo().delete(&first)).is_ok());
    assert_eq!(
        entry_ids(&env, storage_keys::EDIT_CHECKPOINT_INDEX),
        ["edit-1", "edit-2"]
    );
    let snapshots = entry_ids(&env, storage_keys::DOCUMENT_SNAPSHOT_INDEX);
    assert!(!snapshots.contains(&"snapshot-automatic-0".to_owned()));
    assert!(
        snapshots.contains(&"snapshot-manual-0".to_owned()),
        "manual snapshots survive chat deletion"
    );
    assert!(env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX).len() == 2);
    assert!(block_on(env.repo().delete_by_project("project-delete")).is_ok());
    assert_eq!(entry_ids(&env, storage_keys::EDIT_CHECKPOINT_INDEX), ["edit-2"]);
    assert_eq!(
        entry_ids(&env, storage_keys::DOCUMENT_SNAPSHOT_INDEX),
        [
            "snapshot-manual-0",
            "snapshot-manual-1",
            "snapshot-automatic-2",
            "snapshot-manual-2"
        ]
    );
    assert_eq!(
        env.storage.keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX).len(),
        4
    );
}

#[test]
fn a_damaged_checkpoint_journal_stops_the_delete() {
    let env = Env::new();
    let id = id_of(&env.create("p", "A"));
    env.storage.put(
        storage_keys::EDIT_CHECKPOINT_INDEX,
        json!({"version": 7, "entries": []}),
    );
    let result = block_on(env.repo().delete(&id));
    assert_eq!(
        result.map_err(|e| e.code().as_str()),
        Err("EDIT_CHECKPOINT_INDEX_INVALID")
    );
    assert!(env.get(&id).is_some());
}

#[test]
fn exports_leave_out_local_state_and_imported_receipts_are_unavailable() {
    let env = Env::new();
    seed_journals(&env, &[("p", "session-export")]);
    let id = id_of(&env.create("p", "Exported"));
    let messages = json!([{"role": "assistant", "content": "Changed it.", "responseStatus": "complete",
        "editorStateUpdates": [{"kind": "snapshot-restored", "snapshotId": "snapshot-one", "fileLabel": "main.typ",
            "restoredAt": 100}],
        "segments": [{"type": "tools",
            "calls": [{"id": "call-export", "name": "search_replace", "args": {"search": "a", "replace": "b"}}],
            "results": {"call-export": {"ok": true, "edits_applied": 1, "editCheckpoint": {
                "id": "edit-0", "status": "applied", "fileLabel": "main.typ", "createdAt": 100}}}}]}]);
    assert!(env.set_messages(&id, messages).is_ok());
    let local = env.get(&id).expect("stored");
    assert_eq!(
        local["messages"][0]["editorStateUpdates"][0]["snapshotId"],
        json!("snapshot-one")
    );
    assert_eq!(local["messages"][0]["responseStatus"], json!("complete"));
    let exported = block_on(env.repo().export()).expect("export");
    let text = exported.to_string();
    assert!(!text.contains("private") && !text.contains(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX));
    assert!(!text.contains("bodyKey") && !text.contains("searchText"));
    let message = &exported["sessions"][0]["messages"][0];
    assert_eq!(message.get("editorStateUpdates"), None);
    assert_eq!(message["responseStatus"], json!("complete"));

    let target = Env::new();
    assert_eq!(
        import(&target, exported),
        Ok(json!({"ok": true, "imported": 1, "rejected": 0, "renamed": 0}))
    );
    let imported = target.get(&id).expect("imported");
    let receipt = &imported["messages"][0]["segments"][0]["results"]["call-export"]["editCheckpoint"];
    assert_eq!(receipt["status"], json!("unavailable"));
    assert!(
        receipt["unavailableReason"]
            .as_str()
            .is_some_and(|r| r.contains("not included"))
    );
    assert_eq!(imported["messages"][0].get("responseStatus"), None);
    assert_eq!(imported["messages"][0].get("editorStateUpdates"), None);
    assert!(
        target
            .storage
            .keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX)
            .is_empty()
    );
}

#[test]
fn an_export_import_round_trip_keeps_the_chats() {
    let env = Env::new();
    let a = id_of(&env.create("p1", "First"));
    env.clock.advance(5.0);
    let b = id_of(&env.create("p2", "Second"));
    let messages = json!([
        {"role": "user", "content": "q", "sentAttachments": {"selections": [{"text": "sel", "fileLabel": "a.typ"}]}},
        {"role": "assistant", "content": "answer", "reasoning": "r",
         "segments": [{"type": "reasoning", "content": "r"}, {"type": "text", "content": "answer"},
             {"type": "tools", "calls": [{"id": "c1", "name": "read_document", "args": {"start_line": 1}}],
              "results": {"c1": {"ok": true, "doc_chars": 3, "content": "abc"}}}],
         "toolCalls": [{"id": "c1", "name": "read_document", "args": {"start_line": 1}}]},
    ]);
    assert!(env.set_messages(&a, messages).is_ok());
    let exported = block_on(env.repo().export()).expect("export");
    let target = Env::new();
    assert_eq!(
        import(&target, exported.clone()),
        Ok(json!({"ok": true, "imported": 2, "rejected": 0, "renamed": 0}))
    );
    let again = block_on(target.repo().export()).expect("export again");
    assert_eq!(again["sessions"], exported["sessions"]);
    assert_eq!(
        target.get(&a).map(|s| s["messages"].clone()),
        env.get(&a).map(|s| s["messages"].clone())
    );
    assert_eq!(target.get(&b).map(|s| s["projectId"].clone()), Some(json!("p2")));
}

#[test]
fn grouping_and_storage_status() {
    let env = Env::new();
    let a = id_of(&env.create("p", "A"));
    assert!(env.set_messages(&a, json!([user("Hello")])).is_ok());
    env.clock.advance(100.0);
    let b = id_of(&env.create("q", "B"));
    assert!(env.set_messages(&b, json!([user("x"), user("y")])).is_ok());
    let groups = block_on(env.repo().list_all_grouped()).expect("groups");
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["projectId"], json!("q"), "most recent activity first");
    assert_eq!(groups[1]["totalMessages"], json!(1));
    assert_eq!(groups[1]["sessions"][0]["searchText"], json!("hello"));
    assert_eq!(groups[1]["sessions"][0].get("bodyKey"), None);
    assert_eq!(groups[0]["lastActivity"], json!(1_700_000_000_100_i64));
    let status = block_on(env.repo().storage_status()).expect("status");
    assert!(status["bytes"].as_u64().is_some_and(|b| b > 0));
    assert_eq!(status["warning"], json!(false));
    assert_eq!(status["warningThreshold"], json!(STORAGE_WARNING_BYTES));
    env.storage
        .put("filler", json!("x".repeat(STORAGE_WARNING_BYTES as usize)));
    assert_eq!(
        block_on(env.repo().storage_status()).map(|s| s["warning"].clone()),
        Ok(json!(true))
    );
}

fn answer(content: &str, status: &str) -> Value {
    json!({"role": "assistant", "content": content, "responseStatus": status,
        "segments": [{"type": "text", "content": content}]})
}

#[test]
fn run_transcripts_append_or_update_the_final_answer() {
    let env = Env::new();
    let id = id_of(&env.create("p", "Chat"));
    let start = [user("question")];
    let persist = |entry: Value| block_on(env.repo().persist_run_transcript(&id, &start, &entry));
    assert_eq!(
        persist(answer("partial", "incomplete")),
        Ok(TranscriptOutcome::Appended)
    );
    let stored = env.get(&id).expect("chat");
    assert_eq!(
        stored["messages"],
        json!([user("question"), answer("partial", "incomplete")])
    );
    assert_eq!(
        persist(answer("partial", "incomplete")),
        Ok(TranscriptOutcome::Unchanged)
    );
    assert_eq!(
        persist(answer("partial", "complete")),
        Ok(TranscriptOutcome::StatusUpdated)
    );
    let stored = env.get(&id).expect("chat");
    assert_eq!(stored["messages"].as_array().map(Vec::len), Some(2));
    assert_eq!(stored["messages"][1]["responseStatus"], json!("complete"));
    // A different answer is appended after what is stored.
    assert_eq!(persist(answer("another", "complete")), Ok(TranscriptOutcome::Appended));
    assert_eq!(
        env.get(&id).map(|s| s["messages"].as_array().map(Vec::len)),
        Some(Some(3))
    );
    assert_eq!(
        block_on(
            env.repo()
                .persist_run_transcript("gone", &start, &answer("x", "complete"))
        ),
        Ok(TranscriptOutcome::SessionMissing)
    );
    let invalid = json!({"role": "tool", "content": "x"});
    assert_eq!(
        block_on(env.repo().persist_run_transcript(&id, &start, &invalid)).map_err(|e| e.code().as_str()),
        Err("INVALID_SESSION_RECORD")
    );
}

#[test]
fn run_transcripts_keep_the_longer_history() {
    let env = Env::new();
    let id = id_of(&env.create("p", "Chat"));
    // The panel had not saved the run's user messages yet.
    let start = [user("one"), answer("first", "complete"), user("two")];
    assert_eq!(
        block_on(
            env.repo()
                .persist_run_transcript(&id, &start, &answer("second", "incomplete"))
        ),
        Ok(TranscriptOutcome::Appended)
    );
    let messages = env.get(&id).map(|s| s["messages"].clone()).unwrap_or_default();
    assert_eq!(messages.as_array().map(Vec::len), Some(4));
    assert_eq!(messages[3]["content"], json!("second"));
    // The stored history is longer than the run's start: it wins.
    assert_eq!(
        block_on(
            env.repo()
                .persist_run_transcript(&id, &[user("one")], &answer("second", "complete"))
        ),
        Ok(TranscriptOutcome::StatusUpdated)
    );
    let messages = env.get(&id).map(|s| s["messages"].clone()).unwrap_or_default();
    assert_eq!(messages.as_array().map(Vec::len), Some(4));
    assert_eq!(messages[3]["responseStatus"], json!("complete"));
}

#[test]
fn a_transcript_save_and_a_panel_save_do_not_interleave() {
    let env = Env::new();
    let id = id_of(&env.create("p", "Chat"));
    let repo = env.repo();
    let panel = SessionChanges {
        messages: Some(vec![user("q"), answer("a", "incomplete")]),
        ..SessionChanges::default()
    };
    let entry = answer("a", "complete");
    let start = [user("q")];
    let (saved, persisted) = block_on(join(
        repo.update(&id, panel),
        repo.persist_run_transcript(&id, &start, &entry),
    ));
    assert!(saved.is_ok());
    assert_eq!(persisted, Ok(TranscriptOutcome::StatusUpdated));
    let messages = env.get(&id).map(|s| s["messages"].clone()).unwrap_or_default();
    assert_eq!(messages, json!([user("q"), answer("a", "complete")]));
}
