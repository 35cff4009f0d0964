//! The static DOM of Settings → Sessions: the filter, Refresh, Export,
//! Import with its hidden file input, the summary, the storage line and the
//! container of the project cards (filled by `session_manager_panel.rs`).
//! Element ids are the original's (`sessions-*`); the summary and the
//! storage line are live regions, so a change is announced.

use super::form::{button, section, settings_pane};
use crate::dom::el;
use web_sys::Element;

/// Settings → Sessions.
pub(super) fn sessions_pane() -> Element {
    let search = el("input")
        .id("sessions-search")
        .attr("type", "search")
        .attr("placeholder", "Filter by chat name, project or message text")
        .attr("aria-label", "Filter chats")
        .attr("autocomplete", "off")
        .attr("spellcheck", "false");
    let toolbar = el("div")
        .class("sessions-toolbar")
        .child(search)
        .child(
            el("div")
                .class("sessions-toolbar-actions")
                .child(button("btn btn-ghost").id("sessions-refresh").text("Refresh"))
                .child(
                    button("btn btn-ghost")
                        .id("sessions-export")
                        .attr("title", "Save every chat as a JSON file")
                        .text("Export"),
                )
                .child(
                    button("btn btn-ghost")
                        .id("sessions-import")
                        .attr("title", "Add chats from an exported JSON file")
                        .text("Import"),
                )
                // Opened by Import; never focused on its own.
                .child(
                    el("input")
                        .id("sessions-import-file")
                        .attr("type", "file")
                        .attr("accept", "application/json,.json")
                        .attr("tabindex", "-1")
                        .attr("aria-label", "Chat export file to import")
                        .flag("hidden", true),
                ),
        )
        .build();
    let summary = el("div")
        .id("sessions-summary")
        .class("sessions-summary")
        .attr("role", "status")
        .build();
    let storage = el("div")
        .id("sessions-storage-status")
        .class("settings-help sessions-storage")
        .attr("role", "status")
        .build();
    let projects = el("div")
        .id("sessions-projects")
        .class("sessions-projects")
        .attr("role", "list")
        .attr("aria-label", "Projects")
        .build();
    settings_pane("sessions")
        .child(section(
            "Chats of every project",
            vec![toolbar, summary, storage, projects],
        ))
        .build()
}
