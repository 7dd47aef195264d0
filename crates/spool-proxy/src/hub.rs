//! Where upstream notifications go: progress to the client whose request it is about, the rest
//! (logs, list changes, resource updates) to every connected client.
#![expect(
    deprecated,
    reason = "upstream log messages are a legacy notification, still relayed"
)]

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{
    ClientCapabilities, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam,
};
use rmcp::{Peer, RoleServer};

/// A notification that every client hears.
#[derive(Debug, Clone)]
pub enum Broadcast {
    Log(LoggingMessageNotificationParam),
    ResourceUpdated(ResourceUpdatedNotificationParam),
    ResourcesChanged,
    ToolsChanged,
    PromptsChanged,
}

/// An upstream progress token: (upstream, connection, token).
pub type ProgressKey = (usize, u64, ProgressToken);

#[derive(Default)]
pub struct Hub {
    clients: Mutex<Vec<Peer<RoleServer>>>,
    /// Calls in flight to each upstream connection: the client an upstream's ask goes to.
    pub calls: crate::asks::Calls,
    /// What upstreams are told the client answers (sampling, elicitation, roots): what the
    /// first client that connected offers.
    asks: std::sync::RwLock<Option<ClientCapabilities>>,
    /// Upstream progress token -> the client and the token it asked with. rmcp numbers tokens
    /// per connection from 0, so the key names the upstream and its connection too.
    progress: Mutex<HashMap<ProgressKey, (Peer<RoleServer>, ProgressToken)>>,
    /// The roots a client on the protocol without a handshake (2026-07-28) gave, asked for
    /// before its first relayed call: it cannot be asked while an upstream waits on it.
    roots: std::sync::RwLock<Option<ListRootsResult>>,
}

impl Hub {
    /// The roots a client without a handshake gave, when it did.
    pub fn given_roots(&self) -> Option<ListRootsResult> {
        self.roots.read().ok().and_then(|r| r.clone())
    }

    /// Keeps the roots a client without a handshake gave (`None`: forgets them, when its
    /// roots changed).
    pub fn set_given_roots(&self, roots: Option<ListRootsResult>) {
        if let Ok(mut r) = self.roots.write() {
            *r = roots;
        }
    }

    /// What upstreams are told the client answers.
    pub fn asks(&self) -> ClientCapabilities {
        self.asks
            .read()
            .ok()
            .and_then(|a| a.clone())
            .unwrap_or_default()
    }

    /// Takes the asks a client offers, when none were taken yet; true when upstreams must be
    /// told (they offer something upstreams were not told of).
    pub fn take_asks(&self, caps: &ClientCapabilities) -> bool {
        let offered = crate::asks::asks_of(caps);
        let Ok(mut asks) = self.asks.write() else {
            return false;
        };
        if asks.is_some() {
            return false;
        }
        let news = offered != ClientCapabilities::default();
        *asks = Some(offered);
        news
    }

    /// The most recent connected client that offers `ask`.
    pub fn latest_offering(&self, ask: crate::asks::Ask) -> Option<Peer<RoleServer>> {
        let clients = self.clients.lock().ok()?;
        clients
            .iter()
            .rev()
            .find(|p| {
                !p.is_transport_closed()
                    && p.peer_info()
                        .is_some_and(|i| ask.offered_by(&i.capabilities))
            })
            .cloned()
    }

    pub fn add_client(&self, peer: Peer<RoleServer>) {
        if let Ok(mut clients) = self.clients.lock() {
            clients.retain(|p| !p.is_transport_closed());
            clients.push(peer);
        }
    }

    /// Routes progress of the upstream request `upstream` to `peer` as `token`.
    pub fn route_progress(
        &self,
        upstream: ProgressKey,
        peer: Peer<RoleServer>,
        token: ProgressToken,
    ) {
        if let Ok(mut map) = self.progress.lock() {
            map.insert(upstream, (peer, token));
        }
    }

    pub fn end_progress(&self, upstream: &ProgressKey) {
        if let Ok(mut map) = self.progress.lock() {
            map.remove(upstream);
        }
    }

    pub async fn progress(
        &self,
        upstream: usize,
        connection: u64,
        mut params: ProgressNotificationParam,
    ) {
        let key = (upstream, connection, params.progress_token.clone());
        let target = self
            .progress
            .lock()
            .ok()
            .and_then(|map| map.get(&key).cloned());
        if let Some((peer, token)) = target {
            params.progress_token = token;
            let _ = peer.notify_progress(params).await;
        }
    }

    pub async fn broadcast(&self, what: Broadcast) {
        let clients: Vec<Peer<RoleServer>> =
            self.clients.lock().map(|c| c.clone()).unwrap_or_default();
        for peer in clients.iter().filter(|p| !p.is_transport_closed()) {
            let _ = match &what {
                Broadcast::Log(p) => peer.notify_logging_message(p.clone()).await,
                Broadcast::ResourceUpdated(p) => peer.notify_resource_updated(p.clone()).await,
                Broadcast::ResourcesChanged => peer.notify_resource_list_changed().await,
                Broadcast::ToolsChanged => peer.notify_tool_list_changed().await,
                Broadcast::PromptsChanged => peer.notify_prompt_list_changed().await,
            };
        }
    }
}
