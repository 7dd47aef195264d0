//! Runs a command and captures all of its output into one artifact, in arrival order.
//!
//! stdout and stderr are read by one thread that polls both pipes and writes what arrives
//! straight to the artifact: memory stays flat however much the command prints, and the order
//! of the two streams is the order in which their output became readable.

use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crate::calls::RunParams;
use crate::clock;
use crate::envelope::{ArtifactState, ExecVersion, NextCall, Source, Version};
use crate::error::{Error, Result};
use crate::store::{ArtifactMeta, ArtifactWriter, NewArtifact, Store, Stream};
use nix::poll::{PollFd, PollFlags, poll};

mod env;
mod scrub;
pub use env::{looks_secret, withheld_values};
pub use scrub::{Scrubber, forms as secret_forms};

const PIECE: usize = 1 << 20;
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
    /// The working directory as an open descriptor (from `Roots::open_dir`): the command
    /// starts in it, not in whatever `cwd` names by then (a symlink may be swapped in).
    pub cwd_fd: Option<std::sync::Arc<std::os::fd::OwnedFd>>,
    pub timeout: Option<Duration>,
    /// What the command reads on its stdin: shared with the thread that writes it, not copied
    /// (it may be tens of MB).
    pub stdin: Option<std::sync::Arc<Vec<u8>>>,
    /// Variables passed to the command though their names look secret (the operator's
    /// `--env-pass`); every other such variable is withheld (see `exec/env.rs`).
    pub env_pass: Vec<String>,
}

impl RunSpec {
    fn describe(&self) -> String {
        match &self.command {
            Some(c) => c.clone(),
            None => self
                .argv
                .iter()
                .map(|a| crate::dialect::shell_word(a))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    fn redo(&self) -> NextCall {
        NextCall::Run(RunParams {
            command: self.command.clone(),
            argv: self.command.is_none().then(|| self.argv.clone()),
            cwd: self.cwd.as_ref().map(|cwd| cwd.display().to_string()),
            ..RunParams::default()
        })
    }
}

/// Told the ref of a run's artifact as soon as it exists.
pub type OnStarted = Box<dyn FnOnce(&str) + Send>;

/// Lets the caller stop a run and watch it grow.
#[derive(Default)]
pub struct RunControl {
    /// Set to stop the command; what was captured is kept and marked `cancelled`.
    pub cancel: Arc<AtomicBool>,
    /// Called now and then with (bytes, lines) stored so far.
    pub progress: Option<Box<dyn FnMut(u64, u64) + Send>>,
    /// Called once with the artifact's ref, as soon as it exists (before the command ends).
    pub started: Option<OnStarted>,
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
            None => {
                return Err(Error::invalid(
                    "nothing to run: give `command` or `argv`",
                    None,
                ));
            }
        },
    };
    // A NUL cannot stand in a program's name, arguments or working directory.
    if program.contains('\0') || args.iter().any(|a| a.contains('\0')) {
        return Err(Error::invalid(
            "the command holds a NUL byte, which no program can be given",
            Some("remove the NUL byte from `command` or `argv`".to_owned()),
        ));
    }
    // A working directory that is not there is named as such (the program is not to blame).
    if spec.cwd_fd.is_none()
        && let Some(cwd) = &spec.cwd
    {
        match std::fs::metadata(cwd) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::invalid_words(
                    format!(
                        "`{}` is not a directory: a command cannot run in it",
                        cwd.display()
                    )
                    .into(),
                    crate::dialect::Words::text("give ")
                        .arg(crate::calls::ToolName::Run, "cwd")
                        .then(" a directory"),
                ));
            }
            Err(e) => return Err(spool_walk::roots::path_error(cwd, e).into()),
        }
    }
    let mut cmd = Command::new(&program);
    let (env, withheld) = env::for_command(&spec.env_pass);
    cmd.env_clear().envs(env);
    cmd.args(&args)
        .stdin(if spec.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so stopping it stops what it started too.
        .process_group(0);
    if let Some(fd) = &spec.cwd_fd {
        // The child changes into the directory the descriptor holds (fds stay open until exec).
        use std::os::fd::AsRawFd;
        cmd.current_dir(format!("/proc/self/fd/{}", fd.as_raw_fd()));
    } else if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    let started = Instant::now();
    let started_at = clock::now_ms();
    let mut child = cmd.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::invalid(
            format!("could not start `{program}`: no such program"),
            Some(
                "check the program name and PATH, or run it through a shell with `command`"
                    .to_owned(),
            ),
        ),
        std::io::ErrorKind::PermissionDenied => Error::Forbidden {
            path: PathBuf::from(&program),
            reason: "permission denied when starting it".into(),
        },
        _ => Error::io(&program, e),
    })?;
    let mut version = ExecVersion {
        started_at: clock::rfc3339(started_at),
        cwd: spec.cwd.as_ref().map(|c| c.display().to_string()),
        env_withheld: withheld,
        ..ExecVersion::default()
    };
    let mut new = NewArtifact::new(Source::new(spec.describe(), Version::Exec(version.clone())));
    new.redo = Some(spec.redo());
    let mut writer = match store.create(new) {
        Ok(w) => w,
        Err(e) => {
            signal_group(&child, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            return Err(e);
        }
    };
    if let Some(started) = control.started.take() {
        started(writer.reference());
    }

    if let (Some(input), Some(mut pipe)) = (
        spec.stdin.as_ref().map(std::sync::Arc::clone),
        child.stdin.take(),
    ) {
        let feeding = spool_walk::workers::spawn("stdin", move || {
            let _ = pipe.write_all(&input);
        });
        if let Err(e) = feeding {
            // Without its input the command would run on something else: it is stopped.
            signal_group(&child, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            return Err(Error::no_thread("a command's input", &e));
        }
    }
    let mut pipes = Pipes {
        stdout: child.stdout.take(),
        stderr: child.stderr.take(),
        buf: vec![0u8; PIECE],
        scrub: scrub::Scrubber::new(env::withheld_values(&spec.env_pass)),
    };
    pipes.widen();
    let mut stop = Stopper {
        deadline: spec.timeout.map(|t| started + t),
        timed_out: false,
        cancelled: false,
        stopped_at: None,
    };
    let mut exited_at: Option<Instant> = None;
    let mut last_data = Instant::now();
    let mut last_progress = Instant::now();
    let mut lingered = false;
    while pipes.open() {
        let got = pipes.pump(&mut writer)?;
        if got {
            last_data = Instant::now();
        }
        // A process that left the group may keep writing: once the command has exited and
        // been stopped a while ago, or has exited and the pipes went quiet, stop reading.
        let stopped_long_ago = stop.stopped_at.is_some_and(|t| t.elapsed() >= GRACE * 2);
        if exited_at.is_some() && stopped_long_ago
            || !got
                && exited_at.is_some_and(|t| t.elapsed() >= LINGER && last_data.elapsed() >= LINGER)
        {
            // The command is gone but something it started still holds the pipes.
            lingered = true;
            pipes.flush(Stream::Stdout, &mut writer);
            pipes.flush(Stream::Stderr, &mut writer);
            break;
        }
        if let Some(cb) = control.progress.as_mut()
            && last_progress.elapsed() >= Duration::from_millis(250)
        {
            let (bytes, lines) = writer.progress();
            cb(bytes, lines);
            last_progress = Instant::now();
        }
        stop.check(&child, &control.cancel);
        if exited_at.is_none() && matches!(child.try_wait(), Ok(Some(_))) {
            exited_at = Some(Instant::now());
        }
    }
    drop(pipes);
    // The pipes can close while the command still runs (it redirected its output): keep
    // honouring the timeout and cancellation until it has exited.
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::io(&program, e))? {
            break status;
        }
        stop.check(&child, &control.cancel);
        thread::sleep(Duration::from_millis(20));
    };
    let finished_at = clock::now_ms();
    let (timed_out, cancelled) = (stop.timed_out, stop.cancelled);
    version.finished_at = Some(clock::rfc3339(finished_at));
    version.exit_code = Some(status.code().map(i64::from));
    version.signal = Some(status.signal().map(signal_name));
    version.timed_out = Some(timed_out);
    version.duration_ms = Some(started.elapsed().as_millis() as u64);
    let (state, detail) = if cancelled {
        (
            ArtifactState::Cancelled,
            Some("the command was stopped on request; output up to then is stored".to_owned()),
        )
    } else if timed_out {
        let secs = spec.timeout.map_or(0.0, |t| t.as_secs_f64());
        (
            ArtifactState::Interrupted,
            Some(format!(
                "the command timed out after {secs} s and was stopped; output up to then is stored"
            )),
        )
    } else {
        (ArtifactState::Complete, None)
    };
    if lingered {
        version.note = Some(
            "a background process kept the output open; reading stopped 1 s after the command exited".into(),
        );
    }
    let meta = writer.finish(state, detail, Some(Version::Exec(version)))?;
    Ok(RunOutcome {
        meta,
        exit_code: status.code(),
        signal: status.signal(),
        timed_out,
        cancelled,
    })
}

/// The command's two output pipes, read from one thread in the order poll reports them.
///
/// When both have data, stdout is read first: a failing command's last words usually go to
/// stderr after its stdout, and reading in that order keeps them last.
struct Pipes {
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
    buf: Vec<u8>,
    /// The secrets withheld from the command, replaced in what it prints.
    scrub: scrub::Scrubber,
}

impl Pipes {
    /// Larger pipe buffers: fewer wake-ups when a command prints a lot (best effort).
    fn widen(&self) {
        use nix::fcntl::{FcntlArg, fcntl};
        if let Some(p) = &self.stdout {
            let _ = fcntl(p, FcntlArg::F_SETPIPE_SZ(PIECE as i32));
        }
        if let Some(p) = &self.stderr {
            let _ = fcntl(p, FcntlArg::F_SETPIPE_SZ(PIECE as i32));
        }
    }

    fn open(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }

    /// Stores what the scrubber held back of `stream`.
    fn flush(&mut self, stream: Stream, writer: &mut ArtifactWriter<'_>) {
        let rest = self.scrub.finish(stream);
        if !rest.is_empty() {
            writer.write_stream(stream, &rest);
        }
    }

    /// Waits up to 50 ms for output and stores what arrived. True when something did.
    fn pump(&mut self, writer: &mut ArtifactWriter<'_>) -> Result<bool> {
        let ready = {
            let mut fds = Vec::with_capacity(2);
            let mut which = Vec::with_capacity(2);
            if let Some(p) = &self.stdout {
                fds.push(PollFd::new(p.as_fd(), PollFlags::POLLIN));
                which.push(Stream::Stdout);
            }
            if let Some(p) = &self.stderr {
                fds.push(PollFd::new(p.as_fd(), PollFlags::POLLIN));
                which.push(Stream::Stderr);
            }
            match poll(&mut fds, 50u16) {
                Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                Err(e) => {
                    return Err(Error::Unavailable {
                        what: "the command's output".into(),
                        cause: e.to_string(),
                    });
                }
            }
            fds.iter()
                .zip(which)
                .filter(|(fd, _)| fd.revents().is_some_and(|r| !r.is_empty()))
                .map(|(_, s)| s)
                .collect::<Vec<_>>()
        };
        let mut got = false;
        for stream in ready {
            let result = match stream {
                Stream::Stdout => self.stdout.as_mut().map(|p| p.read(&mut self.buf)),
                Stream::Stderr => self.stderr.as_mut().map(|p| p.read(&mut self.buf)),
            };
            match result {
                Some(Ok(n)) if n > 0 => {
                    let clean = self.scrub.pass(stream, &self.buf[..n]);
                    writer.write_stream(stream, &clean);
                    got = true;
                }
                Some(Err(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                    ) => {}
                // End of file, or a broken pipe: this stream is done.
                _ => {
                    self.flush(stream, writer);
                    match stream {
                        Stream::Stdout => self.stdout = None,
                        Stream::Stderr => self.stderr = None,
                    }
                }
            }
        }
        Ok(got)
    }
}

/// Stops the command on timeout or cancellation: SIGTERM to its group, SIGKILL after `GRACE`.
struct Stopper {
    deadline: Option<Instant>,
    timed_out: bool,
    cancelled: bool,
    stopped_at: Option<Instant>,
}

impl Stopper {
    fn check(&mut self, child: &Child, cancel: &AtomicBool) {
        match self.stopped_at {
            None => {
                if cancel.load(Ordering::SeqCst) {
                    self.cancelled = true;
                } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                    self.timed_out = true;
                }
                if self.cancelled || self.timed_out {
                    signal_group(child, nix::sys::signal::Signal::SIGTERM);
                    self.stopped_at = Some(Instant::now());
                }
            }
            Some(t) if t.elapsed() >= GRACE => {
                signal_group(child, nix::sys::signal::Signal::SIGKILL);
            }
            Some(_) => {}
        }
    }
}

fn signal_group(child: &Child, signal: nix::sys::signal::Signal) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pid), signal);
    }
}

fn signal_name(sig: i32) -> String {
    nix::sys::signal::Signal::try_from(sig)
        .map_or_else(|_| format!("signal {sig}"), |s| s.as_str().to_owned())
}
