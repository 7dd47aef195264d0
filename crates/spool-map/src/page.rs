//! A page of a stored map: the files that fit the answer, in rank order, whole (a page ends
//! between two files' blocks), the map's scope, and the calls that go on: the next page by
//! cursor, the same page with a larger budget, a search of the tree, and a file's whole list of
//! definitions when this page cut one short.

use serde::{Deserialize, Serialize};
use spool_core::envelope::{
    Block, Envelope, FilesShown, MapScope, MapVersion, NextCall, Reason, ReasonCode, Unit, Version,
};
use spool_core::fit::Cap;
use spool_core::render::thousands;
use spool_core::store::ArtifactReader;
use spool_core::window::{Alongside, MAX_MAX_TOKENS, WindowRequest};
use spool_core::{Error, Result, Store, cursor};

use spool_core::calls::{MapParams, Target};

/// Where a page starts: `[the map's ref, the 1-based line it starts at, how many files came
/// before it]`. An array, to keep the cursor short (a cursor's base64 costs about a token for
/// every char and a half): a cursor of another kind (an object) does not read as one.
#[derive(Serialize, Deserialize)]
struct MapCursor(String, u64, u64);

/// What a page is of: the map as the caller asked for it, and where it starts.
pub struct PageOf<'a> {
    pub path: &'a str,
    pub focus: &'a [String],
    pub line: u64,
    pub files_before: u64,
    /// The cap the caller asked for, kept by the next page's call.
    pub max_tokens: Option<u64>,
    /// Offer only the calls that go on (the next page, the search): for an answer whose facts
    /// alone nearly fill it (a long path, said in every call).
    pub lean: bool,
}

/// The page a cursor names: the map's ref, its line and the files before it. A cursor of
/// another kind fails here; one of another map fails in [`check_cursor_map`].
pub fn open_cursor(store: &Store, cursor: &str) -> Result<(String, u64, u64)> {
    let MapCursor(reference, line, files) = cursor::open(store, cursor)?;
    if !spool_core::refs::looks_like_ref(&reference) {
        return Err(cursor::mismatch("another kind of list"));
    }
    Ok((reference, line, files))
}

/// Checks that the map a cursor continues is the one asked for: the same tree, spelled the same
/// way, with the same focus (`prefix`: [`crate::build::key_prefix`]).
pub fn check_cursor_map(reader: &ArtifactReader, prefix: &str) -> Result<()> {
    let meta = reader.meta();
    let same = meta.source.version.map().is_some()
        && meta
            .dedup_key
            .as_deref()
            .is_some_and(|k| k.starts_with(prefix));
    if same {
        Ok(())
    } else {
        Err(cursor::mismatch("another map (another path or focus)"))
    }
}

/// The page of the map `reader` holds that `of` names, within `cap`.
pub fn page(store: &Store, reader: &ArtifactReader, of: &PageOf<'_>, cap: Cap) -> Result<Envelope> {
    let meta = reader.meta();
    let version = meta
        .source
        .version
        .map()
        .cloned()
        .ok_or_else(|| Error::Corrupt {
            reference: meta.reference.clone(),
            expected: "a map".into(),
            actual: format!("a {} artifact", meta.source.kind().as_str()),
        })?;
    let shape = |e: &mut Envelope| shape(store, e, &version, of, cap);
    if meta.lines == 0 {
        return Alongside::default().with_shape(&shape).window(
            reader,
            WindowRequest::Preview(None),
            cap,
        );
    }
    let request = |limit| WindowRequest::Lines {
        line: of.line,
        limit,
    };
    let first = match Alongside::default()
        .with_shape(&shape)
        .window(reader, request(None), cap)
    {
        Err(e) if !of.lean && e.code() == spool_core::ErrorCode::InvalidArgument => {
            // Even one line does not fit beside every call: offer only those that go on.
            return page(store, reader, &PageOf { lean: true, ..*of }, cap);
        }
        first => first?,
    };
    let Some(end) = first
        .shown
        .last()
        .filter(|r| r.unit == Unit::Lines)
        .map(|r| r.end)
    else {
        // Nothing, or part of one line longer than an answer holds (by chars).
        return Ok(first);
    };
    if end >= meta.lines || starts_block(reader, end + 1)? {
        return Ok(first);
    }
    // Cut inside a file's block: end before that block, unless it is the page's only one.
    let text = shown_text(&first);
    let last_start = text
        .split_inclusive('\n')
        .enumerate()
        .skip(1)
        .filter(|(_, l)| starts_a_block(l))
        .map(|(i, _)| i as u64)
        .last();
    match last_start {
        Some(k) => Alongside::default()
            .with_shape(&shape)
            .window(reader, request(Some(k)), cap),
        None => Ok(first),
    }
}

/// Finishes a page's envelope before it is measured: its scope, whether it is complete and
/// why not, its notes and its calls.
fn shape(store: &Store, e: &mut Envelope, v: &MapVersion, of: &PageOf<'_>, cap: Cap) {
    let text = shown_text(e);
    let headers = text.lines().filter(|l| starts_a_block(l)).count() as u64;
    let starts_mid = text.lines().next().is_some_and(|l| !starts_a_block(l));
    let shown = FilesShown {
        start: if starts_mid {
            of.files_before
        } else {
            of.files_before + 1
        },
        end: of.files_before + headers,
    };
    let scope = MapScope::of(v, shown);
    let total = e.total.lines.unwrap_or(0);
    // A line longer than an answer holds is shown in part, by chars: the window's own read goes
    // on inside it, and the map's cursor after it.
    let in_line = e.shown.first().is_some_and(|r| r.unit == Unit::Chars);
    let read_on = e
        .next
        .iter()
        .find(|c| matches!(c, NextCall::Read(r) if r.char_offset.is_some()))
        .filter(|_| in_line)
        .cloned();
    let next_line = if in_line {
        of.line + 1
    } else {
        e.shown.last().map_or(total + 1, |r| r.end + 1)
    };
    let more = next_line <= total;
    let reason = if more || in_line {
        Some(Reason {
            code: ReasonCode::TokenCap,
            detail: if in_line {
                format!(
                    "answers are capped at {} tokens, and a line of the map is longer: it is shown in part",
                    thousands(cap.tokens)
                )
            } else {
                format!("answers are capped at {} tokens", thousands(cap.tokens))
            },
        })
    } else if v.timed_out {
        Some(Reason {
            code: ReasonCode::Timeout,
            detail: format!(
                "parsing ran out of time: {} not parsed",
                files(v.files.not_parsed, "file was", "files were")
            ),
        })
    } else if of.line > 1 {
        Some(Reason {
            code: ReasonCode::RequestedRange,
            detail: "the cursor asked for the map's last files".into(),
        })
    } else if scope.leaves_out() {
        Some(Reason {
            code: ReasonCode::SizeCap,
            detail: left_out_words(&scope),
        })
    } else {
        None
    };
    e.complete = reason.is_none();
    e.reason = reason;
    e.notes = notes(v, &scope);
    // A search by the reader's own regex is a template, offered apart from the calls that run
    // as printed.
    (e.next_templates, e.next) = read_on
        .into_iter()
        .chain(calls(
            store,
            e,
            of,
            cap,
            more.then_some((next_line, of.files_before + headers)),
            v,
            &text,
        ))
        .partition(NextCall::is_template);
    e.scope = Some(Box::new(scope));
    // The scope states the counts: the source keeps what pins the map.
    e.source.version = Version::Map(v.pin());
}

/// `n` and the words that go with it: `1 file was`, `3 files were`.
fn files(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// What the map as a whole leaves out, in words.
fn left_out_words(s: &MapScope) -> String {
    let mut parts = Vec::new();
    if s.definitions_listed < s.definitions {
        parts.push(format!(
            "files list their most referred-to definitions: {} of {}",
            thousands(s.definitions_listed),
            thousands(s.definitions)
        ));
    }
    let k = &s.files_skipped;
    let unread = k.too_large + k.unparsable + k.unreadable;
    if unread > 0 {
        parts.push(format!(
            "{} not parsed (too large, unparsable or unreadable)",
            files(unread, "file of code was", "files of code were")
        ));
    }
    parts.join("; ")
}

/// What the reader should know of the map beyond its scope.
fn notes(v: &MapVersion, s: &MapScope) -> Vec<String> {
    let mut notes = Vec::new();
    if v.timed_out {
        notes.push(format!(
            "parsing ran out of time: {} listed as not parsed; the same call parses on where it stopped (what was parsed is kept)",
            files(s.files_skipped.not_parsed, "file is", "files are")
        ));
    }
    for name in &v.focus_unmatched {
        notes.push(format!(
            "the focus `{name}` names no file and no definition of the map"
        ));
    }
    for file in &v.focus_not_code {
        notes.push(format!(
            "the focus `{file}` is a file whose code the map does not read: it is listed by name, not ranked"
        ));
    }
    notes
}

/// The calls a page offers: parse on (a map that ran out of time), the next page, the map from
/// its start with four times the budget, a search of the tree, and the whole list of the first
/// file shown that lists part of its definitions.
fn calls(
    store: &Store,
    e: &Envelope,
    of: &PageOf<'_>,
    cap: Cap,
    next: Option<(u64, u64)>,
    v: &MapVersion,
    text: &str,
) -> Vec<NextCall> {
    let mut calls = Vec::new();
    let again = || MapParams {
        max_tokens: of.max_tokens,
        ..MapParams::of(of.path, of.focus)
    };
    if v.timed_out {
        calls.push(NextCall::Map(again()));
    }
    if let Some((line, files)) = next {
        let cursor = cursor::seal(store, &MapCursor(e.reference.clone(), line, files));
        calls.push(NextCall::Map(again()).with_cursor(&cursor));
        // The map again from its first file with four times the budget: no second cursor to
        // pay for (a cursor's base64 costs about a token for every char and a half).
        let larger = (cap.tokens * 4).min(MAX_MAX_TOKENS);
        if larger > cap.tokens && !of.lean {
            calls.push(NextCall::Map(MapParams {
                max_tokens: Some(larger),
                ..MapParams::of(of.path, of.focus)
            }));
        }
    }
    calls.push(NextCall::search_template(Target::path(of.path)));
    // On the last page, a file here that lists part of its definitions: its own map lists
    // them all. (Before it, the next page is the way on, and an answer has little room.)
    if next.is_none()
        && !of.lean
        && let Some(file) = first_cut_file(text)
    {
        calls.push(NextCall::Map(MapParams::of(file, &[])));
    }
    calls
}

/// The path of the first file shown that lists part of its definitions (`PATH (5 of 42
/// definitions)`).
fn first_cut_file(text: &str) -> Option<String> {
    text.lines().filter(|l| starts_a_block(l)).find_map(|l| {
        let (path, counts) = l.rsplit_once(" (")?;
        let counts = counts.strip_suffix(" definitions)")?;
        counts.contains(" of ").then(|| path.to_owned())
    })
}

/// The text a page shows.
fn shown_text(e: &Envelope) -> String {
    e.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Shown(t) => Some(t.as_str()),
            Block::Gap(_) => None,
        })
        .collect()
}

/// Whether a line of the map starts a file's block (the lines under it start with a space).
fn starts_a_block(line: &str) -> bool {
    !line.is_empty() && !line.starts_with(' ')
}

/// Whether line `line` of the stored map starts a file's block.
fn starts_block(reader: &ArtifactReader, line: u64) -> Result<bool> {
    let at = reader.line_start(line)?.byte;
    Ok(reader.read_at(at, 1)?.first().is_some_and(|b| *b != b' '))
}
