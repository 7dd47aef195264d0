//! The server's side of the box: starts the child, streams it the program and the input, reads
//! its output as it comes (stopping it at its output bound), and kills it at its deadline or when
//! the call is cancelled. The server's own memory holds at most the output; the input streams
//! through from the store.

use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{BOX_ENV, Bound, Ended, Limits, OUTPUT_MARK, STATUS_MARK, Status};

/// How often the wall clock and the cancel flag are looked at while the child runs.
const TICK: Duration = Duration::from_millis(10);

/// What of the child's stderr is kept: its status line and a panic's words.
const STDERR_KEPT: usize = 64 << 10;

/// The environment the child keeps (a Python launcher needs its paths; nothing else is passed).
const KEPT_ENV: [&str; 4] = ["PATH", "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH"];

/// Runs `program` over what `input` reads in the box. An error reading `input` (a corrupt
/// artifact) is returned as it is, whatever the child did.
pub fn run(
    program: &str,
    input: &mut (dyn Read + Send),
    cancel: Option<&AtomicBool>,
) -> std::io::Result<Ended> {
    run_limited(program, input, cancel, Limits::DEFAULT)
}

/// [`run`] in a box of `limits` (each no more than the default).
pub fn run_limited(
    program: &str,
    input: &mut (dyn Read + Send),
    cancel: Option<&AtomicBool>,
    limits: Limits,
) -> std::io::Result<Ended> {
    let limits = limits.within();
    // At most this many boxes at once: each may take its memory bound, and the server holds
    // each one's output. A call waits its turn (cancel still ends the wait).
    let _slot = Slot::take(cancel)?;
    let launcher = super::launcher()?;
    let mut command = Command::new(&launcher.program);
    command
        .args(&launcher.args)
        .env_clear()
        .env(BOX_ENV, "1")
        // Nothing of the server's working directory (a workspace) is the child's.
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for name in KEPT_ENV {
        if let Some(v) = std::env::var_os(name) {
            command.env(name, v);
        }
    }
    let mut child = command.spawn().map_err(|e| {
        std::io::Error::other(crate::Error::Unavailable {
            what: "the jq box".into(),
            cause: format!(
                "`{}` could not be started as it: {e}",
                launcher.program.display()
            ),
        })
    })?;
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(std::io::Error::other("the box's pipes were not opened"));
    };
    let over = AtomicBool::new(false);
    let mut head = serde_json::to_vec(&serde_json::json!({ "jq": program, "limits": limits }))?;
    head.push(b'\n');
    std::thread::scope(|s| {
        let feeding =
            spool_walk::workers::spawn_scoped(s, "jq-input", move || -> std::io::Result<()> {
                // A child that ended early closes its stdin: the rest is not needed, not an error.
                match stdin
                    .write_all(&head)
                    .and_then(|()| std::io::copy(input, &mut stdin))
                {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                    other => other.map(drop),
                }
            });
        let reading = spool_walk::workers::spawn_scoped(s, "jq-output", || {
            read_output(stdout, &over, limits.output)
        });
        let errors = spool_walk::workers::spawn_scoped(s, "jq-errors", move || read_kept(stderr));
        let (feeding, reading, errors) = match (feeding, reading, errors) {
            (Ok(f), Ok(r), Ok(e)) => (f, r, e),
            (Err(e), ..) | (_, Err(e), _) | (.., Err(e)) => {
                // The box is not run without all three: it is stopped, and the threads that
                // started end with its pipes.
                let _ = child.kill();
                let _ = child.wait();
                return Err(std::io::Error::other(crate::Error::no_thread(
                    "the jq box",
                    &e,
                )));
            }
        };
        let (killed_for, code) = watch(&mut child, &over, cancel, limits.time);
        let fed = feeding.join().unwrap_or(Ok(()));
        let out = reading.join().unwrap_or_default();
        let said = errors.join().unwrap_or_default();
        // Output past the bound voids the run, even when the child ended on its own first.
        let killed_for =
            killed_for.or_else(|| over.load(Ordering::Relaxed).then_some(Killed::Output));
        // What the store gave is checked first: a corrupt input makes the whole run void.
        fed?;
        Ok(ended(killed_for, code, out, &said))
    })
}

/// Boxes running at once, in this process.
static RUNNING: (std::sync::Mutex<usize>, std::sync::Condvar) =
    (std::sync::Mutex::new(0), std::sync::Condvar::new());

/// The most boxes at once: 4 x (1 GiB in the child, 64 MiB of output here).
const MAX_RUNNING: usize = 4;

/// A place among the boxes running, given back when dropped.
struct Slot;

/// The longest a program waits for a box: as long as one box may run, so a wait longer than
/// this means others are queued before it. It is then answered busy, nothing done, rather than
/// wait without end behind them (12 never-ending programs made a 13th wait 29 s, issue 58).
const MAX_SLOT_WAIT: Duration = super::MAX_TIME;

impl Slot {
    fn take(cancel: Option<&AtomicBool>) -> std::io::Result<Self> {
        Self::take_within(cancel, MAX_SLOT_WAIT)
    }

    fn take_within(cancel: Option<&AtomicBool>, wait: Duration) -> std::io::Result<Self> {
        let (count, freed) = &RUNNING;
        let since = Instant::now();
        let mut running = count
            .lock()
            .map_err(|_| std::io::Error::other("the count of boxes was poisoned"))?;
        while *running >= MAX_RUNNING {
            if since.elapsed() >= wait {
                return Err(std::io::Error::other(crate::Error::Busy {
                    what: "the jq program".into(),
                    why: format!(
                        "all {MAX_RUNNING} jq boxes were taken for the {} s it waited",
                        wait.as_secs()
                    ),
                    retry_after_s: 10,
                }));
            }
            if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                return Err(std::io::Error::other(crate::Error::Unavailable {
                    what: "the jq program".into(),
                    cause: "the call was cancelled while it waited for a box".into(),
                }));
            }
            running = freed
                .wait_timeout(running, TICK * 10)
                .map_err(|_| std::io::Error::other("the count of boxes was poisoned"))?
                .0;
        }
        *running += 1;
        Ok(Self)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let (count, freed) = &RUNNING;
        if let Ok(mut running) = count.lock() {
            *running = running.saturating_sub(1);
        }
        freed.notify_one();
    }
}

/// Why the parent killed the child.
#[derive(Debug, Clone, Copy)]
enum Killed {
    Clock,
    Output,
    Cancel,
}

/// Waits for the child, killing it at the deadline, on cancel, or when its output is over.
fn watch(
    child: &mut Child,
    over: &AtomicBool,
    cancel: Option<&AtomicBool>,
    time: Duration,
) -> (Option<Killed>, Option<std::process::ExitStatus>) {
    let deadline = Instant::now() + time;
    let mut killed = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (killed, Some(status)),
            Ok(None) => {}
            Err(_) => {
                let _ = child.kill();
                return (killed, child.wait().ok());
            }
        }
        if killed.is_none() {
            killed = if over.load(Ordering::Relaxed) {
                Some(Killed::Output)
            } else if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                Some(Killed::Cancel)
            } else if Instant::now() >= deadline {
                Some(Killed::Clock)
            } else {
                None
            };
            if killed.is_some() {
                let _ = child.kill();
            }
        }
        std::thread::sleep(TICK);
    }
}

/// The child's output after its mark, up to `max` and a byte (which says it passed).
fn read_output(mut stdout: impl Read, over: &AtomicBool, max: usize) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut started = None;
    loop {
        let n = match stdout.read(&mut buf) {
            Ok(0) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // Output that broke off is not all of it: the run is void (said as the output's
            // bound would be, never stored as complete).
            Err(_) => {
                over.store(true, Ordering::Relaxed);
                break;
            }
            Ok(n) => n,
        };
        got.extend_from_slice(&buf[..n]);
        if started.is_none()
            && let Some(at) = memchr::memmem::find(&got, OUTPUT_MARK)
        {
            got.drain(..at + OUTPUT_MARK.len());
            started = Some(());
        }
        // Before the mark only a test binary's few words come; past a page, nothing will.
        let limit = if started.is_some() { max } else { 1 << 16 };
        if got.len() > limit {
            over.store(true, Ordering::Relaxed);
            got.truncate(limit + 1);
            break;
        }
    }
    if started.is_none() {
        got.clear();
    }
    got
}

fn read_kept(stderr: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut rest = std::io::sink();
    let mut stderr = stderr;
    let _ = (&mut stderr)
        .take(STDERR_KEPT as u64)
        .read_to_end(&mut kept);
    let _ = std::io::copy(&mut stderr, &mut rest);
    kept
}

/// How the run ended, from why it was killed, its exit, its output and its words.
fn ended(
    killed: Option<Killed>,
    code: Option<std::process::ExitStatus>,
    mut out: Vec<u8>,
    said: &[u8],
) -> Ended {
    let values = || memchr::memchr_iter(b'\n', &out).count() as u64;
    match killed {
        Some(Killed::Cancel) => return Ended::Cancelled,
        Some(Killed::Clock) => {
            return Ended::Bound {
                bound: Bound::Time,
                values: values(),
            };
        }
        Some(Killed::Output) => {
            return Ended::Bound {
                bound: Bound::Output,
                values: values(),
            };
        }
        None => {}
    }
    let status = said
        .split(|b| *b == b'\n')
        .rev()
        .find_map(|line| line.strip_prefix(&[STATUS_MARK]))
        .and_then(|line| serde_json::from_slice::<Status>(line).ok());
    let words = String::from_utf8_lossy(said);
    match status {
        Some(Status::Done { read_as, values }) => {
            // Only whole lines are output: a child cut off mid-line said so by its status.
            let whole = memchr::memrchr(b'\n', &out).map_or(0, |i| i + 1);
            out.truncate(whole);
            Ended::Done {
                out,
                read_as,
                values,
            }
        }
        Some(Status::Compile { why }) => Ended::Compile(why),
        Some(Status::NotJson { why }) => Ended::NotJson(why),
        Some(Status::TooDeep { byte, line }) => Ended::TooDeep { byte, line },
        Some(Status::Failed { values, why }) => Ended::Failed { values, why },
        Some(Status::Panic { why }) => Ended::Broke(format!("jaq failed on it ({why})")),
        Some(Status::Refused { why }) => Ended::BoxFailed(why),
        None => {
            // A process that is not a Rust `main` (Python's) has no stack-overflow handler of
            // Rust's to say so: safe code's only segfault is its stack's guard page.
            let bound = if words.contains("has overflowed its stack")
                || signal_of(code) == Some(nix::sys::signal::Signal::SIGSEGV as i32)
            {
                Some(Bound::Stack)
            } else if words.contains("memory allocation of") || words.contains("out of memory") {
                Some(Bound::Memory)
            } else if signal_of(code) == Some(nix::sys::signal::Signal::SIGXCPU as i32)
                || signal_of(code) == Some(nix::sys::signal::Signal::SIGKILL as i32)
            {
                Some(Bound::Time)
            } else {
                None
            };
            match bound {
                Some(bound) => Ended::Bound {
                    bound,
                    values: values(),
                },
                None => Ended::BoxFailed(format!(
                    "the box ended without saying how ({}){}",
                    code.map_or("its exit was not seen".to_owned(), |c| c.to_string()),
                    last_words(&words)
                )),
            }
        }
    }
}

fn signal_of(code: Option<std::process::ExitStatus>) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    code.and_then(|c| c.signal())
}

/// The child's last line of words, if it said any.
fn last_words(words: &str) -> String {
    words
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| format!(": {}", l.chars().take(300).collect::<String>()))
        .unwrap_or_default()
}
