//! The search answer in words: what was searched and how much was found first, then the hits.

use serde_json::Value;

use super::{Scope, SearchAnswer};
use crate::calls::{ReadParams, SearchParams, Target};
use crate::envelope::NextCall;
use crate::in_words::plural;
use crate::render::{self, Dialect, thousands};

/// Where the search looked, in words, and the target a read of a hit names.
fn scope_text(a: &SearchAnswer) -> (String, Target) {
    match &a.scope {
        Scope::Tree(t) => {
            let commit = t
                .version
                .commit
                .as_deref()
                .map(|c| {
                    format!(
                        " at commit {}{}",
                        &c[..c.len().min(12)],
                        match (t.version.dirty, t.version.staged) {
                            (Some(false), _) => "",
                            (Some(true), Some(true)) => " with changes staged and not committed",
                            (Some(true), _) => " with local changes",
                            (None, _) => " (can't tell whether the files differ from it)",
                        }
                    )
                })
                .unwrap_or_default();
            let files = t.files_searched;
            (
                format!(
                    "{} under `{}`{}{commit} ({})",
                    plural(files, "file", "files"),
                    t.root,
                    globs_text(&t.globs),
                    not_searched(t),
                ),
                Target::path(t.root.clone()),
            )
        }
        Scope::Artifact(s) => (
            format!(
                "all {} ({}) of {} ({}){}",
                plural(s.lines_searched, "line", "lines"),
                render::human_bytes(s.bytes_searched),
                s.reference,
                render::describe_source(&s.source),
                // "All" is of the stored copy: what the copy is of its source is said with it.
                render::held_words(&s.source.coverage())
                    .map_or_else(String::new, |h| format!(", a stored copy that holds {h}"))
            ),
            Target::reference(s.reference.clone()),
        ),
    }
}

/// The globs a search's files match, in words (" matching the glob `*.rs`").
fn globs_text(globs: &[String]) -> String {
    match globs {
        [] => String::new(),
        [one] => format!(" matching the glob `{one}`"),
        many => format!(
            " matching the globs {}",
            many.iter()
                .map(|g| format!("`{g}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What a directory search did not read, each restriction counted apart: outside the globs,
/// ignored by the ignore files, hidden, binary, too large, unreadable.
fn not_searched(t: &super::TreeScope) -> String {
    let k = &t.files_skipped;
    let count = |n: Option<u64>, what: &str| {
        n.map_or_else(
            || format!("{what}: not counted"),
            |n| format!("{} {what}", thousands(n)),
        )
    };
    let mut parts = Vec::new();
    if !t.globs.is_empty() {
        let what = if t.globs.len() == 1 {
            "outside the glob"
        } else {
            "outside the globs"
        };
        parts.push(count(k.outside_glob, what));
    }
    if !t.no_ignore {
        parts.push(count(k.ignored, "ignored by .gitignore rules"));
    }
    // Counts that are most often zero are named only when they are not (or not counted).
    match k.hidden {
        Some(n) if n > 0 => parts.push(format!("{} hidden", thousands(n))),
        None if !t.hidden => parts.push("hidden: not counted".into()),
        _ => {}
    }
    parts.push(format!("{} binary", thousands(k.binary)));
    parts.push(format!("{} too large", thousands(k.too_large)));
    if k.unreadable > 0 {
        parts.push(format!("{} unreadable", thousands(k.unreadable)));
    }
    if k.long_lines > 0 {
        parts.push(format!(
            "{} with a line over {}",
            thousands(k.long_lines),
            render::human_bytes(super::FILE_LINE_HEAP as u64)
        ));
    }
    if k.symlinks > 0 {
        parts.push(format!(
            "{} not followed",
            plural(k.symlinks, "symlink", "symlinks")
        ));
    }
    let mut out = format!("not searched: {}", parts.join(", "));
    if t.no_ignore {
        out.push_str("; the ignore files were not applied");
    }
    out
}

/// The searches that look where a directory search that found nothing did not (outside its
/// globs, ignored or hidden files), in words: `search path=. pattern=x (without the globs), or
/// ...`.
fn wider_text(a: &SearchAnswer, dialect: Dialect) -> Option<String> {
    if a.hit_count > 0 {
        return None;
    }
    if let Scope::Artifact(s) = &a.scope {
        // A copy that holds part of its source: the call that reaches the rest.
        let c = s.source.coverage();
        let rest = c.rest.as_ref().filter(|_| c.leaves_out())?;
        return Some(format!(
            "\n The rest of the source:\n Next: {}\n The stored copy holds part of its source: absent here is not absent there.",
            crate::dialect::call(rest, dialect)
        ));
    }
    let wider = a.wider();
    if wider.is_empty() {
        return unoffered(a);
    }
    // What each call adds is said first; the calls stand alone on the `Next:` line, as every
    // answer's do, so a reader of the words can run them as printed.
    let adds: Vec<&str> = wider.iter().map(|(_, adds)| adds.as_str()).collect();
    let calls: Vec<String> = wider
        .iter()
        .map(|(call, _)| crate::dialect::call(call, dialect))
        .collect();
    Some(format!(
        "\n The same search {}:\n Next: {}\n The files left out were not searched: absent here is not absent there.",
        adds.join(", or "),
        calls.join(", or ")
    ))
}

/// A cursor page's words on the tree it pages: the search's time, and what of this page's
/// files was deleted or changed since (see `since.rs`).
fn since_words(a: &SearchAnswer) -> String {
    let Scope::Tree(t) = &a.scope else {
        return String::new();
    };
    let Some(at) = &t.searched_at else {
        return String::new();
    };
    let mut out = format!("\n These hits are the tree as the search found it at {at}.");
    if let Some(c) = &t.changed_since {
        let mut parts = Vec::new();
        if c.deleted > 0 {
            parts.push(format!("{} deleted", thousands(c.deleted)));
        }
        if c.changed > 0 {
            parts.push(format!("{} changed", thousands(c.changed)));
        }
        out.push_str(&format!(
            " Since then, of this page's files, {}: their hits are marked, and the same search without its cursor reads the tree as it is now.",
            parts.join(" and ")
        ));
    }
    out
}

/// What a search that found nothing left out and offers no search of (files that could not be
/// read, symlinks that lead nowhere it may search): each named with why, and the caveat.
fn unoffered(a: &SearchAnswer) -> Option<String> {
    let Scope::Tree(t) = &a.scope else {
        return None;
    };
    if t.files_skipped.unreadable > 0 {
        let named: Vec<String> = t.unread.iter().map(|u| format!("`{}`", u.path)).collect();
        return Some(format!(
            "\n Not read: {}{}. No search can read them: absent here is not absent there.",
            named.join(", "),
            if (named.len() as u64) < t.files_skipped.unreadable {
                ", and more"
            } else {
                ""
            }
        ));
    }
    if t.files_skipped.symlinks == 0 {
        return None;
    }
    let named: Vec<String> = t
        .links
        .iter()
        .map(|l| {
            format!(
                "`{}` ({})",
                l.path,
                l.not_offered.as_deref().unwrap_or("not followed")
            )
        })
        .collect();
    Some(format!(
        "
 Symlinks not followed: {}{}. What they lead to was not searched: absent here is not absent there.",
        named.join(", "),
        if (named.len() as u64) < t.files_skipped.symlinks {
            ", and more"
        } else {
            ""
        }
    ))
}

/// The search answer in words: counts and scope first, then the hits.
pub fn render_answer(a: &SearchAnswer, dialect: Dialect) -> String {
    let mut out = notice(a, dialect);
    out.push('\n');
    out.push_str(&hit_lines(a));
    out
}

/// The structured answer: `notice`, the facts, then the hits (which are the content); in
/// `count` mode the files are the content, and there are no hits beside them.
pub fn structured(a: &SearchAnswer, dialect: Dialect) -> Value {
    let mut v = crate::structured::notice_first(notice(a, dialect), a);
    if let (Some(fields), Some(_)) = (v.as_object_mut(), &a.files) {
        fields.shift_remove("hits");
    }
    v
}

/// The banner of a search answer: the count, the query, where it looked, how to go on. Where
/// it looked follows `searched`, never `in`: "9 hits in 10 files" read as ten files holding a
/// hit, where ten were searched (issue 57).
pub fn notice(a: &SearchAnswer, dialect: Dialect) -> String {
    if let Some(words) = &a.query.words {
        return ranked_notice(a, words, dialect);
    }
    let pattern = if a.query.literal {
        format!("\"{}\"", a.query.pattern)
    } else {
        format!("/{}/", a.query.pattern)
    };
    let flags = if a.query.case_insensitive {
        " (case-insensitive)"
    } else {
        ""
    };
    let (where_, target) = scope_text(a);
    let mut stopped = a.reason.as_ref().map_or(String::new(), |r| {
        format!(
            "\n Stopped early: {}. The count covers only what was searched.",
            r.detail
        )
    });
    if a.windowed_lines > 0 {
        stopped.push_str(&format!(
            "\n {} longer than 4 MiB {} searched in 4 MiB windows overlapping by 64 KiB: {}",
            crate::in_words::plural(a.windowed_lines, "line", "lines"),
            if a.windowed_lines == 1 { "was" } else { "were" },
            if a.hit_count_exact {
                "each is counted once, and a match this short across a window's edge is found."
            } else {
                "each is counted once, but a match longer than 64 KiB across a window's edge is not found, and `^` or `$` may match at an edge."
            }
        ));
    }
    if a.hit_count == 0 {
        let wider = wider_text(a, dialect).unwrap_or_default();
        return format!(
            "[SEARCH: no hits for {pattern}{flags}; searched {where_}.{stopped}{wider}]"
        );
    }
    if let Some(files) = &a.files {
        return counts_notice(a, files, (&pattern, flags), &where_, &stopped, dialect);
    }
    let first = a.scope.first_hit_index();
    stopped.push_str(&since_words(a));
    let hits_word = if a.hit_count == 1 { "hit" } else { "hits" };
    let count = format!("{} {hits_word} (matching lines)", thousands(a.hit_count));
    if a.hits.is_empty() {
        return format!(
            "[SEARCH: {count} for {pattern}{flags}; searched {where_}; no hits after this position.{stopped}]"
        );
    }
    let shown = format!(
        "hits {}-{}",
        thousands(first + 1),
        thousands(first + a.hits.len() as u64)
    );
    let mut out = String::new();
    if a.truncated || first > 0 {
        let cut = a.page_reason.as_ref().map_or(String::new(), |r| {
            format!(" (this page is cut short: {})", r.detail)
        });
        out.push_str(&format!(
            "[SEARCH: {count} for {pattern}{flags}; searched {where_}. Showing {shown}{cut}.{stopped}\n"
        ));
        if let Some(next) = a.next.first() {
            out.push_str(&format!(
                " Next hits: {}\n",
                crate::dialect::call(next, dialect)
            ));
        }
    } else {
        out.push_str(&format!(
            "[SEARCH: {count} for {pattern}{flags}, all shown; searched {where_}.{stopped}\n"
        ));
    }
    if let Some(see) = first_in_context(a, &target) {
        out.push_str(&format!(
            " See the first hit in context: {}; the same with another hit's line for the others.]",
            crate::dialect::call(&see, dialect)
        ));
    } else {
        out.push(']');
    }
    out
}

/// The banner of hits per file (`count`): every hit and every file with one counted, which
/// files this page shows, and how to go on.
fn counts_notice(
    a: &SearchAnswer,
    files: &[super::FileCount],
    (pattern, flags): (&str, &str),
    where_: &str,
    stopped: &str,
    dialect: Dialect,
) -> String {
    let with = a.files_with_hits.unwrap_or(files.len() as u64);
    let count = format!(
        "{} (matching lines) for {pattern}{flags} in {}",
        plural(a.hit_count, "hit", "hits"),
        plural(with, "file", "files")
    );
    let first = a.first_file_index;
    if files.is_empty() {
        return format!(
            "[SEARCH: {count}, counted per file; no files after this position; searched {where_}.{stopped}]"
        );
    }
    let shown = format!(
        "files {}-{}",
        thousands(first + 1),
        thousands(first + files.len() as u64)
    );
    if !a.truncated && first == 0 {
        return format!(
            "[SEARCH: {count}, counted per file, all shown in path order; searched {where_}.{stopped}\n Each line below is a file and how many of its lines match.]"
        );
    }
    let cut = a.page_reason.as_ref().map_or(String::new(), |r| {
        format!(" (this page is cut short: {})", r.detail)
    });
    let mut out = format!(
        "[SEARCH: {count}, counted per file; searched {where_}. Showing {shown} in path order{cut}.{stopped}"
    );
    if let Some(next) = a.next.first() {
        out.push_str(&format!("\n Next: {}", crate::dialect::call(next, dialect)));
    }
    out.push_str("\n Each line below is a file and how many of its lines match.]");
    out
}

/// The banner of a ranked word search: the passages that hold any of the words, how they are
/// ranked, what was left out of the query, where it looked, and how to go on.
fn ranked_notice(a: &SearchAnswer, words: &super::WordQuery, dialect: Dialect) -> String {
    let mut looked = words.looked_for.join(", ");
    if words.not_used > 0 {
        looked.push_str(&format!(
            " (the first {}: {} more words were not used, a query looks for at most {})",
            super::MAX_QUERY_WORDS,
            thousands(words.not_used),
            super::MAX_QUERY_WORDS
        ));
    }
    let left_out = if words.left_out.is_empty() {
        String::new()
    } else {
        format!(" (left out as too common: {})", words.left_out.join(", "))
    };
    let (where_, target) = scope_text(a);
    if a.hit_count == 0 {
        let regex = NextCall::search_template(target.clone());
        let wider = wider_text(a, dialect).unwrap_or_default();
        return format!(
            "[SEARCH: no passage holds any of the words {looked}{left_out}; searched {where_}. Try other words, or a regex: {}{wider}]",
            crate::dialect::call(&regex, dialect)
        );
    }
    let first = a.scope.first_hit_index();
    let count = format!(
        "{} {} holding any of the words {looked}{left_out}, ranked by BM25 (best first)",
        thousands(a.hit_count),
        if a.hit_count == 1 {
            "passage"
        } else {
            "passages"
        }
    );
    if a.hits.is_empty() {
        return format!("[SEARCH: {count}; searched {where_}; no passages after this position.]");
    }
    let mut out = format!(
        "[SEARCH: {count}; searched {where_}. Showing {}-{}",
        thousands(first + 1),
        thousands(first + a.hits.len() as u64)
    );
    if let Some(r) = &a.page_reason {
        out.push_str(&format!(" (this page is cut short: {})", r.detail));
    }
    out.push_str(".\n");
    if let Some(next) = a.next.first() {
        out.push_str(&format!(
            " Next passages: {}\n",
            crate::dialect::call(next, dialect)
        ));
    }
    if let Some(name) = a
        .hits
        .iter()
        .find_map(|h| surfaced_name(&h.text, &words.looked_for))
    {
        let literal = NextCall::Search(SearchParams {
            literal: true,
            ..SearchParams::pattern(target.clone(), name.clone())
        });
        out.push_str(&format!(
            " A name these passages hold, `{name}`, is found everywhere it occurs by a literal search: {}\n",
            crate::dialect::call(&literal, dialect)
        ));
    }
    match first_in_context(a, &target) {
        Some(see) => out.push_str(&format!(
            " See the first passage in context: {}.]",
            crate::dialect::call(&see, dialect)
        )),
        None => out.push(']'),
    }
    out
}

/// The first name in `text` that the query did not name: a `snake_case`, `kebab-case` or
/// `CamelCase` identifier, or an upper-case one, the kind of word an agent did not know.
fn surfaced_name(text: &str, looked_for: &[String]) -> Option<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '-' || c == '_'))
        .find(|w| {
            let named = w.contains('_')
                || (w.contains('-') && w.chars().any(char::is_alphabetic))
                || (w.len() >= 4
                    && w.chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                    && w.chars().any(|c| c.is_ascii_uppercase()))
                || (w.chars().next().is_some_and(char::is_lowercase)
                    && w.chars().any(char::is_uppercase));
            named && w.len() >= 3 && !looked_for.contains(&w.to_lowercase())
        })
        .map(str::to_owned)
}

/// Lines of context on each side of a hit that "see it in context" reads.
const SEE_AROUND: u64 = 5;

/// The read that shows the page's first hit with the lines around it: of the artifact, or of
/// the file under the searched root.
fn first_in_context(a: &SearchAnswer, target: &Target) -> Option<NextCall> {
    let hit = a.hits.first()?;
    let line = hit.line.saturating_sub(SEE_AROUND).max(1);
    let limit = hit.line + SEE_AROUND + 1 - line;
    let at = match (target, &hit.path) {
        (Target::Ref(r), _) => Target::reference(r.clone()),
        (Target::Path(root), Some(path)) => {
            let root = root.trim_end_matches('/');
            Target::path(if root.is_empty() || root == "." {
                path.clone()
            } else {
                format!("{root}/{path}")
            })
        }
        (Target::Path(_), None) => return None,
    };
    Some(NextCall::Read(ReadParams::lines(at, line, Some(limit))))
}

/// The hits, one line each (`path:line:text`), context lines with `-`.
pub(crate) fn hit_lines(a: &SearchAnswer) -> String {
    let mut out = String::new();
    if let Some(files) = &a.files {
        // As `rg --count` writes them: the path, then the lines in it that match.
        for f in files {
            out.push_str(&format!("{}:{}\n", f.path, f.hits));
        }
        return out;
    }
    for hit in &a.hits {
        if let Some(end) = hit.end_line {
            // A ranked passage: where it is and its score, then its text as stored.
            let lines = if end == hit.line {
                format!("line {}", hit.line)
            } else {
                format!("lines {}-{end}", hit.line)
            };
            let file = hit
                .path
                .as_ref()
                .map_or(String::new(), |p| format!("{p}, "));
            out.push_str(&format!(
                "{file}{lines} (score {}):\n{}\n",
                hit.score.unwrap_or(0.0),
                hit.text
            ));
            continue;
        }
        let prefix = hit.path.as_ref().map_or(String::new(), |p| format!("{p}:"));
        for c in &hit.before {
            out.push_str(&format!("{prefix}{}-{}\n", c.line, c.text));
        }
        let trim = hit.trimmed.map_or(String::new(), |t| {
            format!(
                " [line trimmed: chars {}-{} of {}]",
                thousands(t.start_char),
                thousands(t.end_char),
                thousands(t.line_chars)
            )
        });
        let since = hit
            .since
            .as_ref()
            .map_or(String::new(), |s| format!(" [file {s}]"));
        out.push_str(&format!("{prefix}{}:{}{trim}{since}\n", hit.line, hit.text));
        for c in &hit.after {
            out.push_str(&format!("{prefix}{}-{}\n", c.line, c.text));
        }
    }
    out
}
