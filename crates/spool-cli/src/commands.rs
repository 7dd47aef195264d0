//! One module per subcommand; each returns the process exit code or the core error.

mod artifacts;
mod audit;
mod fetch;
mod gc;
mod ls;
mod read;
mod run;
mod search;
mod serve;
mod wrap;

use spool_core::{Error, Store};

use crate::cli::Command;

pub fn wants_json(cmd: &Command) -> bool {
    match cmd {
        Command::Run(a) => a.common.json,
        Command::Fetch(a) => a.common.json,
        Command::Read(a) => a.common.json,
        Command::Search(a) => a.common.json,
        Command::Artifacts(a) => a.common.json,
        Command::Audit(a) => a.common.json,
        Command::Gc(a) => a.common.json,
        Command::Serve(_) | Command::Wrap(_) => false,
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
        Command::Search(a) => search::search(store, &a),
        Command::Artifacts(a) => artifacts::artifacts(store, &a),
        Command::Audit(a) => audit::audit(store, &a),
        Command::Gc(a) => gc::gc(store, &a),
        Command::Serve(a) => serve::serve(std::sync::Arc::clone(store), &a),
        Command::Wrap(a) => wrap::wrap(std::sync::Arc::clone(store), &a),
        Command::Ls(a) => ls::ls(store, &a),
    }
}

/// Resolves a ref or a path to a ref: a path is snapshotted into the store first.
pub fn resolve_target(store: &Store, target: &str) -> Result<String, Error> {
    if spool_core::refs::looks_like_ref(target) && !std::path::Path::new(target).exists() {
        return Ok(target.to_owned());
    }
    Ok(spool_core::files::snapshot(store, std::path::Path::new(target))?.reference)
}

/// A person at the command line may read whatever they can: the whole file system is the root,
/// and paths are shown as given.
pub fn everything() -> Result<spool_core::roots::Roots, Error> {
    spool_core::roots::Roots::new(&[std::path::PathBuf::from("/")])
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

/// Audit failures never fail the answer; they are logged.
pub fn audited(result: spool_core::Result<()>) {
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not record the answer in the audit");
    }
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

pub fn elapsed_ms(since: std::time::Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}
