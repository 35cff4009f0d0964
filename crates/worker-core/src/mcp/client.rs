//! [`McpClient`]: what one worker instance knows of MCP servers (the
//! request counter, the era each configuration speaks, the discovery
//! cache) and the two operations a run and the probe need.

use crate::cancel::Cancellation;
use crate::mcp::cache::DiscoveryCache;
use crate::mcp::call::{McpToolResult, call_tool};
use crate::mcp::discovery::{CacheStatus, DiscoveredTool, Discovery, list_tools};
use crate::mcp::endpoint::{McpEndpoint, Target};
use crate::mcp::error::McpError;
use crate::mcp::negotiate::{Eras, Exchange};
use crate::mcp::request::{RequestIds, Requests};
use crate::platform::{Clock, Network};
use protocol::limits;
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// The MCP client of one worker instance. Everything it remembers is in
/// memory: a worker Chrome restarts negotiates and discovers again.
#[derive(Debug)]
pub(crate) struct McpClient {
    /// The extension's manifest version (`clientInfo.version`).
    client_version: String,
    ids: RequestIds,
    eras: Eras,
    cache: RefCell<DiscoveryCache>,
}

impl McpClient {
    pub(crate) fn new(client_version: impl Into<String>) -> McpClient {
        McpClient {
            client_version: client_version.into(),
            ids: RequestIds::default(),
            eras: Eras::default(),
            cache: RefCell::default(),
        }
    }

    /// The server's tools, from the cache while its lifetime lasts unless
    /// `force_refresh` (the probe) asks the server again; each page has 12 s.
    pub(crate) async fn discover<N: Network, C: Clock>(
        &self,
        network: &N,
        clock: &C,
        endpoint: &McpEndpoint,
        force_refresh: bool,
        cancel: &Cancellation,
    ) -> Result<Discovery, McpError> {
        let target = Target::prepare(endpoint)?;
        let now = clock.now_ms();
        if !force_refresh && let Some((listing, expires_at)) = self.cache.borrow().get(&target.key, now) {
            return Ok(Discovery {
                listing,
                cache: CacheStatus::Hit,
                expires_at,
            });
        }
        let exchange = self.exchange(network, clock, &target, limits::MCP_DISCOVERY_TIMEOUT_MS, cancel);
        let listing = Rc::new(list_tools(&exchange).await?);
        let expires_at = now + listing.ttl_ms;
        self.cache
            .borrow_mut()
            .put(&target.key, &target.server_id, expires_at, listing.clone());
        Ok(Discovery {
            listing,
            cache: CacheStatus::Miss,
            expires_at,
        })
    }

    /// Calls a discovered tool with arguments already checked against its
    /// schema; the call has 30 s.
    pub(crate) async fn call<N: Network, C: Clock>(
        &self,
        network: &N,
        clock: &C,
        endpoint: &McpEndpoint,
        tool: &DiscoveredTool,
        arguments: &Map<String, Value>,
        cancel: &Cancellation,
    ) -> Result<McpToolResult, McpError> {
        let target = Target::prepare(endpoint)?;
        let exchange = self.exchange(network, clock, &target, limits::MCP_CALL_TIMEOUT_MS, cancel);
        call_tool(&exchange, tool, arguments).await
    }

    /// Forgets the discoveries and eras of server `server_id` (its record
    /// changed or was removed).
    pub(crate) fn invalidate(&self, server_id: &str) {
        self.cache.borrow_mut().invalidate(server_id);
        self.eras
            .borrow_mut()
            .retain(|remembered| remembered.server_id != server_id);
    }

    fn exchange<'a, N, C>(
        &'a self,
        network: &'a N,
        clock: &'a C,
        target: &'a Target,
        timeout_ms: u32,
        cancel: &'a Cancellation,
    ) -> Exchange<'a, N, C> {
        Exchange {
            network,
            clock,
            ids: &self.ids,
            eras: &self.eras,
            requests: Requests {
                target,
                client_version: &self.client_version,
                timeout_ms,
            },
            cancel,
        }
    }
}
