//! `spool-map`: the entry point an agent starts from. A map of a repository lists its files'
//! most important definitions (the line that names each, by number, so `read` opens it),
//! ranked by how much of the code refers to them, as Aider's repository map ranks them. Unlike
//! Aider's, it says what it left out: the map is stored once as an artifact pinned to the
//! tree's commit (or a digest of its files), every file the walk found is listed once, in rank
//! order, and each page says which files it shows of how many, what was skipped and why, and
//! how to get the rest (a cursor, a larger budget, a search).
//!
//! Definitions come from tree-sitter grammars for Rust, Python, JavaScript, TypeScript, Go,
//! Java, C and C++; other files are listed by name. A file's parse is cached by the hash of its
//! content, so a second map of the same tree parses nothing.

mod build;
mod cache;
mod focus;
mod lang;
mod lean;
mod page;
mod rank;
mod read;
mod tags;
mod text;

use spool_core::Result;
use spool_core::answer::Answer;
use spool_core::answer::Context;

pub use lang::Lang;
// The arguments are typed in spool-core, where the calls that print them are made.
pub use read::MAX_FILE_BYTES;
pub use spool_core::calls::MapParams;

/// The cap of a map answer when none is asked for (Aider's `--map-tokens` default).
pub const DEFAULT_MAP_TOKENS: u64 = 1024;
/// Walking, reading and parsing may take this many times a directory search's budget.
const BUDGET_FACTOR: u32 = 3;

/// `map`: the first page of the map of `path` (or the page `cursor` names), within the cap.
pub fn answer(cx: &Context<'_>, p: &MapParams) -> Result<Answer> {
    let cap = (cx.cap)(Some(p.max_tokens.unwrap_or(DEFAULT_MAP_TOKENS)));
    spool_core::window::check_cap(cap.tokens)?;
    check_focus(&p.focus, cap.tokens)?;
    let path = p.path.as_deref().unwrap_or(".");
    let request = build::Request {
        path,
        focus: &p.focus,
        budget: cx.search_budget * BUDGET_FACTOR,
    };
    // Inside the roots, whether the map is built or continued.
    let real = cx.roots.resolve(path)?;
    let (reader, line, files_before) = if let Some(c) = &p.cursor {
        let (reference, line, before) = page::open_cursor(cx.store, c)?;
        let reader = cx.store.open_artifact(&reference)?;
        page::check_cursor_map(&reader, &build::key_prefix(&real, &request))?;
        (reader, line, before)
    } else {
        let meta = build::stored_map(cx.store, cx.roots, &request)?;
        (cx.store.open_artifact(&meta.reference)?, 1, 0)
    };
    let envelope = page::page(
        cx.store,
        &reader,
        &page::PageOf {
            path,
            focus: &p.focus,
            line,
            files_before,
            max_tokens: p.max_tokens,
            lean: false,
        },
        cap,
    )?;
    Ok(Answer::Envelope(Box::new(envelope)))
}

/// `focus` is echoed in every answer (the map's source, in the banner and the structured form)
/// and in each call that goes on from it (the next page, a larger budget, the redo): measured,
/// 3,300 chars of names needed a cap of 16,000 tokens. Past an eighth of the cap in chars the
/// map would have no room. Regression (issue 58): 100,000 names were refused as "`max_tokens` 1024 leaves no
/// room (889269 tokens)", blaming a cap the caller never set.
fn check_focus(focus: &[String], cap_tokens: u64) -> Result<()> {
    use spool_core::calls::ToolName;
    use spool_core::dialect::Words;
    use spool_core::render::thousands;
    // As JSON: each name quoted, a comma between.
    let chars: u64 = focus.iter().map(|f| f.chars().count() as u64 + 3).sum();
    let most = cap_tokens / 8;
    if chars <= most {
        return Ok(());
    }
    Err(spool_core::Error::invalid_words(
        Words::default().arg(ToolName::Map, "focus").then(format!(
            " ({} names, {} chars) is echoed in the answer and in the calls that go on from it, \
             and leaves the map no room within {} tokens",
            thousands(focus.len() as u64),
            thousands(chars),
            thousands(cap_tokens)
        )),
        Words::text(format!(
            "give the files or symbols the task is about ({} chars at most at this cap), or ask for a larger ",
            thousands(most)
        ))
        .arg(ToolName::Map, "max_tokens"),
    ))
}
