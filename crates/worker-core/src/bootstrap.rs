//! What every fresh worker instance does first.
//!
//! Unpacked reloads and browser updates can leave a stale or missing dynamic
//! registration behind, and `onInstalled` does not reliably run again, so each
//! worker start repairs the state: (1) the main-world registration, (2) the
//! storage access level, (3) the scripts in typst.app tabs that were already
//! open, (4) the side panel for every tab, then tells open panels.
//!
//! Step (2) may do nothing: a browser without
//! `chrome.storage.local.setAccessLevel` leaves storage readable by this
//! extension's content scripts. The outcome is kept ([`StorageAccess`]) and
//! reported in the `SESSION_STORAGE_STATUS` answer, so the About dialog can
//! say so instead of the worker staying silent.

use crate::platform::{Messenger, PlatformError, Registration, Scripting, Storage, Tabs, World};
use crate::tabs;
use protocol::page_bridge::{
    ISOLATED_WORLD_FILES, LEGACY_MAIN_CONTENT_SCRIPT_IDS, MAIN_CONTENT_SCRIPT_ID, MAIN_WORLD_FILES, TYPST_MATCHES,
};
use serde_json::{Value, json};

/// What [`ensure_main_world_registration`] had to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegistrationAction {
    Registered,
    Unchanged,
    RemovedLegacy,
    Updated,
}

fn desired_main_registration() -> Registration {
    Registration {
        id: MAIN_CONTENT_SCRIPT_ID.to_owned(),
        matches: TYPST_MATCHES.iter().map(|m| (*m).to_owned()).collect(),
        js: MAIN_WORLD_FILES.iter().map(|f| (*f).to_owned()).collect(),
        run_at: "document_start".to_owned(),
        world: World::Main,
        persist_across_sessions: true,
    }
}

fn same_registration(actual: &Registration, desired: &Registration) -> bool {
    actual.matches == desired.matches
        && actual.js == desired.js
        && actual.run_at == desired.run_at
        && actual.world == desired.world
        && actual.persist_across_sessions
}

/// Removes legacy registrations and registers or updates the current one.
async fn ensure_main_world_registration(scripting: &impl Scripting) -> Result<RegistrationAction, PlatformError> {
    let mut ids = vec![MAIN_CONTENT_SCRIPT_ID];
    ids.extend_from_slice(LEGACY_MAIN_CONTENT_SCRIPT_IDS);
    let registered = scripting.registered(&ids).await?;
    let legacy: Vec<String> = registered
        .iter()
        .filter(|r| LEGACY_MAIN_CONTENT_SCRIPT_IDS.contains(&r.id.as_str()))
        .map(|r| r.id.clone())
        .collect();
    if !legacy.is_empty() {
        scripting.unregister(&legacy).await?;
    }
    let desired = desired_main_registration();
    match registered.iter().find(|r| r.id == MAIN_CONTENT_SCRIPT_ID) {
        None => {
            scripting.register(&desired).await?;
            Ok(RegistrationAction::Registered)
        }
        Some(current) if same_registration(current, &desired) => Ok(if legacy.is_empty() {
            RegistrationAction::Unchanged
        } else {
            RegistrationAction::RemovedLegacy
        }),
        Some(_) => {
            scripting.update(&desired).await?;
            Ok(RegistrationAction::Updated)
        }
    }
}

/// Runs the content scripts in every open typst.app tab, isolated world
/// first. The scripts are idempotent; a tab that refuses is skipped.
async fn inject_into_open_typst_tabs(
    tabs: &impl Tabs,
    scripting: &impl Scripting,
) -> Result<Vec<(i64, Result<(), PlatformError>)>, PlatformError> {
    let mut results = Vec::new();
    for tab in tabs.all().await? {
        let Some(id) = tab.id.filter(|_| protocol::constants::is_typst_app_url(&tab.url)) else {
            continue;
        };
        let result = match scripting.execute_files(id, ISOLATED_WORLD_FILES, World::Isolated).await {
            Ok(()) => scripting.execute_files(id, MAIN_WORLD_FILES, World::Main).await,
            Err(error) => Err(error),
        };
        results.push((id, result));
    }
    Ok(results)
}

/// Whether `chrome.storage.local` is limited to this extension's trusted
/// pages (not its content scripts), as the start-up sequence left it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum StorageAccess {
    /// The start-up sequence has not reached the step yet.
    #[default]
    Pending,
    /// `setAccessLevel({accessLevel: 'TRUSTED_CONTEXTS'})` succeeded.
    TrustedContexts,
    /// The browser has no `storage.local.setAccessLevel`.
    Unsupported,
    /// The call failed, with the browser's reason.
    Failed(String),
}

impl StorageAccess {
    /// The `storageAccess` member of the `SESSION_STORAGE_STATUS` answer:
    /// `{state, reason?}` with `state` one of `pending`, `trusted-contexts`,
    /// `unsupported`, `failed`.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            StorageAccess::Pending => json!({"state": "pending"}),
            StorageAccess::TrustedContexts => json!({"state": "trusted-contexts"}),
            StorageAccess::Unsupported => json!({
                "state": "unsupported",
                "reason": "This browser does not offer chrome.storage.local.setAccessLevel."
            }),
            StorageAccess::Failed(reason) => json!({"state": "failed", "reason": reason}),
        }
    }
}

/// What the start-up sequence did: each step's problem, and the storage
/// access level it could set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) problems: Vec<String>,
    pub(crate) storage_access: StorageAccess,
}

/// The whole start-up sequence, in its first order. Each step's failure is
/// reported but does not stop the later steps: a worker that cannot inject
/// into one tab still serves the panel. `runtime.onInstalled` and
/// `onStartup` run it; a woken worker runs the same steps split by
/// [`crate::startup`] ([`restrict_storage`] first, [`repair`] after the
/// answers it holds).
pub(crate) async fn run(
    storage: &impl Storage,
    tabs: &impl Tabs,
    scripting: &impl Scripting,
    messenger: &impl Messenger,
) -> Outcome {
    let mut problems = Vec::new();
    if let Err(error) = ensure_main_world_registration(scripting).await {
        problems.push(format!("main-world registration: {error}"));
    }
    let (storage_access, problem) = restrict_storage(storage).await;
    problems.extend(problem);
    problems.extend(repair_tabs(tabs, scripting, messenger).await);
    Outcome {
        problems,
        storage_access,
    }
}

/// Step (2): limits `chrome.storage.local` to trusted contexts; the level it
/// could set, and the problem when it could not.
pub(crate) async fn restrict_storage(storage: &impl Storage) -> (StorageAccess, Option<String>) {
    match storage.restrict_to_trusted_contexts().await {
        Ok(true) => (StorageAccess::TrustedContexts, None),
        Ok(false) => (
            StorageAccess::Unsupported,
            Some("storage access level: storage.local.setAccessLevel is unavailable".to_owned()),
        ),
        Err(error) => (
            StorageAccess::Failed(error.to_string()),
            Some(format!("storage access level: {error}")),
        ),
    }
}

/// Steps (1), (3) and (4): the registration, the scripts in open typst.app
/// tabs, the side panel per tab and the panel sync; the problems, step by step.
pub(crate) async fn repair(tabs: &impl Tabs, scripting: &impl Scripting, messenger: &impl Messenger) -> Vec<String> {
    let mut problems = Vec::new();
    if let Err(error) = ensure_main_world_registration(scripting).await {
        problems.push(format!("main-world registration: {error}"));
    }
    problems.extend(repair_tabs(tabs, scripting, messenger).await);
    problems
}

/// Steps (3) and (4).
async fn repair_tabs(tabs: &impl Tabs, scripting: &impl Scripting, messenger: &impl Messenger) -> Vec<String> {
    let mut problems = Vec::new();
    match inject_into_open_typst_tabs(tabs, scripting).await {
        Ok(results) => problems.extend(
            results
                .into_iter()
                .filter_map(|(id, result)| result.err().map(|error| format!("injection into tab {id}: {error}"))),
        ),
        Err(error) => problems.push(format!("listing tabs for injection: {error}")),
    }
    if let Err(error) = tabs::refresh_all(tabs, messenger).await {
        problems.push(format!("side panel sync: {error}"));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fakes::{FakeBrowser, block_on};

    #[test]
    fn registers_when_missing_and_is_unchanged_after() {
        let browser = FakeBrowser::default();
        assert_eq!(
            block_on(ensure_main_world_registration(&browser)),
            Ok(RegistrationAction::Registered)
        );
        assert_eq!(browser.registrations(), vec![desired_main_registration()]);
        assert_eq!(
            block_on(ensure_main_world_registration(&browser)),
            Ok(RegistrationAction::Unchanged)
        );
    }

    #[test]
    fn removes_legacy_ids_and_updates_stale_files() {
        let browser = FakeBrowser::default();
        let mut stale = desired_main_registration();
        stale.js = vec!["src/content/old.js".into()];
        browser.add_registration(stale);
        let mut legacy = desired_main_registration();
        legacy.id = "typst-agent-main".into();
        browser.add_registration(legacy);
        assert_eq!(
            block_on(ensure_main_world_registration(&browser)),
            Ok(RegistrationAction::Updated)
        );
        assert_eq!(browser.registrations(), vec![desired_main_registration()]);

        let mut legacy = desired_main_registration();
        legacy.id = "typst-agent-main".into();
        browser.add_registration(legacy);
        assert_eq!(
            block_on(ensure_main_world_registration(&browser)),
            Ok(RegistrationAction::RemovedLegacy)
        );
    }

    #[test]
    fn a_non_persistent_registration_is_replaced() {
        let browser = FakeBrowser::default();
        let mut transient = desired_main_registration();
        transient.persist_across_sessions = false;
        browser.add_registration(transient);
        assert_eq!(
            block_on(ensure_main_world_registration(&browser)),
            Ok(RegistrationAction::Updated)
        );
        assert_eq!(browser.registrations(), [desired_main_registration()], "now persistent");
    }

    #[test]
    fn injects_isolated_then_main_into_typst_tabs_only() {
        let browser = FakeBrowser::with_tabs(&[
            (1, "https://typst.app/project/a"),
            (2, "https://example.com/"),
            (3, "https://typst.app/"),
        ]);
        browser.refuse_injection(3);
        let results = block_on(inject_into_open_typst_tabs(&browser, &browser)).expect("tabs listed");
        assert_eq!(results.len(), 2);
        assert_eq!(results[0], (1, Ok(())));
        assert!(results[1].1.is_err());
        let injected = browser.injections();
        assert_eq!(
            injected,
            vec![
                (1, ISOLATED_WORLD_FILES.len(), World::Isolated),
                (1, MAIN_WORLD_FILES.len(), World::Main)
            ]
        );
    }

    #[test]
    fn bootstrap_runs_every_step_even_after_a_failure() {
        let browser = FakeBrowser::with_tabs(&[(1, "https://typst.app/project/a")]);
        browser.activate(1);
        browser.fail_registration("registration refused");
        let outcome = block_on(run(&browser.storage, &browser, &browser, &browser));
        assert_eq!(
            outcome.problems,
            vec!["main-world registration: registration refused".to_owned()]
        );
        assert_eq!(outcome.storage_access, StorageAccess::TrustedContexts);
        assert!(browser.storage.is_restricted());
        assert_eq!(browser.injections().len(), 2);
        assert_eq!(browser.panel_state(1), Some(true));
        assert_eq!(browser.broadcasts().len(), 1);
    }

    #[test]
    fn a_browser_without_set_access_level_is_recorded_not_ignored() {
        let browser = FakeBrowser::with_tabs(&[(1, "https://typst.app/project/a")]);
        browser.storage.lack_access_level();
        let outcome = block_on(run(&browser.storage, &browser, &browser, &browser));
        assert_eq!(outcome.storage_access, StorageAccess::Unsupported);
        assert_eq!(
            outcome.problems,
            ["storage access level: storage.local.setAccessLevel is unavailable"]
        );
        assert!(!browser.storage.is_restricted());
        assert_eq!(browser.injections().len(), 2, "the later steps still ran");
        assert_eq!(
            outcome.storage_access.to_value(),
            json!({"state": "unsupported",
                   "reason": "This browser does not offer chrome.storage.local.setAccessLevel."})
        );
        assert_eq!(StorageAccess::default().to_value(), json!({"state": "pending"}));
    }
}
