//! Cutting windows: each piece is one shown range, its exact text, and how to continue after it.

use crate::envelope::{Range, Unit};
use crate::error::Result;
use crate::render::thousands;
use crate::store::ArtifactReader;
use crate::store::index::Pos;
use crate::tokens;
use crate::utf8;

use super::Preview;

mod offsets;
pub use offsets::{bytes_forward, chars_forward};

/// How much one piece may hold.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub tokens: u64,
    /// Bytes read at most; no text has fewer than one byte per token, most have four.
    pub max_bytes: usize,
}

impl Budget {
    pub fn new(tokens: u64, binary: bool) -> Self {
        // Escaped binary costs about three tokens a byte.
        let max_bytes = if binary { tokens / 3 } else { tokens * 8 };
        Self {
            tokens,
            max_bytes: max_bytes.max(16) as usize,
        }
    }

    fn half(self) -> Self {
        Self {
            tokens: self.tokens / 2,
            max_bytes: self.max_bytes / 2,
        }
    }
}

/// The read that continues after a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Continuation {
    Lines { line: u64, limit: u64 },
    Chars { offset: u64, max: u64 },
    Bytes { offset: u64, max: u64 },
}

/// One shown range.
#[derive(Debug, Clone)]
pub struct Piece {
    pub range: Range,
    /// Byte span `[start, end)`.
    pub span: (u64, u64),
    /// Char span `[start, end)`.
    pub chars: (u64, u64),
    /// First and last line (1-based) the piece touches.
    pub lines: (u64, u64),
    pub text: String,
    pub tokens: u64,
    /// `tokens` is an exact count (else it is the byte length, an upper bound).
    pub tokens_exact: bool,
    /// The piece stops short of what was asked because of the cap.
    pub cut_by_cap: bool,
    pub note: Option<String>,
    /// How many of this piece's units one full answer would hold (for `limit` hints).
    pub per_answer: u64,
}

impl Piece {
    /// The read that shows what comes right after this piece.
    pub fn continuation(&self) -> Continuation {
        match self.range.unit {
            Unit::Chars => Continuation::Chars {
                offset: self.chars.1,
                max: self.per_answer,
            },
            Unit::Bytes => Continuation::Bytes {
                offset: self.span.1,
                max: self.per_answer,
            },
            _ => Continuation::Lines {
                line: self.lines.1 + 1,
                limit: self.per_answer,
            },
        }
    }

    pub fn continuation_if_more(&self, total_bytes: u64) -> Option<Continuation> {
        (self.span.1 < total_bytes).then(|| self.continuation())
    }
}

/// Tokens per answer over tokens used, scaled to units: the `limit` a continuation suggests.
pub(super) fn per_answer(units: u64, used_tokens: u64, budget: Budget) -> u64 {
    let full = budget.tokens.max(1) * 2;
    (units.max(1) * full / used_tokens.max(1)).clamp(1, 100_000)
}

pub fn preview(
    reader: &ArtifactReader,
    preview: Preview,
    budget: Budget,
    cut: &mut bool,
) -> Result<Vec<Piece>> {
    let meta = reader.meta();
    if meta.bytes == 0 {
        return Ok(Vec::new());
    }
    let pieces = match preview {
        Preview::Head => vec![lines_forward(reader, 1, None, budget)?],
        Preview::Tail => vec![tail(reader, 1, budget)?],
        Preview::HeadTail => {
            let whole = lines_forward(reader, 1, None, budget)?;
            if whole.span.1 == meta.bytes {
                vec![whole]
            } else {
                let head = lines_forward(reader, 1, None, budget.half())?;
                let tail = tail(reader, head.lines.1 + 1, budget.half())?;
                if tail.span.0 <= head.span.1 {
                    vec![head]
                } else {
                    vec![head, tail]
                }
            }
        }
    };
    *cut = pieces.first().is_some_and(|p| p.span != (0, meta.bytes));
    Ok(pieces)
}

/// Whole lines from `line`, at most `limit`, as many as the budget holds. A first line longer
/// than the budget is windowed by chars.
pub fn lines_forward(
    reader: &ArtifactReader,
    line: u64,
    limit: Option<u64>,
    budget: Budget,
) -> Result<Piece> {
    let size = reader.size();
    let start = reader.line_start(line)?;
    let block = reader.read_at(start.byte, budget.max_bytes)?;
    let at_eof = start.byte + block.len() as u64 >= size;
    let want = limit.unwrap_or(u64::MAX) as usize;
    let mut ends: Vec<usize> = memchr::memchr_iter(b'\n', &block)
        .map(|i| i + 1)
        .take(want)
        .collect();
    if at_eof && ends.len() < want && ends.last().copied().unwrap_or(0) < block.len() {
        ends.push(block.len());
    }
    if ends.is_empty() {
        return long_line_head(reader, line, start, budget);
    }
    let whole_text = utf8::lossy(&block[..ends[ends.len() - 1]]);
    let mut k = fit_prefix_lines(&whole_text, ends.len(), budget.tokens);
    let (text, used, exact) = loop {
        if k == 0 {
            return long_line_head(reader, line, start, budget);
        }
        let text = utf8::lossy(&block[..ends[k - 1]]);
        let (used, exact) = measure(&text, budget.tokens);
        if used <= budget.tokens {
            break (text, used, exact);
        }
        k -= 1;
    };
    let end = ends[k - 1];
    let reached_end = start.byte + end as u64 >= size;
    let cut_by_cap = !reached_end && (k as u64) < limit.unwrap_or(u64::MAX);
    let chars = utf8::count_chars(&block[..end]);
    let last = line + k as u64 - 1;
    Ok(Piece {
        range: Range {
            unit: Unit::Lines,
            start: line,
            end: last,
            bytes: None,
        },
        span: (start.byte, start.byte + end as u64),
        chars: (start.char, start.char + chars),
        lines: (line, last),
        text,
        tokens: used,
        tokens_exact: exact,
        cut_by_cap,
        note: None,
        // Continue with the page size the caller chose (no more than the whole: a count past
        // 2^53 does not survive a JavaScript client), or with what one answer holds.
        per_answer: limit.map_or_else(
            || per_answer(k as u64, used, budget),
            |l| l.min(reader.meta().lines.max(1)),
        ),
    })
}

/// Tokens of `text`, or its byte length when that already proves it fits (no text has more
/// tokens than bytes): the tokenizer is not even loaded for small answers. True when exact.
pub fn measure(text: &str, budget: u64) -> (u64, bool) {
    if text.len() as u64 <= budget {
        (text.len() as u64, false)
    } else {
        (tokens::count(text), true)
    }
}

/// How many of the first `lines` lines of `text` (lossy text of whole lines) probably fit the
/// budget, from one tokenization of all of it. The caller checks the result exactly.
fn fit_prefix_lines(text: &str, lines: usize, budget: u64) -> usize {
    if text.len() as u64 <= budget {
        return lines;
    }
    let ends = tokens::token_ends(text);
    if ends.len() as u64 <= budget {
        return lines;
    }
    let mut line_ends: Vec<usize> = text
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .take(lines)
        .collect();
    if line_ends.len() < lines {
        line_ends.push(text.len());
    }
    // Two tokens of margin for re-tokenization at the cut.
    line_ends.partition_point(|&e| tokens::prefix_bound(&ends, e) + 2 <= budget)
}

/// The most chars of `block` from its start that fit the budget, and their byte length.
pub(super) fn fit_chars_front(
    block: &[u8],
    at_eof: bool,
    max_chars: u64,
    budget: u64,
) -> (usize, u64, String, u64) {
    let (mut nb, mut nc) = utf8::take_chars(block, max_chars, at_eof);
    loop {
        let text = utf8::lossy(&block[..nb]);
        let used = tokens::count(&text);
        if used <= budget || nc <= 1 {
            return (nb, nc, text, used);
        }
        // Shrink in proportion, a little more than needed, then check again.
        let target = (nc * budget * 95 / (used * 100)).clamp(1, nc - 1);
        (nb, nc) = utf8::take_chars(block, target, at_eof);
    }
}

fn long_line_head(reader: &ArtifactReader, line: u64, start: Pos, budget: Budget) -> Result<Piece> {
    let size = reader.size();
    let mut block = reader.read_at(start.byte, budget.max_bytes)?;
    let mut at_eof = start.byte + block.len() as u64 >= size;
    if let Some(nl) = memchr::memchr(b'\n', &block) {
        block.truncate(nl + 1);
        at_eof = true;
    }
    let (nb, nc, text, used) = fit_chars_front(&block, at_eof, u64::MAX, budget.tokens);
    let line_end = line_end_char(reader, line)?;
    let piece_chars = (start.char, start.char + nc);
    Ok(Piece {
        range: Range {
            unit: Unit::Chars,
            start: piece_chars.0,
            end: piece_chars.1,
            bytes: None,
        },
        span: (start.byte, start.byte + nb as u64),
        chars: piece_chars,
        lines: (line, line),
        text,
        tokens: used,
        tokens_exact: true,
        cut_by_cap: true,
        note: Some(long_line_note(line, start.char, line_end, piece_chars)),
        per_answer: nc.max(1),
    })
}

fn line_end_char(reader: &ArtifactReader, line: u64) -> Result<u64> {
    let meta = reader.meta();
    if line >= meta.lines {
        Ok(meta.chars)
    } else {
        Ok(reader.line_start(line + 1)?.char)
    }
}

fn long_line_note(line: u64, line_start: u64, line_end: u64, shown: (u64, u64)) -> String {
    format!(
        "line {} is {} chars long, more than one answer holds; shown by chars: {}-{} of the line (artifact chars {}-{})",
        thousands(line),
        thousands(line_end - line_start),
        thousands(shown.0 - line_start),
        thousands(shown.1 - line_start),
        thousands(shown.0),
        thousands(shown.1),
    )
}

/// The last lines that fit the budget, never before line `min_line`.
pub fn tail(reader: &ArtifactReader, min_line: u64, budget: Budget) -> Result<Piece> {
    let meta = reader.meta();
    let size = meta.bytes;
    let floor = reader.line_start(min_line)?.byte;
    let from = floor.max(size.saturating_sub(budget.max_bytes as u64));
    let block = reader.read_at(from, (size - from) as usize)?;
    // Complete lines in the block, counted from the end.
    let mut bounds: Vec<usize> = memchr::memchr_iter(b'\n', &block).map(|i| i + 1).collect();
    if bounds.last() == Some(&block.len()) {
        bounds.pop();
    }
    let first_is_whole = from == floor;
    let mut starts: Vec<usize> = Vec::with_capacity(bounds.len() + 1);
    if first_is_whole {
        starts.push(0);
    }
    starts.extend(bounds);
    // Line starts in the lossy text (invalid bytes change lengths, never newlines).
    let text = utf8::lossy(&block);
    let mut text_starts: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).collect();
    if text_starts.last() == Some(&text.len()) {
        text_starts.pop();
    }
    if first_is_whole {
        text_starts.insert(0, 0);
    }
    let mut k = if text.len() as u64 <= budget.tokens {
        starts.len() as u64
    } else {
        let ends = tokens::token_ends(&text);
        // Starts are ascending and the bound falls as they move on: the first that fits.
        let first =
            text_starts.partition_point(|&s| tokens::suffix_bound(&ends, s) + 2 > budget.tokens);
        (text_starts.len() - first) as u64
    };
    while k > 0 {
        let piece = lines_forward(reader, meta.lines - k + 1, Some(k), budget)?;
        if piece.span.1 == size && piece.range.unit == Unit::Lines {
            return Ok(piece);
        }
        k -= 1;
    }
    long_line_tail(reader, budget)
}

fn long_line_tail(reader: &ArtifactReader, budget: Budget) -> Result<Piece> {
    let meta = reader.meta();
    let size = meta.bytes;
    let line = meta.lines;
    let line_start = reader.line_start(line)?;
    let from = reader.pos_at_byte(
        line_start
            .byte
            .max(size.saturating_sub(budget.max_bytes as u64)),
    )?;
    let block = reader.read_at(from.byte, (size - from.byte) as usize)?;
    let have = meta.chars - from.char;
    let mut keep = have;
    let (text, used, skip_bytes) = loop {
        let (skip_bytes, _) = utf8::take_chars(&block, have - keep, true);
        let text = utf8::lossy(&block[skip_bytes..]);
        let used = tokens::count(&text);
        if used <= budget.tokens || keep <= 1 {
            break (text, used, skip_bytes);
        }
        keep = (keep * budget.tokens * 95 / (used * 100)).clamp(1, keep - 1);
    };
    let piece_chars = (meta.chars - keep, meta.chars);
    Ok(Piece {
        range: Range {
            unit: Unit::Chars,
            start: piece_chars.0,
            end: piece_chars.1,
            bytes: None,
        },
        span: (from.byte + skip_bytes as u64, size),
        chars: piece_chars,
        lines: (line, line),
        text,
        tokens: used,
        tokens_exact: true,
        cut_by_cap: true,
        note: Some(long_line_note(
            line,
            line_start.char,
            meta.chars,
            piece_chars,
        )),
        per_answer: keep.max(1),
    })
}
