//! What a tool is. One `impl Tool` holds all of it: the arguments a model sends (one struct:
//! serde reads it, schemars describes it from its doc comments), its name and words, its hints
//! to hosts, the shape of its answer, and its handler. The table lists each once; every front
//! end (MCP, the proxy, the CLI, Python) reaches it through that table.
//!
//! Before this, a tool was written in about 11 places (params, handler, by-name dispatch, the
//! MCP router and its descriptions, the CLI's dispatch, Python's), and the context a handler
//! runs in was built in three of them.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use spool_core::Result;
use spool_core::answer::{Answer, Context};
use spool_core::calls::Arguments;
use spool_core::exec::{OnStarted, RunOutcome};

use crate::set::Setup;

/// One tool: its arguments, its words and its handler.
pub trait Tool {
    /// The arguments, as a model sends them (JSON) and a host lists them (JSON Schema), typed
    /// in spool-core so that the calls an answer prints hold them.
    type Params: Arguments + DeserializeOwned + JsonSchema;
    /// The name a model calls it by: its arguments' tool's.
    const NAME: &'static str = <Self::Params as Arguments>::TOOL.as_str();
    /// What a host shows a person (the `title` annotation).
    const TITLE: &'static str;
    /// What the model reads about the tool: product copy, snapshot-tested in `tools/list`.
    const DESCRIPTION: &'static str;
    /// What the tool may do to the world.
    const HINTS: Hints;
    /// The shape of its answer (its output schema).
    const OUTPUT: Output;

    /// The arguments as the audit records them (a fetch keeps a URL's password out).
    fn audited(p: &Self::Params) -> Value {
        serde_json::to_value(p).unwrap_or(Value::Null)
    }

    /// The answer to `p`.
    fn answer(call: Call<'_>, p: Self::Params) -> Result<Answer>;
}

/// What a tool may do, as MCP's annotations say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// It changes nothing outside spool's store.
    pub read_only: bool,
    /// It may destroy something (said only of a tool that is not read-only).
    pub destructive: bool,
    /// It reaches past the roots (the network, a command's effects).
    pub open_world: bool,
}

impl Hints {
    /// A tool that reads what is inside the roots and the store, and nothing else.
    pub const READS: Self = Self {
        read_only: true,
        destructive: false,
        open_world: false,
    };
    /// A tool that reads from the world outside (the web, an API) and changes nothing.
    pub const READS_THE_WORLD: Self = Self {
        read_only: true,
        destructive: false,
        open_world: true,
    };
}

/// The shape of a tool's answer: each has its output schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// An envelope: a window of an artifact.
    Envelope,
    /// An envelope, or a page of items (a stored JSON list read by items).
    Window,
    /// A search answer.
    Search,
    /// A page of a directory's entries.
    Entries,
    /// A page of stored artifacts.
    Artifacts,
    /// A map: an envelope and its scope.
    Map,
}

/// What a front end lets a call report and be stopped by.
#[derive(Default)]
pub struct Control {
    /// Set to stop the call: a command stops (what it printed is kept, marked cancelled), a
    /// download or a jq program is dropped.
    pub cancel: Arc<AtomicBool>,
    /// Called now and then while the call works.
    pub progress: Option<Box<dyn FnMut(Progress) + Send>>,
    /// Called once with the ref of a command's output, as soon as it exists.
    pub started: Option<OnStarted>,
    /// Called once with how a command ended (the CLI exits with its code).
    pub ended: Option<OnEnded>,
}

impl Control {
    /// A control that only `cancel` stops.
    pub fn cancelled_by(cancel: Arc<AtomicBool>) -> Self {
        Self {
            cancel,
            ..Self::default()
        }
    }
}

/// Called once with how a command ended.
pub type OnEnded = Box<dyn FnOnce(&RunOutcome) + Send>;

/// How far a call has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A command's output stored so far.
    Output {
        /// Bytes stored.
        bytes: u64,
        /// Lines stored.
        lines: u64,
    },
    /// A page downloaded so far, and its length when the server said it.
    Download {
        /// Bytes downloaded.
        bytes: u64,
        /// The page's length, when the server said it.
        total: Option<u64>,
    },
}

/// What a handler is given: the engines' context, the tool set's settings, and the control.
pub struct Call<'a> {
    /// The store, the roots, the cap and the limits.
    pub cx: &'a Context<'a>,
    /// The tool set's settings (the network, CI).
    pub setup: &'a Setup,
    /// How the call reports and is stopped.
    pub control: Control,
}
