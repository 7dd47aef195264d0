//! `read`'s arguments: as a model sends them ([`ReadParams`]) and as a person types them
//! ([`ReadCommand`]: the ref or path first, a range as `--lines A:B`, `--chars A:B` or
//! `--bytes A:B`), and the command line a call of it prints.

use std::sync::OnceLock;

use clap::{Args, Command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::command_line::CommandLine;
use super::{Arguments, MAX_LINES, MAX_MAX_TOKENS, MIN_MAX_TOKENS, PreviewArg, Target, ToolName};

// The arguments of `read`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema, Args)]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// An artifact ref (`sp_...`) from an earlier answer. Give this or `path`.
    #[serde(default, rename = "ref")]
    #[arg(skip)]
    pub reference: Option<String>,
    /// A file inside the allowed roots. Give this or `ref`.
    #[serde(default)]
    #[arg(skip)]
    pub path: Option<String>,
    /// First line to show (1-based).
    #[serde(default)]
    #[schemars(range(min = 1))]
    #[arg(skip)]
    pub line: Option<u64>,
    /// How many lines to show from `line` (with `cursor`, items: at most 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_LINES))]
    #[arg(skip)]
    pub limit: Option<u64>,
    /// First char to show (0-based).
    #[serde(default)]
    #[arg(skip)]
    pub char_offset: Option<u64>,
    /// How many chars to show from `char_offset`.
    #[serde(default)]
    #[arg(skip)]
    pub max_chars: Option<u64>,
    /// First byte to show (0-based); binary content is shown escaped.
    #[serde(default)]
    #[arg(skip)]
    pub byte_offset: Option<u64>,
    /// How many bytes to show from `byte_offset`.
    #[serde(default)]
    #[arg(skip)]
    pub max_bytes: Option<u64>,
    /// The last this many lines (instead of `line` and `limit`).
    #[serde(default)]
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "preview",
        help = "The last N lines"
    )]
    pub tail: Option<u64>,
    /// Without a range: `head`, `tail` or `head_tail`.
    #[serde(default)]
    #[arg(long, value_enum, help = "Which part to show when no range is given")]
    pub preview: Option<PreviewArg>,
    /// Only this stream of a command's output: `stdout` or `stderr`.
    #[serde(default)]
    #[arg(long, value_name = "NAME")]
    pub stream: Option<String>,
    /// Words to find, when the question is known: this answer then shows, beside the preview,
    /// the passages of the whole artifact that best match them (ranked as `search` with
    /// `query`), and how many hold any of them.
    #[serde(default)]
    #[arg(long, value_name = "WORDS", conflicts_with_all = ["pattern", "literal", "case_insensitive"])]
    pub query: Option<String>,
    /// A regex (or, with `literal`, plain text) to find: this answer then shows, beside the
    /// preview, the first lines of the whole artifact that match, and how many do.
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

    /// The next page of a list of items: the `next_cursor` of its previous page (with the same
    /// `ref`; `limit` then counts items).
    #[serde(default)]
    #[arg(
        long,
        conflicts_with_all = ["lines", "chars", "bytes", "tail", "preview", "stream", "query", "pattern"],
        help = "The next page of a list of items (a wrapped server's JSON list): a previous answer's `next_cursor`"
    )]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = MIN_MAX_TOKENS, max = MAX_MAX_TOKENS))]
    #[arg(long, value_name = "N", help = super::CLI_MAX_TOKENS)]
    pub max_tokens: Option<u64>,
}

impl Arguments for ReadParams {
    const TOOL: ToolName = ToolName::Read;
    const ORDER: &'static [&'static str] = &[
        "ref",
        "path",
        "line",
        "limit",
        "char_offset",
        "max_chars",
        "byte_offset",
        "max_bytes",
    ];
}

impl ReadParams {
    /// A read of `target` with nothing else asked.
    pub fn of(target: Target) -> Self {
        let (reference, path) = target.into_arguments();
        Self {
            reference,
            path,
            ..Self::default()
        }
    }

    /// A read of `target` from line `line` on.
    pub fn lines(target: Target, line: u64, limit: Option<u64>) -> Self {
        Self {
            line: Some(line),
            limit,
            ..Self::of(target)
        }
    }
}

/// `spool read`: the arguments as a person types them.
#[derive(Debug, Clone, Args)]
pub struct ReadCommand {
    /// An artifact ref (sp_...) or a file path.
    pub target: String,
    /// Lines A to B (1-based, inclusive); `A:` reads from A on.
    #[arg(long, value_name = "A:B", conflicts_with_all = ["chars", "bytes", "tail", "preview"])]
    pub lines: Option<String>,
    /// Chars A to B (0-based, B exclusive).
    #[arg(long, value_name = "A:B", conflicts_with_all = ["bytes", "tail", "preview"])]
    pub chars: Option<String>,
    /// Bytes A to B (0-based, B exclusive).
    #[arg(long, value_name = "A:B", conflicts_with_all = ["tail", "preview"])]
    pub bytes: Option<String>,
    #[command(flatten)]
    pub params: ReadParams,
}

/// A span flag's value that is not `A:B`, `A:` or `A`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The flag, without its dashes (`lines`).
    pub flag: &'static str,
    /// The value as given.
    pub got: String,
}

/// Parses `A:B` or `A:` (or `A`) into a start and an optional end.
fn span(flag: &'static str, s: &str) -> Result<(u64, Option<u64>), Span> {
    let bad = || Span {
        flag,
        got: s.to_owned(),
    };
    let (a, b) = s.split_once(':').unwrap_or((s, ""));
    let a: u64 = a.trim().parse().map_err(|_| bad())?;
    let b = match b.trim() {
        "" => None,
        b => Some(b.parse::<u64>().map_err(|_| bad())?),
    };
    if b.is_some_and(|b| b < a) {
        return Err(bad());
    }
    Ok((a, b))
}

impl ReadCommand {
    /// The arguments these flags give, reading `target` (the first word, resolved by the
    /// caller): `--lines A:B` is `line` A and `limit` B-A+1, `--chars A:B` is `char_offset` A
    /// and `max_chars` B-A, and so on.
    pub fn params(&self, target: Target) -> Result<ReadParams, Span> {
        let (reference, path) = target.into_arguments();
        let mut p = ReadParams {
            reference,
            path,
            ..self.params.clone()
        };
        if let Some(s) = &self.lines {
            let (a, b) = span("lines", s)?;
            p.line = Some(a);
            p.limit = b.map(|b| b - a + 1);
        } else if let Some(s) = &self.chars {
            let (a, b) = span("chars", s)?;
            p.char_offset = Some(a);
            p.max_chars = b.map(|b| b - a);
        } else if let Some(s) = &self.bytes {
            let (a, b) = span("bytes", s)?;
            p.byte_offset = Some(a);
            p.max_bytes = b.map(|b| b - a);
        }
        Ok(p)
    }
}

/// The definition of `spool read`.
pub(super) fn command() -> &'static Command {
    static COMMAND: OnceLock<Command> = OnceLock::new();
    COMMAND.get_or_init(|| ReadCommand::augment_args(Command::new("read")))
}

/// The argument of `spool read` that says the field `name`.
pub(super) fn cli_id(name: &str) -> &str {
    match name {
        "ref" | "path" => "target",
        "line" | "limit" => "lines",
        "char_offset" | "max_chars" => "chars",
        "byte_offset" | "max_bytes" => "bytes",
        other => other,
    }
}

/// `p` as a `spool read` command line.
pub(super) fn command_line(p: &ReadParams) -> Option<String> {
    let mut line = CommandLine::of(command());
    let target = p.reference.clone().or_else(|| p.path.clone());
    line.value("target", target.unwrap_or_else(|| "REF".into()));
    let end = |start: u64, count: Option<u64>, inclusive: bool| match count {
        // A continuation of a request for "all the rest" carries a huge count.
        Some(n) if inclusive => format!("{start}:{}", start.saturating_add(n).saturating_sub(1)),
        Some(n) => format!("{start}:{}", start.saturating_add(n)),
        None => format!("{start}:"),
    };
    if let Some(l) = p.line {
        line.value("lines", end(l, p.limit, true));
    } else if p.limit.is_some() {
        line.cannot("limit");
    }
    if let Some(c) = p.char_offset {
        line.value("chars", end(c, p.max_chars, false));
    }
    if let Some(b) = p.byte_offset {
        line.value("bytes", end(b, p.max_bytes, false));
    }
    line.fields(
        &super::listed(p),
        &[
            "ref",
            "path",
            "line",
            "limit",
            "char_offset",
            "max_chars",
            "byte_offset",
            "max_bytes",
        ],
    );
    line.text()
}
