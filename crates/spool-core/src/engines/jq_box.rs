//! A box for jq: the program runs in a child process whose time, memory, stack and output are
//! bounded by the kernel, not by a check between output values. A jq program is a program the
//! caller wrote: `def f: [f]; f` recursed until a worker's stack overflowed, and that ended
//! `spool serve` with every session in it (29 deaths in 112 hostile runs, issue 39);
//! `until(false; .)` never yielded a value to check a clock between; `def f(x): f(x+1); f(0)`
//! took 11.4 GB in a minute. In the box each of these ends the child, and the server answers
//! saying which bound was hit: time ([`MAX_TIME`], a wall clock the parent keeps and a CPU limit
//! the kernel keeps), memory ([`MAX_MEMORY`] of address space), stack ([`STACK`]), output
//! ([`MAX_OUTPUT`], counted as it arrives) and input nesting ([`depth::MAX_DEPTH`], checked
//! before parsing). Cancelling the call kills the child.
//!
//! The child is this same program started again with [`BOX_ARG`] (`spool __spool_box`): a binary
//! that embeds spool-core calls [`enter`] first in `main`, the Python package starts
//! `python -m spool._cli`, and a test binary carries [`box_entry_for_tests!`]. It reads the
//! program and the input from its stdin, writes the output (a JSON value a line) to its stdout
//! and how it ended to its stderr, and can open no file (`RLIMIT_NOFILE`), write none
//! (`RLIMIT_FSIZE`) and dump no core.
//!
//! Starting the child costs a few milliseconds (the spool binary; a Python interpreter more),
//! paid once per program and ref: the output is stored and the same program over the same ref
//! is answered from it.

mod child;
pub mod depth;
mod json_out;
mod parent;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use parent::{run, run_limited};

/// The argument that makes a spool binary the box.
pub const BOX_ARG: &str = "__spool_box";

/// Set in the child's environment: a test binary's entry serves only when it is there.
pub const BOX_ENV: &str = "SPOOL_BOX_CHILD";

/// The most output a program may make before it is stopped.
pub const MAX_OUTPUT: usize = 64 << 20;

/// How long a program may run, by the wall clock (the CPU limit is a second more).
pub const MAX_TIME: Duration = Duration::from_secs(30);

/// The child's address space: the parsed input, the program's values and the stack.
pub const MAX_MEMORY: u64 = 1 << 30;

/// The stack the program runs on: parsing and jq recurse a frame or more a level.
pub const STACK: usize = 256 << 20;

/// The longest program taken (the MCP message holding it is bounded already; this says so).
pub const MAX_PROGRAM: usize = 1 << 20;

/// The bounds a program runs within. A caller cannot choose them: the server uses
/// [`Limits::DEFAULT`]; tests and embedders may only give a smaller box (see [`Limits::within`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock time (the CPU limit is a second more).
    pub time: Duration,
    /// Address space, bytes.
    pub memory: u64,
    /// The program's stack, bytes.
    pub stack: usize,
    /// Output, bytes.
    pub output: usize,
}

impl Limits {
    pub const DEFAULT: Self = Self {
        time: MAX_TIME,
        memory: MAX_MEMORY,
        stack: STACK,
        output: MAX_OUTPUT,
    };

    /// These limits, none past the default.
    #[must_use]
    pub fn within(self) -> Self {
        Self {
            time: self.time.min(MAX_TIME),
            memory: self.memory.min(MAX_MEMORY),
            stack: self.stack.min(STACK),
            output: self.output.min(MAX_OUTPUT),
        }
    }
}

/// How the box is started: a program and its first arguments (the box's input follows on stdin).
#[derive(Debug, Clone)]
pub struct Launcher {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

static LAUNCHER: OnceLock<Launcher> = OnceLock::new();

/// Says how to start the box in this process (the Python package: its interpreter). The first
/// call wins; later ones are ignored and return false.
pub fn set_launcher(launcher: Launcher) -> bool {
    LAUNCHER.set(launcher).is_ok()
}

/// The launcher set, else this executable with [`BOX_ARG`] (for a test binary, `--nocapture`
/// lets its entry write to stdout; the spool binary ignores what follows [`BOX_ARG`]).
fn launcher() -> std::io::Result<Launcher> {
    if let Some(set) = LAUNCHER.get() {
        return Ok(set.clone());
    }
    Ok(Launcher {
        program: std::env::current_exe()?,
        args: vec![BOX_ARG.into(), "--nocapture".into()],
    })
}

/// Serves as the box and returns its exit code when `args` (the process's, its name first)
/// ask for it; `None` otherwise. Call it first in `main`.
pub fn enter<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Option<u8> {
    (args.get(1).map(AsRef::as_ref) == Some(BOX_ARG.as_ref())).then(child::serve)
}

/// Serves as the box and exits when this process was started as one; returns otherwise.
/// What [`box_entry_for_tests!`] calls.
pub fn serve_if_child() {
    if std::env::var_os(BOX_ENV).is_some() {
        std::process::exit(i32::from(child::serve()));
    }
}

/// Defines the test a test binary's box is started as (`<test binary> __spool_box`): put it in
/// every test binary whose tests run a jq program in-process. Started as the box, it serves;
/// run as a test, it checks that this binary's box answers (a program in, its output out).
#[macro_export]
macro_rules! box_entry_for_tests {
    () => {
        #[test]
        fn __spool_box() {
            $crate::jq_box::serve_if_child();
            $crate::jq_box::check_entry();
        }
    };
}

/// What [`box_entry_for_tests!`] checks when run as a test: a program run in this binary's box
/// gives its output. Panics otherwise (it is a test's assertion).
#[expect(clippy::missing_panics_doc, reason = "a test's assertion")]
pub fn check_entry() {
    let ended = run("[.[] * 2]", &mut &b"[1,2,3]"[..], None);
    assert!(
        matches!(&ended, Ok(Ended::Done { out, values: 1, .. }) if out == b"[2,4,6]\n"),
        "this binary's jq box did not answer: {ended:?}"
    );
}

/// What the child says of how it ended: the last line of its stderr, after [`STATUS_MARK`].
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum Status {
    Done { read_as: String, values: u64 },
    Compile { why: String },
    NotJson { why: String },
    TooDeep { byte: usize, line: usize },
    Failed { values: u64, why: String },
    Panic { why: String },
    Refused { why: String },
}

/// Starts the child's status line on its stderr (a panic's words may come before it).
const STATUS_MARK: u8 = 0x1e;

/// Starts the child's output on its stdout (a test binary writes its own words before it).
const OUTPUT_MARK: &[u8] = b"\x1espool-box output\n";

/// Which bound stopped a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// [`MAX_TIME`] by the wall clock, or the CPU limit.
    Time,
    /// [`MAX_MEMORY`].
    Memory,
    /// [`STACK`].
    Stack,
    /// [`MAX_OUTPUT`].
    Output,
}

/// How a program in the box ended.
#[derive(Debug)]
pub enum Ended {
    /// Its output, a JSON value a line; how the input was read (`document` or `lines`).
    Done {
        out: Vec<u8>,
        read_as: String,
        values: u64,
    },
    /// It does not compile: where and why.
    Compile(String),
    /// The input is neither JSON nor JSON lines.
    NotJson(String),
    /// The input nests deeper than [`depth::MAX_DEPTH`] at this byte and line.
    TooDeep { byte: usize, line: usize },
    /// jq raised an error (or `halt`) after `values` values.
    Failed { values: u64, why: String },
    /// A bound stopped it after `values` values.
    Bound { bound: Bound, values: u64 },
    /// The call was cancelled; the child was killed.
    Cancelled,
    /// jaq itself failed on this program (a panic).
    Broke(String),
    /// The box could not run it (not started, not bounded, ended without a word): the
    /// server's fault, not the program's.
    BoxFailed(String),
}
