//! An envelope from the pieces a window cut: the blocks in order (a gap between two pieces),
//! whether the whole was shown and why not, the calls that go on (the forward read first; for
//! a tail, the lines just before it), and what was delivered, for the audit.

use super::pieces::{self, Piece};
use crate::calls::{ReadParams, Target};
use crate::envelope::{
    ArtifactState, Block, CaptureNote, Envelope, Gap, NextCall, Range, Reason, ReasonCode, Unit,
};
use crate::store::ArtifactReader;

pub(super) fn assemble(
    reader: &ArtifactReader,
    pieces: &[Piece],
    whole: bool,
    requested: bool,
    cut_by_cap: bool,
    cap_detail: &str,
) -> Envelope {
    let meta = reader.meta();
    let reference = meta.reference.clone();
    let mut blocks = Vec::new();
    let mut notes = Vec::new();
    let mut next = Vec::new();
    let mut templates = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            let prev = &pieces[i - 1];
            blocks.push(Block::Gap(Box::new(gap_between(&reference, prev, piece))));
            next.push(read_call(&reference, prev.continuation()));
        }
        blocks.push(Block::Shown(piece.text.clone()));
        notes.extend(piece.note.clone());
    }
    // A copy of one page of an upstream's answer that says more exist is never all of it.
    let coverage = meta.source.coverage();
    let upstream_more = coverage.upstream_page.is_some();
    let complete = !upstream_more
        && (whole && meta.state == ArtifactState::Complete
            || meta.bytes == 0
                && pieces.is_empty()
                && !meta.binary
                && meta.state == ArtifactState::Complete);
    let reached_end = pieces.last().is_some_and(|p| p.span.1 == meta.bytes);
    let cap = || Reason {
        code: ReasonCode::TokenCap,
        detail: cap_detail.to_owned(),
    };
    let reason = if complete {
        None
    } else if meta.binary && pieces.is_empty() {
        Some(Reason {
            code: ReasonCode::Binary,
            detail: format!(
                "the content is binary ({}); byte windows show it escaped",
                crate::in_words::human_bytes(meta.bytes)
            ),
        })
    } else if cut_by_cap {
        Some(cap())
    } else if meta.state != ArtifactState::Complete && (whole || reached_end) {
        Some(state_reason(meta))
    } else if upstream_more && (whole || reached_end) {
        Some(Reason {
            code: ReasonCode::UpstreamPartial,
            detail: "the upstream sent one page of its answer and says more exist".into(),
        })
    } else if requested || whole {
        Some(Reason {
            code: ReasonCode::RequestedRange,
            detail: "the caller asked for this range".to_owned(),
        })
    } else {
        Some(cap())
    };
    if !complete {
        if let Some(last) = pieces.last()
            && let Some(cont) = last.continuation_if_more(meta.bytes)
        {
            // The forward continuation goes first: following `next[0]` reads on to the end.
            next.insert(0, read_call(&reference, cont));
        } else if let Some(first) = pieces.first()
            && !requested
            && first.span.0 > 0
            && first.range.unit == crate::envelope::Unit::Lines
        {
            // A tail preview: the way on is the part just before it (reading back, as one
            // reads a log), as many lines as the tail shows.
            let before = first.lines.0 - 1;
            let limit = before.min(first.lines.1 - first.lines.0 + 1);
            next.insert(
                0,
                read_call(
                    &reference,
                    pieces::Continuation::Lines {
                        line: before + 1 - limit,
                        limit,
                    },
                ),
            );
        } else if let Some(first) = pieces.first()
            && !requested
            && first.span.0 > 0
            && first.range.unit == crate::envelope::Unit::Chars
        {
            // A tail preview inside a last line longer than one answer: the way on is the
            // chars just before it.
            let max = first.per_answer.min(first.chars.0);
            next.insert(
                0,
                read_call(
                    &reference,
                    pieces::Continuation::Chars {
                        offset: first.chars.0 - max,
                        max,
                    },
                ),
            );
        }
        if meta.state == ArtifactState::Capturing
            && let Some(last) = pieces.last()
            && last.span.1 == meta.bytes
            && last.range.unit == crate::envelope::Unit::Lines
        {
            // Still being written elsewhere: reading from the last line shown on picks up what
            // has arrived since.
            next.insert(
                0,
                read_call(
                    &reference,
                    pieces::Continuation::Lines {
                        line: last.lines.1.max(1),
                        limit: last.per_answer,
                    },
                ),
            );
        }
        if meta.binary && pieces.is_empty() {
            next.push(read_call(
                &reference,
                pieces::Continuation::Bytes {
                    offset: 0,
                    max: 2048,
                },
            ));
        }
        // "Is X in this page?" is answered by searching the whole copy, not by paging: a
        // template, since the regex is the reader's.
        templates.push(NextCall::search_template(Target::reference(
            reference.as_str(),
        )));
        // The upstream's next page, by its own call.
        if upstream_more && let Some(rest) = coverage.rest.clone() {
            next.push(rest);
        }
    }
    let capture = match meta.state {
        ArtifactState::Complete | ArtifactState::Expired => None,
        state => Some(CaptureNote {
            state,
            detail: meta
                .capture_detail
                .clone()
                .unwrap_or_else(|| format!("the stored copy is {}", state.as_str())),
        }),
    };
    let delivered = crate::envelope::Delivery {
        byte_spans: pieces.iter().map(|p| p.span).collect(),
        bytes: pieces.iter().map(|p| p.span.1 - p.span.0).sum(),
        chars: pieces.iter().map(|p| p.chars.1 - p.chars.0).sum(),
        tokens: None,
    };
    Envelope {
        reference,
        source: meta.source.shown(),
        shown: pieces
            .iter()
            .map(|p| Range {
                bytes: (p.range.unit != Unit::Bytes).then_some([p.span.0, p.span.1]),
                ..p.range
            })
            .collect::<Vec<Range>>(),
        total: meta.totals(),
        complete,
        reason,
        next,
        next_templates: templates,
        capture,
        notes,
        found: None,
        scope: None,
        blocks,
        delivered,
        created_at: meta.created_at,
        redo: meta.redo.clone(),
    }
}

/// Why a stored copy that is shown to its end is still not the whole output.
fn state_reason(meta: &crate::store::ArtifactMeta) -> Reason {
    let detail = meta
        .capture_detail
        .clone()
        .unwrap_or_else(|| format!("the stored copy is {}", meta.state.as_str()));
    let timed_out = meta.source.version.timed_out();
    let code = match meta.state {
        ArtifactState::Interrupted if timed_out => ReasonCode::Timeout,
        // Interrupted otherwise means a write failed: the disk (or a file size limit) was full.
        ArtifactState::Interrupted => ReasonCode::SizeCap,
        // Being written on another machine: the source has given only this much so far.
        ArtifactState::Capturing => ReasonCode::UpstreamPartial,
        _ => ReasonCode::Cancelled,
    };
    Reason { code, detail }
}

/// The gap between two shown pieces, and the read that starts where it starts.
fn gap_between(reference: &str, before: &Piece, after: &Piece) -> Gap {
    if before.range.unit == Unit::Lines && after.range.unit == Unit::Lines {
        let (start, end) = (before.lines.1 + 1, after.lines.0 - 1);
        Gap {
            unit: Unit::Lines,
            start,
            end,
            lines: end + 1 - start,
            chars: after.chars.0 - before.chars.1,
            read: NextCall::Read(ReadParams::lines(Target::reference(reference), start, None)),
        }
    } else {
        let (start, end) = (before.chars.1, after.chars.0);
        Gap {
            unit: Unit::Chars,
            start,
            end,
            lines: 0,
            chars: end - start,
            read: NextCall::Read(ReadParams {
                char_offset: Some(start),
                ..ReadParams::of(Target::reference(reference))
            }),
        }
    }
}

fn read_call(reference: &str, cont: pieces::Continuation) -> NextCall {
    let target = Target::reference(reference);
    NextCall::Read(match cont {
        pieces::Continuation::Lines { line, limit } => ReadParams::lines(target, line, Some(limit)),
        pieces::Continuation::Chars { offset, max } => ReadParams {
            char_offset: Some(offset),
            max_chars: Some(max),
            ..ReadParams::of(target)
        },
        pieces::Continuation::Bytes { offset, max } => ReadParams {
            byte_offset: Some(offset),
            max_bytes: Some(max),
            ..ReadParams::of(target)
        },
    })
}
