//! Every flag of the `spool` command, in one place.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0   success
  1   internal error (i/o, database)
  2   usage error
  3   not_found          4   expired          5   forbidden
  6   invalid_argument   7   unavailable      8   timeout
  9   corrupt
  `spool run` exits with the command's own exit code; 128+N when a signal N ended it,
  124 when it timed out, 130 when it was interrupted.";

/// spool: tool output that is never cut silently. Every output is stored whole, once; every
/// answer says what was shown, how big the whole is, and how to get the rest.
#[derive(Debug, Parser)]
#[command(name = "spool", version, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a command, store all of its output, show an honest preview.
    Run(RunArgs),
    /// Fetch a web page once, store it whole, show its head.
    Fetch(FetchArgs),
    /// Read a window of a stored artifact or a file.
    Read(ReadArgs),
    /// Search the whole of a stored artifact or a file.
    Search(SearchArgs),
    /// Run a jq program over stored JSON (a JSON answer or a list of items).
    Query(QueryArgs),
    /// Read a GitHub Actions job's log, pinned to its run and attempt.
    #[command(name = "ci-log")]
    CiLog(CiLogArgs),
    /// Map a repository: its files' most referred-to definitions, ranked, a page at a time.
    Map(MapArgs),
    /// List stored artifacts, newest first.
    Artifacts(ArtifactsArgs),
    /// Show recent answers, or everything delivered from one artifact.
    Audit(AuditArgs),
    /// Apply expiry and the store quota now.
    Gc(GcArgs),
    /// List a directory, a page at a time.
    Ls(LsArgs),
    /// Serve the tools over MCP: stdio by default, Streamable HTTP with --http.
    Serve(ServeArgs),
    /// Relay another MCP server, making its large answers honest: `spool wrap -- CMD ARGS...`.
    Wrap(WrapArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PreviewArg {
    Head,
    Tail,
    HeadTail,
}

impl From<PreviewArg> for spool_toolset::tools::PreviewArg {
    fn from(p: PreviewArg) -> Self {
        match p {
            PreviewArg::Head => Self::Head,
            PreviewArg::Tail => Self::Tail,
            PreviewArg::HeadTail => Self::HeadTail,
        }
    }
}

#[derive(Debug, Args)]
pub struct Common {
    /// Print the structured answer as JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Stop the command after this many seconds.
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// Which part of the output to show.
    #[arg(long, value_enum)]
    pub preview: Option<PreviewArg>,
    /// Cap of the shown part, in tokens (default 8,000; a few screens when the output is a
    /// terminal).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Working directory of the command.
    #[arg(long)]
    pub cwd: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub argv: Vec<String>,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    /// The ref (sp_...) of stored JSON: a document, or a JSON value a line (read as their array).
    #[arg(value_name = "REF")]
    pub reference: String,
    /// A jq program, e.g. 'map(select(.status == 504)) | length'.
    #[arg(value_name = "JQ", allow_hyphen_values = true)]
    pub jq: String,
    /// How many output values to show.
    #[arg(long)]
    pub limit: Option<u64>,
    /// Cap of the shown part, in tokens (default 8,000; a few screens when the output is a
    /// terminal).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
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
    /// The last N lines.
    #[arg(long, value_name = "N", conflicts_with = "preview")]
    pub tail: Option<u64>,
    /// Which part to show when no range is given.
    #[arg(long, value_enum)]
    pub preview: Option<PreviewArg>,
    /// Only this stream of a command's output (stdout or stderr).
    #[arg(long, value_name = "NAME")]
    pub stream: Option<String>,
    /// The next page of a list of items (a wrapped server's JSON list): a previous answer's
    /// `next_cursor`.
    #[arg(long, conflicts_with_all = ["lines", "chars", "bytes", "tail", "preview", "stream", "query", "pattern"])]
    pub cursor: Option<String>,
    #[command(flatten)]
    pub find: FindArgs,
    /// Cap of the shown part, in tokens (default 8,000; a few screens when the output is a
    /// terminal).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct CiLogArgs {
    /// The repository, `owner/name`.
    pub repo: String,
    /// The workflow run's id (the number in `.../actions/runs/ID`).
    pub run_id: u64,
    /// The attempt (default: the run's latest, read first and pinned).
    #[arg(long, value_name = "N")]
    pub attempt: Option<u64>,
    /// The job, by name or id (default: the first failed job, else the first).
    #[arg(long, value_name = "NAME|ID")]
    pub job: Option<String>,
    /// Allow a log's signed URL on a private, loopback or link-local address.
    #[arg(long)]
    pub allow_private_network: bool,
    /// Cap of the shown part, in tokens (default 8,000; a few screens when the output is a
    /// terminal).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct MapArgs {
    /// The repository or directory (default: the working directory); a file maps as its
    /// outline.
    #[arg(default_value = ".")]
    pub path: String,
    /// A file or a symbol the task is about: ranked first (repeat for more).
    #[arg(long, value_name = "FILE|SYMBOL")]
    pub focus: Vec<String>,
    /// Continue from the `--cursor` a previous map printed.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of the answer, in tokens (default 1,024).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}

/// What a read or fetch shows beside its preview when the question is known.
#[derive(Debug, Args)]
pub struct FindArgs {
    /// Words to find: the answer shows, beside the preview, the passages of the whole that best
    /// match them (ranked), and how many hold any of them.
    #[arg(long, value_name = "WORDS", conflicts_with_all = ["pattern", "literal", "ignore_case"])]
    pub query: Option<String>,
    /// A regex (or, with -F, plain text) to find: the answer shows, beside the preview, the
    /// first lines of the whole that match, and how many do.
    #[arg(long, value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// Find the pattern as plain text.
    #[arg(short = 'F', long, requires = "pattern")]
    pub literal: bool,
    /// Find the pattern in any case.
    #[arg(short = 'i', long, requires = "pattern")]
    pub ignore_case: bool,
}

#[derive(Debug, Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag of the command, as a person types it"
)]
pub struct SearchArgs {
    /// A regular expression (or, with --literal, plain text). With --query, leave it out: the
    /// first argument is then the target.
    #[arg(value_name = "PATTERN")]
    pub pattern: Option<String>,
    /// An artifact ref (sp_...), a file, or a directory (searched whole, .gitignore respected;
    /// default `.`).
    #[arg(value_name = "TARGET")]
    pub target: Option<String>,
    /// Words instead of a pattern, when you do not know the exact text: the passages of a ref,
    /// a file or a directory's files that hold any of them, ranked best first.
    #[arg(long, value_name = "WORDS", conflicts_with_all = ["literal", "ignore_case", "context"])]
    pub query: Option<String>,
    /// Only files matching these globs, for a directory (repeatable), e.g. `-g '*.rs'`.
    #[arg(short = 'g', long = "glob")]
    pub globs: Vec<String>,
    /// For a directory: search hidden files too (`.gitignore`d files stay out).
    #[arg(long)]
    pub hidden: bool,
    /// For a directory: search the files `.gitignore` and the other ignore files leave out
    /// too (build output, vendored code).
    #[arg(long)]
    pub no_ignore: bool,
    /// Hits per file instead of the hits (as `rg --count`): every file counted, a page at a
    /// time.
    #[arg(short = 'c', long, conflicts_with_all = ["query", "context"])]
    pub count: bool,
    /// Search for the pattern as plain text.
    #[arg(short = 'F', long)]
    pub literal: bool,
    /// Ignore case.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Lines of context around each hit.
    #[arg(short = 'C', long, default_value_t = 0)]
    pub context: u64,
    /// Hits per page.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Continue from a previous answer's `next_cursor`.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of the answer, in tokens: a larger page holds fewer and says so.
    #[arg(long, default_value_t = spool_core::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u64,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct ArtifactsArgs {
    /// Only artifacts of this kind (exec, fetch, file, mcp, search).
    #[arg(long)]
    pub kind: Option<String>,
    /// Artifacts per page.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
    /// Continue from a previous answer's `next_cursor`.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of the answer, in tokens: a larger page holds fewer and says so.
    #[arg(long, default_value_t = spool_core::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u64,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Show everything delivered from this artifact, and what never was.
    pub reference: Option<String>,
    /// How many recent answers to show.
    #[arg(long, default_value_t = 30)]
    pub limit: usize,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct GcArgs {
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve Streamable HTTP at this address (e.g. 127.0.0.1:8765; port 0 picks one) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// A directory the tools may read and run in (repeatable; default: the working directory).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Default answer cap, in tokens.
    #[arg(long, default_value_t = spool_core::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u64,
    /// Leave out the `run` tool: a read-only server.
    #[arg(long)]
    pub no_run: bool,
    /// Let `fetch` reach private, loopback and link-local addresses.
    #[arg(long)]
    pub allow_private_network: bool,
    /// Require `Authorization: Bearer TOKEN` on HTTP requests.
    #[arg(long, env = "SPOOL_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// An `Origin` HTTP requests may come from, beside loopback pages (repeatable), e.g.
    /// `https://app.example.com:443`; others, and `Origin: null`, are refused.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Also answer, by ref, from artifacts made by this process (repeatable): `cli` (your own
    /// `spool run`, `spool read`, ...), a server's principal such as `serve:/home/me/repo` (a
    /// trailing `*` matches a prefix: `serve:*`), or `any`. Without it a server answers only
    /// from what it made and from copies of files inside its roots.
    #[arg(long = "trust", value_name = "PRINCIPAL")]
    pub trust: Vec<String>,
    /// Send structured content beside the text blocks, each complete alone (`on`), or text
    /// blocks only and no output schemas (`off`, for a host that shows the model both parts).
    #[arg(long, value_enum, default_value = "on")]
    pub structured: OnOff,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The upstream server's name: in answers, and as its tools' prefix when several are wrapped.
    #[arg(long)]
    pub name: Option<String>,
    /// Connect to a Streamable HTTP upstream at this URL instead of running a command.
    #[arg(long, conflicts_with = "config")]
    pub url: Option<String>,
    /// Wrap the upstreams listed in this file (`spool.toml`; see the README).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// How long one upstream request may take, in seconds.
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// Preview of a tool's too-large answer: `TOOL=head`, `tail` or `head_tail` (repeatable).
    #[arg(long = "preview", value_name = "TOOL=POLICY")]
    pub previews: Vec<String>,
    /// List each upstream tool as its name and one line, plus `describe_tool`.
    #[arg(long)]
    pub lazy: bool,
    /// Serve Streamable HTTP at this address instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Require `Authorization: Bearer TOKEN` on HTTP requests.
    #[arg(long, env = "SPOOL_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// An `Origin` HTTP requests may come from, beside loopback pages (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Also answer, by ref, from artifacts made by this process (repeatable): `cli` (your own
    /// `spool run`, `spool read`, ...), a server's principal such as `serve:/home/me/repo` (a
    /// trailing `*` matches a prefix: `serve:*`), or `any`. Without it a server answers only
    /// from what it made and from copies of files inside its roots.
    #[arg(long = "trust", value_name = "PRINCIPAL")]
    pub trust: Vec<String>,
    /// Answer cap, in tokens: larger upstream answers are stored and shown in part.
    #[arg(long, default_value_t = spool_core::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u64,
    /// Structured content in spool's own answers (`on`), or text blocks only and no output
    /// schemas (`off`, for a host that shows the model both parts). Results an upstream sends
    /// that fit pass through as they came.
    #[arg(long, value_enum, default_value = "on")]
    pub structured: OnOff,
    /// The upstream command and its arguments (after `--`, or after spool's own options).
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CMD"
    )]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// The directory (default: the working directory).
    #[arg(default_value = ".")]
    pub path: String,
    /// Only entries whose name or path matches this glob.
    #[arg(long)]
    pub glob: Option<String>,
    /// Include subdirectories (respecting .gitignore, skipping hidden files; says how many it
    /// skipped).
    #[arg(short, long)]
    pub recursive: bool,
    /// With --recursive: include hidden and .gitignored entries too.
    #[arg(long, requires = "recursive")]
    pub hidden: bool,
    /// Entries per page.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Continue from a previous answer's `next_cursor`.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Cap of the answer, in tokens: a larger page holds fewer and says so.
    #[arg(long, default_value_t = spool_core::DEFAULT_MAX_TOKENS)]
    pub max_tokens: u64,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Markdown,
    Text,
    Raw,
}

impl From<FormatArg> for spool_fetch::FormatArg {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Markdown => Self::Markdown,
            FormatArg::Text => Self::Text,
            FormatArg::Raw => Self::Raw,
        }
    }
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// An http:// or https:// URL.
    pub url: String,
    /// How the page is stored.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: FormatArg,
    /// Download again (conditionally) instead of reusing a copy from the last 5 minutes.
    #[arg(long)]
    pub refresh: bool,
    /// Allow private, loopback and link-local addresses.
    #[arg(long)]
    pub allow_private_network: bool,
    #[command(flatten)]
    pub find: FindArgs,
    /// Cap of the shown part, in tokens (default 8,000; a few screens when the output is a
    /// terminal).
    #[arg(long)]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub common: Common,
}
