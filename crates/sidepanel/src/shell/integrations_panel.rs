//! DOM of Settings → Tools and Settings → MCP: the registry rows, the two
//! forms (filled, read, checked as the user types), the probe result, the
//! shell's `Integrations` side, and the events of both panes.
//!
//! The rules live in `crate::integration_forms`; this file only decides
//! what to show where. A field's problem appears once the field was edited
//! (or a save or probe was attempted), so an empty new form is not a wall
//! of errors. Every action leaves focus somewhere sensible: a form opens on
//! its first field and gives focus back to what opened it; a toggled row
//! keeps focus on its switch; a deleted row hands it to its neighbour, else
//! to the Add button; a saved record's Edit button takes it.

use super::form::{checked, set_checked, set_value, show_problem, value};
use super::handle::{WasmShell, app, run};
use super::registry_row::{RegistryRow, registry_row};
use crate::app::Integrations;
use crate::dom::{self, by_id, el};
use crate::integration_forms::{
    FieldError, FormField, IntegrationForm, McpForm, ToolForm, endpoint_field, trust_fields,
};
use crate::integrations::{IntegrationRecord, RegistryKind};
use crate::mcp_probe::ProbeStatus;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};

/// The element ids of one registry's pane.
struct Ids {
    registry: &'static str,
    empty: &'static str,
    empty_text: &'static str,
    add: &'static str,
    form: &'static str,
    title: &'static str,
    form_id: &'static str,
    enabled: &'static str,
    trusted: &'static str,
    insecure: &'static str,
    cancel: &'static str,
    save: &'static str,
}

fn ids(kind: RegistryKind) -> Ids {
    match kind {
        RegistryKind::CustomTools => Ids {
            registry: "tool-registry",
            empty: "tool-registry-empty",
            empty_text: "No custom tools yet.",
            add: "add-tool-btn",
            form: "tool-form",
            title: "tool-form-title",
            form_id: "tool-form-id",
            enabled: "tf-enabled",
            trusted: "tf-trusted",
            insecure: "tf-insecure",
            cancel: "tool-cancel",
            save: "tool-save",
        },
        RegistryKind::McpServers => Ids {
            registry: "mcp-registry",
            empty: "mcp-registry-empty",
            empty_text: "No MCP servers yet.",
            add: "add-mcp-btn",
            form: "mcp-form",
            title: "mcp-form-title",
            form_id: "mcp-form-id",
            enabled: "mcp-enabled",
            trusted: "mcp-trusted",
            insecure: "mcp-insecure",
            cancel: "mcp-cancel",
            save: "mcp-save",
        },
    }
}

const ID_ATTRIBUTE: &str = "data-record-id";
const PROBE_BUTTON: &str = "mcp-probe";
const PROBE_RESULT: &str = "mcp-probe-result";
const PROBE_LABEL: &str = "Probe tools";
const PROBING: &str = "Probing…";

/// What each open form shows: the fields edited since it opened, the
/// problems of the last save or probe (a worker refusal among them, kept
/// until its field is edited), and the record id of the Edit button that
/// opened it (`None`: the Add button).
#[derive(Default)]
struct FormState {
    touched: HashSet<FormField>,
    attempted: HashMap<FormField, String>,
    opener: Option<String>,
}

thread_local! {
    static FORMS: RefCell<HashMap<RegistryKind, FormState>> = RefCell::new(HashMap::new());
}

fn with_form<T>(kind: RegistryKind, change: impl FnOnce(&mut FormState) -> T) -> T {
    FORMS.with(|forms| change(forms.borrow_mut().entry(kind).or_default()))
}

fn label_of(record: &IntegrationRecord) -> String {
    let name = record.name();
    if name.is_empty() { "(unnamed)".to_owned() } else { name }
}

// ------------------------------------------------------------ registry

fn toggle(record: &IntegrationRecord) -> Element {
    let on = record.enabled();
    el("button")
        .attr("type", "button")
        .class(if on {
            "badge ok reg-toggle"
        } else {
            "badge off reg-toggle"
        })
        .attr("role", "switch")
        .attr("aria-checked", if on { "true" } else { "false" })
        .attr("data-action", "toggle")
        .label(&format!("{} enabled", label_of(record)))
        .text(if on { "on" } else { "off" })
        .build()
}

/// Rebuilds a registry: its rows, or its note when it is empty or could
/// not be loaded.
fn render(kind: RegistryKind, records: Result<&[IntegrationRecord], &str>) {
    let ids = ids(kind);
    let (Some(list), Some(note)) = (by_id(ids.registry), by_id(ids.empty)) else {
        return;
    };
    dom::clear(&list);
    let rows = records.as_ref().map_or(0, |records| records.len());
    dom::set_hidden(&list, rows == 0);
    dom::set_hidden(&note, rows > 0);
    note.set_text_content(Some(records.err().unwrap_or(ids.empty_text)));
    for record in records.unwrap_or_default() {
        let label = label_of(record);
        let noun = kind.noun();
        let row = registry_row(RegistryRow {
            id_attribute: ID_ATTRIBUTE,
            id: &record.id(),
            title: &label,
            meta: &record.summary(kind),
            badges: vec![toggle(record)],
            edit_label: &format!("Edit {noun} {label}"),
            delete_label: &format!("Delete {noun} {label}"),
        });
        let _ = list.append_child(&row);
    }
}

fn row_ids(kind: RegistryKind) -> Vec<String> {
    let Some(list) = by_id(ids(kind).registry) else {
        return Vec::new();
    };
    dom::query_all(&list, &format!("[{ID_ATTRIBUTE}]"))
        .iter()
        .filter_map(|row| row.get_attribute(ID_ATTRIBUTE))
        .collect()
}

/// Focuses a row's button; false when the row is gone.
fn focus_row_action(kind: RegistryKind, id: &str, action: &str) -> bool {
    let Some(list) = by_id(ids(kind).registry) else {
        return false;
    };
    let button = dom::query_all(&list, &format!("[data-action=\"{action}\"]"))
        .into_iter()
        .find(|button| {
            button
                .closest(&format!("[{ID_ATTRIBUTE}]"))
                .ok()
                .flatten()
                .and_then(|row| row.get_attribute(ID_ATTRIBUTE))
                .as_deref()
                == Some(id)
        });
    button.map(|button| dom::focus(&button)).is_some()
}

/// Focus after the row `id` is gone: the row that took its place, else the
/// one before it, else the Add button (or the open form's first field).
fn focus_after_removal(kind: RegistryKind, before: &[String], id: &str) {
    let position = before.iter().position(|row| row == id).unwrap_or(0);
    let after = row_ids(kind);
    let neighbour = after.get(position).or_else(|| after.last());
    if neighbour.is_some_and(|next| focus_row_action(kind, next, "edit")) {
        return;
    }
    focus_add(kind);
}

fn focus_add(kind: RegistryKind) {
    let target = by_id(ids(kind).add)
        .filter(|add| !dom::is_hidden(add))
        .or_else(|| by_id(FormField::all(kind)[0].element_id()));
    if let Some(target) = target {
        dom::focus(&target);
    }
}

// ------------------------------------------------------------ forms

fn record(kind: RegistryKind, id: &str) -> Option<IntegrationRecord> {
    app()?.with_state(|state| state.records(kind).iter().find(|r| r.id() == id).cloned())
}

fn is_open(kind: RegistryKind) -> bool {
    by_id(ids(kind).form).is_some_and(|form| !dom::is_hidden(&form))
}

fn fill(form: &IntegrationForm) {
    let kind = form.kind();
    let ids = ids(kind);
    let (id, texts, enabled, trusted, insecure) = match form {
        IntegrationForm::Tool(f) => (
            &f.id,
            vec![&f.name, &f.description, &f.endpoint, &f.headers, &f.parameters],
            f.enabled,
            f.trusted,
            f.insecure_confirmed,
        ),
        IntegrationForm::Mcp(f) => (
            &f.id,
            vec![&f.name, &f.url, &f.headers, &f.protocol_mode],
            f.enabled,
            f.trusted,
            f.insecure_confirmed,
        ),
    };
    set_value(ids.form_id, id);
    for (field, text) in FormField::all(kind).iter().zip(texts) {
        set_value(field.element_id(), text);
    }
    set_checked(ids.enabled, enabled);
    set_checked(ids.trusted, trusted);
    set_checked(ids.insecure, insecure);
}

fn read(kind: RegistryKind) -> IntegrationForm {
    let ids = ids(kind);
    let text = |n: usize| value(FormField::all(kind)[n].element_id());
    match kind {
        RegistryKind::CustomTools => IntegrationForm::Tool(ToolForm {
            id: value(ids.form_id),
            name: text(0),
            description: text(1),
            endpoint: text(2),
            headers: text(3),
            parameters: text(4),
            enabled: checked(ids.enabled),
            trusted: checked(ids.trusted),
            insecure_confirmed: checked(ids.insecure),
        }),
        RegistryKind::McpServers => IntegrationForm::Mcp(read_mcp()),
    }
}

fn read_mcp() -> McpForm {
    let ids = ids(RegistryKind::McpServers);
    McpForm {
        id: value(ids.form_id),
        name: value(FormField::McpName.element_id()),
        url: value(FormField::McpUrl.element_id()),
        headers: value(FormField::McpHeaders.element_id()),
        protocol_mode: value(FormField::McpProtocol.element_id()),
        enabled: checked(ids.enabled),
        trusted: checked(ids.trusted),
        insecure_confirmed: checked(ids.insecure),
    }
}

/// Shows, beside each edited field, its problem now (or the one the last
/// save or probe found there, until that field is edited).
fn show_problems(kind: RegistryKind) {
    let current = app()
        .map(|app| app.with_state(|state| state.records(kind).to_vec()))
        .unwrap_or_default();
    let now = read(kind).problems(&current);
    with_form(kind, |state| {
        for field in FormField::all(kind) {
            let shown = state.touched.contains(field).then(|| {
                now.iter()
                    .find(|p| p.field == *field)
                    .map(|p| p.message.as_str())
                    .or_else(|| state.attempted.get(field).map(String::as_str))
            });
            show_problem(field.element_id(), shown.flatten());
        }
    });
}

fn reset_probe() {
    if let Some(app) = app() {
        app.forget_probe();
    }
    show_probe_button(false);
    if let Some(result) = by_id(PROBE_RESULT) {
        result.set_text_content(None);
        let _ = result.class_list().remove_2("ok", "err");
        dom::set_hidden(&result, true);
    }
}

/// Opens a form for `id`'s record (Edit) or a new one (Add).
fn open(kind: RegistryKind, id: Option<String>) {
    let stored = id.as_deref().and_then(|id| record(kind, id));
    let ids = ids(kind);
    let verb = if stored.is_some() { "Edit" } else { "Add" };
    if let Some(title) = by_id(ids.title) {
        title.set_text_content(Some(&format!("{verb} {}", kind.noun())));
    }
    fill(&IntegrationForm::for_record(kind, stored.as_ref()));
    with_form(kind, |state| {
        *state = FormState {
            opener: stored.as_ref().map(IntegrationRecord::id),
            ..FormState::default()
        };
    });
    show_problems(kind);
    if kind == RegistryKind::McpServers {
        reset_probe();
    }
    if let Some(form) = by_id(ids.form) {
        dom::set_hidden(&form, false);
    }
    if let Some(add) = by_id(ids.add) {
        dom::set_hidden(&add, true);
    }
    if let Some(first) = by_id(FormField::all(kind)[0].element_id()) {
        dom::focus(&first);
    }
}

fn close(kind: RegistryKind) {
    let ids = ids(kind);
    if let Some(form) = by_id(ids.form) {
        dom::set_hidden(&form, true);
    }
    if let Some(add) = by_id(ids.add) {
        dom::set_hidden(&add, false);
    }
    if kind == RegistryKind::McpServers {
        reset_probe();
    }
}

/// Cancel (or Escape in the form): closes it and gives focus back to what
/// opened it.
fn cancel(kind: RegistryKind) {
    close(kind);
    let opener = with_form(kind, |state| state.opener.take());
    if !opener.is_some_and(|id| focus_row_action(kind, &id, "edit")) {
        focus_add(kind);
    }
}

/// A field was edited: untick what its change invalidates, then check.
fn edited(kind: RegistryKind, field: FormField) {
    let ids = ids(kind);
    if trust_fields(kind).contains(&field) {
        set_checked(ids.trusted, false);
    }
    if endpoint_field(kind) == field {
        set_checked(ids.insecure, false);
    }
    with_form(kind, |state| {
        state.touched.insert(field);
        state.attempted.remove(&field);
    });
    show_problems(kind);
}

// ------------------------------------------------------------ probe

fn show_probe_button(busy: bool) {
    let Some(button) = by_id(PROBE_BUTTON) else {
        return;
    };
    // The button stays enabled (so keyboard focus stays on it) and only
    // says it is busy; clicks are ignored meanwhile.
    let _ = if busy {
        button
            .set_attribute("aria-busy", "true")
            .and_then(|()| button.set_attribute("aria-disabled", "true"))
    } else {
        button
            .remove_attribute("aria-busy")
            .and_then(|()| button.remove_attribute("aria-disabled"))
    };
    button.set_text_content(Some(if busy { PROBING } else { PROBE_LABEL }));
}

fn show_probe(status: &ProbeStatus) {
    let Some(result) = by_id(PROBE_RESULT) else {
        return;
    };
    let (busy, class, text) = match status {
        ProbeStatus::Busy => (true, None, PROBING.to_owned()),
        ProbeStatus::Connected(lines) => (false, Some("ok"), lines.join("\n")),
        ProbeStatus::Failed(lines) => (false, Some("err"), lines.join("\n")),
    };
    show_probe_button(busy);
    let _ = result.class_list().remove_2("ok", "err");
    if let Some(class) = class {
        let _ = result.class_list().add_1(class);
    }
    result.set_text_content(Some(&text));
    dom::set_hidden(&result, false);
}

impl Integrations for WasmShell {
    fn show_registry(&self, kind: RegistryKind, records: Result<&[IntegrationRecord], &str>) {
        render(kind, records);
    }

    fn show_form_problems(&self, kind: RegistryKind, problems: &[FieldError]) {
        with_form(kind, |state| {
            state.touched.extend(FormField::all(kind).iter().copied());
            state.attempted = problems.iter().map(|p| (p.field, p.message.clone())).collect();
        });
        show_problems(kind);
    }

    fn close_integration_form(&self, kind: RegistryKind) {
        close(kind);
    }

    fn show_probe(&self, status: &ProbeStatus) {
        show_probe(status);
    }
}

// ------------------------------------------------------------ events

fn wire_registry(kind: RegistryKind) {
    dom::on_id(ids(kind).registry, "click", move |event| {
        let Some((_, id)) = dom::closest_with(&event, ID_ATTRIBUTE) else {
            return;
        };
        match dom::closest_with(&event, "data-action").map(|(_, a)| a).as_deref() {
            Some("edit") => open(kind, Some(id)),
            Some("toggle") => run(move |app| async move {
                app.toggle_integration(kind, id.clone()).await;
                focus_row_action(kind, &id, "toggle");
            }),
            Some("delete") => {
                let before = row_ids(kind);
                run(move |app| async move {
                    if !app.delete_integration(kind, id.clone()).await {
                        focus_row_action(kind, &id, "delete");
                        return;
                    }
                    if is_open(kind) && value(ids(kind).form_id) == id {
                        close(kind);
                    }
                    focus_after_removal(kind, &before, &id);
                });
            }
            _ => {}
        }
    });
}

fn wire_form(kind: RegistryKind) {
    let ids = ids(kind);
    dom::on_id(ids.add, "click", move |_| open(kind, None));
    dom::on_id(ids.cancel, "click", move |_| cancel(kind));
    dom::on_id(ids.save, "click", move |_| {
        let form = read(kind);
        run(move |app| async move {
            if let Some(id) = app.save_integration_form(form).await {
                focus_row_action(kind, &id, "edit");
            }
        });
    });
    for field in FormField::all(kind).iter().copied() {
        for event in ["input", "change"] {
            dom::on_id(field.element_id(), event, move |_| edited(kind, field));
        }
    }
    dom::on_id(ids.insecure, "change", move |_| show_problems(kind));
    // Escape in a form cancels it (and goes no further: Settings stays open).
    dom::on_id(ids.form, "keydown", move |event| {
        if event
            .dyn_ref::<KeyboardEvent>()
            .is_some_and(|key| key.key() == "Escape")
        {
            event.prevent_default();
            event.stop_propagation();
            cancel(kind);
        }
    });
}

/// Binds both panes' events.
pub(super) fn wire() {
    for kind in RegistryKind::ALL {
        wire_registry(kind);
        wire_form(kind);
    }
    dom::on_id(PROBE_BUTTON, "click", |_| {
        let busy = by_id(PROBE_BUTTON).is_some_and(|b| b.get_attribute("aria-busy").as_deref() == Some("true"));
        if busy {
            return;
        }
        let form = read_mcp();
        run(move |app| async move { app.probe_mcp_form(form).await });
    });
}
