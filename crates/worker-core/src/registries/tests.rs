//! The registry routes: the original's answers replayed through the worker,
//! mutations applied to the stored list inside the queue, and refused
//! saves and writes that leave the stored list as it was.

use super::*;
use crate::fakes::{FakePlatform, HookedStorage, ask, block_on, code, data};
use crate::platform::PlatformError;
use crate::worker::Worker;
use futures::future::join;

const VECTORS: &str = include_str!("../../../protocol/tests/vectors/registries.json");

fn worker() -> Worker<FakePlatform> {
    Worker::new(FakePlatform::default(), crate::fakes::VERSION)
}

/// The original's answer without the sentence of a refusal (the port's
/// sentences are its own).
fn comparable(answer: &Value) -> Value {
    let mut answer = answer.clone();
    if let Some(error) = answer.get_mut("error").and_then(Value::as_object_mut) {
        error.remove("message");
        // The port adds where the problem is (`index`, `field`); the
        // original's `details` (the origin to acknowledge) must still match.
        if let Some(details) = error.get_mut("details").and_then(Value::as_object_mut) {
            details.remove("index");
            details.remove("field");
            if details.is_empty() {
                error.remove("details");
            }
        }
    }
    answer
}

/// Every case of the original's vectors, sent to a fresh worker as the
/// panel sends it. A `select` never reaches the registry: the message door
/// refuses it, as the original's did.
#[test]
fn the_worker_answers_and_stores_what_the_original_did() {
    let vectors: Value = serde_json::from_str(VECTORS).expect("vector file is JSON");
    for (list, registry, load, save, door) in [
        (
            "customTools",
            Registry::CustomTools,
            "LOAD_CUSTOM_TOOLS",
            "SAVE_CUSTOM_TOOLS",
            "INVALID_CUSTOM_TOOLS",
        ),
        (
            "mcpServers",
            Registry::McpServers,
            "LOAD_MCP_SERVERS",
            "SAVE_MCP_SERVERS",
            "INVALID_MCP_SERVERS",
        ),
    ] {
        for case in vectors[list].as_array().into_iter().flatten() {
            let worker = worker();
            let storage = &worker.platform.browser.storage;
            if let Some(stored) = case.get("stored") {
                storage.put(registry.key(), stored.clone());
            }
            let name = &case["name"];
            let Some(request) = case.get("save") else {
                assert_eq!(
                    ask(&worker, load, json!({})),
                    comparable(&case["answer"]),
                    "{list} {name}"
                );
                continue;
            };
            let answer = ask(&worker, save, request.clone());
            if request["mutation"]["type"] == "select" {
                assert_eq!(answer["error"]["code"], json!(door), "{list} {name}");
            } else {
                assert_eq!(comparable(&answer), comparable(&case["answer"]), "{list} {name}");
            }
            let stored = storage.value(registry.key()).unwrap_or(Value::Null);
            assert_eq!(stored, case["storedAfter"], "{list} {name} (stored)");
        }
    }
}

#[test]
fn a_refusal_answers_the_origin_to_acknowledge_and_stores_nothing() {
    let worker = worker();
    let tool = json!({"id": "t1", "name": "lookup", "endpoint": "http://192.168.1.5/call"});
    let answer = ask(&worker, "SAVE_CUSTOM_TOOLS", json!({"tools": [tool]}));
    assert_eq!(answer["error"]["code"], json!("INSECURE_CONFIRMATION_REQUIRED"));
    assert_eq!(
        answer["error"]["details"],
        json!({"index": 0, "field": "endpoint", "origin": "http://192.168.1.5"})
    );
    assert_eq!(worker.platform.browser.storage.value(storage_keys::CUSTOM_TOOLS), None);
    let server = json!({"id": "s1", "url": "https://mcp.example/", "headers": {"Accept": "x"}});
    let answer = ask(&worker, "SAVE_MCP_SERVERS", json!({"servers": [server]}));
    assert_eq!(answer["error"]["code"], json!("PROTECTED_HEADER"));
    assert_eq!(answer["error"]["details"], json!({"index": 0, "field": "headers"}));
    assert_eq!(data(&worker, "LOAD_MCP_SERVERS", json!({})), json!([]));
}

#[test]
fn the_2025_handshake_mode_is_saved() {
    let worker = worker();
    let server = json!({"id": "s1", "name": "old", "url": "http://localhost:7000/mcp", "protocolMode": "2025-11-25"});
    let saved = data(&worker, "SAVE_MCP_SERVERS", json!({"servers": [server]}));
    assert_eq!(saved["records"][0]["protocolMode"], json!("2025-11-25"));
    assert_eq!(
        data(&worker, "LOAD_MCP_SERVERS", json!({}))[0]["protocolMode"],
        json!("2025-11-25")
    );
}

fn tool(id: &str, name: &str) -> Value {
    json!({"id": id, "name": name, "endpoint": "https://tools.example/call", "enabled": true})
}

fn mutation(value: Value) -> RegistryMutation {
    serde_json::from_value(value).expect("a mutation")
}

/// Two panels save from the same stale copy at once: one switches a tool
/// off, the other adds one. Both changes land, because each is applied to
/// the stored list inside the queue.
#[test]
fn overlapping_saves_keep_each_others_changes() {
    let storage = HookedStorage::with(&[(storage_keys::CUSTOM_TOOLS, json!([tool("a", "tool_a")]))]);
    let queue = MutationQueue::default();
    let stale = [tool("a", "tool_a")];
    let toggle = mutation(json!({"type": "toggle", "id": "a"}));
    let add = mutation(json!({"type": "upsert", "record": tool("b", "tool_b")}));
    let (first, second) = block_on(join(
        save(&storage, &queue, Registry::CustomTools, &stale, Some(&toggle)),
        save(&storage, &queue, Registry::CustomTools, &stale, Some(&add)),
    ));
    assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
    let stored = storage.value(storage_keys::CUSTOM_TOOLS).unwrap_or_default();
    assert_eq!(stored[0]["enabled"], json!(false));
    assert_eq!(stored[1]["id"], json!("b"));
    assert!(!queue.is_held());
}

#[test]
fn a_refused_write_answers_its_code_and_keeps_the_stored_list() {
    let worker = worker();
    let before = data(&worker, "SAVE_CUSTOM_TOOLS", json!({"tools": [tool("a", "tool_a")]}))["records"].clone();
    let storage = &worker.platform.browser.storage;
    for (failure, expected) in [
        ("QUOTA_BYTES quota exceeded", "STORAGE_QUOTA_EXCEEDED"),
        ("IO error", "STORAGE_WRITE_FAILED"),
    ] {
        storage.fail_writes(failure);
        let toggle = json!({"tools": [], "mutation": {"type": "toggle", "id": "a"}});
        assert_eq!(code(&worker, "SAVE_CUSTOM_TOOLS", toggle), json!(expected));
        let servers = json!({"servers": [{"id": "s", "url": "https://mcp.example/"}]});
        assert_eq!(code(&worker, "SAVE_MCP_SERVERS", servers), json!(expected));
        assert_eq!(storage.value(storage_keys::CUSTOM_TOOLS), Some(before.clone()));
        assert_eq!(storage.value(storage_keys::MCP_SERVERS), None);
    }
    assert!(!worker.store.queue.is_held());
}

#[test]
fn an_unsupported_mutation_is_refused_before_anything_is_written() {
    let storage = HookedStorage::default();
    storage.before_set(|_| Err(PlatformError("unexpected write".into())));
    let queue = MutationQueue::default();
    let refused = block_on(save(
        &storage,
        &queue,
        Registry::McpServers,
        &[],
        Some(&mutation(json!({"type": "select", "id": "s"}))),
    ));
    assert_eq!(refused.map_err(|e| e.code.as_str()), Err("INVALID_REGISTRY_MUTATION"));
    assert!(storage.writes.borrow().is_empty());
}
