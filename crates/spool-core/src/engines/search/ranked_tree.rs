//! Ranked word search over a directory: the files the regex search would read (`.gitignore`
//! respected, hidden files and globs as asked), cut into passages once, and the passages
//! stored as one artifact (a passage a line: path, lines, offset, text) with its word index
//! beside it. Every query of the same unchanged tree reads that copy: hits are the stored text,
//! pinned to the tree's version, and pages continue by cursor from the same copy.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags, params};
use serde::{Deserialize, Serialize};

use super::ranked::{fts_query, indexed, no_words};
use spool_walk::walk;

use super::{Hit, Query, Resume, Scope, SearchAnswer, TreeScope, WordQuery, page_limit, words_of};
use crate::calls::{SearchParams, Target};
use crate::cursor;
use crate::envelope::{ArtifactState, SearchVersion, Source, Version};
use crate::error::{Error, Result};
use crate::store::{ArtifactReader, Store};
use spool_walk::roots::Roots;

/// Bumped when the stored passages or their index change: a copy of another version is made
/// again.
const TREE_INDEX_VERSION: u32 = 1;

/// Files larger than this are not indexed (counted as too large).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// Indexing reads every file once: it may take this many times the search budget.
const BUILD_BUDGET_FACTOR: u32 = 3;

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct TreeWordsCursor {
    k: String,
    r: String,
    q: String,
    i: u64,
}

/// Searches every file under the directory `path` for passages holding any of the words of
/// `text`, best first.
pub(super) fn search_words_tree(
    search: &super::tree::TreeSearch<'_>,
    text: &str,
) -> Result<SearchAnswer> {
    let (store, roots, path, filter) = (search.store, search.roots, search.path, &search.filter);
    let (paging, budget) = (search.paging, search.budget);
    let limit = page_limit(paging)?;
    let super::ranked::QueryWords {
        looked_for,
        left_out,
        not_used,
    } = words_of(text);
    if looked_for.is_empty() {
        return Err(no_words(text, Target::path(path)));
    }
    let dir = roots.resolve(path)?;
    let digest = cursor::digest(&[
        "words-tree",
        &dir.display().to_string(),
        &looked_for.join(" "),
        &filter.globs.join("\u{1}"),
        if filter.hidden { "h" } else { "-" },
        if filter.no_ignore { "n" } else { "-" },
    ]);
    let (copy, first) = match &paging.cursor {
        Some(c) => {
            let p: TreeWordsCursor = cursor::open(store, c)?;
            if p.k != "words-tree" || p.q != digest {
                return Err(cursor::mismatch("another search"));
            }
            (p.r, p.i)
        }
        None => (
            stored_passages(store, roots, path, &dir, filter, budget)?,
            0,
        ),
    };
    let reader = store.open_artifact(&copy)?;
    let meta = reader.meta().clone();
    let v = meta.source.version.search();
    let mut scope: TreeScope = v
        .and_then(|v| serde_json::from_value(v.scope.clone()).ok())
        .ok_or_else(|| Error::Corrupt {
            reference: copy.clone(),
            expected: "stored passages that name their scope".into(),
            actual: "no scope in its version".into(),
        })?;
    scope.first_hit_index = first;
    let timed_out = v.is_some_and(|v| v.timed_out);
    let conn =
        Connection::open_with_flags(store.words_path(&copy), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let fts = fts_query(&looked_for);
    let hit_count = conn.query_row("SELECT count(*) FROM p WHERE p MATCH ?1", [&fts], |r| {
        r.get::<_, i64>(0)
    })? as u64;
    let mut stmt = conn.prepare(
        "SELECT rowid, bm25(p) FROM p WHERE p MATCH ?1 ORDER BY bm25(p), rowid LIMIT ?2 OFFSET ?3",
    )?;
    let rows = stmt.query_map(params![fts, limit as i64 + 1, first as i64], |r| {
        Ok((r.get::<_, i64>(0)? as u64, r.get::<_, f64>(1)?))
    })?;
    let mut hits = Vec::new();
    for row in rows {
        let (line, bm25) = row?;
        let mut hit = passage_at(&reader, line)?;
        // BM25 as SQLite gives it is lower for better: the score is higher for better.
        hit.score = Some((-bm25 * 100.0).round() / 100.0);
        hits.push(hit);
    }
    let truncated = hits.len() > limit;
    hits.truncate(limit);
    let repeat = SearchParams {
        glob: filter.globs.to_vec(),
        hidden: filter.hidden,
        no_ignore: filter.no_ignore,
        limit: paging.limit,
        ..SearchParams::words(Target::path(path), text)
    };
    let reason = timed_out.then(|| crate::envelope::Reason {
        code: crate::envelope::ReasonCode::Timeout,
        detail: scope.covered.as_deref().map_or_else(
            || "indexing ran out of time".to_owned(),
            |c| format!("indexing ran out of time; it covered {c}"),
        ),
    });
    let mut answer = SearchAnswer {
        query: Query {
            pattern: text.to_owned(),
            literal: false,
            case_insensitive: true,
            words: Some(WordQuery {
                looked_for,
                left_out,
                not_used,
                ranked_by: "bm25".into(),
            }),
        },
        scope: Scope::Tree(scope),
        hits,
        hit_count,
        hit_count_exact: !timed_out,
        windowed_lines: 0,
        truncated,
        next_cursor: None,
        reference: Some(copy.clone()),
        reason,
        next: Vec::new(),
        page_reason: None,
        files: None,
        files_with_hits: None,
        first_file_index: 0,
        repeat: Some(repeat),
        resume: Resume::RankedTree {
            passages: copy,
            digest,
            first,
        },
    };
    if truncated {
        answer.next_cursor = answer.cursor_after(store, answer.hits.len());
    }
    answer.set_next();
    Ok(answer)
}

/// The cursor that continues a tree's ranked passages at passage `at` (0-based).
pub(super) fn cursor(store: &Store, passages: &str, digest: &str, at: u64) -> String {
    cursor::seal(
        store,
        &TreeWordsCursor {
            k: "words-tree".into(),
            r: passages.to_owned(),
            q: digest.to_owned(),
            i: at,
        },
    )
}

/// The passage stored at line `line` of the copy: `[path, start_line, end_line, byte, text]`.
fn passage_at(reader: &ArtifactReader, line: u64) -> Result<Hit> {
    let corrupt = |actual: String| Error::Corrupt {
        reference: reader.meta().reference.clone(),
        expected: "one passage a line".into(),
        actual,
    };
    let start = reader.line_start(line)?.byte;
    let end = if line >= reader.meta().lines {
        reader.size()
    } else {
        reader.line_start(line + 1)?.byte
    };
    let bytes = reader.read_at(start, (end - start) as usize)?;
    let (path, start_line, end_line, byte, text): (String, u64, u64, u64, String) =
        serde_json::from_slice(&bytes).map_err(|e| corrupt(e.to_string()))?;
    Ok(Hit {
        path: Some(path),
        line: start_line,
        byte_offset: byte,
        text,
        trimmed: None,
        before: Vec::new(),
        after: Vec::new(),
        end_line: Some(end_line),
        score: None,
        since: None,
        end_byte: None,
    })
}

/// The ref of the stored passages of the tree as it is now: reused when its files are
/// unchanged (by path, size and modification time), else cut and indexed once.
fn stored_passages(
    store: &Store,
    roots: &Roots,
    shown_root: &str,
    dir: &Path,
    filter: &super::tree::Filter<'_>,
    budget: Duration,
) -> Result<String> {
    let started = Instant::now();
    let mut walked = walk::walk_filtered(dir, filter)?;
    let key = format!(
        "words-tree:{TREE_INDEX_VERSION}:{}:{}:{}:{}:{}",
        dir.display(),
        filter.globs.join("\u{1}"),
        filter.hidden,
        filter.no_ignore,
        walked.digest
    );
    // A build that ran out of time is not reused: the next search tries the whole tree again.
    if let Some(found) = store.find_by_dedup(&key)?
        && !found.source.version.timed_out()
        && store.words_path(&found.reference).exists()
    {
        let within = budget.min(Duration::from_secs(2));
        if super::tree::still_states(&found, dir, filter, &mut walked, within) {
            return Ok(found.reference);
        }
        // The walk's note of what the globs left out went to that check: walked again.
        walked = walk::walk_filtered(dir, filter)?;
    }
    let root_shown = if shown_root.is_empty() {
        ".".to_owned()
    } else {
        shown_root.to_owned()
    };
    let mut new = crate::store::NewArtifact::new(Source::new(
        format!("word index of {root_shown}"),
        Version::Search(SearchVersion::default()),
    ));
    // A file changed within a tick of the walk may change again unseen: stored, not reused.
    new.dedup_key = (!walked.racy).then_some(key);
    let mut writer = store.create(new)?;
    let final_path = store.words_path(writer.reference());
    let building = final_path.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_file(&building);
    let conn = crate::store::open_private_db(&building)?;
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE VIRTUAL TABLE p USING fts5(body, content = '', tokenize = 'porter unicode61 remove_diacritics 2');",
    )?;
    let tx = conn.unchecked_transaction()?;
    let mut passages = 0u64;
    let (n, timed_out) = {
        let mut body = tx.prepare("INSERT INTO p (rowid, body) VALUES (?1, ?2)")?;
        walk::each_file(
            &walked,
            roots,
            MAX_FILE_BYTES,
            (budget * BUILD_BUDGET_FACTOR).saturating_sub(started.elapsed()),
            |file, opened, head| {
                let log = crate::files::reads_as_log(&file.path, head);
                let outcome = super::passages::split(opened, log, &mut |p| {
                    passages += 1;
                    // Strings and numbers: writing them as JSON cannot fail.
                    let line = serde_json::to_vec(&(
                        &file.rel,
                        p.start_line,
                        p.end_line,
                        p.start_byte,
                        &p.text,
                    ))
                    .unwrap_or_default();
                    writer.write(&line);
                    writer.write(b"\n");
                    if let Some(failure) = writer.failure() {
                        // The store is full: no passage is indexed that is not stored.
                        return Err(store_full(&file.rel, failure));
                    }
                    body.execute(params![passages as i64, indexed(&p.text)])?;
                    Ok(())
                });
                if let Some(failure) = writer.failure() {
                    return Err(store_full(&file.rel, failure));
                }
                Ok(outcome.is_ok())
            },
            |_, _| {},
        )
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&building);
        })?
    };
    tx.commit()?;
    drop(conn);
    let scope = super::tree::walked_scope(
        super::tree::Walk {
            dir,
            roots,
            root: root_shown,
            filter,
            left: walked.left.take(),
            walked: &walked,
            started,
            budget: budget * BUILD_BUDGET_FACTOR,
        },
        &n,
        timed_out.as_deref(),
        "indexed",
    );
    let version = super::tree::walked_version(filter, &scope, passages, timed_out.is_some());
    let meta = writer.finish(
        ArtifactState::Complete,
        None,
        Some(Version::Search(version)),
    )?;
    std::fs::rename(&building, &final_path).map_err(|e| Error::io(&final_path, e))?;
    Ok(meta.reference)
}

/// Storing the passages failed: the disk (or the quota's file size limit) is full.
fn store_full(file: &str, failure: &std::io::Error) -> Error {
    Error::Unavailable {
        what: "the store".into(),
        cause: format!("storing the passages of `{file}` failed: {failure}"),
    }
}
