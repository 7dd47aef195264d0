//! Runs a command and captures all of its output into one artifact, in arrival order.
//!
//! stdout and stderr are read by two threads that hand whole lines (or 64 KiB pieces of a
//! longer line) to the writer through a bounded channel, so memory stays flat however much the
//! command prints, and lines from the two streams are not interleaved mid-line.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::clock;
use crate::envelope::{ArtifactState, NextCall, Source, SourceKind};
use crate::error::{Error, Result};
use crate::store::{ArtifactMeta, NewArtifact, Store, Stream};

const PIECE: usize = 64 * 1024;
/// How long a stopped command gets between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_secs(2);
/// How long to keep reading after the command exited while a background process holds the pipes.
const LINGER: Duration = Duration::from_secs(1);

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    /// The program and its arguments; or empty when `command` is set.
    pub argv: Vec<String>,
    /// A command line run by `sh -c`.
    pub command: Option<String>,
    pub cwd: Option<PathBuf>,
    pub timeout: Option<Duration>,
    pub stdin: Option<Vec<u8>>,
}

impl RunSpec {
    fn describe(&self) -> String {
        match &self.command {
            Some(c) => c.clone(),
            None => self
                .argv
                .iter()
                .map(|a| {
                    if !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
                        a.clone()
                    } else {
                        format!("'{}'", a.replace('\'', "'\\''"))
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn redo(&self) -> NextCall {
        let mut args = vec![];
        match &self.command {
            Some(c) => args.push(("command", json!(c))),
            None => args.push(("argv", json!(self.argv))),
        }
        if let Some(cwd) = &self.cwd {
            args.push(("cwd", json!(cwd.display().to_string())));
        }
        NextCall::new("run", args)
    }
}

/// Lets the caller stop a run and watch it grow.
#[derive(Default)]
pub struct RunControl {
    /// Set to stop the command; what was captured is kept and marked `cancelled`.
    pub cancel: Arc<AtomicBool>,
    /// Called now and then with (bytes, lines) stored so far.
    pub progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub meta: ArtifactMeta,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub cancelled: bool,
}

/// Runs `spec`, storing its output; returns when the command has ended and the artifact is sealed.
pub fn run(store: &Store, spec: &RunSpec, mut control: RunControl) -> Result<RunOutcome> {
    let (program, args): (String, Vec<String>) = match &spec.command {
        Some(c) => ("sh".into(), vec!["-c".into(), c.clone()]),
        None => match spec.argv.split_first() {
            Some((p, rest)) => (p.clone(), rest.to_vec()),
            None => return Err(Error::invalid("nothing to run: give `command` or `argv`", None)),
        },
    };
    let mut cmd = Command::new(&program);
    cmd.args(&args)
        .stdin(if spec.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so stopping it stops what it started too.
        .process_group(0);
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    let started = Instant::now();
    let started_at = clock::now_ms();
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::invalid(
            format!("could not start `{program}`: no such program (or `cwd` does not exist)"),
            Some("check the program name and PATH, or run it through a shell with `command`".to_owned()),
        ),
        std::io::ErrorKind::PermissionDenied => Error::Forbidden {
            path: PathBuf::from(&program),
            reason: "permission denied when starting it".into(),
        },
        _ => Error::io(&program, e),
    })?;
    let mut version = Map::new();
    version.insert("started_at".into(), clock::rfc3339(started_at).into());
    let mut new = NewArtifact::new(Source {
        kind: SourceKind::Exec,
        desc: spec.describe(),
        version,
    });
    new.redo = Some(spec.redo());
    if let Some(cwd) = &spec.cwd {
        new.source.version.insert("cwd".into(), cwd.display().to_string().into());
    }
    let mut writer = match store.create(new) {
        Ok(w) => w,
        Err(e) => {
            signal_group(&child, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            return Err(e);
        }
    };

    let (tx, rx) = mpsc::sync_channel::<(Stream, Vec<u8>)>(16);
    let readers = [
        child.stdout.take().map(|s| spawn_reader(s, Stream::Stdout, tx.clone())),
        child.stderr.take().map(|s| spawn_reader(s, Stream::Stderr, tx.clone())),
    ];
    drop(tx);
    if let (Some(input), Some(mut pipe)) = (spec.stdin.clone(), child.stdin.take()) {
        thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }

    let deadline = spec.timeout.map(|t| started + t);
    let mut timed_out = false;
    let mut cancelled = false;
    let mut exited_at: Option<Instant> = None;
    let mut stopped_at: Option<Instant> = None;
    let mut last_progress = Instant::now();
    let mut lingered = false;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok((stream, bytes)) => writer.write_stream(stream, &bytes),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                if exited_at.is_some_and(|t| t.elapsed() >= LINGER) {
                    lingered = true;
                    break;
                }
            }
        }
        if let Some(cb) = control.progress.as_mut()
            && last_progress.elapsed() >= Duration::from_millis(250)
        {
            let (bytes, lines) = writer.progress();
            cb(bytes, lines);
            last_progress = Instant::now();
        }
        if stopped_at.is_none() {
            if control.cancel.load(Ordering::SeqCst) {
                cancelled = true;
            } else if deadline.is_some_and(|d| Instant::now() >= d) {
                timed_out = true;
            }
            if cancelled || timed_out {
                signal_group(&child, nix::sys::signal::Signal::SIGTERM);
                stopped_at = Some(Instant::now());
            }
        } else if stopped_at.is_some_and(|t| t.elapsed() >= GRACE) {
            signal_group(&child, nix::sys::signal::Signal::SIGKILL);
        }
        if exited_at.is_none() && matches!(child.try_wait(), Ok(Some(_))) {
            exited_at = Some(Instant::now());
        }
    }
    let status = child.wait().map_err(|e| Error::io(&program, e))?;
    if !lingered {
        for handle in readers.into_iter().flatten() {
            let _ = handle.join();
        }
    }
    let finished_at = clock::now_ms();
    let mut version = Map::new();
    version.insert("finished_at".into(), clock::rfc3339(finished_at).into());
    version.insert("exit_code".into(), status.code().map_or(Value::Null, Value::from));
    version.insert(
        "signal".into(),
        status.signal().map_or(Value::Null, |s| signal_name(s).into()),
    );
    version.insert("timed_out".into(), timed_out.into());
    version.insert("duration_ms".into(), (started.elapsed().as_millis() as u64).into());
    let (state, detail) = if cancelled {
        (ArtifactState::Cancelled, Some("the command was stopped on request; output up to then is stored".to_owned()))
    } else if timed_out {
        let secs = spec.timeout.map_or(0.0, |t| t.as_secs_f64());
        (ArtifactState::Interrupted, Some(format!("the command timed out after {secs} s and was stopped; output up to then is stored")))
    } else {
        (ArtifactState::Complete, None)
    };
    if lingered {
        version.insert(
            "note".into(),
            "a background process kept the output open; reading stopped 1 s after the command exited".into(),
        );
    }
    let meta = writer.finish(state, detail, version)?;
    Ok(RunOutcome {
        meta,
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        cancelled,
    })
}

fn spawn_reader<R: Read + Send + 'static>(
    mut pipe: R,
    stream: Stream,
    tx: SyncSender<(Stream, Vec<u8>)>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut buf = vec![0u8; PIECE];
        let mut pending: Vec<u8> = Vec::new();
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            pending.extend_from_slice(&buf[..n]);
            // Hand over whole lines; a line longer than a piece goes in pieces.
            let cut = match memchr::memrchr(b'\n', &pending) {
                Some(i) => i + 1,
                None if pending.len() >= PIECE => pending.len(),
                None => continue,
            };
            let rest = pending.split_off(cut);
            if tx.send((stream, std::mem::replace(&mut pending, rest))).is_err() {
                return;
            }
        }
        if !pending.is_empty() {
            let _ = tx.send((stream, pending));
        }
    })
}

fn signal_group(child: &Child, signal: nix::sys::signal::Signal) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), signal);
    }
}

fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig).map_or_else(|_| format!("signal {sig}"), |s| s.as_str().to_owned())
}
