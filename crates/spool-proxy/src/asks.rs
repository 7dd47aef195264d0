//! Requests an upstream sends to its client (sampling `sampling/createMessage`, elicitation
//! `elicitation/create`, roots `roots/list`), relayed to the client whose call the upstream is
//! serving and answered by it: the proxy never answers them on the user's behalf.
//!
//! Which client: an HTTP upstream that sends an ask on the stream of the request it serves says
//! which; otherwise (stdio, or its standalone stream) the ask goes to the client of the latest
//! call in flight to that upstream, which over stdio is the one client. When no call is in
//! flight, or the client does not offer what is asked, the upstream gets an error that says so.

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::{
    ClientCapabilities, ClientResult, ErrorCode, GetExtensions as _, RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, ServiceError};
use rmcp::{ErrorData, Peer, RoleServer};
use tokio_util::sync::CancellationToken;

/// A downstream call the upstream is serving: the client, and its request.
#[derive(Clone)]
pub struct Caller {
    pub peer: Peer<RoleServer>,
    pub id: RequestId,
}

/// An upstream connection: (upstream, connection generation).
pub type ConnectionKey = (usize, u64);

/// The calls in flight to each upstream connection, by the upstream request id.
#[derive(Default)]
pub struct Calls {
    inflight: Mutex<HashMap<ConnectionKey, Vec<(RequestId, Caller)>>>,
}

/// What an ask needs of the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    Sampling,
    Elicitation,
    Roots,
}

impl Ask {
    fn name(self) -> &'static str {
        match self {
            Self::Sampling => "sampling",
            Self::Elicitation => "elicitation",
            Self::Roots => "roots",
        }
    }

    /// Whether a client that declared `caps` answers this ask.
    pub fn offered_by(self, caps: &ClientCapabilities) -> bool {
        match self {
            Self::Sampling => caps.sampling.is_some(),
            Self::Elicitation => caps.elicitation.is_some(),
            Self::Roots => caps.roots.is_some(),
        }
    }
}

impl Calls {
    pub fn begin(&self, key: ConnectionKey, upstream_id: RequestId, caller: Caller) {
        if let Ok(mut map) = self.inflight.lock() {
            map.entry(key).or_default().push((upstream_id, caller));
        }
    }

    pub fn end(&self, key: ConnectionKey, upstream_id: &RequestId) {
        if let Ok(mut map) = self.inflight.lock()
            && let Some(calls) = map.get_mut(&key)
        {
            calls.retain(|(id, _)| id != upstream_id);
            if calls.is_empty() {
                map.remove(&key);
            }
        }
    }

    /// The caller an ask on `key` belongs to: the caller of `origin` (the upstream request the
    /// ask arrived with), else the caller of the latest call in flight there.
    pub fn caller(&self, key: ConnectionKey, origin: Option<&RequestId>) -> Result<Caller, String> {
        let map = self
            .inflight
            .lock()
            .map_err(|_| "the proxy's table of calls is unusable".to_owned())?;
        let calls = map.get(&key).map(Vec::as_slice).unwrap_or_default();
        if let Some(origin) = origin
            && let Some((_, caller)) = calls.iter().find(|(id, _)| id == origin)
        {
            return Ok(caller.clone());
        }
        tracing::debug!(
            origin = ?origin,
            inflight = ?calls.iter().map(|(id, c)| (id.clone(), c.id.clone())).collect::<Vec<_>>(),
            "finding the caller of an upstream's ask"
        );
        // The upstream did not say (stdio, or its standalone stream): the latest call's client,
        // since an ask comes while the call that needs it runs. With one client, as over stdio,
        // that is the client.
        calls
            .last()
            .map(|(_, caller)| caller.clone())
            .ok_or_else(|| "no call of a client is in flight to this upstream".to_owned())
    }
}

/// The error an upstream gets when an ask cannot be relayed.
pub fn refused(ask: Ask, why: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("spool could not relay this {} request: {why}", ask.name()),
        None,
    )
}

/// Sends `request` to `caller`'s client, on the stream of its call, and waits for the answer;
/// `ct` (the upstream cancelling its ask) stops the wait.
pub async fn relay(
    ask: Ask,
    caller: Caller,
    mut request: ServerRequest,
    ct: &CancellationToken,
) -> Result<ClientResult, ErrorData> {
    let Some(info) = caller.peer.peer_info() else {
        // Regression (issue 57): this said "the client did not offer sampling when it
        // connected" to a client that had offered it on every request.
        return Err(refused(ask, &format!("{NO_HANDSHAKE} {}", ask.name())));
    };
    if !ask.offered_by(&info.capabilities) {
        return Err(refused(
            ask,
            &format!("the client did not offer {} when it connected", ask.name()),
        ));
    }
    // An HTTP client hears it on the stream of the call it belongs to. Sent from a task of its
    // own, so that rmcp does not mark it as belonging to the upstream's request instead.
    request
        .extensions_mut()
        .insert(OriginatingRequestId(caller.id.clone()));
    let peer = caller.peer.clone();
    let sent = tokio::spawn(async move { peer.send_request(request).await });
    let outcome = tokio::select! {
        r = sent => r.map_err(|e| ErrorData::internal_error(format!("relaying the request failed: {e}"), None))?,
        () = ct.cancelled() => return Err(ErrorData::internal_error("the upstream cancelled its request", None)),
    };
    match outcome {
        Ok(result) => Ok(result),
        Err(ServiceError::McpError(e)) => Err(e),
        Err(e) => Err(refused(ask, &format!("the client did not answer ({e})"))),
    }
}

/// Why an ask cannot reach a client on the protocol without a handshake (2026-07-28): such a
/// client is asked only by an `input_required` answer to its own call, which spool gives for
/// roots (asked before the call is relayed), not yet for an ask an upstream sends mid-call.
const NO_HANDSHAKE: &str = "the client that made this call uses the protocol without a \
    handshake (2026-07-28), where a server asks its client only by answering `input_required`; \
    spool relays roots that way, but not yet";

/// The asks spool can relay to a client on the protocol without a handshake (roots, asked
/// before the call): upstreams are told of those only, so that none asks for what would be
/// refused.
pub fn relayable_without_handshake(caps: &ClientCapabilities) -> ClientCapabilities {
    let mut asks = ClientCapabilities::default();
    asks.roots.clone_from(&caps.roots);
    asks
}

/// The ask capabilities of a client, to declare to upstreams on its behalf.
pub fn asks_of(caps: &ClientCapabilities) -> ClientCapabilities {
    let mut asks = ClientCapabilities::default();
    asks.roots.clone_from(&caps.roots);
    asks.sampling.clone_from(&caps.sampling);
    asks.elicitation.clone_from(&caps.elicitation);
    asks
}
