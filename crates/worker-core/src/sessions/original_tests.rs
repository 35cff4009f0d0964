//! The move from the original, against data the original wrote.
//!
//! `tests/vectors/migration.json` is written by `tests/vectors/migration.mjs`,
//! which runs the original's own storage code (v1.0.1 for the pre-v2 chat
//! aggregate, v1.1.0 for everything else) under Node and records what the
//! original stores and answers. Each test here loads such a profile into the
//! fake browser's storage, starts a worker on it (`bootstrap`) and requires
//! the original's answers from every read route — except where the original
//! loses or damages data, where the test names the original's bug and
//! requires the fix:
//!
//! * legacy migration deleted chats that fail the v2 schema;
//! * saves and imports wrapped tool summaries again;
//! * previews were cut inside surrogate pairs;
//! * exports dropped `userRenamed`.
//!
//! The one other difference is wording: a preview left out of a stored chat
//! carries the port's own reason text (`OMITTED_PREVIEW_REASON`), so its
//! `approxBytes` differs by that text's length.

use super::normalize::OMITTED_PREVIEW_REASON;
use super::*;
use crate::fakes::{FakeClock, FakePlatform, HookedStorage, VERSION, ask, block_on, data};
use crate::platform::PlatformError;
use crate::storage::json_bytes;
use crate::worker::Worker;
use protocol::constants::storage_keys;
use protocol::js;
use serde_json::{Map, Value, json};
use std::cell::Cell;
use std::rc::Rc;

fn vectors() -> Value {
    serde_json::from_str(include_str!("../../tests/vectors/migration.json")).expect("the vector file is JSON")
}

/// A worker started on `stored`, as Chrome starts one on a user's profile.
fn worker_on(stored: &Value) -> Worker<FakePlatform> {
    let platform = FakePlatform::default();
    for (key, value) in stored.as_object().into_iter().flatten() {
        platform.browser.storage.put(key, value.clone());
    }
    let worker = Worker::new(platform, VERSION);
    let problems = block_on(worker.bootstrap());
    assert!(problems.is_empty(), "start-up: {problems:?}");
    worker
}

fn stored(worker: &Worker<FakePlatform>, key: &str) -> Option<Value> {
    worker.platform.browser.storage.value(key)
}

/// Equality as JavaScript sees it (`1` and `1.0` are one number).
macro_rules! assert_js_eq {
    ($left:expr, $right:expr, $($what:tt)+) => {{
        let (left, right): (&Value, &Value) = (&$left, &$right);
        assert!(js::deep_equal(left, right), "{}\n  port: {left}\n  original: {right}", format!($($what)+));
    }};
}

/// The original's answer (`{ok, data}`) as the port must give it for a chat
/// the original migrated or imported: previews it left out carry the port's
/// reason text, and tool summaries its saves wrapped again are summarised
/// once; the chat's `approxBytes` follows what that changes in its body.
fn as_port_answers(original: &Value) -> Value {
    let mut value = original.clone();
    port_fixes(&mut value);
    let (before, after) = (&original["data"]["messages"], &value["data"]["messages"]);
    if let (Some(bytes), false) = (original["data"]["approxBytes"].as_i64(), before.is_null()) {
        value["data"]["approxBytes"] = json!(bytes + json_bytes(after) as i64 - json_bytes(before) as i64);
    }
    value
}

/// `{ok, summary}` whose summary is itself such a summary (the original's
/// re-wrapping), down to the innermost.
fn unwrap_summary(map: &mut Map<String, Value>) {
    let is_summary = |m: &Map<String, Value>| {
        m.len() == 2 && m.get("ok").is_some_and(Value::is_boolean) && m.get("summary").is_some_and(Value::is_string)
    };
    while is_summary(map) {
        let inner = map
            .get("summary")
            .and_then(Value::as_str)
            .and_then(|s| serde_json::from_str::<Value>(s).ok());
        match inner {
            Some(Value::Object(inner)) if is_summary(&inner) => {
                map.insert("summary".into(), inner.get("summary").cloned().unwrap_or_default());
            }
            _ => return,
        }
    }
}

fn port_fixes(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(port_fixes),
        Value::Object(map) => {
            if map.get("omitted") == Some(&Value::Bool(true))
                && let Some(Value::String(reason)) = map.get_mut("reason")
            {
                *reason = OMITTED_PREVIEW_REASON.to_owned();
            }
            unwrap_summary(map);
            map.values_mut().for_each(port_fixes);
        }
        _ => {}
    }
}

/// `bodyKey` names a fresh uuid in each implementation: only its form is
/// the same.
fn without_body_key(mut value: Value) -> Value {
    if let Some(map) = value.get_mut("data").and_then(Value::as_object_mut) {
        let id = map.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        let key = map.remove("bodyKey");
        let prefix = format!("{}{id}.", storage_keys::SESSION_BODY_PREFIX);
        assert!(
            key.as_ref()
                .and_then(Value::as_str)
                .is_some_and(|k| k.starts_with(&prefix)),
            "{key:?}"
        );
    }
    value
}

#[test]
fn a_v110_profile_answers_every_read_like_the_original() {
    let v = vectors();
    let profile = &v["v110"];
    let answers = &profile["answers"];
    let worker = worker_on(&profile["stored"]);
    for kind in [
        "LOAD_SETTINGS",
        "LOAD_CUSTOM_TOOLS",
        "LOAD_MCP_SERVERS",
        "LOAD_THEME",
        "SESSION_LIST_ALL_GROUPED",
    ] {
        assert_eq!(ask(&worker, kind, json!({})), answers[kind], "{kind}");
    }
    for (project, answer) in answers["SESSION_LIST"].as_object().into_iter().flatten() {
        assert_eq!(
            ask(&worker, "SESSION_LIST", json!({"projectId": project})),
            *answer,
            "{project}"
        );
    }
    for (id, answer) in answers["SESSION_GET"].as_object().into_iter().flatten() {
        // Stored bodies are read as they are: the same keys.
        assert_eq!(ask(&worker, "SESSION_GET", json!({"sessionId": id})), *answer, "{id}");
    }
    // Nothing was rewritten on the way: every stored key is as the original left it.
    for (key, value) in profile["stored"].as_object().into_iter().flatten() {
        assert_eq!(stored(&worker, key).as_ref(), Some(value), "{key}");
    }
    let journal = crate::journals::JournalStore::on(&worker.platform, &worker.store.queue);
    let snapshots = crate::journals::Snapshots::new(journal);
    let chat = profile["sessionIds"]["chat"].as_str().unwrap_or_default();
    let listed = block_on(snapshots.list_for_file("proj-a", "main.typ", chat)).expect("list");
    let listed: Vec<Value> = listed.iter().map(|s| s.to_value()).collect();
    assert_js_eq!(
        json!({"ok": true, "data": listed}),
        answers["snapshots"]["list"],
        "snapshot list"
    );
    for which in ["manual", "automatic"] {
        let id = answers["snapshots"][which]["data"]["id"].as_str().unwrap_or_default();
        let record = block_on(snapshots.load(id)).expect("load").expect("stored");
        let mut value = record.meta.to_value();
        value["text"] = json!(record.text);
        assert_js_eq!(
            json!({"ok": true, "data": value}),
            answers["snapshots"][which],
            "{which}"
        );
    }
    let journal = crate::journals::JournalStore::on(&worker.platform, &worker.store.queue);
    let checkpoints = crate::journals::Checkpoints::new(journal);
    let record = block_on(checkpoints.load("checkpoint-1"))
        .expect("load")
        .expect("stored");
    let mut value = record.meta.to_value();
    value["beforeText"] = json!(record.before_text);
    assert_js_eq!(
        json!({"ok": true, "data": value}),
        answers["checkpoints"]["load"],
        "checkpoint"
    );
    let cascade = block_on(checkpoints.load_cascade("checkpoint-1"))
        .expect("cascade")
        .expect("stored");
    let cascade: Vec<Value> = cascade
        .iter()
        .map(|record| {
            let mut value = record.meta.to_value();
            value["beforeText"] = json!(record.before_text);
            value
        })
        .collect();
    assert_js_eq!(
        json!({"ok": true, "data": cascade}),
        answers["checkpoints"]["cascade"],
        "cascade"
    );
}

#[test]
fn an_export_holds_chats_only_and_writes_user_renamed() {
    let v = vectors();
    let profile = &v["v110"];
    let worker = worker_on(&profile["stored"]);
    let exported = data(&worker, "SESSION_EXPORT", json!({}));
    let mut original = profile["answers"]["SESSION_EXPORT"]["data"].clone();
    // The original's bug: no userRenamed, so a renamed chat is auto-named
    // again after an import.
    assert!(
        original["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|s| s.get("userRenamed").is_none())
    );
    let renamed = profile["sessionIds"]["renamed"].clone();
    for session in original["sessions"].as_array_mut().into_iter().flatten() {
        session["userRenamed"] = json!(session["id"] == renamed);
    }
    original["exportedAt"] = exported["exportedAt"].clone();
    assert_eq!(exported, original);
    let keys: Vec<&String> = exported.as_object().map(|m| m.keys().collect()).unwrap_or_default();
    assert_eq!(keys, ["exportedAt", "format", "retention", "sessions", "version"]);
    // No settings, keys, headers, trust, registries, checkpoint or snapshot bodies.
    let text = exported.to_string();
    for secret in [
        "sk-main",
        "sk-lan",
        "Bearer t",
        "X-Key",
        "tools.example",
        "mcp.example",
        "api.example",
        "trustedAutoRun",
        "beforeText",
        "textHash",
        "= Title\\nBody",
        "= Title\\nNew body",
        "typstAgent.",
        "Be brief.",
    ] {
        assert!(!text.contains(secret), "{secret} in the export");
    }
}

fn import_case<'v>(v: &'v Value, name: &str) -> &'v Value {
    v["imports"]
        .as_array()
        .and_then(|cases| cases.iter().find(|c| c["name"] == json!(name)))
        .expect("case")
}

/// The original's import answer with the port's `renamed` count.
fn with_renamed(answer: &Value, renamed: u64) -> Value {
    let mut answer = answer.clone();
    if answer["ok"] == json!(true) {
        answer["data"]["renamed"] = json!(renamed);
    }
    answer
}

#[test]
fn the_originals_export_imports_as_not_renamed_and_the_ports_keeps_it() {
    let v = vectors();
    let case = import_case(&v, "original_export_into_empty");
    let worker = worker_on(&case["stored"]);
    let answer = ask(&worker, "SESSION_IMPORT", json!({"exportData": case["input"]}));
    assert_eq!(answer, with_renamed(&case["answer"], 0));
    // The original's import deepened the summary chains (so its sizes are
    // larger) and cut the renamed chat's preview inside the emoji; apart
    // from that the grouped list is the original's.
    let mut grouped = ask(&worker, "SESSION_LIST_ALL_GROUPED", json!({}));
    let mut expected = case["grouped"].clone();
    for group in grouped["data"].as_array_mut().into_iter().flatten() {
        for session in group["sessions"].as_array_mut().into_iter().flatten() {
            let got = data(&worker, "SESSION_GET", json!({"sessionId": session["id"]}));
            let body = stored(&worker, got["bodyKey"].as_str().unwrap_or_default()).unwrap_or_default();
            assert_eq!(session["approxBytes"], json!(json_bytes(&body)));
            session["approxBytes"] = Value::Null;
        }
        group["approxBytes"] = Value::Null;
    }
    let cut = format!("{}\u{FFFD}", "p".repeat(159));
    for group in expected["data"].as_array_mut().into_iter().flatten() {
        for session in group["sessions"].as_array_mut().into_iter().flatten() {
            session["approxBytes"] = Value::Null;
            if session["preview"].as_str() == Some(&cut) {
                session["preview"] = json!("p".repeat(159));
            }
        }
        group["approxBytes"] = Value::Null;
    }
    assert_eq!(grouped, expected);
    // Round trip through the port: the renamed chat stays renamed.
    let source = worker_on(&v["v110"]["stored"]);
    let exported = data(&source, "SESSION_EXPORT", json!({}));
    let target = worker_on(&json!({}));
    let answer = data(&target, "SESSION_IMPORT", json!({"exportData": exported}));
    assert_eq!(answer, json!({"ok": true, "imported": 2, "rejected": 0, "renamed": 0}));
    let renamed = v["v110"]["sessionIds"]["renamed"].clone();
    let got = data(&target, "SESSION_GET", json!({"sessionId": renamed}));
    assert_eq!(got["userRenamed"], json!(true));
    assert_eq!(got["name"], json!("My name"));
}

#[test]
fn an_import_into_the_same_profile_renames_ids_and_changes_no_existing_chat() {
    let v = vectors();
    let case = import_case(&v, "original_export_into_its_own_profile");
    let worker = worker_on(&case["stored"]);
    let answer = ask(&worker, "SESSION_IMPORT", json!({"exportData": case["input"]}));
    assert_eq!(answer, with_renamed(&case["answer"], 2));
    for (key, value) in case["stored"].as_object().into_iter().flatten() {
        if key != storage_keys::SESSION_INDEX {
            assert_eq!(stored(&worker, key).as_ref(), Some(value), "{key}");
        }
    }
    let index = stored(&worker, storage_keys::SESSION_INDEX).unwrap_or_default();
    let before = &case["stored"][storage_keys::SESSION_INDEX]["sessions"];
    let count = before.as_array().map_or(0, Vec::len);
    assert_eq!(
        index["sessions"].as_array().map(|s| s[..count].to_vec()),
        before.as_array().cloned()
    );
    assert_eq!(index["sessions"].as_array().map(Vec::len), Some(count + 2));
}

#[test]
fn import_answers_and_refusals_match_the_original() {
    let v = vectors();
    for name in ["bare_array_v1", "wrong_version"] {
        let case = import_case(&v, name);
        let worker = worker_on(&case["stored"]);
        let answer = ask(&worker, "SESSION_IMPORT", json!({"exportData": case["input"]}));
        assert_eq!(answer["ok"], case["answer"]["ok"], "{name}");
        if answer["ok"] == json!(true) {
            assert_eq!(answer, with_renamed(&case["answer"], 0), "{name}");
        } else {
            assert_eq!(answer["error"]["code"], case["answer"]["error"]["code"], "{name}");
        }
    }
}

#[test]
fn a_quota_error_at_any_write_of_an_import_leaves_storage_as_it_was() {
    let v = vectors();
    let case = import_case(&v, "quota_midway");
    // The original rolls back too (its answer and what it left).
    assert_eq!(case["answer"]["error"]["code"], json!("STORAGE_QUOTA_EXCEEDED"));
    assert_eq!(case["storedAfter"], case["stored"]);
    let pairs: Vec<(&str, Value)> = case["stored"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    // Two bodies and the index: fail each in turn.
    for fail_at in 1..=3_usize {
        let storage = HookedStorage::with(&pairs);
        let (clock, store) = (FakeClock::default(), SessionStore::new());
        let repo = Sessions::new(&storage, &clock, &store);
        drop(block_on(repo.begin()).expect("ready"));
        let before: Vec<(String, Option<Value>)> = storage
            .keys_with("")
            .into_iter()
            .map(|k| (k.clone(), storage.value(&k)))
            .collect();
        let writes = Rc::new(Cell::new(0_usize));
        let counter = Rc::clone(&writes);
        storage.before_set(move |_| {
            counter.set(counter.get() + 1);
            if counter.get() == fail_at {
                Err(PlatformError("QUOTA_BYTES quota exceeded".into()))
            } else {
                Ok(())
            }
        });
        let error = block_on(repo.import(&case["input"])).expect_err("quota");
        assert_eq!(error.code().as_str(), "STORAGE_QUOTA_EXCEEDED", "write {fail_at}");
        let after: Vec<(String, Option<Value>)> = storage
            .keys_with("")
            .into_iter()
            .map(|k| (k.clone(), storage.value(&k)))
            .collect();
        assert_eq!(after, before, "write {fail_at}");
    }
}

/// The generic summaries of a chat's tools segments.
fn summaries(messages: &Value) -> Vec<Value> {
    messages
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["segments"].as_array().cloned().unwrap_or_default())
        .filter(|s| s["type"] == json!("tools"))
        .flat_map(|s| s["results"].as_object().cloned().unwrap_or_default().into_values())
        .filter(|r| r.get("summary").is_some())
        .collect()
}

#[test]
fn summaries_are_never_wrapped_again_by_a_save_an_import_or_a_migration() {
    let v = vectors();
    let case = import_case(&v, "nested_summary_chain");
    let chain = summaries(&case["input"]["sessions"][0]["messages"]);
    assert_eq!(chain.len(), 1);
    // The chain the original's saves left (each save wrapped twice) …
    assert!(
        chain[0]["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with(r#"{"ok":true,"summary":"#))
    );
    // … and the original's import deepens it once more.
    let original_after: Vec<Value> = case["storedAfter"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with(storage_keys::SESSION_BODY_PREFIX))
        .flat_map(|(_, body)| summaries(&body["messages"]))
        .collect();
    assert_ne!(original_after, chain);
    let worker = worker_on(&case["stored"]);
    data(&worker, "SESSION_IMPORT", json!({"exportData": case["input"]}));
    let got = data(&worker, "SESSION_GET", json!({"sessionId": "n"}));
    assert_eq!(summaries(&got["messages"]), chain, "import");
    let saved = data(
        &worker,
        "SESSION_UPDATE",
        json!({"sessionId": "n", "messages": got["messages"]}),
    );
    assert_eq!(summaries(&saved["messages"]), chain, "save");
    let saved = data(
        &worker,
        "SESSION_UPDATE",
        json!({"sessionId": "n", "messages": saved["messages"]}),
    );
    assert_eq!(summaries(&saved["messages"]), chain, "second save");
    // A migrated raw result is summarised once; the original's migration
    // wrapped it three times.
    let pre = worker_on(&v["preV2"]["stored"]);
    let raw = &v["preV2"]["stored"][storage_keys::SESSIONS][0]["messages"][1]["segments"][1]["results"]["call_2"];
    let once = json!({"ok": true, "summary": js::json_stringify(raw)});
    let id = v["preV2"]["stored"][storage_keys::SESSIONS][0]["id"].clone();
    let original =
        summaries(&v["preV2"]["answers"]["SESSION_GET"][id.as_str().unwrap_or_default()]["data"]["messages"]);
    assert_ne!(original, vec![once.clone()]);
    let got = data(&pre, "SESSION_GET", json!({"sessionId": id}));
    assert_eq!(summaries(&got["messages"]), vec![once], "migration");
}

#[test]
fn previews_never_end_inside_a_surrogate_pair_on_save_import_or_migration() {
    let v = vectors();
    let whole = "p".repeat(159);
    let cut = format!("{whole}\u{FFFD}");
    // Migration: the original cut the emoji in half (written as U+FFFD).
    let migrated = &v["preV2"]["answers"]["SESSION_LIST"]["proj-a"]["data"];
    let original = migrated
        .as_array()
        .and_then(|l| l.iter().find(|s| s["preview"].as_str() == Some(&cut)));
    let id = original.map(|s| s["id"].clone()).expect("the original's cut preview");
    let worker = worker_on(&v["preV2"]["stored"]);
    let list = data(&worker, "SESSION_LIST", json!({"projectId": "proj-a"}));
    let port = list
        .as_array()
        .and_then(|l| l.iter().find(|s| s["id"] == id))
        .cloned()
        .unwrap_or_default();
    assert_eq!(port["preview"], json!(whole), "migration");
    // Import of a v1 file written by hand, and a save.
    let case = import_case(&v, "bare_array_v1");
    assert!(case["grouped"].to_string().contains(&cut));
    let worker = worker_on(&case["stored"]);
    data(&worker, "SESSION_IMPORT", json!({"exportData": case["input"]}));
    let got = data(&worker, "SESSION_GET", json!({"sessionId": "a"}));
    assert_eq!(got["preview"], json!(whole), "import");
    let text = case["input"][0]["messages"][0]["content"].clone();
    let saved = data(
        &worker,
        "SESSION_UPDATE",
        json!({"sessionId": "a", "messages": [{"role": "user", "content": text}]}),
    );
    assert_eq!(saved["preview"], json!(whole), "save");
    assert!(saved["searchText"].as_str().is_some_and(|s| s.contains('\u{1F600}')));
}

#[test]
fn a_pre_v2_profile_moves_with_the_originals_ids_and_answers() {
    let v = vectors();
    let profile = &v["preV2"];
    let answers = &profile["answers"];
    let worker = worker_on(&profile["stored"]);
    for kind in ["LOAD_SETTINGS", "LOAD_CUSTOM_TOOLS", "LOAD_MCP_SERVERS", "LOAD_THEME"] {
        assert_eq!(ask(&worker, kind, json!({})), answers[kind], "{kind}");
    }
    let cut = format!("{}\u{FFFD}", "p".repeat(159));
    let fix_preview = |mut value: Value| {
        if let Some(map) = value.as_object_mut()
            && map.get("preview").and_then(Value::as_str) == Some(&cut)
        {
            map.insert("preview".into(), json!("p".repeat(159)));
        }
        value
    };
    // Every chat the original kept, under the same id (duplicate legacy ids
    // get the original's stableId suffixes), with the same answers.
    for (id, answer) in answers["SESSION_GET"].as_object().into_iter().flatten() {
        let got = without_body_key(ask(&worker, "SESSION_GET", json!({"sessionId": id})));
        let mut expected = without_body_key(as_port_answers(answer));
        expected["data"] = fix_preview(expected["data"].clone());
        assert_eq!(got, expected, "{id}");
    }
    // The vectors hold both kinds of derived id: collision-safe ones of
    // records that share an id, and one of a record without an id.
    let ids: Vec<&String> = answers["SESSION_GET"]
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    for (prefix, count) in [("twin-legacy-", 2), ("rich-twin-legacy-", 2), ("legacy-7-", 1)] {
        assert_eq!(
            ids.iter().filter(|id| id.starts_with(prefix)).count(),
            count,
            "{prefix}"
        );
    }
    for (project, answer) in answers["SESSION_LIST"].as_object().into_iter().flatten() {
        let got = data(&worker, "SESSION_LIST", json!({"projectId": project}));
        for session in answer["data"].as_array().into_iter().flatten() {
            let mine = got
                .as_array()
                .and_then(|l| l.iter().find(|s| s["id"] == session["id"]))
                .cloned();
            let id = session["id"].as_str().unwrap_or_default();
            let mut session = fix_preview(session.clone());
            session["approxBytes"] = as_port_answers(&answers["SESSION_GET"][id])["data"]["approxBytes"].clone();
            assert_eq!(mine, Some(session), "{project}");
        }
    }
    assert_eq!(stored(&worker, storage_keys::SESSIONS), None);
}

#[test]
fn legacy_chats_the_original_deleted_are_repaired_and_backed_up() {
    let v = vectors();
    let profile = &v["preV2"];
    let legacy = &profile["stored"][storage_keys::SESSIONS];
    // What the original did: counted them rejected and deleted the store.
    let marker = &profile["storedAfter"][storage_keys::SESSION_MIGRATION];
    assert_eq!(marker["rejected"], json!(3));
    assert!(profile["storedAfter"].get(storage_keys::SESSIONS).is_none());
    let kept = profile["answers"]["SESSION_GET"].as_object().map_or(0, |m| m.len());
    let worker = worker_on(&profile["stored"]);
    let grouped = data(&worker, "SESSION_LIST_ALL_GROUPED", json!({}));
    let all: Vec<Value> = grouped
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["sessions"].as_array().cloned().unwrap_or_default())
        .collect();
    // Every object record of the aggregate is a chat now; the one that is
    // no object at all lives only in the backup.
    assert_eq!(all.len(), kept + 2);
    assert_eq!(legacy.as_array().map(Vec::len), Some(kept + 3));
    let backup = stored(&worker, storage_keys::SESSION_MIGRATION_BACKUP).unwrap_or_default();
    let records = backup["records"].as_array().cloned().unwrap_or_default();
    assert_eq!(records.len(), 3);
    for entry in &records {
        let index = entry["legacyIndex"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(entry["record"], legacy[index], "backed up exactly as stored");
        assert!(entry["reason"].as_str().is_some_and(|r| !r.is_empty()));
        if legacy[index].is_object() {
            let id = entry["migratedAs"].as_str().unwrap_or_default();
            let chat = data(&worker, "SESSION_GET", json!({"sessionId": id}));
            assert_eq!(chat["name"], legacy[index]["name"]);
            let key = chat["bodyKey"].as_str().unwrap_or_default();
            assert_eq!(
                stored(&worker, key).map(|b| b["repairedLegacy"].clone()),
                Some(json!(true))
            );
        } else {
            assert_eq!(entry["migratedAs"], Value::Null);
        }
    }
    // The long patch keeps its text; only the over-long arguments are omitted.
    let patch = records
        .iter()
        .find(|e| e["record"]["name"] == json!("Long patch"))
        .expect("patch");
    let chat = data(&worker, "SESSION_GET", json!({"sessionId": patch["migratedAs"]}));
    assert_eq!(chat["messages"][1]["content"], json!("Rewritten."));
    assert_eq!(chat["messages"][1]["toolCalls"][0]["args"], json!({"omitted": true}));
    let status = data(&worker, "SESSION_STORAGE_STATUS", json!({}));
    assert_eq!(
        status["legacyBackup"],
        json!({"key": storage_keys::SESSION_MIGRATION_BACKUP, "records": 3})
    );
}

#[test]
fn the_legacy_store_stays_until_its_backup_is_written() {
    let v = vectors();
    let pairs = [(
        storage_keys::SESSIONS,
        v["preV2"]["stored"][storage_keys::SESSIONS].clone(),
    )];
    let storage = HookedStorage::with(&pairs);
    storage.before_set(|key| {
        if key == storage_keys::SESSION_MIGRATION_BACKUP {
            Err(PlatformError("QUOTA_BYTES quota exceeded".into()))
        } else {
            Ok(())
        }
    });
    let (clock, store) = (FakeClock::default(), SessionStore::new());
    let repo = Sessions::new(&storage, &clock, &store);
    assert!(block_on(repo.list("proj-a")).is_err());
    assert_eq!(storage.value(storage_keys::SESSIONS), Some(pairs[0].1.clone()));
    storage.clear_hooks();
    let store = SessionStore::new();
    let repo = Sessions::new(&storage, &clock, &store);
    assert_eq!(block_on(repo.list("proj-a")).map(|l| l.len()), Ok(2));
    assert_eq!(storage.value(storage_keys::SESSIONS), None);
    let backup = storage
        .value(storage_keys::SESSION_MIGRATION_BACKUP)
        .unwrap_or_default();
    assert_eq!(backup["records"].as_array().map(Vec::len), Some(3));
}

#[test]
fn a_completed_marker_never_deletes_chats_written_after_it_unseen() {
    let v = vectors();
    let case = &v["downgrade"];
    // The original: marker complete, so the aggregate is deleted unread.
    assert!(case["storedAfter"].get(storage_keys::SESSIONS).is_none());
    assert!(case["answers"]["SESSION_GET"].get("after-downgrade").is_none());
    let worker = worker_on(&case["stored"]);
    let got = data(&worker, "SESSION_GET", json!({"sessionId": "after-downgrade"}));
    assert_eq!(got["messages"][0]["content"], json!("new"));
    assert_eq!(stored(&worker, storage_keys::SESSIONS), None);
    // Every chat the original still had is there as well, unchanged.
    for (id, answer) in case["answers"]["SESSION_GET"].as_object().into_iter().flatten() {
        let got = without_body_key(ask(&worker, "SESSION_GET", json!({"sessionId": id})));
        assert_eq!(got, without_body_key(answer.clone()), "{id}");
    }
}

/// What a finished move left: each chat's id, name and messages, the
/// backup, and whether anything else is off (orphans, the old store).
fn moved_state(storage: &HookedStorage) -> Value {
    let index = storage.value(storage_keys::SESSION_INDEX).unwrap_or_default();
    let mut chats: Vec<Value> = index["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|meta| {
            let body = storage.value(meta["bodyKey"].as_str().unwrap_or_default()).unwrap_or_default();
            json!({"id": meta["id"], "name": meta["name"], "messages": body["messages"], "repaired": body["repairedLegacy"]})
        })
        .collect();
    chats.sort_by_key(|c| c["id"].to_string());
    let referenced = index["sessions"].as_array().map_or(0, Vec::len);
    json!({
        "chats": chats,
        "backup": storage.value(storage_keys::SESSION_MIGRATION_BACKUP),
        "orphans": storage.keys_with(storage_keys::SESSION_BODY_PREFIX).len() - referenced,
        "legacy": storage.value(storage_keys::SESSIONS),
        "complete": storage.value(storage_keys::SESSION_MIGRATION).map(|m| m["complete"].clone()),
    })
}

#[test]
fn an_interrupted_move_resumes_at_every_write_to_the_same_result() {
    let v = vectors();
    let pairs = [(
        storage_keys::SESSIONS,
        v["preV2"]["stored"][storage_keys::SESSIONS].clone(),
    )];
    let clock = FakeClock::default();
    let reference = HookedStorage::with(&pairs);
    let writes = Rc::new(Cell::new(0_usize));
    let counter = Rc::clone(&writes);
    reference.before_set(move |_| {
        counter.set(counter.get() + 1);
        Ok(())
    });
    let store = SessionStore::new();
    assert!(block_on(Sessions::new(&reference, &clock, &store).list("proj-a")).is_ok());
    let expected = moved_state(&reference);
    assert_eq!(expected["orphans"], json!(0));
    assert_eq!(expected["legacy"], Value::Null);
    for fail_at in 1..=writes.get() {
        let storage = HookedStorage::with(&pairs);
        let counter = Rc::new(Cell::new(0_usize));
        let seen = Rc::clone(&counter);
        storage.before_set(move |_| {
            seen.set(seen.get() + 1);
            if seen.get() == fail_at {
                Err(PlatformError("worker stopped".into()))
            } else {
                Ok(())
            }
        });
        let store = SessionStore::new();
        assert!(
            block_on(Sessions::new(&storage, &clock, &store).list("proj-a")).is_err(),
            "write {fail_at}"
        );
        assert!(
            storage.value(storage_keys::SESSIONS).is_some(),
            "write {fail_at}: the old store stays"
        );
        storage.clear_hooks();
        let store = SessionStore::new();
        assert!(
            block_on(Sessions::new(&storage, &clock, &store).list("proj-a")).is_ok(),
            "write {fail_at}"
        );
        assert_eq!(moved_state(&storage), expected, "write {fail_at}");
    }
}

#[test]
fn the_snapshot_list_route_answers_the_originals_snapshots_for_the_open_file() {
    use crate::fakes::{FakeBrowser, FakeNetwork, FakeTypstPages};
    let v = vectors();
    let profile = &v["v110"];
    let worker = Worker::new(
        FakePlatform {
            browser: FakeBrowser::with_tabs(&[(7, "https://typst.app/project/proj-a")]),
            clock: FakeClock::default(),
            pages: FakeTypstPages::default(),
            network: FakeNetwork::default(),
        },
        VERSION,
    );
    for (key, value) in profile["stored"].as_object().into_iter().flatten() {
        worker.platform.browser.storage.put(key, value.clone());
    }
    worker.platform.pages.page.borrow_mut().doc = "= Title\nNew body".into();
    let chat = &profile["sessionIds"]["chat"];
    let answer = ask(
        &worker,
        "DOCUMENT_SNAPSHOT_LIST",
        json!({"tabId": 7, "projectId": "proj-a", "sessionId": chat}),
    );
    // The original's listDocumentSnapshotsForEditor: {ok, fileLabel, snapshots}.
    let expected = json!({"ok": true, "data": {"ok": true, "fileLabel": "main.typ",
        "snapshots": profile["answers"]["snapshots"]["list"]["data"]}});
    assert_js_eq!(answer, expected, "DOCUMENT_SNAPSHOT_LIST");
}
