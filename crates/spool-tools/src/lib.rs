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
use spool_core::{Error, ErrorCode, Store};
pub use spool_toolset::config::{ci_options, ci_options_in, open_store};

/// The exit code of a command that failed with `err` (documented in `spool --help`).
pub fn exit_code_for(err: &Error) -> u8 {
    exit_code_of(err.code())
}

/// The exit code of an error with `code`.
fn exit_code_of(code: ErrorCode) -> u8 {
    match code {
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
    let spawned = spool_walk::workers::spawn("audit-shipping", move || {
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
    // The man page and completions need no store (a packager runs this at build time).
    if let cli::Command::Generate(a) = &cli.command {
        return match commands::generate::generate(a) {
            Ok(code) => code,
            Err(err) => {
                output::error(&err, false);
                exit_code_for(&err)
            }
        };
    }
    if matches!(cli.command, cli::Command::Serve(_) | cli::Command::Wrap(_)) {
        // A command `run` starts is this process's child: it could read the server's own
        // environment, tokens and all, at /proc/$PPID/environ (issue 58). Not dumpable, the
        // process's /proc files are the superuser's alone.
        if let Err(e) = nix::sys::prctl::set_dumpable(false) {
            tracing::warn!(error = %e, "could not keep this process's environment from its commands");
        }
    }
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
    let result =
        spool_toolset::config::open_store_with(None, wrap_config(&cli.command)).and_then(|store| {
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

#[cfg(test)]
mod tests {
    use spool_core::ErrorCode;

    /// `spool --help` lists every error code with the exit code the command gives for it.
    #[test]
    fn the_help_lists_every_error_code_with_its_exit_code() {
        let help = crate::cli::EXIT_CODES;
        for code in ErrorCode::ALL {
            let listed = format!("{}   {}", super::exit_code_of(code), code.as_str());
            assert!(help.contains(&listed), "`{listed}` is not in:\n{help}");
        }
    }

    /// Every tool of the table is a `spool` subcommand (`list` is `ls`, `ci_log` is `ci-log`):
    /// a tool added to the table without its command fails here.
    #[test]
    fn every_tool_of_the_table_is_a_subcommand() {
        use clap::CommandFactory as _;
        let cli = crate::cli::Cli::command();
        for entry in &spool_toolset::TOOLS {
            let name = match entry.name {
                "list" => "ls".to_owned(),
                other => other.replace('_', "-"),
            };
            assert!(
                cli.find_subcommand(&name).is_some(),
                "`{}` has no `spool {name}`",
                entry.name
            );
        }
    }
}
