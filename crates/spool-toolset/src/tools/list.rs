//! `list`: a page of a directory's entries, sorted by name, paged by the last name shown.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spool_core::Result;
use spool_core::answer::Answer;

use crate::tool::{Call, Hints, Output, Tool};

/// `list`.
pub struct List;

const DESCRIPTION: &str = "List a directory inside the allowed roots, sorted by name, one page at a time \
(`limit`, default 200; `next_cursor`, `has_more`, `total`). `recursive` includes subdirectories \
(respecting .gitignore); `glob` filters. Pages continue after the last name returned, so \
entries created or deleted meanwhile neither repeat nor hide the others.";

// The arguments of `list`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(range(min = 1, max = spool_core::listing::MAX_PAGE))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000).
    #[serde(default)]
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
    pub max_tokens: Option<u64>,
}

impl Tool for List {
    type Params = ListParams;
    const NAME: &'static str = "list";
    const TITLE: &'static str = "List a directory";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Page;

    fn answer(call: Call<'_>, p: ListParams) -> Result<Answer> {
        let cx = call.cx;
        let path = p.path.as_deref().unwrap_or(".");
        let mut page = spool_core::listing::list(
            cx.store,
            cx.roots,
            spool_core::listing::ListQuery {
                path,
                glob: p.glob.as_deref(),
                recursive: p.recursive,
                hidden: p.hidden,
            },
            p.limit,
            p.cursor.as_deref(),
        )?;
        spool_core::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
            (
                spool_core::list_text::entries_text(p, path, d),
                spool_core::list_text::entries_notice(p, path, d),
            )
        })?;
        Ok(Answer::List(Box::new(page), path.to_owned()))
    }
}
