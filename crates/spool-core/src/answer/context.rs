//! Where a tool's engine runs: the store, the roots reads stay inside, the caps and limits of
//! the caller. Built in one place, by the tool set (spool-toolset), for every front end.

use std::time::Duration;

use crate::fit::Cap;
use crate::store::Store;
use spool_walk::roots::Roots;

/// Where the tools run: the store, the roots reads stay inside, and the caller's limits.
pub struct Context<'a> {
    pub store: &'a Store,
    pub roots: &'a Roots,
    /// The cap of an answer that asked for `max_tokens` (the caller's default when absent).
    pub cap: &'a dyn Fn(Option<u64>) -> Cap,
    /// The time a command may run: its default, and the most a call may ask for (none: any).
    pub run_timeout: Option<Duration>,
    pub run_timeout_max: Option<Duration>,
    /// The time budget of a directory search.
    pub search_budget: Duration,
    /// Variables a command gets though their names look secret (the operator's).
    pub env_pass: &'a [String],
}
