//! `fetch`'s arguments, as a model sends them and as a person types them (`spool fetch URL`),
//! and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command, ValueEnum};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_MAX_TOKENS, MIN_MAX_TOKENS, ToolName};

// How a fetched page is stored: HTML as markdown, as plain text, or the page as served. (No
// doc comments: schemars would list them in the tool list, which is product copy.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ValueEnum)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum FormatArg {
    Markdown,
    Text,
    Raw,
}

impl FormatArg {
    /// The format's name, as a call gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Markdown => "markdown",
            Self::Text => "text",
            Self::Raw => "raw",
        }
    }
}

// The arguments of `fetch`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag of the call as a person types it"
)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct FetchParams {
    /// An http:// or https:// URL.
    #[arg(value_name = "URL")]
    pub url: String,
    /// How the page is stored: `markdown` (default; HTML converted), `text`, or `raw` (as served).
    #[serde(default)]
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: Option<FormatArg>,
    /// Download again (conditionally, with the stored `ETag` and `Last-Modified`) instead of reusing a
    /// copy fetched in the last 5 minutes.
    #[serde(default)]
    #[arg(long)]
    pub refresh: bool,
    /// Words to find, when the question is known: this answer then shows, beside the head,
    /// the passages of the whole page that best match them (ranked as `search` with
    /// `query`), and how many hold any of them.
    #[serde(default)]
    #[arg(long, value_name = "WORDS", conflicts_with_all = ["pattern", "literal", "case_insensitive"])]
    pub query: Option<String>,
    /// A regex (or, with `literal`, plain text) to find: this answer then shows, beside the
    /// head, the first lines of the whole page that match, and how many do.
    #[serde(default)]
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Treat `pattern` as plain text.
    #[serde(default)]
    #[arg(
        short = 'F',
        long,
        requires = "pattern",
        help = "Find the pattern as plain text"
    )]
    pub literal: bool,
    /// Match `pattern` in any case.
    #[serde(default)]
    #[arg(
        short = 'i',
        long = "ignore-case",
        requires = "pattern",
        help = "Find the pattern in any case"
    )]
    pub case_insensitive: bool,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
    // The command line's own permission, spelled back in every fetch it prints (regression,
    // issue 57: "the rest: `spool fetch URL --format raw`" dropped it and was refused as
    // printed). Never read from a model's arguments (serde skips it, and `deny_unknown_fields`
    // refuses it) nor shown in its schema: an MCP server has it from its operator.
    #[serde(skip)]
    #[schemars(skip)]
    #[arg(long, help = "Allow private, loopback and link-local addresses")]
    pub allow_private_network: bool,
}

impl Arguments for FetchParams {
    const TOOL: ToolName = ToolName::Fetch;
    const ORDER: &'static [&'static str] = &[
        "url",
        "format",
        "refresh",
        "query",
        "pattern",
        "literal",
        "case_insensitive",
        "max_tokens",
    ];
}

impl FetchParams {
    /// A fetch of `url`, stored as `format`.
    pub fn new(url: impl Into<String>, format: FormatArg) -> Self {
        Self {
            url: url.into(),
            format: Some(format),
            ..Self::default()
        }
    }
}

/// The definition of `spool fetch`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| FetchParams::augment_args(Command::new("fetch")))
}

/// `p` as a `spool fetch` command line.
pub(super) fn command_line(p: &FetchParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    line.value("url", p.url.as_str())
        .fields(&super::listed(p), &["url"]);
    if p.allow_private_network {
        line.flag("allow_private_network");
    }
    line.text()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The permission is the command line's: a model's arguments cannot carry it, and its
    /// schema does not name it.
    #[test]
    fn a_model_cannot_allow_the_private_network() {
        let asked =
            serde_json::json!({ "url": "http://127.0.0.1/", "allow_private_network": true });
        assert!(serde_json::from_value::<FetchParams>(asked).is_err());
        let schema = serde_json::to_string(&schemars::schema_for!(FetchParams)).unwrap();
        assert!(!schema.contains("allow_private_network"), "{schema}");
        let mut p = FetchParams::new("http://127.0.0.1/", FormatArg::Raw);
        p.allow_private_network = true;
        assert!(!serde_json::to_string(&p).unwrap().contains("allow_private"));
        let line = command_line(&p).unwrap();
        assert!(
            line.ends_with("--format raw --allow-private-network"),
            "{line}"
        );
    }
}
