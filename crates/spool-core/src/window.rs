//! Honest windows: the part of an artifact that fits an answer, and the exact words for the rest.

mod pieces;

use serde_json::{Value, json};

use crate::envelope::ArtifactState;
use crate::envelope::{
    Block, CaptureNote, Envelope, Gap, NextCall, Range, Reason, ReasonCode, Unit,
};
use crate::error::{Error, Result};
use crate::fit::{self, Cap, Forms, Size};
use crate::render;
use crate::spell::Words;
use crate::store::{ArtifactReader, Store};
use crate::tokens;
use crate::wire;
use pieces::Budget;
pub use pieces::{Continuation, Piece};

/// Default answer cap, in tokens.
pub const DEFAULT_MAX_TOKENS: u64 = 8_000;
/// The largest cap an answer may ask for.
pub const MAX_MAX_TOKENS: u64 = 1_000_000;
/// The smallest cap an answer may ask for: a partial answer sends its facts twice (the banner
/// in the text, `notice` and the fields in the structured content), and each part must fit.
pub const MIN_MAX_TOKENS: u64 = 512;
/// Tokens kept back from the cap for the banner and gap marker.
const RESERVE_TOKENS: u64 = 160;
/// Tokens allowed for a merge across the newline between banner and content.
const BOUNDARY_SLACK: u64 = 4;

pub use crate::envelope::Preview;

/// What part of an artifact the caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowRequest {
    /// The artifact's own preview (head, tail or head and tail).
    Preview(Option<Preview>),
    /// From 1-based `line`, at most `limit` lines.
    Lines { line: u64, limit: Option<u64> },
    /// The last `lines` lines.
    LastLines { lines: u64 },
    /// From 0-based char offset, at most `max` chars.
    Chars { offset: u64, max: Option<u64> },
    /// From 0-based byte offset, at most `max` bytes.
    Bytes { offset: u64, max: Option<u64> },
}

/// Answers a window request over a stored artifact.
pub fn read_window(
    store: &Store,
    reference: &str,
    request: WindowRequest,
    cap: impl Into<Cap>,
) -> Result<Envelope> {
    let reader = store.open_artifact(reference)?;
    window(&reader, request, cap)
}

/// Answers a window request over an open artifact.
pub fn window(
    reader: &ArtifactReader,
    request: WindowRequest,
    cap: impl Into<Cap>,
) -> Result<Envelope> {
    window_with_notes(reader, request, cap, &[])
}

/// Checks a cap asked for: between [`MIN_MAX_TOKENS`] and [`MAX_MAX_TOKENS`].
pub fn check_cap(max_tokens: u64) -> Result<()> {
    if max_tokens > MAX_MAX_TOKENS {
        return Err(Error::invalid_words(
            Words::default().arg("read", "max_tokens").then(format!(
                " must be at most {} (got {max_tokens})",
                render::thousands(MAX_MAX_TOKENS)
            )),
            Words::text("ask for ")
                .arg_value("read", "max_tokens", DEFAULT_MAX_TOKENS)
                .then(format!(", or up to {MAX_MAX_TOKENS}")),
        ));
    }
    if max_tokens < MIN_MAX_TOKENS {
        return Err(Error::invalid_words(
            Words::default().arg("read", "max_tokens").then(format!(
                " must be at least {MIN_MAX_TOKENS} (got {max_tokens})"
            )),
            Words::text("ask for ")
                .arg("read", "max_tokens")
                .then(format!(" between {MIN_MAX_TOKENS} and any larger cap")),
        ));
    }
    Ok(())
}

/// The same, with notes of the caller's (a reused or changed page, ...) shown first in the
/// banner and counted within the cap.
///
/// Every form the answer is sent in fits the cap alone: the text (banner, ranges, gap markers)
/// and the structured JSON (`notice`, facts and `content`, escapes counted), in the MCP and the
/// CLI dialect.
pub fn window_with_notes(
    reader: &ArtifactReader,
    request: WindowRequest,
    cap: impl Into<Cap>,
    notes: &[String],
) -> Result<Envelope> {
    let cap = cap.into();
    let max_tokens = cap.tokens;
    check_cap(max_tokens)?;
    let meta = reader.meta();
    let mut notes = notes.to_vec();
    if let Some(failure) = &meta.share_failure {
        notes.push(format!(
            "the shared store did not get all of it, so it reads whole only on this machine ({failure}); `spool gc` publishes it once the shared store answers"
        ));
    }
    // The banner names the source (and the structured form names it again, with the version):
    // a long command line must not push the answer over the cap. Byte lengths bound their
    // tokens without loading the tokenizer; JSON of short fields runs well under one token a
    // byte, so half of it is a fair first guess, and the measure below is exact.
    let in_json = cap.forms != Forms::Text;
    let notes_bytes = notes.iter().map(|n| n.len() as u64).sum::<u64>();
    let mut reserve =
        RESERVE_TOKENS + render::describe_source(&meta.source).len() as u64 + notes_bytes;
    if in_json {
        reserve +=
            serde_json::to_string(&meta.source).map_or(0, |s| s.len() as u64 / 2) + notes_bytes;
    }
    if max_tokens < reserve + MIN_MAX_TOKENS / 2 {
        return Err(Error::invalid_words(
            Words::default()
                .arg_value("read", "max_tokens", max_tokens)
                .then(format!(
                    " leaves no room for content after the banner ({reserve} tokens)"
                )),
            Words::text("ask for ")
                .arg("read", "max_tokens")
                .then(format!(" of at least {}", reserve + MIN_MAX_TOKENS)),
        ));
    }
    let mut content_tokens = max_tokens - reserve;
    // Content tokens below this are not worth another cut: the banner alone is the problem.
    let floor = MIN_MAX_TOKENS / 16;
    let mut cut_by_chars = false;
    // The answer's exact size is known only once the window is cut: cut, measure every form,
    // and cut again smaller in the rare case one of them passes the cap.
    for attempt in 0..8u64 {
        let budget = Budget::new(content_tokens, meta.binary);
        let (pieces, requested, cut_by_cap) = cut(reader, request, budget)?;
        let whole = pieces.len() == 1 && pieces[0].span == (0, meta.bytes) || meta.bytes == 0;
        if whole {
            let bytes = reader.read_at(0, meta.bytes as usize)?;
            reader.check_whole(&bytes)?;
        }
        let cut_by_cap = cut_by_cap || cut_by_chars;
        let mut envelope = assemble(
            reader,
            &pieces,
            whole,
            requested,
            cut_by_cap,
            &cap.detail(cut_by_chars),
        );
        envelope.notes.splice(0..0, notes.iter().cloned());
        let size = cap.forms.pick(
            || text_size(&envelope, &pieces, cap),
            || json_size(&envelope, cap),
        );
        if cap.holds(size) {
            envelope.delivered.tokens = pieces
                .iter()
                .all(|p| p.tokens_exact)
                .then(|| pieces.iter().map(|p| p.tokens).sum());
            return Ok(envelope);
        }
        if content_tokens <= floor || pieces.is_empty() {
            break;
        }
        cut_by_chars |= size.chars > cap.chars;
        // Shrink the content by what the answer overran: by tokens at least the overrun (and a
        // little), and in proportion, since escapes can make the JSON grow faster than the
        // text; each further attempt shrinks a little more, so that the loop ends.
        let by_overrun = content_tokens.saturating_sub(size.tokens.saturating_sub(max_tokens) + 8);
        let by_share = content_tokens * cap.share(size) / 1000 * (20 - attempt) / 20;
        content_tokens = by_overrun.min(by_share).max(floor);
    }
    Err(Error::invalid_words(
        Words::text("no window of this artifact fits ")
            .arg_value("read", "max_tokens", max_tokens)
            .then(" with its banner"),
        Words::text("ask for a larger ")
            .arg("read", "max_tokens")
            .then(format!(" (at least {})", max_tokens * 2)),
    ))
}

/// The size of the text form, in the larger of the two dialects: the banner, each range's text
/// and the gap markers between them, as separate blocks. Byte lengths bound tokens; only when
/// they do not prove the answer fits are the banner and markers counted, each ref at its most.
fn text_size(envelope: &Envelope, pieces: &[Piece], cap: Cap) -> Size {
    let reference = envelope.reference.as_str();
    let banners = [
        render::banner(envelope, render::Dialect::Mcp),
        render::banner(envelope, render::Dialect::Cli),
    ];
    // Each gap's marker in the longer of its two spellings.
    let markers: Vec<String> = envelope
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Gap(gap) => [render::Dialect::Mcp, render::Dialect::Cli]
                .into_iter()
                .map(|d| render::gap_marker(gap, d))
                .max_by_key(String::len),
            Block::Shown(_) => None,
        })
        .collect();
    let content_tokens: u64 = pieces.iter().map(|p| p.tokens).sum();
    let content_chars: u64 = pieces.iter().map(|p| p.chars.1 - p.chars.0).sum();
    // A token or two may merge across each join: banner|content and around each marker.
    let slack = BOUNDARY_SLACK * (1 + 2 * markers.len() as u64);
    let banner_bytes = banners.iter().map(|b| b.len() as u64).max().unwrap_or(0);
    let marker_bytes = markers.iter().map(|m| m.len() as u64).sum::<u64>();
    // One newline joins each two blocks when a host shows them as one text.
    let joins = envelope.blocks.len() as u64;
    let chars = banner_bytes + marker_bytes + content_chars + joins;
    let cheap = banner_bytes + marker_bytes + content_tokens + slack + joins;
    if cheap <= cap.tokens {
        return Size {
            tokens: cheap,
            chars,
        };
    }
    let banner = banners
        .iter()
        .map(|b| fit::facts_tokens(b, reference))
        .max()
        .unwrap_or(0);
    let marker_tokens: u64 = markers
        .iter()
        .map(|m| fit::facts_tokens(m, reference))
        .sum();
    let content: u64 = pieces
        .iter()
        .map(|p| {
            if p.tokens_exact {
                p.tokens
            } else {
                tokens::count(&p.text)
            }
        })
        .sum();
    Size {
        tokens: banner + marker_tokens + content + slack + joins,
        chars,
    }
}

/// The size of the structured form (`JSON.stringify` of it, escapes counted), in the larger of
/// the two dialects: the facts (with empty `notice` and `content`), the larger notice, and the
/// content, each escaped as JSON writes it.
fn json_size(envelope: &Envelope, cap: Cap) -> Size {
    let reference = envelope.reference.as_str();
    let mut facts = wire::notice_first(String::new(), envelope);
    if let Value::Object(fields) = &mut facts {
        fields.insert("content".into(), Value::String(String::new()));
    }
    let facts = wire::compact(&facts);
    let content = [render::Dialect::Mcp, render::Dialect::Cli]
        .into_iter()
        .map(|d| serde_json::to_string(&render::content(envelope, d)).unwrap_or_default())
        .max_by_key(String::len)
        .unwrap_or_default();
    let notices: Vec<String> = [render::Dialect::Mcp, render::Dialect::Cli]
        .into_iter()
        .map(|d| serde_json::to_string(&render::banner(envelope, d)).unwrap_or_default())
        .collect();
    // The empty notice's and content's quotes stand where their own quotes go.
    let notice_bytes = notices
        .iter()
        .map(|n| n.len() as u64 - 2)
        .max()
        .unwrap_or(0);
    let bytes = facts.len() as u64 + notice_bytes + content.len() as u64 - 2;
    if bytes <= cap.tokens {
        return Size {
            tokens: bytes,
            chars: bytes,
        };
    }
    let notice = notices
        .iter()
        .map(|n| fit::facts_size(n, reference))
        .fold(Size::default(), Size::max);
    fit::facts_size(&facts, reference)
        .plus(notice, BOUNDARY_SLACK)
        // The content holds the gap markers, and they name the ref.
        .plus(fit::exact(&content, reference), BOUNDARY_SLACK)
}

/// Cuts the pieces a request asks for: (pieces, asked for a range, cut short by the cap).
fn cut(
    reader: &ArtifactReader,
    request: WindowRequest,
    budget: Budget,
) -> Result<(Vec<Piece>, bool, bool)> {
    let meta = reader.meta();
    let one = |piece: Piece| {
        let cut_by_cap = piece.cut_by_cap;
        (vec![piece], true, cut_by_cap)
    };
    check_sizes(request)?;
    Ok(match request {
        WindowRequest::Preview(_) if meta.binary => (Vec::new(), false, false),
        WindowRequest::Preview(preview) => {
            let mut preview = preview.unwrap_or(meta.preview);
            if failed(meta) && preview == Preview::Head {
                // A failed command's real last lines are always shown.
                preview = Preview::HeadTail;
            }
            let mut cut_by_cap = false;
            let pieces = pieces::preview(reader, preview, budget, &mut cut_by_cap)?;
            (pieces, false, cut_by_cap)
        }
        WindowRequest::Lines { line, limit } => {
            check_line(meta.lines, line)?;
            one(pieces::lines_forward(reader, line, limit, budget)?)
        }
        WindowRequest::LastLines { .. } if meta.lines == 0 => (Vec::new(), true, false),
        WindowRequest::LastLines { lines } => {
            let start = meta.lines.saturating_sub(lines) + 1;
            one(pieces::lines_forward(reader, start, Some(lines), budget)?)
        }
        WindowRequest::Chars { offset, max } => {
            check_offset(meta.chars, offset, "chars", "char_offset")?;
            one(pieces::chars_forward(reader, offset, max, budget)?)
        }
        WindowRequest::Bytes { offset, max } => {
            check_offset(meta.bytes, offset, "bytes", "byte_offset")?;
            one(pieces::bytes_forward(reader, offset, max, budget)?)
        }
    })
}

fn failed(meta: &crate::store::ArtifactMeta) -> bool {
    let v = &meta.source.version;
    v.get("exit_code")
        .and_then(Value::as_i64)
        .is_some_and(|c| c != 0)
        || v.get("signal").is_some_and(|s| !s.is_null())
        || v.get("timed_out").and_then(Value::as_bool) == Some(true)
}

/// A window of zero lines, chars or bytes shows nothing: say so instead of guessing.
fn check_sizes(request: WindowRequest) -> Result<()> {
    let zero = match request {
        WindowRequest::Lines { limit: Some(0), .. } => Some("limit"),
        WindowRequest::LastLines { lines: 0 } => Some("lines"),
        WindowRequest::Chars { max: Some(0), .. } => Some("max_chars"),
        WindowRequest::Bytes { max: Some(0), .. } => Some("max_bytes"),
        _ => None,
    };
    match zero {
        Some(arg) => Err(Error::invalid_words(
            Words::default()
                .arg("read", arg)
                .then(" must be at least 1"),
            Words::text("leave ")
                .arg("read", arg)
                .then(" out to get as much as one answer holds"),
        )),
        None => Ok(()),
    }
}

fn check_line(total: u64, line: u64) -> Result<()> {
    if line == 0 {
        return Err(Error::invalid_words(
            Words::text("lines are numbered from 1 (got ")
                .arg_value("read", "line", 0)
                .then(")"),
            Words::text("ask for ")
                .arg_value("read", "line", 1)
                .then(" or later"),
        ));
    }
    if line > total {
        return Err(Error::invalid_words(
            format!(
                "no lines at this position (total {})",
                render::thousands(total)
            )
            .into(),
            if total == 0 {
                "the artifact is empty".into()
            } else {
                Words::text("ask for ")
                    .arg("read", "line")
                    .then(format!(" between 1 and {total}"))
            },
        ));
    }
    Ok(())
}

fn check_offset(total: u64, offset: u64, unit: &str, arg: &'static str) -> Result<()> {
    if offset >= total {
        return Err(Error::invalid_words(
            format!(
                "no {unit} at this position (total {})",
                render::thousands(total)
            )
            .into(),
            if total == 0 {
                "the artifact is empty".into()
            } else {
                Words::text("ask for ")
                    .arg("read", arg)
                    .then(format!(" between 0 and {}", total - 1))
            },
        ));
    }
    Ok(())
}

fn assemble(
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
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            let prev = &pieces[i - 1];
            blocks.push(Block::Gap(gap_between(&reference, prev, piece)));
            next.push(read_call(&reference, prev.continuation()));
        }
        blocks.push(Block::Shown(piece.text.clone()));
        notes.extend(piece.note.clone());
    }
    let complete = whole && meta.state == ArtifactState::Complete
        || meta.bytes == 0
            && pieces.is_empty()
            && !meta.binary
            && meta.state == ArtifactState::Complete;
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
                render::human_bytes(meta.bytes)
            ),
        })
    } else if cut_by_cap {
        Some(cap())
    } else if meta.state != ArtifactState::Complete && (whole || reached_end) {
        Some(state_reason(meta))
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
        let search = NextCall::new(
            "search",
            [("ref", json!(reference)), ("pattern", json!("<regex>"))],
        );
        if meta.source.kind == crate::envelope::SourceKind::Fetch {
            // "Is X in this page?" is answered by searching the whole copy, not by paging.
            next.insert(0, search);
        } else {
            next.push(search);
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
        source: meta.source.clone(),
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
        capture,
        notes,
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
    let timed_out = meta
        .source
        .version
        .get("timed_out")
        .and_then(Value::as_bool)
        == Some(true);
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
            read: NextCall::new("read", [("ref", json!(reference)), ("line", json!(start))]),
        }
    } else {
        let (start, end) = (before.chars.1, after.chars.0);
        Gap {
            unit: Unit::Chars,
            start,
            end,
            lines: 0,
            chars: end - start,
            read: NextCall::new(
                "read",
                [("ref", json!(reference)), ("char_offset", json!(start))],
            ),
        }
    }
}

fn read_call(reference: &str, cont: pieces::Continuation) -> NextCall {
    let mut args = vec![("ref", json!(reference))];
    match cont {
        pieces::Continuation::Lines { line, limit } => {
            args.push(("line", json!(line)));
            args.push(("limit", json!(limit)));
        }
        pieces::Continuation::Chars { offset, max } => {
            args.push(("char_offset", json!(offset)));
            args.push(("max_chars", json!(max)));
        }
        pieces::Continuation::Bytes { offset, max } => {
            args.push(("byte_offset", json!(offset)));
            args.push(("max_bytes", json!(max)));
        }
    }
    NextCall::new("read", args)
}
