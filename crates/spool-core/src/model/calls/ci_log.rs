//! `ci_log`'s arguments, as a model sends them and as a person types them (`spool ci-log
//! OWNER/REPO RUN_ID`), and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

/// The command that reads a CI log: `spool ci-log`.
pub const CI_LOG_COMMAND: &str = "ci-log";

// The arguments of `ci_log`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct CiLogParams {
    /// The repository, `owner/name`.
    #[arg(value_name = "OWNER/REPO")]
    pub repo: String,
    /// The workflow run's id (the number in `.../actions/runs/ID`).
    #[arg(value_name = "RUN_ID")]
    pub run_id: u64,
    /// The attempt (1 for the first run, 2 after one re-run, ...). Default: the run's latest,
    /// read first and pinned, so that reading on never mixes two attempts.
    #[serde(default)]
    #[arg(long, value_name = "N")]
    pub attempt: Option<u64>,
    /// The job, by name or id. Default: the first failed job of the attempt, else its first.
    #[serde(default)]
    #[arg(long, value_name = "NAME|ID")]
    pub job: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for CiLogParams {
    const TOOL: ToolName = ToolName::CiLog;
    const ORDER: &'static [&'static str] = &["repo", "run_id", "attempt", "job", "max_tokens"];
}

/// The definition of `spool ci-log`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| CiLogParams::augment_args(Command::new(CI_LOG_COMMAND)))
}

/// `p` as a `spool ci-log` command line.
pub(super) fn command_line(p: &CiLogParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.value("repo", p.repo.as_str())
        .value("run_id", p.run_id.to_string())
        .fields(&super::listed(p), &["repo", "run_id"]);
    line.text()
}
