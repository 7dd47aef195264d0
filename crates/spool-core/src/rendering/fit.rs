//! The cap an answer must fit, and the size of an answer as the model receives it.
//!
//! A host forwards one part of a tool result to the model: the text blocks, or the structured
//! content as JSON (CONTRACT.md, "What the model receives"). Each part alone must fit the cap,
//! measured as sent: the JSON form with its escapes, the text form with its banner and markers.

use crate::dialect::Dialect;
use crate::envelope::{Reason, ReasonCode};
use crate::error::{Error, Result};
use crate::tokens;

/// How many times an answer is cut and measured before its cap is declared out of reach.
const ATTEMPTS: u64 = 8;

/// One attempt of [`shrink_to_fit`]: the answer built with a budget, as measured in every form
/// it is sent in, and whether a smaller budget could still change it.
pub struct Attempt<T> {
    pub answer: T,
    pub size: Size,
    pub can_shrink: bool,
}

/// The one fit loop of windows and pages of items: the answer is built with a content budget,
/// measured in every form it is sent in, and built again with a budget smaller by what it
/// overran (at least the overrun and a little, and in proportion, since escapes make JSON grow
/// faster than text; each attempt a little more, so that the loop ends) until it fits. `None`
/// when nothing fits down to `floor`: the caller says which cap to ask for.
///
/// Once one budget fits and a larger one did not, the budgets between are halved until they
/// differ by [`close_enough`]: the answer is the largest that fits, not the first. Regression
/// (issue 57): a proportional step from far above landed well under the cap, so `max_tokens:
/// 1000000` showed 26,323 lines where `max_tokens: 100000` showed 29,864. The first budget is
/// at most four tokens per char of the chars cap (a token is at least a byte, a char at most
/// four): a larger one cannot fit, and would only cost a read of more than can be shown.
pub fn shrink_to_fit<T>(
    cap: Cap,
    start: u64,
    floor: u64,
    mut build: impl FnMut(u64) -> Result<Attempt<T>>,
) -> Result<Option<T>> {
    let mut budget = start.min(cap.chars.saturating_mul(4)).max(floor);
    // The largest budget known to fit, with its answer; the least known not to.
    let mut fits: Option<(u64, T)> = None;
    let mut over: Option<u64> = None;
    let mut shrinks = 0;
    for _ in 0..ATTEMPTS + HALVINGS {
        let tried = build(budget)?;
        if cap.holds(tried.size) {
            let Some(over) = over else {
                return Ok(Some(tried.answer));
            };
            if over - budget <= close_enough(budget) {
                return Ok(Some(tried.answer));
            }
            fits = Some((budget, tried.answer));
            budget += (over - budget) / 2;
            continue;
        }
        over = Some(budget);
        if let Some((fit, _)) = &fits {
            if budget - fit <= close_enough(*fit) {
                break;
            }
            budget = fit + (budget - fit) / 2;
            continue;
        }
        if budget <= floor || !tried.can_shrink || shrinks == ATTEMPTS {
            break;
        }
        let by_overrun = budget.saturating_sub(tried.size.tokens.saturating_sub(cap.tokens) + 8);
        let by_share = budget * cap.share(tried.size) / 1000 * (20 - shrinks) / 20;
        budget = by_overrun.min(by_share).max(floor);
        shrinks += 1;
    }
    Ok(fits.map(|(_, answer)| answer))
}

/// How many times the budgets between one that fits and one that does not are halved, at most.
const HALVINGS: u64 = 12;

/// Budgets this close give answers this close: a thousandth, and at least a few tokens.
fn close_enough(budget: u64) -> u64 {
    (budget / 1000).max(8)
}

/// The smallest chars limit a host is told about (Claude Code's own default is about this).
pub const MIN_RESULT_CHARS: u64 = 200_000;

/// Chars per token allowed before the chars limit binds: generous, since prose runs about four.
const CHARS_PER_TOKEN: u64 = 8;

/// How much one answer may hold: tokens, and chars (hosts such as Claude Code cut or divert a
/// result longer than the chars a tool declares in `_meta["anthropic/maxResultSizeChars"]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    pub tokens: u64,
    pub chars: u64,
    /// The forms the answer is sent in: each must fit alone.
    pub forms: Forms,
    /// Whether the caller asked for these tokens (`max_tokens`), or they are the default of
    /// the server, the store or the terminal: an answer that cannot fit names the one that
    /// applied, never an argument the caller did not send.
    pub given: bool,
}

/// Which forms of an answer are sent, and so must fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forms {
    /// Text and structured JSON (an MCP result carries both; a host forwards one).
    Both,
    /// Text only (the CLI's words; an MCP server with structured content off).
    Text,
    /// Structured JSON only (the CLI's `--json`).
    Json,
}

impl Forms {
    /// The size that must fit, of the text form's and the JSON form's.
    pub fn pick(self, text: impl FnOnce() -> Size, json: impl FnOnce() -> Size) -> Size {
        match self {
            Self::Both => text().max(json()),
            Self::Text => text(),
            Self::Json => json(),
        }
    }
}

impl Cap {
    /// A cap of `tokens`, with the chars limit that goes with it, for both forms.
    pub fn new(tokens: u64) -> Self {
        Self {
            tokens,
            chars: chars_for(tokens),
            forms: Forms::Both,
            given: true,
        }
    }

    /// `asked` when the caller gave it, else the default `tokens` (marked as such).
    pub fn asked_or(asked: Option<u64>, default: u64) -> Self {
        Self {
            given: asked.is_some(),
            ..Self::new(asked.unwrap_or(default))
        }
    }

    /// The cap in words, as the caller knows it: the `max_tokens` it asked for of `tool`, or
    /// the default that applied because it asked for none.
    pub fn words(self, tool: crate::calls::ToolName) -> crate::dialect::Words {
        let tokens = crate::render::thousands(self.tokens);
        if self.given {
            crate::dialect::Words::default().arg_value(tool, "max_tokens", self.tokens)
        } else {
            crate::dialect::Words::text(format!("the default cap of {tokens} tokens (no "))
                .arg(tool, "max_tokens")
                .then(" was asked for)")
        }
    }

    /// The same tokens, at most `chars` chars.
    #[must_use]
    pub fn with_chars(self, chars: u64) -> Self {
        Self { chars, ..self }
    }

    /// The same cap, for an answer sent only in these forms.
    #[must_use]
    pub fn sending(self, forms: Forms) -> Self {
        Self { forms, ..self }
    }

    /// Whether `size` fits.
    pub fn holds(self, size: Size) -> bool {
        size.tokens <= self.tokens && size.chars <= self.chars
    }

    /// The share of what was measured that fits, in thousandths (at most 1000).
    pub fn share(self, size: Size) -> u64 {
        let by_tokens = self.tokens * 1000 / size.tokens.max(1);
        let by_chars = self.chars * 1000 / size.chars.max(1);
        by_tokens.min(by_chars).min(1000)
    }

    /// The reason's words for an answer cut by this cap.
    pub fn detail(self, cut_by_chars: bool) -> String {
        let tokens = crate::render::thousands(self.tokens);
        if cut_by_chars {
            format!(
                "answers are capped at {tokens} tokens and {} chars",
                crate::render::thousands(self.chars)
            )
        } else {
            format!("answers are capped at {tokens} tokens")
        }
    }
}

impl From<u64> for Cap {
    fn from(tokens: u64) -> Self {
        Self::new(tokens)
    }
}

/// The chars an answer of at most `tokens` tokens may take: what spool tells hosts that cap
/// results by chars, so that they never cut an answer spool has already fitted.
pub fn chars_for(tokens: u64) -> u64 {
    tokens.saturating_mul(CHARS_PER_TOKEN).max(MIN_RESULT_CHARS)
}

/// How many of the `n` items of a page (hits, entries) to keep when the page measured `size` and
/// does not fit `cap`, and why: in proportion, a little under, at least one fewer. An error when
/// one item alone does not fit (`one` names it, `hint` says what to ask for instead).
pub fn fewer(
    n: usize,
    size: Size,
    cap: Cap,
    one: &str,
    hint: crate::dialect::Words,
) -> Result<(usize, Reason)> {
    if n <= 1 {
        return Err(Error::invalid_words(
            format!(
                "{one} does not fit an answer of {} tokens",
                crate::render::thousands(cap.tokens)
            )
            .into(),
            hint,
        ));
    }
    let kept = (n as u64 * cap.share(size) / 1000 * 19 / 20).clamp(1, n as u64 - 1);
    let why = Reason {
        code: ReasonCode::TokenCap,
        detail: cap.detail(size.chars > cap.chars),
    };
    Ok((kept as usize, why))
}

/// The one fit loop of a page of entries (a list's items, a search's hits): the page is
/// measured in both dialects (`measure` gives the size of the form it is sent in), and while
/// the largest does not hold `cap`, cut to the entries [`fewer`] keeps (`keep_first` keeps
/// them and says why). `one` names one entry and `hint` what to ask for instead, for the error
/// when one entry alone does not fit.
pub fn fit_entries<P>(
    page: &mut P,
    cap: Cap,
    measure: impl Fn(&P, Dialect) -> Size,
    entries: impl Fn(&P) -> usize,
    (one, hint): (&str, &crate::dialect::Words),
    mut keep_first: impl FnMut(&mut P, usize, Reason),
) -> Result<()> {
    for _ in 0..ATTEMPTS {
        let size = [Dialect::Mcp, Dialect::Cli]
            .into_iter()
            .map(|d| measure(page, d))
            .fold(Size::default(), Size::max);
        if cap.holds(size) {
            return Ok(());
        }
        let (kept, why) = fewer(entries(page), size, cap, one, hint.clone())?;
        keep_first(page, kept, why);
    }
    Ok(())
}

/// The size of one form of an answer: its chars, and at most how many tokens it holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    pub tokens: u64,
    pub chars: u64,
}

impl Size {
    /// The larger of two forms, unit by unit.
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        Self {
            tokens: self.tokens.max(other.tokens),
            chars: self.chars.max(other.chars),
        }
    }

    /// Two texts sent one after the other, `slack` tokens allowed for merges across the join.
    #[must_use]
    pub fn plus(self, other: Self, slack: u64) -> Self {
        Self {
            tokens: self.tokens + other.tokens + slack,
            chars: self.chars + other.chars,
        }
    }
}

/// The size of `text` as sent. Its byte length bounds its tokens and chars, so a text whose
/// bytes fit is never tokenized; otherwise each occurrence of `reference` counts one token a
/// char, so that where an answer is cut does not depend on how a random ref tokenizes.
pub fn measure(text: &str, reference: &str, cap: Cap) -> Size {
    let bytes = text.len() as u64;
    let chars = if bytes <= cap.chars {
        bytes
    } else {
        text.chars().count() as u64
    };
    let tokens = if bytes <= cap.tokens {
        bytes
    } else {
        ref_neutral_tokens(text, reference)
    };
    Size { tokens, chars }
}

/// The exact size of `text` (tokens counted as [`measure`] counts them), for a text measured as
/// one part of a larger whole, where an upper bound of each part would add up to too much.
pub fn exact(text: &str, reference: &str) -> Size {
    Size {
        tokens: ref_neutral_tokens(text, reference),
        chars: text.chars().count() as u64,
    }
}

/// The size of an answer sent as its facts, then its content (`content` as written, escapes
/// and all): byte lengths when they prove it fits (the tokenizer is not even loaded), else the
/// facts counted by [`facts_tokens`] and the content exactly, with `slack` tokens for merges
/// across the join.
pub fn facts_and_content(
    facts: &str,
    content: &str,
    reference: &str,
    cap: Cap,
    slack: u64,
) -> Size {
    let bytes = (facts.len() + content.len()) as u64;
    if bytes + slack <= cap.tokens && bytes <= cap.chars {
        return Size {
            tokens: bytes + slack,
            chars: bytes,
        };
    }
    facts_size(facts, reference).plus(exact(content, reference), slack)
}

/// The size of the facts around an answer's content, tokens counted by [`facts_tokens`].
pub fn facts_size(text: &str, reference: &str) -> Size {
    Size {
        tokens: facts_tokens(text, reference),
        chars: text.chars().count() as u64,
    }
}

/// The tokens of the facts around an answer's content (a banner, the structured fields), each
/// ref, each RFC 3339 time and each cursor counted at one token a char: where an answer is cut
/// then depends neither on the random ref, nor on the time of day, nor on a cursor's signature.
pub fn facts_tokens(text: &str, reference: &str) -> u64 {
    let (plain, cursor_chars) = without_cursors(text);
    let (plain, hash_chars) = without_hashes(&plain);
    times_apart(&plain, reference) + cursor_chars + hash_chars
}

/// `text` without the hashes it holds (a run of 16 or more lowercase hex digits standing alone:
/// a commit, a sha256), and how many chars they took: they too count one token a char, so
/// that where an answer is cut does not depend on how a hash tokenizes.
fn without_hashes(text: &str) -> (std::borrow::Cow<'_, str>, u64) {
    const LEAST: usize = 16;
    let bytes = text.as_bytes();
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut out = String::new();
    let (mut from, mut removed, mut at) = (0, 0u64, 0);
    while at < bytes.len() {
        // A hash stands alone: not a part of a word or of a path (`index.io-1949cf8c6b5b557f/`
        // is a name, and counts as its tokens).
        let joined = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/');
        if !hex(bytes[at]) || (at > 0 && joined(&bytes[at - 1])) {
            at += 1;
            continue;
        }
        let end = at + bytes[at..].iter().take_while(|&&b| hex(b)).count();
        if end - at >= LEAST && !bytes.get(end).is_some_and(joined) {
            out.push_str(&text[from..at]);
            removed += (end - at) as u64;
            from = end;
        }
        at = end.max(at + 1);
    }
    if removed == 0 {
        return (std::borrow::Cow::Borrowed(text), 0);
    }
    out.push_str(&text[from..]);
    (std::borrow::Cow::Owned(out), removed)
}

/// `text` without the cursors it holds (`BODY.TAG`, both base64url, the tag of 22 chars), and
/// how many chars they took.
fn without_cursors(text: &str) -> (std::borrow::Cow<'_, str>, u64) {
    const TAG: usize = 22;
    let b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let bytes = text.as_bytes();
    let mut out = String::new();
    let (mut from, mut removed, mut at) = (0, 0u64, 0);
    while let Some(dot) = text[at..].find('.').map(|d| at + d) {
        let start = bytes[..dot]
            .iter()
            .rposition(|&b| !b64(b))
            .map_or(0, |p| p + 1);
        let end = dot
            + 1
            + bytes[dot + 1..]
                .iter()
                .position(|&b| !b64(b))
                .unwrap_or(bytes.len() - dot - 1);
        if dot - start >= 8 && end - dot - 1 == TAG && start >= from {
            out.push_str(&text[from..start]);
            removed += (end - start) as u64;
            from = end;
        }
        at = dot + 1;
    }
    if removed == 0 {
        return (std::borrow::Cow::Borrowed(text), 0);
    }
    out.push_str(&text[from..]);
    (std::borrow::Cow::Owned(out), removed)
}

/// The tokens of `text`, each ref and RFC 3339 time counted at one token a char.
fn times_apart(text: &str, reference: &str) -> u64 {
    const TIME: usize = "2026-11-30T09:00:00Z".len();
    let bytes = text.as_bytes();
    let is_time = |at: usize| {
        bytes.len() >= at + TIME
            && bytes[at..at + TIME]
                .iter()
                .enumerate()
                .all(|(i, &b)| match i {
                    4 | 7 => b == b'-',
                    10 => b == b'T',
                    13 | 16 => b == b':',
                    19 => b == b'Z',
                    _ => b.is_ascii_digit(),
                })
    };
    let mut plain = String::with_capacity(text.len());
    let mut times = 0u64;
    let mut at = 0;
    let mut from = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_digit() && is_time(at) {
            plain.push_str(&text[from..at]);
            times += 1;
            at += TIME;
            from = at;
        } else {
            at += 1;
        }
    }
    plain.push_str(&text[from..]);
    ref_neutral_tokens(&plain, reference) + times * TIME as u64
}

/// The tokens of `text`, each occurrence of `reference` counted at one token a char.
pub fn ref_neutral_tokens(text: &str, reference: &str) -> u64 {
    if reference.is_empty() {
        return tokens::count(text);
    }
    let refs = text.matches(reference).count() as u64;
    if refs == 0 {
        return tokens::count(text);
    }
    tokens::count(&text.replace(reference, "")) + refs * reference.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_measured_by_its_bytes() {
        let cap = Cap::new(1_000);
        let size = measure("hello \"world\"", "", cap);
        assert_eq!(
            size,
            Size {
                tokens: 13,
                chars: 13
            }
        );
    }

    #[test]
    fn the_chars_limit_never_falls_below_the_floor() {
        assert_eq!(chars_for(256), MIN_RESULT_CHARS);
        assert_eq!(chars_for(100_000), 800_000);
        let cap = Cap::new(8_000);
        assert!(!cap.holds(Size {
            tokens: 10,
            chars: MIN_RESULT_CHARS + 1
        }));
        assert_eq!(
            cap.share(Size {
                tokens: 16_000,
                chars: 10
            }),
            500
        );
    }

    #[test]
    fn times_in_the_facts_count_the_same_whatever_the_time() {
        let a = facts_tokens(
            "stored at 2026-11-30T09:00:00Z, read 2026-12-01T23:59:58Z",
            "",
        );
        let b = facts_tokens(
            "stored at 2031-07-04T17:45:12Z, read 1999-01-01T00:00:00Z",
            "",
        );
        assert_eq!(a, b);
        assert!(a >= 40);
    }

    #[test]
    fn cursors_in_the_facts_count_the_same_whatever_their_signature() {
        let a = facts_tokens(
            "Next: map path=src cursor=WyJtYXAiLCJzcF9hYmMiLDQsMl0.AAAAAAAAAAAAAAAAAAAAAA max_tokens=700, or \"cursor\":\"WyJtYXAiLCJzcF9hYmMiLDQsMl0.AAAAAAAAAAAAAAAAAAAAAA\"",
            "",
        );
        let b = facts_tokens(
            "Next: map path=src cursor=WyJtYXAiLCJzcF94eXoiLDQsMl0.q-Z_9fT3kL0pQ2rS8uVwXy max_tokens=700, or \"cursor\":\"WyJtYXAiLCJzcF94eXoiLDQsMl0.q-Z_9fT3kL0pQ2rS8uVwXy\"",
            "",
        );
        assert_eq!(a, b);
        assert!(a >= 2 * 49, "{a}");
        // A sentence's dot and a file name are not cursors.
        assert_eq!(without_cursors("see src/lib.rs. Then stop.").1, 0);
    }

    #[test]
    fn hashes_in_the_facts_count_the_same_whatever_their_digits() {
        let a = facts_tokens(
            "commit 427874f4cd583df6290e7d9ed695272e81542878, sha256:aaa9317d0c18b44ca6c70258e6302ce2",
            "",
        );
        let b = facts_tokens(
            "commit 0000000000000000000000000000000000000000, sha256:0123456789abcdef0123456789abcdef",
            "",
        );
        assert_eq!(a, b);
        assert!(a >= 72, "{a}");
        // Short numbers, words with hex letters and hex inside a path are not hashes.
        assert_eq!(without_hashes("line 1234567, cafe deadbeef").1, 0);
        assert_eq!(
            without_hashes("map of /r/index.crates.io-1949cf8c6b5b557f/tokio").1,
            0
        );
    }

    #[test]
    fn a_ref_counts_one_token_a_char() {
        let text = "stored as sp_abcdefghij, read sp_abcdefghij line=2 ".repeat(100);
        let cap = Cap::new(256);
        let size = measure(&text, "sp_abcdefghij", cap);
        assert!(size.tokens >= 200 * 13, "{size:?}");
    }
}
