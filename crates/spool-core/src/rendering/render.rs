//! Words for people and models: banners, gap markers, sizes and next calls.
//!
//! One marker format everywhere; units always named; totals given when known; thousands
//! separated; the literal next call always given.

mod coverage;
mod map;

use crate::clock;
use crate::envelope::{Block, Envelope, Found, Gap, Range, SourceKind, Unit};
use crate::error::Error;

pub use crate::dialect::{Dialect, call_text, cli_text, shell_word};
pub use coverage::{coverage_words, held_words};

pub use crate::in_words::{describe_source, human_bytes, thousands};
use crate::in_words::{human_tokens, plural};

/// The marker that stands in a preview where a gap is, its call in `dialect`.
pub fn gap_marker(gap: &Gap, dialect: Dialect) -> String {
    let call = crate::dialect::call(&gap.read, dialect);
    if gap.unit == Unit::Lines {
        format!(
            "... [lines {}-{} not shown: {}, {}; {call}] ...",
            thousands(gap.start),
            thousands(gap.end),
            plural(gap.lines, "line", "lines"),
            plural(gap.chars, "char", "chars"),
        )
    } else {
        format!(
            "... [chars {}-{} not shown: {}; {call}] ...",
            thousands(gap.start),
            thousands(gap.end),
            plural(gap.chars, "char", "chars"),
        )
    }
}

/// Each block's text in order (a gap as its marker), leaving out empty ones: what MCP sends
/// as separate text blocks after the banner.
pub fn block_texts(e: &Envelope, dialect: Dialect) -> Vec<String> {
    e.blocks
        .iter()
        .map(|b| match b {
            Block::Shown(text) => text.clone(),
            Block::Gap(gap) => gap_marker(gap, dialect),
        })
        .filter(|t| !t.is_empty())
        .collect()
}

impl Envelope {
    /// The `content` of the envelope, its gaps' calls in `dialect`.
    pub fn content(&self, dialect: Dialect) -> String {
        content(self, dialect)
    }
}

/// The envelope's `content`: the shown text in order, each gap marker on a line of its own.
pub fn content(e: &Envelope, dialect: Dialect) -> String {
    let mut out = String::new();
    for block in &e.blocks {
        match block {
            Block::Shown(text) => out.push_str(text),
            Block::Gap(gap) => {
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&gap_marker(gap, dialect));
                out.push('\n');
            }
        }
    }
    out
}

/// A shown range in prose: lines and items 1-based and inclusive (`items 26-30`, for the
/// 0-based, end-exclusive `[25, 30)` of `shown`), chars and bytes as `shown` has them.
pub fn range_text(r: &Range) -> String {
    match r.unit {
        Unit::Lines if r.start == r.end => format!("line {}", thousands(r.start)),
        Unit::Lines => format!("lines {}-{}", thousands(r.start), thousands(r.end)),
        Unit::Items if r.start + 1 == r.end => format!("item {}", thousands(r.end)),
        Unit::Items => format!("items {}-{}", thousands(r.start + 1), thousands(r.end)),
        unit => format!(
            "{} {}-{}",
            unit.as_str(),
            thousands(r.start),
            thousands(r.end)
        ),
    }
}

fn shown_text(e: &Envelope) -> String {
    let same = e.shown.windows(2).all(|w| w[0].unit == w[1].unit);
    let mut parts = Vec::new();
    for (i, r) in e.shown.iter().enumerate() {
        let t = range_text(r);
        if i > 0 && same {
            // "lines 1-96 and 2905-3000"
            parts.push(
                t.split_once(' ')
                    .map_or(t.clone(), |(_, rest)| rest.to_owned()),
            );
        } else {
            parts.push(t);
        }
    }
    parts.join(" and ")
}

fn totals_text(e: &Envelope) -> String {
    let t = &e.total;
    let mut sizes = Vec::new();
    if let Some(b) = t.bytes {
        sizes.push(human_bytes(b));
    }
    if let Some(tok) = t.tokens {
        sizes.push(human_tokens(tok, t.tokens_estimated));
    }
    sizes.join(", ")
}

fn whole_text(e: &Envelope) -> String {
    let t = &e.total;
    let binary = e
        .reason
        .as_ref()
        .is_some_and(|r| r.code == crate::envelope::ReasonCode::Binary);
    let unit = e
        .shown
        .first()
        .map_or(if binary { Unit::Bytes } else { Unit::Lines }, |r| r.unit);
    let count = match unit {
        Unit::Chars => t.chars.map(|c| plural(c, "char", "chars")),
        Unit::Bytes => t.bytes.map(|b| plural(b, "byte", "bytes")),
        Unit::Items => t.items.map(|n| plural(n, "item", "items")),
        _ => t.lines.map(|l| plural(l, "line", "lines")),
    };
    // Items of one upstream page are not the upstream's whole list: said where they are
    // counted (its coverage line says what more).
    let count = count.map(|c| {
        if unit == Unit::Items && e.source.coverage().upstream_page.is_some() {
            format!("{c} stored, one page of the upstream's list")
        } else {
            c
        }
    });
    match count {
        Some(count) if unit == Unit::Bytes && t.bytes.unwrap_or(0) < 1024 => count,
        Some(count) if unit == Unit::Bytes => {
            format!("{count} ({})", human_bytes(t.bytes.unwrap_or(0)))
        }
        Some(count) => format!("{count} ({})", totals_text(e)),
        None => totals_text(e),
    }
}

/// For a page shown by lines, how much of its text that is in chars: a page's natural size is
/// its chars, and "41,000 of 156,000 chars" tells a reader it saw a quarter.
fn page_chars(e: &Envelope) -> Option<String> {
    let total = e.total.chars?;
    if e.source.kind() != SourceKind::Fetch || e.shown.first()?.unit != Unit::Lines {
        return None;
    }
    let shown: u64 = e
        .blocks
        .iter()
        .map(|b| match b {
            Block::Shown(text) => text.chars().count() as u64,
            Block::Gap(_) => 0,
        })
        .sum();
    Some(format!(
        "; {} of {} shown",
        thousands(shown),
        plural(total, "char", "chars")
    ))
}

/// The HTTP status of a fetched page the server did not serve (4xx, 5xx).
fn error_status(e: &Envelope) -> Option<u64> {
    e.source
        .version
        .fetch()
        .map(|f| u64::from(f.status))
        .filter(|s| *s >= 400)
}

/// The banner: one short line when complete, everything when partial. A page the server
/// answered with an error status says so first: its body is the error, not the page.
pub fn banner(e: &Envelope, dialect: Dialect) -> String {
    if let Some(scope) = &e.scope {
        return map::banner(e, scope, dialect);
    }
    let stored_as = describe_source(&e.source);
    let mut lines = Vec::new();
    if let Some(status) = error_status(e) {
        let said = if e.complete {
            "shown whole below"
        } else {
            "shown in part below"
        };
        lines.push(format!(
            "[HTTP {status} ERROR: the server did not serve the page; what it answered instead is {said}.]"
        ));
    }
    if e.complete {
        let count = match (e.total.items, e.total.lines) {
            (Some(n), _) => plural(n, "item", "items"),
            (None, Some(l)) => plural(l, "line", "lines"),
            (None, None) => String::new(),
        };
        lines.push(format!(
            "[{}: {count} ({}); {stored_as}; stored as {}]",
            if lines.is_empty() {
                "COMPLETE"
            } else {
                "ERROR PAGE"
            },
            totals_text(e),
            e.reference
        ));
        if let Some(words) = coverage_words(&e.source.coverage(), dialect) {
            lines.push(format!("[Coverage: {words}.]"));
        }
        if let Some(found) = &e.found {
            lines.push(format!("[{}]", found_text(found, e)));
        }
        // What the caller added (a reused copy, a CI run's other jobs) is said even when the
        // answer is whole.
        for note in &e.notes {
            lines.push(format!("[Note: {note}.]"));
        }
        if has_calls(e) {
            lines.push(format!("[Next: {}]", calls_text(e, dialect)));
        }
        return lines.join("\n");
    }
    let why = e
        .reason
        .as_ref()
        .map_or_else(String::new, |r| format!("; {}", r.detail));
    if e.shown.is_empty() {
        lines.push(format!(
            "[PARTIAL: nothing shown of {}{why}.",
            whole_text(e)
        ));
    } else {
        lines.push(format!(
            "[PARTIAL: {} of {}{}{why}.",
            shown_text(e),
            whole_text(e),
            page_chars(e).unwrap_or_default()
        ));
    }
    let what = if e.source.kind() == SourceKind::Exec {
        "Full output"
    } else {
        "Full content"
    };
    lines.push(format!(" {what} stored as {} ({stored_as}).", e.reference));
    if let Some(capture) = &e.capture
        && e.reason.as_ref().is_none_or(|r| r.detail != capture.detail)
    {
        lines.push(format!(
            " The stored copy itself is incomplete ({}): {}.",
            capture.state.as_str(),
            capture.detail
        ));
    }
    if let Some(words) = coverage_words(&e.source.coverage(), dialect) {
        lines.push(format!(" Coverage: {words}."));
    }
    if let Some(found) = &e.found {
        lines.push(format!(" {}.", found_text(found, e)));
    }
    for note in &e.notes {
        lines.push(format!(" Note: {note}."));
    }
    if has_calls(e) {
        lines.push(format!(" Next: {}", calls_text(e, dialect)));
    }
    lines.push(
        " Do not conclude that something is absent from the part shown: it may be in the part not shown.]"
            .into(),
    );
    lines.join("\n")
}

/// The answer's next calls in `dialect`, one after another, then its templates (a search by
/// a regex of the reader's, its blank printed as `...` or `PATTERN`).
fn calls_text(e: &Envelope, dialect: Dialect) -> String {
    let calls: Vec<String> = e
        .next
        .iter()
        .chain(&e.next_templates)
        .map(|c| crate::dialect::call(c, dialect))
        .collect();
    calls.join(", or ")
}

/// Whether the answer offers any call.
fn has_calls(e: &Envelope) -> bool {
    !e.next.is_empty() || !e.next_templates.is_empty()
}

/// What a read or fetch asked to find found in the whole stored copy: how many, the words or
/// pattern, and which of the best are shown (and where, by line).
fn found_text(f: &Found, e: &Envelope) -> String {
    let (one, many) = f.unit();
    let what = if f.query.is_some() {
        // A passage is counted when it holds any one of the words, and the words say so.
        let mut w = format!("any of the words {}", f.looked_for.join(", "));
        if !f.left_out.is_empty() {
            w.push_str(&format!(
                " (left out as too common: {})",
                f.left_out.join(", ")
            ));
        }
        w
    } else {
        format!(
            "{} {}{}",
            if f.literal { "the text" } else { "the regex" },
            f.pattern.as_deref().unwrap_or_default(),
            if f.case_insensitive {
                " (any case)"
            } else {
                ""
            }
        )
    };
    let verb = if f.query.is_some() { "hold" } else { "match" };
    if f.hit_count == 0 {
        let lines = e.total.lines.map_or_else(String::new, |l| {
            format!(" ({})", plural(l, "line", "lines"))
        });
        let verb = if f.query.is_some() {
            "holds"
        } else {
            "matches"
        };
        let held = held_words(&e.source.coverage())
            .map_or_else(String::new, |h| format!(", which holds {h}"));
        return format!(
            "Found: no {one} {verb} {what}; searched the whole stored copy{lines}{held}"
        );
    }
    let count = plural(f.hit_count, one, many);
    let verb = match (f.hit_count, f.query.is_some()) {
        (1, true) => "holds",
        (1, false) => "matches",
        _ => verb,
    };
    // "line 7", "lines 7-9", "lines 12, 7-9"
    let at = |ats: Vec<&crate::envelope::FoundAt>| {
        let one = ats.len() == 1 && ats[0].start_line == ats[0].end_line;
        let spans: Vec<String> = ats
            .iter()
            .map(|a| {
                if a.start_line == a.end_line {
                    thousands(a.start_line)
                } else {
                    format!("{}-{}", thousands(a.start_line), thousands(a.end_line))
                }
            })
            .collect();
        format!(
            "{} {}",
            if one { "line" } else { "lines" },
            spans.join(", ")
        )
    };
    let order = if f.query.is_some() {
        "best first"
    } else {
        "first in order"
    };
    let shown: Vec<_> = f.best.iter().filter(|a| a.shown).collect();
    let unshown: Vec<_> = f.best.iter().filter(|a| !a.shown).collect();
    let mut out = format!("Found: {count} of the whole copy {verb} {what}");
    if shown.is_empty() {
        out.push_str(&format!("; none shown here ({order}: {})", at(unshown)));
        return out;
    }
    out.push_str(&format!("; shown here, {order}: {}", at(shown)));
    if !unshown.is_empty() {
        out.push_str(&format!(
            "; not shown here (no room left in this answer): {}",
            at(unshown)
        ));
    }
    out
}

/// The banner, then the content.
pub fn envelope_text(e: &Envelope, dialect: Dialect) -> String {
    let mut out = banner(e, dialect);
    out.push('\n');
    out.push_str(&content(e, dialect));
    out
}

/// An error as text: what went wrong, then the call that works.
pub fn error_text(err: &Error, dialect: Dialect) -> String {
    let mut out = format!("[ERROR {}: {}]", err.code().as_str(), err.message(dialect));
    if let Some(hint) = err.hint(dialect) {
        out.push_str("\nhint: ");
        out.push_str(&hint);
    }
    out
}

/// When an artifact was stored, in words.
pub fn stored_at(ms: i64) -> String {
    clock::rfc3339(ms)
}
