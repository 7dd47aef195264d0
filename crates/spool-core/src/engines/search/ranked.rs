//! Ranked word search: for the agent that does not know the exact word. The artifact is cut
//! into passages (`passages.rs`), indexed once in `SQLite` FTS5 beside its content (English
//! stemming; `snake_case`, `kebab-case` and `CamelCase` names split into words), and a query of
//! words answers every passage that holds any of them, ranked by BM25, with the exact count
//! and the same scope and version as a regex search.
//!
//! Words too common to tell passages apart ("the", "to", "at") are left out of the query and
//! the answer says so, so that the count means something.

use std::path::Path;
use std::time::Instant;

use rusqlite::{Connection, OpenFlags, params};

use super::{
    ArtifactScope, CursorPayload, Hit, Paging, Query, Resume, Scope, SearchAnswer, WordQuery,
    page_limit,
};
use crate::calls::{SearchParams, Target};
use crate::cursor;
use crate::dialect::Words;
use crate::error::{Error, Result};
use crate::store::{ArtifactReader, Store};

/// Words left out of a query: they hold in almost every passage.
const COMMON: [&str; 48] = [
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for",
    "from", "get", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
    "of", "on", "or", "so", "that", "the", "their", "then", "there", "this", "to", "was", "we",
    "what", "when", "where", "which", "with", "you", "your",
];

/// Bumped when passages or indexing change: an index of another version is built again.
const INDEX_VERSION: i64 = 1;

/// The most words a query looks for: the first ones given. 200,000 distinct words took 237 s
/// of CPU (issue 39); 32 is more than any passage's question holds, and the answer says how
/// many were not used.
pub const MAX_QUERY_WORDS: usize = 32;

/// The words of a query: what is looked for, what was left out as too common, and how many
/// past [`MAX_QUERY_WORDS`] were not used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryWords {
    pub looked_for: Vec<String>,
    pub left_out: Vec<String>,
    pub not_used: u64,
}

/// The words of `text`, lowercased, names split into their parts, each once.
pub fn words_of(text: &str) -> QueryWords {
    let mut seen = std::collections::HashSet::new();
    let mut q = QueryWords::default();
    for word in split_words(text) {
        if seen.contains(&word) {
            continue;
        }
        if COMMON.contains(&word.as_str()) {
            if q.left_out.len() < MAX_QUERY_WORDS {
                q.left_out.push(word.clone());
            }
        } else if q.looked_for.len() < MAX_QUERY_WORDS {
            q.looked_for.push(word.clone());
        } else {
            q.not_used += 1;
        }
        seen.insert(word);
    }
    q
}

/// Lowercased words: runs of letters and digits, a `CamelCase` run split at its humps.
fn split_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        if run.is_empty() {
            continue;
        }
        let parts = camel_parts(run);
        if parts.len() > 1 {
            out.extend(parts.iter().map(|p| p.to_lowercase()));
        }
        out.push(run.to_lowercase());
    }
    out
}

/// `skipMcpDiscovery` → `skip`, `Mcp`, `Discovery`; `HTTPServer` → `HTTP`, `Server`.
fn camel_parts(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut cuts = vec![0];
    for w in 1..chars.len() {
        let (i, c) = chars[w];
        let prev = chars[w - 1].1;
        let next_lower = chars.get(w + 1).is_some_and(|(_, n)| n.is_lowercase());
        if c.is_uppercase()
            && (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower))
        {
            cuts.push(i);
        }
    }
    cuts.push(run.len());
    cuts.windows(2)
        .map(|w| &run[w[0]..w[1]])
        .filter(|p| !p.is_empty())
        .collect()
}

/// The text a passage is indexed by: itself, and the parts of the names in it, so that
/// `skipMcpDiscovery` is found by "discovery".
pub(super) fn indexed(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(text);
    for run in text.split(|c: char| !c.is_alphanumeric()) {
        let parts = camel_parts(run);
        if parts.len() > 1 {
            for p in parts {
                out.push(' ');
                out.push_str(p);
            }
        }
    }
    out
}

/// Builds the index of `reader`'s artifact at `path`, unless one of this version is there. It
/// is written beside and renamed into place: a reader never sees half an index.
fn ensure_index(reader: &ArtifactReader, path: &Path, log: bool) -> Result<()> {
    if let Ok(conn) = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        && conn
            .query_row("SELECT version FROM built", [], |r| r.get::<_, i64>(0))
            .is_ok_and(|v| v == INDEX_VERSION)
    {
        return Ok(());
    }
    let building = path.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_file(&building);
    let conn = crate::store::open_private_db(&building)?;
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         CREATE VIRTUAL TABLE p USING fts5(body, content = '', tokenize = 'porter unicode61 remove_diacritics 2');
         CREATE TABLE spans (id INTEGER PRIMARY KEY, start_line INTEGER NOT NULL,
             end_line INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL);
         CREATE TABLE built (version INTEGER NOT NULL, passages INTEGER NOT NULL);",
    )?;
    let tx = conn.unchecked_transaction()?;
    let mut n = 0i64;
    {
        let mut body = tx.prepare("INSERT INTO p (rowid, body) VALUES (?1, ?2)")?;
        let mut span = tx.prepare("INSERT INTO spans VALUES (?1, ?2, ?3, ?4, ?5)")?;
        super::passages::split(reader.verified_stream()?, log, &mut |p| {
            n += 1;
            body.execute(params![n, indexed(&p.text)])?;
            span.execute(params![
                n,
                p.start_line as i64,
                p.end_line as i64,
                p.start_byte as i64,
                p.end_byte as i64
            ])?;
            Ok(())
        })?;
    }
    tx.execute(
        "INSERT INTO built VALUES (?1, ?2)",
        params![INDEX_VERSION, n],
    )?;
    tx.commit()?;
    drop(conn);
    std::fs::rename(&building, path).map_err(|e| Error::io(path, e))
}

/// The FTS5 query for `words`: any of them, each quoted (no word is read as an operator).
pub(super) fn fts_query(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "")))
        .collect::<Vec<_>>()
        .join(" OR ")
}

/// A query with no word to look for: what to give instead, for the same target.
pub(super) fn no_words(text: &str, target: Target) -> Error {
    Error::invalid_words(
        format!("`{text}` has no words to look for (only words too common to rank by)").into(),
        Words::text("give the words the passage would hold, e.g. ").call(
            crate::envelope::NextCall::Search(SearchParams::words(target, "timeout retry")),
        ),
    )
}

/// Searches artifact `reference` for passages holding any of the words of `text`.
pub fn search_words(
    store: &Store,
    reference: &str,
    text: &str,
    paging: &Paging,
) -> Result<SearchAnswer> {
    let limit = page_limit(paging)?;
    let QueryWords {
        looked_for,
        left_out,
        not_used,
    } = words_of(text);
    if looked_for.is_empty() {
        return Err(no_words(text, Target::reference(reference)));
    }
    let digest = cursor::digest(&["words", &looked_for.join(" ")]);
    let first = match &paging.cursor {
        Some(c) => {
            let p: CursorPayload = cursor::open(store, c)?;
            if p.k != "words" || p.r != reference {
                return Err(cursor::mismatch("another artifact"));
            }
            if p.q != digest {
                return Err(cursor::mismatch("another query"));
            }
            p.i
        }
        None => 0,
    };
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta().clone();
    let started = Instant::now();
    let path = store.words_path(reference);
    let log = meta.preview == crate::envelope::Preview::Tail;
    ensure_index(&reader, &path, log)?;
    let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let fts = fts_query(&looked_for);
    let hit_count = conn.query_row("SELECT count(*) FROM p WHERE p MATCH ?1", [&fts], |r| {
        r.get::<_, i64>(0)
    })? as u64;
    let mut stmt = conn.prepare(
        "SELECT s.start_line, s.end_line, s.start_byte, s.end_byte, bm25(p) FROM p
         JOIN spans s ON s.id = p.rowid WHERE p MATCH ?1
         ORDER BY bm25(p), p.rowid LIMIT ?2 OFFSET ?3",
    )?;
    let rows = stmt.query_map(params![fts, limit as i64 + 1, first as i64], |r| {
        Ok((
            r.get::<_, i64>(0)? as u64,
            r.get::<_, i64>(1)? as u64,
            r.get::<_, i64>(2)? as u64,
            r.get::<_, i64>(3)? as u64,
            r.get::<_, f64>(4)?,
        ))
    })?;
    let mut hits = Vec::new();
    for row in rows {
        let (start_line, end_line, start_byte, end_byte, bm25) = row?;
        let bytes = reader.read_at(start_byte, (end_byte - start_byte) as usize)?;
        hits.push(Hit {
            path: None,
            line: start_line,
            byte_offset: start_byte,
            text: String::from_utf8_lossy(&bytes).into_owned(),
            trimmed: None,
            before: Vec::new(),
            after: Vec::new(),
            end_line: Some(end_line),
            // BM25 as SQLite gives it is lower for better: the score is higher for better.
            score: Some((-bm25 * 100.0).round() / 100.0),
            since: None,
            end_byte: Some(end_byte),
        });
    }
    let truncated = hits.len() > limit;
    hits.truncate(limit);
    let query = Query {
        pattern: text.to_owned(),
        literal: false,
        case_insensitive: true,
        words: Some(WordQuery {
            looked_for,
            left_out,
            not_used,
            ranked_by: "bm25".into(),
        }),
    };
    let repeat = SearchParams {
        limit: paging.limit,
        ..SearchParams::words(Target::reference(reference), text)
    };
    let scope = Scope::Artifact(Box::new(ArtifactScope::whole(&meta, first, started)));
    let mut answer = SearchAnswer {
        query,
        scope,
        hits,
        hit_count,
        hit_count_exact: true,
        windowed_lines: 0,
        truncated,
        next_cursor: None,
        reference: None,
        reason: super::artifact::incomplete_copy(&meta),
        next: Vec::new(),
        page_reason: None,
        files: None,
        files_with_hits: None,
        first_file_index: 0,
        repeat: Some(repeat),
        resume: Resume::Ranked {
            reference: reference.to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_split_into_words_and_common_words_left_out() {
        let QueryWords {
            looked_for: looked,
            left_out: out,
            ..
        } = words_of("skip connecting to remote servers at startup");
        assert_eq!(
            looked,
            ["skip", "connecting", "remote", "servers", "startup"]
        );
        assert_eq!(out, ["to", "at"]);
        let looked = words_of("skipMcpDiscovery MCP_DISCOVERY_CACHE").looked_for;
        assert_eq!(
            looked,
            ["skip", "mcp", "discovery", "skipmcpdiscovery", "cache"]
        );
        assert_eq!(camel_parts("HTTPServer"), ["HTTP", "Server"]);
        assert!(indexed("use skipMcpDiscovery").ends_with(" skip Mcp Discovery"));
    }
}
