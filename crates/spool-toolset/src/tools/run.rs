//! `run`: a command run, its whole output stored (stdout and stderr in arrival order), its
//! preview shown; and how it ended, for a front end that exits with its code.

use std::sync::Arc;
use std::time::Duration;

use spool_core::answer::Answer;
use spool_core::calls::{RunParams, ToolName};
use spool_core::dialect::Words;
use spool_core::exec::{RunControl, RunSpec};
use spool_core::window::{WindowRequest, window};
use spool_core::{Error, Result};

use crate::tool::{Call, Hints, Output, Progress, Tool};

/// `run`.
pub struct Run;

const DESCRIPTION: &str = "Run a command and keep all of its output. stdout and stderr are stored whole, in arrival \
order, as an artifact kept for 7 days. The answer shows the head and the real tail of the output \
with the total line count, names the lines not shown, and gives the calls that read them \
(`read` with the ref and a line) or search all of it (`search` with the ref). On failure the \
last lines are always shown. The version records exit code, signal, timeout and duration. \
Prefer this to piping output through head, tail or grep: nothing is lost.";

impl Tool for Run {
    type Params = RunParams;
    const TITLE: &'static str = "Run a command";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints {
        read_only: false,
        destructive: true,
        open_world: true,
    };
    const OUTPUT: Output = Output::Envelope;

    /// As given, but `stdin` as its start and size: it may be tens of MB, and the audit keeps
    /// only a string's start (copying it whole first held it once more while the call ran).
    fn audited(p: &RunParams) -> serde_json::Value {
        let without = RunParams {
            command: p.command.clone(),
            argv: p.argv.clone(),
            cwd: p.cwd.clone(),
            timeout_s: p.timeout_s,
            stdin: None,
            preview: p.preview,
            max_tokens: p.max_tokens,
        };
        let mut audited = serde_json::to_value(&without).unwrap_or(serde_json::Value::Null);
        if let (Some(stdin), Some(fields)) = (&p.stdin, audited.as_object_mut()) {
            let start = stdin.floor_char_boundary(512);
            let kept = if start == stdin.len() {
                stdin.clone()
            } else {
                format!(
                    "{}… [{} bytes in all; the audit keeps the first {start}]",
                    &stdin[..start],
                    spool_core::numbers::thousands(stdin.len() as u64)
                )
            };
            fields.insert("stdin".into(), kept.into());
        }
        audited
    }

    fn answer(call: Call<'_>, p: RunParams) -> Result<Answer> {
        let Call { cx, control, .. } = call;
        let (argv, command) = match (p.argv, p.command) {
            (Some(argv), None) if !argv.is_empty() => (argv, None),
            (None, Some(c)) if !c.trim().is_empty() => (Vec::new(), Some(c)),
            _ => {
                return Err(Error::invalid(
                    "`run` takes either `command` (a string for sh -c) or `argv` (a non-empty array)",
                    Some("for example run command=\"cargo test\"".to_owned()),
                ));
            }
        };
        // Held open from the check to the start: the command runs in the directory checked.
        let (cwd_fd, cwd) = cx.roots.open_dir(p.cwd.as_deref().unwrap_or("."))?;
        let timeout = match p.timeout_s {
            Some(t)
                if !(t.is_finite()
                    && t > 0.0
                    && cx.run_timeout_max.is_none_or(|m| t <= m.as_secs_f64())) =>
            {
                let (range, example) = match cx.run_timeout_max {
                    Some(max) => (
                        format!("between 0 and {} seconds", max.as_secs_f64()),
                        max.as_secs_f64().min(60.0),
                    ),
                    None => ("a positive number of seconds".to_owned(), 60.0),
                };
                return Err(Error::invalid_words(
                    Words::default()
                        .arg(ToolName::Run, "timeout_s")
                        .then(format!(" must be {range} (got {t})")),
                    Words::text("ask for ").arg_value(ToolName::Run, "timeout_s", example),
                ));
            }
            Some(t) => Some(Duration::from_secs_f64(t)),
            None => cx.run_timeout,
        };
        // A cap no answer can have is refused before the command runs, not after.
        let cap = (cx.cap)(p.max_tokens);
        spool_core::window::check_cap(cap.tokens)?;
        let spec = RunSpec {
            argv,
            command,
            cwd: Some(cwd),
            cwd_fd: Some(Arc::new(cwd_fd)),
            timeout,
            stdin: p.stdin.map(|s| Arc::new(s.into_bytes())),
            env_pass: cx.env_pass.to_vec(),
        };
        let mut progress = control.progress;
        let run_control = RunControl {
            cancel: control.cancel,
            progress: progress.take().map(|mut report| {
                Box::new(move |bytes, lines| report(Progress::Output { bytes, lines }))
                    as Box<dyn FnMut(u64, u64) + Send>
            }),
            started: control.started,
        };
        let outcome = spool_core::exec::run(cx.store, &spec, run_control)?;
        if let Some(ended) = control.ended {
            ended(&outcome);
        }
        let reader = cx.store.open_artifact(&outcome.meta.reference)?;
        let preview = p.preview.map(Into::into);
        let made = window(&reader, WindowRequest::Preview(preview), cap);
        let envelope = spool_core::window::or_bare(&reader, cap, made)?;
        Ok(Answer::Envelope(Box::new(envelope)))
    }
}
