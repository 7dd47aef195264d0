//! The arguments of `map`, as the model sends them: serde reads them, schemars describes them
//! (the doc comments are their descriptions in a host's tool list).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapParams {
    /// A repository or directory inside the allowed roots (default: the first root). A file
    /// maps as its outline: every definition in it, by line.
    #[serde(default)]
    pub path: Option<String>,
    /// Cap of this answer in tokens (default 1024): the files that fit, best first; the rest
    /// by `cursor`.
    #[serde(default)]
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
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
