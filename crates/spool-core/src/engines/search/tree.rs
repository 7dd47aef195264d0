//! Code search over a directory: ripgrep's walker (`.gitignore` respected, hidden files
//! skipped, globs), every hit counted and stored once as a hit-list artifact, pages of it by
//! cursor, and a time budget past which the answer says what it did and did not cover.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::file_hits::FileSearcher;
use super::{
    Hit, Paging, Query, Scope, SearchAnswer, Skipped, TreeScope, TreeVersion, build_matcher,
    page_limit,
};
use spool_walk::walk;

use super::{hitlist, parallel};
use crate::calls::{SearchParams, Target};
use crate::cursor;
use crate::envelope::{ArtifactState, Reason, ReasonCode, SearchVersion, Source, Version};
use crate::error::{Error, Result};
use crate::store::{NewArtifact, Store};
use spool_walk::roots::Roots;

/// Default time budget of a directory search.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);
/// Files larger than this are skipped and counted as `too_large`.
pub const MAX_FILE_BYTES: u64 = 512 << 20;

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct TreeCursor {
    k: String,
    h: String,
    q: String,
    i: u64,
}

/// Searches `path` (a directory, or a file) inside the roots, hidden files skipped.
pub fn search_path(
    store: &Store,
    roots: &Roots,
    path: &str,
    query: &Query,
    globs: &[String],
    paging: &Paging,
    budget: Duration,
) -> Result<SearchAnswer> {
    let filter = Filter {
        globs,
        ..Filter::default()
    };
    TreeSearch::new(store, roots, path, paging)
        .filtered(filter)
        .within(budget)
        .hits(query)
}

pub use spool_walk::walk::Filter;

/// A search of the files under `path` (a directory, or a file) inside the roots: which files
/// (`filter`), which page (`paging`), and how long the walk may take (`budget`). Asked for its
/// hits ([`TreeSearch::hits`]), its hits per file ([`TreeSearch::counts`]), or the passages that
/// hold some words ([`TreeSearch::passages`]).
#[derive(Clone, Copy)]
pub struct TreeSearch<'a> {
    pub store: &'a Store,
    pub roots: &'a Roots,
    /// The directory or file, as the caller named it (answers show it so).
    pub path: &'a str,
    pub filter: Filter<'a>,
    pub paging: &'a Paging,
    pub budget: Duration,
}

impl<'a> TreeSearch<'a> {
    /// A search of the files under `path` that a plain search reads (hidden and ignored files
    /// left out), the page `paging` names, within the default budget.
    pub fn new(store: &'a Store, roots: &'a Roots, path: &'a str, paging: &'a Paging) -> Self {
        Self {
            store,
            roots,
            path,
            filter: Filter::default(),
            paging,
            budget: DEFAULT_BUDGET,
        }
    }

    /// Reading the files `filter` lets through.
    #[must_use]
    pub fn filtered(self, filter: Filter<'a>) -> Self {
        Self { filter, ..self }
    }

    /// The walk and the reads within `budget`.
    #[must_use]
    pub fn within(self, budget: Duration) -> Self {
        Self { budget, ..self }
    }

    /// The hits of `query`, every one counted, a page at a time.
    pub fn hits(&self, query: &Query) -> Result<SearchAnswer> {
        search_tree(self, query)
    }

    /// Hits per file (`count`): which files hold the pattern and how often, a page of files
    /// at a time, every one counted. A file (not a directory) is its one entry.
    pub fn counts(&self, query: &Query) -> Result<SearchAnswer> {
        count_tree(self, query)
    }

    /// The passages holding any of the words of `text`, best first.
    pub fn passages(&self, text: &str) -> Result<SearchAnswer> {
        super::ranked_tree::search_words_tree(self, text)
    }
}

/// [`TreeSearch::hits`].
fn search_tree(search: &TreeSearch<'_>, query: &Query) -> Result<SearchAnswer> {
    let (store, roots, path) = (search.store, search.roots, search.path);
    let (filter, paging) = (&search.filter, search.paging);
    let real = roots.resolve(path)?;
    if !real.is_dir() {
        let (file, real) = roots.open_file(path)?;
        let meta = crate::files::snapshot_file(store, file, &real)?;
        let mut answer = super::search_artifact(store, &meta.reference, query, paging)?;
        if let Scope::Artifact(scope) = &mut answer.scope {
            scope.root = Some(path.to_owned());
        }
        return Ok(answer);
    }
    let limit = page_limit(paging)?;
    let digest = tree_digest(&real, query, filter, paging);
    if let Some(c) = &paging.cursor {
        let p: TreeCursor = cursor::open(store, c)?;
        if p.k != "tree" || p.q != digest {
            return Err(cursor::mismatch("another search"));
        }
        let mut answer = page_of_hits(store, &p.h, query, &digest, p.i, limit)?;
        let searched_at = store.open_artifact(&p.h)?.meta().created_at;
        super::since::mark(&mut answer, &real, searched_at);
        answer.repeat = Some(repeat(path, query, paging, filter));
        answer.set_next();
        return Ok(answer);
    }
    let fresh = run_search(search, &real, query, &digest)?;
    let mut answer = page_of_hits(store, &fresh, query, &digest, 0, limit)?;
    answer.repeat = Some(repeat(path, query, paging, filter));
    answer.set_next();
    Ok(answer)
}

/// What names one search of one tree: its cursors are good for it alone.
fn tree_digest(real: &Path, query: &Query, filter: &Filter<'_>, paging: &Paging) -> String {
    cursor::digest(&[
        &real.display().to_string(),
        &query.pattern,
        if query.literal { "l" } else { "r" },
        if query.case_insensitive { "i" } else { "s" },
        &filter.globs.join("\u{1}"),
        &paging.context.to_string(),
        if filter.hidden { "h" } else { "-" },
        if filter.no_ignore { "n" } else { "-" },
    ])
}

/// [`TreeSearch::counts`].
fn count_tree(search: &TreeSearch<'_>, query: &Query) -> Result<SearchAnswer> {
    let (store, roots, path) = (search.store, search.roots, search.path);
    let (filter, paging) = (&search.filter, search.paging);
    let real = roots.resolve(path)?;
    let limit = page_limit(paging)?;
    let one_page = Paging {
        context: 0,
        limit: Some(1),
        cursor: None,
    };
    let one = TreeSearch {
        paging: &one_page,
        ..*search
    };
    if !real.is_dir() {
        return Ok(super::counts::of_one(one.hits(query)?, path));
    }
    let digest = format!("{}:count", tree_digest(&real, query, filter, &one_page));
    let (counts, first) = if let Some(c) = &paging.cursor {
        super::counts::open_cursor(store, c, &digest)?
    } else {
        let answer = one.hits(query)?;
        let hits = answer.reference.clone().unwrap_or_default();
        (super::counts::counts_of(store, &hits)?, 0)
    };
    let mut answer = super::counts::page_of_counts(store, &counts, query, &digest, first, limit)?;
    answer.repeat = Some(SearchParams {
        context: None,
        count: true,
        ..repeat(path, query, paging, filter)
    });
    answer.set_next();
    Ok(answer)
}

/// The arguments that repeat a directory search, `hidden` and `no_ignore` among them when they
/// were asked for.
fn repeat(path: &str, query: &Query, paging: &Paging, filter: &Filter<'_>) -> SearchParams {
    SearchParams {
        hidden: filter.hidden,
        no_ignore: filter.no_ignore,
        ..super::repeat_args(Target::path(path), query, paging, filter.globs)
    }
}

/// The cursor that continues a stored hit list at hit `at` (0-based).
pub(super) fn cursor(store: &Store, hits: &str, digest: &str, at: u64) -> String {
    cursor::seal(
        store,
        &TreeCursor {
            k: "tree".into(),
            h: hits.to_owned(),
            q: digest.to_owned(),
            i: at,
        },
    )
}

/// Walks and searches the tree, storing every hit; returns the hit list's ref. The same search
/// of a tree whose files are unchanged (by path, size and modification time) reuses the list it
/// stored: when one was stored, the walk looks at each file's size and time first; a first
/// search learns them as it opens the files (a `stat` fewer per file).
fn run_search(
    search: &TreeSearch<'_>,
    dir: &Path,
    query: &Query,
    query_digest: &str,
) -> Result<String> {
    let (store, roots, shown_root, filter) =
        (search.store, search.roots, search.path, &search.filter);
    let (paging, budget) = (search.paging, search.budget);
    let matcher = build_matcher(query)?;
    let started = Instant::now();
    let started_ms = crate::clock::now_ms();
    let key_prefix = format!("tree:{}:{query_digest}:", dir.display());
    let walked_already = if store.has_dedup_prefix(&key_prefix)? {
        let mut walked = walk::walk_filtered(dir, filter)?;
        let within = budget.min(Duration::from_secs(2));
        // What only the walk knows, kept for the search's own survey (which reads the tree
        // from the top): the symlinks it let through (regression, issue 57: a search after a
        // stale stored list counted a new symlink as ignored), and the hidden files it did.
        let (links, walked_hidden) = walked
            .left
            .as_ref()
            .map(|l| (l.links.clone(), l.walked_hidden))
            .unwrap_or_default();
        // A list that ran out of time is not reused: the next search tries the whole tree.
        if let Some(found) = store.find_by_dedup(&format!("{key_prefix}{}", walked.digest))?
            && !found.source.version.timed_out()
            && still_states(&found, dir, filter, &mut walked, within)
        {
            return Ok(found.reference);
        }
        walked.left = Some(spool_walk::left_out::LeftOut {
            links,
            walked_hidden,
            ..spool_walk::left_out::LeftOut::everything(dir)
        });
        // The walk's note of what the globs left out went to that check: with globs, the
        // search walks again to count them.
        filter.globs.is_empty().then_some(walked)
    } else {
        None
    };
    let count_within = budget
        .saturating_sub(started.elapsed())
        .min(Duration::from_secs(2));
    // A bad glob is said at once, not after the survey that would have run beside the walk.
    walk::check_globs(dir, filter.globs)?;
    let state = || FileSearcher::new(paging);
    let work = |searcher: &mut FileSearcher,
                file: &walk::Candidate,
                opened: &std::fs::File,
                head: &[u8]| searcher.held_hits(&matcher, file, (opened, head));
    std::thread::scope(|outer| {
        // The survey of the tree needs no walked list: it runs on its own thread while the files
        // are walked and read (a walk leaves a core idle part of its time).
        // With no thread to be had, the survey is made here, before the walk.
        let git_side =
            match spool_walk::workers::spawn_scoped(outer, "survey", || GitSide::find(dir)) {
                Ok(running) => Surveying::Running(running),
                Err(_) => Surveying::Found(GitSide::find(dir)),
            };
        let (walked, pre, left_out) = match walked_already {
            Some(mut walked) => {
                let n = walked.files.len();
                let left = walked.left.take();
                (walked, parallel::PreRead::none(n), left)
            }
            // The walk's own time counts against the budget.
            None => parallel::walk_reading(
                dir,
                filter,
                (
                    roots,
                    MAX_FILE_BYTES,
                    budget.saturating_sub(started.elapsed()),
                    parallel::HELD_WHILE_WALKING,
                ),
                &state,
                &work,
            )
            .map(|(walked, pre, left)| (walked, pre, Some(left)))?,
        };
        tracing::debug!(files = walked.files.len(), ms = ?started.elapsed(), "walked");
        let root_shown = if shown_root.is_empty() {
            ".".to_owned()
        } else {
            shown_root.to_owned()
        };
        let new = NewArtifact::new(Source::new(
            format!("search /{}/ in {root_shown}", query.pattern),
            Version::Search(SearchVersion::default()),
        ));
        let writer = std::cell::RefCell::new(hitlist::Batched::new(store.create(new)?));
        let hits = std::cell::Cell::new(0u64);
        let left = budget.saturating_sub(started.elapsed());
        let mut large_searcher = FileSearcher::new(paging);
        let readers = parallel::Readers {
            state,
            work,
            // What a file gave before a failure is stored and counted; it is then unreadable.
            take: |_: &walk::Candidate, (bytes, stored, whole): (Vec<u8>, u64, bool)| {
                writer.borrow_mut().write(&bytes);
                hits.set(hits.get() + stored);
                Ok(whole)
            },
            large: |file: &walk::Candidate, opened: &std::fs::File, head: &[u8]| {
                let mut writer = writer.borrow_mut();
                let (stored, whole) =
                    large_searcher.search(&matcher, file, (opened, head), &mut |line| {
                        writer.write(line);
                    });
                hits.set(hits.get() + stored);
                Ok(whole)
            },
        };
        let walk_info = Walk {
            dir,
            roots,
            root: root_shown,
            filter,
            walked: &walked,
            left: None,
            started,
            budget,
        };
        // The tracked files the search does not read are looked at on their own thread, once
        // the survey is done, while the answers are taken in order (and the rest read).
        let (searched, beside) = std::thread::scope(|scope| {
            let files = &walked.files;
            let beside = spool_walk::workers::spawn_scoped(scope, "dirty-check", move || {
                let git_side = match git_side {
                    Surveying::Running(running) => running.join().ok()?,
                    Surveying::Found(found) => found,
                };
                let surveyed = git_side.survey(dir, left_out, files, Some(count_within));
                tracing::debug!(ms = ?started.elapsed(), "surveyed");
                let prepared = surveyed.prepare(files);
                tracing::debug!(ms = ?started.elapsed(), "dirty check prepared");
                Some(prepared)
            });
            let searched =
                parallel::read_in_order(&walked, pre, roots, MAX_FILE_BYTES, left, readers);
            tracing::debug!(ms = ?started.elapsed(), "hits taken in order");
            // The hit list is synced while the other thread finishes (its sync was 3 ms of the
            // sealing, after it).
            writer.borrow_mut().written();
            // The digest (a SHA-256 of every file's path, size and time: 3 ms for a 20,000-file
            // repository) is found here while the other thread looks at the tracked files the
            // search did not read (it took longer than taking the hits in order).
            let searched = searched.map(|mut searched| {
                let seen = seen_or_look(&walked.files, std::mem::take(&mut searched.seen));
                let digest = if walked.digest.is_empty() {
                    walk::digest_of(&walked.files, &seen)
                } else {
                    walked.digest.clone()
                };
                (searched, seen, digest)
            });
            // Without its thread (none to be had, or it failed), the version is found below on
            // this thread, as when it panics.
            (searched, beside.ok().and_then(|b| b.join().ok().flatten()))
        });
        let (searched, seen, digest) = searched?;
        tracing::debug!(ms = ?started.elapsed(), "files read");
        let writer = writer.into_inner().into_writer();
        // What the search states is found while the hit list is synced.
        let what_it_states = || {
            let (n, timed_out) = (&searched.counts, searched.timed_out);
            // The digest is set below.
            let finished = beside.map(|b| b.finish(filter, &walked.files, "", &seen));
            let beside = Some(match finished {
                Some(mut beside) => {
                    beside.version.files_digest.clone_from(&digest);
                    beside
                }
                // Its thread failed: the counts unknown, the version found here.
                None => Beside {
                    left_out: LeftOutCounts::default(),
                    version: tree_version(dir, &digest),
                    links: Vec::new(),
                },
            });
            let scope = scope_of(walk_info, n, timed_out.as_deref(), "searched", beside);
            // A file changed within a tick of its look may change again unseen by its stat:
            // the list is stored, not offered for reuse (git's racily clean rule).
            let racy = walk::any_racy(&seen, started_ms);
            drop_later(seen);
            let version = SearchVersion {
                query: serde_json::to_value(query).unwrap_or(Value::Null),
                ..walked_version(filter, &scope, hits.get(), timed_out.is_some())
            };
            tracing::debug!(ms = ?started.elapsed(), "stated");
            (
                Some(Version::Search(version)),
                (!racy).then(|| format!("{key_prefix}{digest}")),
            )
        };
        let meta = writer.finish_while(ArtifactState::Complete, None, what_it_states)?;
        drop_later(walked);
        tracing::debug!(ms = ?started.elapsed(), "stored");
        Ok(meta.reference)
    })
}

/// Frees `value` on a thread of its own: a walk's list of files is two allocations a file, and
/// freeing those of a 20,000-file repository took the answer's thread 5 ms.
fn drop_later<T: Send + 'static>(value: T) {
    // With no thread to be had, the value is freed here, with the closure that holds it.
    let _ = spool_walk::workers::spawn("free", move || drop(value));
}

/// The version of a stored answer over walked files (a hit list, a word index): the filter,
/// the scope, how many it found, and whether time ran out.
pub(super) fn walked_version(
    filter: &Filter<'_>,
    scope: &TreeScope,
    found: u64,
    timed_out: bool,
) -> SearchVersion {
    SearchVersion {
        globs: Some(filter.globs.to_vec()),
        hidden: filter.hidden,
        no_ignore: filter.no_ignore,
        scope: serde_json::to_value(scope).unwrap_or(Value::Null),
        hit_count: Some(found),
        timed_out,
        ..SearchVersion::default()
    }
}

/// What a tree search walked: for the scope its answer states.
pub(super) struct Walk<'a> {
    pub dir: &'a Path,
    /// The roots reads stay inside: where a symlink not followed leads is searched only there.
    pub roots: &'a Roots,
    /// The root as the caller named it.
    pub root: String,
    pub filter: &'a Filter<'a>,
    pub walked: &'a walk::Walked,
    /// What the walk left out, when it is known (see [`walk::Walked::left`]).
    pub left: Option<spool_walk::left_out::LeftOut>,
    pub started: Instant,
    pub budget: Duration,
}

/// The scope of a tree search: the root and its version, the files read and skipped by why,
/// and, when it ran out of time, the files it covered (`verb`: what was done to them).
pub(super) fn walked_scope(
    mut w: Walk<'_>,
    n: &walk::Counts,
    timed_out: Option<&str>,
    verb: &str,
) -> TreeScope {
    let beside = (timed_out.is_none()).then(|| look_beside(&mut w));
    scope_of(w, n, timed_out, verb, beside)
}

/// What the walk left out, by why; each `None` when not counted in time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct LeftOutCounts {
    /// Left out by the ignore files.
    ignored: Option<u64>,
    /// Hidden (only when hidden files were not asked for).
    hidden: Option<u64>,
    /// Left out by the globs alone (only when there are globs).
    outside_glob: Option<u64>,
}

/// What a tree search states beside its hits, found apart from reading the files (so it can
/// be found while they are read): what the walk left out, by why, the tree's version, and
/// the symlinks it let through and did not follow.
pub(super) struct Beside {
    left_out: LeftOutCounts,
    version: TreeVersion,
    links: Vec<std::path::PathBuf>,
}

impl Walk<'_> {
    /// How long the left-out counts may take: what is left of the budget, at most 2 s.
    fn count_within(&self) -> Duration {
        self.budget
            .saturating_sub(self.started.elapsed())
            .min(Duration::from_secs(2))
    }
}

/// Counts what the walk left out (within what is left of the budget) and finds the version.
pub(super) fn look_beside(w: &mut Walk<'_>) -> Beside {
    let within = Some(w.count_within());
    BesideSoFar::find_after(w.dir, w.left.take(), &w.walked.files, within).finish(
        w.filter,
        &w.walked.files,
        &w.walked.digest,
        &[],
    )
}

/// The scope from the counts and what was found beside them; the left-out counts are unknown
/// when the search ran out of time (or they were not looked for).
pub(super) fn scope_of(
    w: Walk<'_>,
    n: &walk::Counts,
    timed_out: Option<&str>,
    verb: &str,
    beside: Option<Beside>,
) -> TreeScope {
    let (left, version, links) = match beside {
        Some(b) => (b.left_out, b.version, b.links),
        None => (
            LeftOutCounts::default(),
            tree_version(w.dir, &w.walked.digest),
            Vec::new(),
        ),
    };
    let symlinks = links.len() as u64;
    let links = super::links::not_followed(w.roots, w.dir, &links);
    let left = if timed_out.is_none() {
        left
    } else {
        LeftOutCounts::default()
    };
    TreeScope {
        root: w.root,
        reference: None,
        version,
        globs: w.filter.globs.to_vec(),
        hidden: w.filter.hidden,
        no_ignore: w.filter.no_ignore,
        files_searched: n.searched,
        files_skipped: Skipped {
            binary: n.binary,
            ignored: left.ignored,
            hidden: left.hidden,
            outside_glob: left.outside_glob,
            too_large: n.too_large,
            unreadable: n.unreadable,
            symlinks,
            long_lines: n.long_lines,
        },
        links,
        unread: n
            .named
            .iter()
            .map(|(path, why)| super::scope::UnreadFile {
                path: path.clone(),
                why: why.as_str().to_owned(),
            })
            .collect(),
        duration_ms: w.started.elapsed().as_millis() as u64,
        covered: timed_out.map(|last| {
            format!("files in path order up to and including `{last}`; the files after it were not {verb}")
        }),
        first_hit_index: 0,
        searched_at: None,
        changed_since: None,
    }
}

/// What the walk of `dir` left out, by why: (ignored, hidden), hidden only when hidden files
/// were not asked for, unknown when counting them would take longer than `within` (or it is
/// `None`, at most 2 s); and the version of the tree, of the files `walked` (by their digest).
pub fn left_out_and_version(
    dir: &Path,
    filter: &Filter<'_>,
    walked: &mut walk::Walked,
    within: Option<Duration>,
) -> ((Option<u64>, Option<u64>), TreeVersion) {
    let within = within.map(|w| w.min(Duration::from_secs(2)));
    let b = BesideSoFar::find_after(dir, walked.left.take(), &walked.files, within).finish(
        filter,
        &walked.files,
        &walked.digest,
        &[],
    );
    ((b.left_out.ignored, b.left_out.hidden), b.version)
}

/// What the walk left out, from `counted` (every file, the hidden ones and those only the
/// globs left out, when counted) and the hidden files among those walked (looked for in
/// `walked` when not given). A file the ignore files or the hidden rule leave out is counted
/// by them, globs or not: outside the globs are the files that only the globs left out.
fn left_out(
    filter: &Filter<'_>,
    walked: &[walk::Candidate],
    counted: Option<spool_walk::left_out::Counts>,
    walked_hidden: Option<u64>,
) -> LeftOutCounts {
    let Some(c) = counted else {
        return LeftOutCounts::default();
    };
    // The symlinks let through were not walked, nor left out by a rule.
    let unwalked = c
        .all
        .saturating_sub(walked.len() as u64)
        .saturating_sub(c.links);
    let outside = (c.outside.0 + c.outside.1).min(unwalked);
    // A hidden file an ignore rule takes back in (`!.env.example`) is walked, not left out;
    // one only the globs left out is outside them.
    let hidden = if filter.hidden {
        0
    } else {
        let walked_hidden = walked_hidden.unwrap_or_else(|| {
            walked
                .iter()
                .filter(|f| spool_walk::paths::is_hidden(Path::new(&f.rel)))
                .count() as u64
        });
        c.hidden
            .saturating_sub(walked_hidden)
            .saturating_sub(c.outside.1)
            .min(unwalked - outside)
    };
    LeftOutCounts {
        ignored: Some(unwalked - outside - hidden),
        hidden: (!filter.hidden).then_some(hidden),
        outside_glob: (!filter.globs.is_empty()).then_some(outside),
    }
}

/// What a tree search's stored list (a hit list, its counts per file) states: its scope, the
/// hits it counted (`None` when its version does not say), and the reason it gives when the
/// search ran out of time; `expected` names what it should be.
pub(super) fn stored_scope(
    meta: &crate::store::ArtifactMeta,
    expected: &str,
) -> Result<(TreeScope, Option<u64>, Option<Reason>)> {
    let v = meta.source.version.search();
    let scope: TreeScope = v
        .and_then(|v| serde_json::from_value(v.scope.clone()).ok())
        .ok_or_else(|| Error::Corrupt {
            reference: meta.reference.clone(),
            expected: expected.into(),
            actual: "no scope in its version".into(),
        })?;
    let reason = v.is_some_and(|v| v.timed_out).then(|| Reason {
        code: ReasonCode::Timeout,
        detail: scope.covered.as_deref().map_or_else(
            || "the search ran out of time".to_owned(),
            |c| format!("the search ran out of time; it covered {c}"),
        ),
    });
    Ok((scope, v.and_then(|v| v.hit_count), reason))
}

/// The bytes of lines `first + 1` to `first + limit` of a stored list (one entry a line).
pub(super) fn page_lines(
    reader: &crate::store::ArtifactReader,
    first: u64,
    limit: usize,
) -> Result<Vec<u8>> {
    let meta = reader.meta();
    if first >= meta.lines {
        return Ok(Vec::new());
    }
    let start = reader.line_start(first + 1)?;
    let end = if first + limit as u64 >= meta.lines {
        meta.bytes
    } else {
        reader.line_start(first + limit as u64 + 1)?.byte
    };
    reader.read_at(start.byte, (end - start.byte) as usize)
}

/// Answers one page of a stored hit list, starting at hit `first` (0-based).
fn page_of_hits(
    store: &Store,
    hits_ref: &str,
    query: &Query,
    digest: &str,
    first: u64,
    limit: usize,
) -> Result<SearchAnswer> {
    let reader = store.open_artifact(hits_ref)?;
    let meta = reader.meta();
    let (mut scope, counted, reason) = stored_scope(meta, "a hit list that names its scope")?;
    let hit_count = counted.unwrap_or(meta.lines);
    scope.first_hit_index = first;
    let mut hits: Vec<Hit> = Vec::new();
    for line in page_lines(&reader, first, limit)?.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let hit = hitlist::decode(line).map_err(|e| Error::Corrupt {
            reference: hits_ref.to_owned(),
            expected: "one JSON hit per line".into(),
            actual: e,
        })?;
        hits.push(hit);
    }
    let shown_to = first + hits.len() as u64;
    let truncated = shown_to < hit_count;
    let next_cursor = truncated.then(|| cursor(store, hits_ref, digest, shown_to));
    Ok(SearchAnswer {
        query: query.clone(),
        scope: Scope::Tree(scope),
        hits,
        hit_count,
        hit_count_exact: reason.is_none(),
        windowed_lines: 0,
        truncated,
        next_cursor,
        reference: Some(hits_ref.to_owned()),
        reason,
        next: Vec::new(),
        page_reason: None,
        files: None,
        files_with_hits: None,
        first_file_index: 0,
        repeat: None,
        resume: super::Resume::Tree {
            hits: hits_ref.to_owned(),
            digest: digest.to_owned(),
            first,
        },
    })
}

/// Whether a stored search of `dir` (a hit list, a word index) over the files `walked` states
/// the tree as it is now: its commit, its dirty flag and every count of what it left out.
/// Its files are the same when this is asked (their digest is its key); the rest may not be
/// (a change to a hidden tracked file, a new commit, a new ignored file): what would state it
/// wrong is not reused (regressions: a reused list answered `dirty: false` for a changed tree,
/// and "0 ignored" beside a new ignored file). Takes the walk's note of what it left out.
pub(super) fn still_states(
    meta: &crate::store::ArtifactMeta,
    dir: &Path,
    filter: &Filter<'_>,
    walked: &mut walk::Walked,
    within: Duration,
) -> bool {
    let Some(then) = meta
        .source
        .version
        .search()
        .and_then(|v| serde_json::from_value::<TreeScope>(v.scope.clone()).ok())
    else {
        return false;
    };
    let now = BesideSoFar::find_after(dir, walked.left.take(), &walked.files, Some(within)).finish(
        filter,
        &walked.files,
        &walked.digest,
        &[],
    );
    let k = &then.files_skipped;
    let git = |v: TreeVersion| (v.commit, v.dirty, v.staged);
    git(then.version) == git(now.version)
        && (k.ignored, k.hidden, k.outside_glob, k.symlinks)
            == (
                now.left_out.ignored,
                now.left_out.hidden,
                now.left_out.outside_glob,
                now.links.len() as u64,
            )
}

/// Whether the repository holding `dir` is at `commit` with (`dirty`, `staged`) as stated:
/// what a stored answer about the same files (by `digest`) must still say to be reused.
pub fn is_current(
    dir: &Path,
    digest: &str,
    commit: Option<&str>,
    (dirty, staged): (Option<bool>, Option<bool>),
) -> bool {
    let now = tree_version(dir, digest);
    (commit, dirty, staged) == (now.commit.as_deref(), now.dirty, now.staged)
}

/// Each file's size and time as the search found them, and for the files it did not reach
/// (time ran out first) as a look by path finds them.
fn seen_or_look(
    files: &[walk::Candidate],
    mut seen: Vec<Option<walk::Seen>>,
) -> Vec<Option<walk::Seen>> {
    for (file, s) in files.iter().zip(seen.iter_mut()) {
        if s.is_none() {
            *s = std::fs::symlink_metadata(&file.path)
                .ok()
                .map(|m| walk::Seen::of(&m));
        }
    }
    seen
}

/// What a search states beside its hits that reading the files does not give, found while
/// they are read: one survey of the tree (every file counted, untracked files looked for),
/// the commit, the index, and the tracked files the search does not read looked at.
struct BesideSoFar {
    counts: Option<spool_walk::left_out::Counts>,
    /// The symlinks the walk let through (see [`Beside`]).
    links: Vec<std::path::PathBuf>,
    /// The hidden files the walk let through, when it counted them.
    walked_hidden: Option<u64>,
    git: Option<(
        spool_walk::git::Repo,
        String,
        Option<spool_walk::git::DirtyCheck>,
    )>,
}

/// The half of [`BesideSoFar`] that needs no walked list: the survey of the tree (every file
/// counted, untracked files looked for), the commit and the index. It runs while the files
/// are walked.
struct Surveyed {
    counts: Option<spool_walk::left_out::Counts>,
    links: Vec<std::path::PathBuf>,
    /// The hidden files the walk let through, when it counted them.
    walked_hidden: Option<u64>,
    /// The repository, its commit, and the dirty check with what the survey found for it.
    git: Option<(spool_walk::git::Repo, String, Option<SurveyedCheck>)>,
}

/// A dirty check with what the survey found for it: (untracked, unknown), and, when it
/// compared the walked files with the index, which of those it compared it tracks (see
/// [`spool_walk::left_out::Survey::tracked_walked`]).
type SurveyedCheck = (
    spool_walk::git::DirtyCheck,
    (bool, bool),
    Option<Vec<(usize, usize)>>,
    Vec<(usize, spool_walk::git::SeenStat)>,
);

/// The repository holding a searched directory, its commit, and its index, read while the
/// files are walked.
struct GitSide(
    Option<(
        spool_walk::git::Repo,
        String,
        Option<spool_walk::git::DirtyCheck>,
    )>,
);

/// The survey of a tree: on its own thread, or made already.
enum Surveying<'scope> {
    Running(std::thread::ScopedJoinHandle<'scope, GitSide>),
    Found(GitSide),
}

impl GitSide {
    fn find(dir: &Path) -> Self {
        Self(
            spool_walk::git::find(dir)
                .and_then(|repo| {
                    let commit = spool_walk::git::head(&repo)?;
                    Some((repo, commit))
                })
                .map(|(repo, commit)| {
                    let check = spool_walk::git::DirtyCheck::load(&repo, dir);
                    (repo, commit, check)
                }),
        )
    }

    /// Surveys what the walk of `walked` left (`left`; all of `dir` when no walk went
    /// before), counting within `count_within` when given.
    fn survey(
        self,
        dir: &Path,
        left: Option<spool_walk::left_out::LeftOut>,
        walked: &[walk::Candidate],
        count_within: Option<Duration>,
    ) -> Surveyed {
        let walked_hidden = left.as_ref().map(|left| left.walked_hidden);
        let left = left.unwrap_or_else(|| spool_walk::left_out::LeftOut::everything(dir));
        let rels: Vec<&str> = if left.checked.is_empty() {
            Vec::new()
        } else {
            walked.iter().map(|f| f.rel.as_str()).collect()
        };
        let Some((repo, commit, check)) = self.0 else {
            let survey = spool_walk::left_out::finish(left, &rels, None, count_within);
            return Surveyed {
                counts: survey.counts,
                links: survey.links,
                walked_hidden,
                git: None,
            };
        };
        let tracked = check.as_ref().map(spool_walk::left_out::Tracked);
        let survey = spool_walk::left_out::finish(left, &rels, tracked.as_ref(), count_within);
        // Which walked files the index tracks is known when the survey compared them.
        let read = (!rels.is_empty()).then_some(survey.tracked_walked);
        Surveyed {
            counts: survey.counts,
            links: survey.links,
            walked_hidden,
            git: Some((
                repo,
                commit,
                check.map(|check| {
                    let found = (survey.untracked, survey.unknown);
                    (check, found, read, survey.tracked_passed)
                }),
            )),
        }
    }
}

impl Surveyed {
    /// Counts the files under `dir` (within `count_within`, when given) and reads what the
    /// version of the tree needs.
    fn find(dir: &Path, count_within: Option<Duration>) -> Self {
        GitSide::find(dir).survey(dir, None, &[], count_within)
    }

    /// Looks at the tracked files the search of `walked` will not read.
    fn prepare(self, walked: &[walk::Candidate]) -> BesideSoFar {
        let Some((repo, commit, check)) = self.git else {
            return BesideSoFar {
                counts: self.counts,
                links: self.links,
                walked_hidden: self.walked_hidden,
                git: None,
            };
        };
        let check = check.map(|(check, found, read, passed)| {
            // When the survey did not compare the walked files (it ran alone), each is looked up.
            let read = read.unwrap_or_else(|| {
                walked
                    .iter()
                    // A name that is not UTF-8 is not named in the index as `rel` spells it.
                    .filter(|f| f.path.to_str().is_some())
                    .filter_map(|f| Some((check.entry_of(&f.rel)?, f.index)))
                    .collect()
            });
            check.prepare(&repo, found, read, &passed)
        });
        BesideSoFar {
            counts: self.counts,
            links: self.links,
            walked_hidden: self.walked_hidden,
            git: Some((repo, commit, check)),
        }
    }
}

impl BesideSoFar {
    /// Counts the files under `dir` (within `count_within`, when given) and prepares the
    /// version of the tree whose files `walked` are.
    fn find(dir: &Path, walked: &[walk::Candidate], count_within: Option<Duration>) -> Self {
        Surveyed::find(dir, count_within).prepare(walked)
    }

    /// The same, surveying what the walk of `walked` left (`left`) when it is known: only the
    /// walk knows which files the globs left out.
    fn find_after(
        dir: &Path,
        left: Option<spool_walk::left_out::LeftOut>,
        walked: &[walk::Candidate],
        count_within: Option<Duration>,
    ) -> Self {
        GitSide::find(dir)
            .survey(dir, left, walked, count_within)
            .prepare(walked)
    }

    /// What the walk left out and the version, from each file's size and time as the search
    /// found them (by walk index; a file not in `seen` is looked at).
    fn finish(
        self,
        filter: &Filter<'_>,
        walked: &[walk::Candidate],
        digest: &str,
        seen: &[Option<walk::Seen>],
    ) -> Beside {
        let mut v = TreeVersion {
            files_digest: digest.to_owned(),
            ..TreeVersion::default()
        };
        if let Some((repo, commit, check)) = self.git {
            v.commit = Some(commit);
            v.staged = check.as_ref().and_then(spool_walk::git::DirtyCheck::staged);
            v.dirty = check.and_then(|check| {
                check.finish(&repo, |i| {
                    let s = seen.get(i).copied().flatten()?;
                    Some(s)
                })
            });
        }
        Beside {
            left_out: left_out(filter, walked, self.counts, self.walked_hidden),
            version: v,
            links: self.links,
        }
    }
}

/// The version of the searched tree: the git commit (and whether the tree differs from it) of
/// the repository holding `dir`, read from git's files (running git would run the repository's
/// configured programs), and always the digest of the files the search read.
pub fn tree_version(dir: &Path, digest: &str) -> TreeVersion {
    let no_filter = Filter {
        hidden: true,
        ..Filter::default()
    };
    BesideSoFar::find(dir, &[], None)
        .finish(&no_filter, &[], digest, &[])
        .version
}
