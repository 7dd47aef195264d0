//! The tool set a front end offers: the table's tools (all, or those it keeps), the settings
//! they run with, and the one dispatch every front end calls. A call by name with JSON
//! arguments (MCP, the proxy, Python) and a call with typed arguments (the CLI, which parses its
//! own flags) go through the same [`ToolSet::answer`]: the engines' context is built here, and
//! the answer is timed and audited once.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;
use spool_core::answer::{Answer, Context, respond};
use spool_core::{Cap, Result, Store};
use spool_fetch::github::CiOptions;
use spool_walk::roots::Roots;

use crate::arguments::{self, Wording};
use crate::misfit::JsonObject;
use crate::table::{Entry, TOOLS};
use crate::tool::{Call, Control, Tool};

/// What the tools of a set run with.
pub struct Setup {
    /// The store every answer is kept in.
    pub store: Arc<Store>,
    /// The directories reads stay inside.
    pub roots: Roots,
    /// The cap of an answer that asked for `max_tokens` (the front end's default when absent).
    pub cap: Arc<dyn Fn(Option<u64>) -> Cap + Send + Sync>,
    /// The time a command may run when the call names none.
    pub run_timeout: Option<Duration>,
    /// The most a call may ask for (none: any).
    pub run_timeout_max: Option<Duration>,
    /// The time budget of a directory search.
    pub search_budget: Duration,
    /// Let `fetch` (and a CI log's signed URL) reach private, loopback and link-local
    /// addresses.
    pub allow_private_network: bool,
    /// Where `ci_log` reads GitHub Actions, and with which token.
    pub ci: CiFrom,
    /// Variables a command gets though their names look secret (`--env-pass`): every other
    /// such variable of the server's environment is withheld from commands.
    pub env_pass: Vec<String>,
}

impl Setup {
    /// A setup over `store` and `roots` with answers capped by `cap`: no limit on a command's
    /// time, a directory search's default budget, public addresses only, CI from the
    /// environment.
    pub fn new(
        store: Arc<Store>,
        roots: Roots,
        cap: impl Fn(Option<u64>) -> Cap + Send + Sync + 'static,
    ) -> Self {
        Self {
            store,
            roots,
            cap: Arc::new(cap),
            run_timeout: None,
            run_timeout_max: None,
            search_budget: spool_core::search::tree::DEFAULT_BUDGET,
            allow_private_network: false,
            ci: CiFrom::Environment,
            env_pass: Vec::new(),
        }
    }

    /// Where `ci_log` reads, read when the call is made (a token set later is used).
    pub fn ci_options(&self) -> Result<CiOptions> {
        let mut opts = match &self.ci {
            CiFrom::Given(opts) => opts.clone(),
            CiFrom::Environment => CiOptions::from_env(),
            CiFrom::SettingsIn(home) => crate::config::ci_options_in(home)?,
        };
        opts.fetch.allow_private |= self.allow_private_network;
        Ok(opts)
    }
}

/// Where `ci_log`'s API and token come from.
#[derive(Debug, Clone)]
pub enum CiFrom {
    /// As given (a test's fake API, a server's settings).
    Given(CiOptions),
    /// `GITHUB_API_URL`, `GITHUB_TOKEN` or `GH_TOKEN`, when the call is made.
    Environment,
    /// The environment and the `[ci]` table of the settings file of the store in this home.
    SettingsIn(PathBuf),
}

/// The tools a front end offers, and how they run.
pub struct ToolSet {
    setup: Setup,
    tools: Vec<Listed>,
}

/// A tool of the set, with its input schema, made the first time it is asked for: a host's
/// tool list and MCP's misfits need it, a CLI command never does.
struct Listed {
    entry: &'static Entry,
    schema: OnceLock<Arc<JsonObject>>,
}

impl Listed {
    fn schema(&self) -> &Arc<JsonObject> {
        self.schema
            .get_or_init(|| Arc::new(self.entry.input_schema()))
    }
}

impl ToolSet {
    /// Every tool of the table.
    pub fn new(setup: Setup) -> Self {
        let tools = TOOLS
            .iter()
            .map(|entry| Listed {
                entry,
                schema: OnceLock::new(),
            })
            .collect();
        Self { setup, tools }
    }

    /// Keeps only the tools named (the proxy offers `read`, `search`, `query` and `artifacts`).
    #[must_use]
    pub fn only(mut self, names: &[&str]) -> Self {
        self.tools.retain(|t| names.contains(&t.entry.name));
        self
    }

    /// Leaves out the tool named (a read-only server has no `run`).
    #[must_use]
    pub fn without(mut self, name: &str) -> Self {
        self.tools.retain(|t| t.entry.name != name);
        self
    }

    /// The tools offered, in the table's order, each with its input schema.
    pub fn tools(&self) -> impl Iterator<Item = (&'static Entry, &Arc<JsonObject>)> {
        self.tools.iter().map(|t| (t.entry, t.schema()))
    }

    /// What the model reads about `entry`, with the store's own artifact lifetime where the
    /// table's words say the default ("7 days"): a store started with `SPOOL_TTL=3600` tells
    /// the model an hour, not a week.
    pub fn description(&self, entry: &Entry) -> String {
        let ttl = spool_core::in_words::lifetime(self.setup.store.config().ttl);
        entry.description.replace("7 days", &ttl)
    }

    /// The tool named `name`, if this set offers it, and its input schema.
    pub fn get(&self, name: &str) -> Option<(&'static Entry, &Arc<JsonObject>)> {
        self.find(name).map(|t| (t.entry, t.schema()))
    }

    /// The tool named `name`, if this set offers it (its schema not made).
    fn find(&self, name: &str) -> Option<&Listed> {
        self.tools.iter().find(|t| t.entry.name == name)
    }

    /// The names of the tools offered.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.entry.name).collect()
    }

    /// What the tools run with.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }

    /// The store every answer is kept in.
    pub fn store(&self) -> &Arc<Store> {
        &self.setup.store
    }

    /// Answers the tool `name` called with `args` (a JSON object): parsed into its arguments
    /// (a misfit said in `wording`), answered, timed and audited. A tool this set does not
    /// offer is an `invalid_argument` naming those it does.
    pub fn call(
        &self,
        name: &str,
        args: &Value,
        control: Control,
        wording: Wording,
    ) -> Result<Answer> {
        let Some(listed) = self.find(name) else {
            let err = arguments::unknown(name, &self.names());
            spool_core::answer::record_error(&self.setup.store, name, args, &err, 0);
            return Err(err);
        };
        // Only MCP's words for a misfit read the schema.
        let none = JsonObject::new();
        let schema = match wording {
            Wording::BySchema => listed.schema().as_ref(),
            Wording::ByPath => &none,
        };
        (listed.entry.call)(self, args, control, wording, schema)
    }

    /// `args` as the tool `name` records them in the audit (as given, for a tool not in the
    /// set or arguments that are not its own).
    pub fn audited(&self, name: &str, args: &Value) -> Value {
        match self.find(name) {
            Some(listed) => listed.entry.audited(args),
            None => args.clone(),
        }
    }

    /// Answers `T` with arguments already parsed (the CLI's flags), timed and audited.
    pub fn answer<T: Tool>(&self, p: T::Params, control: Control) -> Result<Answer> {
        let audited = T::audited(&p);
        if self.find(T::NAME).is_none() {
            let err = arguments::unknown(T::NAME, &self.names());
            spool_core::answer::record_error(&self.setup.store, T::NAME, &audited, &err, 0);
            return Err(err);
        }
        respond(&self.setup.store, T::NAME, &audited, || {
            self.with_context(|cx| {
                T::answer(
                    Call {
                        cx,
                        setup: &self.setup,
                        control,
                    },
                    p,
                )
            })
        })
    }

    /// The engines' context: this set's store, roots, cap and limits.
    pub fn with_context<R>(&self, f: impl FnOnce(&Context<'_>) -> R) -> R {
        let cap = |asked: Option<u64>| (self.setup.cap)(asked);
        let cx = Context {
            store: &self.setup.store,
            roots: &self.setup.roots,
            cap: &cap,
            run_timeout: self.setup.run_timeout,
            run_timeout_max: self.setup.run_timeout_max,
            search_budget: self.setup.search_budget,
            env_pass: &self.setup.env_pass,
        };
        f(&cx)
    }
}

/// [`ToolSet::call`] for the tool `T`: its arguments parsed from `args` (a misfit is answered
/// and audited like any error), then answered.
pub(crate) fn call_as<T: Tool>(
    set: &ToolSet,
    args: &Value,
    control: Control,
    wording: Wording,
    schema: &JsonObject,
) -> Result<Answer> {
    let started = std::time::Instant::now();
    match arguments::parse::<T::Params>(T::NAME, args, wording, schema) {
        Ok(p) => set.answer::<T>(p, control),
        Err(err) => {
            let ms = spool_core::answer::elapsed_ms(started);
            spool_core::answer::record_error(&set.setup.store, T::NAME, args, &err, ms);
            Err(err)
        }
    }
}
