//! Hits per file (`count`), as `rg --count` gives them: which files hold the pattern and how
//! often, every file counted, a page at a time. A model that asks "which files mention
//! `timeout`, and how often" reads one line a file instead of paging through every hit.
//!
//! The counts are read from the stored hit list of the search (one line a hit, file by file in
//! path order) and stored once beside it, one `["path", hits]` a line, under a key of the list:
//! every page of them reads that one copy, and its total is the list's, exact.

use serde::{Deserialize, Serialize};

use super::{Query, Scope, SearchAnswer};
use crate::cursor;
use crate::envelope::{ArtifactState, SearchVersion, Source, Version};
use crate::error::{Error, Result};
use crate::store::{NewArtifact, Store};

/// One file and the lines in it that match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileCount {
    pub path: String,
    pub hits: u64,
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct CountsCursor {
    k: String,
    c: String,
    q: String,
    i: u64,
}

/// The cursor that continues the counts `counts` at file `at` (0-based).
pub(super) fn cursor(store: &Store, counts: &str, digest: &str, at: u64) -> String {
    cursor::seal(
        store,
        &CountsCursor {
            k: "counts".into(),
            c: counts.to_owned(),
            q: digest.to_owned(),
            i: at,
        },
    )
}

/// The counts a cursor continues, and the file it continues at.
pub(super) fn open_cursor(store: &Store, c: &str, digest: &str) -> Result<(String, u64)> {
    let p: CountsCursor = cursor::open(store, c)?;
    if p.k != "counts" || p.q != digest {
        return Err(cursor::mismatch("another search"));
    }
    Ok((p.c, p.i))
}

/// The counts of the stored hit list `hits` (a directory search's), stored once beside it.
pub(super) fn counts_of(store: &Store, hits: &str) -> Result<String> {
    let key = format!("hit-counts:{hits}");
    if let Some(found) = store.find_by_dedup(&key)? {
        return Ok(found.reference);
    }
    let reader = store.open_artifact(hits)?;
    let meta = reader.meta().clone();
    let corrupt = |why: String| Error::Corrupt {
        reference: hits.to_owned(),
        expected: "one JSON hit per line".into(),
        actual: why,
    };
    let mut out: Vec<u8> = Vec::new();
    let mut current: Option<(String, u64)> = None;
    let flush = |file: Option<(String, u64)>, out: &mut Vec<u8>| {
        if let Some((path, n)) = file {
            // Writing JSON into memory does not fail.
            let _ = serde_json::to_writer(&mut *out, &(path, n));
            out.push(b'\n');
        }
    };
    let mut rest = Vec::new();
    let mut at = 0u64;
    loop {
        let chunk = reader.read_at(at, 1 << 20)?;
        if chunk.is_empty() {
            break;
        }
        at += chunk.len() as u64;
        rest.extend_from_slice(&chunk);
        let cut = rest.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        for line in rest[..cut].split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let hit = super::hitlist::decode(line).map_err(corrupt)?;
            let path = hit.path.unwrap_or_default();
            match &mut current {
                Some((p, n)) if *p == path => *n += 1,
                _ => flush(current.replace((path, 1)), &mut out),
            }
        }
        rest.drain(..cut);
    }
    flush(current.take(), &mut out);
    let version = match &meta.source.version {
        Version::Search(v) => SearchVersion {
            hit_count: v.hit_count,
            ..v.clone()
        },
        _ => SearchVersion::default(),
    };
    let mut new = NewArtifact::new(Source::new(
        format!("hits per file of {}", meta.source.desc),
        Version::Search(version),
    ));
    new.dedup_key = Some(key);
    let mut writer = store.create(new)?;
    writer.write(&out);
    Ok(writer
        .finish(ArtifactState::Complete, None, None)?
        .reference)
}

/// One page of the counts `counts_ref`, from file `first` (0-based), at most `limit` files.
pub(super) fn page_of_counts(
    store: &Store,
    counts_ref: &str,
    query: &Query,
    digest: &str,
    first: u64,
    limit: usize,
) -> Result<SearchAnswer> {
    let reader = store.open_artifact(counts_ref)?;
    let meta = reader.meta();
    let (mut scope, counted, reason) =
        super::tree::stored_scope(meta, "hits per file that name their scope")?;
    let hit_count = counted.unwrap_or(0);
    scope.first_hit_index = 0;
    let mut files = Vec::new();
    for line in super::tree::page_lines(&reader, first, limit)?.split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let (path, hits): (String, u64) =
            serde_json::from_slice(line).map_err(|e| Error::Corrupt {
                reference: counts_ref.to_owned(),
                expected: "one [path, hits] a line".into(),
                actual: e.to_string(),
            })?;
        files.push(FileCount { path, hits });
    }
    let shown_to = first + files.len() as u64;
    let truncated = shown_to < meta.lines;
    Ok(SearchAnswer {
        query: query.clone(),
        scope: Scope::Tree(scope),
        hits: Vec::new(),
        hit_count,
        hit_count_exact: reason.is_none(),
        windowed_lines: 0,
        truncated,
        next_cursor: truncated.then(|| cursor(store, counts_ref, digest, shown_to)),
        reference: Some(counts_ref.to_owned()),
        reason,
        next: Vec::new(),
        page_reason: None,
        files: Some(files),
        files_with_hits: Some(meta.lines),
        first_file_index: first,
        repeat: None,
        resume: super::Resume::Counts {
            counts: counts_ref.to_owned(),
            digest: digest.to_owned(),
            first,
        },
    })
}

/// The counts of an answer over one artifact (a ref or a file): that one, when it has hits.
pub(super) fn of_one(mut answer: SearchAnswer, name: &str) -> SearchAnswer {
    let files = if answer.hit_count > 0 {
        vec![FileCount {
            path: name.to_owned(),
            hits: answer.hit_count,
        }]
    } else {
        Vec::new()
    };
    answer.files_with_hits = Some(files.len() as u64);
    answer.files = Some(files);
    answer.hits.clear();
    answer.truncated = false;
    answer.next_cursor = None;
    answer.resume = super::Resume::Nowhere;
    // One entry: no page of it to size.
    if let Some(r) = &mut answer.repeat {
        r.limit = None;
        r.count = true;
    }
    answer.set_next();
    answer
}
