//! `map`'s arguments, as a model sends them and as a person types them (`spool map PATH`), and
//! the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

// The arguments of `map`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// A repository or directory inside the allowed roots (default: the first root). A file
    /// maps as its outline: every definition in it, by line.
    #[serde(default)]
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: Option<String>,
    /// Cap of this answer in tokens (default 1024): the files that fit, best first; the rest
    /// by `cursor`.
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(
        long,
        value_name = "N",
        help = "Cap of the answer, in tokens (default 1,024)"
    )]
    pub max_tokens: Option<u64>,
    /// Files (paths under `path`) or symbols (names) the task is about: ranked first, and the
    /// code around them ranked up.
    #[serde(default)]
    #[arg(long, value_name = "FILE|SYMBOL")]
    pub focus: Vec<String>,
    /// The next part of the map: the `cursor` of the previous answer's `next`, unchanged (with
    /// the same `path` and `focus`).
    #[serde(default)]
    #[arg(long)]
    pub cursor: Option<String>,
}

impl Arguments for MapParams {
    const TOOL: ToolName = ToolName::Map;
    const ORDER: &'static [&'static str] = &["path", "focus", "cursor", "max_tokens"];
}

impl MapParams {
    /// A map of `path`, ranked toward `focus`.
    pub fn of(path: impl Into<String>, focus: &[String]) -> Self {
        Self {
            path: Some(path.into()),
            focus: focus.to_vec(),
            ..Self::default()
        }
    }
}

/// The definition of `spool map`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| MapParams::augment_args(Command::new("map")))
}

/// `p` as a `spool map` command line.
pub(super) fn command_line(p: &MapParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.value("path", p.path.as_deref().unwrap_or("."))
        .fields(&super::listed(p), &["path"]);
    line.text()
}
