//! The arguments of each tool, as the model sees them (field docs become their descriptions,
//! with the `schema` feature, which the MCP server turns on). The CLI parses its flags into the
//! same types, so both are checked and defaulted in one place.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum PreviewArg {
    Head,
    Tail,
    HeadTail,
}

impl From<PreviewArg> for crate::window::Preview {
    fn from(p: PreviewArg) -> Self {
        match p {
            PreviewArg::Head => Self::Head,
            PreviewArg::Tail => Self::Tail,
            PreviewArg::HeadTail => Self::HeadTail,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// A command line, run by `sh -c`. Give this or `argv`.
    #[serde(default)]
    pub command: Option<String>,
    /// The program and its arguments, run without a shell. Give this or `command`.
    #[serde(default)]
    pub argv: Option<Vec<String>>,
    /// Working directory, inside the allowed roots (default: the first root).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Stop the command after this many seconds (default 600).
    #[serde(default)]
    pub timeout_s: Option<f64>,
    /// Text given to the command on its standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Which part of the output to show: `head`, `tail` or `head_tail` (default; on failure the
    /// real last lines are always shown).
    #[serde(default)]
    pub preview: Option<PreviewArg>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReadParams {
    /// An artifact ref (`sp_...`) from an earlier answer. Give this or `path`.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// A file inside the allowed roots. Give this or `ref`.
    #[serde(default)]
    pub path: Option<String>,
    /// First line to show (1-based).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub line: Option<u64>,
    /// How many lines to show from `line` (with `cursor`, items: at most 1000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = crate::window::MAX_LINES)))]
    pub limit: Option<u64>,
    /// First char to show (0-based).
    #[serde(default)]
    pub char_offset: Option<u64>,
    /// How many chars to show from `char_offset`.
    #[serde(default)]
    pub max_chars: Option<u64>,
    /// First byte to show (0-based); binary content is shown escaped.
    #[serde(default)]
    pub byte_offset: Option<u64>,
    /// How many bytes to show from `byte_offset`.
    #[serde(default)]
    pub max_bytes: Option<u64>,
    /// The last this many lines (instead of `line` and `limit`).
    #[serde(default)]
    pub tail: Option<u64>,
    /// Without a range: `head`, `tail` or `head_tail`.
    #[serde(default)]
    pub preview: Option<PreviewArg>,
    /// Only this stream of a command's output: `stdout` or `stderr`.
    #[serde(default)]
    pub stream: Option<String>,
    /// Words to find, when the question is known: this answer then shows, beside the preview,
    /// the passages of the whole artifact that best match them (ranked as `search` with
    /// `query`), and how many hold any of them.
    #[serde(default)]
    pub query: Option<String>,
    /// A regex (or, with `literal`, plain text) to find: this answer then shows, beside the
    /// preview, the first lines of the whole artifact that match, and how many do.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Treat `pattern` as plain text.
    #[serde(default)]
    pub literal: bool,
    /// Match `pattern` in any case.
    #[serde(default)]
    pub case_insensitive: bool,

    /// The next page of a list of items: the `next_cursor` of its previous page (with the same
    /// `ref`; `limit` then counts items).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each is a flag of the tool, as the model sends it"
)]
pub struct SearchParams {
    /// A regular expression (Rust regex syntax), or plain text with `literal: true`. Give this
    /// or `query`.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Words, when you do not know the exact text: passages (a table row, a list item, a
    /// paragraph, a log line) holding any of them, ranked best first (BM25, English stemming,
    /// `snake_case` and `CamelCase` names split into words). For a `ref`, a file, or every file
    /// under a directory (indexed once while its files are unchanged). Give this or `pattern`.
    #[serde(default)]
    pub query: Option<String>,
    /// Search this stored artifact, all of it. Give this or `path`.
    #[serde(default, rename = "ref")]
    pub reference: Option<String>,
    /// Search this file, or every file under this directory (respecting .gitignore, skipping
    /// hidden and binary files). Inside the allowed roots. Give this or `ref`.
    #[serde(default)]
    pub path: Option<String>,
    /// Treat `pattern` as plain text.
    #[serde(default)]
    pub literal: bool,
    /// Ignore case.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Only files matching these globs (for directories), e.g. `["*.rs", "!target/**"]`.
    #[serde(default)]
    pub glob: Vec<String>,
    /// For a directory: search hidden files too (dotfiles such as `.github/`; `.gitignore`d
    /// files stay out). Without it they are skipped and counted as hidden.
    #[serde(default)]
    pub hidden: bool,
    /// For a directory: search the files `.gitignore` and the other ignore files leave out too
    /// (build output, vendored code). Without it they are skipped and counted as ignored.
    #[serde(default)]
    pub no_ignore: bool,
    /// Hits per file instead of the hits, as `rg --count` gives them: which files hold the
    /// pattern and how often, every file counted, `limit` files a page.
    #[serde(default)]
    pub count: bool,
    /// Lines of context around each hit.
    #[serde(default)]
    pub context: Option<u64>,
    /// Hits per page (default 50, at most 1000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = crate::search::MAX_LIMIT)))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000). A page that would pass
    /// it holds fewer hits, says so, and its cursor goes on after the last one shown.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// A directory inside the allowed roots (default: the first root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only entries whose name or path matches this glob, e.g. `*.md`.
    #[serde(default)]
    pub glob: Option<String>,
    /// Include subdirectories (respecting .gitignore, skipping hidden files; says how many).
    #[serde(default)]
    pub recursive: bool,
    /// With `recursive`: include hidden and .gitignored entries too.
    #[serde(default)]
    pub hidden: bool,
    /// Entries per page (default 200, at most 1000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = crate::listing::MAX_PAGE)))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArtifactsParams {
    /// Only artifacts of this kind: exec, fetch, file, mcp, search, text, query, ci, map.
    #[serde(default)]
    pub kind: Option<String>,
    /// Artifacts per page (default 50, at most 1000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = crate::page::ARTIFACTS_MAX_PAGE)))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct QueryParams {
    /// The ref (`sp_...`) of stored JSON: a document, or a value a line (a list of items).
    #[serde(rename = "ref")]
    pub reference: String,
    /// A jq program, e.g. `map(select(.status == 504)) | length`.
    pub jq: String,
    /// How many output values to show (default: as many as the cap holds).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = crate::window::MAX_LINES)))]
    pub limit: Option<u64>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FormatArg {
    Markdown,
    Text,
    Raw,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FetchParams {
    /// An http:// or https:// URL.
    pub url: String,
    /// How the page is stored: `markdown` (default; HTML converted), `text`, or `raw` (as served).
    #[serde(default)]
    pub format: Option<FormatArg>,
    /// Download again (conditionally, with the stored `ETag` and `Last-Modified`) instead of reusing a
    /// copy fetched in the last 5 minutes.
    #[serde(default)]
    pub refresh: bool,
    /// Words to find, when the question is known: this answer then shows, beside the head,
    /// the passages of the whole page that best match them (ranked as `search` with
    /// `query`), and how many hold any of them.
    #[serde(default)]
    pub query: Option<String>,
    /// A regex (or, with `literal`, plain text) to find: this answer then shows, beside the
    /// head, the first lines of the whole page that match, and how many do.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Treat `pattern` as plain text.
    #[serde(default)]
    pub literal: bool,
    /// Match `pattern` in any case.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CiLogParams {
    /// The repository, `owner/name`.
    pub repo: String,
    /// The workflow run's id (the number in `.../actions/runs/ID`).
    pub run_id: u64,
    /// The attempt (1 for the first run, 2 after one re-run, ...). Default: the run's latest,
    /// read first and pinned, so that reading on never mixes two attempts.
    #[serde(default)]
    pub attempt: Option<u64>,
    /// The job, by name or id. Default: the first failed job of the attempt, else its first.
    #[serde(default)]
    pub job: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// A repository or directory inside the allowed roots (default: the first root). A file
    /// maps as its outline: every definition in it, by line.
    #[serde(default)]
    pub path: Option<String>,
    /// Cap of this answer in tokens (default 1024): the files that fit, best first; the rest
    /// by `cursor`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = crate::window::MIN_MAX_TOKENS, max = crate::window::MAX_MAX_TOKENS)))]
    pub max_tokens: Option<u64>,
    /// Files (paths under `path`) or symbols (names) the task is about: ranked first, and the
    /// code around them ranked up.
    #[serde(default)]
    pub focus: Vec<String>,
    /// The next part of the map: the `cursor` of the previous answer's `next`, unchanged (with
    /// the same `path` and `focus`).
    #[serde(default)]
    pub cursor: Option<String>,
}

/// `put` (the library's, not a model's tool): a caller's own output, stored whole.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PutParams {
    /// What produced the output (`my_tool q=...`).
    pub desc: String,
    /// What pins this output (a time, an `ETag`, a hash, a query): kept as given.
    #[serde(default)]
    pub version: serde_json::Map<String, serde_json::Value>,
    /// What a plain read shows: `head` (documents, the default), `tail` (logs), `head_tail`.
    #[serde(default)]
    pub preview: Option<PreviewArg>,
    /// Cap of the first answer in tokens (default: the caller's cap).
    #[serde(default)]
    pub max_tokens: Option<u64>,
}
