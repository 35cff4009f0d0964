//! The start-up order, checked through a log the steps write to: what an
//! answer waits for, and what waits for the answers. Every wait is a
//! oneshot the test fires, so the order does not depend on timing.

use super::*;
use crate::fakes::{FakeBrowser, FakePlatform, block_on};
use crate::worker::Worker;
use futures::channel::oneshot;
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::json;

type Log = Rc<RefCell<Vec<&'static str>>>;

struct Rig {
    pool: LocalPool,
    startup: Rc<Startup>,
    log: Log,
}

impl Rig {
    /// A begun sequence, as the shim leaves it before it hands over the
    /// messages that waited.
    fn begun() -> Rig {
        let startup = Rc::new(Startup::default());
        startup.begin();
        Rig {
            pool: LocalPool::new(),
            startup,
            log: Rc::default(),
        }
    }

    /// A message whose answer needs `needs` and is made when the returned
    /// sender fires (a storage read in flight, say).
    fn message(&self, needs: Needs, name: &'static str) -> oneshot::Sender<()> {
        let (done, made) = oneshot::channel::<()>();
        let (startup, log) = (Rc::clone(&self.startup), Rc::clone(&self.log));
        self.pool
            .spawner()
            .spawn_local(async move {
                let (_hold, ready) = startup.admit(needs);
                ready.await;
                let _ = made.await;
                log.borrow_mut().push(name);
            })
            .expect("spawn");
        done
    }

    /// The sequence, its essential step finishing when the returned sender fires.
    fn sequence(&self) -> oneshot::Sender<()> {
        let (done, finished) = oneshot::channel::<()>();
        let (startup, log) = (Rc::clone(&self.startup), Rc::clone(&self.log));
        self.pool
            .spawner()
            .spawn_local(async move {
                let essential = async {
                    let _ = finished.await;
                    log.borrow_mut().push("essential");
                };
                let side_work = |()| async { log.borrow_mut().push("side work") };
                startup.run(essential, side_work).await;
            })
            .expect("spawn");
        done
    }

    fn settle(&mut self) -> Vec<&'static str> {
        self.pool.run_until_stalled();
        self.log.borrow().clone()
    }
}

#[test]
fn the_side_work_waits_for_the_storage_answers_that_came_first() {
    let mut rig = Rig::begun();
    let settings = rig.message(Needs::Nothing, "settings answered");
    let sessions = rig.message(Needs::Nothing, "sessions answered");
    let essential = rig.sequence();
    let _ = essential.send(());
    assert_eq!(
        rig.settle(),
        ["essential"],
        "no side work while two answers are being made"
    );
    let _ = settings.send(());
    assert_eq!(rig.settle(), ["essential", "settings answered"]);
    let _ = sessions.send(());
    assert_eq!(
        rig.settle(),
        ["essential", "settings answered", "sessions answered", "side work"]
    );
}

#[test]
fn a_storage_answer_does_not_wait_for_the_essential_step() {
    let mut rig = Rig::begun();
    let settings = rig.message(Needs::Nothing, "settings answered");
    let essential = rig.sequence();
    let _ = settings.send(());
    assert_eq!(rig.settle(), ["settings answered"]);
    let _ = essential.send(());
    assert_eq!(rig.settle(), ["settings answered", "essential", "side work"]);
}

#[test]
fn the_storage_status_waits_for_the_access_level_it_reports() {
    let mut rig = Rig::begun();
    let status = rig.message(Needs::StorageAccess, "status answered");
    let essential = rig.sequence();
    let _ = status.send(());
    assert_eq!(
        rig.settle(),
        Vec::<&str>::new(),
        "not answered from half-initialised state"
    );
    let _ = essential.send(());
    assert_eq!(rig.settle(), ["essential", "status answered", "side work"]);
}

#[test]
fn answers_that_may_wait_on_the_side_work_do_not_hold_it_back() {
    let mut rig = Rig::begun();
    let page_read = rig.message(Needs::Independent, "page read answered");
    let essential = rig.sequence();
    let _ = essential.send(());
    assert_eq!(rig.settle(), ["essential", "side work"]);
    let _ = page_read.send(());
    assert_eq!(rig.settle(), ["essential", "side work", "page read answered"]);
}

#[test]
fn a_message_after_the_side_work_began_holds_nothing() {
    let mut rig = Rig::begun();
    let essential = rig.sequence();
    let _ = essential.send(());
    assert_eq!(rig.settle(), ["essential", "side work"]);
    let (hold, _) = rig.startup.admit(Needs::Nothing);
    assert!(hold.is_none());
}

#[test]
fn a_worker_that_never_began_the_sequence_answers_at_once() {
    let startup = Startup::default();
    let (hold, ready) = startup.admit(Needs::StorageAccess);
    assert!(hold.is_none());
    block_on(ready);
    assert!(startup.admit(Needs::Nothing).0.is_none());
}

#[test]
fn storage_answers_are_the_ones_that_hold_the_side_work() {
    assert_eq!(needs(MessageType::LoadSettings), Needs::Nothing);
    assert_eq!(needs(MessageType::SessionList), Needs::Nothing);
    assert_eq!(needs(MessageType::SessionStorageStatus), Needs::StorageAccess);
    for independent in [
        MessageType::GetEditorContext,
        MessageType::AiStreamStart,
        MessageType::QuickAttachSelection,
        MessageType::OpenProjectTab,
        MessageType::GenerateSessionTitle,
        MessageType::ProbeMcpServer,
        MessageType::SaveMcpServers,
    ] {
        assert_eq!(needs(independent), Needs::Independent, "{independent:?}");
    }
}

/// The worker itself: a storage status asked while the module started (the
/// shim hands it over right after `start()`) reports the level the sequence
/// set, never `pending`; the tabs are repaired after it.
#[test]
fn a_woken_worker_reports_the_access_level_it_set_and_repairs_the_tabs_after() {
    let platform: FakePlatform = FakePlatform {
        browser: FakeBrowser::with_tabs(&[(1, "https://typst.app/project/a")]),
        ..FakePlatform::default()
    };
    let worker = Rc::new(Worker::new(platform, crate::fakes::VERSION));
    worker.startup.begin();
    let log: Log = Rc::default();
    let mut pool = LocalPool::new();
    let (status_worker, status_log) = (Rc::clone(&worker), Rc::clone(&log));
    pool.spawner()
        .spawn_local(async move {
            let answer = status_worker
                .handle_message(&json!({"type": "SESSION_STORAGE_STATUS", "requestId": "s", "payload": {}}))
                .await
                .expect("answered");
            assert_eq!(
                answer["payload"]["data"]["storageAccess"],
                json!({"state": "trusted-contexts"})
            );
            assert!(
                status_worker.platform.browser.injections().is_empty(),
                "before the tabs"
            );
            status_log.borrow_mut().push("status answered");
        })
        .expect("spawn");
    let (start_worker, start_log) = (Rc::clone(&worker), Rc::clone(&log));
    pool.spawner()
        .spawn_local(async move {
            let problems = start_worker.start_up().await;
            assert_eq!(problems, Vec::<String>::new());
            start_log.borrow_mut().push("started up");
        })
        .expect("spawn");
    pool.run_until_stalled();
    assert_eq!(*log.borrow(), ["status answered", "started up"]);
    assert_eq!(
        worker.platform.browser.injections().len(),
        2,
        "the open typst.app tab was repaired"
    );
    assert!(worker.platform.browser.storage.is_restricted());
}
