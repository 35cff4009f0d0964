//! DOM of document recovery outside the message list: the Revert
//! confirmation, the Snapshot popover and the snapshot restore/delete
//! dialog. The controller does the requests
//! and scope checks (`app/recovery.rs`); this module shows their outcome.
//!
//! Dialog state lives in thread-locals that no handler borrows across an
//! await: a flow takes what it needs, awaits, then looks again.

use super::edit_mode;
use super::handle::{app, run};
use crate::app::RestoreRefusal;
use crate::chat::diff_element;
use crate::dom::{self, by_id, el};
use crate::recovery::{self, RecoveryScope, RestoreDialogContent, ReviewedBase};
use protocol::document_snapshot::PublicDocumentSnapshot;
use protocol::edit_checkpoint::PublicEditCheckpoint;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Element, KeyboardEvent};

/// Space kept between the Snapshot popover and the window edges.
const MENU_MARGIN_PX: f64 = 8.0;

struct PendingRevert {
    control: Element,
    checkpoint: PublicEditCheckpoint,
    scope: RecoveryScope,
    trigger: Option<Element>,
}

enum DialogMode {
    Restore {
        snapshot_id: String,
        base: Option<ReviewedBase>,
    },
    Delete {
        snapshot_id: String,
    },
}

#[derive(Default)]
struct SnapshotUi {
    /// The Snapshot button the popover belongs to.
    trigger: Option<Element>,
    scope: Option<RecoveryScope>,
    snapshots: Vec<PublicDocumentSnapshot>,
    dialog: Option<(RecoveryScope, DialogMode)>,
    busy: bool,
}

thread_local! {
    static REVERT: RefCell<Option<PendingRevert>> = const { RefCell::new(None) };
    static SNAPSHOTS: RefCell<SnapshotUi> = RefCell::new(SnapshotUi::default());
}

// ---------------------------------------------------------------- Revert

/// A click on Revert: the confirmation dialog, for the scope of now.
pub(crate) fn request_revert(control: Element, checkpoint: PublicEditCheckpoint) {
    let Some(app) = app() else { return };
    let scope = match app.recovery_scope() {
        Ok(scope) => scope,
        Err(message) => {
            app.shell().chat.finish_revert(&control, true, Some(message));
            return;
        }
    };
    let trigger = control.query_selector(".edit-revert-button").ok().flatten();
    let dialog = recovery::revert_dialog(&checkpoint);
    let (Some(layer), Some(subtitle), Some(body), Some(confirm)) = (
        by_id("revert-dialog-layer"),
        by_id("revert-dialog-subtitle"),
        by_id("revert-dialog-body"),
        by_id("revert-dialog-confirm"),
    ) else {
        return;
    };
    close_revert(false);
    subtitle.set_text_content(Some(&dialog.subtitle));
    let warning = el("div")
        .class("snapshot-dialog-note is-warning")
        .text(&dialog.warning)
        .build();
    let detail = el("div").class("revert-dialog-detail").text(dialog.detail).build();
    dom::clear(&body);
    let _ = body.append_child(&warning);
    let _ = body.append_child(&detail);
    let _ = layer.set_attribute("data-checkpoint-id", &checkpoint.id);
    if let Some(trigger) = &trigger {
        let _ = trigger.set_attribute("aria-expanded", "true");
    }
    REVERT.with(|r| {
        *r.borrow_mut() = Some(PendingRevert {
            control,
            checkpoint,
            scope,
            trigger,
        })
    });
    dom::set_hidden(&layer, false);
    dom::focus(&confirm);
}

/// Closes the Revert dialog; true when it was open.
fn close_revert(restore_focus: bool) -> bool {
    let pending = REVERT.with(|r| r.borrow_mut().take());
    let Some(layer) = by_id("revert-dialog-layer") else {
        return false;
    };
    let was_open = !dom::is_hidden(&layer);
    dom::set_hidden(&layer, true);
    let _ = layer.remove_attribute("data-checkpoint-id");
    if let Some(trigger) = pending.and_then(|p| p.trigger) {
        let _ = trigger.set_attribute("aria-expanded", "false");
        if restore_focus && trigger.is_connected() {
            dom::focus(&trigger);
        }
    }
    was_open
}

fn confirm_revert() {
    let Some(pending) = REVERT.with(|r| r.borrow_mut().take()) else {
        return;
    };
    if let Some(layer) = by_id("revert-dialog-layer") {
        dom::set_hidden(&layer, true);
    }
    let PendingRevert {
        control,
        checkpoint,
        scope,
        ..
    } = pending;
    run(move |app| async move {
        app.shell().chat.set_revert_busy(&control);
        let outcome = app.revert_checkpoint(scope, checkpoint).await;
        let note = match (&outcome.error, &outcome.save_error) {
            (Some(error), Some(save)) => Some(format!("{error} {save}")),
            (Some(error), None) => Some(error.clone()),
            (None, Some(save)) => Some(save.clone()),
            (None, None) => None,
        };
        app.shell()
            .chat
            .finish_revert(&control, outcome.error.is_some(), note.as_deref());
        // The dialog's focus went with it: to the control, whose button (if
        // it still has one) offers what is next.
        if dom::active_element().is_none() && control.is_connected() {
            let button = control.query_selector(".edit-revert-button").ok().flatten();
            dom::focus(&button.unwrap_or(control));
        }
    });
}

// ---------------------------------------------------------------- Snapshot popover

/// A click on Snapshot: opens (or closes) the popover for that button.
pub(crate) fn toggle_snapshots(trigger: Element) {
    let same = SNAPSHOTS.with(|s| s.borrow().trigger.as_ref() == Some(&trigger));
    if same && is_menu_open() {
        close_menu(true);
        return;
    }
    open_menu(trigger);
}

fn is_menu_open() -> bool {
    by_id("snapshot-menu").is_some_and(|m| !dom::is_hidden(&m))
}

fn open_menu(trigger: Element) {
    close_menu(false);
    let _ = trigger.set_attribute("aria-expanded", "true");
    SNAPSHOTS.with(|s| s.borrow_mut().trigger = Some(trigger));
    list_message("Loading snapshots…");
    if let Some(menu) = by_id("snapshot-menu") {
        dom::set_hidden(&menu, false);
        // Into the popover (it names itself); Tab goes on to its controls.
        dom::focus(&menu);
    }
    position_menu();
    refresh_menu();
}

/// Loads the list again into the open popover.
fn refresh_menu() {
    run(|app| async move {
        let listed = app.list_snapshots().await;
        if !is_menu_open() {
            return;
        }
        match listed {
            Ok((scope, file, snapshots)) => {
                if let Some(label) = by_id("snapshot-file") {
                    label.set_text_content(Some(&file));
                }
                render_list(&snapshots);
                SNAPSHOTS.with(|s| {
                    let mut ui = s.borrow_mut();
                    ui.scope = Some(scope);
                    ui.snapshots = snapshots;
                });
            }
            Err(message) => list_message(&format!("The snapshots could not be loaded: {message}")),
        }
        position_menu();
    });
}

/// Closes the popover (focus back on its button when asked).
pub(crate) fn close_menu(restore_focus: bool) {
    let trigger = SNAPSHOTS.with(|s| s.borrow_mut().trigger.take());
    if let Some(menu) = by_id("snapshot-menu") {
        dom::set_hidden(&menu, true);
    }
    if let Some(trigger) = trigger {
        let _ = trigger.set_attribute("aria-expanded", "false");
        if restore_focus && trigger.is_connected() {
            dom::focus(&trigger);
        }
    }
}

fn list_message(text: &str) {
    if let Some(list) = by_id("snapshot-list") {
        dom::clear(&list);
        let _ = list.append_child(&el("div").class("snapshot-empty").text(text).build());
    }
}

/// Above the button when there is room, else below; inside the window.
fn position_menu() {
    let (Some(menu), Some(trigger), Some(window)) = (
        by_id("snapshot-menu"),
        SNAPSHOTS.with(|s| s.borrow().trigger.clone()),
        web_sys::window(),
    ) else {
        return;
    };
    let Some(menu_html) = menu.dyn_ref::<web_sys::HtmlElement>() else {
        return;
    };
    let width = window.inner_width().ok().and_then(|w| w.as_f64()).unwrap_or(0.0);
    let height = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    let anchor = trigger.get_bounding_client_rect();
    let box_ = menu.get_bounding_client_rect();
    let above = anchor.top() - box_.height() - MENU_MARGIN_PX;
    let top = if above >= MENU_MARGIN_PX {
        above
    } else {
        (anchor.bottom() + MENU_MARGIN_PX).min((height - box_.height() - MENU_MARGIN_PX).max(MENU_MARGIN_PX))
    };
    let left = anchor
        .left()
        .min(width - box_.width() - MENU_MARGIN_PX)
        .max(MENU_MARGIN_PX);
    let style = menu_html.style();
    let _ = style.set_property("top", &format!("{top}px"));
    let _ = style.set_property("left", &format!("{left}px"));
}

fn snapshot_date(created_at: f64) -> String {
    let now = js_sys::Date::now();
    if let Some(text) = recovery::relative_date(created_at, now) {
        return text;
    }
    let options = js_sys::Object::new();
    for (key, value) in [
        ("month", "short"),
        ("day", "numeric"),
        ("hour", "numeric"),
        ("minute", "2-digit"),
    ] {
        let _ = js_sys::Reflect::set(&options, &JsValue::from_str(key), &JsValue::from_str(value));
    }
    let locale = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_else(|| "en".to_owned());
    js_sys::Date::new(&JsValue::from_f64(created_at))
        .to_locale_string(&locale, &options)
        .into()
}

fn render_list(snapshots: &[PublicDocumentSnapshot]) {
    let Some(list) = by_id("snapshot-list") else {
        return;
    };
    if snapshots.is_empty() {
        list_message(
            "No snapshot is kept for this document. It is dropped when the document changes after the answer.",
        );
        return;
    }
    dom::clear(&list);
    for snapshot in snapshots {
        let kind = recovery::snapshot_kind_class(snapshot.kind);
        let title = if snapshot.title.is_empty() {
            "Document snapshot"
        } else {
            &snapshot.title
        };
        let row = el("article")
            .class(&format!("snapshot-item is-{kind}"))
            .attr("data-snapshot-id", &snapshot.id)
            .child(el("span").class("snapshot-item-marker").attr("aria-hidden", "true"))
            .child(
                el("span")
                    .class("snapshot-item-copy")
                    .child(
                        el("span")
                            .class("snapshot-item-topline")
                            .child(el("strong").text(title))
                            .child(
                                el("span")
                                    .class(&format!("snapshot-kind is-{kind}"))
                                    .text(recovery::snapshot_badge(snapshot.kind)),
                            ),
                    )
                    .child(el("span").class("snapshot-item-meta").text(&format!(
                        "{} · {}",
                        snapshot_date(snapshot.created_at),
                        recovery::character_count(snapshot.text_length)
                    ))),
            )
            .child(
                el("span")
                    .class("snapshot-item-actions")
                    .child(
                        el("button")
                            .attr("type", "button")
                            .class("snapshot-item-action snapshot-restore-action")
                            .attr("data-action", "restore")
                            .text("Restore"),
                    )
                    .child(
                        el("button")
                            .attr("type", "button")
                            .class("snapshot-item-action snapshot-delete-action")
                            .attr("data-action", "delete")
                            .label(&format!("Delete {title}"))
                            .child(dom::icon(13, super::icons::TRASH)),
                    ),
            )
            .build();
        let _ = list.append_child(&row);
    }
}

fn set_busy(busy: bool) {
    SNAPSHOTS.with(|s| s.borrow_mut().busy = busy);
    // A button about to turn off would drop the focus: the popover keeps it.
    if busy && let (Some(menu), Some(list)) = (by_id("snapshot-menu"), by_id("snapshot-list")) {
        dom::keep_focus(&list, &menu);
    }
    for button in dom::query_document(".snapshot-item-action") {
        dom::set_disabled(&button, busy);
    }
}

fn is_busy() -> bool {
    SNAPSHOTS.with(|s| s.borrow().busy)
}

fn on_list_click(event: &web_sys::Event) {
    let Some((_, snapshot_id)) = dom::closest_with(event, "data-snapshot-id") else {
        return;
    };
    let action = dom::closest_with(event, "data-action").map(|(_, a)| a);
    if is_busy() {
        return;
    }
    let Some(scope) = SNAPSHOTS.with(|s| s.borrow().scope.clone()) else {
        return;
    };
    match action.as_deref() {
        Some("restore") => {
            set_busy(true);
            run(move |app| async move {
                let answer = app.preview_snapshot(&scope, &snapshot_id).await;
                set_busy(false);
                if let Ok(answer) = answer {
                    close_menu(false);
                    open_restore_dialog(scope, snapshot_id, &recovery::restore_dialog(&answer, false));
                }
            });
        }
        Some("delete") => {
            let snapshot = SNAPSHOTS.with(|s| s.borrow().snapshots.iter().find(|x| x.id == snapshot_id).cloned());
            let Some(snapshot) = snapshot else { return };
            // The popover closes but remembers its button to reopen after.
            let trigger = SNAPSHOTS.with(|s| s.borrow().trigger.clone());
            close_menu(false);
            SNAPSHOTS.with(|s| s.borrow_mut().trigger = trigger);
            open_delete_dialog(scope, &snapshot);
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- snapshot dialog

struct DialogParts {
    layer: Element,
    title: Element,
    subtitle: Element,
    body: Element,
    confirm: Element,
}

fn dialog_parts() -> Option<DialogParts> {
    Some(DialogParts {
        layer: by_id("snapshot-dialog-layer")?,
        title: by_id("snapshot-dialog-title")?,
        subtitle: by_id("snapshot-dialog-subtitle")?,
        body: by_id("snapshot-dialog-body")?,
        confirm: by_id("snapshot-dialog-confirm")?,
    })
}

fn open_restore_dialog(scope: RecoveryScope, snapshot_id: String, dialog: &RestoreDialogContent) {
    let Some(parts) = dialog_parts() else { return };
    parts.title.set_text_content(Some(dialog.title));
    let (file, created) = dialog.snapshot.as_ref().map_or(
        (protocol::edit_checkpoint::DEFAULT_EDIT_FILE_LABEL.to_owned(), f64::NAN),
        |s| (s.file_label.clone(), s.created_at),
    );
    parts
        .subtitle
        .set_text_content(Some(&format!("{file} · {}", snapshot_date(created))));
    dom::clear(&parts.body);
    if let Some((note, class)) = &dialog.note {
        let _ = parts.body.append_child(
            &el("div")
                .class(&format!("snapshot-dialog-note {class}"))
                .text(note)
                .build(),
        );
    }
    if let Some(preview) = &dialog.preview {
        let _ = parts.body.append_child(&diff_element(preview));
    }
    let _ = parts
        .body
        .append_child(&el("div").class("snapshot-dialog-safety").text(dialog.safety).build());
    parts.confirm.set_text_content(Some(dialog.confirm_label));
    parts.confirm.set_class_name("btn btn-primary");
    dom::set_disabled(&parts.confirm, dialog.confirm_disabled);
    let _ = parts.layer.set_attribute("data-dialog-mode", "restore");
    let base = dialog.base.clone();
    SNAPSHOTS.with(|s| s.borrow_mut().dialog = Some((scope, DialogMode::Restore { snapshot_id, base })));
    dom::set_hidden(&parts.layer, false);
    dom::focus(&parts.confirm);
}

fn open_delete_dialog(scope: RecoveryScope, snapshot: &PublicDocumentSnapshot) {
    let Some(parts) = dialog_parts() else { return };
    parts.title.set_text_content(Some("Delete this snapshot?"));
    parts.subtitle.set_text_content(Some(&format!(
        "{} · {} · {}",
        snapshot.title,
        snapshot.file_label,
        snapshot_date(snapshot.created_at)
    )));
    dom::clear(&parts.body);
    let _ = parts.body.append_child(
        &el("div")
            .class("snapshot-dialog-note is-danger")
            .text(recovery::DELETE_WARNING)
            .build(),
    );
    parts.confirm.set_text_content(Some("Delete"));
    parts.confirm.set_class_name("btn btn-danger");
    dom::set_disabled(&parts.confirm, false);
    let _ = parts.layer.set_attribute("data-dialog-mode", "delete");
    SNAPSHOTS.with(|s| {
        s.borrow_mut().dialog = Some((
            scope,
            DialogMode::Delete {
                snapshot_id: snapshot.id.clone(),
            },
        ))
    });
    dom::set_hidden(&parts.layer, false);
    dom::focus(&parts.confirm);
}

/// Closes the snapshot dialog; true when it was open.
fn close_dialog(restore_focus: bool) -> bool {
    let Some(layer) = by_id("snapshot-dialog-layer") else {
        return false;
    };
    if dom::is_hidden(&layer) {
        return false;
    }
    dom::set_hidden(&layer, true);
    let trigger = SNAPSHOTS.with(|s| {
        let mut ui = s.borrow_mut();
        ui.dialog = None;
        ui.trigger.take()
    });
    // The chat may have redrawn its answers meanwhile: then the Snapshot
    // button drawn in the trigger's place takes the focus.
    let trigger = trigger
        .filter(|t| t.is_connected())
        .or_else(|| dom::query_document("#messages .response-snapshot-button").pop());
    if restore_focus && let Some(trigger) = trigger {
        dom::focus(&trigger);
    }
    true
}

fn confirm_dialog() {
    if is_busy() {
        return;
    }
    let Some((scope, mode)) = SNAPSHOTS.with(|s| s.borrow_mut().dialog.take()) else {
        return;
    };
    let Some(confirm) = by_id("snapshot-dialog-confirm") else {
        return;
    };
    set_busy(true);
    dom::set_disabled(&confirm, true);
    match mode {
        DialogMode::Restore { snapshot_id, base } => {
            // The dialog disables Restore without a base; this only guards.
            let Some(reviewed) = base.clone() else {
                SNAPSHOTS.with(|s| s.borrow_mut().dialog = Some((scope, DialogMode::Restore { snapshot_id, base })));
                set_busy(false);
                return;
            };
            confirm.set_text_content(Some("Restoring…"));
            run(move |app| async move {
                let restored = app.restore_snapshot(&scope, &snapshot_id, &reviewed).await;
                set_busy(false);
                match restored {
                    // Focus goes back to the Snapshot button it came from.
                    Ok(()) => {
                        close_dialog(true);
                    }
                    // The document changed since the preview: the same
                    // dialog shows the fresh diff to review again.
                    Err(RestoreRefusal::Changed(answer)) => {
                        open_restore_dialog(scope, snapshot_id, &recovery::restore_dialog(&answer, true));
                    }
                    Err(RestoreRefusal::Failed(_)) => {
                        confirm.set_text_content(Some("Restore"));
                        dom::set_disabled(&confirm, false);
                        SNAPSHOTS
                            .with(|s| s.borrow_mut().dialog = Some((scope, DialogMode::Restore { snapshot_id, base })));
                    }
                }
            });
        }
        DialogMode::Delete { snapshot_id } => {
            confirm.set_text_content(Some("Deleting…"));
            run(move |app| async move {
                let deleted = app.delete_snapshot(&scope, &snapshot_id).await;
                set_busy(false);
                if deleted.is_ok() {
                    let trigger = SNAPSHOTS.with(|s| s.borrow().trigger.clone());
                    close_dialog(false);
                    let locked = app.with_state(|s| s.streaming || !s.on_typst);
                    if let Some(trigger) = trigger.filter(|t| t.is_connected())
                        && !locked
                    {
                        open_menu(trigger);
                    }
                } else {
                    confirm.set_text_content(Some("Delete"));
                    dom::set_disabled(&confirm, false);
                    SNAPSHOTS.with(|s| s.borrow_mut().dialog = Some((scope, DialogMode::Delete { snapshot_id })));
                }
            });
        }
    }
}

// ---------------------------------------------------------------- wiring

fn on_backdrop(event: &web_sys::Event) -> bool {
    event.target().zip(event.current_target()).is_some_and(|(t, c)| t == c)
}

/// Listeners of the Revert dialog and the snapshot UI.
pub(crate) fn wire() {
    dom::on_id("revert-dialog-close", "click", |_| {
        close_revert(true);
    });
    dom::on_id("revert-dialog-cancel", "click", |_| {
        close_revert(true);
    });
    dom::on_id("revert-dialog-layer", "click", |event| {
        if on_backdrop(&event) {
            close_revert(true);
        }
    });
    dom::on_id("revert-dialog-confirm", "click", |_| confirm_revert());

    dom::on_id("snapshot-menu-close", "click", |_| close_menu(true));
    dom::on_id("snapshot-list", "click", |event| on_list_click(&event));
    dom::on_id("snapshot-dialog-close", "click", |_| {
        if !is_busy() {
            close_dialog(true);
        }
    });
    dom::on_id("snapshot-dialog-cancel", "click", |_| {
        if !is_busy() {
            close_dialog(true);
        }
    });
    dom::on_id("snapshot-dialog-layer", "click", |event| {
        if on_backdrop(&event) && !is_busy() {
            close_dialog(true);
        }
    });
    dom::on_id("snapshot-dialog-confirm", "click", |_| confirm_dialog());
    if let Some(messages) = by_id("messages") {
        dom::on(&messages, "scroll", |_| close_menu(false));
    }
    if let Some(window) = web_sys::window() {
        dom::on(&window, "resize", |_| close_menu(false));
    }

    let Some(document) = dom::document() else { return };
    dom::on(&document, "click", |event| {
        let target: Option<web_sys::Node> = event.target().and_then(|t| t.dyn_into().ok());
        let inside = |element: Option<Element>| {
            element.is_some_and(|container| target.as_ref().is_some_and(|t| container.contains(Some(t))))
        };
        let trigger = SNAPSHOTS.with(|s| s.borrow().trigger.clone());
        if is_menu_open() && !inside(by_id("snapshot-menu")) && !inside(trigger) {
            close_menu(false);
        }
    });
    // Escape closes these (and then the Edits menu) before anything else:
    // captured first, and the panel's other Escape handling does not see it.
    let on_escape = Closure::<dyn FnMut(web_sys::Event)>::new(|event: web_sys::Event| {
        let Some(key) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if key.key() != "Escape" {
            return;
        }
        let handled = close_revert(true)
            || (!is_busy() && close_dialog(true))
            || (is_menu_open() && {
                close_menu(true);
                true
            })
            || edit_mode::close_menu_on_escape();
        if handled {
            event.prevent_default();
            event.stop_immediate_propagation();
        }
    });
    let _ = document.add_event_listener_with_callback_and_bool("keydown", on_escape.as_ref().unchecked_ref(), true);
    on_escape.forget();
}
