//! The `spool` command as a library: [`main_with`] runs it with the arguments given (the
//! binary passes its own; the Python package passes `sys.argv`), and [`open_store`] opens the
//! store the command would use (`SPOOL_HOME`, the quota and TTL variables, a shared bucket).

mod cli;
mod commands;
mod log;
mod output;

use std::ffi::OsString;
use std::sync::OnceLock;

use clap::Parser;
use spool_core::{Error, ErrorCode, Store, StoreConfig};

/// The exit code of a command that failed with `err` (documented in `spool --help`).
pub fn exit_code_for(err: &Error) -> u8 {
    match err.code() {
        ErrorCode::NotFound => 3,
        ErrorCode::Expired => 4,
        ErrorCode::Forbidden => 5,
        ErrorCode::InvalidArgument => 6,
        ErrorCode::Unavailable => 7,
        ErrorCode::Timeout => 8,
        ErrorCode::Corrupt => 9,
        ErrorCode::Internal => 1,
    }
}

/// `SPOOL_TTL` (seconds an artifact lives), `SPOOL_QUOTA` (bytes kept) and `SPOOL_CACHE` (bytes
/// of copies read through from a shared store) override the defaults.
fn store_config() -> Result<StoreConfig, Error> {
    let mut config = StoreConfig::default();
    let number = |name: &str| -> Result<Option<u64>, Error> {
        match std::env::var(name) {
            Ok(v) => v
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| Error::InvalidArgument {
                    message: format!("`{name}` must be a whole number (got `{v}`)").into(),
                    hint: Some(format!("unset `{name}` to use the default").into()),
                }),
            Err(_) => Ok(None),
        }
    };
    if let Some(secs) = number("SPOOL_TTL")? {
        config.ttl = std::time::Duration::from_secs(secs);
    }
    if let Some(bytes) = number("SPOOL_QUOTA")? {
        config.quota_bytes = bytes;
    }
    if let Some(bytes) = number("SPOOL_CACHE")? {
        config.cache_bytes = bytes;
    }
    Ok(config)
}

/// `SPOOL_STORE=s3://BUCKET/PREFIX`, or a `[store]` table in `spool.toml`, puts the shared
/// store behind the local one: artifacts are published there as they are made, and refs made
/// elsewhere are read through from it.
fn shared(
    store: Store,
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Store, Error> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let settings = match var("SPOOL_STORE") {
        Some(url) => spool_s3::S3Settings::from_url(&url, var),
        None => match store_section(home, config_file)? {
            Some(section) => section.settings(var),
            None => return Ok(store),
        },
    }
    .map_err(spool_s3::S3Error::into_core)?;
    let remote = spool_s3::SharedStore::connect(&settings).map_err(spool_s3::S3Error::into_core)?;
    store.set_remote(std::sync::Arc::new(remote));
    Ok(store)
}

/// The `[store]` table of the settings file: `SPOOL_CONFIG`, else the file `spool wrap
/// --config` names, else `SPOOL_HOME/spool.toml` if there is one.
fn store_section(
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Option<spool_s3::StoreSection>, Error> {
    #[derive(serde::Deserialize)]
    struct File {
        store: Option<spool_s3::StoreSection>,
    }
    let Some((path, text)) = settings_text(home, config_file)? else {
        return Ok(None);
    };
    let file: File = toml::from_str(&text).map_err(|e| Error::InvalidArgument {
        message: format!("`{}`: {e}", path.display()).into(),
        hint: Some(
            "`[store]` takes `url` (s3://BUCKET/PREFIX), `endpoint`, `region`, `path_style` and `stale_after_s`; credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".into(),
        ),
    })?;
    Ok(file.store)
}

/// Where `ci_log` reads GitHub Actions: `GITHUB_API_URL` and `GITHUB_TOKEN` (or `GH_TOKEN`),
/// or the `[ci]` table of the settings file (`api_url`, and `token_env`: the name of the
/// variable that holds the token, never the token itself).
pub fn ci_options() -> Result<spool_fetch::github::CiOptions, Error> {
    ci_options_in(&Store::default_home())
}

/// [`ci_options`], with the settings file of the store in `home`.
pub fn ci_options_in(home: &std::path::Path) -> Result<spool_fetch::github::CiOptions, Error> {
    #[derive(serde::Deserialize)]
    struct File {
        ci: Option<spool_fetch::github::CiSection>,
    }
    let section = match settings_text(home, None)? {
        Some((path, text)) => {
            toml::from_str::<File>(&text)
                .map_err(|e| Error::InvalidArgument {
                    message: format!("`{}`: {e}", path.display()).into(),
                    hint: Some(
                        "`[ci]` takes `api_url` and `token_env` (the name of the variable that holds the token)".into(),
                    ),
                })?
                .ci
        }
        None => None,
    };
    Ok(spool_fetch::github::CiOptions::from_env_and(
        section.as_ref(),
    ))
}

/// The settings file and its text: `SPOOL_CONFIG`, else `config_file`, else
/// `HOME/spool.toml` of the store's home if there is one.
fn settings_text(
    home: &std::path::Path,
    config_file: Option<&std::path::Path>,
) -> Result<Option<(std::path::PathBuf, String)>, Error> {
    let named = std::env::var_os("SPOOL_CONFIG").map(std::path::PathBuf::from);
    let must_exist = named.is_some() || config_file.is_some();
    let path = match named {
        Some(p) => p,
        None => match config_file {
            Some(p) => p.to_owned(),
            None => home.join("spool.toml"),
        },
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(Some((path, text))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => Ok(None),
        Err(e) => Err(Error::InvalidArgument {
            message: format!("cannot read `{}`: {e}", path.display()).into(),
            hint: Some("name a readable settings file, or unset `SPOOL_CONFIG`".into()),
        }),
    }
}

/// How often a long-running command (`serve`, `wrap`) ships its audit rows.
const AUDIT_SHIPPING: std::time::Duration = std::time::Duration::from_secs(5);

fn ship_audit(store: &Store) {
    if let Err(e) = spool_core::audit::ship(store) {
        tracing::warn!(error = %e, "the audit rows stay on this machine until the next shipment");
    }
}

/// Ships audit rows in the background while the command runs (for servers; a short command
/// ends before the first round, and ships once at its end).
fn ship_audit_every(store: std::sync::Arc<Store>, every: std::time::Duration) {
    let spawned = std::thread::Builder::new()
        .name("spool-audit-shipping".into())
        .spawn(move || {
            loop {
                std::thread::sleep(every);
                ship_audit(&store);
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "audit rows will be shipped only when the command ends");
    }
}

fn wrap_config(command: &cli::Command) -> Option<&std::path::Path> {
    match command {
        cli::Command::Wrap(args) => args.config.as_deref(),
        _ => None,
    }
}

/// The command line as typed, after the program's name (a bad flag is audited with it).
static COMMAND_LINE: OnceLock<Vec<String>> = OnceLock::new();

/// The command line `main_with` was given, after the program's name.
pub(crate) fn command_line() -> Vec<String> {
    COMMAND_LINE.get().cloned().unwrap_or_default()
}

/// Opens the store the command uses: in `home` (default: `SPOOL_HOME`, else the platform's
/// data directory), sized by `SPOOL_TTL`, `SPOOL_QUOTA` and `SPOOL_CACHE`, with the shared
/// store of `SPOOL_STORE`, `SPOOL_CONFIG` or `home/spool.toml` behind it.
pub fn open_store(home: Option<&std::path::Path>) -> Result<Store, Error> {
    let home = home.map_or_else(Store::default_home, std::path::Path::to_path_buf);
    let store = Store::open(&home, store_config()?)?;
    shared(store, &home, None)
}

/// Runs the `spool` command with `args` (the first is the program's name) and returns its
/// exit code. `--help`, `--version` and a malformed command line print and exit the process,
/// as every command-line program does.
pub fn main_with<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString>,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // Started as the box a jq program runs in: nothing else of the command runs.
    if let Some(code) = spool_core::jq_box::enter(&args) {
        return code;
    }
    let _ = COMMAND_LINE.set(
        args.iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    );
    let cli = cli::Cli::parse_from(args);
    // A file size limit (`ulimit -f`) must make a write fail, not kill spool without a word:
    // a handler in place of the default action turns SIGXFSZ into an EFBIG error, which the
    // capture records (the bytes it got stay; the artifact ends interrupted and says why).
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    // A second run in one process (the Python package) keeps the first subscriber. Lines are
    // queued, never written by the task that logs (a stderr nobody reads must not stall it).
    let _ = tracing_subscriber::fmt()
        .with_writer(log::Stderr::get())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SPOOL_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .try_init();
    let as_json = commands::wants_json(&cli.command);
    let result = store_config()
        .and_then(|config| Store::open(&Store::default_home(), config))
        .and_then(|store| shared(store, &Store::default_home(), wrap_config(&cli.command)))
        .and_then(|store| {
            let store = std::sync::Arc::new(store);
            if store.is_shared() {
                ship_audit_every(std::sync::Arc::clone(&store), AUDIT_SHIPPING);
            }
            let code = commands::dispatch(&store, cli.command);
            // The answers this command gave join every machine's audit before it exits.
            ship_audit(&store);
            code
        });
    log::Stderr::drain(std::time::Duration::from_millis(200));
    match result {
        Ok(code) => code,
        Err(err) => {
            output::error(&err, as_json);
            exit_code_for(&err)
        }
    }
}
