//! The MCP methods of the proxy: initialization, lists followed through every upstream page,
//! tool calls, prompts, resources, subscriptions, completion and logging, each routed to the
//! upstream that owns it.
#![expect(
    deprecated,
    reason = "logging and resources/subscribe are legacy methods, still relayed for legacy peers"
)]

use std::collections::HashMap;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientRequest, CompleteRequest, CompleteRequestParams,
    CompleteResult, GetPromptRequest, GetPromptRequestParams, GetPromptResponse,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResponse, Reference, ResultType, ServerConfig,
    ServerResult, SetLevelRequest, SetLevelRequestParams, SubscribeRequest, SubscribeRequestParams,
    UnsubscribeRequest, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::{ProxyServer, Route, SPOOL_TOOLS, all_pages, internal};
use crate::lazy;

impl ServerHandler for ProxyServer {
    fn get_info(&self) -> ServerConfig {
        self.inner.info.clone()
    }

    /// The handshake (2025-11-25): upstreams started before any client connected, told of no
    /// sampling, elicitation or roots. The first client that offers them: they start again,
    /// told what it offers, before the handshake is answered. Regression (issue 38): this ran
    /// on `initialized`, which rmcp handles beside the client's first requests, so a first
    /// call could reach an upstream still told of no roots.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        ctx.peer.set_peer_info(request.clone());
        self.inner.hub.add_client(ctx.peer.clone());
        if self.inner.hub.take_asks(&request.capabilities) {
            for u in &self.inner.upstreams {
                u.restart().await;
            }
            self.inner
                .asks_changed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, ctx: NotificationContext<RoleServer>) {
        // The upstreams' tools may have changed when they started again (some show tools only
        // to a client that offers what they ask for).
        if self
            .inner
            .asks_changed
            .swap(false, std::sync::atomic::Ordering::Relaxed)
        {
            let _ = ctx.peer.notify_tool_list_changed().await;
        }
    }

    async fn on_roots_list_changed(&self, _ctx: NotificationContext<RoleServer>) {
        // Roots a client without a handshake gave are asked for again on its next call.
        self.inner.hub.set_given_roots(None);
        for u in &self.inner.upstreams {
            if let Ok(peer) = u.peer().await {
                let _ = peer.notify_roots_list_changed().await;
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = self.refresh_tools().await?;
        tools.extend(self.inner.spool.tools());
        if self.inner.lazy {
            tools.push(lazy::describe_tool());
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if SPOOL_TOOLS.contains(&name.as_str()) {
            return self.inner.spool.call_tool(request, ctx).await;
        }
        if let Some(asked) = self.roots_first(&request, &ctx).await {
            return Ok(asked);
        }
        if self.inner.lazy && name == lazy::DESCRIBE_TOOL {
            let wanted = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let found = self.route(&wanted).await.ok().map(|(_, t)| t);
            return Ok(CallToolResponse::Complete(lazy::describe(
                &wanted,
                found.as_ref(),
            )));
        }
        if ctx.peer.peer_info().is_none() {
            // No handshake: what the client offers came with this request. A client that
            // offers roots has the upstreams told in `roots_first`, once its roots are known.
            if let Some(caps) = ctx.client_capabilities()
                && caps.roots.is_none()
                && self.inner.hub.take_asks(&caps)
            {
                for u in &self.inner.upstreams {
                    u.restart().await;
                }
            }
            return self.call_resumable(name, request, ctx).await;
        }
        self.call_upstream(&name, request, ctx, None).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut all = Vec::new();
        let mut table = HashMap::new();
        for (i, u) in self.inner.upstreams.iter().enumerate() {
            if u.info()
                .is_some_and(|inf| inf.capabilities.prompts.is_none())
            {
                continue;
            }
            let prompts =
                all_pages(u, "prompts", |p| async move { p.list_all_prompts().await }).await?;
            for mut p in prompts {
                let exposed = if self.inner.prefix_all {
                    format!("{}_{}", u.spec.name, p.name)
                } else {
                    p.name.clone()
                };
                table.insert(
                    exposed.clone(),
                    Route {
                        upstream: i,
                        tool: p.name.clone(),
                    },
                );
                p.name = exposed;
                all.push(p);
            }
        }
        if let Ok(mut p) = self.inner.prompts.write() {
            *p = table;
        }
        Ok(ListPromptsResult::with_all_items(all))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let route = self.prompt_route(&request.name)?;
        let mut params = request;
        params.name = route.tool;
        params.meta = None;
        match self
            .forward(
                route.upstream,
                ClientRequest::GetPromptRequest(GetPromptRequest::new(params)),
                &ctx,
            )
            .await?
        {
            ServerResult::GetPromptResult(mut r) => {
                // An older upstream leaves it out; a 2026-07-28 client requires it (rmcp strips
                // it again for older clients).
                r.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(GetPromptResponse::from(r))
            }
            _ => Err(internal(
                "the upstream answered prompts/get with something else",
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut all = Vec::new();
        let mut owners = HashMap::new();
        for (i, u) in self.inner.upstreams.iter().enumerate() {
            if u.info()
                .is_some_and(|inf| inf.capabilities.resources.is_none())
            {
                continue;
            }
            let resources = all_pages(
                u,
                "resources",
                |p| async move { p.list_all_resources().await },
            )
            .await?;
            for r in resources {
                owners.insert(r.uri.clone(), i);
                all.push(r);
            }
        }
        if let Ok(mut o) = self.inner.resources.write() {
            *o = owners;
        }
        Ok(ListResourcesResult::with_all_items(all))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut all = Vec::new();
        for u in &self.inner.upstreams {
            if u.info()
                .is_some_and(|inf| inf.capabilities.resources.is_none())
            {
                continue;
            }
            let templates = all_pages(u, "resource templates", |p| async move {
                p.list_all_resource_templates().await
            })
            .await?;
            all.extend(templates);
        }
        Ok(ListResourceTemplatesResult::with_all_items(all))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let mut params = request;
        params.meta = None;
        let candidates: Vec<usize> = match self.owner_of_uri(&params.uri) {
            Some(i) => vec![i],
            None => (0..self.inner.upstreams.len()).collect(),
        };
        let mut last = None;
        for i in candidates {
            let req = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params.clone()));
            match self.forward(i, req, &ctx).await {
                Ok(ServerResult::ReadResourceResult(mut r)) => {
                    r.result_type.get_or_insert(ResultType::COMPLETE);
                    return self.honest_resource(i, r).await;
                }
                Ok(_) => {
                    last = Some(internal(
                        "the upstream answered resources/read with something else",
                        None,
                    ));
                }
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| {
            ErrorData::resource_not_found(format!("no upstream has `{}`", params.uri), None)
        }))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let i = self.owner_of_uri(&request.uri).unwrap_or(0);
        let mut params = request;
        params.meta = None;
        self.forward(
            i,
            ClientRequest::SubscribeRequest(SubscribeRequest::new(params)),
            &ctx,
        )
        .await
        .map(|_| ())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let i = self.owner_of_uri(&request.uri).unwrap_or(0);
        let mut params = request;
        params.meta = None;
        self.forward(
            i,
            ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(params)),
            &ctx,
        )
        .await
        .map(|_| ())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let mut params = request;
        params.meta = None;
        let upstream = match &mut params.r#ref {
            Reference::Prompt(p) => {
                let route = self.prompt_route(&p.name)?;
                p.name = route.tool;
                route.upstream
            }
            Reference::Resource(r) => self.owner_of_uri(&r.uri).unwrap_or(0),
            _ => 0,
        };
        match self
            .forward(
                upstream,
                ClientRequest::CompleteRequest(CompleteRequest::new(params)),
                &ctx,
            )
            .await?
        {
            ServerResult::CompleteResult(mut r) => {
                r.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(r)
            }
            _ => Err(internal(
                "the upstream answered completion/complete with something else",
                None,
            )),
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        for (i, u) in self.inner.upstreams.iter().enumerate() {
            if u.info()
                .is_some_and(|inf| inf.capabilities.logging.is_none())
            {
                continue;
            }
            let mut params = request.clone();
            params.meta = None;
            self.forward(
                i,
                ClientRequest::SetLevelRequest(SetLevelRequest::new(params)),
                &ctx,
            )
            .await?;
        }
        Ok(())
    }
}
