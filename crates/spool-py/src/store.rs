//! `spool._native.Store`: one store, the roots its reads stay inside, and the caps and limits
//! its answers keep. Confined like `spool serve`: it answers by ref from what it made, from
//! copies of files inside its roots, and from the principals it trusts.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use pyo3::prelude::*;
use serde_json::{Value, json};
use spool_core::answer::{Answer, respond};
use spool_core::fit::Forms;
use spool_core::{Cap, Error, Result};
use spool_toolset::{CiFrom, Control, Setup, ToolSet, Wording};
use spool_walk::roots::Roots;

use crate::call::{Answered, error, interruptible, rendered};

#[pyclass(frozen, module = "spool._native")]
pub struct Store {
    /// The tools, over the store and the roots (`run` left out with `no_run`).
    tools: ToolSet,
    /// The home it was opened in (the store itself sits in `home/store-v1`).
    home: PathBuf,
    max_tokens: u64,
}

/// How long a command may run when the store names no limit: `spool serve`'s default.
const RUN_TIMEOUT: Duration = Duration::from_mins(10);

// PyO3 hands Python's lists over as owned vectors.
#[allow(clippy::needless_pass_by_value)]
#[pymethods]
impl Store {
    #[new]
    #[pyo3(signature = (home=None, max_tokens=spool_core::DEFAULT_MAX_TOKENS, roots=None, trust=Vec::new(), allow_private_network=false, run_timeout_s=None, no_run=false, env_pass=Vec::new()))]
    #[allow(clippy::too_many_arguments, clippy::fn_params_excessive_bools)]
    fn new(
        py: Python<'_>,
        home: Option<PathBuf>,
        max_tokens: u64,
        roots: Option<Vec<PathBuf>>,
        trust: Vec<String>,
        allow_private_network: bool,
        run_timeout_s: Option<f64>,
        no_run: bool,
        env_pass: Vec<String>,
    ) -> PyResult<Self> {
        let run_timeout = match run_timeout_s {
            None => RUN_TIMEOUT,
            Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s),
            Some(s) => {
                let err = Error::invalid(
                    format!("`run_timeout_s` must be a positive number of seconds (got {s})"),
                    Some("leave it out for 600 seconds".into()),
                );
                return Err(error(py, &err));
            }
        };
        let home = home.unwrap_or_else(spool_core::Store::default_home);
        let opened = py.detach(|| open(&home, max_tokens, roots, &trust));
        let (store, roots) = opened.map_err(|e| error(py, &e))?;
        // Both forms fit a cap alone, since a harness hands the model one of them.
        let cap = move |asked: Option<u64>| Cap::asked_or(asked, max_tokens).sending(Forms::Both);
        let mut setup = Setup::new(Arc::new(store), roots, cap);
        setup.run_timeout = Some(run_timeout);
        setup.run_timeout_max = Some(run_timeout);
        setup.allow_private_network = allow_private_network;
        // The variables whose names look secret that `run` still passes to commands: the
        // harness's choice, never the model's (no tool argument reaches it).
        setup.env_pass = env_pass;
        setup.ci = CiFrom::SettingsIn(home.clone());
        let mut tools = ToolSet::new(setup);
        // A store opened with `no_run` has no `run`, as `spool serve --no-run` has none.
        if no_run {
            tools = tools.without("run");
        }
        Ok(Self {
            tools,
            home,
            max_tokens,
        })
    }

    /// The store's home, as given (or `SPOOL_HOME`, else the platform's data directory).
    #[getter]
    fn home(&self) -> PathBuf {
        self.home.clone()
    }

    /// The directories reads stay inside.
    #[getter]
    fn roots(&self) -> Vec<PathBuf> {
        self.tools.setup().roots.dirs().to_vec()
    }

    /// The cap of an answer that names none, in tokens.
    #[getter]
    fn max_tokens(&self) -> u64 {
        self.max_tokens
    }

    /// Answers `tool` (`read`, `search`, `query`, `list`, `artifacts`, `run`, `fetch`,
    /// `ci_log`, `map`) called with `args` (a JSON object): the answer's structured form as JSON, and
    /// its text.
    fn call(&self, py: Python<'_>, tool: &str, args: &str) -> PyResult<Answered> {
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let outcome = interruptible(py, &cancel, || {
            let args: Value = match serde_json::from_str(args) {
                Ok(args @ (Value::Object(_) | Value::Null)) => args,
                _ => {
                    return Err(Error::invalid(
                        format!("the arguments of `{tool}` must be a JSON object (got `{args}`)"),
                        Some("pass a dict of the tool's arguments".into()),
                    ));
                }
            };
            self.tools
                .call(tool, &args, Control::cancelled_by(flag), Wording::ByPath)
                .and_then(|a| rendered(&a))
        })?;
        outcome.map_err(|e| error(py, &e))
    }

    /// Stores `data` whole as the output of `desc`, with the caller's `version` (a JSON object,
    /// kept as given), and answers its first window (`preview`: `head`, `tail` or `head_tail`).
    #[pyo3(signature = (data, desc, version="{}", preview=None, max_tokens=None))]
    fn put(
        &self,
        py: Python<'_>,
        data: &[u8],
        desc: &str,
        version: &str,
        preview: Option<&str>,
        max_tokens: Option<u64>,
    ) -> PyResult<Answered> {
        let cancel = Arc::new(AtomicBool::new(false));
        let outcome = interruptible(py, &cancel, || {
            let fields: Value = serde_json::from_str(version).unwrap_or(Value::Null);
            let args = json!({
                "desc": desc,
                "version": fields,
                "preview": preview,
                "max_tokens": max_tokens,
            });
            self.tools.put(&args, data).and_then(|a| rendered(&a))
        })?;
        outcome.map_err(|e| error(py, &e))
    }

    /// What was delivered: the latest answers (newest first), or with `reference` everything
    /// delivered from that artifact and what never was. JSON.
    #[pyo3(signature = (reference=None, limit=20))]
    fn audit(&self, py: Python<'_>, reference: Option<&str>, limit: usize) -> PyResult<String> {
        let outcome = py.detach(|| -> Result<String> {
            let args = json!({ "ref": reference, "limit": limit });
            let answer = respond(self.tools.store(), "audit", &args, || {
                Ok(match &reference {
                    Some(r) => {
                        Answer::OfRef(Box::new(spool_core::audit::for_ref(self.tools.store(), r)?))
                    }
                    None => {
                        Answer::Recent(spool_core::audit::recent(self.tools.store(), limit, None)?)
                    }
                })
            })?;
            Ok(match answer {
                Answer::OfRef(report) => serde_json::to_string(&report),
                Answer::Recent(rows) => serde_json::to_string(&rows),
                _ => Ok(String::from("null")),
            }
            .unwrap_or_else(|_| String::from("null")))
        });
        outcome.map_err(|e| error(py, &e))
    }

    fn __repr__(&self) -> String {
        format!(
            "spool.Store(home={:?}, max_tokens={})",
            self.home.display().to_string(),
            self.max_tokens
        )
    }
}

/// Opens the store in `home` (or the default) and the roots (default: the working directory),
/// confined to them.
fn open(
    home: &std::path::Path,
    max_tokens: u64,
    roots: Option<Vec<PathBuf>>,
    trust: &[String],
) -> Result<(spool_core::Store, Roots)> {
    spool_core::window::check_default_cap(max_tokens)?;
    let dirs = match roots {
        Some(dirs) if dirs.is_empty() => {
            return Err(Error::invalid(
                "`roots` is empty: the store would have nowhere to read",
                Some(
                    "name at least one directory, or leave `roots` out for the working directory"
                        .into(),
                ),
            ));
        }
        Some(dirs) => dirs,
        None => vec![std::env::current_dir().map_err(|e| Error::Unavailable {
            what: "the working directory".into(),
            cause: e.to_string(),
        })?],
    };
    let roots = Roots::new(&dirs)?;
    let store = spool_toolset::config::open_store(Some(home))?;
    let principal = spool_core::access::server_principal("python", roots.dirs());
    store.set_principal(principal.clone());
    store.confine(spool_core::access::Access::new(
        principal,
        roots.dirs(),
        trust,
    ));
    Ok((store, roots))
}
