//! One tool call from Python: arguments parsed into the tool's typed parameters, the answer
//! produced on a thread of its own while the GIL is released, and rendered as the model
//! receives it (the MCP dialect: a harness exposes these tools to its model under the same
//! names, so every printed call is one it can make).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use pyo3::prelude::*;
use spool_core::answer::Answer;
use spool_core::render::{self, Dialect};
use spool_core::{Error, Result};

/// How often a waiting call looks for a Ctrl-C (Python handles signals only while it runs).
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// An answer as Python receives it: its structured form (as JSON text) and the text the model
/// reads (the banner, then the shown ranges with their gap markers).
pub type Answered = (String, String);

/// The structured form and the text of `answer`, or the error it is.
pub fn rendered(answer: &Answer) -> Result<Answered> {
    let Some(r) = spool_core::answer::rendered(answer, Dialect::Mcp) else {
        return Err(Error::Unavailable {
            what: "this answer".into(),
            cause: "it is the command line's alone".into(),
        });
    };
    Ok((r.structured.to_string(), r.text))
}

/// `spool.SpoolError(code, message, hint, text)` for `err`: `text` is what the model should
/// read (the error as a text-only host shows it).
pub fn error(py: Python<'_>, err: &Error) -> PyErr {
    let wire = err.to_wire(Dialect::Mcp);
    let text = render::error_text(err, Dialect::Mcp);
    let source = wire
        .error
        .source
        .as_ref()
        .map(std::string::ToString::to_string);
    let raised = py
        .import("spool._errors")
        .and_then(|m| m.getattr("SpoolError"))
        .and_then(|class| {
            class.call1((
                wire.error.code.as_str(),
                wire.error.message.clone(),
                wire.error.hint.clone(),
                text.clone(),
                source,
            ))
        });
    match raised {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

/// Runs `work` on a thread of its own with the GIL released, and waits for it. A Ctrl-C (or
/// any signal handler that raises) while it works sets `cancel` (a running command stops and
/// keeps what it printed), waits for the answer, then raises in Python; the answer is in the
/// store and the audit either way.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    cancel: &Arc<AtomicBool>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<T>(1);
    std::thread::scope(|scope| {
        let spawned = spool_walk::workers::spawn_scoped(scope, "call", move || {
            // A panic drops the sender: the wait below sees it and raises, the process stays.
            if let Ok(answer) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)) {
                let _ = tx.send(answer);
            }
        });
        if let Err(e) = spawned {
            return Err(error(py, &Error::no_thread("the call", &e)));
        }
        let mut interrupted: Option<PyErr> = None;
        let mut rx = rx;
        loop {
            // The receiver goes into the released section and comes back (it is not `Sync`).
            let (waited, back) = py.detach(move || (rx.recv_timeout(SIGNAL_POLL), rx));
            rx = back;
            match waited {
                Ok(answer) => {
                    return match interrupted {
                        Some(e) => Err(e),
                        None => Ok(answer),
                    };
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if interrupted.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        cancel.store(true, Ordering::SeqCst);
                        interrupted = Some(e);
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(interrupted.unwrap_or_else(|| {
                        pyo3::exceptions::PyRuntimeError::new_err(
                            "spool: the call ended without an answer (it panicked)",
                        )
                    }));
                }
            }
        }
    })
}
