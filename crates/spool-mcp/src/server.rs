//! The MCP server: `tools/list` and `tools/call` straight from the tool table (spool-toolset).
//! Each call runs its tool on a blocking thread, cancelled with its request and reporting
//! progress to its token; the answer is rendered in both parts here. No tool is written here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use spool_core::fit::Forms;
use spool_core::{Cap, Error, Store};
use spool_toolset::{CiFrom, Control, Entry, Progress, Setup, ToolSet, Wording};
use spool_walk::roots::Roots;

use crate::answer::{Parts, error_result, into_result};
use crate::instructions;
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
    /// Variables `run` passes to commands though their names look secret.
    pub env_pass: Vec<String>,
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
            env_pass: Vec::new(),
            structured: true,
            ci: None,
        }
    }
}

struct Inner {
    tools: ToolSet,
    settings: Settings,
}

/// spool's MCP server. Cheap to clone, and a clone is a new session (one per HTTP session):
/// it shares the store, the tools and the server's places for calls, and has places of its own
/// (see `admission`).
pub struct SpoolServer {
    inner: Arc<Inner>,
    /// The tools offered, as `tools/list` shows them (sorted by name).
    offered: Arc<Vec<Tool>>,
    /// The server's places for calls, shared by every session.
    admission: crate::admission::Server,
    /// This session's.
    session: Arc<crate::admission::Session>,
}

impl Clone for SpoolServer {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            offered: Arc::clone(&self.offered),
            admission: self.admission.clone(),
            session: Arc::default(),
        }
    }
}

impl SpoolServer {
    /// A server of every tool of the table (`run` left out with `no_run`) over `store`, its
    /// reads inside `roots`.
    pub fn new(store: Arc<Store>, roots: Roots, settings: Settings) -> Self {
        let capped = settings.clone();
        let mut setup = Setup::new(store, roots, move |asked| capped.cap(asked));
        setup.run_timeout = Some(settings.run_timeout);
        setup.run_timeout_max = Some(settings.run_timeout);
        setup.search_budget = settings.search_budget;
        setup.allow_private_network = settings.allow_private_network;
        setup.env_pass.clone_from(&settings.env_pass);
        setup.ci = settings
            .ci
            .clone()
            .map_or(CiFrom::Environment, CiFrom::Given);
        let mut tools = ToolSet::new(setup);
        if settings.no_run {
            tools = tools.without("run");
        }
        let mut offered: Vec<Tool> = tools
            .tools()
            .map(|(entry, input)| {
                listed(
                    entry,
                    tools.description(entry),
                    with_cap(input, settings.max_tokens),
                    &settings,
                )
            })
            .collect();
        offered.sort_by(|a, b| a.name.cmp(&b.name));
        Self {
            inner: Arc::new(Inner { tools, settings }),
            offered: Arc::new(offered),
            admission: crate::admission::Server::default(),
            session: Arc::default(),
        }
    }

    /// Keeps only the named tools (the proxy offers `read`, `search`, `query` and `artifacts`).
    #[must_use]
    pub fn only(mut self, tools: &[&str]) -> Self {
        let kept: Vec<Tool> = self
            .offered
            .iter()
            .filter(|t| tools.contains(&t.name.as_ref()))
            .cloned()
            .collect();
        self.offered = Arc::new(kept);
        self
    }

    /// The tools offered, as `tools/list` shows them.
    pub fn tools(&self) -> Vec<Tool> {
        self.offered.as_ref().clone()
    }

    /// The store every answer is kept in.
    pub fn store(&self) -> &Arc<Store> {
        self.inner.tools.store()
    }

    /// How the server answers.
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    /// Answers `tool` (one this server offers) called with `arguments`, on a blocking thread,
    /// through the tool set (parsed, answered, timed and audited there). Cancelling the request
    /// sets the call's cancel flag; its progress goes to the request's progress token. A panic
    /// becomes an `unavailable` error, audited too: the server stays up.
    async fn answer(
        &self,
        tool: String,
        arguments: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let inner = Arc::clone(&self.inner);
        let started = Instant::now();
        let parts = self.inner.settings.parts();
        // A place first, waited for without a thread; the wait counts in the call's time.
        let admitted = match self.admission.admit(&self.session, &tool).await {
            Ok(admitted) => admitted,
            Err(err) => {
                let ms = spool_core::answer::elapsed_ms(started);
                let audited = self.inner.tools.audited(&tool, &arguments);
                spool_core::answer::record_error(self.store(), &tool, &audited, &err, ms);
                return error_result(&err, parts);
            }
        };
        let (cancel, watcher) = cancel_flag(ctx);
        let (control, progress) = reporting(ctx, cancel);
        // Shared, not copied: a `run`'s stdin may be tens of MB (a 60 MB one was held six
        // times over before, issue 58).
        let arguments = Arc::new(arguments);
        let (name, args) = (tool.clone(), Arc::clone(&arguments));
        let outcome = tokio::task::spawn_blocking(move || {
            // Held until the work ends, cancelled or not: the thread is taken until then.
            let _admitted = admitted;
            inner.tools.call(&name, &args, control, Wording::BySchema)
        })
        .await;
        watcher.abort();
        if let Some(task) = progress {
            let _ = task.await;
        }
        match outcome {
            Ok(Ok(answer)) => into_result(&answer, parts),
            Ok(Err(err)) => error_result(&err, parts),
            Err(join) => {
                let err = Error::Unavailable {
                    what: format!("the `{tool}` tool"),
                    cause: format!("it failed unexpectedly ({join})"),
                };
                let ms = spool_core::answer::elapsed_ms(started);
                // Recorded as the tool records its arguments (a fetch's URL without its
                // password), as every other answer of it is.
                let audited = self.inner.tools.audited(&tool, &arguments);
                spool_core::answer::record_error(self.store(), &tool, &audited, &err, ms);
                error_result(&err, parts)
            }
        }
    }
}

/// `input` with the server's own cap where the arguments' words give the default's: a server
/// started with `--max-tokens 2000` told the model "(default: the server's cap, 8000)".
fn with_cap(input: &Arc<spool_toolset::JsonObject>, cap: u64) -> Arc<spool_toolset::JsonObject> {
    let default = spool_core::DEFAULT_MAX_TOKENS;
    if cap == default {
        return Arc::clone(input);
    }
    let said = format!("the server's cap, {default})");
    let Ok(text) = serde_json::to_string(input.as_ref()) else {
        return Arc::clone(input);
    };
    if !text.contains(&said) {
        return Arc::clone(input);
    }
    let text = text.replace(&said, &format!("the server's cap, {cap})"));
    serde_json::from_str(&text).map_or_else(|_| Arc::clone(input), Arc::new)
}

/// A tool of the table as `tools/list` shows it: its words and hints, its input schema, its
/// output schema when structured content is sent, and the most chars one answer takes.
fn listed(
    entry: &Entry,
    description: String,
    input: Arc<spool_toolset::JsonObject>,
    settings: &Settings,
) -> Tool {
    let hints = entry.hints;
    let mut annotations = ToolAnnotations::with_title(entry.title).read_only(hints.read_only);
    if !hints.read_only {
        annotations = annotations.destructive(hints.destructive);
    }
    annotations = annotations.open_world(hints.open_world);
    let mut tool = Tool::new(entry.name, description, input)
        .with_annotations(annotations)
        .with_meta(schema::tool_meta(settings.result_chars()));
    if settings.structured {
        tool = tool.with_raw_output_schema(schema::output(entry.output));
    }
    tool
}

impl ServerHandler for SpoolServer {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let supports_cache_hints = context
            .protocol_version()
            .is_some_and(|version| version >= rmcp::model::ProtocolVersion::V_2026_07_28);
        Ok(ListToolsResult {
            result_type: Some(rmcp::model::ResultType::COMPLETE),
            tools: self.tools(),
            meta: None,
            next_cursor: None,
            ttl_ms: supports_cache_hints.then_some(0),
            cache_scope: supports_cache_hints.then_some(rmcp::model::CacheScope::Public),
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.offered.iter().find(|t| t.name == name).cloned()
    }

    /// Answers a tool this server offers; another name is a protocol error, as the
    /// specification has it. Arguments that do not fit the tool's input schema are a tool
    /// error the model can correct (SEP-1303): `invalid_argument`, naming the field.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        if !self.offered.iter().any(|t| t.name == tool.as_str()) {
            return Err(ErrorData::invalid_params("tool not found", None));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(CallToolResponse::Complete(
            self.answer(tool, arguments, &context).await,
        ))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("spool", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions::instructions(self.store().config().ttl))
    }
}

/// The control of a call: `cancel`, and when the request has a progress token, a report of
/// its progress (a command's output so far and the ref it is stored as, so it can be read on
/// another machine while it runs; a page downloaded so far), with the task that sends them
/// (awaited after the call, so every report precedes the result).
fn reporting(
    ctx: &RequestContext<RoleServer>,
    cancel: Arc<AtomicBool>,
) -> (Control, Option<tokio::task::JoinHandle<()>>) {
    let Some(token) = ctx.meta.get_progress_token() else {
        return (Control::cancelled_by(cancel), None);
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let stored_as = Arc::new(std::sync::OnceLock::<String>::new());
    let named = Arc::clone(&stored_as);
    let peer = ctx.peer.clone();
    let task = tokio::spawn(async move {
        while let Some(progress) = rx.recv().await {
            let _ = peer
                .notify_progress(progress_note(&token, progress, named.get()))
                .await;
        }
    });
    let control = Control {
        cancel,
        progress: Some(Box::new(move |p| {
            let _ = tx.send(p);
        })),
        started: Some(Box::new(move |reference: &str| {
            let _ = stored_as.set(reference.to_owned());
        })),
        ended: None,
    };
    (control, Some(task))
}

/// A progress report in words.
fn progress_note(
    token: &rmcp::model::ProgressToken,
    progress: Progress,
    stored_as: Option<&String>,
) -> ProgressNotificationParam {
    match progress {
        Progress::Output { bytes, lines } => {
            let so_far = format!(
                "{} lines, {} so far",
                spool_core::render::thousands(lines),
                spool_core::render::human_bytes(bytes)
            );
            let message = match stored_as {
                Some(reference) => format!("{so_far}; stored as {reference}"),
                None => so_far,
            };
            ProgressNotificationParam::new(token.clone(), bytes as f64).with_message(message)
        }
        Progress::Download { bytes, total } => {
            let mut note = ProgressNotificationParam::new(token.clone(), bytes as f64)
                .with_message(format!(
                    "{} downloaded",
                    spool_core::render::human_bytes(bytes)
                ));
            if let Some(total) = total {
                note = note.with_total(total as f64);
            }
            note
        }
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
