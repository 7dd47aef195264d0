//! Windows read by offset: chars from a char offset (never splitting a character), bytes
//! from a byte offset (binary shown escaped).

use super::{Budget, Piece, fit_chars_front, per_answer};
use crate::envelope::{Range, Unit};
use crate::error::Result;
use crate::store::ArtifactReader;
use crate::tokens;
use crate::utf8;

/// Chars from `offset`, at most `max`, as many as the budget holds.
pub fn chars_forward(
    reader: &ArtifactReader,
    offset: u64,
    max: Option<u64>,
    budget: Budget,
) -> Result<Piece> {
    let size = reader.size();
    let start = reader.pos_at_char(offset)?;
    let block = reader.read_at(start.byte, budget.max_bytes)?;
    let at_eof = start.byte + block.len() as u64 >= size;
    let want = max.unwrap_or(u64::MAX);
    let (nb, nc, text, used) = fit_chars_front(&block, at_eof, want, budget.tokens);
    let end_byte = start.byte + nb as u64;
    let newlines = bytecount::count(&block[..nb], b'\n') as u64;
    Ok(Piece {
        range: Range {
            unit: Unit::Chars,
            start: offset,
            end: offset + nc,
            bytes: None,
        },
        span: (start.byte, end_byte),
        chars: (offset, offset + nc),
        lines: (start.line + 1, start.line + 1 + newlines),
        text,
        tokens: used,
        tokens_exact: true,
        cut_by_cap: nc < want && end_byte < size,
        note: None,
        per_answer: max.map_or_else(
            || per_answer(nc, used, budget),
            |m| m.min(reader.meta().chars.max(1)),
        ),
    })
}

/// The whole valid character holding byte `at` (its first byte and its bytes), if there is one.
fn whole_char_at(reader: &ArtifactReader, at: u64) -> Result<Option<(u64, Vec<u8>)>> {
    let from = at.saturating_sub(3);
    let around = reader.read_at(from, 7)?;
    let here = (at - from) as usize;
    let Some(lead) = (0..=here.min(around.len().saturating_sub(1)))
        .rev()
        .find(|&i| !utf8::is_continuation(around[i]))
    else {
        return Ok(None);
    };
    let len = match around[lead] {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    let bytes = around.get(lead..lead + len);
    Ok(bytes
        .filter(|b| lead + len > here && std::str::from_utf8(b).is_ok())
        .map(|b| (from + lead as u64, b.to_vec())))
}

/// Bytes from `offset`, at most `max`. Text never splits a char (the window moves to the
/// nearest boundaries inside it); binary is shown escaped.
pub fn bytes_forward(
    reader: &ArtifactReader,
    offset: u64,
    max: Option<u64>,
    budget: Budget,
) -> Result<Piece> {
    let meta = reader.meta();
    let size = meta.bytes;
    let want = max.unwrap_or(u64::MAX).min(budget.max_bytes as u64) as usize;
    // Cut by the cap only when the budget, not the caller's `max_bytes` or the snap to whole
    // characters, ended the window (regression, issue 38: a window moved to the next
    // character's start was said to be cut by `token_cap`).
    let mut by_budget = (want as u64) < max.unwrap_or(u64::MAX);
    let mut block = reader.read_at(offset, want)?;
    let mut start = offset;
    let mut note = None;
    if !meta.binary {
        let skip = block
            .iter()
            .take(3)
            .take_while(|&&b| utf8::is_continuation(b))
            .count();
        // The whole window is the inside of one character.
        let inside_one = skip > 0 && skip == block.len();
        if skip > 0 && skip < block.len() {
            block.drain(..skip);
            start += skip as u64;
            note = Some(format!(
                "byte {offset} is inside a character; the window starts at the next character, byte {start}"
            ));
        }
        let at_eof = start + block.len() as u64 >= size;
        let (nb, _) = utf8::take_chars(&block, u64::MAX, at_eof);
        if nb > 0 && !inside_one {
            block.truncate(nb);
        } else if let Some((lead, whole)) = whole_char_at(reader, offset)? {
            // The window holds part of one character: it is shown whole, never a fragment.
            note = Some(format!(
                "bytes {offset}-{} are part of one character; the window is widened to it, bytes {lead}-{}",
                offset + block.len() as u64,
                lead + whole.len() as u64
            ));
            start = lead;
            block = whole;
        }
    }
    let show = |b: &[u8]| {
        if meta.binary {
            utf8::escape_binary(b)
        } else {
            utf8::lossy(b)
        }
    };
    let mut text = show(&block);
    let mut used = tokens::count(&text);
    while used > budget.tokens && block.len() > 1 {
        by_budget = true;
        let keep = (block.len() as u64 * budget.tokens * 95 / (used * 100)).max(1) as usize;
        block.truncate(keep);
        if !meta.binary {
            let (nb, _) = utf8::take_chars(&block, u64::MAX, false);
            block.truncate(nb.max(1));
        }
        text = show(&block);
        used = tokens::count(&text);
    }
    let end = start + block.len() as u64;
    let first = reader.pos_at_byte(start)?;
    let chars = if meta.binary {
        0
    } else {
        utf8::count_chars(&block)
    };
    let newlines = bytecount::count(&block, b'\n') as u64;
    Ok(Piece {
        range: Range {
            unit: Unit::Bytes,
            start,
            end,
            bytes: None,
        },
        span: (start, end),
        chars: (first.char, first.char + chars),
        lines: (first.line + 1, first.line + 1 + newlines),
        text,
        tokens: used,
        tokens_exact: true,
        cut_by_cap: by_budget && end < size,
        note,
        per_answer: max.unwrap_or(block.len() as u64).min(size).max(1),
    })
}
