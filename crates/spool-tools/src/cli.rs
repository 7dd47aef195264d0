//! Every flag of the `spool` command, in one place.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use spool_core::calls;

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
    #[command(name = calls::CI_LOG_COMMAND)]
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
    #[command(name = calls::LIST_COMMAND)]
    Ls(LsArgs),
    /// Serve the tools over MCP: stdio by default, Streamable HTTP with --http.
    Serve(ServeArgs),
    /// Relay another MCP server, making its large answers honest: `spool wrap -- CMD ARGS...`.
    Wrap(WrapArgs),
    /// Print the man page or a shell's completions: `spool generate man > spool.1`.
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to print.
    #[arg(value_enum)]
    pub kind: GenerateKind,
    /// With `man`: write every page (`spool.1` and one per command, `spool-run.1`, ...) into
    /// this directory instead of printing `spool.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// What `spool generate` prints (ripgrep's `--generate` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateKind {
    /// The man page (roff): `spool generate man > ~/.local/share/man/man1/spool.1`.
    Man,
    /// Bash completions: `spool generate complete-bash > ~/.local/share/bash-completion/completions/spool`.
    CompleteBash,
    /// Zsh completions (a `_spool` file on `fpath`).
    CompleteZsh,
    /// Fish completions (`~/.config/fish/completions/spool.fish`).
    CompleteFish,
    /// Elvish completions.
    CompleteElvish,
    /// PowerShell completions.
    CompletePowershell,
}

#[derive(Debug, Args)]
pub struct Common {
    /// Print the structured answer as JSON.
    #[arg(long, global = true)]
    pub json: bool,
}

// The tools' commands: each parses the tool's own arguments as spool-core defines them (the
// definition the calls an answer prints are spelled from), plus what only a person at the
// command line is asked.

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub call: calls::RunParams,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub call: calls::QueryParams,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub call: calls::ReadCommand,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct CiLogArgs {
    #[command(flatten)]
    pub call: calls::CiLogParams,
    /// Allow a log's signed URL on a private, loopback or link-local address.
    #[arg(long)]
    pub allow_private_network: bool,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct MapArgs {
    #[command(flatten)]
    pub call: calls::MapParams,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub call: calls::SearchCommand,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct ArtifactsArgs {
    #[command(flatten)]
    pub call: calls::ArtifactsParams,
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
    /// A variable of this environment `run` passes to commands though its name looks secret
    /// (repeatable); every other variable named like *KEY*, *SECRET*, *TOKEN*, *PASSWORD* is
    /// withheld from them.
    #[arg(
        long = "env-pass",
        value_name = "NAME",
        env = "SPOOL_ENV_PASS",
        value_delimiter = ','
    )]
    pub env_pass: Vec<String>,
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
    /// Wrap the upstreams listed in this file (`spool.toml`; see docs/guide.md).
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
    #[command(flatten)]
    pub call: calls::ListParams,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The call, `--allow-private-network` among its flags (the command line's own).
    #[command(flatten)]
    pub call: calls::FetchParams,
    #[command(flatten)]
    pub common: Common,
}
