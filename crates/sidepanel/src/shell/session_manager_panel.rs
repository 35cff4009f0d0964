//! DOM of Settings → Sessions: the project cards and their chat rows, the
//! inline rename, the delete confirmation dialog, the export download and
//! the import file input, the shell's `SessionManager` side, and the events
//! of the pane and of "Manage all chats…".
//!
//! What a card or row says, and what a confirmation asks, comes ready from
//! `crate::session_manager`; this file only puts it on the page. Rows and
//! cards are rebuilt from data, clicks reach one delegated listener, and a
//! redraw keeps the keyboard user's place: focus goes back to the same
//! button of the same row or card, else to the filter.

use super::handle::{WasmShell, run};
use super::{icons, popup, settings_panel};
use crate::app::{SessionManager, SettingsTab};
use crate::dom::{self, El, by_id, el, icon};
use crate::session_manager::{ManagerContent, ProjectCard, SessionRow};
use crate::sessions::RENAME_MAX_CHARS;
use futures::FutureExt;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{JsFuture, spawn_local};
use web_sys::{Element, HtmlInputElement, KeyboardEvent};

const PROJECTS: &str = "sessions-projects";
const SEARCH: &str = "sessions-search";
const SESSION_ATTRIBUTE: &str = "data-session-id";
const PROJECT_ATTRIBUTE: &str = "data-project-id";
const DIALOG: &str = "sessions-dialog";

/// A delete waiting for the dialog's answer.
#[derive(Clone)]
enum Pending {
    Chat(String),
    Project(String),
}

thread_local! {
    /// The open confirmation and the button that opened it.
    static PENDING: RefCell<Option<(Pending, Element)>> = const { RefCell::new(None) };
}

fn part(name: &str) -> Option<Element> {
    by_id(&format!("{DIALOG}-{name}"))
}

// ------------------------------------------------------------ cards

fn action(class: &str, action: &str, label: &str) -> El {
    el("button")
        .attr("type", "button")
        .class(class)
        .attr("data-action", action)
        .label(label)
}

fn row(row: &SessionRow) -> Element {
    let mut actions = el("div").class("managed-session-actions");
    if row.can_switch {
        actions =
            actions.child(action("", "switch", &format!("Open chat {}", row.name)).child(icon(13, icons::EXTERNAL)));
    }
    actions = actions
        .child(action("", "rename", &format!("Rename chat {}", row.name)).child(icon(13, icons::PENCIL)))
        .child(
            action("delete-btn", "delete", &format!("Delete chat {}", row.name))
                .attr("data-confirm", &row.delete_confirmation)
                .child(icon(13, icons::CLOSE)),
        );
    el("div")
        .class(if row.active {
            "managed-session-row is-active"
        } else {
            "managed-session-row"
        })
        .attr("role", "listitem")
        .attr(SESSION_ATTRIBUTE, &row.id)
        .child(
            el("div")
                .class("managed-session-main")
                .child(el("div").class("managed-session-name").text(&row.name))
                .child(
                    el("div")
                        .class("managed-session-preview")
                        .attr("title", &row.preview)
                        .text(&row.preview),
                )
                .child(el("div").class("managed-session-meta").text(&row.meta)),
        )
        .child(actions)
        .build()
}

fn card(card: &ProjectCard) -> Element {
    let mut meta = el("div").class("project-card-meta");
    if card.current {
        meta = meta.child(el("span").class("badge ok").text("current"));
    }
    let mut actions = el("div").class("project-card-actions");
    if card.can_open {
        actions = actions.child(
            action(
                "btn btn-ghost btn-xs",
                "open-project",
                &format!("Open project {}", card.title),
            )
            .attr("title", "Show this project in a typst.app tab")
            .text("Open project"),
        );
    }
    actions = actions.child(
        action(
            "btn btn-ghost btn-xs danger",
            "delete-all",
            &format!("Delete all chats of {}", card.title),
        )
        .attr("data-confirm", &card.delete_all_confirmation)
        .text("Delete all"),
    );
    el("div")
        .class("project-card")
        .attr("role", "listitem")
        .attr(PROJECT_ATTRIBUTE, &card.project_id)
        .child(
            el("div")
                .class("project-card-header")
                .child(
                    el("div")
                        .class("project-card-info")
                        .child(
                            el("h3")
                                .class("project-card-title")
                                .attr("title", &card.title)
                                .text(&card.title),
                        )
                        .child(meta.append_text(&card.meta)),
                )
                .child(actions),
        )
        .child(
            el("div")
                .class("project-card-sessions")
                .attr("role", "list")
                .attr("aria-label", &format!("Chats of {}", card.title))
                .children(card.rows.iter().map(row)),
        )
        .build()
}

/// The focused button of the cards as (attribute, id, action); a rename
/// field counts as its row's Rename button.
fn focused_place(root: &Element) -> Option<(&'static str, String, String)> {
    let active = dom::active_element().filter(|a| root.contains(Some(a.as_ref())))?;
    let action = if active.class_list().contains("managed-session-rename-input") {
        "rename".to_owned()
    } else {
        active.get_attribute("data-action")?
    };
    for attribute in [SESSION_ATTRIBUTE, PROJECT_ATTRIBUTE] {
        if let Some(id) = active
            .closest(&format!("[{attribute}]"))
            .ok()
            .flatten()
            .and_then(|holder| holder.get_attribute(attribute))
        {
            return Some((attribute, id, action));
        }
    }
    None
}

/// Focus back on the same button of the same row or card, else its first
/// button, else the filter.
fn restore_focus(root: &Element, (attribute, id, action): (&'static str, String, String)) {
    let holder = dom::query_all(root, &format!("[{attribute}]"))
        .into_iter()
        .find(|holder| holder.get_attribute(attribute).as_deref() == Some(id.as_str()));
    let target = holder.and_then(|holder| {
        let own = |selector: &str| {
            dom::query_all(&holder, selector).into_iter().find(|button| {
                button
                    .closest(&format!("[{attribute}]"))
                    .ok()
                    .flatten()
                    .is_some_and(|closest| closest == holder)
            })
        };
        own(&format!("[data-action='{action}']")).or_else(|| own("[data-action]"))
    });
    if let Some(target) = target.or_else(|| by_id(SEARCH)) {
        dom::focus(&target);
    }
}

fn render(content: &ManagerContent) {
    if let Some(summary) = by_id("sessions-summary") {
        summary.set_text_content(Some(&content.summary));
    }
    if let Some(storage) = by_id("sessions-storage-status") {
        let (text, warning) = content.storage.clone().unwrap_or_default();
        storage.set_text_content(Some(&text));
        let _ = storage.class_list().toggle_with_force("storage-warning", warning);
    }
    let Some(root) = by_id(PROJECTS) else {
        return;
    };
    let focus = focused_place(&root);
    dom::clear(&root);
    dom::set_hidden(&root, content.cards.is_empty());
    for project in &content.cards {
        let _ = root.append_child(&card(project));
    }
    if let Some(focus) = focus {
        restore_focus(&root, focus);
    }
}

// ------------------------------------------------------------ rename

/// Replaces a row's name with a field: Enter or leaving it commits, Escape
/// cancels (and goes no further: Settings stays open).
fn begin_rename(row: &Element, session_id: String) {
    if row.class_list().contains("renaming") {
        return;
    }
    let Some(name) = row.query_selector(".managed-session-name").ok().flatten() else {
        return;
    };
    let Ok(input) = el("input")
        .class("managed-session-rename-input")
        .attr("type", "text")
        .attr("maxlength", &RENAME_MAX_CHARS.to_string())
        .attr("spellcheck", "false")
        .attr("aria-label", "Chat name")
        .build()
        .dyn_into::<HtmlInputElement>()
    else {
        return;
    };
    let _ = row.class_list().add_1("renaming");
    input.set_value(&name.text_content().unwrap_or_default());
    let _ = name.replace_with_with_node_1(&input);
    let _ = input.focus();
    input.select();
    let done = Rc::new(std::cell::Cell::new(false));
    let finish = {
        let input = input.clone();
        move |commit: bool| {
            if done.replace(true) {
                return;
            }
            let text = commit.then(|| input.value());
            let id = session_id.clone();
            run(move |app| async move { app.rename_managed_session(id, text).await });
        }
    };
    let on_key = finish.clone();
    dom::on(&input, "keydown", move |event| {
        let Some(key) = event.dyn_ref::<KeyboardEvent>().map(KeyboardEvent::key) else {
            return;
        };
        if key == "Enter" || key == "Escape" {
            event.prevent_default();
            event.stop_propagation();
            on_key(key == "Enter");
        }
    });
    dom::on(&input, "blur", move |_| finish(true));
}

// ------------------------------------------------------------ dialog

fn open_dialog(pending: Pending, question: &str, trigger: Element) {
    let (Some(layer), Some(title), Some(subtitle), Some(confirm), Some(cancel)) = (
        part("layer"),
        part("title"),
        part("subtitle"),
        part("confirm"),
        part("cancel"),
    ) else {
        return;
    };
    let (heading, label) = match pending {
        Pending::Chat(_) => ("Delete this chat?", "Delete chat"),
        Pending::Project(_) => ("Delete every chat of this project?", "Delete all"),
    };
    title.set_text_content(Some(heading));
    subtitle.set_text_content(Some(question));
    confirm.set_text_content(Some(label));
    let _ = confirm.class_list().add_1("btn-danger");
    if let Some(body) = part("body") {
        dom::set_hidden(&body, true);
    }
    PENDING.with(|p| *p.borrow_mut() = Some((pending, trigger)));
    dom::set_hidden(&layer, false);
    // The safe answer has the focus: Enter alone deletes nothing.
    dom::focus(&cancel);
}

/// Closes the dialog (focus back on what opened it); true when it was open.
fn close_dialog() -> bool {
    let pending = PENDING.with(|p| p.borrow_mut().take());
    let Some(layer) = part("layer").filter(|layer| !dom::is_hidden(layer)) else {
        return false;
    };
    dom::set_hidden(&layer, true);
    if let Some((_, trigger)) = pending.filter(|(_, trigger)| trigger.is_connected()) {
        dom::focus(&trigger);
    }
    true
}

fn confirm_dialog() {
    let Some((pending, _)) = PENDING.with(|p| p.borrow_mut().take()) else {
        return;
    };
    if let Some(layer) = part("layer") {
        dom::set_hidden(&layer, true);
    }
    // The row or card is about to go: the filter holds the focus meanwhile.
    if let Some(search) = by_id(SEARCH) {
        dom::focus(&search);
    }
    run(move |app| async move {
        match pending {
            Pending::Chat(id) => app.delete_managed_session(id).await,
            Pending::Project(id) => app.delete_managed_project(id).await,
        }
    });
}

// ------------------------------------------------------------ files

/// Saves `text` through an object URL and a clicked `download` anchor.
fn download(file_name: &str, text: &str) -> Result<(), String> {
    let why = |error: wasm_bindgen::JsValue| format!("{error:?}");
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(why)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(why)?;
    let anchor = el("a")
        .attr("href", &url)
        .attr("download", file_name)
        .flag("hidden", true)
        .build();
    let body = dom::document()
        .and_then(|d| d.body())
        .ok_or_else(|| "the panel has no body".to_owned())?;
    body.append_child(&anchor).map_err(why)?;
    if let Some(anchor) = anchor.dyn_ref::<web_sys::HtmlElement>() {
        anchor.click();
    }
    anchor.remove();
    // The browser has taken the file by then; the URL is only memory.
    spawn_local(async move {
        gloo_timers::future::TimeoutFuture::new(4_000).await;
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    Ok(())
}

/// The chosen file goes to the controller with its size and a read that
/// starts only when awaited; the input is emptied so the same file can be
/// chosen again.
fn import_chosen() {
    let Some(input) = dom::input("sessions-import-file") else {
        return;
    };
    let file = input.files().and_then(|files| files.get(0));
    input.set_value("");
    let Some(file) = file else {
        return;
    };
    let size = file.size();
    let read = async move {
        let text = JsFuture::from(file.text()).await.map_err(|_| ())?;
        text.as_string().ok_or(())
    }
    .boxed_local();
    run(move |app| async move { app.import_sessions(size, read).await });
}

impl SessionManager for WasmShell {
    fn show_session_manager(&self, content: &ManagerContent) {
        render(content);
    }

    fn clear_session_filter(&self) {
        if let Some(search) = dom::input(SEARCH) {
            search.set_value("");
        }
    }

    fn download(&self, file_name: &str, text: &str) -> Result<(), String> {
        download(file_name, text)
    }
}

// ------------------------------------------------------------ events

/// Shows a settings tab; Sessions fetches its list each time it is shown.
pub(super) fn show_tab(tab: SettingsTab) {
    settings_panel::show_tab(tab);
    if tab == SettingsTab::Sessions {
        run(|app| async move { app.refresh_session_manager().await });
    }
}

fn on_projects_click(event: &web_sys::Event) {
    let Some((button, action)) = dom::closest_with(event, "data-action") else {
        return;
    };
    let row = dom::closest_with(event, SESSION_ATTRIBUTE);
    let project = dom::closest_with(event, PROJECT_ATTRIBUTE).map(|(_, id)| id);
    // The question the row or card was drawn with (it names the chat, or
    // how many chats go).
    let question = button.get_attribute("data-confirm").unwrap_or_default();
    match (action.as_str(), row, project) {
        ("switch", Some((_, id)), _) => run(|app| async move { app.switch_to_managed_session(id).await }),
        ("rename", Some((row, id)), _) => begin_rename(&row, id),
        ("delete", Some((_, id)), _) => open_dialog(Pending::Chat(id), &question, button),
        ("open-project", _, Some(id)) => run(|app| async move { app.open_project_tab(id).await }),
        ("delete-all", _, Some(id)) => open_dialog(Pending::Project(id), &question, button),
        _ => {}
    }
}

/// Binds the pane, its dialog and "Manage all chats…".
pub(super) fn wire() {
    dom::on_id("session-manage", "click", |_| {
        popup::set_open("session-menu", "session-current", false);
        // The filter takes the focus: the keyboard user starts where the
        // tab starts.
        run(|app| async move {
            app.open_session_manager().await;
            if let Some(search) = by_id(SEARCH) {
                dom::focus(&search);
            }
        });
    });
    dom::on_id(SEARCH, "input", |_| {
        if let (Some(app), Some(search)) = (super::handle::app(), dom::input(SEARCH)) {
            app.filter_session_manager(&search.value());
        }
    });
    dom::on_id("sessions-refresh", "click", |_| {
        run(|app| async move { app.refresh_session_manager().await });
    });
    dom::on_id("sessions-export", "click", |_| {
        run(|app| async move { app.export_sessions().await });
    });
    dom::on_id("sessions-import", "click", |_| {
        if let Some(input) = dom::input("sessions-import-file") {
            input.click();
        }
    });
    dom::on_id("sessions-import-file", "change", |_| import_chosen());
    dom::on_id(PROJECTS, "click", |event| on_projects_click(&event));
    dom::on_id(&format!("{DIALOG}-confirm"), "click", |_| confirm_dialog());
    for name in ["cancel", "close"] {
        dom::on_id(&format!("{DIALOG}-{name}"), "click", |_| {
            close_dialog();
        });
    }
    dom::on_id(&format!("{DIALOG}-layer"), "click", |event| {
        let on_backdrop = event.target().zip(event.current_target()).is_some_and(|(t, c)| t == c);
        if on_backdrop {
            close_dialog();
        }
    });
    // Escape answers Cancel and goes no further (Settings stays open).
    dom::on_id(&format!("{DIALOG}-layer"), "keydown", |event| {
        if event
            .dyn_ref::<KeyboardEvent>()
            .is_some_and(|key| key.key() == "Escape")
            && close_dialog()
        {
            event.prevent_default();
            event.stop_propagation();
        }
    });
}
