//! Chats of the current project as the panel sees them: metadata from the
//! worker, the rename rules of the session menu, and what an automatic title
//! request carries.

use protocol::js;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Longest name the rename input accepts (UTF-16 units, like `maxLength`).
pub(crate) const RENAME_MAX_CHARS: usize = 80;
/// Name of a chat nobody named yet.
pub(crate) const NEW_CHAT_NAME: &str = "New chat";

/// A chat's metadata (`SESSION_LIST` entries, or the head of a full session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionMeta {
    pub(crate) id: String,
    pub(crate) project_id: String,
    pub(crate) name: String,
    pub(crate) user_renamed: bool,
}

impl SessionMeta {
    pub(crate) fn from_value(value: &Value) -> Option<SessionMeta> {
        let map = value.as_object()?;
        let id = map.get("id")?.as_str().filter(|s| !s.is_empty())?.to_owned();
        let project_id = map.get("projectId")?.as_str()?.to_owned();
        let name = map.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        Some(SessionMeta {
            id,
            project_id,
            name,
            user_renamed: map.get("userRenamed").and_then(Value::as_bool).unwrap_or(false),
        })
    }

    /// What the header shows.
    pub(crate) fn display_name(&self) -> &str {
        if self.name.is_empty() {
            NEW_CHAT_NAME
        } else {
            &self.name
        }
    }
}

/// A `SESSION_LIST` answer; entries that are not sessions are skipped.
pub(crate) fn parse_list(value: &Value) -> Vec<SessionMeta> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(SessionMeta::from_value).collect())
        .unwrap_or_default()
}

/// A full session (`SESSION_GET`, `SESSION_CREATE`): metadata and messages.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Session {
    pub(crate) meta: SessionMeta,
    pub(crate) messages: Vec<Value>,
}

impl Session {
    pub(crate) fn from_value(value: &Value) -> Option<Session> {
        let meta = SessionMeta::from_value(value)?;
        let messages = value.get("messages")?.as_array()?.clone();
        Some(Session { meta, messages })
    }
}

/// The name a finished rename saves, or `None` to keep the old one (empty,
/// unchanged, or cancelled input).
pub(crate) fn rename_target(original: &str, input: &str) -> Option<String> {
    let trimmed = js::js_trim(js::truncate_utf16(input, RENAME_MAX_CHARS));
    (!trimmed.is_empty() && trimmed != original).then(|| trimmed.to_owned())
}

/// After a delete: the chat to open, or `None` to create a new one. Only
/// changes the open chat when it was the one deleted.
pub(crate) fn after_delete<'a>(remaining: &'a [SessionMeta], current: Option<&str>, deleted: &str) -> AfterDelete<'a> {
    match remaining.first() {
        None => AfterDelete::CreateNew,
        Some(newest) if current == Some(deleted) => AfterDelete::Switch(newest),
        Some(_) => AfterDelete::KeepCurrent,
    }
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum AfterDelete<'a> {
    CreateNew,
    Switch(&'a SessionMeta),
    KeepCurrent,
}

/// The messages an automatic title request sends: user and assistant turns
/// with text, reduced to role and content.
pub(crate) fn title_messages(history: &[Value]) -> Vec<Value> {
    history
        .iter()
        .filter_map(|message| {
            let role = message.get("role")?.as_str()?;
            if role != "user" && role != "assistant" {
                return None;
            }
            let content = message.get("content").and_then(Value::as_str).unwrap_or_default();
            (!content.is_empty()).then(|| json!({"role": role, "content": content}))
        })
        .collect()
}

/// Per-chat counter so only the newest naming request may rename a chat.
#[derive(Debug, Default)]
pub(crate) struct TitleGenerations(HashMap<String, u64>);

impl TitleGenerations {
    pub(crate) fn next(&mut self, session_id: &str) -> u64 {
        let counter = self.0.entry(session_id.to_owned()).or_insert(0);
        *counter += 1;
        *counter
    }

    pub(crate) fn is_current(&self, session_id: &str, generation: u64) -> bool {
        self.0.get(session_id) == Some(&generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_and_sessions_parse_leniently() {
        let list = parse_list(&json!([
            {"id": "s2", "projectId": "p", "name": "Newest", "userRenamed": true, "messageCount": 4},
            {"id": "", "projectId": "p"},
            {"projectId": "p"},
            {"id": "s1", "projectId": "p", "name": ""}
        ]));
        assert_eq!(list.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["s2", "s1"]);
        assert!(list[0].user_renamed);
        assert_eq!(list[1].display_name(), "New chat");
        assert!(parse_list(&json!(null)).is_empty());
        let full =
            Session::from_value(&json!({"id": "s", "projectId": "p", "name": "n", "messages": [{"role": "user"}]}));
        assert_eq!(full.map(|s| s.messages.len()), Some(1));
        assert_eq!(Session::from_value(&json!({"id": "s", "projectId": "p"})), None);
    }

    #[test]
    fn renames_trim_bound_and_ignore_no_ops() {
        assert_eq!(rename_target("Old", "  New name "), Some("New name".to_owned()));
        assert_eq!(rename_target("Old", "Old"), None);
        assert_eq!(rename_target("Old", "   "), None);
        let long = "é".repeat(100);
        assert_eq!(rename_target("Old", &long).map(|s| s.chars().count()), Some(80));
        let astral = "🙂".repeat(50);
        assert_eq!(rename_target("Old", &astral).map(|s| js::utf16_len(&s)), Some(80));
    }

    #[test]
    fn deleting_switches_only_away_from_the_deleted_chat() {
        let meta = |id: &str| SessionMeta {
            id: id.to_owned(),
            project_id: "p".to_owned(),
            name: String::new(),
            user_renamed: false,
        };
        let remaining = vec![meta("b"), meta("c")];
        assert_eq!(after_delete(&[], Some("a"), "a"), AfterDelete::CreateNew);
        assert_eq!(
            after_delete(&remaining, Some("a"), "a"),
            AfterDelete::Switch(&remaining[0])
        );
        assert_eq!(after_delete(&remaining, Some("c"), "a"), AfterDelete::KeepCurrent);
    }

    #[test]
    fn title_requests_carry_only_turns_with_text() {
        let history = vec![
            json!({"role": "user", "content": "Fix my table", "activeEditorFile": {"relativePath": "main.typ"}}),
            json!({"role": "assistant", "content": "", "toolCalls": []}),
            json!({"role": "tool", "content": "x"}),
            json!({"role": "assistant", "content": "Done."}),
        ];
        assert_eq!(
            title_messages(&history),
            vec![
                json!({"role": "user", "content": "Fix my table"}),
                json!({"role": "assistant", "content": "Done."})
            ]
        );
    }

    #[test]
    fn only_the_newest_title_generation_is_current() {
        let mut generations = TitleGenerations::default();
        let first = generations.next("s");
        let other = generations.next("t");
        let second = generations.next("s");
        assert!(!generations.is_current("s", first));
        assert!(generations.is_current("s", second));
        assert!(generations.is_current("t", other));
    }
}
