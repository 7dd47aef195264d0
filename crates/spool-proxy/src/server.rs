//! The proxy as an MCP server: upstream tools, prompts and resources relayed, lists followed
//! through every upstream page, tool results made honest, and spool's `read`, `search` and
//! `artifacts` beside them.

mod handler;

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
use serde_json::{Value, json};
use spool_core::Store;
use spool_mcp::SpoolServer;
use spool_mcp::answer::error_result;

use crate::ProxyError;
use crate::config::ProxyConfig;
use crate::hub::Hub;
use crate::lazy;
use crate::relay::{self, Call};
use crate::upstream::{Failure, Upstream};

/// spool's own tools, offered beside the upstream's.
pub const SPOOL_TOOLS: [&str; 3] = ["read", "search", "artifacts"];

/// Names an upstream tool cannot take unprefixed.
const RESERVED: [&str; 4] = ["read", "search", "artifacts", lazy::DESCRIBE_TOOL];

#[derive(Debug, Clone)]
struct Route {
    upstream: usize,
    tool: String,
}

struct Inner {
    upstreams: Vec<Arc<Upstream>>,
    spool: SpoolServer,
    hub: Arc<Hub>,
    lazy: bool,
    /// Several upstreams: every tool and prompt is prefixed by its upstream's name.
    prefix_all: bool,
    info: ServerConfig,
    /// Exposed tool name -> where it goes, and the tool as fully described.
    tools: RwLock<HashMap<String, (Route, Tool)>>,
    prompts: RwLock<HashMap<String, Route>>,
    resources: RwLock<HashMap<String, usize>>,
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
                lazy: config.lazy,
                prefix_all,
                info,
                tools: RwLock::new(HashMap::new()),
                prompts: RwLock::new(HashMap::new()),
                resources: RwLock::new(HashMap::new()),
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

    fn exposed(&self, upstream: usize, name: &str) -> String {
        let u = &self.inner.upstreams[upstream];
        if self.inner.prefix_all || RESERVED.contains(&name) {
            format!("{}_{name}", u.spec.name)
        } else {
            name.to_owned()
        }
    }

    /// Every tool of every upstream (all pages), as the client sees them.
    async fn refresh_tools(&self) -> Result<Vec<Tool>, ErrorData> {
        let before = self
            .inner
            .tools
            .read()
            .map(|t| t.clone())
            .unwrap_or_default();
        let mut listed = Vec::new();
        let mut table: HashMap<String, (Route, Tool)> = HashMap::new();
        for (i, u) in self.inner.upstreams.iter().enumerate() {
            let tools = match all_pages(u, "tools", |p| async move { p.list_all_tools().await })
                .await
            {
                Ok(tools) => tools,
                Err(e) => {
                    // An upstream that is down keeps the tools it listed before: calling one
                    // answers `unavailable` (and restarts it) instead of the tool vanishing.
                    // Never listed at all, the list would be silently short: that is an error.
                    let mut kept: Vec<_> = before
                        .values()
                        .filter(|(r, _)| r.upstream == i)
                        .cloned()
                        .collect();
                    if kept.is_empty() {
                        return Err(e);
                    }
                    tracing::warn!(upstream = %u.spec.name, error = %e.message, "listing the tools it listed before");
                    kept.sort_by(|a, b| a.1.name.cmp(&b.1.name));
                    for (route, tool) in kept {
                        listed.push(if self.inner.lazy {
                            lazy::short(&tool)
                        } else {
                            tool.clone()
                        });
                        table.insert(tool.name.to_string(), (route, tool));
                    }
                    continue;
                }
            };
            for tool in tools {
                let mut exposed = self.exposed(i, &tool.name);
                // Two tools may come out with one name (`search` prefixed, beside `fs_search`):
                // the later one gets a number, since clients refuse duplicate names.
                let mut n = 2;
                while table.contains_key(&exposed) || SPOOL_TOOLS.contains(&exposed.as_str()) {
                    exposed = format!("{}_{n}", self.exposed(i, &tool.name));
                    n += 1;
                }
                let full = relayed_tool(tool.clone(), &exposed, self.inner.spool.settings());
                let route = Route {
                    upstream: i,
                    tool: tool.name.to_string(),
                };
                table.insert(exposed, (route, full.clone()));
                listed.push(if self.inner.lazy {
                    lazy::short(&full)
                } else {
                    full
                });
            }
        }
        if let Ok(mut t) = self.inner.tools.write() {
            *t = table;
        }
        Ok(listed)
    }

    async fn route(&self, name: &str) -> Result<(Route, Tool), ErrorData> {
        let known = |s: &Self| s.inner.tools.read().ok().and_then(|t| t.get(name).cloned());
        if let Some(found) = known(self) {
            return Ok(found);
        }
        self.refresh_tools().await?;
        known(self).ok_or_else(|| {
            ErrorData::invalid_params(
                format!("unknown tool `{name}`: it is not one of the tools `tools/list` lists"),
                None,
            )
        })
    }

    async fn send(
        &self,
        upstream: usize,
        request: ClientRequest,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ServerResult, Failure> {
        let progress = ctx.meta.get_progress_token().map(|t| (ctx.peer.clone(), t));
        let caller = crate::asks::Caller {
            peer: ctx.peer.clone(),
            id: ctx.id.clone(),
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
        match self.send(upstream, request, ctx).await {
            Ok(r) => Ok(r),
            Err(Failure::Upstream(e)) => Err(e),
            Err(Failure::Down(e)) => Err(internal(e.to_string(), Some(&e))),
            Err(Failure::Cancelled) => Err(internal("cancelled by the client", None)),
        }
    }

    async fn call_upstream(
        &self,
        name: &str,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
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
                    && let Some(misfit) = spool_mcp::args::misfit(&tool.input_schema, args) =>
            {
                let err = spool_mcp::args::invalid(name, &misfit, Some(&e.message));
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

    fn owner_of_uri(&self, uri: &str) -> Option<usize> {
        self.inner
            .resources
            .read()
            .ok()
            .and_then(|r| r.get(uri).copied())
            .or_else(|| (self.inner.upstreams.len() == 1).then_some(0))
    }

    fn prompt_route(&self, name: &str) -> Result<Route, ErrorData> {
        if !self.inner.prefix_all {
            return Ok(Route {
                upstream: 0,
                tool: name.to_owned(),
            });
        }
        self.inner
            .prompts
            .read()
            .ok()
            .and_then(|p| p.get(name).cloned())
            .or_else(|| {
                self.inner.upstreams.iter().enumerate().find_map(|(i, u)| {
                    name.strip_prefix(&format!("{}_", u.spec.name))
                        .map(|rest| Route {
                            upstream: i,
                            tool: rest.to_owned(),
                        })
                })
            })
            .ok_or_else(|| ErrorData::invalid_params(format!("unknown prompt `{name}`"), None))
    }
}

/// The tool as the client sees it: renamed, its output schema admitting spool's envelope (a
/// too-large answer) and error, and its answers' size told to hosts that cap them. With
/// structured content off, no output schema: a replaced answer then carries none.
fn relayed_tool(mut tool: Tool, exposed: &str, settings: &spool_mcp::Settings) -> Tool {
    tool.name = exposed.to_owned().into();
    if !settings.structured {
        tool.output_schema = None;
    }
    if let Some(schema) = &tool.output_schema {
        let wrapped = json!({
            "type": "object",
            "anyOf": [
                Value::Object((**schema).clone()),
                spool_mcp::schema::envelope_shape(),
                spool_mcp::schema::error_schema(),
            ]
        });
        tool.output_schema = wrapped.as_object().cloned().map(Arc::new);
    }
    let mut meta = tool.meta.take().unwrap_or_default();
    for (k, v) in spool_mcp::schema::tool_meta(settings.result_chars()).iter() {
        meta.insert(k.clone(), v.clone());
    }
    tool.meta = Some(meta);
    tool
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
