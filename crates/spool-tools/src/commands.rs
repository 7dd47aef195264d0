//! One module per subcommand; each returns the process exit code or the core error.

mod artifacts;
mod audit;
mod ci_log;
mod fetch;
mod gc;
pub(crate) mod generate;
mod ls;
mod map;
mod query;
mod read;
mod run;
mod search;
mod serve;
#[cfg(test)]
mod spelled_back;
mod wrap;

use std::sync::Arc;

use spool_core::answer::Answer;
use spool_core::{Error, Store};
use spool_toolset::{CiFrom, Control, Setup, Tool, ToolSet};

use crate::cli::Command;

pub fn wants_json(cmd: &Command) -> bool {
    match cmd {
        Command::Run(a) => a.common.json,
        Command::Fetch(a) => a.common.json,
        Command::Read(a) => a.common.json,
        Command::Query(a) => a.common.json,
        Command::CiLog(a) => a.common.json,
        Command::Map(a) => a.common.json,
        Command::Search(a) => a.common.json,
        Command::Artifacts(a) => a.common.json,
        Command::Audit(a) => a.common.json,
        Command::Gc(a) => a.common.json,
        Command::Serve(_) | Command::Wrap(_) | Command::Generate(_) => false,
        Command::Ls(a) => a.common.json,
    }
}

pub fn dispatch(store: &std::sync::Arc<Store>, cmd: Command) -> Result<u8, Error> {
    if !matches!(cmd, Command::Serve(_) | Command::Wrap(_)) {
        // The person at the terminal: every artifact they make says so (a server trusts
        // them with `--trust cli`), and they read everything in their store.
        store.set_principal(spool_core::access::CLI);
    }
    match cmd {
        Command::Run(a) => run::run(store, &a),
        Command::Fetch(a) => fetch::fetch(store, &a),
        Command::Read(a) => read::read(store, &a),
        Command::Query(a) => query::query(store, &a),
        Command::CiLog(a) => ci_log::ci_log(store, &a),
        Command::Map(a) => map::map(store, &a),
        Command::Search(a) => search::search(store, &a),
        Command::Artifacts(a) => artifacts::artifacts(store, &a),
        Command::Audit(a) => audit::audit(store, &a),
        Command::Gc(a) => gc::gc(store, &a),
        Command::Serve(a) => serve::serve(std::sync::Arc::clone(store), &a),
        Command::Wrap(a) => wrap::wrap(std::sync::Arc::clone(store), &a),
        Command::Ls(a) => ls::ls(store, &a),
        Command::Generate(a) => generate::generate(&a),
    }
}

/// A target as the tools take it: a ref (when it looks like one and no such file exists), else
/// a path made absolute against the working directory.
pub fn target(target: &str) -> Result<spool_core::calls::Target, Error> {
    if spool_core::refs::looks_like_ref(target) && !std::path::Path::new(target).exists() {
        return Ok(spool_core::calls::Target::reference(target));
    }
    Ok(spool_core::calls::Target::path(absolute(target)?))
}

/// The tools as the person at the command line has them: the whole file system readable, a
/// command's time unlimited, answers capped for a terminal or (`--json`, a pipe) for an agent,
/// the network's private addresses only when `allow_private_network`.
pub fn toolset(
    store: &Arc<Store>,
    json: bool,
    allow_private_network: bool,
) -> Result<ToolSet, Error> {
    let roots = everything()?;
    let fallback = default_max_tokens(json);
    let cap_of = move |asked: Option<u64>| spool_core::Cap {
        given: asked.is_some(),
        ..cap(asked.unwrap_or(fallback), json)
    };
    let mut setup = Setup::new(Arc::clone(store), roots, cap_of);
    setup.allow_private_network = allow_private_network;
    setup.ci = CiFrom::SettingsIn(Store::default_home());
    setup.env_pass = env_pass();
    Ok(ToolSet::new(setup))
}

/// `SPOOL_ENV_PASS` (names, comma-separated): the variables `spool run` passes to its command
/// though their names look secret.
fn env_pass() -> Vec<String> {
    std::env::var("SPOOL_ENV_PASS")
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Answers the tool `T` from a command's flags, through the tool set (answered, timed and
/// audited there); flags that make no arguments are an answer too, audited with the command
/// line as typed.
pub fn answered<T: Tool>(
    store: &Arc<Store>,
    json: bool,
    allow_private_network: bool,
    parse: impl FnOnce() -> Result<T::Params, Error>,
    control: Control,
) -> Result<Answer, Error> {
    let p = match parse() {
        Ok(p) => p,
        Err(err) => {
            let typed = serde_json::json!({ "command_line": crate::command_line() });
            spool_core::answer::record_error(store, T::NAME, &typed, &err, 0);
            return Err(err);
        }
    };
    toolset(store, json, allow_private_network)?.answer::<T>(p, control)
}

/// A person at the command line may read whatever they can: the whole file system is a root,
/// and paths are shown as given. A relative path is taken from the working directory, the
/// first root (when it can be read).
pub fn everything() -> Result<spool_walk::Roots, Error> {
    let all = std::path::PathBuf::from("/");
    let roots = match std::env::current_dir() {
        Ok(cwd) => {
            spool_walk::Roots::new(&[cwd, all.clone()]).or_else(|_| spool_walk::Roots::new(&[all]))
        }
        Err(_) => spool_walk::Roots::new(&[all]),
    };
    Ok(roots?)
}

/// `path` made absolute against the working directory.
pub fn absolute(path: &str) -> Result<String, Error> {
    let p = std::path::Path::new(path);
    if p.is_absolute() {
        return Ok(path.to_owned());
    }
    let cwd = std::env::current_dir().map_err(|e| Error::Unavailable {
        what: "the working directory".into(),
        cause: e.to_string(),
    })?;
    Ok(cwd.join(p).display().to_string())
}

/// Screens of a terminal a preview fills when the person did not ask for a cap.
const SCREENS: u64 = 3;
/// Tokens a terminal line holds, about: numbers are two, a log line twenty.
const TOKENS_PER_ROW: u64 = 6;

/// The cap when none was asked for: an agent's (8,000 tokens) when the output goes to a pipe or
/// a file, or is `--json`; a few screens when a person reads it at a terminal.
pub fn default_max_tokens(json: bool) -> u64 {
    use std::io::IsTerminal as _;
    if json || !std::io::stdout().is_terminal() {
        return spool_core::DEFAULT_MAX_TOKENS;
    }
    terminal_cap(terminal_rows())
}

/// Says, in a terminal-sized preview that is cut short, why it is small and how to see more.
pub fn note_terminal_size(answer: &mut Answer, asked: Option<u64>, json: bool) {
    let fallback = default_max_tokens(json);
    if asked.is_some() || fallback == spool_core::DEFAULT_MAX_TOKENS {
        return;
    }
    if let Answer::Envelope(e) = answer
        && !e.complete
    {
        e.notes.push(format!(
            "this preview is sized for your terminal ({} tokens); `--max-tokens {}` shows as much as an agent gets",
            spool_core::render::thousands(fallback),
            spool_core::DEFAULT_MAX_TOKENS
        ));
    }
}

/// The cap for a terminal of `rows` rows.
pub fn terminal_cap(rows: u64) -> u64 {
    (rows * SCREENS * TOKENS_PER_ROW).clamp(
        spool_core::window::MIN_DEFAULT_TOKENS,
        spool_core::DEFAULT_MAX_TOKENS,
    )
}

/// The terminal's height: its window size, else `LINES`, else 24.
fn terminal_rows() -> u64 {
    if let Some((_, terminal_size::Height(rows))) = terminal_size::terminal_size()
        && rows > 0
    {
        return u64::from(rows);
    }
    std::env::var("LINES")
        .ok()
        .and_then(|l| l.trim().parse().ok())
        .filter(|&l| l > 0)
        .unwrap_or(24)
}

/// The cap of a CLI answer: it is printed in one form only, words or (`--json`) the structured
/// answer, and that form must fit.
pub fn cap(max_tokens: u64, json: bool) -> spool_core::Cap {
    let forms = if json {
        spool_core::fit::Forms::Json
    } else {
        spool_core::fit::Forms::Text
    };
    spool_core::Cap::new(max_tokens).sending(forms)
}

/// The async runtime the MCP commands (`serve`, `wrap`) run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Unavailable {
            what: "the async runtime".into(),
            cause: e.to_string(),
        })
}
