//! The Sessions manager's decisions: the filter, the cards, the lines it
//! writes, the export's name and the import file's checks.

use super::*;
use serde_json::json;

/// The recorded grouped list of the contract file's three chats.
fn groups() -> Vec<ProjectGroup> {
    parse_groups(&json!([
        {"projectId": "p1", "lastActivity": 1_700_000_000_000_i64, "totalMessages": 2, "approxBytes": 161,
         "sessions": [
            {"id": "s1", "projectId": "p1", "name": "First", "messageCount": 0, "preview": "", "searchText": "",
             "updatedAt": 1_700_000_000_000_i64, "userRenamed": false},
            {"id": "s2", "projectId": "p1", "name": "Tables", "messageCount": 2, "preview": "Fix the Table please",
             "searchText": "fix the table please done.", "updatedAt": 1_700_000_000_000_i64, "userRenamed": true}
         ]},
        {"projectId": "P2-Thesis", "lastActivity": 1_600_000_000_000_i64, "totalMessages": 1,
         "sessions": [{"id": "s3", "projectId": "P2-Thesis", "name": "", "messageCount": 1, "preview": "Hello",
                       "searchText": "hello", "updatedAt": 1_600_000_000_000_i64}]},
        {"projectId": 3, "sessions": []},
        {"projectId": "", "sessions": [{"id": "", "projectId": ""}], "totalMessages": 0}
    ]))
}

fn ids(groups: &[ProjectGroup]) -> Vec<Vec<&str>> {
    groups
        .iter()
        .map(|g| g.sessions.iter().map(|s| s.meta.id.as_str()).collect())
        .collect()
}

#[test]
fn the_grouped_list_parses_leniently() {
    let groups = groups();
    assert_eq!(groups.len(), 3, "a group without a string project id is skipped");
    assert_eq!(ids(&groups), vec![vec!["s1", "s2"], vec!["s3"], vec![]]);
    assert_eq!(groups[0].total_messages, 2);
    assert!(groups[0].sessions[1].meta.user_renamed);
    assert!(parse_groups(&json!({"x": 1})).is_empty());
}

#[test]
fn the_filter_matches_name_project_and_message_text_like_the_original() {
    let groups = groups();
    assert_eq!(filter(&groups, ""), groups);
    assert_eq!(normalize_query("  TaBLE "), "table");
    // By name (case-insensitive), by message text (the worker's searchText).
    assert_eq!(ids(&filter(&groups, "tables")), vec![vec!["s2"]]);
    assert_eq!(ids(&filter(&groups, "done.")), vec![vec!["s2"]]);
    // A project id that matches keeps every chat of that project.
    assert_eq!(ids(&filter(&groups, "thesis")), vec![vec!["s3"]]);
    assert_eq!(ids(&filter(&groups, "p1")), vec![vec!["s1", "s2"]]);
    assert!(filter(&groups, "nothing like this").is_empty());
    // searchText is compared as stored (lower-cased), so the query is too.
    assert_eq!(ids(&filter(&groups, &normalize_query("HELLO"))), vec![vec!["s3"]]);
}

#[test]
fn the_summary_counts_what_the_filter_shows() {
    let groups = groups();
    assert_eq!(summary(&groups, ""), "3 projects · 3 chats · 3 messages");
    assert_eq!(
        summary(&filter(&groups, "tables"), "tables"),
        "1 project · 1 chat · 2 messages"
    );
    assert_eq!(summary(&[], ""), "No chats saved yet.");
    assert_eq!(summary(&[], "x"), "No chat matches the filter.");
}

#[test]
fn storage_lines_warn_from_the_threshold_on() {
    assert_eq!(format_bytes(1023), "1023 B");
    assert_eq!(format_bytes(1425), "1.4 KiB");
    assert_eq!(format_bytes(8 * 1024 * 1024), "8.00 MiB");
    let quiet = StorageStatus::from_value(&json!({"bytes": 1425, "warning": false, "warningThreshold": 8_388_608}));
    assert_eq!(quiet.line(), "Local chat storage in use: 1.4 KiB");
    let loud = StorageStatus::from_value(&json!({"bytes": 9_000_000, "warning": true, "warningThreshold": 8_388_608}));
    assert!(
        loud.line()
            .starts_with("Local chat storage in use: 8.58 MiB, past the 8.00 MiB warning mark.")
    );
    assert_eq!(protocol::limits::STORAGE_WARNING_BYTES, 8 * 1024 * 1024);
}

#[test]
fn cards_offer_switch_only_within_the_open_project_and_name_their_counts() {
    let now = 1_700_000_000_000.0 + 5.0 * 60_000.0;
    let place = Place {
        project_id: Some("p1"),
        session_id: Some("s1"),
        now_ms: now,
    };
    let status = StorageStatus {
        bytes: 10,
        warning: false,
        threshold: 1,
    };
    let shown = content(&groups(), "", Some(status), place);
    assert_eq!(
        shown.storage,
        Some(("Local chat storage in use: 10 B".to_owned(), false))
    );
    let [p1, p2, none] = &shown.cards[..] else {
        panic!("three cards: {shown:?}")
    };
    assert!(p1.current && p1.can_open && !p2.current);
    assert_eq!(p1.meta, "2 chats · 2 messages · last active 5 min ago");
    assert_eq!(
        p1.delete_all_confirmation,
        "Delete all 2 chats of project \u{201c}p1\u{201d}? This cannot be undone."
    );
    let (first, tables) = (&p1.rows[0], &p1.rows[1]);
    assert!(first.active && !first.can_switch, "the open chat is not offered again");
    assert!(!tables.active && tables.can_switch);
    assert_eq!(first.preview, "(no messages)");
    assert_eq!(tables.meta, "2 messages · 5 min ago");
    assert_eq!(
        tables.delete_confirmation,
        "Delete the chat \u{201c}Tables\u{201d}? This cannot be undone."
    );
    assert!(!p2.rows[0].can_switch, "another project's chats are not switched to");
    assert_eq!(p2.rows[0].name, "Untitled");
    assert_eq!(
        p2.delete_all_confirmation,
        "Delete all 1 chat of project \u{201c}P2-Thesis\u{201d}? This cannot be undone."
    );
    assert!(!none.can_open, "no project to open");
    assert_eq!(none.title, "(chats without a project)");
    assert_eq!(content(&groups(), "zzz", None, place).cards.len(), 0);
}

#[test]
fn times_read_like_the_original() {
    let t = 1_700_000_000_000.0;
    assert_eq!(relative_time(0.0, t), "never");
    assert_eq!(relative_time(t, t + 59_000.0), "just now");
    assert_eq!(relative_time(t, t + 61_000.0), "1 min ago");
    assert_eq!(relative_time(t, t + 3.0 * 3_600_000.0), "3 h ago");
    assert_eq!(relative_time(t, t + 2.0 * 86_400_000.0), "2 days ago");
    assert_eq!(relative_time(t, t + 8.0 * 86_400_000.0), "2023-11-14");
}

#[test]
fn the_export_is_named_with_the_utc_second_it_was_made() {
    assert_eq!(
        export_file_name(1_700_000_000_123.0),
        "typst-side-agent-sessions-2023-11-14T22-13-20.json"
    );
    assert_eq!(
        export_file_name(0.0),
        "typst-side-agent-sessions-1970-01-01T00-00-00.json"
    );
    assert_eq!(
        export_file_name(951_782_400_000.0),
        "typst-side-agent-sessions-2000-02-29T00-00-00.json"
    );
    assert_eq!(exported_count(&json!({"sessions": [{}, {}]})), 2);
    assert_eq!(exported_count(&json!({})), 0);
    assert_eq!(export_status(1), "Exported 1 chat");
    assert_eq!(export_status(3), "Exported 3 chats");
}

#[test]
fn import_files_are_checked_before_anything_is_sent() {
    let limit = f64::from(MAX_SESSION_IMPORT_FILE_BYTES);
    assert_eq!(check_import_size(limit), Ok(()));
    assert_eq!(check_import_size(limit + 1.0), Err(ImportFileError::TooLarge));
    let array = json!([{"id": "a", "messages": []}]);
    assert_eq!(parse_import_file(&array.to_string()), Ok(array));
    let versioned = json!({"version": 2, "sessions": [{"id": "a", "messages": []}]});
    assert_eq!(parse_import_file(&versioned.to_string()), Ok(versioned));
    assert_eq!(parse_import_file("{"), Err(ImportFileError::NotJson));
    assert_eq!(
        parse_import_file("{\"chats\": []}"),
        Err(ImportFileError::UnknownFormat)
    );
    assert_eq!(
        parse_import_file("{\"sessions\": {}}"),
        Err(ImportFileError::UnknownFormat)
    );
    assert_eq!(parse_import_file("42"), Err(ImportFileError::UnknownFormat));
    let too_many = format!("[{}]", vec!["{}"; MAX_SESSION_IMPORT_RECORDS as usize + 1].join(","));
    assert_eq!(parse_import_file(&too_many), Err(ImportFileError::TooManyRecords));
    let just_enough = format!("[{}]", vec!["{}"; MAX_SESSION_IMPORT_RECORDS as usize].join(","));
    assert!(parse_import_file(&just_enough).is_ok());
    assert_eq!(ImportFileError::TooLarge.code(), ErrorCode::SessionImportSizeLimit);
    assert_eq!(
        ImportFileError::TooManyRecords.code(),
        ErrorCode::SessionImportRecordLimit
    );
    assert_eq!(ImportFileError::NotJson.code(), ErrorCode::InvalidSessionImport);
    assert!(ImportFileError::TooLarge.message().contains("16 MiB"));
    assert!(ImportFileError::TooManyRecords.message().contains("500"));
}

#[test]
fn import_counts_are_reported() {
    assert_eq!(
        import_status(&json!({"ok": true, "imported": 1, "rejected": 0})),
        "Imported 1 chat"
    );
    assert_eq!(
        import_status(&json!({"ok": true, "imported": 2, "rejected": 1})),
        "Imported 2 chats; skipped 1 record that failed validation"
    );
    assert_eq!(
        import_status(&json!({"ok": true, "imported": 1, "rejected": 0, "renamed": 1})),
        "Imported 1 chat; 1 chat given a new id (the id was taken)"
    );
}
