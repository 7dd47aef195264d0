//! `search`: the whole of an artifact, a file, or every file under a directory, by a regex
//! (every hit counted, a page shown) or by words (passages ranked); or hits per file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use spool_core::answer::{Answer, Context};
use spool_core::dialect::Words;
use spool_core::search::{Paging, Query};
use spool_core::{Error, Result};

use super::{Target, one_of};
use crate::tool::{Call, Hints, Output, Tool};

/// `search`.
pub struct Search;

const DESCRIPTION: &str = "Search the whole of a stored artifact (`ref`), a file, or every file under a directory \
(`path`: .gitignore respected unless `no_ignore`, hidden files only with `hidden`, binary files \
skipped, `glob` to narrow). Counts every hit (`hit_count`), returns a page (`limit`, default 50) \
and says whether more exist (`truncated`, `next_cursor`). The scope says what was searched: the \
globs, files searched, files left out counted by why (outside the glob, ignored, hidden), the git \
commit. Zero hits say where it looked, and `next` holds the searches of what was left out. \
`count: true` gives hits per file instead (which files, how often), every file counted. A directory's hit list is stored, so every page comes \
from one snapshot. Not sure of the exact word? Give `query` (words) instead of `pattern`: the \
passages of a `ref` or a file holding any of them, ranked best first, every one counted.";

// The arguments of `search`. No doc comment: it would be the schema's root description,
// which is stripped, and stripping it moves the keys a host has always been shown.
#[allow(missing_docs)]
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(range(min = 1, max = spool_core::search::MAX_LIMIT))]
    pub limit: Option<usize>,
    /// The `next_cursor` of the previous page, unchanged.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Cap of this answer in tokens (default: the server's cap, 8000). A page that would pass
    /// it holds fewer hits, says so, and its cursor goes on after the last one shown.
    #[serde(default)]
    #[schemars(range(min = spool_core::window::MIN_MAX_TOKENS, max = spool_core::window::MAX_MAX_TOKENS))]
    pub max_tokens: Option<u64>,
}

impl Tool for Search {
    type Params = SearchParams;
    const NAME: &'static str = "search";
    const TITLE: &'static str = "Search everything";
    const DESCRIPTION: &'static str = DESCRIPTION;
    const HINTS: Hints = Hints::READS;
    const OUTPUT: Output = Output::Search;

    fn answer(call: Call<'_>, p: SearchParams) -> Result<Answer> {
        search(call.cx, &p)
    }
}

/// The whole of an artifact, a file, or every file under a directory.
fn search(cx: &Context<'_>, p: &SearchParams) -> Result<Answer> {
    let paging = Paging {
        context: p.context.unwrap_or(0),
        limit: p.limit,
        cursor: p.cursor.clone(),
    };
    let target = one_of(p.reference.as_deref(), p.path.as_deref(), "search")?;
    if p.count && p.query.is_some() {
        return Err(Error::invalid_words(
            Words::default()
                .arg("search", "count")
                .then(" counts the lines a ")
                .arg("search", "pattern")
                .then(" matches in each file; ranked passages are not counted per file"),
            Words::text("give a ")
                .arg("search", "pattern")
                .then(", or leave ")
                .arg("search", "count")
                .then(" out"),
        ));
    }
    let pattern = match (&p.pattern, &p.query) {
        (Some(pattern), None) => pattern.clone(),
        (None, Some(words)) => {
            let reference = match target {
                Target::Ref(r) => r.to_owned(),
                Target::Path(path) if cx.roots.resolve(path)?.is_dir() => {
                    let mut answer = tree(cx, p, path, &paging).passages(words)?;
                    spool_core::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
                    return Ok(Answer::Search(Box::new(answer)));
                }
                Target::Path(path) => {
                    let (file, real) = cx.roots.open_file(path)?;
                    spool_core::files::snapshot_file(cx.store, file, &real)?.reference
                }
            };
            let mut answer =
                spool_core::search::search_words(cx.store, &reference, words, &paging)?;
            spool_core::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
            return Ok(Answer::Search(Box::new(answer)));
        }
        _ => {
            return Err(Error::invalid_words(
                Words::text("`search` takes a ")
                    .arg("search", "pattern")
                    .then(" (a regex or, with literal, text) or a ")
                    .arg("search", "query")
                    .then(" (words, ranked): one of the two"),
                Words::text("for example ").call(spool_core::envelope::NextCall::new(
                    "search",
                    [("ref", "sp_...".into()), ("query", "retry timeout".into())],
                )),
            ));
        }
    };
    let query = Query {
        pattern,
        literal: p.literal,
        case_insensitive: p.case_insensitive,
        words: None,
    };
    if p.count {
        let mut answer = count(cx, p, &target, &query, &paging)?;
        spool_core::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
        return Ok(Answer::Search(Box::new(answer)));
    }
    let mut answer = match target {
        Target::Ref(r) => spool_core::search::search_artifact(cx.store, r, &query, &paging)?,
        Target::Path(path) => tree(cx, p, path, &paging).hits(&query)?,
    };
    spool_core::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
    Ok(Answer::Search(Box::new(answer)))
}

/// `search` with `count`: hits per file.
fn count(
    cx: &Context<'_>,
    p: &SearchParams,
    target: &Target<'_>,
    query: &Query,
    paging: &Paging,
) -> Result<spool_core::search::SearchAnswer> {
    if p.context.is_some_and(|c| c > 0) {
        return Err(Error::invalid_words(
            Words::default()
                .arg("search", "count")
                .then(" counts hits per file; it shows no lines, so no ")
                .arg("search", "context"),
            Words::text("leave ").arg("search", "context").then(" out"),
        ));
    }
    match target {
        Target::Ref(r) => Ok(spool_core::search::count_of_ref(
            cx.store, r, query, paging,
        )?),
        Target::Path(path) => tree(cx, p, path, paging).counts(query),
    }
}

/// The search of the files under `path` that `p` asks for: the files its filter lets through,
/// the page `paging` names, within the context's budget.
fn tree<'a>(
    cx: &'a Context<'a>,
    p: &'a SearchParams,
    path: &'a str,
    paging: &'a Paging,
) -> spool_core::search::tree::TreeSearch<'a> {
    spool_core::search::tree::TreeSearch::new(cx.store, cx.roots, path, paging)
        .filtered(spool_core::search::tree::Filter {
            globs: &p.glob,
            hidden: p.hidden,
            no_ignore: p.no_ignore,
        })
        .within(cx.search_budget)
}
