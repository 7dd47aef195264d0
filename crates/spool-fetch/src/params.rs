//! The arguments of `fetch` and `ci_log`, as the model sends them: serde reads them, schemars
//! describes them (the doc comments are their descriptions in a host's tool list), and the
//! tool table (spool-toolset) lists the tools that take them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormatArg {
    Markdown,
    Text,
    Raw,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
    pub max_tokens: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
    pub max_tokens: Option<u64>,
}
