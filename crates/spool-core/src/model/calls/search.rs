//! `search`'s arguments: as a model sends them ([`SearchParams`]) and as a person types them
//! ([`SearchCommand`]: `spool search PATTERN TARGET`, or `spool search --query WORDS TARGET`),
//! and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_HITS, MAX_MAX_TOKENS, MIN_MAX_TOKENS, PLACEHOLDER, Target, ToolName};

// The arguments of `search`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag of the tool, as the model sends it"
)]
pub struct SearchParams {
    /// A regular expression (Rust regex syntax), or plain text with `literal: true`. Give this
    /// or `query`.
    #[serde(default)]
    #[arg(skip)]
    pub pattern: Option<String>,
    /// Words, when you do not know the exact text: passages (a table row, a list item, a
    /// paragraph, a log line) holding any of them, ranked best first (BM25, English stemming,
    /// `snake_case` and `CamelCase` names split into words). For a `ref`, a file, or every file
    /// under a directory (indexed once while its files are unchanged). Give this or `pattern`.
    #[serde(default)]
    #[arg(
        long,
        value_name = "WORDS",
        conflicts_with_all = ["literal", "case_insensitive", "context"],
        help = "Words instead of a pattern, when you do not know the exact text: the passages of a ref, a file or a directory's files that hold any of them, ranked best first"
    )]
    pub query: Option<String>,
    /// Search this stored artifact, all of it. Give this or `path`.
    #[serde(default, rename = "ref")]
    #[arg(skip)]
    pub reference: Option<String>,
    /// Search this file, or every file under this directory (respecting .gitignore, skipping
    /// hidden and binary files). Inside the allowed roots. Give this or `ref`.
    #[serde(default)]
    #[arg(skip)]
    pub path: Option<String>,
    /// Treat `pattern` as plain text.
    #[serde(default)]
    #[arg(short = 'F', long, help = "Search for the pattern as plain text")]
    pub literal: bool,
    /// Ignore case.
    #[serde(default)]
    #[arg(short = 'i', long = "ignore-case")]
    pub case_insensitive: bool,
    /// Only files matching these globs (for directories), e.g. `["*.rs", "!target/**"]`.
    #[serde(default)]
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        help = "Only files matching these globs, for a directory (repeatable), e.g. `-g '*.rs'`"
    )]
    pub glob: Vec<String>,
    /// For a directory: search hidden files too (dotfiles such as `.github/`; `.gitignore`d
    /// files stay out). Without it they are skipped and counted as hidden.
    #[serde(default)]
    #[arg(long)]
    pub hidden: bool,
    /// For a directory: search the files `.gitignore` and the other ignore files leave out too
    /// (build output, vendored code). Without it they are skipped and counted as ignored.
    #[serde(default)]
    #[arg(long)]
    pub no_ignore: bool,
    /// Hits per file instead of the hits, as `rg --count` gives them: which files hold the
    /// pattern and how often, every file counted, `limit` files a page.
    #[serde(default)]
    #[arg(short = 'c', long, conflicts_with_all = ["query", "context"])]
    pub count: bool,
    /// Lines of context around each hit.
    #[serde(default)]
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<u64>,
    /// Hits per page (default 50, at most 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_HITS))]
    #[arg(long)]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000). A page that would pass
    /// it holds fewer hits, says so, and its cursor goes on after the last one shown.
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_PAGE_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for SearchParams {
    const TOOL: ToolName = ToolName::Search;
    const ORDER: &'static [&'static str] = &[
        "ref",
        "path",
        "query",
        "pattern",
        "literal",
        "case_insensitive",
        "glob",
        "context",
        "limit",
        "hidden",
        "no_ignore",
        "count",
        "cursor",
        "max_tokens",
    ];
}

impl SearchParams {
    /// A search of `target` with nothing asked yet.
    pub fn of(target: Target) -> Self {
        let (reference, path) = target.into_arguments();
        Self {
            reference,
            path,
            ..Self::default()
        }
    }

    /// A search of `target` for the regex `pattern`.
    pub fn pattern(target: Target, pattern: impl Into<String>) -> Self {
        Self {
            pattern: Some(pattern.into()),
            ..Self::of(target)
        }
    }

    /// A ranked search of `target` for the passages that hold `words`.
    pub fn words(target: Target, words: impl Into<String>) -> Self {
        Self {
            query: Some(words.into()),
            ..Self::of(target)
        }
    }
}

/// `spool search`: the arguments as a person types them.
#[derive(Debug, Clone, Args)]
pub struct SearchCommand {
    /// A regular expression (or, with --literal, plain text). With --query, leave it out: the
    /// first argument is then the target.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// An artifact ref (sp_...), a file, or a directory (searched whole, .gitignore respected;
    /// default `.`).
    #[arg(value_name = "TARGET")]
    pub target: Option<String>,
    #[command(flatten)]
    pub params: SearchParams,
}

/// What a `spool search` line gives that is not a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misread {
    /// `--query` with a pattern too.
    PatternAndWords,
    /// Neither a pattern nor `--query`.
    Nothing,
}

impl SearchCommand {
    /// The pattern and the target these words give: with `--query` there is no pattern, and
    /// the one word is the target (default `.`).
    pub fn pattern_and_target(&self) -> Result<(Option<String>, String), Misread> {
        let (pattern, target) = match (&self.params.query, &self.pattern, &self.target) {
            (Some(_), Some(_), Some(_)) => return Err(Misread::PatternAndWords),
            (Some(_), first, None) => (None, first.clone()),
            (None, None, _) => return Err(Misread::Nothing),
            (_, pattern, target) => (pattern.clone(), target.clone()),
        };
        Ok((pattern, target.unwrap_or_else(|| ".".to_owned())))
    }

    /// The arguments these words give, searching `target` (resolved by the caller) for
    /// `pattern`.
    pub fn params(&self, pattern: Option<String>, target: Target) -> SearchParams {
        let (reference, path) = target.into_arguments();
        SearchParams {
            pattern,
            reference,
            path,
            ..self.params.clone()
        }
    }
}

/// The definition of `spool search`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| SearchCommand::augment_args(Command::new("search")))
}

/// The argument of `spool search` that says the field `name`.
pub(super) fn cli_id(name: &str) -> &str {
    match name {
        "ref" | "path" => "target",
        other => other,
    }
}

/// `p` as a `spool search` command line.
pub(super) fn command_line(p: &SearchParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    if p.query.is_none() {
        let pattern = match p.pattern.as_deref() {
            Some(PLACEHOLDER) | None => "PATTERN",
            Some(pattern) => pattern,
        };
        line.value("pattern", pattern);
    }
    let target = p.reference.clone().or_else(|| p.path.clone());
    line.value("target", target.unwrap_or_else(|| "REF".into()));
    line.fields(&super::listed(p), &["pattern", "ref", "path"]);
    line.text()
}
