//! The tools every front end shares, from their typed arguments to an [`Answer`]: checked and
//! defaulted here once, for the MCP server and the CLI alike.

use std::sync::Arc;
use std::time::Duration;

use super::Answer;
use super::params::{
    ArtifactsParams, ListParams, QueryParams, ReadParams, RunParams, SearchParams,
};
use crate::error::{Error, Result};
use crate::exec::{RunControl, RunOutcome, RunSpec};
use crate::fit::Cap;
use crate::roots::Roots;
use crate::search::{Find, Paging, Query};
use crate::spell::Words;
use crate::store::{Store, Stream};
use crate::window::{WindowRequest, read_window, window};

/// Where the tools run: the store, the roots reads stay inside, and the caller's limits.
pub struct Context<'a> {
    pub store: &'a Store,
    pub roots: &'a Roots,
    /// The cap of an answer that asked for `max_tokens` (the caller's default when absent).
    pub cap: &'a dyn Fn(Option<u64>) -> Cap,
    /// The time a command may run: its default, and the most a call may ask for (none: any).
    pub run_timeout: Option<Duration>,
    pub run_timeout_max: Option<Duration>,
    /// The time budget of a directory search.
    pub search_budget: Duration,
}

/// The artifacts of the artifacts page when no `limit` is given.
pub const ARTIFACTS_PAGE: usize = 50;

enum Target<'a> {
    Ref(&'a str),
    Path(&'a str),
}

fn one_of<'a>(
    reference: Option<&'a str>,
    path: Option<&'a str>,
    tool: &'static str,
) -> Result<Target<'a>> {
    match (reference, path) {
        (Some(r), None) => Ok(Target::Ref(r)),
        (None, Some(p)) => Ok(Target::Path(p)),
        _ => Err(Error::invalid(
            format!("`{tool}` takes either `ref` or `path`, exactly one of them"),
            Some(format!(
                "for example {tool} ref=sp_... or {tool} path=README.md"
            )),
        )),
    }
}

/// `run`: the command's whole output stored, its preview shown; and how the command ended.
pub fn run(cx: &Context<'_>, p: RunParams, control: RunControl) -> Result<(Answer, RunOutcome)> {
    let (argv, command) = match (p.argv, p.command) {
        (Some(argv), None) if !argv.is_empty() => (argv, None),
        (None, Some(c)) if !c.trim().is_empty() => (Vec::new(), Some(c)),
        _ => {
            return Err(Error::invalid(
                "`run` takes either `command` (a string for sh -c) or `argv` (a non-empty array)",
                Some("for example run command=\"cargo test\"".to_owned()),
            ));
        }
    };
    // Held open from the check to the start: the command runs in the directory checked.
    let (cwd_fd, cwd) = cx.roots.open_dir(p.cwd.as_deref().unwrap_or("."))?;
    let timeout = match p.timeout_s {
        Some(t)
            if !(t.is_finite()
                && t > 0.0
                && cx.run_timeout_max.is_none_or(|m| t <= m.as_secs_f64())) =>
        {
            let (range, example) = match cx.run_timeout_max {
                Some(max) => (
                    format!("between 0 and {} seconds", max.as_secs_f64()),
                    max.as_secs_f64().min(60.0),
                ),
                None => ("a positive number of seconds".to_owned(), 60.0),
            };
            return Err(Error::invalid_words(
                Words::default()
                    .arg("run", "timeout_s")
                    .then(format!(" must be {range} (got {t})")),
                Words::text("ask for ").arg_value("run", "timeout_s", example),
            ));
        }
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => cx.run_timeout,
    };
    // A cap no answer can have is refused before the command runs, not after.
    let cap = (cx.cap)(p.max_tokens);
    crate::window::check_cap(cap.tokens)?;
    let spec = RunSpec {
        argv,
        command,
        cwd: Some(cwd),
        cwd_fd: Some(Arc::new(cwd_fd)),
        timeout,
        stdin: p.stdin.map(String::into_bytes),
    };
    let outcome = crate::exec::run(cx.store, &spec, control)?;
    let reader = cx.store.open_artifact(&outcome.meta.reference)?;
    let preview = p.preview.map(Into::into);
    let made = window(&reader, WindowRequest::Preview(preview), cap);
    let envelope = crate::window::or_bare(&reader, cap, made)?;
    Ok((Answer::Envelope(Box::new(envelope)), outcome))
}

/// `read`: a window of an artifact or a file, or the next page of a list of items.
pub fn read(cx: &Context<'_>, p: &ReadParams) -> Result<Answer> {
    if let Some(cursor) = &p.cursor {
        if p.query.is_some() || p.pattern.is_some() {
            return Err(Error::invalid_words(
                Words::default()
                    .arg("read", "cursor")
                    .then(" pages a list of items; it does not go with ")
                    .arg("read", "query")
                    .then(" or ")
                    .arg("read", "pattern"),
                Words::text("search the list's ref instead, or leave them out"),
            ));
        }
        let Some(reference) = p.reference.as_deref().filter(|_| p.path.is_none()) else {
            return Err(Error::invalid(
                "`cursor` continues a list of items: give it with the list's `ref`",
                Some("pass the `ref` and `next_cursor` of the previous page".to_owned()),
            ));
        };
        let limit = p.limit.map(|l| usize::try_from(l).unwrap_or(usize::MAX));
        return Ok(Answer::Items(Box::new(crate::items::item_page(
            cx.store,
            reference,
            crate::items::PageStart::Cursor(cursor),
            limit,
            (cx.cap)(p.max_tokens),
        )?)));
    }
    // Checked before a file is read: a bad regex snapshots nothing.
    let find = find_of_read(p)?;
    let mut reference = match one_of(p.reference.as_deref(), p.path.as_deref(), "read")? {
        Target::Ref(r) => r.to_owned(),
        Target::Path(path) => {
            let (file, real) = cx.roots.open_file(path)?;
            crate::files::snapshot_file(cx.store, file, &real)?.reference
        }
    };
    if let Some(stream) = &p.stream {
        reference =
            crate::streams::stream_view(cx.store, &reference, Stream::parse(stream)?)?.reference;
    }
    let request = read_request(p)?;
    if let Some(find) = find {
        let WindowRequest::Preview(preview) = request else {
            return Err(Error::invalid_words(
                Words::default()
                    .arg("read", "query")
                    .then(" and ")
                    .arg("read", "pattern")
                    .then(" show what they find beside the preview, not inside a range"),
                Words::text("leave the range out, or search the range's artifact with ").call(
                    crate::envelope::NextCall::new(
                        "search",
                        [
                            ("ref", reference.as_str().into()),
                            ("query", "timeout retry".into()),
                        ],
                    ),
                ),
            ));
        };
        let envelope = found_window(
            cx.store,
            &reference,
            &find,
            preview,
            (cx.cap)(p.max_tokens),
            &[],
        )?;
        return Ok(Answer::Envelope(Box::new(envelope)));
    }
    Ok(Answer::Envelope(Box::new(read_window(
        cx.store,
        &reference,
        request,
        (cx.cap)(p.max_tokens),
    )?)))
}

/// What a `read` asks to find, checked.
fn find_of_read(p: &ReadParams) -> Result<Option<Find>> {
    Find::from_args(
        "read",
        p.query.as_deref(),
        p.pattern.as_deref(),
        p.literal,
        p.case_insensitive,
    )
}

/// The preview of `reference` with what `find` finds in all of it beside it: the answer of a
/// `read` or `fetch` whose question is known.
pub fn found_window(
    store: &Store,
    reference: &str,
    find: &Find,
    preview: Option<crate::window::Preview>,
    cap: Cap,
    notes: &[String],
) -> Result<crate::envelope::Envelope> {
    // Opened first and held through the search: its lock keeps the copy (a maker's pin is let
    // go at the first open) until the window is made.
    let reader = store.open_artifact(reference)?;
    let found = crate::search::find(store, reference, find)?;
    crate::window::window_found(&reader, preview, &found, cap, notes)
}

/// The window a `read` asks for; ranges of different units cannot be mixed.
fn read_request(p: &ReadParams) -> Result<WindowRequest> {
    let lines = p.line.is_some() || p.limit.is_some();
    let chars = p.char_offset.is_some() || p.max_chars.is_some();
    let bytes = p.byte_offset.is_some() || p.max_bytes.is_some();
    let tail = p.tail.is_some();
    if u8::from(lines) + u8::from(chars) + u8::from(bytes) + u8::from(tail) > 1
        || (p.preview.is_some() && (lines || chars || bytes || tail))
    {
        return Err(Error::invalid(
            "`read` takes one kind of range: lines (`line`, `limit`), chars (`char_offset`, `max_chars`), bytes (`byte_offset`, `max_bytes`), the last lines (`tail`), or a `preview`",
            Some("for example read ref=sp_... line=97 limit=400".to_owned()),
        ));
    }
    Ok(if let Some(n) = p.tail {
        WindowRequest::LastLines { lines: n }
    } else if lines {
        WindowRequest::Lines {
            line: p.line.unwrap_or(1),
            limit: p.limit,
        }
    } else if chars {
        WindowRequest::Chars {
            offset: p.char_offset.unwrap_or(0),
            max: p.max_chars,
        }
    } else if bytes {
        WindowRequest::Bytes {
            offset: p.byte_offset.unwrap_or(0),
            max: p.max_bytes,
        }
    } else {
        WindowRequest::Preview(p.preview.map(Into::into))
    })
}

/// `search` with `count`: hits per file.
fn count(
    cx: &Context<'_>,
    p: &SearchParams,
    target: &Target<'_>,
    query: &Query,
    paging: &Paging,
) -> Result<crate::search::SearchAnswer> {
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
        Target::Ref(r) => Ok(crate::search::count_of_ref(cx.store, r, query, paging)?),
        Target::Path(path) => crate::search::tree::count_tree(
            cx.store,
            cx.roots,
            path,
            query,
            &crate::search::tree::Filter {
                globs: &p.glob,
                hidden: p.hidden,
                no_ignore: p.no_ignore,
            },
            paging,
            cx.search_budget,
        ),
    }
}

/// `search`: the whole of an artifact, a file, or every file under a directory.
pub fn search(cx: &Context<'_>, p: &SearchParams) -> Result<Answer> {
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
                    let mut answer = crate::search::search_words_tree(
                        cx.store,
                        cx.roots,
                        path,
                        words,
                        &crate::search::tree::Filter {
                            globs: &p.glob,
                            hidden: p.hidden,
                            no_ignore: p.no_ignore,
                        },
                        &paging,
                        cx.search_budget,
                    )?;
                    crate::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
                    return Ok(Answer::Search(Box::new(answer)));
                }
                Target::Path(path) => {
                    let (file, real) = cx.roots.open_file(path)?;
                    crate::files::snapshot_file(cx.store, file, &real)?.reference
                }
            };
            let mut answer = crate::search::search_words(cx.store, &reference, words, &paging)?;
            crate::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
            return Ok(Answer::Search(Box::new(answer)));
        }
        _ => {
            return Err(Error::invalid_words(
                Words::text("`search` takes a ")
                    .arg("search", "pattern")
                    .then(" (a regex or, with literal, text) or a ")
                    .arg("search", "query")
                    .then(" (words, ranked): one of the two"),
                Words::text("for example ").call(crate::envelope::NextCall::new(
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
        crate::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
        return Ok(Answer::Search(Box::new(answer)));
    }
    let mut answer = match target {
        Target::Ref(r) => crate::search::search_artifact(cx.store, r, &query, &paging)?,
        Target::Path(path) => crate::search::tree::search_tree(
            cx.store,
            cx.roots,
            path,
            &query,
            &crate::search::tree::Filter {
                globs: &p.glob,
                hidden: p.hidden,
                no_ignore: p.no_ignore,
            },
            &paging,
            cx.search_budget,
        )?,
    };
    crate::search::fit(&mut answer, cx.store, (cx.cap)(p.max_tokens))?;
    Ok(Answer::Search(Box::new(answer)))
}

/// `query`: a jq program over stored JSON, its output stored and shown like a read.
pub fn query(cx: &Context<'_>, p: &QueryParams) -> Result<Answer> {
    query_with(cx, p, None)
}

/// [`query`], stopped (its box killed) when `cancel` is set.
pub fn query_with(
    cx: &Context<'_>,
    p: &QueryParams,
    cancel: Option<&std::sync::atomic::AtomicBool>,
) -> Result<Answer> {
    let out = crate::query::run_query(cx.store, &p.reference, &p.jq, cancel)?;
    let request = match p.limit {
        Some(limit) => WindowRequest::Lines {
            line: 1,
            limit: Some(limit),
        },
        None => WindowRequest::Preview(None),
    };
    Ok(Answer::Envelope(Box::new(read_window(
        cx.store,
        &out.reference,
        request,
        (cx.cap)(p.max_tokens),
    )?)))
}

/// `list`: a page of a directory's entries.
pub fn list(cx: &Context<'_>, p: &ListParams) -> Result<Answer> {
    let path = p.path.as_deref().unwrap_or(".");
    let mut page = crate::listing::list(
        cx.store,
        cx.roots,
        crate::listing::ListQuery {
            path,
            glob: p.glob.as_deref(),
            recursive: p.recursive,
            hidden: p.hidden,
        },
        p.limit,
        p.cursor.as_deref(),
    )?;
    crate::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
        (
            crate::list_text::entries_text(p, path, d),
            crate::list_text::entries_notice(p, path, d),
        )
    })?;
    Ok(Answer::List(Box::new(page), path.to_owned()))
}

/// `artifacts`: a page of the stored artifacts, newest first.
pub fn artifacts(cx: &Context<'_>, p: &ArtifactsParams) -> Result<Answer> {
    let mut page = crate::page::artifacts(
        cx.store,
        p.kind.as_deref(),
        p.limit.unwrap_or(ARTIFACTS_PAGE),
        p.cursor.as_deref(),
    )?;
    crate::page::fit(&mut page, (cx.cap)(p.max_tokens), |p, d| {
        (
            crate::list_text::artifacts_text(p, d),
            crate::list_text::artifacts_notice(p, d),
        )
    })?;
    Ok(Answer::Artifacts(Box::new(page)))
}
