//! The worker's answers to the chat requests of the panel (`SESSION_*`).
//!
//! The payload arrives typed: the envelope check has already refused an
//! unknown or mistyped field with its code, before anything is read or
//! written.

use crate::bootstrap::StorageAccess;
use crate::envelope::RequestError;
use crate::platform::{Clock, Storage};
use crate::sessions::repository::SessionChanges;
use crate::sessions::store::Sessions;
use crate::storage::StorageAction;
use protocol::{ErrorCode, Payload};
use serde_json::Value;

/// What a refused write of each chat request tells the user was not saved
/// (requests that only read write nothing of their own; the repository's
/// once-per-instance preparation names itself).
fn action_of(payload: &Payload) -> Option<StorageAction> {
    Some(match payload {
        Payload::SessionCreate(_) => StorageAction::CreateChat,
        Payload::SessionUpdate(_) => StorageAction::SaveChat,
        Payload::SessionDelete(_) => StorageAction::DeleteChat,
        Payload::SessionDeleteByProject(_) => StorageAction::DeleteProjectChats,
        Payload::SessionImport(_) => StorageAction::ImportChats,
        _ => return None,
    })
}

/// `SESSION_STORAGE_STATUS`: the chats' storage use, and `storageAccess`,
/// whether the start-up sequence could limit storage to the extension's
/// own pages ([`StorageAccess`]).
pub(crate) async fn storage_status<S: Storage, C: Clock>(
    sessions: &Sessions<'_, S, C>,
    access: &StorageAccess,
) -> Result<Value, RequestError> {
    let mut status = sessions.storage_status().await.map_err(RequestError::from)?;
    if let Value::Object(fields) = &mut status {
        fields.insert("storageAccess".to_owned(), access.to_value());
    }
    Ok(status)
}

/// Answers one chat request.
pub(crate) async fn route<S: Storage, C: Clock>(
    sessions: &Sessions<'_, S, C>,
    payload: Payload,
) -> Result<Value, RequestError> {
    let action = action_of(&payload);
    let answer = match payload {
        Payload::SessionList(project) => sessions.list(&project.project_id).await.map(Value::from),
        Payload::SessionCreate(create) => sessions.create(&create.project_id, create.name.as_deref()).await,
        Payload::SessionGet(session) => sessions
            .get(&session.session_id)
            .await
            .map(|found| found.unwrap_or(Value::Null)),
        Payload::SessionUpdate(update) => {
            let changes = SessionChanges {
                name: update.name,
                messages: update.messages,
                user_renamed: update.user_renamed,
                auto_name: update.auto_name == Some(true),
            };
            sessions
                .update(&update.session_id, changes)
                .await
                .map(|found| found.unwrap_or(Value::Null))
        }
        Payload::SessionDelete(session) => sessions.delete(&session.session_id).await,
        Payload::SessionListAllGrouped(_) => sessions.list_all_grouped().await.map(Value::from),
        Payload::SessionDeleteByProject(project) => sessions.delete_by_project(&project.project_id).await,
        Payload::SessionExport(_) => sessions.export().await,
        Payload::SessionImport(import) => match import.data() {
            Some(data) => sessions.import(data).await,
            None => {
                return Err(RequestError::new(
                    ErrorCode::MissingPayloadField,
                    "Nothing to import was sent.",
                ));
            }
        },
        other => return Err(RequestError::unrouted(other.message_type())),
    };
    answer.map_err(|error| match action {
        Some(action) => RequestError::from(error.during(action)),
        None => RequestError::from(error),
    })
}

#[cfg(test)]
mod tests {
    use crate::fakes::{FakePlatform, block_on, code, data};
    use crate::sessions::repository::TranscriptOutcome;
    use crate::worker::Worker;
    use serde_json::{Value, json};

    #[test]
    fn the_storage_status_says_whether_storage_is_limited_to_trusted_pages() {
        let status =
            |worker: &Worker<FakePlatform>| data(worker, "SESSION_STORAGE_STATUS", json!({}))["storageAccess"].clone();
        let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), crate::fakes::VERSION);
        assert_eq!(
            status(&worker),
            json!({"state": "pending"}),
            "before the start-up sequence"
        );
        block_on(worker.bootstrap());
        assert_eq!(status(&worker), json!({"state": "trusted-contexts"}));

        let old: Worker<FakePlatform> = Worker::new(FakePlatform::default(), crate::fakes::VERSION);
        old.platform.browser.storage.lack_access_level();
        block_on(old.bootstrap());
        assert_eq!(
            status(&old),
            json!({"state": "unsupported",
                   "reason": "This browser does not offer chrome.storage.local.setAccessLevel."})
        );
        assert_eq!(data(&old, "SESSION_STORAGE_STATUS", json!({}))["warning"], json!(false));
    }

    #[test]
    fn chat_requests_round_trip_through_the_router() {
        let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), crate::fakes::VERSION);
        let created = data(&worker, "SESSION_CREATE", json!({"projectId": "p", "name": "Chat"}));
        let id = created["id"].as_str().unwrap_or_default().to_owned();
        assert_eq!(created["messages"], json!([]));
        let messages = json!([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]);
        let updated = data(
            &worker,
            "SESSION_UPDATE",
            json!({"sessionId": id, "messages": messages}),
        );
        assert_eq!(updated["messageCount"], json!(2));
        assert_eq!(updated["preview"], json!("Hi"));
        assert!(updated["bodyKey"].is_string());
        let listed = data(&worker, "SESSION_LIST", json!({"projectId": "p"}));
        assert_eq!(listed.as_array().map(Vec::len), Some(1));
        assert_eq!(listed[0].get("bodyKey"), None);
        let got = data(&worker, "SESSION_GET", json!({"sessionId": id}));
        assert_eq!(got["messages"], messages);
        assert_eq!(
            data(&worker, "SESSION_GET", json!({"sessionId": "missing"})),
            Value::Null
        );
        assert_eq!(
            data(&worker, "SESSION_UPDATE", json!({"sessionId": "missing", "name": "x"})),
            Value::Null
        );
        let grouped = data(&worker, "SESSION_LIST_ALL_GROUPED", json!({}));
        assert_eq!(grouped[0]["sessions"][0]["searchText"], json!("hi hello"));
        let status = data(&worker, "SESSION_STORAGE_STATUS", json!({}));
        assert_eq!(status["warning"], json!(false));
        let exported = data(&worker, "SESSION_EXPORT", json!({}));
        assert_eq!(exported["sessions"][0]["messages"], messages);
        assert_eq!(
            data(&worker, "SESSION_DELETE", json!({"sessionId": id})),
            json!({"ok": true, "removed": 1})
        );
        let imported = data(&worker, "SESSION_IMPORT", json!({"exportData": exported}));
        assert_eq!(
            imported,
            json!({"ok": true, "imported": 1, "rejected": 0, "renamed": 0})
        );
        let imported = data(
            &worker,
            "SESSION_IMPORT",
            json!({"records": [{"projectId": "p", "messages": []}]}),
        );
        assert_eq!(imported["imported"], json!(1));
        assert_eq!(
            data(&worker, "SESSION_DELETE_BY_PROJECT", json!({"projectId": "p"})),
            json!({"ok": true, "removed": 2})
        );
    }

    #[test]
    fn payloads_are_checked_exactly_before_anything_runs() {
        let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), crate::fakes::VERSION);
        assert_eq!(code(&worker, "SESSION_LIST", json!({})), json!("MISSING_PAYLOAD_FIELD"));
        assert_eq!(
            code(&worker, "SESSION_LIST", json!({"projectId": "p", "x": 1})),
            json!("UNKNOWN_PAYLOAD_FIELD")
        );
        assert_eq!(
            code(&worker, "SESSION_EXPORT", json!({"all": true})),
            json!("UNKNOWN_PAYLOAD_FIELD")
        );
        assert_eq!(
            code(
                &worker,
                "SESSION_UPDATE",
                json!({"sessionId": "s", "autoName": true, "messages": []})
            ),
            json!("INVALID_SESSION_UPDATE")
        );
        assert_eq!(
            code(&worker, "SESSION_IMPORT", json!({})),
            json!("MISSING_PAYLOAD_FIELD")
        );
        assert_eq!(
            code(
                &worker,
                "SAVE_SETTINGS",
                json!({"settings": {}, "modelMutation": {"type": "rename"}})
            ),
            json!("INVALID_MODEL_MUTATION")
        );
        assert_eq!(
            code(&worker, "SAVE_SETTINGS", json!({"settings": {}, "fields": ["apiKey"]})),
            json!("INVALID_SETTINGS_FIELDS")
        );
        assert_eq!(
            code(&worker, "LOAD_SETTINGS", json!({"x": 1})),
            json!("UNKNOWN_PAYLOAD_FIELD")
        );
        assert_eq!(
            worker.platform.browser.storage.value("typstAgent.sessionIndex.v2"),
            None
        );
        let created = data(&worker, "SESSION_CREATE", json!({"projectId": "p"}));
        let bad = json!({"sessionId": created["id"], "messages": [{"role": "system", "content": "x"}]});
        assert_eq!(code(&worker, "SESSION_UPDATE", bad), json!("INVALID_SESSION_RECORD"));
    }

    #[test]
    fn the_run_engine_saves_transcripts_through_the_worker() {
        let worker: Worker<FakePlatform> = Worker::new(FakePlatform::default(), crate::fakes::VERSION);
        let created = data(&worker, "SESSION_CREATE", json!({"projectId": "p"}));
        let id = created["id"].as_str().unwrap_or_default().to_owned();
        let start = [json!({"role": "user", "content": "q"})];
        let entry = json!({"role": "assistant", "content": "a", "responseStatus": "incomplete"});
        let outcome = block_on(worker.sessions().persist_run_transcript(&id, &start, &entry));
        assert_eq!(outcome, Ok(TranscriptOutcome::Appended));
        let got = data(&worker, "SESSION_GET", json!({"sessionId": id}));
        assert_eq!(got["messages"][1]["content"], json!("a"));
    }
}
