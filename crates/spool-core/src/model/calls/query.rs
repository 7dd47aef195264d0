//! `query`'s arguments, as a model sends them and as a person types them (`spool query REF
//! JQ`), and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_LINES, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

// The arguments of `query`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct QueryParams {
    /// The ref (`sp_...`) of stored JSON: a document, or a value a line (a list of items).
    #[serde(rename = "ref")]
    #[arg(value_name = "REF")]
    pub reference: String,
    /// A jq program, e.g. `map(select(.status == 504)) | length`.
    #[arg(value_name = "JQ", allow_hyphen_values = true)]
    pub jq: String,
    /// How many output values to show (default: as many as the cap holds).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_LINES))]
    #[arg(long)]
    pub limit: Option<u64>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for QueryParams {
    const TOOL: ToolName = ToolName::Query;
    const ORDER: &'static [&'static str] = &["ref", "jq", "limit", "max_tokens"];
}

impl QueryParams {
    /// The jq program `jq` over the stored JSON `reference`.
    pub fn new(reference: impl Into<String>, jq: impl Into<String>) -> Self {
        Self {
            reference: reference.into(),
            jq: jq.into(),
            ..Self::default()
        }
    }
}

/// The definition of `spool query`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| QueryParams::augment_args(Command::new("query")))
}

/// The argument of `spool query` that says the field `name`.
pub(super) fn cli_id(name: &str) -> &str {
    match name {
        "ref" => "reference",
        other => other,
    }
}

/// `p` as a `spool query` command line.
pub(super) fn command_line(p: &QueryParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.value("reference", p.reference.as_str())
        .value("jq", p.jq.as_str())
        .fields(&super::listed(p), &["ref", "jq"]);
    line.text()
}
