//! Code search over a directory: ripgrep's walker (`.gitignore` respected, hidden files
//! skipped, globs), every hit counted and stored once as a hit-list artifact, pages of it by
//! cursor, and a time budget past which the answer says what it did and did not cover.

use std::path::Path;
use std::time::{Duration, Instant};

use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::sink::HitSink;
use super::{Hit, Paging, Query, SearchAnswer, build_matcher, page_limit};
use crate::cursor;
use crate::envelope::{ArtifactState, Reason, ReasonCode, Source, SourceKind};
use crate::error::{Error, Result};
use crate::roots::Roots;
use crate::store::{NewArtifact, Store};

/// Default time budget of a directory search.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);
/// Files larger than this are skipped and counted as `too_large`.
pub const MAX_FILE_BYTES: u64 = 512 << 20;

#[derive(Serialize, Deserialize)]
struct TreeCursor {
    k: String,
    h: String,
    q: String,
    i: u64,
}

/// Searches `path` (a directory, or a file) inside the roots.
pub fn search_path(
    store: &Store,
    roots: &Roots,
    path: &str,
    query: &Query,
    globs: &[String],
    paging: &Paging,
    budget: Duration,
) -> Result<SearchAnswer> {
    let real = roots.resolve(path)?;
    if !real.is_dir() {
        let (file, real) = roots.open_file(path)?;
        let meta = crate::files::snapshot_file(store, file, &real)?;
        let mut answer = super::search_artifact(store, &meta.reference, query, paging)?;
        if let Some(scope) = answer.scope.as_object_mut() {
            scope.insert("root".into(), json!(path));
        }
        return Ok(answer);
    }
    let limit = page_limit(paging)?;
    let digest = cursor::digest(&[
        &real.display().to_string(),
        &query.pattern,
        if query.literal { "l" } else { "r" },
        if query.case_insensitive { "i" } else { "s" },
        &globs.join("\u{1}"),
        &paging.context.to_string(),
    ]);
    if let Some(c) = &paging.cursor {
        let p: TreeCursor = cursor::open(store, c)?;
        if p.k != "tree" || p.q != digest {
            return Err(cursor::mismatch("another search"));
        }
        let mut answer = page_of_hits(store, &p.h, query, &digest, p.i, limit)?;
        answer.repeat = super::repeat_args(("path", path), query, paging, globs);
        answer.set_next();
        return Ok(answer);
    }
    let fresh = run_search(store, roots, path, &real, query, globs, paging, budget)?;
    let mut answer = page_of_hits(store, &fresh, query, &digest, 0, limit)?;
    answer.repeat = super::repeat_args(("path", path), query, paging, globs);
    answer.set_next();
    Ok(answer)
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

/// Walks and searches the tree, storing every hit; returns the hit list's ref.
#[expect(
    clippy::too_many_arguments,
    reason = "one walk, told everything it needs once"
)]
fn run_search(
    store: &Store,
    roots: &Roots,
    shown_root: &str,
    dir: &Path,
    query: &Query,
    globs: &[String],
    paging: &Paging,
    budget: Duration,
) -> Result<String> {
    let matcher = build_matcher(query)?;
    let started = Instant::now();
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    for g in globs {
        overrides.add(g).map_err(|e| {
            Error::invalid(
                format!("invalid glob `{g}`: {e}"),
                Some("for example `*.rs` or `!target/**`".to_owned()),
            )
        })?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| Error::invalid(format!("invalid globs: {e}"), None))?;
    let walk = ignore::WalkBuilder::new(dir)
        .overrides(overrides)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build();
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(paging.context as usize)
        .after_context(paging.context as usize)
        .binary_detection(BinaryDetection::none())
        .build();
    let root_shown = shown_root.to_owned();
    let mut writer = store.create(NewArtifact::new(Source {
        kind: SourceKind::Search,
        desc: format!(
            "search /{}/ in {}",
            query.pattern,
            if root_shown.is_empty() {
                "."
            } else {
                &root_shown
            }
        ),
        version: Map::new(),
    }))?;
    let (mut files_searched, mut binary, mut too_large, mut hit_total) = (0u64, 0u64, 0u64, 0u64);
    let mut timed_out = None;
    let mut last_path = String::new();
    for entry in walk {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if files_searched + binary + too_large > 0 && started.elapsed() >= budget {
            timed_out = Some(last_path.clone());
            break;
        }
        let path = entry.path();
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        last_path.clone_from(&rel);
        if entry.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES) {
            too_large += 1;
            continue;
        }
        // Opened again beneath its root, not by name: a directory swapped for a symlink while
        // the walk runs cannot lead the search outside (see `beneath.rs`).
        let Some(file) = roots
            .split(path)
            .ok()
            .and_then(|(root, rel)| crate::beneath::open_file(root, rel).ok())
        else {
            continue;
        };
        if is_binary(&file) {
            binary += 1;
            continue;
        }
        let mut sink = HitSink::new(&matcher, 0, usize::MAX - 1, None);
        sink.path = Some(rel);
        if searcher.search_file(&matcher, &file, &mut sink).is_err() {
            continue;
        }
        files_searched += 1;
        let (found, _) = sink.finish();
        for hit in found {
            hit_total += 1;
            let mut line = serde_json::to_vec(&hit).unwrap_or_default();
            line.push(b'\n');
            writer.write(&line);
        }
    }
    let ignored = if timed_out.is_none() {
        count_all_files(
            dir,
            budget
                .saturating_sub(started.elapsed())
                .min(Duration::from_secs(2)),
        )
        .map(|all| all.saturating_sub(files_searched + binary + too_large))
    } else {
        None
    };
    let mut scope = Map::new();
    scope.insert(
        "root".into(),
        json!(if root_shown.is_empty() {
            ".".to_owned()
        } else {
            root_shown
        }),
    );
    scope.insert("ref".into(), Value::Null);
    scope.insert("version".into(), git_version(dir));
    scope.insert("files_searched".into(), json!(files_searched));
    let mut skipped = Map::new();
    skipped.insert("binary".into(), json!(binary));
    if let Some(ignored) = ignored {
        skipped.insert("ignored".into(), json!(ignored));
    }
    skipped.insert("too_large".into(), json!(too_large));
    scope.insert("files_skipped".into(), Value::Object(skipped));
    scope.insert(
        "duration_ms".into(),
        json!(started.elapsed().as_millis() as u64),
    );
    if let Some(last) = &timed_out {
        scope.insert(
            "covered".into(),
            json!(format!("files in path order up to and including `{last}`; the files after it were not searched")),
        );
    }
    let mut version = Map::new();
    version.insert(
        "query".into(),
        serde_json::to_value(query).unwrap_or(Value::Null),
    );
    version.insert("globs".into(), json!(globs));
    version.insert("scope".into(), Value::Object(scope));
    version.insert("hit_count".into(), json!(hit_total));
    if timed_out.is_some() {
        version.insert("timed_out".into(), json!(true));
    }
    let meta = writer.finish(ArtifactState::Complete, None, version)?;
    Ok(meta.reference)
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
    let v = &meta.source.version;
    let hit_count = v
        .get("hit_count")
        .and_then(Value::as_u64)
        .unwrap_or(meta.lines);
    let mut scope = v.get("scope").cloned().unwrap_or(Value::Null);
    if let Some(obj) = scope.as_object_mut() {
        obj.insert("first_hit_index".into(), json!(first));
    }
    let mut hits: Vec<Hit> = Vec::new();
    if first < meta.lines {
        let start = reader.line_start(first + 1)?;
        let end = if first + limit as u64 >= meta.lines {
            meta.bytes
        } else {
            reader.line_start(first + limit as u64 + 1)?.byte
        };
        let bytes = reader.read_at(start.byte, (end - start.byte) as usize)?;
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let hit: Hit = serde_json::from_slice(line).map_err(|e| Error::Corrupt {
                reference: hits_ref.to_owned(),
                expected: "one JSON hit per line".into(),
                actual: e.to_string(),
            })?;
            hits.push(hit);
        }
    }
    let shown_to = first + hits.len() as u64;
    let truncated = shown_to < hit_count;
    let next_cursor = truncated.then(|| cursor(store, hits_ref, digest, shown_to));
    let reason = (v.get("timed_out").and_then(Value::as_bool) == Some(true)).then(|| Reason {
        code: ReasonCode::Timeout,
        detail: scope.get("covered").and_then(Value::as_str).map_or_else(
            || "the search ran out of time".to_owned(),
            |c| format!("the search ran out of time; it covered {c}"),
        ),
    });
    Ok(SearchAnswer {
        query: query.clone(),
        scope,
        hits,
        hit_count,
        hit_count_exact: reason.is_none(),
        truncated,
        next_cursor,
        reference: Some(hits_ref.to_owned()),
        reason,
        next: Vec::new(),
        page_reason: None,
        repeat: Map::new(),
        resume: super::Resume::Tree {
            hits: hits_ref.to_owned(),
            digest: digest.to_owned(),
            first,
        },
    })
}

/// A NUL in the first 8 KiB: binary. Read at its offset, leaving the file's position at 0.
fn is_binary(file: &std::fs::File) -> bool {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 8192];
    let n = file.read_at(&mut head, 0).unwrap_or(0);
    memchr::memchr(0, &head[..n]).is_some()
}

/// All regular files under `dir`, ignore rules off, if counted within `limit`.
fn count_all_files(dir: &Path, limit: Duration) -> Option<u64> {
    let started = Instant::now();
    let mut n = 0u64;
    // Version-control metadata is not "ignored" content: leave `.git` out of the count.
    let walk = ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.flatten() {
        if started.elapsed() > limit {
            return None;
        }
        if entry.file_type().is_some_and(|t| t.is_file()) {
            n += 1;
        }
    }
    Some(n)
}

/// `{ "commit": ..., "dirty": ... }` of the repository holding `dir`, or `{}` outside one.
/// The commit and dirtiness of the repository holding `dir`, read from git's files (running
/// git would run the repository's configured programs).
fn git_version(dir: &Path) -> Value {
    let Some(repo) = crate::git::find(dir) else {
        return json!({});
    };
    let Some(commit) = crate::git::head(&repo) else {
        return json!({});
    };
    match crate::git::tree_dirty(&repo, dir) {
        Some(dirty) => json!({ "commit": commit, "dirty": dirty }),
        None => json!({ "commit": commit }),
    }
}
