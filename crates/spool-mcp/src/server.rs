//! The MCP server: each tool checks its arguments, calls the core on a blocking thread, and
//! returns the answer. No business logic lives here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Implementation, ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::Value;
use spool_core::exec::RunControl;
use spool_core::fit::Forms;
use spool_core::roots::Roots;
use spool_core::{Cap, Error, Result, Store};

use crate::answer::{Parts, error_result, into_result};
use crate::descriptions;
use crate::schema;
use spool_core::answer::params::{
    ArtifactsParams, CiLogParams, FetchParams, ListParams, MapParams, QueryParams, ReadParams,
    RunParams, SearchParams,
};
use spool_core::answer::{Answer, tools};

/// How the server answers.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Default answer cap, in tokens.
    pub max_tokens: u64,
    /// Hide the `run` tool (a read-only server).
    pub no_run: bool,
    /// Default and largest `timeout_s` of `run`.
    pub run_timeout: Duration,
    /// Time budget of a directory search.
    pub search_budget: Duration,
    /// Let `fetch` reach private, loopback and link-local addresses.
    pub allow_private_network: bool,
    /// Send structured content (and declare output schemas) beside the text blocks. Off for a
    /// host that forwards both parts to the model: it then gets the text blocks alone.
    pub structured: bool,
    /// Where `ci_log` reads GitHub Actions, and with which token (default: `GITHUB_API_URL`,
    /// `GITHUB_TOKEN` or `GH_TOKEN` when the call is made).
    pub ci: Option<spool_fetch::github::CiOptions>,
}

impl Settings {
    /// Which parts every result carries.
    pub fn parts(&self) -> Parts {
        Parts::from_structured(self.structured)
    }

    /// The cap of an answer that asked for `asked` tokens: its chars limit is what every tool
    /// declares to hosts (`anthropic/maxResultSizeChars`), whatever the call asked for.
    pub fn cap(&self, asked: Option<u64>) -> Cap {
        let forms = match self.parts() {
            Parts::Both => Forms::Both,
            Parts::TextOnly => Forms::Text,
        };
        Cap::asked_or(asked, self.max_tokens)
            .with_chars(self.result_chars())
            .sending(forms)
    }

    /// The most chars one answer takes: declared to hosts that cut results by chars.
    pub fn result_chars(&self) -> u64 {
        spool_core::fit::chars_for(self.max_tokens)
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            max_tokens: spool_core::DEFAULT_MAX_TOKENS,
            no_run: false,
            run_timeout: Duration::from_mins(10),
            search_budget: spool_core::search::tree::DEFAULT_BUDGET,
            allow_private_network: false,
            structured: true,
            ci: None,
        }
    }
}

struct Inner {
    store: Arc<Store>,
    roots: Roots,
    settings: Settings,
}

/// spool's MCP server. Cheap to clone: one per HTTP session shares the store.
#[derive(Clone)]
pub struct SpoolServer {
    inner: Arc<Inner>,
    tool_router: ToolRouter<Self>,
}

fn args_of<T: serde::Serialize>(p: &T) -> Value {
    serde_json::to_value(p).unwrap_or(Value::Null)
}

impl SpoolServer {
    /// Keeps only the named tools (the proxy offers `read`, `search` and `artifacts`).
    #[must_use]
    pub fn only(mut self, tools: &[&str]) -> Self {
        let names: Vec<String> = self
            .tool_router
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        for name in names {
            if !tools.contains(&name.as_str()) {
                self.tool_router.remove_route(&name);
            }
        }
        self
    }

    /// The tools offered, as `tools/list` shows them.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// The store every answer is kept in.
    pub fn store(&self) -> &Arc<Store> {
        &self.inner.store
    }

    /// How the server answers.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }
}

#[tool_router]
impl SpoolServer {
    pub fn new(store: Arc<Store>, roots: Roots, settings: Settings) -> Self {
        let mut tool_router = Self::tool_router();
        if settings.no_run {
            tool_router.remove_route("run");
        }
        for route in tool_router.map.values_mut() {
            route.attr.meta = Some(schema::tool_meta(settings.result_chars()));
            if !settings.structured {
                route.attr.output_schema = None;
            }
        }
        Self {
            inner: Arc::new(Inner {
                store,
                roots,
                settings,
            }),
            tool_router,
        }
    }

    /// Runs `f` on a blocking thread, through the answer pipeline (timed and audited there);
    /// its answer or error becomes the tool result. A panic becomes an `unavailable` error,
    /// audited too: the server stays up.
    async fn blocking<F>(&self, tool: &'static str, args: Value, f: F) -> CallToolResult
    where
        F: FnOnce(&Inner) -> Result<Answer> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        let started = Instant::now();
        let audited = args.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            spool_core::answer::respond(&inner.store, tool, &audited, || f(&inner))
        })
        .await;
        let parts = self.inner.settings.parts();
        match outcome {
            Ok(Ok(answer)) => into_result(&answer, parts),
            Ok(Err(err)) => error_result(&err, parts),
            Err(join) => {
                let err = Error::Unavailable {
                    what: format!("the `{tool}` tool"),
                    cause: format!("it failed unexpectedly ({join})"),
                };
                let ms = spool_core::answer::elapsed_ms(started);
                spool_core::answer::record_error(&self.inner.store, tool, &args, &err, ms);
                error_result(&err, parts)
            }
        }
    }

    #[tool(
        name = "run",
        description = descriptions::RUN,
        output_schema = schema::envelope(),
        annotations(title = "Run a command", read_only_hint = false, destructive_hint = true, open_world_hint = true)
    )]
    async fn run(
        &self,
        Parameters(p): Parameters<RunParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args = args_of(&p);
        // Cancelling the request stops the command; what it printed is kept, marked cancelled.
        let (cancel, watcher) = cancel_flag(&ctx);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, u64)>();
        // The ref exists as soon as the capture starts: progress names it, so the output can be
        // read (on another machine too, with a shared store) while the command runs.
        let stored_as = Arc::new(std::sync::OnceLock::<String>::new());
        let named = Arc::clone(&stored_as);
        let progress = ctx.meta.get_progress_token().map(|token| {
            let peer = ctx.peer.clone();
            tokio::spawn(async move {
                while let Some((bytes, lines)) = rx.recv().await {
                    let so_far = format!(
                        "{} lines, {} so far",
                        spool_core::render::thousands(lines),
                        spool_core::render::human_bytes(bytes)
                    );
                    let message = match named.get() {
                        Some(reference) => format!("{so_far}; stored as {reference}"),
                        None => so_far,
                    };
                    let note = ProgressNotificationParam::new(token.clone(), bytes as f64)
                        .with_message(message);
                    let _ = peer.notify_progress(note).await;
                }
            })
        });
        let control = RunControl {
            cancel,
            progress: Some(Box::new(move |bytes, lines| {
                let _ = tx.send((bytes, lines));
            })),
            started: Some(Box::new(move |reference: &str| {
                let _ = stored_as.set(reference.to_owned());
            })),
        };
        let result = self
            .blocking("run", args, move |inner| inner.run(p, control))
            .await;
        watcher.abort();
        if let Some(task) = progress {
            let _ = task.await;
        }
        result
    }

    #[tool(
        name = "fetch",
        description = descriptions::FETCH,
        output_schema = schema::envelope(),
        annotations(title = "Fetch a page once", read_only_hint = true, open_world_hint = true)
    )]
    async fn fetch(
        &self,
        Parameters(p): Parameters<FetchParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args = spool_fetch::audited_arguments(&p);
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(u64, Option<u64>)>();
        let progress = ctx.meta.get_progress_token().map(|token| {
            let peer = ctx.peer.clone();
            tokio::spawn(async move {
                while let Some((bytes, total)) = rx.recv().await {
                    let mut note =
                        ProgressNotificationParam::new(token.clone(), bytes as f64).with_message(
                            format!("{} downloaded", spool_core::render::human_bytes(bytes)),
                        );
                    if let Some(total) = total {
                        note = note.with_total(total as f64);
                    }
                    let _ = peer.notify_progress(note).await;
                }
            })
        });
        // Cancelling the request drops the download (its connection closes).
        let (cancel, watcher) = cancel_flag(&ctx);
        let result = self
            .blocking("fetch", args, move |inner| {
                inner.fetch(&p, cancel, &mut |bytes, total| {
                    let _ = tx.send((bytes, total));
                })
            })
            .await;
        watcher.abort();
        if let Some(task) = progress {
            let _ = task.await;
        }
        result
    }

    #[tool(
        name = "ci_log",
        description = descriptions::CI_LOG,
        output_schema = schema::envelope(),
        annotations(title = "Read a CI job's log, pinned to its attempt", read_only_hint = true, open_world_hint = true)
    )]
    async fn ci_log(
        &self,
        Parameters(p): Parameters<CiLogParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args = args_of(&p);
        // Cancelling the request drops its connections (closed), and a log half read is kept,
        // marked cancelled.
        let (cancel, watcher) = cancel_flag(&ctx);
        let result = self
            .blocking("ci_log", args, move |inner| inner.ci_log(&p, cancel))
            .await;
        watcher.abort();
        result
    }

    #[tool(
        name = "read",
        description = descriptions::READ,
        output_schema = schema::envelope(),
        annotations(title = "Read a window", read_only_hint = true, open_world_hint = false)
    )]
    async fn read(&self, Parameters(p): Parameters<ReadParams>) -> CallToolResult {
        let args = args_of(&p);
        self.blocking("read", args, move |inner| inner.read(&p))
            .await
    }

    #[tool(
        name = "search",
        description = descriptions::SEARCH,
        output_schema = schema::search(),
        annotations(title = "Search everything", read_only_hint = true, open_world_hint = false)
    )]
    async fn search(&self, Parameters(p): Parameters<SearchParams>) -> CallToolResult {
        let args = args_of(&p);
        self.blocking("search", args, move |inner| inner.search(&p))
            .await
    }

    #[tool(
        name = "query",
        description = descriptions::QUERY,
        output_schema = schema::envelope(),
        annotations(title = "jq over stored JSON", read_only_hint = true, open_world_hint = false)
    )]
    async fn query(
        &self,
        Parameters(p): Parameters<QueryParams>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let args = args_of(&p);
        // Cancelling the request kills the program's box.
        let (cancel, watcher) = cancel_flag(&ctx);
        let result = self
            .blocking("query", args, move |inner| inner.query(&p, &cancel))
            .await;
        watcher.abort();
        result
    }

    #[tool(
        name = "map",
        description = descriptions::MAP,
        output_schema = schema::map(),
        annotations(title = "Map a repository", read_only_hint = true, open_world_hint = false)
    )]
    async fn map(&self, Parameters(p): Parameters<MapParams>) -> CallToolResult {
        let args = args_of(&p);
        self.blocking("map", args, move |inner| inner.map(&p)).await
    }

    #[tool(
        name = "list",
        description = descriptions::LIST,
        output_schema = schema::page(),
        annotations(title = "List a directory", read_only_hint = true, open_world_hint = false)
    )]
    async fn list(&self, Parameters(p): Parameters<ListParams>) -> CallToolResult {
        let args = args_of(&p);
        self.blocking("list", args, move |inner| inner.list(&p))
            .await
    }

    #[tool(
        name = "artifacts",
        description = descriptions::ARTIFACTS,
        output_schema = schema::page(),
        annotations(title = "Stored artifacts", read_only_hint = true, open_world_hint = false)
    )]
    async fn artifacts(&self, Parameters(p): Parameters<ArtifactsParams>) -> CallToolResult {
        let args = args_of(&p);
        self.blocking("artifacts", args, move |inner| inner.artifacts(&p))
            .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SpoolServer {
    /// Routes the call. Arguments that do not fit a tool's input schema are a tool error the
    /// model can correct (SEP-1303): `invalid_argument`, naming the field, in both parts (rmcp
    /// answers them as a bare text error).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        /// How rmcp 3.11 words a deserialization failure (the lockfile pins 3.11 and a test guards
        /// the wording; should a later rmcp word it otherwise, its own text error goes out).
        const BAD_ARGUMENTS: &str = "failed to deserialize parameters:";
        let tool = request.name.to_string();
        let arguments = request.arguments.clone().unwrap_or_default();
        let tcc = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let response = self.tool_router.call(tcc).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &response
            && result.is_error == Some(true)
            && result.structured_content.is_none()
            && let Some(text) = result
                .content
                .iter()
                .find_map(|c| c.as_text().map(|t| t.text.clone()))
            && let Some(detail) = text.strip_prefix(BAD_ARGUMENTS)
        {
            let named = self
                .tool_router
                .get(&tool)
                .and_then(|t| crate::args::misfit(&t.input_schema, &arguments));
            let misfit = named.unwrap_or_else(|| detail.trim().to_owned());
            let err = crate::args::invalid(&tool, &misfit, None);
            let arguments = Value::Object(arguments);
            spool_core::answer::record_error(&self.inner.store, &tool, &arguments, &err, 0);
            return Ok(rmcp::model::CallToolResponse::Complete(error_result(
                &err,
                self.inner.settings.parts(),
            )));
        }
        Ok(response)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("spool", env!("CARGO_PKG_VERSION")))
            .with_instructions(descriptions::INSTRUCTIONS)
    }
}

impl Inner {
    /// The tools' context: this server's store, roots, cap and limits.
    fn with_context<T>(&self, f: impl FnOnce(&tools::Context<'_>) -> T) -> T {
        let cap = |asked: Option<u64>| self.settings.cap(asked);
        let cx = tools::Context {
            store: &self.store,
            roots: &self.roots,
            cap: &cap,
            run_timeout: Some(self.settings.run_timeout),
            run_timeout_max: Some(self.settings.run_timeout),
            search_budget: self.settings.search_budget,
        };
        f(&cx)
    }

    fn run(&self, p: RunParams, control: RunControl) -> Result<Answer> {
        self.with_context(|cx| tools::run(cx, p, control))
            .map(|(answer, _)| answer)
    }

    fn fetch(
        &self,
        p: &FetchParams,
        cancel: Arc<AtomicBool>,
        progress: &mut dyn FnMut(u64, Option<u64>),
    ) -> Result<Answer> {
        let opts = spool_fetch::FetchOptions {
            allow_private: self.settings.allow_private_network,
            cancel: Some(cancel),
            ..spool_fetch::FetchOptions::default()
        };
        spool_fetch::answer(
            &self.store,
            p,
            &opts,
            self.settings.cap(p.max_tokens),
            progress,
        )
    }

    fn ci_log(&self, p: &CiLogParams, cancel: Arc<AtomicBool>) -> Result<Answer> {
        let mut opts = self
            .settings
            .ci
            .clone()
            .unwrap_or_else(spool_fetch::github::CiOptions::from_env);
        opts.fetch.allow_private |= self.settings.allow_private_network;
        opts.fetch.cancel = Some(cancel);
        spool_fetch::github::answer(&self.store, p, &opts, self.settings.cap(p.max_tokens))
    }

    fn read(&self, p: &ReadParams) -> Result<Answer> {
        self.with_context(|cx| tools::read(cx, p))
    }

    fn search(&self, p: &SearchParams) -> Result<Answer> {
        self.with_context(|cx| tools::search(cx, p))
    }

    fn query(&self, p: &QueryParams, cancel: &AtomicBool) -> Result<Answer> {
        self.with_context(|cx| tools::query_with(cx, p, Some(cancel)))
    }

    fn map(&self, p: &MapParams) -> Result<Answer> {
        self.with_context(|cx| spool_map::answer(cx, p))
    }

    fn list(&self, p: &ListParams) -> Result<Answer> {
        self.with_context(|cx| tools::list(cx, p))
    }

    fn artifacts(&self, p: &ArtifactsParams) -> Result<Answer> {
        self.with_context(|cx| tools::artifacts(cx, p))
    }
}

/// A flag set when the request is cancelled, and the task that sets it (abort it when done).
fn cancel_flag(ctx: &RequestContext<RoleServer>) -> (Arc<AtomicBool>, tokio::task::JoinHandle<()>) {
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancel);
    let ct = ctx.ct.clone();
    let watcher = tokio::spawn(async move {
        ct.cancelled().await;
        flag.store(true, Ordering::SeqCst);
    });
    (cancel, watcher)
}
