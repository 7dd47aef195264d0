//! A preview that carries what the caller asked to find: when the question is known, the first
//! answer holds its best passages beside the head (or the tail), so one call answers it.
//!
//! The whole artifact, when it fits, shows every passage. Otherwise the passages, best first,
//! take up to two thirds of the budget (each whole, or left out for a smaller one that fits),
//! the preview the rest; the pieces then stand in the artifact's order, overlaps merged, with a
//! gap marker between any two.

use super::pieces::{self, Budget, Piece};
use super::{Preview, WindowRequest};
use crate::envelope::{Found, FoundAt, Range, Unit};
use crate::error::Result;
use crate::store::ArtifactReader;

/// A passage smaller than this is not worth a place of its own.
const MIN_PASSAGE_TOKENS: u64 = 24;

/// The pieces of a preview with the passages of `found`, and `found` marked with what they show.
/// (pieces, cut short by the cap, found as shown).
pub(super) fn cut_found(
    reader: &ArtifactReader,
    preview: Option<Preview>,
    found: &Found,
    budget: Budget,
) -> Result<(Vec<Piece>, bool, Found)> {
    let meta = reader.meta();
    let plain = |budget| super::cut(reader, WindowRequest::Preview(preview), budget);
    if meta.binary || meta.bytes == 0 || found.best.is_empty() {
        let (pieces, _, cut_by_cap) = plain(budget)?;
        return Ok((pieces.clone(), cut_by_cap, marked(found, &pieces)));
    }
    let whole = pieces::lines_forward(reader, 1, None, budget)?;
    if whole.span == (0, meta.bytes) {
        let pieces = vec![whole];
        return Ok((pieces.clone(), false, marked(found, &pieces)));
    }
    let mut remaining = budget.tokens * 2 / 3;
    let mut passages: Vec<Piece> = Vec::new();
    for at in &found.best {
        if remaining < MIN_PASSAGE_TOKENS {
            break;
        }
        let piece = passage(reader, at, Budget::new(remaining, false))?;
        if !covers(&piece, at) {
            // Too long for what is left: a smaller passage further down may still fit.
            continue;
        }
        remaining = remaining.saturating_sub(piece.tokens);
        passages.push(piece);
    }
    let used: u64 = passages.iter().map(|p| p.tokens).sum();
    let (base, _, _) = plain(Budget::new(budget.tokens - used, false))?;
    // What one answer of reading on holds: the preview's measure, not a passage's few lines.
    let per_answer = base.first().map(|p| (p.range.unit, p.per_answer));
    let mut all = base;
    all.extend(passages);
    let mut pieces = merge(reader, all)?;
    if let Some((unit, n)) = per_answer {
        for p in pieces.iter_mut().filter(|p| p.range.unit == unit) {
            p.per_answer = p.per_answer.max(n);
        }
    }
    let cut_by_cap = pieces.len() != 1 || pieces[0].span != (0, meta.bytes);
    let found = marked(found, &pieces);
    Ok((pieces, cut_by_cap, found))
}

/// The piece that shows one passage: its whole lines, or (a piece of a line too long for one
/// answer) its chars.
fn passage(reader: &ArtifactReader, at: &FoundAt, budget: Budget) -> Result<Piece> {
    let (first, last) = at.around;
    let line_start = reader.line_start(first)?;
    // A passage's span stops before its last newline.
    let ends_a_line = at.span.1 >= reader.size() || reader.read_at(at.span.1, 1)? == b"\n";
    if line_start.byte == at.span.0 && ends_a_line {
        pieces::lines_forward(reader, first, Some(last - first + 1), budget)
    } else {
        let start = reader.pos_at_byte(at.span.0)?;
        // A piece of a long line may end inside a character: show that character whole.
        let end = reader.pos_at_byte(at.span.1)?;
        let end_char = end.char + u64::from(end.byte < at.span.1);
        pieces::chars_forward(reader, start.char, Some(end_char - start.char), budget)
    }
}

/// Whether `piece` shows all of `at`.
fn covers(piece: &Piece, at: &FoundAt) -> bool {
    piece.span.0 <= at.span.0 && at.span.1 <= piece.span.1
}

/// `found`, each passage marked with whether a piece shows it.
fn marked(found: &Found, pieces: &[Piece]) -> Found {
    let mut found = found.clone();
    for at in &mut found.best {
        at.shown = pieces.iter().any(|p| covers(p, at));
    }
    found
}

/// The pieces in the artifact's order, none overlapping: a piece inside another is dropped,
/// two of whole lines that overlap or touch are cut again as one, and of two others that
/// overlap the later is dropped (its passage is then not marked shown, unless the first holds
/// it).
fn merge(reader: &ArtifactReader, mut all: Vec<Piece>) -> Result<Vec<Piece>> {
    all.sort_by_key(|p| (p.span.0, std::cmp::Reverse(p.span.1)));
    let mut out: Vec<Piece> = Vec::with_capacity(all.len());
    for piece in all {
        let Some(last) = out.last_mut() else {
            out.push(piece);
            continue;
        };
        if piece.span.0 > last.span.1 {
            out.push(piece);
            continue;
        }
        if piece.span.1 <= last.span.1 {
            continue;
        }
        let both_lines = last.range.unit == Unit::Lines && piece.range.unit == Unit::Lines;
        if both_lines {
            let lines = piece.lines.1 - last.lines.0 + 1;
            // A token or two may merge across the join.
            let tokens = last.tokens + piece.tokens + 4;
            let union = pieces::lines_forward(
                reader,
                last.lines.0,
                Some(lines),
                Budget::new(tokens, false),
            )?;
            if union.span.1 >= piece.span.1 {
                let per_answer = last.per_answer.max(piece.per_answer);
                *last = Piece {
                    per_answer,
                    ..union
                };
                continue;
            }
        }
        if piece.span.0 == last.span.1 {
            // Touching, not both whole lines: one piece of their chars. Both are cut at
            // character boundaries, so the joined text is exactly the joined bytes.
            *last = join(last, piece);
        }
        // Otherwise the later overlaps the earlier by chars: it is left out.
    }
    Ok(out)
}

/// Two touching pieces as one range of chars.
fn join(a: &Piece, b: Piece) -> Piece {
    Piece {
        range: Range {
            unit: Unit::Chars,
            start: a.chars.0,
            end: b.chars.1,
            bytes: None,
        },
        span: (a.span.0, b.span.1),
        chars: (a.chars.0, b.chars.1),
        lines: (a.lines.0, b.lines.1),
        text: format!("{}{}", a.text, b.text),
        // A token or two may merge or split across the join: an upper bound, checked exactly
        // when it does not prove the fit.
        tokens: a.tokens + b.tokens + 4,
        tokens_exact: false,
        cut_by_cap: a.cut_by_cap || b.cut_by_cap,
        note: a.note.clone().or(b.note),
        per_answer: a.per_answer.max(b.per_answer),
    }
}
