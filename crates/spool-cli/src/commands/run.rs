//! `spool run -- CMD ARGS...`

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use serde_json::json;
use spool_core::exec::{RunControl, RunSpec};
use spool_core::window::{WindowRequest, window};
use spool_core::{Error, Store, audit};

use super::{audited, elapsed_ms};
use crate::cli::RunArgs;
use crate::output;

pub fn run(store: &Store, args: &RunArgs) -> Result<u8, Error> {
    let started = Instant::now();
    let timeout = match args.timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(Error::InvalidArgument {
                message: format!("`--timeout` must be a positive number of seconds (got {t})"),
                hint: Some("for example `--timeout 30`".into()),
            });
        }
        t => t.map(Duration::from_secs_f64),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&cancel)).map_err(|e| {
            Error::Unavailable {
                what: "signal handling".into(),
                cause: e.to_string(),
            }
        })?;
    }
    let spec = RunSpec {
        argv: args.argv.clone(),
        command: None,
        cwd: args.cwd.clone(),
        cwd_fd: None,
        timeout,
        stdin: None,
    };
    let outcome = spool_core::exec::run(
        store,
        &spec,
        RunControl {
            cancel,
            progress: None,
            // With a shared store, other machines can read the output while it grows: they
            // need its ref now, not when the command ends.
            started: store.is_shared().then(|| {
                Box::new(|reference: &str| {
                    eprintln!(
                        "spool: storing the output as {reference}; other machines on the shared store can read it while it runs"
                    );
                }) as spool_core::exec::OnStarted
            }),
        },
    )?;
    let reader = store.open_artifact(&outcome.meta.reference)?;
    let envelope = window(
        &reader,
        WindowRequest::Preview(args.preview.map(Into::into)),
        super::cap(args.max_tokens, args.common.json),
    )?;
    let arguments = json!({ "argv": args.argv, "preview": args.preview.map(|p| format!("{p:?}")), "max_tokens": args.max_tokens });
    audited(audit::record_envelope(
        store,
        "run",
        &arguments,
        &envelope,
        elapsed_ms(started),
    ));
    output::envelope(&envelope, args.common.json);
    Ok(if outcome.cancelled {
        130
    } else if outcome.timed_out {
        124
    } else if let Some(sig) = outcome.signal {
        u8::try_from(128 + sig).unwrap_or(255)
    } else {
        // Exit codes are 0-255 on Unix; `code()` is already in that range.
        u8::try_from(outcome.exit_code.unwrap_or(1) & 0xff).unwrap_or(1)
    })
}
