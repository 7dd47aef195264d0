//! A repository map's banner: which files of the map this page shows, of how many, in which
//! order; what the map covers of the tree (files counted, mapped, skipped by why) and at which
//! version; and the calls that go on.

use super::{calls_text, has_calls, plural, thousands, totals_text};
use crate::dialect::Dialect;
use crate::envelope::{Envelope, MapScope};

/// The banner of a map page: one line and the scope when it shows the whole map, everything
/// when it does not.
pub(super) fn banner(e: &Envelope, scope: &MapScope, dialect: Dialect) -> String {
    let stored_as = crate::in_words::describe_source(&e.source);
    let shown = &scope.files_shown;
    let lines_total = e.total.lines.unwrap_or(0);
    let mut out = Vec::new();
    if e.complete {
        out.push(format!(
            "[COMPLETE MAP: all {} ({}, {}); {stored_as}; stored as {}]",
            plural(scope.files_counted, "file", "files"),
            plural(lines_total, "line", "lines"),
            totals_text(e),
            e.reference
        ));
        out.push(format!("[Scope: {}.]", scope_words(scope)));
        for note in &e.notes {
            out.push(format!("[Note: {note}.]"));
        }
        if has_calls(e) {
            out.push(format!("[Next: {}]", calls_text(e, dialect)));
        }
        return out.join("\n");
    }
    let why = e
        .reason
        .as_ref()
        .map_or_else(String::new, |r| format!("; {}", r.detail));
    let files = match shown.end.cmp(&shown.start) {
        std::cmp::Ordering::Less => "no files".to_owned(),
        std::cmp::Ordering::Equal => format!("file {}", thousands(shown.start)),
        std::cmp::Ordering::Greater => {
            format!("files {}-{}", thousands(shown.start), thousands(shown.end))
        }
    };
    let lines = e.shown.first().map_or_else(String::new, |first| {
        let last = e.shown.last().unwrap_or(first);
        if first.unit == crate::envelope::Unit::Lines {
            format!(
                " (map lines {}-{} of {})",
                thousands(first.start),
                thousands(last.end),
                thousands(lines_total)
            )
        } else {
            format!(
                " (chars {}-{} of the map: part of one line)",
                thousands(first.start),
                thousands(last.end)
            )
        }
    });
    out.push(format!(
        "[PARTIAL MAP: {files} of {}, best first{lines}{why}.",
        thousands(scope.files_counted)
    ));
    out.push(format!(" Scope: {}.", scope_words(scope)));
    out.push(format!(
        " Full map stored as {} ({stored_as}).",
        e.reference
    ));
    for note in &e.notes {
        out.push(format!(" Note: {note}."));
    }
    if has_calls(e) {
        out.push(format!(" Next: {}", calls_text(e, dialect)));
    }
    out.push(
        " Do not conclude that something is absent from the part shown: it may be in the part not shown.]"
            .into(),
    );
    out.join("\n")
}

/// What the map covers: `1,204 files counted under crates: 342 mapped (5,120 definitions,
/// 1,450 listed), 812 without a grammar, 30 binary; 18 left out by .gitignore, 4 hidden`.
fn scope_words(s: &MapScope) -> String {
    let k = &s.files_skipped;
    let listed = if s.definitions_listed < s.definitions {
        format!(
            "{}, {} listed",
            plural(s.definitions, "definition", "definitions"),
            thousands(s.definitions_listed)
        )
    } else {
        format!(
            "{}, all listed",
            plural(s.definitions, "definition", "definitions")
        )
    };
    let mut parts = vec![format!("{} mapped ({listed})", thousands(s.files_mapped))];
    for (n, what) in [
        (k.no_grammar, "without a grammar (listed by name)"),
        (k.binary, "binary"),
        (k.too_large, "too large"),
        (k.unparsable, "unparsable"),
        (k.unreadable, "unreadable"),
        (k.not_parsed, "not parsed in time"),
    ] {
        if n > 0 {
            parts.push(format!("{} {what}", thousands(n)));
        }
    }
    let mut walk = Vec::new();
    if let Some(n) = k.ignored.filter(|n| *n > 0) {
        walk.push(format!("{} left out by .gitignore", thousands(n)));
    }
    if let Some(n) = k.hidden.filter(|n| *n > 0) {
        walk.push(format!("{} hidden", thousands(n)));
    }
    let mut out = format!(
        "{} counted: {}",
        plural(s.files_counted, "file", "files"),
        parts.join(", ")
    );
    if !walk.is_empty() {
        out.push_str("; ");
        out.push_str(&walk.join(", "));
    }
    if !s.focus.is_empty() {
        out.push_str(&format!("; ranked first: {}", s.focus.join(", ")));
    }
    out
}
