//! `spool run -- CMD ARGS...`

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use std::sync::Mutex;

use spool_core::exec::RunOutcome;
use spool_core::{Error, Store};
use spool_toolset::Control;
use spool_toolset::tools::{Run, RunParams};

use crate::cli::RunArgs;
use crate::output;

/// The flags as the tool's arguments: the command runs where the person is, not at the root of
/// the file system.
pub fn params(args: &RunArgs) -> Result<RunParams, Error> {
    let cwd = args.call.cwd.as_deref().unwrap_or(".");
    Ok(RunParams {
        cwd: Some(super::absolute(cwd)?),
        ..args.call.clone()
    })
}

pub fn run(store: &Arc<Store>, args: &RunArgs) -> Result<u8, Error> {
    let json = args.common.json;
    let cancel = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&cancel)).map_err(|e| {
            Error::Unavailable {
                what: "signal handling".into(),
                cause: e.to_string(),
            }
        })?;
    }
    let params = || params(args);
    let ended: Arc<Mutex<Option<RunOutcome>>> = Arc::default();
    let kept = Arc::clone(&ended);
    let control = Control {
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
        ended: Some(Box::new(move |outcome: &RunOutcome| {
            if let Ok(mut slot) = kept.lock() {
                *slot = Some(outcome.clone());
            }
        })),
    };
    let mut answer = super::answered::<Run>(store, json, false, params, control)?;
    super::note_terminal_size(&mut answer, args.call.max_tokens, json);
    output::answer(&answer, json);
    let ended = ended.lock().ok().and_then(|mut slot| slot.take());
    Ok(ended.as_ref().map_or(1, exit_code))
}

/// The command's own exit status, as a shell reports it.
fn exit_code(outcome: &RunOutcome) -> u8 {
    if outcome.cancelled {
        130
    } else if outcome.timed_out {
        124
    } else if let Some(sig) = outcome.signal {
        u8::try_from(128 + sig).unwrap_or(255)
    } else {
        // Exit codes are 0-255 on Unix; `code()` is already in that range.
        u8::try_from(outcome.exit_code.unwrap_or(1) & 0xff).unwrap_or(1)
    }
}
