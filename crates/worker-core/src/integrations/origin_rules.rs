//! The `declarativeNetRequest` session rules that remove the `Origin`
//! header from the extension's own requests to configured MCP servers
//! ([`OriginRules`]).
//!
//! Chromium sends `Origin: chrome-extension://<id>` with every request of
//! the worker, and servers with a DNS-rebinding guard (Python `mcp` on
//! loopback) answer 403 "Invalid Origin header". One rule per origin removes
//! the header, matching only requests this extension initiates
//! (`initiatorDomains`) to exactly that origin (`urlFilter: '|<origin>/'`),
//! so a web page's requests keep their `Origin` and the server's guard keeps
//! refusing them (ARCHITECTURE.md, Trust boundaries, has the reasoning).
//!
//! The rule set follows the enabled servers as stored, plus the origins
//! being probed: it is rebuilt at every worker start (session rules do not
//! survive a browser restart), after every save of the servers, and around
//! every probe. Each update replaces the extension's whole block of rule ids
//! and is computed from storage read inside its turn, so the update issued
//! last is always of the newest state. A refused update is never fatal: the
//! requests go out with the browser's `Origin`, and a probe's hint says so.

use crate::platform::{NetRules, Platform, Storage};
use crate::storage::MutationQueue;
use protocol::constants::{MCP_ORIGIN_RULE_FIRST_ID, storage_keys};
use protocol::endpoint_policy::{InsecureConsent, validate_endpoint_url};
use protocol::limits::{self, MAX_MCP_ORIGIN_RULES};
use protocol::registry_records::McpServer;
use serde_json::{Value, json};
use std::cell::RefCell;

/// What the last update of this worker instance did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Applied {
    /// No update yet.
    #[default]
    Nothing,
    /// The browser took the rules of these origins.
    Origins(Vec<String>),
    /// The browser refused the update (its message).
    Refused(String),
}

/// Whether requests to one origin go out without `Origin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Coverage {
    /// A rule removes it.
    Removed,
    /// The browser refused the rules (its message).
    Refused(String),
    /// More configured origins than the rule block holds; this one has none.
    BeyondLimit,
}

/// The rule set of one worker instance.
#[derive(Default)]
pub(crate) struct OriginRules {
    /// Origins of probes under way, once per probe.
    probing: RefCell<Vec<String>>,
    /// One update at a time.
    turn: MutationQueue,
    last: RefCell<Applied>,
}

/// The origin requests to `server` go to, when its URL passes the endpoint
/// policy (with its stored cleartext acknowledgement).
pub(crate) fn server_origin(server: &McpServer) -> Option<String> {
    let consent = InsecureConsent {
        confirmed: false,
        confirmed_origin: server.insecure_transport_acknowledged_origin(),
    };
    validate_endpoint_url(&server.url(), consent)
        .ok()
        .map(|endpoint| endpoint.origin)
}

/// The origins that get a rule: each enabled server's, then `probing`, each
/// once, at most [`MAX_MCP_ORIGIN_RULES`].
pub(crate) fn rule_origins(servers: &[McpServer], probing: &[String]) -> Vec<String> {
    let enabled = servers
        .iter()
        .filter(|server| server.enabled())
        .filter_map(server_origin);
    let mut origins: Vec<String> = Vec::new();
    for origin in enabled.chain(probing.iter().cloned()) {
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    origins.truncate(limits::to_usize(MAX_MCP_ORIGIN_RULES));
    origins
}

/// The rule that removes `Origin` from this extension's requests to exactly
/// `origin` (`urlFilter` anchors the whole origin and its `/`, so
/// `https://a.example` does not cover `https://a.example.evil`).
pub(crate) fn origin_rule(id: u32, origin: &str, extension_id: &str) -> Value {
    json!({
        "id": id,
        "priority": 1,
        "action": {
            "type": "modifyHeaders",
            "requestHeaders": [{ "header": "origin", "operation": "remove" }],
        },
        "condition": {
            "urlFilter": format!("|{origin}/"),
            "initiatorDomains": [extension_id],
            "resourceTypes": ["xmlhttprequest", "other"],
        },
    })
}

/// Every id of the extension's block.
fn owned_ids() -> Vec<u32> {
    (MCP_ORIGIN_RULE_FIRST_ID..MCP_ORIGIN_RULE_FIRST_ID + MAX_MCP_ORIGIN_RULES).collect()
}

impl OriginRules {
    /// Rebuilds the rules from the stored servers and the probes under way.
    /// `Err` carries why the rules could not be set (already kept for the
    /// probes' hints).
    pub(crate) async fn sync<P: Platform>(&self, platform: &P) -> Result<(), String> {
        let _turn = self.turn.lock().await;
        let servers = match platform.storage().get(storage_keys::MCP_SERVERS).await {
            Ok(stored) => McpServer::list_from_stored(stored.as_ref()),
            Err(error) => {
                let message = format!("The MCP servers could not be read: {error}");
                *self.last.borrow_mut() = Applied::Refused(message.clone());
                return Err(message);
            }
        };
        let origins = rule_origins(&servers, &self.probing.borrow());
        let extension_id = platform.net_rules().extension_id();
        let rules: Vec<Value> = origins
            .iter()
            .zip(MCP_ORIGIN_RULE_FIRST_ID..)
            .map(|(origin, id)| origin_rule(id, origin, &extension_id))
            .collect();
        let outcome = platform.net_rules().update_session_rules(&owned_ids(), &rules).await;
        let applied = match &outcome {
            Ok(()) => Applied::Origins(origins),
            Err(error) => Applied::Refused(error.0.clone()),
        };
        *self.last.borrow_mut() = applied;
        outcome.map_err(|error| format!("The MCP Origin rules could not be set: {error}"))
    }

    /// Counts a probe of `origin` in (its origin gets a rule from the next
    /// update on, until [`OriginRules::end_probe`]).
    pub(crate) fn begin_probe(&self, origin: &str) {
        self.probing.borrow_mut().push(origin.to_owned());
    }

    /// Counts one probe of `origin` out.
    pub(crate) fn end_probe(&self, origin: &str) {
        let mut probing = self.probing.borrow_mut();
        if let Some(index) = probing.iter().position(|o| o == origin) {
            probing.remove(index);
        }
    }

    /// Whether the last update covers `origin`.
    pub(crate) fn coverage(&self, origin: &str) -> Coverage {
        match &*self.last.borrow() {
            Applied::Origins(origins) if origins.iter().any(|o| o == origin) => Coverage::Removed,
            Applied::Origins(_) => Coverage::BeyondLimit,
            Applied::Refused(message) => Coverage::Refused(message.clone()),
            Applied::Nothing => Coverage::Refused("The rules were not set yet.".to_owned()),
        }
    }
}
