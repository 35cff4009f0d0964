//! Settings → Sessions, decided in plain Rust: the grouped chat list as the
//! worker answers it (`SESSION_LIST_ALL_GROUPED`), the filter typed into
//! `sessions-search`, the summary and storage lines, one card per project
//! with its chat rows, the confirmations of both deletes, the export file's
//! name, the checks on an import file before it reaches the worker, and the
//! sentences that report what happened.
//!
//! The filter matches like the original: the query is trimmed and
//! lower-cased; a chat matches by its name or its project id, or by the
//! index's `searchText` (already lower-cased by the worker); a project whose
//! id matches keeps its card even when none of its chats do.

use crate::sessions::SessionMeta;
use protocol::ErrorCode;
use protocol::js;
use protocol::limits::{MAX_SESSION_IMPORT_FILE_BYTES, MAX_SESSION_IMPORT_RECORDS};
use serde_json::Value;

#[cfg(test)]
mod tests;

/// One chat of a project card (a `sessions` entry of the grouped list).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ManagedSession {
    pub(crate) meta: SessionMeta,
    pub(crate) preview: String,
    pub(crate) message_count: u64,
    pub(crate) updated_at: f64,
    /// The worker's lower-cased text of the chat's messages.
    pub(crate) search_text: String,
}

/// One project of the grouped list, newest activity first.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProjectGroup {
    pub(crate) project_id: String,
    pub(crate) sessions: Vec<ManagedSession>,
    pub(crate) last_activity: f64,
    pub(crate) total_messages: u64,
}

fn number(value: &Value, key: &str) -> f64 {
    value.get(key).and_then(js::as_number).unwrap_or(0.0)
}

fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(js::as_safe_uint).unwrap_or(0)
}

fn text(value: &Value, key: &str) -> String {
    value.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

impl ManagedSession {
    fn from_value(value: &Value) -> Option<ManagedSession> {
        Some(ManagedSession {
            meta: SessionMeta::from_value(value)?,
            preview: text(value, "preview"),
            message_count: count(value, "messageCount"),
            updated_at: number(value, "updatedAt"),
            search_text: text(value, "searchText"),
        })
    }
}

/// A `SESSION_LIST_ALL_GROUPED` answer; entries that are not groups or
/// chats are skipped.
pub(crate) fn parse_groups(value: &Value) -> Vec<ProjectGroup> {
    let Some(groups) = value.as_array() else {
        return Vec::new();
    };
    groups
        .iter()
        .filter_map(|group| {
            let project_id = group.get("projectId")?.as_str()?.to_owned();
            let sessions = group
                .get("sessions")?
                .as_array()?
                .iter()
                .filter_map(ManagedSession::from_value)
                .collect();
            Some(ProjectGroup {
                project_id,
                sessions,
                last_activity: number(group, "lastActivity"),
                total_messages: count(group, "totalMessages"),
            })
        })
        .collect()
}

/// What the Sessions tab was last told by the worker, and its filter.
#[derive(Debug, Default)]
pub(crate) struct ManagerState {
    pub(crate) groups: Vec<ProjectGroup>,
    /// Normalised ([`normalize_query`]).
    pub(crate) query: String,
    pub(crate) storage: Option<StorageStatus>,
}

/// What `sessions-search` holds, as the filter compares it.
pub(crate) fn normalize_query(input: &str) -> String {
    js::js_trim(input).to_lowercase()
}

fn session_matches(session: &ManagedSession, project_lower: &str, query: &str) -> bool {
    session.meta.name.to_lowercase().contains(query)
        || project_lower.contains(query)
        || session.search_text.contains(query)
}

/// The groups `query` (normalised) keeps, each with the chats that match.
pub(crate) fn filter(groups: &[ProjectGroup], query: &str) -> Vec<ProjectGroup> {
    if query.is_empty() {
        return groups.to_vec();
    }
    groups
        .iter()
        .filter_map(|group| {
            let project_lower = group.project_id.to_lowercase();
            let sessions: Vec<ManagedSession> = group
                .sessions
                .iter()
                .filter(|session| session_matches(session, &project_lower, query))
                .cloned()
                .collect();
            (!sessions.is_empty() || project_lower.contains(query)).then(|| ProjectGroup {
                sessions,
                ..group.clone()
            })
        })
        .collect()
}

/// `n noun` with the plural `nouns` when `n` is not 1.
pub(crate) fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `sessions-summary` for what the filter shows.
pub(crate) fn summary(shown: &[ProjectGroup], query: &str) -> String {
    if shown.is_empty() {
        return if query.is_empty() {
            "No chats saved yet.".to_owned()
        } else {
            "No chat matches the filter.".to_owned()
        };
    }
    let chats: usize = shown.iter().map(|g| g.sessions.len()).sum();
    let messages: u64 = shown.iter().flat_map(|g| &g.sessions).map(|s| s.message_count).sum();
    format!(
        "{} · {} · {}",
        plural(shown.len() as u64, "project"),
        plural(chats as u64, "chat"),
        plural(messages, "message")
    )
}

/// Bytes as the panel writes them: B, KiB with one decimal, MiB with two.
pub(crate) fn format_bytes(bytes: u64) -> String {
    const KIB: u64 = 1024;
    if bytes < KIB {
        format!("{bytes} B")
    } else if bytes < KIB * KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{:.2} MiB", bytes as f64 / (KIB * KIB) as f64)
    }
}

/// `SESSION_STORAGE_STATUS`: bytes of local data, and whether that passed
/// the warning threshold (`protocol::limits::STORAGE_WARNING_BYTES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StorageStatus {
    pub(crate) bytes: u64,
    pub(crate) warning: bool,
    pub(crate) threshold: u64,
}

impl StorageStatus {
    pub(crate) fn from_value(value: &Value) -> StorageStatus {
        StorageStatus {
            bytes: count(value, "bytes"),
            warning: value.get("warning").and_then(Value::as_bool).unwrap_or(false),
            threshold: count(value, "warningThreshold"),
        }
    }

    /// `sessions-storage-status`.
    pub(crate) fn line(&self) -> String {
        let used = format!("Local chat storage in use: {}", format_bytes(self.bytes));
        if self.warning {
            format!(
                "{used}, past the {} warning mark. Export and delete old chats to make room.",
                format_bytes(self.threshold)
            )
        } else {
            used
        }
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` and `HH-MM-SS` of a UTC time in milliseconds.
fn utc_parts(ms: f64) -> (String, String) {
    let seconds = (ms / 1_000.0).floor() as i64;
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    let of_day = seconds.rem_euclid(86_400);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!("{:02}-{:02}-{:02}", of_day / 3_600, of_day / 60 % 60, of_day % 60),
    )
}

/// The export's file name: the original's ISO time stamp to the second,
/// `:` and `.` made `-` (`typst-side-agent-sessions-2026-12-01T23-05-09.json`).
pub(crate) fn export_file_name(now_ms: f64) -> String {
    let (date, time) = utc_parts(now_ms);
    format!("typst-side-agent-sessions-{date}T{time}.json")
}

/// How long ago `then_ms` was, for a card or a row (a date after a week).
pub(crate) fn relative_time(then_ms: f64, now_ms: f64) -> String {
    if then_ms <= 0.0 {
        return "never".to_owned();
    }
    let minutes = ((now_ms - then_ms) / 60_000.0).floor().max(0.0) as u64;
    let hours = minutes / 60;
    let days = hours / 24;
    match (minutes, hours, days) {
        (0, _, _) => "just now".to_owned(),
        (m, 0, _) => format!("{m} min ago"),
        (_, h, 0) => format!("{h} h ago"),
        (_, _, d) if d < 7 => plural(d, "day") + " ago",
        _ => utc_parts(then_ms).0,
    }
}

/// What the panel shows as a chat's name.
fn chat_label(name: &str) -> &str {
    if name.is_empty() { "Untitled" } else { name }
}

/// What the panel shows as a project's name.
fn project_label(project_id: &str) -> &str {
    if project_id.is_empty() {
        "(chats without a project)"
    } else {
        project_id
    }
}

/// The Delete confirmation of one chat.
pub(crate) fn delete_chat_confirmation(name: &str) -> String {
    format!(
        "Delete the chat \u{201c}{}\u{201d}? This cannot be undone.",
        chat_label(name)
    )
}

/// The "Delete all" confirmation of a project: names how many chats go.
pub(crate) fn delete_project_confirmation(chats: usize, project_id: &str) -> String {
    format!(
        "Delete all {} of project \u{201c}{}\u{201d}? This cannot be undone.",
        plural(chats as u64, "chat"),
        project_label(project_id)
    )
}

/// One chat row of a card.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SessionRow {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) preview: String,
    pub(crate) meta: String,
    /// The chat the panel shows.
    pub(crate) active: bool,
    /// "Switch" is offered: a chat of the open project other than the one
    /// shown (the original switches only within the open project).
    pub(crate) can_switch: bool,
    pub(crate) delete_confirmation: String,
}

/// One project card.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ProjectCard {
    pub(crate) project_id: String,
    pub(crate) title: String,
    pub(crate) meta: String,
    /// The project open in the panel's tab.
    pub(crate) current: bool,
    /// "Open project" is offered (a project id to open).
    pub(crate) can_open: bool,
    pub(crate) delete_all_confirmation: String,
    pub(crate) rows: Vec<SessionRow>,
}

/// Everything Settings → Sessions shows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ManagerContent {
    pub(crate) summary: String,
    /// `None` until the worker answered (or when it could not).
    pub(crate) storage: Option<(String, bool)>,
    pub(crate) cards: Vec<ProjectCard>,
}

/// Where the panel is: its project and chat, and the time now.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    pub(crate) project_id: Option<&'a str>,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) now_ms: f64,
}

fn card(group: &ProjectGroup, place: Place<'_>) -> ProjectCard {
    let current = place.project_id == Some(group.project_id.as_str());
    let rows = group
        .sessions
        .iter()
        .map(|session| {
            let active = place.session_id == Some(session.meta.id.as_str());
            let preview = if session.preview.is_empty() {
                "(no messages)".to_owned()
            } else {
                session.preview.clone()
            };
            SessionRow {
                id: session.meta.id.clone(),
                name: chat_label(&session.meta.name).to_owned(),
                preview,
                meta: format!(
                    "{} · {}",
                    plural(session.message_count, "message"),
                    relative_time(session.updated_at, place.now_ms)
                ),
                active,
                can_switch: current && !group.project_id.is_empty() && !active,
                delete_confirmation: delete_chat_confirmation(&session.meta.name),
            }
        })
        .collect();
    ProjectCard {
        project_id: group.project_id.clone(),
        title: project_label(&group.project_id).to_owned(),
        meta: format!(
            "{} · {} · last active {}",
            plural(group.sessions.len() as u64, "chat"),
            plural(group.total_messages, "message"),
            relative_time(group.last_activity, place.now_ms)
        ),
        current,
        can_open: !group.project_id.is_empty(),
        delete_all_confirmation: delete_project_confirmation(group.sessions.len(), &group.project_id),
        rows,
    }
}

/// What the tab shows of `groups` under `query` (normalised) from `place`.
pub(crate) fn content(
    groups: &[ProjectGroup],
    query: &str,
    storage: Option<StorageStatus>,
    place: Place<'_>,
) -> ManagerContent {
    let shown = filter(groups, query);
    ManagerContent {
        summary: summary(&shown, query),
        storage: storage.map(|status| (status.line(), status.warning)),
        cards: shown.iter().map(|group| card(group, place)).collect(),
    }
}

/// The export's chats (`SESSION_EXPORT` answers `{…, sessions: [...]}`).
pub(crate) fn exported_count(export: &Value) -> usize {
    export.get("sessions").and_then(Value::as_array).map_or(0, Vec::len)
}

/// "Exported 3 chats".
pub(crate) fn export_status(chats: usize) -> String {
    format!("Exported {}", plural(chats as u64, "chat"))
}

/// Why an import file was refused before anything was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImportFileError {
    /// Larger than `MAX_SESSION_IMPORT_FILE_BYTES` (checked before reading,
    /// and again on the text read).
    TooLarge,
    /// The browser could not read the file.
    Unreadable,
    /// Not JSON.
    NotJson,
    /// JSON, but neither a chat array nor an object with a `sessions` array.
    UnknownFormat,
    /// More than `MAX_SESSION_IMPORT_RECORDS` chats.
    TooManyRecords,
}

impl ImportFileError {
    /// The catalogue code of the refusal.
    pub(crate) fn code(self) -> ErrorCode {
        match self {
            ImportFileError::TooLarge => ErrorCode::SessionImportSizeLimit,
            ImportFileError::TooManyRecords => ErrorCode::SessionImportRecordLimit,
            ImportFileError::Unreadable | ImportFileError::NotJson | ImportFileError::UnknownFormat => {
                ErrorCode::InvalidSessionImport
            }
        }
    }

    pub(crate) fn message(self) -> String {
        match self {
            ImportFileError::TooLarge => format!(
                "The file is larger than the import limit of {} MiB.",
                MAX_SESSION_IMPORT_FILE_BYTES / (1024 * 1024)
            ),
            ImportFileError::Unreadable => "The file could not be read.".to_owned(),
            ImportFileError::NotJson => "The file is not valid JSON.".to_owned(),
            ImportFileError::UnknownFormat => {
                "The file is not a chat export of Typst Side Agent (no list of chats in it).".to_owned()
            }
            ImportFileError::TooManyRecords => {
                format!("The file holds more than {MAX_SESSION_IMPORT_RECORDS} chats, the import limit.")
            }
        }
    }
}

/// The size check made before the file is read.
pub(crate) fn check_import_size(bytes: f64) -> Result<(), ImportFileError> {
    if bytes.is_finite() && bytes > f64::from(MAX_SESSION_IMPORT_FILE_BYTES) {
        return Err(ImportFileError::TooLarge);
    }
    Ok(())
}

/// The file's text as `SESSION_IMPORT`'s `exportData`: a bare array of
/// chats, or an object with a `sessions` array, within the bounds.
pub(crate) fn parse_import_file(text: &str) -> Result<Value, ImportFileError> {
    if text.len() > MAX_SESSION_IMPORT_FILE_BYTES as usize {
        return Err(ImportFileError::TooLarge);
    }
    let parsed: Value = serde_json::from_str(text).map_err(|_| ImportFileError::NotJson)?;
    let records = match &parsed {
        Value::Array(records) => records,
        Value::Object(map) => match map.get("sessions") {
            Some(Value::Array(records)) => records,
            _ => return Err(ImportFileError::UnknownFormat),
        },
        _ => return Err(ImportFileError::UnknownFormat),
    };
    if records.len() > MAX_SESSION_IMPORT_RECORDS as usize {
        return Err(ImportFileError::TooManyRecords);
    }
    Ok(parsed)
}

/// The toast after an import: how many chats came in, how many records
/// were skipped as invalid (the worker's `rejected`), and how many were
/// given a new id because a chat of that id existed (`renamed`).
pub(crate) fn import_status(answer: &Value) -> String {
    let imported = count(answer, "imported");
    let mut parts = vec![format!("Imported {}", plural(imported, "chat"))];
    let rejected = count(answer, "rejected");
    if rejected > 0 {
        parts.push(format!("skipped {} that failed validation", plural(rejected, "record")));
    }
    let renamed = count(answer, "renamed");
    if renamed > 0 {
        parts.push(format!("{} given a new id (the id was taken)", plural(renamed, "chat")));
    }
    parts.join("; ")
}
