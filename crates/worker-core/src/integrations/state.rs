//! What the worker keeps in memory for custom tools and MCP servers
//! ([`Integrations`]): the one MCP client (request ids, each server's era,
//! the discovery cache) and the `Origin` rules, and what a change of the
//! stored servers does to both.

use crate::integrations::origin_rules::OriginRules;
use crate::mcp::McpClient;
use crate::platform::Platform;
use protocol::registry_records::McpServer;
use serde_json::Value;

/// The MCP client and the `Origin` rules of one worker instance.
pub(crate) struct Integrations {
    /// Speaks to every configured server; runs and probes share it, so an
    /// era learnt by a probe serves the next run.
    pub(crate) mcp: McpClient,
    /// The session rules that remove `Origin` from requests to the servers.
    pub(crate) origin_rules: OriginRules,
}

impl Integrations {
    /// A fresh instance; `client_version` is the extension's version, which
    /// the MCP client names in `clientInfo`.
    pub(crate) fn new(client_version: impl Into<String>) -> Integrations {
        Integrations {
            mcp: McpClient::new(client_version),
            origin_rules: OriginRules::default(),
        }
    }

    /// After the stored servers changed from `before` to `after`: forgets
    /// the discoveries and eras of every server in either list (a changed
    /// record is a new configuration; a removed one must not come back from
    /// memory), then rebuilds the `Origin` rules. A refused rule update is
    /// not the save's failure; the next probe's hint reports it.
    pub(crate) async fn servers_saved<P: Platform>(&self, platform: &P, before: &[Value], after: &[Value]) {
        for record in before.iter().chain(after) {
            self.mcp.invalidate(&McpServer::from_stored(record).id());
        }
        let _ = self.origin_rules.sync(platform).await;
    }
}
