//! A stored copy's coverage of its source in words: said beside every claim of "all" or
//! "whole" an answer about the copy makes, so that none of them reads as a claim about more
//! than the copy holds.

use serde_json::Value;

use crate::dialect::Dialect;
use crate::envelope::{Coverage, UpstreamPage};
use crate::in_words::{plural, thousands};

/// What the copy holds, when that is not all of its source: "the page's main content only
/// (its `main`, 90% of the page's text)", "one page of the upstream's answer (items 1-1,000;
/// it says its list holds 5,000) and the upstream says more exist (`nextCursor`)". `None` for
/// a whole copy.
pub fn held_words(c: &Coverage) -> Option<String> {
    if !c.leaves_out() {
        return None;
    }
    let mut parts = Vec::new();
    if let Some(m) = &c.main_content {
        parts.push(format!(
            "the page's main content only (its `{}`, {}% of the page's text; the navigation and the rest around it are left out)",
            m.element, m.text_percent
        ));
    }
    if let Some(f) = &c.first_bytes {
        parts.push(format!(
            "the first {} of the source's {} only (the store keeps no more of one output)",
            crate::numbers::human_bytes(f.kept),
            crate::numbers::human_bytes(f.of)
        ));
    }
    if let Some(up) = &c.upstream_page {
        parts.push(upstream_words(up));
        if c.rest.is_none() {
            // More exist and no call reaches them: said, so `has_more` is never a dead end
            // the reader cannot see.
            parts.push(
                "no call for the upstream's next page can be made from its tool's arguments: its own words above say where the rest is".into(),
            );
        }
    }
    Some(parts.join("; "))
}

/// One page of an upstream's answer, in words.
fn upstream_words(up: &UpstreamPage) -> String {
    let mut at = Vec::new();
    if let Some(page) = up.page {
        at.push(format!("page {}", thousands(page)));
    }
    match (up.items_before, up.items) {
        (Some(before), Some(n)) if n > 0 && before.checked_add(n).is_some() => {
            at.push(format!(
                "items {}-{} of its list",
                thousands(before + 1),
                thousands(before + n)
            ));
        }
        (_, Some(n)) => at.push(plural(n, "item", "items")),
        _ => {}
    }
    if let Some(total) = up.total {
        at.push(format!(
            "it says its list holds {}",
            plural(total, "item", "items")
        ));
    }
    let at = if at.is_empty() {
        String::new()
    } else {
        format!(" ({})", at.join("; "))
    };
    let said: Vec<String> = up
        .said
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) if s.chars().count() > 40 => {
                let head: String = s.chars().take(40).collect();
                format!("`{k}`: \"{head}...\"")
            }
            _ => format!("`{k}`: {v}"),
        })
        .collect();
    format!(
        "one page of the upstream's answer{at}, and the upstream says more exist ({})",
        said.join(", ")
    )
}

/// The coverage line of a banner: what the copy holds and the call that reaches the rest;
/// hidden elements kept are said even of a whole copy. `None` when there is nothing to say.
pub fn coverage_words(c: &Coverage, dialect: Dialect) -> Option<String> {
    let mut out = match held_words(c) {
        Some(held) => format!("the stored copy holds {held}"),
        None => String::new(),
    };
    if c.hidden_kept > 0 {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(&format!(
            "{} the page hides until opened (tabs, accordions) {} kept, marked `[hidden on the page]`",
            plural(c.hidden_kept, "element", "elements"),
            if c.hidden_kept == 1 { "is" } else { "are" }
        ));
    }
    if let Some(rest) = c.rest.as_ref().filter(|_| c.leaves_out()) {
        out.push_str(&format!(
            "; the rest: {}",
            crate::dialect::call(rest, dialect)
        ));
    }
    (!out.is_empty()).then_some(out)
}
