//! Search of one stored artifact split into parts on every core. Each part owns whole chunks
//! of the content, which it checks against their chunk sums from the bytes it has just read,
//! and the lines that start among them; hits are put back in content order, every one counted.
//! Lines are not numbered while searching (counting every newline was a fifth of the time):
//! the hits kept for the page find their line in the artifact's line index.

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use grep_regex::RegexMatcher;

use super::Hit;
use super::sink::HitSink;
use crate::error::Result;
use crate::store::{ArtifactReader, ChunkSums};

/// The least content one part is worth a thread for.
const MIN_PART: u64 = 4 << 20;
/// Parts per thread: hits bunched in one part do not leave the other threads idle.
const PARTS_PER_THREAD: u64 = 4;
/// Bytes read per step while looking for the newline that ends a part.
const PROBE: usize = 64 * 1024;

/// What a search of the artifact asks: hits after `after_line`, a page of `limit`, and the
/// total when a cursor already carries it (the search then stops once the page is full).
pub(super) struct Ask<'a> {
    pub matcher: &'a RegexMatcher,
    pub paging: &'a super::Paging,
    pub after_line: u64,
    pub limit: usize,
    pub known_total: Option<u64>,
}

/// One part: the chunks it checks and the lines it searches (those that start in its chunks).
struct Part {
    check: Range<u64>,
    lines: Range<u64>,
}

/// What one part found: hits with their byte in the whole content (lines not yet numbered).
struct Found {
    hits: Vec<Hit>,
    count: u64,
    /// Lines longer than a window, searched in windows (see `blocks`).
    windowed: u64,
}

type Outcomes = Mutex<Vec<Option<Result<Found>>>>;

/// The page of hits (at most `limit` + 1), the hits counted and the lines searched in windows,
/// when the content's chunk sums are all known; `None` leaves the search to the whole-hash
/// stream.
pub(super) fn search(
    reader: &ArtifactReader,
    ask: &Ask<'_>,
) -> Result<Option<(Vec<Hit>, u64, u64)>> {
    let Some(sums) = reader.chunk_sums()? else {
        return Ok(None);
    };
    if ask.paging.context > 0 {
        // Context lines cross part boundaries and carry line numbers: one numbered part.
        let part = Part {
            check: 0..reader.size(),
            lines: 0..reader.size(),
        };
        let found = search_part(reader, &sums, &part, ask, ask.matcher, None)?;
        return Ok(Some((found.hits, found.count, found.windowed)));
    }
    let size = reader.size();
    let threads = spool_walk::workers::count(16) as u64;
    let wanted = (size / MIN_PART).clamp(1, threads * PARTS_PER_THREAD);
    let parts = split(reader, &sums, wanted)?;
    // A later page starts at the line after the cursor's.
    let from_byte = if ask.after_line > 0 {
        reader.line_start(ask.after_line + 1)?.byte
    } else {
        0
    };
    let next = AtomicUsize::new(0);
    let found: Outcomes = Mutex::new((0..parts.len()).map(|_| None).collect());
    let workers = (threads as usize).min(parts.len());
    let work = || {
        // A matcher of its own: a shared one hands each thread but its first a cache
        // from a locked pool on every line (every-line hits ran 1.8x slower).
        let matcher = ask.matcher.clone();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= parts.len() || page_is_full(&found, ask, i) {
                return;
            }
            let part = &parts[i];
            let outcome = if ask.known_total.is_some() && part.lines.end <= from_byte {
                // A later page: every line of this part comes before the cursor.
                Ok(Found {
                    hits: Vec::new(),
                    count: 0,
                    windowed: 0,
                })
            } else {
                search_part(reader, &sums, part, ask, &matcher, Some(from_byte))
            };
            let failed = outcome.is_err();
            if let Ok(mut all) = found.lock() {
                all[i] = Some(outcome);
            }
            if failed {
                // The first error is the answer: the other threads stop too.
                next.store(parts.len(), Ordering::Relaxed);
                return;
            }
        }
    };
    std::thread::scope(|scope| {
        if spool_walk::workers::pool(scope, "search", workers, &work) == 0 {
            // No thread to be had: this one searches every part.
            work();
        }
    });
    let all = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut hits = Vec::new();
    let mut count = 0;
    let mut windowed = 0;
    for outcome in all.into_iter().flatten() {
        // (A part not searched: a later page was full before it, or an error came first.)
        let part = outcome?;
        count += part.count;
        windowed += part.windowed;
        for hit in part.hits {
            if hits.len() <= ask.limit {
                hits.push(hit);
            }
        }
    }
    for hit in &mut hits {
        hit.line = reader.pos_at_byte(hit.byte_offset)?.line + 1;
    }
    Ok(Some((hits, count, windowed)))
}

/// On a later page (the total known), whether the parts before `i` already hold the page.
fn page_is_full(found: &Outcomes, ask: &Ask<'_>, i: usize) -> bool {
    if ask.known_total.is_none() {
        return false;
    }
    let Ok(all) = found.lock() else {
        return true;
    };
    let mut kept = 0;
    for outcome in &all[..i] {
        match outcome {
            Some(Ok(part)) => kept += part.hits.len(),
            Some(Err(_)) => return true,
            None => return false,
        }
        if kept > ask.limit {
            return true;
        }
    }
    false
}

/// Searches one part; with `from_byte`, lines are not numbered and hits keep their byte in
/// the whole content, else lines are numbered (the part is the whole content).
fn search_part(
    reader: &ArtifactReader,
    sums: &ChunkSums,
    part: &Part,
    ask: &Ask<'_>,
    matcher: &RegexMatcher,
    from_byte: Option<u64>,
) -> Result<Found> {
    let mut sink = HitSink::new(matcher, ask.after_line, ask.limit, ask.known_total);
    let stream = reader.checked_range(sums, part.check.clone(), part.lines.clone());
    let searched = match from_byte {
        Some(from) => {
            sink = sink.keeping_from_byte(from.saturating_sub(part.lines.start));
            let mut searcher = super::stored_searcher(ask.paging, false);
            super::blocks::search_in_blocks(&mut searcher, matcher, stream, &mut sink).map(drop)
        }
        None => super::stored_searcher(ask.paging, true).search_reader(matcher, stream, &mut sink),
    };
    searched.map_err(|e| super::artifact::search_failed(reader, e))?;
    let windowed = sink.windowed_lines();
    let (mut hits, count) = sink.finish();
    for hit in &mut hits {
        hit.byte_offset += part.lines.start;
    }
    Ok(Found {
        hits,
        count,
        windowed,
    })
}

/// `wanted` parts of about equal size, each a run of whole chunks, and the lines that start in
/// each (a line belongs to the part its first byte is in).
fn split(reader: &ArtifactReader, sums: &ChunkSums, wanted: u64) -> Result<Vec<Part>> {
    let size = reader.size();
    let mut starts: Vec<u64> = (0..wanted)
        .map(|i| size * i / wanted / sums.stride * sums.stride)
        .collect();
    starts.dedup();
    // Where each part's first line starts, found from the last part back: a line longer than
    // a part is looked through once, not once per part it spans.
    let mut line_starts = vec![size; starts.len() + 1];
    for i in (1..starts.len()).rev() {
        let until = starts.get(i + 1).copied().unwrap_or(size);
        line_starts[i] = first_line_start(reader, starts[i], until)?.unwrap_or(line_starts[i + 1]);
    }
    line_starts[0] = 0;
    Ok((0..starts.len())
        .map(|i| Part {
            check: starts[i]..starts.get(i + 1).copied().unwrap_or(size),
            lines: line_starts[i]..line_starts[i + 1],
        })
        .collect())
}

/// The first line start in `from..until` (the byte after a newline at `from - 1` or later).
fn first_line_start(reader: &ArtifactReader, from: u64, until: u64) -> Result<Option<u64>> {
    let mut at = from - 1;
    while at < until {
        let block = reader.read_at(at, PROBE.min((until - at) as usize))?;
        if block.is_empty() {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &block) {
            let start = at + i as u64 + 1;
            return Ok((start < until).then_some(start));
        }
        at += block.len() as u64;
    }
    Ok(None)
}
