//! Journal tests: both state machines with a failure injected at every
//! write, retention and pruning, validation of stored indexes, and the
//! queries the run engine and the recovery routes use.

use super::checkpoints::{self, CheckpointMeta, Checkpoints, Rollback, StageInput};
use super::snapshots::{self, SnapshotInput, Snapshots};
use super::*;
use crate::fakes::HookedStorage;
use crate::fakes::{FakeClock, block_on};
use crate::platform::PlatformError;
use crate::storage::MutationQueue;
use protocol::constants::storage_keys;
use protocol::document_snapshot::SnapshotKind;
use protocol::edit_checkpoint::{EditCheckpointStatus, PublicCheckpointStatus};
use serde_json::{Value, json};
use std::cell::Cell;
use std::rc::Rc;

struct Env {
    storage: HookedStorage,
    clock: FakeClock,
    queue: MutationQueue,
}

impl Env {
    fn new() -> Env {
        Env {
            storage: HookedStorage::default(),
            clock: FakeClock::default(),
            queue: MutationQueue::default(),
        }
    }

    fn checkpoints(&self) -> Checkpoints<'_, HookedStorage, FakeClock> {
        Checkpoints::new(JournalStore::new(&self.storage, &self.clock, &self.queue))
    }

    fn snapshots(&self) -> Snapshots<'_, HookedStorage, FakeClock> {
        Snapshots::new(JournalStore::new(&self.storage, &self.clock, &self.queue))
    }

    fn checkpoint_index(&self) -> Option<Value> {
        self.storage.value(storage_keys::EDIT_CHECKPOINT_INDEX)
    }

    fn snapshot_index(&self) -> Option<Value> {
        self.storage.value(storage_keys::DOCUMENT_SNAPSHOT_INDEX)
    }

    fn entries(&self) -> Vec<CheckpointMeta> {
        block_on(checkpoints::load_index(&self.storage)).unwrap_or_default()
    }

    fn status_of(&self, id: &str) -> Option<EditCheckpointStatus> {
        self.entries().into_iter().find(|e| e.id == id).map(|e| e.status)
    }

    /// Fails the `n`-th write from now (0-based) and no other.
    fn fail_write_number(&self, n: usize) {
        let count = Rc::new(Cell::new(0usize));
        self.storage.before_set(move |key| {
            let current = count.get();
            count.set(current + 1);
            if current == n {
                Err(PlatformError(format!("injected failure writing {key}")))
            } else {
                Ok(())
            }
        });
    }

    fn stage(&self, id: &str, session: &str, before: &str, after: &str) -> Result<CheckpointMeta, JournalError> {
        block_on(self.checkpoints().stage(stage_input(id, session, before, after)))
    }

    /// A staged and committed checkpoint.
    fn applied(&self, id: &str, session: &str, before: &str, after: &str) {
        assert!(self.stage(id, session, before, after).is_ok(), "stage {id}");
        assert!(block_on(self.checkpoints().commit(id)).is_ok(), "commit {id}");
    }
}

fn stage_input(id: &str, session: &str, before: &str, after: &str) -> StageInput {
    StageInput {
        id: id.into(),
        project_id: "p".into(),
        session_id: session.into(),
        run_id: format!("run-{id}"),
        call_id: "call-1".into(),
        file_label: "main.typ".into(),
        before_text: before.into(),
        pending_after: DocumentState::of(after),
    }
}

fn code<T: std::fmt::Debug>(result: Result<T, JournalError>) -> &'static str {
    match result {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(error) => error.code.as_str(),
    }
}

// ----- checkpoints: the state machine -----

#[test]
fn a_checkpoint_goes_through_stage_commit_update_rollback_and_revert() {
    let env = Env::new();
    let staged = env.stage("edit-1", "s", "= Before", "= After");
    let staged = staged.expect("staged");
    assert_eq!(staged.status, EditCheckpointStatus::Prepared);
    assert_eq!(staged.previous_after, Some(DocumentState::of("= Before")));
    assert_eq!(staged.after, None);
    let body = env.storage.value(&checkpoints::body_key("edit-1"));
    assert_eq!(
        body,
        Some(json!({"version": 1, "id": "edit-1", "beforeText": "= Before"}))
    );
    let stored = env.checkpoint_index().expect("index");
    assert_eq!(stored["entries"][0]["status"], "prepared");
    assert_eq!(stored["entries"][0]["previousStatus"], "");
    assert_eq!(stored["entries"][0]["afterHash"], Value::Null);
    assert_eq!(stored["entries"][0]["beforeLength"], 8);

    let receipt = block_on(env.checkpoints().commit("edit-1")).expect("committed");
    assert_eq!(receipt.status, PublicCheckpointStatus::Applied);
    assert_eq!(receipt.file_label, "main.typ");
    let applied = env.entries().remove(0);
    assert_eq!(applied.after, Some(DocumentState::of("= After")));
    assert_eq!((applied.pending_after, applied.previous_after), (None, None));

    // A later write of the run, refused by the page: back to the first result.
    let pending = DocumentState::of("= After again");
    let prepared = block_on(env.checkpoints().prepare_update("edit-1", &pending, Some("call-2")));
    let prepared = prepared.expect("prepared");
    assert!(prepared.previously_applied);
    assert_eq!(prepared.previous_after, Some(DocumentState::of("= After")));
    assert_eq!(prepared.call_id, "call-2");
    assert_eq!(
        code(block_on(env.checkpoints().prepare_update("edit-1", &pending, None))),
        "EDIT_CHECKPOINT_STATE_INVALID"
    );
    let rolled = block_on(env.checkpoints().rollback_preparation("edit-1")).expect("rolled back");
    assert!(matches!(rolled, Rollback::Restored(ref r) if r.status == PublicCheckpointStatus::Applied));
    assert_eq!(env.entries().remove(0).after, Some(DocumentState::of("= After")));

    // A later write that landed advances the final state.
    assert!(block_on(env.checkpoints().prepare_update("edit-1", &pending, None)).is_ok());
    assert!(block_on(env.checkpoints().commit("edit-1")).is_ok());
    assert_eq!(env.entries().remove(0).after, Some(pending));

    assert_eq!(
        code(block_on(env.checkpoints().restore_applied("edit-1"))),
        "EDIT_CHECKPOINT_STATE_INVALID"
    );
    assert!(block_on(env.checkpoints().begin_revert("edit-1")).is_ok());
    assert_eq!(env.status_of("edit-1"), Some(EditCheckpointStatus::Reverting));
    assert!(block_on(env.checkpoints().restore_applied("edit-1")).is_ok());
    assert!(block_on(env.checkpoints().begin_revert("edit-1")).is_ok());
    let reverted = block_on(env.checkpoints().mark_reverted("edit-1")).expect("reverted");
    assert_eq!(reverted.status, PublicCheckpointStatus::Reverted);
    assert_eq!(
        env.storage.value(&checkpoints::body_key("edit-1")),
        None,
        "the body is discarded"
    );
    let entry = env.entries().remove(0);
    assert_eq!((entry.body_key, entry.approx_bytes), (None, 0.0));
    assert_eq!(
        code(block_on(env.checkpoints().mark_reverted("edit-1"))),
        "EDIT_CHECKPOINT_STATE_INVALID"
    );
    assert_eq!(
        code(block_on(env.checkpoints().commit("edit-9"))),
        "EDIT_CHECKPOINT_NOT_FOUND"
    );
}

#[test]
fn rolling_back_a_never_applied_stage_removes_it_and_its_body() {
    let env = Env::new();
    assert!(env.stage("edit-1", "s", "a", "b").is_ok());
    assert_eq!(
        block_on(env.checkpoints().rollback_preparation("edit-1")),
        Ok(Rollback::Removed)
    );
    assert!(env.entries().is_empty());
    assert!(
        env.storage
            .keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX)
            .is_empty()
    );
    assert_eq!(
        block_on(env.checkpoints().rollback_preparation("edit-1")),
        Ok(Rollback::Unchanged)
    );
}

#[test]
fn staging_refuses_bad_input_duplicates_and_oversized_documents() {
    let env = Env::new();
    let mut bad = stage_input("edit 1", "s", "a", "b");
    assert_eq!(
        code(block_on(env.checkpoints().stage(bad.clone()))),
        "INVALID_EDIT_CHECKPOINT"
    );
    bad.id = "edit-1".into();
    bad.run_id = String::new();
    assert_eq!(code(block_on(env.checkpoints().stage(bad))), "INVALID_EDIT_CHECKPOINT");
    let mut bad_hash = stage_input("edit-1", "s", "a", "b");
    bad_hash.pending_after.hash = "ABC".into();
    assert_eq!(
        code(block_on(env.checkpoints().stage(bad_hash))),
        "INVALID_EDIT_CHECKPOINT"
    );
    let too_long = "x".repeat(1_000_001);
    assert_eq!(
        code(env.stage("edit-1", "s", &too_long, "b")),
        "EDIT_CHECKPOINT_TOO_LARGE"
    );
    // Within the character limit but over the byte budget once stored.
    let heavy = "\u{1}".repeat(800_000);
    assert_eq!(code(env.stage("edit-1", "s", &heavy, "b")), "EDIT_CHECKPOINT_TOO_LARGE");
    assert!(env.stage("edit-1", "s", "a", "b").is_ok());
    assert_eq!(code(env.stage("edit-1", "s", "a", "b")), "DUPLICATE_EDIT_CHECKPOINT");
    let mut unnamed = stage_input("edit-2", "s", "a", "b");
    unnamed.file_label = String::new();
    assert_eq!(
        block_on(env.checkpoints().stage(unnamed)).map(|m| m.file_label),
        Ok("Current Typst document".to_owned())
    );
}

/// Runs `op` against a fresh copy of `setup` with the n-th write failing,
/// for every n until `op` succeeds; after each failure the journal must
/// still load and equal what it was before (and no orphan body may stay).
fn fails_closed_at_every_write(setup: impl Fn(&Env), op: impl Fn(&Env) -> Result<(), JournalError>) -> usize {
    for n in 0..20 {
        let env = Env::new();
        setup(&env);
        let before = env.checkpoint_index();
        let bodies = env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX);
        env.fail_write_number(n);
        match op(&env) {
            Ok(()) => return n,
            Err(error) => {
                assert_eq!(error.code.as_str(), "STORAGE_WRITE_FAILED", "write {n}");
                env.storage.clear_hooks();
                assert!(
                    block_on(checkpoints::load_index(&env.storage)).is_ok(),
                    "write {n}: readable"
                );
                assert_eq!(env.checkpoint_index(), before, "write {n}: index unchanged");
                assert_eq!(
                    env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX),
                    bodies,
                    "write {n}: bodies unchanged"
                );
            }
        }
    }
    panic!("the operation never succeeded");
}

#[test]
fn every_checkpoint_write_can_fail_without_losing_the_prior_state() {
    let nothing = |_: &Env| {};
    let one_applied = |env: &Env| env.applied("edit-1", "s", "a", "b");
    let one_prepared_update = |env: &Env| {
        env.applied("edit-1", "s", "a", "b");
        assert!(
            block_on(
                env.checkpoints()
                    .prepare_update("edit-1", &DocumentState::of("c"), None)
            )
            .is_ok()
        );
    };
    let reverting = |env: &Env| {
        env.applied("edit-1", "s", "a", "b");
        assert!(block_on(env.checkpoints().begin_revert("edit-1")).is_ok());
    };
    let writes = [
        fails_closed_at_every_write(nothing, |env| env.stage("edit-1", "s", "a", "b").map(drop)),
        fails_closed_at_every_write(one_applied, |env| env.stage("edit-2", "s", "b", "c").map(drop)),
        fails_closed_at_every_write(one_applied, |env| {
            block_on(
                env.checkpoints()
                    .prepare_update("edit-1", &DocumentState::of("c"), None),
            )
            .map(drop)
        }),
        fails_closed_at_every_write(one_prepared_update, |env| {
            block_on(env.checkpoints().commit("edit-1")).map(drop)
        }),
        fails_closed_at_every_write(one_prepared_update, |env| {
            block_on(env.checkpoints().rollback_preparation("edit-1")).map(drop)
        }),
        fails_closed_at_every_write(one_applied, |env| {
            block_on(env.checkpoints().begin_revert("edit-1")).map(drop)
        }),
        fails_closed_at_every_write(reverting, |env| {
            block_on(env.checkpoints().restore_applied("edit-1")).map(drop)
        }),
        fails_closed_at_every_write(reverting, |env| {
            block_on(env.checkpoints().mark_reverted("edit-1")).map(drop)
        }),
    ];
    // Stage writes the body then the index; the others one index write.
    assert_eq!(writes, [2, 2, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn a_stage_that_must_prune_can_fail_at_every_write_and_stays_readable() {
    for n in 0..4 {
        let env = Env::new();
        for i in 0..5 {
            env.applied(&format!("edit-{i}"), "s", "a", "b");
            env.clock.advance(10.0);
        }
        env.fail_write_number(n);
        let result = env.stage("edit-5", "s", "a", "b");
        env.storage.clear_hooks();
        let entries = block_on(checkpoints::load_index(&env.storage)).expect("readable after write {n}");
        let referenced: Vec<String> = entries.iter().filter_map(|e| e.body_key.clone()).collect();
        assert_eq!(
            env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX),
            referenced
        );
        match n {
            // The pruning write failed: nothing changed.
            0 => assert_eq!(entries.len(), 5),
            // Pruned, but the new entry was not published.
            1 | 2 => {
                assert!(result.is_err());
                assert_eq!(entries.len(), 4);
                assert!(entries.iter().all(|e| e.id != "edit-0" && e.id != "edit-5"));
            }
            _ => assert!(result.is_ok()),
        }
    }
}

// ----- checkpoints: retention -----

#[test]
fn retention_evicts_reverted_entries_first_then_the_oldest() {
    let env = Env::new();
    for i in 0..5 {
        env.applied(&format!("edit-{i}"), "s", "a", "b");
        env.clock.advance(10.0);
    }
    assert!(block_on(env.checkpoints().mark_reverted("edit-3")).is_ok());
    assert!(env.stage("edit-5", "s", "a", "b").is_ok());
    let ids: Vec<String> = env.entries().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, ["edit-0", "edit-1", "edit-2", "edit-4", "edit-5"]);
    assert!(env.stage("edit-6", "s", "a", "b").is_ok());
    let ids: Vec<String> = env.entries().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, ["edit-1", "edit-2", "edit-4", "edit-5", "edit-6"]);
    assert_eq!(
        env.storage.value(&checkpoints::body_key("edit-0")),
        None,
        "the evicted body is gone"
    );
}

#[test]
fn retention_never_evicts_an_entry_mid_transaction_until_it_is_abandoned() {
    let env = Env::new();
    for i in 0..5 {
        assert!(env.stage(&format!("edit-{i}"), "s", "a", "b").is_ok());
        env.clock.advance(1_000.0);
    }
    assert_eq!(code(env.stage("edit-5", "s", "a", "b")), "EDIT_CHECKPOINT_HISTORY_BUSY");
    // Once one of them is committed, that one may go.
    assert!(block_on(env.checkpoints().commit("edit-2")).is_ok());
    assert!(env.stage("edit-5", "s", "a", "b").is_ok());
    let ids: Vec<String> = env.entries().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, ["edit-0", "edit-1", "edit-3", "edit-4", "edit-5"]);
    // Five minutes without progress: the oldest prepared entry may go.
    env.clock
        .advance(f64::from(protocol::limits::EDIT_CHECKPOINT_IN_FLIGHT_TTL_MS));
    assert!(env.stage("edit-6", "s", "a", "b").is_ok());
    assert!(env.entries().iter().all(|e| e.id != "edit-0"));
}

#[test]
fn retention_keeps_the_byte_budget() {
    let env = Env::new();
    let big = "\u{1}".repeat(400_000); // about 2.4 MB once stored
    env.applied("edit-0", "s", &big, "b");
    env.applied("edit-1", "s", &big, "b");
    let ids: Vec<String> = env.entries().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, ["edit-1"]);
    assert!(env.entries().iter().map(|e| e.approx_bytes).sum::<f64>() <= 4_194_304.0);
}

#[test]
fn staging_removes_orphaned_bodies() {
    let env = Env::new();
    env.storage.put(
        &checkpoints::body_key("edit-lost"),
        json!({"version": 1, "id": "edit-lost", "beforeText": "x"}),
    );
    env.applied("edit-1", "s", "a", "b");
    assert!(env.stage("edit-2", "s", "b", "c").is_ok());
    assert_eq!(
        env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX),
        [checkpoints::body_key("edit-1"), checkpoints::body_key("edit-2")]
    );
}

#[test]
fn a_damaged_checkpoint_index_stops_everything_and_keeps_the_bodies() {
    let valid = |env: &Env| {
        env.applied("edit-1", "s", "a", "b");
        env.checkpoint_index().expect("index")
    };
    type Damage = Box<dyn Fn(&mut Value)>;
    let mut cases: Vec<Damage> = vec![
        Box::new(|index| index["version"] = json!(2)),
        Box::new(|index| index["entries"] = json!({})),
        Box::new(|index| index["entries"][0]["beforeHash"] = json!("XYZ")),
        Box::new(|index| index["entries"][0]["status"] = json!("done")),
        Box::new(|index| index["entries"][0]["pendingAfterHash"] = index["entries"][0]["afterHash"].clone()),
        Box::new(|index| index["entries"][0]["bodyKey"] = Value::Null),
        Box::new(|index| index["entries"][0]["approxBytes"] = json!(5_000_000)),
        Box::new(|index| {
            let entry = index["entries"][0].clone();
            index["entries"] = json!([
                entry.clone(),
                entry.clone(),
                entry.clone(),
                entry.clone(),
                entry.clone(),
                entry
            ]);
        }),
    ];
    for (i, damage) in cases.iter_mut().enumerate() {
        let env = Env::new();
        let mut index = valid(&env);
        damage(&mut index);
        env.storage.put(storage_keys::EDIT_CHECKPOINT_INDEX, index);
        assert_eq!(
            code(env.stage("edit-2", "s", "a", "b")),
            "EDIT_CHECKPOINT_INDEX_INVALID",
            "case {i}"
        );
        assert_eq!(
            code(block_on(env.checkpoints().load("edit-1"))),
            "EDIT_CHECKPOINT_INDEX_INVALID"
        );
        assert_eq!(
            env.storage.keys_with(storage_keys::EDIT_CHECKPOINT_BODY_PREFIX).len(),
            1,
            "case {i}"
        );
    }
    // A JSON 1.0 length is an integer, as in JavaScript.
    let env = Env::new();
    let mut index = valid(&env);
    index["entries"][0]["beforeLength"] = json!(1.0);
    env.storage.put(storage_keys::EDIT_CHECKPOINT_INDEX, index);
    assert!(block_on(env.checkpoints().load("edit-1")).is_ok_and(|r| r.is_some()));
}

#[test]
fn a_cascade_keeps_journal_order_and_only_the_selected_chat() {
    let env = Env::new();
    env.applied("edit-a", "s1", "0", "1");
    env.applied("edit-other", "s2", "x", "y");
    env.applied("edit-b", "s1", "1", "2");
    env.applied("edit-c", "s1", "2", "3");
    let cascade = block_on(env.checkpoints().load_cascade("edit-b"))
        .expect("loaded")
        .expect("found");
    let ids: Vec<&str> = cascade.iter().map(|r| r.meta.id.as_str()).collect();
    assert_eq!(ids, ["edit-b", "edit-c"]);
    assert_eq!(cascade[0].before_text.as_deref(), Some("1"));
    let all = block_on(env.checkpoints().load_cascade("edit-a"))
        .expect("loaded")
        .expect("found");
    assert_eq!(all.len(), 3);
    assert_eq!(block_on(env.checkpoints().load_cascade("edit-none")), Ok(None));
}

// ----- snapshots -----

fn automatic(project: &str, session: &str, run: &str, file: &str, text: &str) -> SnapshotInput {
    SnapshotInput {
        kind: SnapshotKind::Automatic,
        project_id: project.into(),
        file_label: file.into(),
        title: None,
        text: text.into(),
        session_id: Some(session.into()),
        run_id: Some(run.into()),
        protected_snapshot_id: None,
    }
}

fn saved(kind: SnapshotKind, file: &str, text: &str) -> SnapshotInput {
    SnapshotInput {
        kind,
        project_id: "p".into(),
        file_label: file.into(),
        title: None,
        text: text.into(),
        session_id: None,
        run_id: None,
        protected_snapshot_id: None,
    }
}

impl Env {
    fn create(&self, input: SnapshotInput) -> snapshots::CreateOutcome {
        self.clock.advance(10.0);
        block_on(self.snapshots().create(input)).expect("created")
    }

    fn snapshot_ids(&self) -> Vec<String> {
        block_on(snapshots::load_index(&self.storage))
            .unwrap_or_default()
            .into_iter()
            .map(|e| e.id)
            .collect()
    }
}

#[test]
fn an_automatic_snapshot_is_refreshed_or_replaced_per_chat() {
    let env = Env::new();
    let first = env.create(automatic("p", "s", "run-1", "main.typ", "one"));
    assert!(!first.deduplicated);
    assert_eq!(first.snapshot.title, "After latest response");
    assert_eq!(first.snapshot.session_id.as_deref(), Some("s"));
    let stored = env.snapshot_index().expect("index");
    assert_eq!(stored["entries"][0]["runId"], "run-1");
    assert_eq!(stored["entries"][0]["textLength"], 3);

    let same = env.create(automatic("p", "s", "run-2", "main.typ", "one"));
    assert!(same.deduplicated);
    assert_eq!(same.snapshot.id, first.snapshot.id);
    assert!(same.snapshot.created_at > first.snapshot.created_at);
    assert_eq!(env.snapshot_index().expect("index")["entries"][0]["runId"], "run-2");

    let other_chat = env.create(automatic("p", "s2", "run-3", "main.typ", "one"));
    assert_ne!(
        other_chat.snapshot.id, first.snapshot.id,
        "each chat keeps its own copy"
    );

    let replaced = env.create(automatic("p", "s", "run-4", "main.typ", "two"));
    assert!(!replaced.deduplicated);
    assert_eq!(
        env.snapshot_ids(),
        [other_chat.snapshot.id.clone(), replaced.snapshot.id.clone()]
    );
    assert_eq!(env.storage.value(&snapshots::body_key(&first.snapshot.id)), None);
    let body = env.storage.value(&snapshots::body_key(&replaced.snapshot.id));
    assert_eq!(
        body,
        Some(json!({"version": 1, "id": replaced.snapshot.id, "text": "two"}))
    );
}

#[test]
fn manual_and_rescue_copies_are_deduplicated_or_promote_the_same_text() {
    let env = Env::new();
    let auto = env.create(automatic("p", "s", "run-1", "main.typ", "text"));
    let rescue = env.create(SnapshotInput {
        title: Some("Before restore".into()),
        ..saved(SnapshotKind::Rescue, "main.typ", "text")
    });
    assert!(rescue.promoted && rescue.deduplicated);
    assert_eq!(rescue.snapshot.id, auto.snapshot.id);
    assert_eq!(rescue.snapshot.kind, SnapshotKind::Rescue);
    assert_eq!(rescue.snapshot.session_id, None);
    assert_eq!(env.snapshot_index().expect("index")["entries"][0]["runId"], Value::Null);
    let again = env.create(saved(SnapshotKind::Rescue, "main.typ", "text"));
    assert!(again.deduplicated && !again.promoted);
    let manual = env.create(saved(SnapshotKind::Manual, "main.typ", "text"));
    assert!(manual.promoted);
    assert_eq!(manual.snapshot.title, "Manual snapshot");
    let rescue_of_manual = env.create(saved(SnapshotKind::Rescue, "main.typ", "text"));
    assert!(rescue_of_manual.deduplicated && !rescue_of_manual.promoted);
    assert_eq!(rescue_of_manual.snapshot.kind, SnapshotKind::Manual);
    // Another file with the same text is another snapshot.
    let other = env.create(saved(SnapshotKind::Rescue, "other.typ", "text"));
    assert!(!other.deduplicated);
    assert_eq!(env.snapshot_ids().len(), 2);
}

#[test]
fn pruning_drops_automatic_then_rescue_then_manual_and_spares_the_protected_one() {
    let env = Env::new();
    let manual = env.create(saved(SnapshotKind::Manual, "main.typ", "m"));
    let rescue_old = env.create(saved(SnapshotKind::Rescue, "main.typ", "r1"));
    let rescue_new = env.create(saved(SnapshotKind::Rescue, "main.typ", "r2"));
    let auto_a = env.create(automatic("p", "a", "run", "main.typ", "a"));
    let auto_b = env.create(automatic("p", "b", "run", "main.typ", "b"));
    let manual_2 = env.create(saved(SnapshotKind::Manual, "main.typ", "m2"));
    assert_eq!(env.snapshot_ids().len(), 6);
    // A full journal: the oldest automatic copy goes first.
    let r3 = env.create(saved(SnapshotKind::Rescue, "main.typ", "r3"));
    assert!(!env.snapshot_ids().contains(&auto_a.snapshot.id));
    let r4 = env.create(saved(SnapshotKind::Rescue, "main.typ", "r4"));
    assert!(!env.snapshot_ids().contains(&auto_b.snapshot.id));
    // No automatic left: the oldest rescue, unless it is the one being restored.
    let protected = SnapshotInput {
        protected_snapshot_id: Some(rescue_old.snapshot.id.clone()),
        ..saved(SnapshotKind::Rescue, "main.typ", "r5")
    };
    env.create(protected);
    let ids = env.snapshot_ids();
    assert!(ids.contains(&rescue_old.snapshot.id));
    assert!(!ids.contains(&rescue_new.snapshot.id));
    assert!(ids.contains(&manual.snapshot.id) && ids.contains(&manual_2.snapshot.id));
    assert!(ids.contains(&r3.snapshot.id) && ids.contains(&r4.snapshot.id));
    assert_eq!(
        env.storage.keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX).len(),
        6
    );
}

#[test]
fn an_automatic_snapshot_never_evicts_manual_ones() {
    let env = Env::new();
    for i in 0..6 {
        env.create(saved(SnapshotKind::Manual, "main.typ", &format!("m{i}")));
    }
    let before = env.snapshot_index();
    let result = block_on(env.snapshots().create(automatic("p", "s", "run", "main.typ", "new")));
    assert_eq!(code(result), "DOCUMENT_SNAPSHOT_BUDGET_FULL");
    assert_eq!(env.snapshot_index(), before);
    // A rescue copy may evict the oldest manual one.
    env.create(saved(SnapshotKind::Rescue, "main.typ", "r"));
    assert_eq!(env.snapshot_ids().len(), 6);
}

#[test]
fn snapshot_input_and_size_are_checked() {
    let env = Env::new();
    let heavy = "\u{1}".repeat(800_000);
    assert_eq!(
        code(block_on(env.snapshots().create(saved(
            SnapshotKind::Rescue,
            "main.typ",
            &heavy
        )))),
        "DOCUMENT_SNAPSHOT_TOO_LARGE"
    );
    let too_long = "x".repeat(1_000_001);
    assert_eq!(
        code(block_on(env.snapshots().create(saved(
            SnapshotKind::Rescue,
            "main.typ",
            &too_long
        )))),
        "DOCUMENT_SNAPSHOT_TOO_LARGE"
    );
    let mut no_chat = automatic("p", "s", "run", "main.typ", "x");
    no_chat.session_id = None;
    assert_eq!(
        code(block_on(env.snapshots().create(no_chat))),
        "INVALID_DOCUMENT_SNAPSHOT"
    );
    let shielding_automatic = SnapshotInput {
        protected_snapshot_id: Some("snapshot-1".into()),
        ..automatic("p", "s", "run", "main.typ", "x")
    };
    assert_eq!(
        code(block_on(env.snapshots().create(shielding_automatic))),
        "INVALID_DOCUMENT_SNAPSHOT"
    );
    assert_eq!(
        code(block_on(env.snapshots().create(saved(SnapshotKind::Rescue, "", "x")))),
        "INVALID_DOCUMENT_SNAPSHOT"
    );
}

#[test]
fn the_editor_list_is_scoped_to_file_and_chat_newest_first() {
    let env = Env::new();
    // One automatic copy per chat: this one replaces the chat's copy of other.typ.
    env.create(automatic("p", "s", "run", "other.typ", "c"));
    let mine = env.create(automatic("p", "s", "run", "main.typ", "a"));
    env.create(automatic("p", "s2", "run", "main.typ", "b"));
    let rescue = env.create(saved(SnapshotKind::Rescue, "main.typ", "d"));
    env.create(SnapshotInput {
        project_id: "q".into(),
        ..saved(SnapshotKind::Rescue, "main.typ", "e")
    });
    let list = block_on(env.snapshots().list_for_file("p", "main.typ", "s")).expect("listed");
    let ids: Vec<&str> = list.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [rescue.snapshot.id.as_str(), mine.snapshot.id.as_str()]);
    let public = list[1].to_value();
    assert_eq!(
        public.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()),
        Some(
            [
                "createdAt",
                "fileLabel",
                "id",
                "kind",
                "projectId",
                "sessionId",
                "textLength",
                "title"
            ]
            .map(String::from)
            .to_vec()
        )
    );
}

#[test]
fn automatic_copies_are_dropped_after_writes_and_on_divergence() {
    let env = Env::new();
    let main = env.create(automatic("p", "s", "run", "main.typ", "a"));
    let rescue = env.create(saved(SnapshotKind::Rescue, "main.typ", "r"));
    let live = DocumentState::of("a");
    assert_eq!(
        block_on(
            env.snapshots()
                .invalidate_diverged_automatic("p", "s", "main.typ", &live)
        ),
        Ok(0)
    );
    assert_eq!(
        block_on(
            env.snapshots()
                .invalidate_diverged_automatic("p", "s", "other.typ", &DocumentState::of("z"))
        ),
        Ok(0)
    );
    assert_eq!(
        block_on(
            env.snapshots()
                .invalidate_diverged_automatic("p", "s", "main.typ", &DocumentState::of("b"))
        ),
        Ok(1)
    );
    assert_eq!(env.snapshot_ids(), std::slice::from_ref(&rescue.snapshot.id));
    assert_eq!(env.storage.value(&snapshots::body_key(&main.snapshot.id)), None);
    let bad = DocumentState {
        hash: "nope".into(),
        length: 1,
    };
    assert_eq!(
        code(block_on(
            env.snapshots()
                .invalidate_diverged_automatic("p", "s", "main.typ", &bad)
        )),
        "INVALID_DOCUMENT_SNAPSHOT_STATE"
    );
    env.create(automatic("p", "s", "run", "main.typ", "a"));
    env.create(automatic("p", "s2", "run", "main.typ", "a"));
    assert_eq!(
        block_on(env.snapshots().delete_automatic_for_file("p", "s", Some("other.typ"))),
        Ok(0)
    );
    assert_eq!(
        block_on(env.snapshots().delete_automatic_for_file("p", "s", Some("main.typ"))),
        Ok(1)
    );
    assert_eq!(
        env.snapshot_ids().len(),
        2,
        "the rescue copy and the other chat's copy stay"
    );
}

#[test]
fn deleting_a_snapshot_checks_its_project() {
    let env = Env::new();
    let rescue = env.create(saved(SnapshotKind::Rescue, "main.typ", "r"));
    let wrong = block_on(env.snapshots().delete(&rescue.snapshot.id, "q")).expect("answered");
    assert!(!wrong.removed);
    let done = block_on(env.snapshots().delete(&rescue.snapshot.id, "p")).expect("deleted");
    assert!(done.removed);
    assert_eq!(done.snapshot.map(|s| s.id), Some(rescue.snapshot.id.clone()));
    assert!(env.snapshot_ids().is_empty());
    assert!(
        env.storage
            .keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX)
            .is_empty()
    );
}

#[test]
fn every_snapshot_write_can_fail_without_losing_the_prior_state() {
    let setups: [fn(&Env); 2] = [
        |_| {},
        |env| {
            for i in 0..6 {
                env.create(saved(SnapshotKind::Rescue, "main.typ", &format!("r{i}")));
            }
        },
    ];
    for setup in setups {
        for n in 0..5 {
            let env = Env::new();
            setup(&env);
            let before = env.snapshot_index();
            let bodies = env.storage.keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX);
            env.fail_write_number(n);
            let result = block_on(env.snapshots().create(automatic("p", "s", "run", "main.typ", "new")));
            env.storage.clear_hooks();
            if result.is_ok() {
                assert_eq!(n, 2, "a create is two writes: body, then index");
                break;
            }
            assert!(block_on(snapshots::load_index(&env.storage)).is_ok());
            assert_eq!(env.snapshot_index(), before, "write {n}");
            assert_eq!(
                env.storage.keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX),
                bodies
            );
        }
    }
}

#[test]
fn a_damaged_snapshot_index_fails_closed() {
    let env = Env::new();
    let rescue = env.create(saved(SnapshotKind::Rescue, "main.typ", "r"));
    let mut index = env.snapshot_index().expect("index");
    index["entries"][0]["sessionId"] = json!("s");
    env.storage.put(storage_keys::DOCUMENT_SNAPSHOT_INDEX, index);
    assert_eq!(
        code(block_on(env.snapshots().load(&rescue.snapshot.id))),
        "DOCUMENT_SNAPSHOT_INDEX_INVALID"
    );
    assert_eq!(
        code(block_on(env.snapshots().create(saved(
            SnapshotKind::Rescue,
            "main.typ",
            "x"
        )))),
        "DOCUMENT_SNAPSHOT_INDEX_INVALID"
    );
    assert_eq!(
        env.storage.keys_with(storage_keys::DOCUMENT_SNAPSHOT_BODY_PREFIX).len(),
        1
    );
}

#[test]
fn concurrent_journal_writes_are_serialized_by_the_one_queue() {
    let env = Env::new();
    let journal = env.checkpoints();
    let snapshots = env.snapshots();
    // HookedStorage yields at every call, so without the queue these would
    // interleave their read-modify-write of the same index and lose entries.
    let (a, b, c, d) = block_on(futures::future::join4(
        journal.stage(stage_input("edit-a", "s", "1", "2")),
        journal.stage(stage_input("edit-b", "s", "2", "3")),
        snapshots.create(automatic("p", "s", "run", "main.typ", "x")),
        snapshots.create(saved(SnapshotKind::Rescue, "main.typ", "y")),
    ));
    assert!(a.is_ok() && b.is_ok() && c.is_ok() && d.is_ok());
    let ids: Vec<String> = env.entries().into_iter().map(|e| e.id).collect();
    assert_eq!(ids, ["edit-a", "edit-b"]);
    assert_eq!(env.snapshot_ids().len(), 2);
    assert!(!env.queue.is_held());
}
