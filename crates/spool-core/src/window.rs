//! Honest windows: the part of an artifact that fits an answer, and the exact words for the rest.

mod pieces;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::envelope::{CaptureNote, Envelope, NextCall, Range, Reason, ReasonCode};
use crate::error::{Error, Result};
use crate::render;
use crate::store::{ArtifactReader, Store};
use crate::envelope::ArtifactState;
use pieces::Budget;
pub use pieces::{Continuation, Piece};

/// Default answer cap, in tokens.
pub const DEFAULT_MAX_TOKENS: u64 = 8_000;
/// The smallest cap an answer may ask for.
pub const MIN_MAX_TOKENS: u64 = 256;
/// Tokens kept back from the cap for the banner and gap marker.
const RESERVE_TOKENS: u64 = 160;

/// Which part of a document a plain read shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preview {
    Head,
    Tail,
    HeadTail,
}

impl Preview {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Head => "head",
            Self::Tail => "tail",
            Self::HeadTail => "head_tail",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "head" => Self::Head,
            "tail" => Self::Tail,
            "head_tail" => Self::HeadTail,
            _ => return None,
        })
    }
}

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
    max_tokens: u64,
) -> Result<Envelope> {
    let reader = store.open_artifact(reference)?;
    window(&reader, request, max_tokens)
}

/// Answers a window request over an open artifact.
pub fn window(reader: &ArtifactReader, request: WindowRequest, max_tokens: u64) -> Result<Envelope> {
    if max_tokens < MIN_MAX_TOKENS {
        return Err(Error::invalid(
            format!("`max_tokens` must be at least {MIN_MAX_TOKENS} (got {max_tokens})"),
            Some(format!("ask for `max_tokens` between {MIN_MAX_TOKENS} and any larger cap")),
        ));
    }
    let meta = reader.meta();
    let budget = Budget::new(max_tokens - RESERVE_TOKENS, meta.binary);
    let mut cut_by_cap = false;
    let (pieces, requested) = match request {
        WindowRequest::Preview(preview) if meta.binary => {
            let _ = preview;
            (Vec::new(), false)
        }
        WindowRequest::Preview(preview) => {
            let mut preview = preview.unwrap_or(meta.preview);
            if failed(meta) && preview == Preview::Head {
                // A failed command's real last lines are always shown.
                preview = Preview::HeadTail;
            }
            (pieces::preview(reader, preview, budget, &mut cut_by_cap)?, false)
        }
        WindowRequest::Lines { line, limit } => {
            check_line(meta.lines, line)?;
            let piece = pieces::lines_forward(reader, line, limit, budget)?;
            cut_by_cap = piece.cut_by_cap;
            (vec![piece], true)
        }
        WindowRequest::LastLines { lines } => {
            let start = meta.lines.saturating_sub(lines) + 1;
            let piece = pieces::lines_forward(reader, start.min(meta.lines.max(1)), Some(lines), budget)?;
            cut_by_cap = piece.cut_by_cap;
            (if meta.lines == 0 { Vec::new() } else { vec![piece] }, true)
        }
        WindowRequest::Chars { offset, max } => {
            check_offset(meta.chars, offset, "chars", "char_offset")?;
            let piece = pieces::chars_forward(reader, offset, max, budget)?;
            cut_by_cap = piece.cut_by_cap;
            (vec![piece], true)
        }
        WindowRequest::Bytes { offset, max } => {
            check_offset(meta.bytes, offset, "bytes", "byte_offset")?;
            let piece = pieces::bytes_forward(reader, offset, max, budget)?;
            cut_by_cap = piece.cut_by_cap;
            (vec![piece], true)
        }
    };
    let whole = pieces.len() == 1 && pieces[0].span == (0, meta.bytes) || meta.bytes == 0;
    if whole {
        let bytes = reader.read_at(0, meta.bytes as usize)?;
        reader.check_whole(&bytes)?;
    }
    Ok(assemble(reader, pieces, whole, requested, cut_by_cap, max_tokens))
}

fn failed(meta: &crate::store::ArtifactMeta) -> bool {
    let v = &meta.source.version;
    v.get("exit_code").and_then(Value::as_i64).is_some_and(|c| c != 0)
        || v.get("signal").is_some_and(|s| !s.is_null())
        || v.get("timed_out").and_then(Value::as_bool) == Some(true)
}

fn check_line(total: u64, line: u64) -> Result<()> {
    if line == 0 {
        return Err(Error::invalid(
            "lines are numbered from 1 (got `line` 0)",
            Some("ask for `line` 1 or later".to_owned()),
        ));
    }
    if line > total {
        return Err(Error::invalid(
            format!("no lines at this position (total {})", render::thousands(total)),
            Some(if total == 0 {
                "the artifact is empty".to_owned()
            } else {
                format!("ask for `line` between 1 and {total}")
            }),
        ));
    }
    Ok(())
}

fn check_offset(total: u64, offset: u64, unit: &str, arg: &str) -> Result<()> {
    if offset >= total {
        return Err(Error::invalid(
            format!("no {unit} at this position (total {})", render::thousands(total)),
            Some(if total == 0 {
                "the artifact is empty".to_owned()
            } else {
                format!("ask for `{arg}` between 0 and {}", total - 1)
            }),
        ));
    }
    Ok(())
}

fn assemble(
    reader: &ArtifactReader,
    pieces: Vec<Piece>,
    whole: bool,
    requested: bool,
    cut_by_cap: bool,
    max_tokens: u64,
) -> Envelope {
    let meta = reader.meta();
    let reference = meta.reference.clone();
    let mut content = String::new();
    let mut texts = Vec::new();
    let mut notes = Vec::new();
    let mut next = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            let prev = &pieces[i - 1];
            let gap = render::gap_marker(&reference, prev, piece);
            if !content.ends_with('\n') && !content.is_empty() {
                content.push('\n');
            }
            content.push_str(&gap);
            content.push('\n');
            texts.push(gap);
            next.push(read_call(&reference, prev.continuation()));
        }
        content.push_str(&piece.text);
        texts.push(piece.text.clone());
        notes.extend(piece.note.clone());
    }
    let complete = whole && meta.state == ArtifactState::Complete || meta.bytes == 0 && pieces.is_empty() && !meta.binary;
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
        Some(Reason {
            code: ReasonCode::TokenCap,
            detail: format!("answers are capped at {} tokens", render::thousands(max_tokens)),
        })
    } else if requested || whole {
        Some(Reason {
            code: ReasonCode::RequestedRange,
            detail: "the caller asked for this range".to_owned(),
        })
    } else {
        Some(Reason {
            code: ReasonCode::TokenCap,
            detail: format!("answers are capped at {} tokens", render::thousands(max_tokens)),
        })
    };
    if !complete {
        if let Some(last) = pieces.last()
            && let Some(cont) = last.continuation_if_more(meta.bytes)
        {
            // The forward continuation goes first: following `next[0]` reads on to the end.
            next.insert(0, read_call(&reference, cont));
        }
        if meta.binary && pieces.is_empty() {
            next.push(read_call(&reference, pieces::Continuation::Bytes { offset: 0, max: 2048 }));
        }
        next.push(NextCall::new(
            "search",
            [("ref", json!(reference)), ("pattern", json!("<regex>"))],
        ));
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
        tokens: pieces.iter().map(|p| p.tokens).sum(),
    };
    Envelope {
        reference,
        source: meta.source.clone(),
        shown: pieces.iter().map(|p| p.range).collect::<Vec<Range>>(),
        total: meta.totals(),
        complete,
        reason,
        next,
        capture,
        notes,
        content,
        pieces: texts,
        delivered,
        created_at: meta.created_at,
        redo: meta.redo.clone(),
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
