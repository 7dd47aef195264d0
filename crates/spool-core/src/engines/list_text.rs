//! Pages of lists in words: stored artifacts, directory entries and upstream items, each a
//! notice (how many are shown, why not more, the call for the next page), then the items.
//! Above the lists it words, and beside `render`, which words envelopes.

use crate::envelope::NextCall;
use crate::in_words::{human_bytes, thousands};
use crate::page::Page;
use crate::render::{Dialect, envelope_text};
use crate::store::ArtifactSummary;

/// A page of items: the banner, then one item per line.
pub fn item_page_text(page: &crate::items::ItemPage, dialect: Dialect) -> String {
    envelope_text(&page.envelope, dialect)
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
        lines.push(format!(
            "[more {what}: {}]",
            crate::dialect::call(next, dialect)
        ));
    }
    lines
}

/// The notice of a page of artifact summaries.
pub fn artifacts_notice(page: &Page<ArtifactSummary>, dialect: Dialect) -> String {
    let kind = page
        .repeat
        .as_ref()
        .and_then(|r| match r {
            NextCall::Artifacts(a) => a.kind.as_deref(),
            _ => None,
        })
        .map_or_else(String::new, |k| format!(" of kind `{k}`"));
    let mut lines = vec![if page.items.is_empty() && page.total == Some(0) {
        format!("[ARTIFACTS: the store holds none{kind} readable here]")
    } else if page.items.is_empty() {
        "[ARTIFACTS: none at this position: the cursor is past the last artifact]".to_owned()
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
pub fn artifacts_text(page: &Page<ArtifactSummary>, dialect: Dialect) -> String {
    let mut out = artifacts_notice(page, dialect);
    out.push('\n');
    for item in &page.items {
        out.push_str(&format!(
            "{}  {:<11} {:<6} {:>10} lines {:>10}  {}  {}\n",
            item.reference,
            item.state.as_str(),
            item.source.kind().as_str(),
            thousands(item.total.lines.unwrap_or(0)),
            human_bytes(item.total.bytes.unwrap_or(0)),
            item.created_at,
            item.source.desc
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
    let glob = page.repeat.as_ref().and_then(|r| match r {
        NextCall::List(l) => l.glob.as_deref(),
        _ => None,
    });
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
