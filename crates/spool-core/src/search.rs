//! Search over a whole artifact: every hit counted, a page of them returned, the rest by cursor.

mod sink;
mod text;
pub mod tree;

pub use text::render_answer;

use std::time::Instant;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cursor;
use crate::error::{Error, Result};

use crate::store::Store;
use sink::HitSink;

/// Default and largest page of hits.
pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 1_000;
/// Lines longer than this are trimmed around the match.
pub const LONG_LINE: usize = 300;

/// What to look for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    pub pattern: String,
    #[serde(default)]
    pub literal: bool,
    #[serde(default)]
    pub case_insensitive: bool,
}

/// How much of it to return.
#[derive(Debug, Clone, Default)]
pub struct Paging {
    pub context: u64,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u64,
    pub byte_offset: u64,
    pub text: String,
    /// Present when a long line was cut around the match: which chars of the line are shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trimmed: Option<Trim>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<ContextLine>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<ContextLine>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trim {
    pub line_chars: u64,
    pub start_char: u64,
    pub end_char: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContextLine {
    pub line: u64,
    pub text: String,
}

/// The search answer of CONTRACT.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchAnswer {
    pub query: Query,
    pub scope: Value,
    pub hits: Vec<Hit>,
    pub hit_count: u64,
    pub hit_count_exact: bool,
    pub truncated: bool,
    pub next_cursor: Option<String>,
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<crate::envelope::Reason>,
}

#[derive(Debug, Serialize, Deserialize)]
struct CursorPayload {
    k: String,
    r: String,
    q: String,
    after: u64,
    n: u64,
    i: u64,
}

/// The engine for a query: regex or literal, case-sensitive or not.
pub(crate) fn build_matcher(query: &Query) -> Result<grep_regex::RegexMatcher> {
    RegexMatcherBuilder::new()
        .case_insensitive(query.case_insensitive)
        .fixed_strings(query.literal)
        .build(&query.pattern)
        .map_err(|e| {
            Error::invalid(
                format!("invalid pattern: {e}"),
                Some(
                    "fix the regex, or search for the text as it is with `literal: true` (CLI: `--literal`)"
                        .to_owned(),
                ),
            )
        })
}

/// The page size a search asks for, checked.
pub(crate) fn page_limit(paging: &Paging) -> Result<usize> {
    let limit = paging.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(Error::invalid(
            format!("`limit` must be between 1 and {MAX_LIMIT} (got {limit})"),
            Some(format!("ask for `limit` {DEFAULT_LIMIT}")),
        ));
    }
    Ok(limit)
}

/// Why a search of a stored copy that is not the whole output may miss things.
fn incomplete_copy(meta: &crate::store::ArtifactMeta) -> Option<crate::envelope::Reason> {
    use crate::envelope::{ArtifactState, Reason, ReasonCode};
    let detail = || {
        format!(
            "the stored copy is {} ({}); hits count only what it holds",
            meta.state.as_str(),
            meta.capture_detail
                .as_deref()
                .unwrap_or("not the whole output")
        )
    };
    let timed_out = meta
        .source
        .version
        .get("timed_out")
        .and_then(Value::as_bool)
        == Some(true);
    match meta.state {
        ArtifactState::Complete | ArtifactState::Expired => None,
        // Being written on another machine: hits count what has arrived so far.
        ArtifactState::Capturing => Some(Reason {
            code: ReasonCode::UpstreamPartial,
            detail: detail(),
        }),
        ArtifactState::Interrupted if timed_out => Some(Reason {
            code: ReasonCode::Timeout,
            detail: detail(),
        }),
        ArtifactState::Interrupted => Some(Reason {
            code: ReasonCode::SizeCap,
            detail: detail(),
        }),
        ArtifactState::Cancelled => Some(Reason {
            code: ReasonCode::Cancelled,
            detail: detail(),
        }),
    }
}

/// Searches all of artifact `reference`.
pub fn search_artifact(
    store: &Store,
    reference: &str,
    query: &Query,
    paging: &Paging,
) -> Result<SearchAnswer> {
    let limit = page_limit(paging)?;
    let digest = cursor::digest(&[
        &query.pattern,
        if query.literal { "l" } else { "r" },
        if query.case_insensitive { "i" } else { "s" },
        &paging.context.to_string(),
    ]);
    let resume = match &paging.cursor {
        Some(c) => {
            let p: CursorPayload = cursor::open(store, c)?;
            if p.k != "search" || p.r != reference {
                return Err(cursor::mismatch("another artifact"));
            }
            if p.q != digest {
                return Err(cursor::mismatch("another query"));
            }
            Some(p)
        }
        None => None,
    };
    let matcher = build_matcher(query)?;
    let reader = store.open_artifact(reference)?;
    let meta = reader.meta().clone();
    let started = Instant::now();
    let mut sink = HitSink::new(
        &matcher,
        resume.as_ref().map_or(0, |p| p.after),
        limit,
        resume.as_ref().map(|p| p.n),
    );
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .before_context(paging.context as usize)
        .after_context(paging.context as usize)
        .binary_detection(BinaryDetection::none())
        .build();
    let stream = reader.verified_stream()?;
    if let Err(e) = searcher.search_reader(&matcher, stream, &mut sink) {
        return Err(
            match e
                .into_inner()
                .map(<dyn std::error::Error + Send + Sync>::downcast::<Error>)
            {
                Some(Ok(core)) => *core,
                Some(Err(other)) => Error::io(
                    store.root().join("content").join(reference),
                    std::io::Error::other(other),
                ),
                None => Error::io(
                    store.root().join("content").join(reference),
                    std::io::Error::other("search failed"),
                ),
            },
        );
    }
    let (mut hits, counted) = sink.finish();
    let hit_count = resume.as_ref().map_or(counted, |p| p.n);
    let truncated = hits.len() > limit;
    hits.truncate(limit);
    let shown_before = resume.as_ref().map_or(0, |p| p.i);
    let next_cursor = if truncated {
        hits.last().map(|last| {
            cursor::seal(
                store,
                &CursorPayload {
                    k: "search".into(),
                    r: reference.into(),
                    q: digest.clone(),
                    after: last.line,
                    n: hit_count,
                    i: shown_before + hits.len() as u64,
                },
            )
        })
    } else {
        None
    };
    let mut scope = Map::new();
    scope.insert("root".into(), Value::Null);
    scope.insert("ref".into(), reference.into());
    scope.insert(
        "source".into(),
        serde_json::to_value(&meta.source).unwrap_or(Value::Null),
    );
    scope.insert("version".into(), Value::Object(meta.source.version.clone()));
    scope.insert("lines_searched".into(), meta.lines.into());
    scope.insert("bytes_searched".into(), meta.bytes.into());
    scope.insert("whole".into(), true.into());
    scope.insert("first_hit_index".into(), shown_before.into());
    scope.insert(
        "duration_ms".into(),
        (started.elapsed().as_millis() as u64).into(),
    );
    Ok(SearchAnswer {
        query: query.clone(),
        scope: Value::Object(scope),
        hits,
        hit_count,
        hit_count_exact: true,
        truncated,
        next_cursor,
        reference: Some(reference.to_owned()),
        reason: incomplete_copy(&meta),
    })
}
