//! The proxy as an MCP server: upstream tools, prompts and resources relayed, lists followed
//! through every upstream page, tool results made honest, and spool's `read`, `search`,
//! `query` and `artifacts` beside them.

mod handler;
mod routes;
mod suspended;

use routes::Route;

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest,
    Implementation, ReadResourceResponse, ReadResourceResult, ResultType, ServerCapabilities,
    ServerConfig, ServerResult, Tool, ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;
use spool_core::Store;
use spool_mcp::SpoolServer;
use spool_mcp::answer::error_result;

use crate::ProxyError;
use crate::config::ProxyConfig;
use crate::hub::Hub;
use crate::relay::{self, Call};
use crate::upstream::{Failure, Upstream};

/// The key of the roots a client without a handshake is asked for before a relayed call.
const ROOTS_INPUT: &str = "spool_roots";

/// spool's own tools, offered beside the upstream's.
pub const SPOOL_TOOLS: [&str; 4] = ["read", "search", "query", "artifacts"];

struct Inner {
    upstreams: Vec<Arc<Upstream>>,
    spool: SpoolServer,
    hub: Arc<Hub>,
    /// Calls of clients without a handshake waiting for their answer to an upstream's ask.
    suspended: suspended::Table,
    lazy: bool,
    /// Several upstreams: every tool and prompt is prefixed by its upstream's name.
    prefix_all: bool,
    info: ServerConfig,
    /// Exposed tool name -> where it goes, and the tool as fully described.
    tools: RwLock<HashMap<String, (Route, Tool)>>,
    prompts: RwLock<HashMap<String, Route>>,
    resources: RwLock<HashMap<String, usize>>,
    /// Where the pages of upstream lists spool offered calls for stand.
    pages: Arc<relay::Pages>,
    /// The upstreams started again at a handshake, told what the client offers: the client
    /// hears that their tools may have changed once it is initialized.
    asks_changed: std::sync::atomic::AtomicBool,
}

/// The proxy. Cheap to clone: one per HTTP session shares the upstreams and the store.
#[derive(Clone)]
pub struct ProxyServer {
    inner: Arc<Inner>,
}

fn internal(message: impl Into<String>, err: Option<&spool_core::Error>) -> ErrorData {
    ErrorData::internal_error(
        message.into(),
        err.and_then(|e| serde_json::to_value(e.to_wire(spool_core::render::Dialect::Mcp)).ok()),
    )
}

/// Every page of one upstream list, within the upstream's timeout.
async fn all_pages<T, F, Fut>(u: &Upstream, what: &str, list: F) -> Result<Vec<T>, ErrorData>
where
    F: FnOnce(rmcp::Peer<rmcp::RoleClient>) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<T>, rmcp::service::ServiceError>>,
{
    let peer = u
        .peer()
        .await
        .map_err(|e| internal(e.to_string(), Some(&e)))?;
    match tokio::time::timeout(u.spec.timeout(), list(peer)).await {
        Ok(Ok(items)) => Ok(items),
        Ok(Err(e)) => Err(internal(
            format!("{} could not list its {what}: {e}", u.spec.describe()),
            None,
        )),
        Err(_) => Err(internal(
            format!("{} did not list its {what} in time", u.spec.describe()),
            None,
        )),
    }
}

impl ProxyServer {
    /// Starts every upstream (each must complete its handshake) and builds the proxy.
    /// `spool` answers `read`, `search` and `artifacts` from the same store.
    pub async fn start(config: ProxyConfig, spool: SpoolServer) -> Result<Self, ProxyError> {
        config.check()?;
        let hub = Arc::new(Hub::default());
        let mut upstreams = Vec::new();
        for (index, spec) in config.upstreams.into_iter().enumerate() {
            let u = Upstream::start(spec, index, Arc::clone(&hub))
                .await
                .map_err(ProxyError::Start)?;
            upstreams.push(u);
        }
        let prefix_all = upstreams.len() > 1;
        let info = merged_info(&upstreams);
        Ok(Self {
            inner: Arc::new(Inner {
                upstreams,
                spool: spool.only(&SPOOL_TOOLS),
                hub,
                suspended: suspended::Table::default(),
                lazy: config.lazy,
                prefix_all,
                info,
                tools: RwLock::new(HashMap::new()),
                prompts: RwLock::new(HashMap::new()),
                resources: RwLock::new(HashMap::new()),
                pages: Arc::default(),
                asks_changed: std::sync::atomic::AtomicBool::new(false),
            }),
        })
    }

    /// The upstreams, in configuration order.
    pub fn upstreams(&self) -> &[Arc<Upstream>] {
        &self.inner.upstreams
    }

    fn store(&self) -> &Arc<Store> {
        self.inner.spool.store()
    }

    async fn send(
        &self,
        upstream: usize,
        request: ClientRequest,
        ctx: &RequestContext<RoleServer>,
        mailbox: Option<crate::asks::Mailbox>,
    ) -> Result<ServerResult, Failure> {
        let progress = ctx.meta.get_progress_token().map(|t| (ctx.peer.clone(), t));
        let caller = crate::asks::Caller {
            peer: ctx.peer.clone(),
            id: ctx.id.clone(),
            mailbox,
        };
        self.inner.upstreams[upstream]
            .request(request, &ctx.ct, progress, Some(caller))
            .await
    }

    /// Relays a request that is not a tool call: upstream errors pass through as they are.
    async fn forward(
        &self,
        upstream: usize,
        request: ClientRequest,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        match self.send(upstream, request, ctx, None).await {
            Ok(r) => Ok(r),
            Err(Failure::Upstream(e)) => Err(e),
            Err(Failure::Down(e)) => Err(internal(e.to_string(), Some(&e))),
            Err(Failure::Cancelled) => Err(internal("cancelled by the client", None)),
        }
    }

    /// Relays a tool call; the upstream's asks during it go to `mailbox` when the client has
    /// no handshake (`server/suspended.rs`), else to the client by request.
    async fn call_upstream(
        &self,
        name: &str,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
        mailbox: Option<crate::asks::Mailbox>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (route, tool) = match self.route(name).await {
            Ok(found) => found,
            // One upstream: a name it did not list is still its to answer (as it would
            // directly, an error of its own words), not the proxy's to refuse.
            Err(_) if self.inner.upstreams.len() == 1 => (
                Route {
                    upstream: 0,
                    tool: name.to_owned(),
                },
                Tool::new(name.to_owned(), "", Arc::new(serde_json::Map::new())),
            ),
            Err(e) => return Err(e),
        };
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let mut params = CallToolRequestParams::new(route.tool.clone());
        params.arguments = request.arguments;
        let called_at = spool_core::clock::rfc3339(spool_core::clock::now_ms());
        let started = Instant::now();
        let outcome = self
            .send(
                route.upstream,
                ClientRequest::CallToolRequest(CallToolRequest::new(params)),
                &ctx,
                mailbox,
            )
            .await;
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let result = match outcome {
            Ok(ServerResult::CallToolResult(r)) => r,
            Ok(ServerResult::EmptyResult(_)) => CallToolResult::success(Vec::new()),
            Ok(_) => {
                return Err(internal(
                    format!(
                        "the upstream answered `{name}` with something that is not a tool result"
                    ),
                    None,
                ));
            }
            // An upstream that is down or timed out is a tool error the model can act on.
            Err(Failure::Down(err)) => return Ok(self.tool_error(name, &arguments, &err, ms)),
            // An upstream that refuses wrong arguments as a protocol error: the model gets a
            // tool error it can correct, naming the field (SEP-1303).
            Err(Failure::Upstream(e))
                if e.code == rmcp::model::ErrorCode::INVALID_PARAMS
                    && let Some(args) = arguments.as_object()
                    && let Some(misfit) = spool_toolset::misfit(&tool.input_schema, args) =>
            {
                let err = spool_toolset::invalid(name, &misfit, Some(&e.message));
                return Ok(self.tool_error(name, &arguments, &err, ms));
            }
            Err(Failure::Upstream(e)) => return Err(e),
            Err(Failure::Cancelled) => return Err(internal("cancelled by the client", None)),
        };
        let upstream = &self.inner.upstreams[route.upstream];
        let server = upstream.spec.name.clone();
        let (preview, preview_configured) = upstream.spec.chosen_preview(&route.tool);
        let store = Arc::clone(self.store());
        let cap = self.inner.spool.settings().cap(None);
        let parts = self.inner.spool.settings().parts();
        let exposed = name.to_owned();
        let pages = Arc::clone(&self.inner.pages);
        let honest = tokio::task::spawn_blocking(move || {
            let call = Call {
                server: &server,
                tool: &route.tool,
                exposed: &exposed,
                arguments: &arguments,
                called_at: &called_at,
                preview,
                preview_configured,
                cap,
                parts,
                input_schema: Some(&tool.input_schema),
                pages: &pages,
            };
            match relay::honest(&store, &call, result, ms) {
                Ok(r) => r,
                Err(e) => {
                    spool_core::answer::record_error(&store, &exposed, &arguments, &e, ms);
                    error_result(&e, parts)
                }
            }
        })
        .await
        .map_err(|e| internal(format!("relaying the result failed: {e}"), None))?;
        let mut honest = honest;
        honest.result_type.get_or_insert(ResultType::COMPLETE);
        Ok(CallToolResponse::Complete(honest))
    }

    /// A client on the protocol without a handshake (2026-07-28) that offers roots: the
    /// server may not ask it while an upstream waits on the answer, so before its first
    /// relayed call it is asked the protocol's own way, an `input_required` result; its
    /// answer (on the retry) is kept for every upstream that asks, and the upstreams are told
    /// it offers roots. Regression (issue 38): such a client's roots never reached the
    /// upstream, which listed outside them. `None`: relay the call.
    #[expect(
        deprecated,
        reason = "roots are a legacy feature (SEP-2577), still relayed for clients that offer them"
    )]
    async fn roots_first(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<CallToolResponse> {
        if ctx.peer.peer_info().is_some() {
            // A handshake: the client is asked by a request, as the protocol has it.
            return None;
        }
        let caps = ctx.client_capabilities()?;
        caps.roots.as_ref()?;
        if let Some(answer) = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(ROOTS_INPUT))
            && let Ok(roots) =
                serde_json::from_value::<rmcp::model::ListRootsResult>(answer.clone())
        {
            let changed = self.inner.hub.given_roots().as_ref() != Some(&roots);
            self.inner.hub.set_given_roots(Some(roots));
            // Upstreams start again told the client offers roots, and ask for them as they
            // start: the roots are known by then. Ones told before hear that they changed.
            if self.inner.hub.take_asks(&caps) {
                for u in &self.inner.upstreams {
                    u.restart().await;
                }
            } else if changed {
                for u in &self.inner.upstreams {
                    if let Ok(peer) = u.peer().await {
                        let _ = peer.notify_roots_list_changed().await;
                    }
                }
            }
        }
        if self.inner.hub.given_roots().is_some() {
            return None;
        }
        let ask = rmcp::model::InputRequest::ListRoots(rmcp::model::ListRootsRequest::default());
        Some(CallToolResponse::InputRequired(
            rmcp::model::InputRequiredResult::new(
                Some(std::collections::BTreeMap::from([(
                    ROOTS_INPUT.to_owned(),
                    ask,
                )])),
                None,
            ),
        ))
    }

    /// A tool error the model can act on, audited.
    fn tool_error(
        &self,
        name: &str,
        arguments: &Value,
        err: &spool_core::Error,
        ms: u64,
    ) -> CallToolResponse {
        spool_core::answer::record_error(self.store(), name, arguments, err, ms);
        CallToolResponse::Complete(error_result(err, self.inner.spool.settings().parts()))
    }

    /// Large text contents stored and shown in part, like tool answers.
    async fn honest_resource(
        &self,
        upstream: usize,
        result: ReadResourceResult,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let store = Arc::clone(self.store());
        let server = self.inner.upstreams[upstream].spec.name.clone();
        let cap = self.inner.spool.settings().cap(None);
        let relayed = tokio::task::spawn_blocking(move || {
            relay::honest_resource(&store, &server, result, cap, 0)
        })
        .await
        .map_err(|e| internal(format!("relaying the resource failed: {e}"), None))?
        .map_err(|e| internal(e.to_string(), Some(&e)))?;
        Ok(ReadResourceResponse::from(relayed))
    }
}

/// The upstreams' capabilities together: what any of them offers, the proxy relays.
fn merged_info(upstreams: &[Arc<Upstream>]) -> ServerConfig {
    let infos: Vec<_> = upstreams.iter().filter_map(|u| u.info()).collect();
    let mut caps = ServerCapabilities::default();
    for i in &infos {
        let c = &i.capabilities;
        if caps.resources.is_none() {
            caps.resources.clone_from(&c.resources);
        }
        if caps.prompts.is_none() {
            caps.prompts.clone_from(&c.prompts);
        }
        if caps.logging.is_none() {
            caps.logging.clone_from(&c.logging);
        }
        if caps.completions.is_none() {
            caps.completions.clone_from(&c.completions);
        }
        if caps.experimental.is_none() {
            caps.experimental.clone_from(&c.experimental);
        }
    }
    let mut tools = ToolsCapability::default();
    tools.list_changed = Some(true);
    caps.tools = Some(tools);
    let (name, version) = match (
        upstreams.len(),
        infos.first().and_then(|i| i.server_info.clone()),
    ) {
        (1, Some(s)) => (s.name, s.version),
        _ => (
            "spool-wrap".to_owned(),
            env!("CARGO_PKG_VERSION").to_owned(),
        ),
    };
    let mut instructions: Vec<String> = infos
        .iter()
        .filter_map(|i| i.instructions.clone())
        .collect();
    instructions.push(crate::PROXY_INSTRUCTIONS.to_owned());
    ServerConfig::new(caps)
        .with_server_info(Implementation::new(name, version))
        .with_instructions(instructions.join("\n\n"))
}
