//! Settings → Tools and Settings → MCP: loading both registries when
//! Settings opens, saving a form, switching a record on or off, deleting
//! one, and probing an MCP server before it is saved.
//!
//! Each registry takes one change at a time (`turns.rs`), computed against
//! the list as it is then, and shows what the worker answers it stored. A
//! form with problems is not sent; a refused save keeps the form open with
//! everything the user typed, puts the worker's sentence beside the field it
//! names, and the status line says why.

use super::controller::{AppState, Controller};
use super::shell::Shell;
use super::turns::Turns;
use crate::integration_forms::{FieldError, IntegrationForm, McpForm, refused_field};
use crate::integrations::{IntegrationRecord, RecordChange, RegistryKind, committed_records, records_from_value};
use crate::mcp_probe::{self, ProbeStatus};
use crate::worker_client::WorkerError;
use protocol::MessageType;
use serde_json::{Map, Value, json};
use std::rc::Rc;

impl AppState {
    pub(crate) fn records(&self, kind: RegistryKind) -> &[IntegrationRecord] {
        match kind {
            RegistryKind::CustomTools => &self.custom_tools,
            RegistryKind::McpServers => &self.mcp_servers,
        }
    }

    fn records_mut(&mut self, kind: RegistryKind) -> &mut Vec<IntegrationRecord> {
        match kind {
            RegistryKind::CustomTools => &mut self.custom_tools,
            RegistryKind::McpServers => &mut self.mcp_servers,
        }
    }
}

/// "Custom tool saved" / "MCP server saved".
fn saved_status(kind: RegistryKind) -> String {
    let noun = kind.noun();
    let mut chars = noun.chars();
    let first = chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>())
        .unwrap_or_default();
    format!("{first}{} saved", chars.as_str())
}

impl<S: Shell + 'static> Controller<S> {
    fn turns(&self, kind: RegistryKind) -> &Turns {
        match kind {
            RegistryKind::CustomTools => &self.tool_turns,
            RegistryKind::McpServers => &self.server_turns,
        }
    }

    /// Loads and shows both registries (Settings opened). Each load waits
    /// for changes in flight, so an older list never replaces a newer one.
    pub(crate) async fn load_integrations(self: &Rc<Self>) {
        for kind in RegistryKind::ALL {
            self.turns(kind).take(self.load_registry(kind)).await;
        }
    }

    async fn load_registry(self: &Rc<Self>, kind: RegistryKind) {
        match self.request(kind.load_type(), json!({})).await {
            Ok(value) => {
                let records = records_from_value(&value);
                self.state.borrow_mut().records_mut(kind).clone_from(&records);
                self.shell.show_registry(kind, Ok(&records));
            }
            Err(error) => {
                let why = format!("The {}s could not be loaded: {}", kind.noun(), error.message);
                self.shell.show_registry(kind, Err(&why));
            }
        }
    }

    /// Runs one change of `kind` after the earlier ones; commits and shows
    /// what the worker stored.
    async fn change_integrations(self: &Rc<Self>, kind: RegistryKind, change: RecordChange) -> Result<(), WorkerError> {
        self.turns(kind).take(self.change_integrations_now(kind, change)).await
    }

    async fn change_integrations_now(
        self: &Rc<Self>,
        kind: RegistryKind,
        change: RecordChange,
    ) -> Result<(), WorkerError> {
        let current = self.state.borrow().records(kind).to_vec();
        let (next, mutation) = change.apply(&current);
        let mut payload = Map::new();
        let list = next.iter().map(IntegrationRecord::to_value).collect();
        payload.insert(kind.list_key().to_owned(), Value::Array(list));
        payload.insert("mutation".to_owned(), json!(mutation));
        let saved = self.request(kind.save_type(), Value::Object(payload)).await?;
        let committed = committed_records(&saved, next);
        self.state.borrow_mut().records_mut(kind).clone_from(&committed);
        self.shell.show_registry(kind, Ok(&committed));
        Ok(())
    }

    /// The form's Save. Returns the saved record's id (the form is closed
    /// then), or `None` when the form had problems or the worker refused it
    /// (the form stays open as the user left it).
    pub(crate) async fn save_integration_form(self: &Rc<Self>, form: IntegrationForm) -> Option<String> {
        let kind = form.kind();
        let current = self.state.borrow().records(kind).to_vec();
        let record = match form.record(&self.shell.new_id(), &current) {
            Ok(record) => record,
            Err(problems) => {
                self.shell.show_form_problems(kind, &problems);
                self.refused(kind, problems.first().map_or("", |p| p.message.as_str()));
                return None;
            }
        };
        let id = record.id();
        match self.change_integrations(kind, RecordChange::Upsert(record)).await {
            Ok(()) => {
                self.shell.show_form_problems(kind, &[]);
                self.shell.close_integration_form(kind);
                self.shell.status(&saved_status(kind), false, Some(1_500));
                Some(id)
            }
            Err(error) => {
                let beside: Vec<FieldError> = refused_field(kind, &error).into_iter().collect();
                self.shell.show_form_problems(kind, &beside);
                self.refused(kind, &error.message);
                None
            }
        }
    }

    fn refused(&self, kind: RegistryKind, why: &str) {
        self.status(&format!("The {} was not saved: {why}", kind.noun()), true);
    }

    /// The row's Delete; true when the worker stored the shorter list.
    pub(crate) async fn delete_integration(self: &Rc<Self>, kind: RegistryKind, id: String) -> bool {
        self.change_row(kind, RecordChange::Remove(id)).await
    }

    /// The row's on/off switch; true when the worker stored the change.
    pub(crate) async fn toggle_integration(self: &Rc<Self>, kind: RegistryKind, id: String) -> bool {
        self.change_row(kind, RecordChange::Toggle(id)).await
    }

    async fn change_row(self: &Rc<Self>, kind: RegistryKind, change: RecordChange) -> bool {
        match self.change_integrations(kind, change).await {
            Ok(()) => true,
            Err(error) => {
                self.status(&format!("Settings were not saved: {}", error.message), true);
                false
            }
        }
    }

    /// The MCP form was opened or closed: a probe still under way reports
    /// nothing when it ends, since the form it was for is gone.
    pub(crate) fn forget_probe(&self) {
        let mut state = self.state.borrow_mut();
        state.probe_epoch = state.probe_epoch.wrapping_add(1);
    }

    /// "Probe tools": lists the server's tools with the form as it is
    /// (nothing is saved). One probe at a time; a form with problems is not
    /// sent.
    pub(crate) async fn probe_mcp_form(self: &Rc<Self>, form: McpForm) {
        if self.state.borrow().probing {
            return;
        }
        let server = match form.probe_server() {
            Ok(server) => server,
            Err(problems) => {
                self.shell.show_form_problems(RegistryKind::McpServers, &problems);
                let why = problems.first().map_or("", |p| p.message.as_str());
                self.shell
                    .show_probe(&ProbeStatus::Failed(vec![format!("Not probed: {why}")]));
                return;
            }
        };
        let epoch = {
            let mut state = self.state.borrow_mut();
            state.probing = true;
            state.probe_epoch
        };
        self.shell.show_probe(&ProbeStatus::Busy);
        let answer = self
            .request(MessageType::ProbeMcpServer, json!({ "server": server }))
            .await;
        let current = {
            let mut state = self.state.borrow_mut();
            state.probing = false;
            state.probe_epoch == epoch
        };
        if current {
            let view = match answer {
                Ok(answer) => mcp_probe::report(&answer),
                Err(error) => mcp_probe::failure(&error),
            };
            self.shell.show_probe(&view);
        }
    }
}
