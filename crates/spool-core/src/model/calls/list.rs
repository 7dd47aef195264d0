//! `list`'s arguments, as a model sends them and as a person types them (`spool ls PATH`),
//! and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_ENTRIES, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

/// The command that lists a directory: `spool ls`.
pub const LIST_COMMAND: &str = "ls";

// The arguments of `list`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// A directory inside the allowed roots (default: the first root).
    #[serde(default)]
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: Option<String>,
    /// Only entries whose name or path matches this glob, e.g. `*.md`.
    #[serde(default)]
    #[arg(long)]
    pub glob: Option<String>,
    /// Include subdirectories (respecting .gitignore, skipping hidden files; says how many).
    #[serde(default)]
    #[arg(short, long)]
    pub recursive: bool,
    /// With `recursive`: include hidden and .gitignored entries too.
    #[serde(default)]
    #[arg(long, requires = "recursive")]
    pub hidden: bool,
    /// Entries per page (default 200, at most 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_ENTRIES))]
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

impl Arguments for ListParams {
    const TOOL: ToolName = ToolName::List;
    const ORDER: &'static [&'static str] = &[
        "path",
        "glob",
        "recursive",
        "hidden",
        "limit",
        "cursor",
        "max_tokens",
    ];
}

impl ListParams {
    /// A listing of the directory `path`.
    pub fn of(path: impl Into<String>) -> Self {
        Self {
            path: Some(path.into()),
            ..Self::default()
        }
    }
}

/// The definition of `spool ls`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| ListParams::augment_args(Command::new(LIST_COMMAND)))
}

/// `p` as a `spool ls` command line.
pub(super) fn command_line(p: &ListParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.value("path", p.path.as_deref().unwrap_or("."))
        .fields(&super::listed(p), &["path"]);
    line.text()
}
