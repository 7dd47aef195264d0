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
    ClientCapabilities, ClientResult, ElicitResult, ErrorCode, GetExtensions as _, InputRequest,
    RequestId, ServerRequest,
};
use rmcp::service::{OriginatingRequestId, ServiceError};
use rmcp::{ErrorData, Peer, RoleServer};
use tokio_util::sync::CancellationToken;

/// A downstream call the upstream is serving: the client, and its request; for a client
/// without a handshake, where its asks wait to be put to it (as `input_required`).
#[derive(Clone)]
pub struct Caller {
    pub peer: Peer<RoleServer>,
    pub id: RequestId,
    pub mailbox: Option<Mailbox>,
}

/// Where the asks of a call of a client without a handshake wait for the client.
pub type Mailbox = tokio::sync::mpsc::UnboundedSender<Waiting>;

/// An ask put to a client without a handshake, and where its answer goes.
pub struct Waiting {
    pub request: InputRequest,
    pub answer: tokio::sync::oneshot::Sender<serde_json::Value>,
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
        return put_to_call(ask, &caller, request, ct).await;
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

/// An ask for a client without a handshake (2026-07-28): it can be asked only by an
/// `input_required` answer to its own call, so the ask waits in its call's mailbox, the call
/// answers with it, and the client's retry brings the answer (`server/suspended.rs`).
/// Regression (issue 57): such a client was refused as one that "did not offer sampling when
/// it connected", though it offered it on every request.
#[expect(
    deprecated,
    reason = "sampling is deprecated by 2026-07-28 (SEP-2577), still relayed for clients that offer it"
)]
async fn put_to_call(
    ask: Ask,
    caller: &Caller,
    request: ServerRequest,
    ct: &CancellationToken,
) -> Result<ClientResult, ErrorData> {
    let Some(mailbox) = &caller.mailbox else {
        return Err(refused(
            ask,
            "the client uses the protocol without a handshake (2026-07-28), and no call of it \
             is waiting that the ask could be put to",
        ));
    };
    let input = match request {
        ServerRequest::CreateMessageRequest(r) => InputRequest::CreateMessage(r),
        ServerRequest::ElicitRequest(r) => InputRequest::Elicitation(r),
        _ => {
            return Err(refused(
                ask,
                "only sampling and elicitation are put to a call",
            ));
        }
    };
    let (answer, answered) = tokio::sync::oneshot::channel();
    mailbox
        .send(Waiting {
            request: input,
            answer,
        })
        .map_err(|_| refused(ask, "the client's call has ended"))?;
    let value = tokio::select! {
        v = answered => v.map_err(|_| refused(ask, "the client's call ended before it answered"))?,
        () = ct.cancelled() => return Err(ErrorData::internal_error("the upstream cancelled its request", None)),
    };
    let read =
        |e: serde_json::Error| refused(ask, &format!("the client's answer does not read: {e}"));
    match ask {
        Ask::Sampling => serde_json::from_value::<rmcp::model::CreateMessageResult>(value)
            .map(|r| ClientResult::CreateMessageResult(Box::new(r)))
            .map_err(read),
        Ask::Elicitation => serde_json::from_value::<ElicitResult>(value)
            .map(ClientResult::ElicitResult)
            .map_err(read),
        Ask::Roots => Err(refused(
            ask,
            "roots are asked before the call, not during it",
        )),
    }
}

/// The ask capabilities of a client, to declare to upstreams on its behalf.
pub fn asks_of(caps: &ClientCapabilities) -> ClientCapabilities {
    let mut asks = ClientCapabilities::default();
    asks.roots.clone_from(&caps.roots);
    asks.sampling.clone_from(&caps.sampling);
    asks.elicitation.clone_from(&caps.elicitation);
    asks
}
