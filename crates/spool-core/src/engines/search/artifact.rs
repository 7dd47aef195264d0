//! Search of one stored artifact: every line read, every hit counted, a page returned, and a
//! cursor that resumes after the last hit shown.

use std::time::Instant;

use super::sink::HitSink;
use super::{
    ArtifactScope, CursorPayload, Paging, Query, Resume, Scope, SearchAnswer, build_matcher,
    page_limit, repeat_args,
};
use crate::calls::Target;
use crate::cursor;
use crate::error::{Error, Result};
use crate::store::Store;

/// Why a search of a stored copy that is not the whole output may miss things.
pub(super) fn incomplete_copy(
    meta: &crate::store::ArtifactMeta,
) -> Option<crate::envelope::Reason> {
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
    let timed_out = meta.source.version.timed_out();
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

/// Searches the whole content as one stream checked by its whole hash: a copy whose chunk
/// sums are not all known (stored before they existed, still arriving, or cut short). Without
/// context lines it is read in blocks, long lines in windows, as a copy in parts is; with
/// them, by lines (a line past the searcher's bound is refused).
fn search_whole(
    reader: &crate::store::ArtifactReader,
    ask: &super::artifact_parts::Ask<'_>,
) -> Result<(Vec<super::Hit>, u64, u64)> {
    let stream = reader.verified_stream()?;
    if ask.paging.context == 0 {
        let from_byte = if ask.after_line > 0 {
            reader.line_start(ask.after_line + 1)?.byte
        } else {
            0
        };
        let mut sink = HitSink::new(ask.matcher, ask.after_line, ask.limit, ask.known_total)
            .keeping_from_byte(from_byte);
        let mut searcher = super::stored_searcher(ask.paging, false);
        super::blocks::search_in_blocks(&mut searcher, ask.matcher, stream, &mut sink)
            .map_err(|e| search_failed(reader, e))?;
        let windowed = sink.windowed_lines();
        let (mut hits, count) = sink.finish();
        for hit in &mut hits {
            hit.line = reader.pos_at_byte(hit.byte_offset)?.line + 1;
        }
        return Ok((hits, count, windowed));
    }
    let mut sink = HitSink::new(ask.matcher, ask.after_line, ask.limit, ask.known_total);
    super::stored_searcher(ask.paging, true)
        .search_reader(ask.matcher, stream, &mut sink)
        .map_err(|e| search_failed(reader, e))?;
    let (hits, count) = sink.finish();
    Ok((hits, count, 0))
}

/// The error a search of `reader` ended with: a core error carried through the searcher (a
/// corrupt chunk) as itself, any other as a read error of the content.
pub(super) fn search_failed(reader: &crate::store::ArtifactReader, e: std::io::Error) -> Error {
    if super::is_line_too_long(&e) {
        return super::line_too_long(reader.meta().reference.as_str());
    }
    match e.downcast::<Error>() {
        Ok(core) => core,
        // A read error of the system (its errno kept), or another carried through the searcher.
        Err(e) => Error::io(reader.content_path(), e),
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
    let ask = super::artifact_parts::Ask {
        matcher: &matcher,
        paging,
        after_line: resume.as_ref().map_or(0, |p| p.after),
        limit,
        known_total: resume.as_ref().map(|p| p.n),
    };
    let (mut hits, counted, windowed) = match super::artifact_parts::search(&reader, &ask)? {
        Some(found) => found,
        None => search_whole(&reader, &ask)?,
    };
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
    let scope = Scope::Artifact(Box::new(ArtifactScope::whole(&meta, shown_before, started)));
    let mut answer = SearchAnswer {
        query: query.clone(),
        scope,
        hits,
        hit_count,
        // A line searched in windows is counted once, but a match longer than the windows'
        // overlap across an edge is not found, and a regex's `^` or `$` matches at an edge.
        hit_count_exact: windowed == 0
            || (query.literal && query.pattern.len() <= super::blocks::WINDOW_OVERLAP),
        windowed_lines: windowed,
        truncated,
        next_cursor,
        reference: Some(reference.to_owned()),
        reason: incomplete_copy(&meta),
        next: Vec::new(),
        page_reason: None,
        files: None,
        files_with_hits: None,
        first_file_index: 0,
        repeat: Some(repeat_args(
            Target::reference(reference),
            query,
            paging,
            &[],
        )),
        resume: Resume::Artifact {
            reference: reference.to_owned(),
            digest,
            first: shown_before,
        },
    };
    answer.set_next();
    Ok(answer)
}
