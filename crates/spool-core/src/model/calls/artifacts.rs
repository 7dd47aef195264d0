//! `artifacts`' arguments, as a model sends them and as a person types them, and the command
//! line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_ARTIFACTS, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

// The arguments of `artifacts`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct ArtifactsParams {
    /// Only artifacts of this kind: exec, fetch, file, mcp, search, text, query, ci, map.
    #[serde(default)]
    #[arg(long)]
    pub kind: Option<String>,
    /// Artifacts per page (default 50, at most 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_ARTIFACTS))]
    #[arg(long)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_PAGE_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for ArtifactsParams {
    const TOOL: ToolName = ToolName::Artifacts;
    const ORDER: &'static [&'static str] = &["kind", "limit", "cursor", "max_tokens"];
}

/// The definition of `spool artifacts`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| ArtifactsParams::augment_args(Command::new("artifacts")))
}

/// `p` as a `spool artifacts` command line.
pub(super) fn command_line(p: &ArtifactsParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.fields(&super::listed(p), &[]);
    line.text()
}
