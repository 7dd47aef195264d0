//! Honest windows: the part of an artifact that fits an answer, and the exact words for the rest.

mod assemble;
mod found;
mod pieces;

use serde_json::Value;

use crate::calls::ToolName;
use crate::dialect::Words;
use crate::envelope::{Block, Envelope, Found};
use crate::error::{Error, Result};
use crate::fit::{self, Cap, Forms, Size};
use crate::render;
use crate::store::{ArtifactReader, Store};
use crate::structured;
use crate::tokens;
use assemble::assemble;
use pieces::Budget;
pub use pieces::{Continuation, Piece};

/// Default answer cap, in tokens.
pub const DEFAULT_MAX_TOKENS: u64 = 8_000;
// The bounds a call's arguments are held to, listed with the arguments.
pub use crate::calls::{MAX_LINES, MAX_MAX_TOKENS, MIN_MAX_TOKENS};
/// The smallest default cap a server or a store starts with (`serve --max-tokens`,
/// `Store(max_tokens=...)`): the cap every call that asks for none gets, so it must leave room
/// for the longest banner of an ordinary answer (a file's path, version and calls, about 500
/// tokens) and some content. Below it calls would fail, each blaming a cap nobody asked for.
pub const MIN_DEFAULT_TOKENS: u64 = 1_000;
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
    Alongside::default().window(reader, request, cap)
}

/// What an answer holds beside the window it shows: what a question found in the whole, notes,
/// calls that read on, and a last touch to the envelope (an item page's fields). Each is
/// measured into the cap before the content is cut: `Alongside::default().with_notes(&notes)
/// .window(reader, request, cap)`.
#[derive(Default, Clone, Copy)]
pub struct Alongside<'a> {
    /// What a question found in the whole artifact (a preview's only).
    pub found: Option<&'a Found>,
    /// Said before the window's own notes.
    pub notes: &'a [String],
    /// Calls offered after the window's own.
    pub calls: &'a [crate::envelope::NextCall],
    /// Applied to the envelope once it is made.
    pub shape: Option<&'a dyn Fn(&mut Envelope)>,
}

impl<'a> Alongside<'a> {
    /// With `notes` said first.
    #[must_use]
    pub fn with_notes(self, notes: &'a [String]) -> Self {
        Self { notes, ..self }
    }

    /// With `calls` offered after the window's own.
    #[must_use]
    pub fn with_calls(self, calls: &'a [crate::envelope::NextCall]) -> Self {
        Self { calls, ..self }
    }

    /// With `shape` applied to the envelope once it is made.
    #[must_use]
    pub fn with_shape(self, shape: &'a dyn Fn(&mut Envelope)) -> Self {
        Self {
            shape: Some(shape),
            ..self
        }
    }

    /// With what a question found in the whole (shown beside a preview).
    #[must_use]
    pub fn with_found(self, found: &'a Found) -> Self {
        Self {
            found: Some(found),
            ..self
        }
    }

    /// The window `request` asks for of `reader`, with this beside it, within `cap`.
    pub fn window(
        &self,
        reader: &ArtifactReader,
        request: WindowRequest,
        cap: impl Into<Cap>,
    ) -> Result<Envelope> {
        window_inner(reader, request, cap.into(), self)
    }
}

/// The answer for a copy just captured (a command that ran, a log, a page, an upstream's
/// answer) when no window of it fits the cap beside its banner: its ref and facts, no content,
/// and the read that shows it. A capture whose side effects happened answers with its ref,
/// never an error that loses it (regression, issue 39: a 100,000-char command ran and the
/// answer was `invalid_argument`, no ref).
pub fn or_bare(reader: &ArtifactReader, cap: Cap, made: Result<Envelope>) -> Result<Envelope> {
    let err = match made {
        Err(e) if e.code() == crate::ErrorCode::InvalidArgument => e,
        other => return other,
    };
    let detail = crate::clip::clipped(
        format!(
            "no window of it fits beside its banner ({})",
            err.message(render::Dialect::Mcp)
        ),
        300,
    );
    let mut envelope = assemble(reader, &[], false, false, true, &detail);
    let more = cap.tokens.saturating_mul(2).max(MIN_DEFAULT_TOKENS * 8);
    envelope.next.insert(
        0,
        crate::envelope::NextCall::Read(crate::calls::ReadParams {
            max_tokens: Some(more),
            ..crate::calls::ReadParams::of(crate::calls::Target::reference(&envelope.reference))
        }),
    );
    Ok(envelope)
}

impl From<crate::calls::PreviewArg> for Preview {
    fn from(p: crate::calls::PreviewArg) -> Self {
        match p {
            crate::calls::PreviewArg::Head => Self::Head,
            crate::calls::PreviewArg::Tail => Self::Tail,
            crate::calls::PreviewArg::HeadTail => Self::HeadTail,
        }
    }
}

/// Checks the default cap a server, a proxy or a store is started with (its `max_tokens`
/// setting, spelled in the caller's dialect): between [`MIN_DEFAULT_TOKENS`] and
/// [`MAX_MAX_TOKENS`], refused at start rather than by every call after.
pub fn check_default_cap(max_tokens: u64) -> Result<()> {
    if (MIN_DEFAULT_TOKENS..=MAX_MAX_TOKENS).contains(&max_tokens) {
        return Ok(());
    }
    Err(Error::invalid_words(
        Words::default()
            .setting("max_tokens", max_tokens)
            .then(format!(
                " is outside the caps an answer can keep: from {} tokens (room for a banner, its facts and some content) to {}",
                render::thousands(MIN_DEFAULT_TOKENS),
                render::thousands(MAX_MAX_TOKENS)
            )),
        Words::text("start with ")
            .setting("max_tokens", MIN_DEFAULT_TOKENS)
            .then(" or more (the default is ")
            .then(render::thousands(DEFAULT_MAX_TOKENS))
            .then(")"),
    ))
}

/// Checks a cap asked for: between [`MIN_MAX_TOKENS`] and [`MAX_MAX_TOKENS`].
pub fn check_cap(max_tokens: u64) -> Result<()> {
    if max_tokens > MAX_MAX_TOKENS {
        return Err(Error::invalid_words(
            Words::default()
                .arg(ToolName::Read, "max_tokens")
                .then(format!(
                    " must be at most {} (got {max_tokens})",
                    render::thousands(MAX_MAX_TOKENS)
                )),
            Words::text("ask for ")
                .arg_value(ToolName::Read, "max_tokens", DEFAULT_MAX_TOKENS)
                .then(format!(", or up to {MAX_MAX_TOKENS}")),
        ));
    }
    if max_tokens < MIN_MAX_TOKENS {
        return Err(Error::invalid_words(
            Words::default()
                .arg(ToolName::Read, "max_tokens")
                .then(format!(
                    " must be at least {MIN_MAX_TOKENS} (got {max_tokens})"
                )),
            Words::text("ask for ")
                .arg(ToolName::Read, "max_tokens")
                .then(format!(" between {MIN_MAX_TOKENS} and any larger cap")),
        ));
    }
    Ok(())
}

fn window_inner(
    reader: &ArtifactReader,
    request: WindowRequest,
    cap: Cap,
    beside: &Alongside<'_>,
) -> Result<Envelope> {
    let Alongside {
        found,
        notes,
        calls,
        shape,
    } = *beside;
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
    // What was found is said in the banner (and again in the structured form).
    // (counted twice below when the JSON is sent: a quarter each is about what it costs)
    let found_bytes = found.map_or(0, |f| {
        serde_json::to_string(f).map_or(0, |s| s.len() as u64) / 4
    });
    let calls_bytes = calls
        .iter()
        .map(|c| serde_json::to_string(c).map_or(0, |s| s.len() as u64))
        .sum::<u64>();
    let notes_bytes = notes_bytes + found_bytes + calls_bytes;
    let mut reserve =
        RESERVE_TOKENS + render::describe_source(&meta.source).len() as u64 + notes_bytes;
    if in_json {
        reserve += serde_json::to_string(&meta.source.shown()).map_or(0, |s| s.len() as u64 / 2)
            + notes_bytes;
    }
    if max_tokens < reserve + MIN_MAX_TOKENS / 2 {
        return Err(Error::invalid_words(
            cap.words(ToolName::Read).then(format!(
                " leaves no room for content after the banner ({reserve} tokens)"
            )),
            Words::text("ask for ")
                .arg(ToolName::Read, "max_tokens")
                .then(format!(" of at least {}", reserve + MIN_MAX_TOKENS)),
        ));
    }
    let mut cut_by_chars = false;
    // The answer's exact size is known only once the window is cut: cut, measure every form,
    // and cut again smaller in the rare case one of them passes the cap. Content tokens below
    // a sixteenth of the least cap are not worth another cut: the banner alone is the problem.
    let fitted = fit::shrink_to_fit(cap, max_tokens - reserve, MIN_MAX_TOKENS / 16, |budget| {
        let budget = Budget::new(budget, meta.binary);
        let (pieces, requested, cut_by_cap, shown_found) =
            if let (Some(found), WindowRequest::Preview(preview)) = (found, request) {
                let (pieces, cut_by_cap, found) = found::cut_found(reader, preview, found, budget)?;
                (pieces, false, cut_by_cap, Some(found))
            } else {
                let (pieces, requested, cut_by_cap) = cut(reader, request, budget)?;
                (pieces, requested, cut_by_cap, None)
            };
        let whole = pieces.len() == 1 && pieces[0].span == (0, meta.bytes) || meta.bytes == 0;
        if whole {
            let bytes = reader.read_at(0, meta.bytes as usize)?;
            reader.check_whole(&bytes)?;
        }
        let mut envelope = assemble(
            reader,
            &pieces,
            whole,
            requested,
            cut_by_cap || cut_by_chars,
            &cap.detail(cut_by_chars),
        );
        envelope.notes.splice(0..0, notes.iter().cloned());
        envelope.next.extend(calls.iter().cloned());
        if shown_found.is_some() {
            // Reading on after the last piece and after the head; each other gap's marker
            // carries its own read.
            let mut reads = 0;
            envelope.next.retain(|c| {
                reads += usize::from(c.tool() == "read");
                c.tool() != "read" || reads <= 2
            });
        }
        if let Some(found) = &shown_found
            && let Some(search) = &found.search
            && !envelope.complete
            && found.hit_count > found.best.iter().filter(|b| b.shown).count() as u64
        {
            // Everything found, listed: before any read on.
            envelope.next.insert(0, search.clone());
        }
        envelope.found = shown_found;
        if let Some(shape) = shape {
            shape(&mut envelope);
        }
        let size = cap.forms.pick(
            || text_size(&envelope, &pieces, cap),
            || json_size(&envelope, cap),
        );
        // Cut again, the reason says so: the chars limit bound, not the tokens.
        cut_by_chars |= size.chars > cap.chars;
        envelope.delivered.tokens = pieces
            .iter()
            .all(|p| p.tokens_exact)
            .then(|| pieces.iter().map(|p| p.tokens).sum());
        Ok(fit::Attempt {
            answer: envelope,
            size,
            can_shrink: !pieces.is_empty(),
        })
    })?;
    if let Some(envelope) = fitted {
        return Ok(envelope);
    }
    Err(Error::invalid_words(
        Words::text("no window of this artifact fits ")
            .arg_value(ToolName::Read, "max_tokens", max_tokens)
            .then(" with its banner"),
        Words::text("ask for a larger ")
            .arg(ToolName::Read, "max_tokens")
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
    let mut facts = structured::notice_first(String::new(), envelope);
    if let Value::Object(fields) = &mut facts {
        fields.insert("content".into(), Value::String(String::new()));
    }
    let facts = structured::compact(&facts);
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
        // Bytes bound the tokens; the chars are counted, not bounded by the bytes too.
        // Regression (issue 57): they were, and a page of Japanese (three bytes a char) was
        // cut to a third of the chars it could show once the chars cap bound (`max_tokens:
        // 1000000` showed 3,570 lines where `max_tokens: 100000` showed 8,288).
        let notice_chars = notices
            .iter()
            .map(|n| n.chars().count() as u64 - 2)
            .max()
            .unwrap_or(0);
        return Size {
            tokens: bytes,
            chars: facts.chars().count() as u64 + notice_chars + content.chars().count() as u64 - 2,
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
                // A failed command's (or an upstream error's) real last lines are always shown.
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

/// A failed command, or an upstream's answer marked as an error: its end is always shown
/// (regression, issue 57: a wrapped tool's 20,000-line error trace was previewed as lines
/// 1-539, and its cause, on the last line, was in no view).
fn failed(meta: &crate::store::ArtifactMeta) -> bool {
    match &meta.source.version {
        crate::envelope::Version::Exec(v) => v.failed(),
        crate::envelope::Version::Mcp(v) => v.is_error,
        _ => false,
    }
}

/// A window of zero lines, chars or bytes shows nothing: say so instead of guessing. A window
/// of more lines than the largest answer could hold (a line costs at least a token) is refused
/// as its schema's `maximum` says.
fn check_sizes(request: WindowRequest) -> Result<()> {
    if let WindowRequest::Lines {
        limit: Some(limit), ..
    }
    | WindowRequest::LastLines { lines: limit } = request
        && limit > MAX_LINES
    {
        return Err(Error::invalid_words(
            Words::default().arg(ToolName::Read, "limit").then(format!(
                " must be at most {} lines (got {})",
                render::thousands(MAX_LINES),
                render::thousands(limit)
            )),
            Words::text("leave ")
                .arg(ToolName::Read, "limit")
                .then(" out to get as much as one answer holds"),
        ));
    }
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
                .arg(ToolName::Read, arg)
                .then(" must be at least 1"),
            Words::text("leave ")
                .arg(ToolName::Read, arg)
                .then(" out to get as much as one answer holds"),
        )),
        None => Ok(()),
    }
}

fn check_line(total: u64, line: u64) -> Result<()> {
    if line == 0 {
        return Err(Error::invalid_words(
            Words::text("lines are numbered from 1 (got ")
                .arg_value(ToolName::Read, "line", 0)
                .then(")"),
            Words::text("ask for ")
                .arg_value(ToolName::Read, "line", 1)
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
                    .arg(ToolName::Read, "line")
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
                    .arg(ToolName::Read, arg)
                    .then(format!(" between 0 and {}", total - 1))
            },
        ));
    }
    Ok(())
}
