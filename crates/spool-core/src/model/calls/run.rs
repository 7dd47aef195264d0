//! `run`'s arguments, as a model sends them and as a person types them (`spool run -- CMD
//! ARGS...`), and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_MAX_TOKENS, MIN_MAX_TOKENS, PreviewArg, ToolName};

// The arguments of `run`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// A command line, run by `sh -c`. Give this or `argv`.
    #[serde(default)]
    #[arg(skip)]
    pub command: Option<String>,
    /// The program and its arguments, run without a shell. Give this or `command`.
    #[serde(default)]
    #[arg(
        last = true,
        required = true,
        value_name = "CMD",
        help = "The command and its arguments"
    )]
    pub argv: Option<Vec<String>>,
    /// Working directory, inside the allowed roots (default: the first root).
    #[serde(default)]
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// Stop the command after this many seconds (default 600).
    #[serde(default)]
    #[arg(long = "timeout", value_name = "S")]
    pub timeout_s: Option<f64>,
    /// Text given to the command on its standard input.
    #[serde(default)]
    #[arg(skip)]
    pub stdin: Option<String>,
    /// Which part of the output to show: `head`, `tail` or `head_tail` (default; on failure the
    /// real last lines are always shown).
    #[serde(default)]
    #[arg(long, value_enum, help = "Which part of the output to show")]
    pub preview: Option<PreviewArg>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for RunParams {
    const TOOL: ToolName = ToolName::Run;
    const ORDER: &'static [&'static str] = &[
        "command",
        "argv",
        "cwd",
        "timeout_s",
        "stdin",
        "preview",
        "max_tokens",
    ];
}

/// The definition of `spool run`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| RunParams::augment_args(Command::new("run")))
}

/// The argument of `spool run` that says the field `name`.
pub(super) fn cli_id(name: &str) -> &str {
    match name {
        "command" => "argv",
        other => other,
    }
}

/// `p` as a `spool run` command line: a `command` runs as `sh -c COMMAND`.
pub(super) fn command_line(p: &RunParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    let argv = match (&p.command, &p.argv) {
        (Some(command), _) => vec!["sh".to_owned(), "-c".to_owned(), command.clone()],
        (None, Some(argv)) => argv.clone(),
        (None, None) => Vec::new(),
    };
    line.values("argv", argv);
    if p.stdin.is_some() {
        line.cannot("stdin");
    }
    line.fields(&super::listed(p), &["command", "argv", "stdin"]);
    line.text()
}
