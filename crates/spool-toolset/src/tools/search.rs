//! `search`: the whole of an artifact, a file, or every file under a directory, by a regex
//! (every hit counted, a page shown) or by words (passages ranked); or hits per file.

use spool_core::answer::{Answer, Context};
use spool_core::calls::{self, SearchParams, ToolName};
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

impl Tool for Search {
    type Params = SearchParams;
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
                .arg(ToolName::Search, "count")
                .then(" counts the lines a ")
                .arg(ToolName::Search, "pattern")
                .then(" matches in each file; ranked passages are not counted per file"),
            Words::text("give a ")
                .arg(ToolName::Search, "pattern")
                .then(", or leave ")
                .arg(ToolName::Search, "count")
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
                    .arg(ToolName::Search, "pattern")
                    .then(" (a regex or, with literal, text) or a ")
                    .arg(ToolName::Search, "query")
                    .then(" (words, ranked): one of the two"),
                Words::text("for example ").call(spool_core::envelope::NextCall::Search(
                    SearchParams::words(calls::Target::reference("sp_..."), "retry timeout"),
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
                .arg(ToolName::Search, "count")
                .then(" counts hits per file; it shows no lines, so no ")
                .arg(ToolName::Search, "context"),
            Words::text("leave ")
                .arg(ToolName::Search, "context")
                .then(" out"),
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
