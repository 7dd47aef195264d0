//! What an upstream sends on its own: notifications go to the hub, and its asks (sampling,
//! elicitation, roots) to the client whose call it is serving.
#![expect(
    deprecated,
    reason = "upstream log messages are a legacy notification, still relayed"
)]

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientInfo, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequest, ElicitRequestParams, ElicitResult, Implementation,
    ListRootsRequest, ListRootsResult, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam, ServerRequest,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};

use crate::asks::{self, Ask, Caller};
use crate::hub::{Broadcast, Hub};

/// Receives what an upstream sends on its own: notifications go to the hub.
#[derive(Clone)]
pub struct UpstreamClient {
    pub(super) hub: Arc<Hub>,
    /// Which upstream, and which of its connections, this is.
    pub(super) index: usize,
    pub(super) connection: u64,
}

impl ClientHandler for UpstreamClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.hub.progress(self.index, self.connection, params).await;
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.hub.broadcast(Broadcast::Log(params)).await;
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _ctx: NotificationContext<RoleClient>,
    ) {
        self.hub.broadcast(Broadcast::ResourceUpdated(params)).await;
    }

    async fn on_resource_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.hub.broadcast(Broadcast::ResourcesChanged).await;
    }

    async fn on_tool_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.hub.broadcast(Broadcast::ToolsChanged).await;
    }

    async fn on_prompt_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.hub.broadcast(Broadcast::PromptsChanged).await;
    }

    /// The capabilities of the client spool relays for (sampling, elicitation, roots), on the
    /// newest protocol in which a server may ask its client for them.
    fn get_info(&self) -> ClientInfo {
        let asks = self.hub.asks();
        let relaying = asks != ClientCapabilities::default();
        let mut info = ClientInfo::new(
            asks,
            Implementation::new("spool-wrap", env!("CARGO_PKG_VERSION")),
        );
        if relaying {
            info.protocol_version = ProtocolVersion::V_2025_11_25;
        }
        info
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        ctx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let caller = self.caller(&ctx, Ask::Sampling)?;
        let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
        match asks::relay(Ask::Sampling, caller, request, &ctx.ct).await? {
            ClientResult::CreateMessageResult(r) => Ok(*r),
            _ => Err(asks::refused(
                Ask::Sampling,
                "the client answered something else",
            )),
        }
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let caller = self.caller(&ctx, Ask::Elicitation)?;
        let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
        match asks::relay(Ask::Elicitation, caller, request, &ctx.ct).await? {
            ClientResult::ElicitResult(r) => Ok(r),
            _ => Err(asks::refused(
                Ask::Elicitation,
                "the client answered something else",
            )),
        }
    }

    async fn list_roots(
        &self,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        // A client without a handshake (2026-07-28) cannot be asked while this upstream waits:
        // it gave its roots before the call was relayed (`ProxyServer::roots_first`).
        let legacy_caller = self
            .caller(&ctx, Ask::Roots)
            .ok()
            .filter(|c| c.peer.peer_info().is_some());
        if legacy_caller.is_none()
            && let Some(roots) = self.hub.given_roots()
        {
            return Ok(roots);
        }
        // Roots are asked for at any time, not only during a call: the latest client then.
        let caller = match self.caller(&ctx, Ask::Roots) {
            Ok(caller) => caller,
            Err(refusal) => match self.hub.latest_offering(Ask::Roots) {
                Some(peer) => Caller {
                    peer,
                    id: ctx.id.clone(),
                    mailbox: None,
                },
                None => return Err(refusal),
            },
        };
        let request = ServerRequest::ListRootsRequest(ListRootsRequest::default());
        match asks::relay(Ask::Roots, caller, request, &ctx.ct).await? {
            ClientResult::ListRootsResult(r) => Ok(r),
            _ => Err(asks::refused(
                Ask::Roots,
                "the client answered something else",
            )),
        }
    }
}

impl UpstreamClient {
    /// The client an ask of this upstream connection goes to.
    fn caller(&self, ctx: &RequestContext<RoleClient>, ask: Ask) -> Result<Caller, ErrorData> {
        let origin = match ctx.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => Some(id.clone()),
            _ => None,
        };
        self.hub
            .calls
            .caller((self.index, self.connection), origin.as_ref())
            .map_err(|why| asks::refused(ask, &why))
    }
}
