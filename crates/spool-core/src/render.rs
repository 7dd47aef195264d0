//! Words for people and models: banners, gap markers, sizes and next calls.
//!
//! One marker format everywhere; units always named; totals given when known; thousands
//! separated; the literal next call always given.

use serde_json::Value;

use crate::clock;
use crate::envelope::{Block, Envelope, Gap, NextCall, Range, Source, SourceKind, Unit};
use crate::error::Error;

pub use crate::spell::{Dialect, call_text, cli_text, shell_word};

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `152300` as `148.7 KiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} bytes");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A token count, `~41k tokens` when estimated or large.
fn human_tokens(tokens: u64, estimated: bool) -> String {
    if estimated || tokens >= 10_000 {
        let k = (tokens as f64 / 1000.0).round() as u64;
        if k >= 1 {
            return format!("~{}k tokens", thousands(k));
        }
    }
    format!("{} tokens", thousands(tokens))
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// The source in words: `cargo test, exit 101, 2026-11-30T09:00:00Z`.
pub fn describe_source(source: &Source) -> String {
    /// Longer descriptions (a whole script as a command) are cut in the banner.
    const LONGEST: usize = 200;
    let v = &source.version;
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let desc = if source.desc.chars().count() > LONGEST {
        let cut: String = source.desc.chars().take(LONGEST).collect();
        format!(
            "{cut}... ({} chars)",
            thousands(source.desc.chars().count() as u64)
        )
    } else {
        source.desc.clone()
    };
    let mut parts = vec![desc];
    match source.kind {
        SourceKind::Exec => {
            if v.get("timed_out").and_then(Value::as_bool) == Some(true) {
                parts.push("timed out".into());
            } else if let Some(sig) = text("signal") {
                parts.push(format!("killed by {sig}"));
            } else if let Some(code) = v.get("exit_code").and_then(Value::as_i64) {
                parts.push(format!("exit {code}"));
            }
            parts.extend(text("started_at"));
        }
        SourceKind::Fetch => {
            if let Some(status) = v.get("status").and_then(Value::as_u64) {
                parts.push(format!("HTTP {status}"));
            }
            if let Some(ct) = text("content_type").filter(|c| !c.is_empty()) {
                parts.push(ct);
            }
            parts.extend(text("fetched_at"));
        }
        SourceKind::File => {
            if let Some(sha) = text("sha256") {
                parts.push(format!("sha256 {}", &sha[..sha.len().min(12)]));
            }
            if let Some(commit) = text("commit") {
                let dirty = v.get("dirty").and_then(Value::as_bool) == Some(true);
                parts.push(format!(
                    "commit {}{}",
                    &commit[..commit.len().min(12)],
                    if dirty { " (dirty)" } else { "" }
                ));
            }
            parts.extend(text("mtime"));
        }
        SourceKind::Mcp => {
            parts.extend(text("called_at"));
        }
        SourceKind::Search | SourceKind::Text => {}
    }
    parts.join(", ")
}

fn render_call(call: &NextCall, dialect: Dialect) -> String {
    crate::spell::call(call, dialect)
}

/// The marker that stands in a preview where a gap is, its call in `dialect`.
pub fn gap_marker(gap: &Gap, dialect: Dialect) -> String {
    let call = render_call(&gap.read, dialect);
    if gap.unit == Unit::Lines {
        format!(
            "... [lines {}-{} not shown: {}, {}; {call}] ...",
            gap.start,
            gap.end,
            plural(gap.lines, "line", "lines"),
            plural(gap.chars, "char", "chars"),
        )
    } else {
        format!(
            "... [chars {}-{} not shown: {}; {call}] ...",
            gap.start,
            gap.end,
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

fn range_text(r: &Range) -> String {
    match r.unit {
        Unit::Lines if r.start == r.end => format!("line {}", thousands(r.start)),
        Unit::Lines => format!("lines {}-{}", thousands(r.start), thousands(r.end)),
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
    match count {
        Some(count) if unit == Unit::Bytes && t.bytes.unwrap_or(0) < 1024 => count,
        Some(count) if unit == Unit::Bytes => {
            format!("{count} ({})", human_bytes(t.bytes.unwrap_or(0)))
        }
        Some(count) => format!("{count} ({})", totals_text(e)),
        None => totals_text(e),
    }
}

/// The HTTP status of a fetched page the server did not serve (4xx, 5xx).
fn error_status(e: &Envelope) -> Option<u64> {
    if e.source.kind != SourceKind::Fetch {
        return None;
    }
    e.source
        .version
        .get("status")
        .and_then(serde_json::Value::as_u64)
        .filter(|s| *s >= 400)
}

/// The banner: one short line when complete, everything when partial. A page the server
/// answered with an error status says so first: its body is the error, not the page.
pub fn banner(e: &Envelope, dialect: Dialect) -> String {
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
            "[PARTIAL: {} of {}{why}.",
            shown_text(e),
            whole_text(e)
        ));
    }
    let what = if e.source.kind == SourceKind::Exec {
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
    for note in &e.notes {
        lines.push(format!(" Note: {note}."));
    }
    if !e.next.is_empty() {
        let calls: Vec<String> = e.next.iter().map(|c| render_call(c, dialect)).collect();
        lines.push(format!(" Next: {}", calls.join(", or ")));
    }
    lines.push(
        " Do not conclude that something is absent from the part shown: it may be in the part not shown.]"
            .into(),
    );
    lines.join("\n")
}

/// The banner, then the content.
pub fn envelope_text(e: &Envelope, dialect: Dialect) -> String {
    let mut out = banner(e, dialect);
    out.push('\n');
    out.push_str(&content(e, dialect));
    out
}

/// A page of items: the banner, then one item per line.
pub fn item_page_text(page: &crate::items::ItemPage, dialect: Dialect) -> String {
    envelope_text(&page.envelope, dialect)
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

/// The words that stand before a page's items: how many are shown, why not more, the call
/// for the next page.
fn page_notice<T>(page: &crate::page::Page<T>, what: &str, dialect: Dialect) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(reason) = &page.reason {
        lines.push(format!(
            "[page cut to {} {what}: {}]",
            thousands(page.items.len() as u64),
            reason.detail
        ));
    }
    if let Some(next) = page.next.first() {
        lines.push(format!("[more {what}: {}]", render_call(next, dialect)));
    }
    lines
}

/// The notice of a page of artifact summaries.
pub fn artifacts_notice(page: &crate::page::Page<Value>, dialect: Dialect) -> String {
    let mut lines = vec![if page.items.is_empty() {
        "[ARTIFACTS: none at this position]".to_owned()
    } else {
        format!(
            "[ARTIFACTS: {} shown, newest first{}]",
            thousands(page.items.len() as u64),
            if page.has_more { "; more exist" } else { "" }
        )
    }];
    lines.extend(page_notice(page, "artifacts", dialect));
    lines.join("\n")
}

/// A page of artifact summaries: the notice, then a table.
pub fn artifacts_text(page: &crate::page::Page<Value>, dialect: Dialect) -> String {
    let mut out = artifacts_notice(page, dialect);
    out.push('\n');
    for item in &page.items {
        let s = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or("");
        let total = item.get("total");
        let n = |k: &str| {
            total
                .and_then(|t| t.get(k))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let source = item.get("source");
        let desc = source
            .and_then(|s| s.get("desc"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = source
            .and_then(|s| s.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or("");
        out.push_str(&format!(
            "{}  {:<11} {:<6} {:>10} lines {:>10}  {}  {}\n",
            s("ref"),
            s("state"),
            kind,
            thousands(n("lines")),
            human_bytes(n("bytes")),
            s("created_at"),
            desc
        ));
    }
    out
}

/// The notice of a page of directory entries: totals, what was left out, the next page.
pub fn entries_notice(
    page: &crate::page::Page<crate::listing::Entry>,
    dir: &str,
    dialect: Dialect,
) -> String {
    let total = page
        .total
        .map_or_else(String::new, |t| format!(" of {}", thousands(t)));
    let hidden = page
        .skipped
        .as_ref()
        .and_then(|s| s.get("hidden_or_ignored"))
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(0);
    let glob = page
        .repeat
        .as_ref()
        .and_then(|r| r.arguments.get("glob"))
        .and_then(serde_json::Value::as_str);
    let mut lines = vec![if page.items.is_empty() && page.total == Some(0) {
        // Nothing to list at all, which is not the same as a page past the end.
        match glob {
            Some(g) => format!("[LIST {dir}: no entries match the glob `{g}`]"),
            None if hidden > 0 => {
                format!("[LIST {dir}: no entries that are not hidden or ignored]")
            }
            None => format!("[LIST {dir}: the directory is empty]"),
        }
    } else if page.items.is_empty() {
        format!("[LIST {dir}: no entries at this position{total}]")
    } else {
        format!(
            "[LIST {dir}: {} entries shown{total}]",
            thousands(page.items.len() as u64)
        )
    }];
    if let Some(skipped) = &page.skipped {
        let how = match dialect {
            Dialect::Mcp => "list again with hidden=true to include them",
            Dialect::Cli => "add --hidden to include them",
        };
        match skipped.get("hidden_or_ignored").and_then(serde_json::Value::as_u64) {
            Some(0) => {}
            Some(n) => lines.push(format!(
                "[not listed: {} hidden or .gitignored entries; {how}]",
                thousands(n)
            )),
            None => lines.push(format!(
                "[not listed: hidden and .gitignored entries (not counted: there are too many to count quickly); {how}]"
            )),
        }
    }
    lines.extend(page_notice(page, "entries", dialect));
    lines.join("\n")
}

/// A page of directory entries: the notice, then one entry a line.
pub fn entries_text(
    page: &crate::page::Page<crate::listing::Entry>,
    dir: &str,
    dialect: Dialect,
) -> String {
    let mut out = entries_notice(page, dir, dialect);
    out.push('\n');
    for e in &page.items {
        let size = if e.kind == "dir" {
            String::new()
        } else {
            human_bytes(e.size)
        };
        out.push_str(&format!(
            "{:<7} {:>10}  {}  {}\n",
            e.kind,
            size,
            e.mtime.as_deref().unwrap_or("-"),
            e.path
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_words() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(152_300), "152,300");
        assert_eq!(human_bytes(152_300), "148.7 KiB");
        assert_eq!(human_bytes(12), "12 bytes");
        assert_eq!(human_tokens(41_210, false), "~41k tokens");
        assert_eq!(human_tokens(300, false), "300 tokens");
    }
}
