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
use spool_core::exec::{RunControl, RunSpec};
use spool_core::fit::Forms;
use spool_core::roots::Roots;
use spool_core::search::{Paging, Query};
use spool_core::store::Stream;
use spool_core::window::{WindowRequest, read_window, window};
use spool_core::{Cap, Error, Result, Store};

use crate::answer::{Answer, Parts, error_result};
use crate::descriptions;
use crate::params::{
    ArtifactsParams, FetchParams, ListParams, ReadParams, RunParams, SearchParams,
};
use crate::schema;

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
        Cap::new(asked.unwrap_or(self.max_tokens))
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

    /// Runs `f` on a blocking thread; its answer or error becomes the tool result. A panic
    /// becomes an `internal` error: the server stays up.
    async fn blocking<F>(&self, tool: &'static str, args: Value, f: F) -> CallToolResult
    where
        F: FnOnce(&Inner) -> Result<Answer> + Send + 'static,
    {
        let inner = Arc::clone(&self.inner);
        let started = Instant::now();
        let outcome = tokio::task::spawn_blocking(move || f(&inner)).await;
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let store = &self.inner.store;
        let parts = self.inner.settings.parts();
        match outcome {
            Ok(Ok(answer)) => answer.into_result(store, tool, &args, ms, parts),
            Ok(Err(err)) => error_result(store, tool, &args, &err, ms, parts),
            Err(join) => {
                let err = Error::Unavailable {
                    what: format!("the `{tool}` tool"),
                    cause: format!("it failed unexpectedly ({join})"),
                };
                error_result(store, tool, &args, &err, ms, parts)
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
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let ct = ctx.ct.clone();
        // Cancelling the request stops the command; what it printed is kept, marked cancelled.
        let watcher = tokio::spawn(async move {
            ct.cancelled().await;
            flag.store(true, Ordering::SeqCst);
        });
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
        let mut args = args_of(&p);
        // A password in the URL is used, not recorded.
        args["url"] = Value::String(spool_fetch::redacted_str(&p.url));
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
        let result = self
            .blocking("fetch", args, move |inner| {
                inner.fetch(&p, &mut |bytes, total| {
                    let _ = tx.send((bytes, total));
                })
            })
            .await;
        if let Some(task) = progress {
            let _ = task.await;
        }
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
        /// How rmcp 3.11 words a deserialization failure (pinned; a test guards it).
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
            return Ok(rmcp::model::CallToolResponse::Complete(error_result(
                &self.inner.store,
                &tool,
                &Value::Object(arguments),
                &err,
                0,
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

fn one_of<'a>(reference: Option<&'a str>, path: Option<&'a str>, tool: &str) -> Result<Target<'a>> {
    match (reference, path) {
        (Some(r), None) => Ok(Target::Ref(r)),
        (None, Some(p)) => Ok(Target::Path(p)),
        _ => Err(Error::InvalidArgument {
            message: format!("`{tool}` takes either `ref` or `path`, exactly one of them"),
            hint: Some(format!(
                "for example {tool} ref=sp_... or {tool} path=README.md"
            )),
        }),
    }
}

enum Target<'a> {
    Ref(&'a str),
    Path(&'a str),
}

impl Inner {
    fn cap(&self, asked: Option<u64>) -> Cap {
        self.settings.cap(asked)
    }

    fn run(&self, p: RunParams, control: RunControl) -> Result<Answer> {
        let (argv, command) = match (p.argv, p.command) {
            (Some(argv), None) if !argv.is_empty() => (argv, None),
            (None, Some(c)) if !c.trim().is_empty() => (Vec::new(), Some(c)),
            _ => {
                return Err(Error::InvalidArgument {
                    message: "`run` takes either `command` (a string for sh -c) or `argv` (a non-empty array)".into(),
                    hint: Some("for example run command=\"cargo test\"".into()),
                });
            }
        };
        // Held open from the check to the start: the command runs in the directory checked.
        let (cwd_fd, cwd) = self.roots.open_dir(p.cwd.as_deref().unwrap_or("."))?;
        let limit = self.settings.run_timeout.as_secs_f64();
        let timeout = match p.timeout_s {
            Some(t) if !(t.is_finite() && t > 0.0 && t <= limit) => {
                return Err(Error::InvalidArgument {
                    message: format!("`timeout_s` must be between 0 and {limit} seconds (got {t})"),
                    hint: Some(format!("ask for `timeout_s` {}", limit.min(60.0))),
                });
            }
            Some(t) => Duration::from_secs_f64(t),
            None => self.settings.run_timeout,
        };
        let spec = RunSpec {
            argv,
            command,
            cwd: Some(cwd),
            cwd_fd: Some(Arc::new(cwd_fd)),
            timeout: Some(timeout),
            stdin: p.stdin.map(String::into_bytes),
        };
        let outcome = spool_core::exec::run(&self.store, &spec, control)?;
        let reader = self.store.open_artifact(&outcome.meta.reference)?;
        let preview = p.preview.map(Into::into);
        Ok(Answer::Envelope(Box::new(window(
            &reader,
            WindowRequest::Preview(preview),
            self.cap(p.max_tokens),
        )?)))
    }

    fn fetch(&self, p: &FetchParams, progress: &mut dyn FnMut(u64, Option<u64>)) -> Result<Answer> {
        let opts = spool_fetch::FetchOptions {
            allow_private: self.settings.allow_private_network,
            ..spool_fetch::FetchOptions::default()
        };
        let format = p.format.map_or(spool_fetch::Format::Markdown, Into::into);
        let fetched = spool_fetch::fetch(&self.store, &p.url, format, p.refresh, &opts, progress)?;
        let reader = self.store.open_artifact(&fetched.meta.reference)?;
        let envelope = spool_core::window::window_with_notes(
            &reader,
            WindowRequest::Preview(None),
            self.cap(p.max_tokens),
            &fetched.notes,
        )?;
        Ok(Answer::Envelope(Box::new(envelope)))
    }

    fn read(&self, p: &ReadParams) -> Result<Answer> {
        if let Some(cursor) = &p.cursor {
            let Some(reference) = p.reference.as_deref().filter(|_| p.path.is_none()) else {
                return Err(Error::InvalidArgument {
                    message: "`cursor` continues a list of items: give it with the list's `ref`"
                        .into(),
                    hint: Some("pass the `ref` and `next_cursor` of the previous page".into()),
                });
            };
            let limit = p.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
            return Ok(Answer::Items(Box::new(spool_core::items::item_page(
                &self.store,
                reference,
                spool_core::items::PageStart::Cursor(cursor),
                limit,
                self.cap(p.max_tokens),
            )?)));
        }
        let mut reference = match one_of(p.reference.as_deref(), p.path.as_deref(), "read")? {
            Target::Ref(r) => r.to_owned(),
            Target::Path(path) => {
                let (file, real) = self.roots.open_file(path)?;
                spool_core::files::snapshot_file(&self.store, file, &real)?.reference
            }
        };
        if let Some(stream) = &p.stream {
            reference =
                spool_core::streams::stream_view(&self.store, &reference, Stream::parse(stream)?)?
                    .reference;
        }
        let request = read_request(p)?;
        Ok(Answer::Envelope(Box::new(read_window(
            &self.store,
            &reference,
            request,
            self.cap(p.max_tokens),
        )?)))
    }

    fn search(&self, p: &SearchParams) -> Result<Answer> {
        let query = Query {
            pattern: p.pattern.clone(),
            literal: p.literal,
            case_insensitive: p.case_insensitive,
        };
        let paging = Paging {
            context: p.context.unwrap_or(0),
            limit: p.limit,
            cursor: p.cursor.clone(),
        };
        let mut answer = match one_of(p.reference.as_deref(), p.path.as_deref(), "search")? {
            Target::Ref(r) => spool_core::search::search_artifact(&self.store, r, &query, &paging)?,
            Target::Path(path) => spool_core::search::tree::search_path(
                &self.store,
                &self.roots,
                path,
                &query,
                &p.glob,
                &paging,
                self.settings.search_budget,
            )?,
        };
        spool_core::search::fit(&mut answer, &self.store, self.cap(p.max_tokens))?;
        Ok(Answer::Search(Box::new(answer)))
    }

    fn list(&self, p: &ListParams) -> Result<Answer> {
        let path = p.path.as_deref().unwrap_or(".");
        let page = spool_core::listing::list(
            &self.store,
            &self.roots,
            spool_core::listing::ListQuery {
                path,
                glob: p.glob.as_deref(),
                recursive: p.recursive,
                hidden: p.hidden,
            },
            p.limit,
            p.cursor.as_deref(),
        )?;
        let mut page = page;
        spool_core::page::fit(&mut page, self.cap(None), |p, d| {
            (
                spool_core::render::entries_text(p, path, d),
                spool_core::render::entries_notice(p, path, d),
            )
        })?;
        Ok(Answer::List(Box::new(page), path.to_owned()))
    }

    fn artifacts(&self, p: &ArtifactsParams) -> Result<Answer> {
        let mut page = spool_core::page::artifacts(
            &self.store,
            p.kind.as_deref(),
            p.limit.unwrap_or(50),
            p.cursor.as_deref(),
        )?;
        spool_core::page::fit(&mut page, self.cap(None), |p, d| {
            (
                spool_core::render::artifacts_text(p, d),
                spool_core::render::artifacts_notice(p, d),
            )
        })?;
        Ok(Answer::Artifacts(Box::new(page)))
    }
}

/// The window a `read` asks for; ranges of different units cannot be mixed.
fn read_request(p: &ReadParams) -> Result<WindowRequest> {
    let lines = p.line.is_some() || p.limit.is_some();
    let chars = p.char_offset.is_some() || p.max_chars.is_some();
    let bytes = p.byte_offset.is_some() || p.max_bytes.is_some();
    if u8::from(lines) + u8::from(chars) + u8::from(bytes) > 1
        || (p.preview.is_some() && (lines || chars || bytes))
    {
        return Err(Error::InvalidArgument {
            message: "`read` takes one kind of range: lines (`line`, `limit`), chars (`char_offset`, `max_chars`), bytes (`byte_offset`, `max_bytes`), or a `preview`".into(),
            hint: Some("for example read ref=sp_... line=97 limit=400".into()),
        });
    }
    Ok(if lines {
        WindowRequest::Lines {
            line: p.line.unwrap_or(1),
            limit: p.limit,
        }
    } else if chars {
        WindowRequest::Chars {
            offset: p.char_offset.unwrap_or(0),
            max: p.max_chars,
        }
    } else if bytes {
        WindowRequest::Bytes {
            offset: p.byte_offset.unwrap_or(0),
            max: p.max_bytes,
        }
    } else {
        WindowRequest::Preview(p.preview.map(Into::into))
    })
}
