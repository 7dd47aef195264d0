//! `artifacts`: a page of the stored artifacts, newest first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spool_core::Result;
use spool_core::answer::Answer;

use crate::tool::{Call, Hints, Output, Tool};

/// `artifacts`.
pub struct Artifacts;

/// The artifacts of a page when no `limit` is given.
pub const ARTIFACTS_PAGE: usize = 50;

const DESCRIPTION: &str = "List stored artifacts, newest first: ref, source and version, sizes, state (complete, \
cancelled, interrupted, expired) and expiry. Expired ones stay as tombstones that say what they \
were and how to make them again.";

// The arguments of `artifacts`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactsParams {
    /// Only artifacts of this kind: exec, fetch, file, mcp, search, text, query, ci, map.
    #[serde(default)]
    pub kind: Option<String>,
    /// Artifacts per page (default 50, at most 1000).
    #[serde(default)]
    #[schemars(range(min = 1, max = spool_core::page::ARTIFACTS_MAX_PAGE))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
    pub max_tokens: Option<u64>,
}

impl Tool for Artifacts {
    type Params = ArtifactsParams;
    const NAME: &'static str = "artifacts";
    const TITLE: &'static str = "Stored artifacts";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Page;

    fn answer(call: Call<'_>, p: ArtifactsParams) -> Result<Answer> {
        let cx = call.cx;
        let mut page = spool_core::page::artifacts(
            cx.store,
            p.kind.as_deref(),
            p.limit.unwrap_or(ARTIFACTS_PAGE),
            p.cursor.as_deref(),
        )?;
        spool_core::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
            (
                spool_core::list_text::artifacts_text(p, d),
                spool_core::list_text::artifacts_notice(p, d),
            )
        })?;
        Ok(Answer::Artifacts(Box::new(page)))
    }
}
