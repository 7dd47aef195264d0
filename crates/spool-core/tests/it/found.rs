//! A read whose question is known (`query` words or a `pattern`): the first answer shows the
//! best passages of the whole artifact beside the preview, says how many there are and which
//! are shown, fits its cap in every form, and shows the stored bytes exactly.

use std::fmt::Write as _;

use serde_json::json;
use spool_core::answer::found_window;
use spool_core::envelope::{Block, Envelope};
use spool_core::render::{Dialect, banner, envelope_text};
use spool_core::search::{Find, Query};
use spool_core::store::Store;
use spool_core::{Cap, tokens};

use crate::support::{put, settings_page, store};

const QUESTION: &str = "skip connecting to remote servers at startup";

fn words(text: &str) -> Find {
    Find::Words(text.to_owned())
}

fn literal(text: &str) -> Find {
    Find::Pattern(Query {
        pattern: text.to_owned(),
        literal: true,
        case_insensitive: false,
        words: None,
    })
}

fn found(store: &Store, reference: &str, find: &Find, cap: u64) -> Envelope {
    found_window(store, reference, find, None, Cap::new(cap), &[]).unwrap()
}

/// Every form fits the cap, the ranges stand in order without overlap, and each shown block is
/// the stored bytes of its range.
fn check_honest(store: &Store, e: &Envelope, cap: u64) {
    let text = envelope_text(e, Dialect::Mcp);
    assert!(tokens::count(&text) <= cap, "text over {cap}:\n{text}");
    for d in [Dialect::Mcp, Dialect::Cli] {
        let json = spool_core::structured::compact(&spool_core::structured::envelope(e, d));
        assert!(tokens::count(&json) <= cap, "JSON over {cap}: {json}");
    }
    let spans = &e.delivered.byte_spans;
    assert!(
        spans.windows(2).all(|w| w[0].1 < w[1].0),
        "ranges overlap or touch: {spans:?}"
    );
    let reader = store.open_artifact(&e.reference).unwrap();
    let shown: Vec<&String> = e
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Shown(t) => Some(t),
            Block::Gap(_) => None,
        })
        .collect();
    assert_eq!(shown.len(), spans.len());
    for (text, span) in shown.iter().zip(spans) {
        let bytes = reader.read_at(span.0, (span.1 - span.0) as usize).unwrap();
        assert_eq!(text.as_bytes(), &bytes[..], "block at {span:?}");
    }
}

#[test]
fn the_first_answer_shows_the_row_a_question_describes_beside_the_head() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    for cap in [1_200, 2_000, 3_000, 4_000] {
        let e = found(&s.store, &meta.reference, &words(QUESTION), cap);
        check_honest(&s.store, &e, cap);
        assert!(!e.complete);
        assert_eq!(e.shown[0].start, 1, "the head comes first");
        let f = e.found.as_ref().unwrap();
        // Every passage holding a word counted: the five rows and the closing paragraph.
        assert_eq!(f.hit_count, 6);
        assert_eq!(f.left_out, ["to", "at"]);
        let best = &f.best[0];
        assert!(best.shown, "cap {cap}: {f:?}");
        let content = e.content(Dialect::Mcp);
        let row = content
            .lines()
            .find(|l| l.contains("MCP_DISCOVERY_CACHE"))
            .unwrap_or_else(|| panic!("cap {cap}: the row is not in the first answer:\n{content}"));
        assert!(row.contains("skip connecting to remote MCP servers"));
        let line = settings_page()
            .lines()
            .position(|l| l.contains("MCP_DISCOVERY_CACHE"))
            .unwrap() as u64
            + 1;
        assert_eq!((best.start_line, best.end_line), (line, line));
        let said = banner(&e, Dialect::Mcp);
        assert!(
            said.contains("Found: 6 passages of the whole copy hold any of the words skip, connecting, remote, servers, startup (left out as too common: to, at); shown here, best first: lines"),
            "{said}"
        );
        // Not all six are shown: the search that lists them all comes first.
        let shown = f.best.iter().filter(|b| b.shown).count();
        assert!(shown < 6);
        assert_eq!(e.next[0].tool(), "search");
        assert_eq!(
            e.next[0].arguments(),
            json!({ "ref": meta.reference, "query": QUESTION })
                .as_object()
                .unwrap()
                .clone()
        );
        // The structured form says it too.
        let v = spool_core::structured::envelope(&e, Dialect::Mcp);
        assert_eq!(v["found"]["hit_count"], 6);
        assert_eq!(v["found"]["best"][0]["shown"], true);
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.first().map(|k| k.as_str()), Some("notice"));
        assert_eq!(keys.last().map(|k| k.as_str()), Some("content"));
    }
}

#[test]
fn a_whole_artifact_that_fits_is_complete_and_says_where_the_passages_are() {
    let s = store();
    let meta = put(
        &s.store,
        b"# Notes\n\nThe cache is kept for a day.\n\nRetries back off twice.\n",
    );
    let e = found(&s.store, &meta.reference, &words("retry cache"), 8_000);
    assert!(e.complete);
    let f = e.found.as_ref().unwrap();
    assert_eq!(f.hit_count, 2);
    assert!(f.best.iter().all(|b| b.shown));
    assert!(
        !e.next.iter().any(|c| c.tool() == "search"),
        "nothing more to find: {:?}",
        e.next
    );
    let said = banner(&e, Dialect::Mcp);
    assert!(said.starts_with("[COMPLETE: 5 lines"), "{said}");
    assert!(
        said.contains("\n[Found: 2 passages of the whole copy hold any of the words retry, cache; shown here, best first: lines "),
        "{said}"
    );
}

#[test]
fn nothing_found_says_where_it_looked_and_shows_the_head() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let e = found(&s.store, &meta.reference, &words("zebra giraffe"), 2_000);
    check_honest(&s.store, &e, 2_000);
    assert_eq!(e.shown.len(), 1);
    assert_eq!(e.shown[0].start, 1);
    let said = banner(&e, Dialect::Cli);
    assert!(
        said.contains("Found: no passage holds any of the words zebra, giraffe; searched the whole stored copy (311 lines)"),
        "{said}"
    );
    let e = found(&s.store, &meta.reference, &literal("NO_SUCH_NAME"), 2_000);
    assert!(
        banner(&e, Dialect::Mcp).contains(
            "Found: no line matches the text NO_SUCH_NAME; searched the whole stored copy"
        )
    );
}

#[test]
fn a_pattern_shows_its_first_lines_with_a_line_around_each() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let e = found(
        &s.store,
        &meta.reference,
        &literal("MCP_DISCOVERY_CACHE"),
        2_000,
    );
    check_honest(&s.store, &e, 2_000);
    let f = e.found.as_ref().unwrap();
    assert_eq!(f.hit_count, 1);
    let at = &f.best[0];
    assert!(at.shown);
    // The line that matched, and one either side of it.
    let passage = e.shown.last().unwrap();
    assert_eq!(
        (passage.start, passage.end),
        (at.start_line - 1, at.start_line + 1)
    );
    let said = banner(&e, Dialect::Mcp);
    assert!(
        said.contains(&format!(
            "Found: 1 line of the whole copy matches the text MCP_DISCOVERY_CACHE; shown here, first in order: line {}",
            at.start_line
        )),
        "{said}"
    );
    // All found is shown: no search is pressed on the reader, only offered as always.
    assert_ne!(
        e.next[0].arguments().get("pattern"),
        Some(&json!("MCP_DISCOVERY_CACHE"))
    );
}

#[test]
fn a_match_inside_a_giant_line_is_shown_by_its_chars() {
    let s = store();
    let mut line = "filler ".repeat(40_000);
    line.insert_str(150_000, " needle_word here ");
    line.push('\n');
    let meta = put(&s.store, line.as_bytes());
    for find in [literal("needle_word"), words("needle")] {
        let e = found(&s.store, &meta.reference, &find, 2_000);
        check_honest(&s.store, &e, 2_000);
        let f = e.found.as_ref().unwrap();
        assert_eq!(f.hit_count, 1, "{find:?}");
        assert!(f.best[0].shown, "{find:?}: {f:?}");
        assert!(e.content(Dialect::Mcp).contains("needle_word"), "{find:?}");
        assert!(e.shown.len() >= 2);
    }
}

#[test]
fn a_log_keeps_its_tail_beside_what_was_found() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let mut log = String::new();
    for i in 1..=5_000 {
        if i == 100 {
            log.push_str("2026-11-30T09:00:00Z ERROR upstream connection refused\n");
        }
        let _ = writeln!(log, "2026-11-30T09:00:00Z INFO worker step {i} done");
    }
    let path = dir.path().join("service.log");
    std::fs::write(&path, &log).unwrap();
    let meta = spool_core::files::snapshot(&s.store, &path).unwrap();
    let e = found(
        &s.store,
        &meta.reference,
        &words("connection refused"),
        2_000,
    );
    check_honest(&s.store, &e, 2_000);
    let f = e.found.as_ref().unwrap();
    assert_eq!((f.hit_count, f.best[0].start_line), (1, 100));
    assert!(f.best[0].shown);
    // The passage first, then the log's real last lines.
    assert_eq!(e.shown[0].start, 100);
    assert_eq!(e.shown.last().unwrap().end, 5_001);
}

#[test]
fn the_least_cap_a_found_read_states_is_accepted() {
    let s = store();
    let meta = put(&s.store, settings_page().as_bytes());
    let mut tried = 0;
    for cap in [512, 700, 900] {
        match found_window(
            &s.store,
            &meta.reference,
            &words(QUESTION),
            None,
            Cap::new(cap),
            &[],
        ) {
            Ok(e) => check_honest(&s.store, &e, cap),
            Err(err) => {
                tried += 1;
                let least: u64 = err
                    .hint(Dialect::Mcp)
                    .unwrap_or_default()
                    .split(|c: char| !c.is_ascii_digit())
                    .filter_map(|w| w.parse().ok())
                    .max()
                    .unwrap_or_else(|| panic!("no least cap stated: {err}"));
                let e = found(&s.store, &meta.reference, &words(QUESTION), least);
                check_honest(&s.store, &e, least);
            }
        }
    }
    assert!(tried > 0, "no cap was too small: the test proves nothing");
}

/// Regression: passages cut from one long line touch; shown side by side they were two ranges
/// with a gap marker of 0 chars between them. Touching pieces are now one range.
#[test]
fn passages_that_touch_are_shown_as_one_range() {
    let s = store();
    let line = "filler needle filler ".repeat(10_000) + "\n";
    let meta = put(&s.store, line.as_bytes());
    let e = found(&s.store, &meta.reference, &words("needle"), 3_000);
    check_honest(&s.store, &e, 3_000);
    let content = e.content(Dialect::Mcp);
    assert!(!content.contains("not shown: 0 chars"), "{content}");
    assert!(
        e.found
            .as_ref()
            .unwrap()
            .best
            .iter()
            .filter(|b| b.shown)
            .count()
            >= 2
    );
}

/// Regression: a long line is cut into passages every 4 KiB, which may fall inside a
/// character; such a passage fitted but was never marked shown.
#[test]
fn a_passage_that_ends_inside_a_character_is_shown_whole() {
    let s = store();
    let mut line = "日本語のテキスト".repeat(3_000);
    line.push_str(" needle_word ");
    line.push_str(&"日本語のテキスト".repeat(3_000));
    line.push('\n');
    let meta = put(&s.store, line.as_bytes());
    let e = found(&s.store, &meta.reference, &words("needle"), 3_000);
    check_honest(&s.store, &e, 3_000);
    let f = e.found.as_ref().unwrap();
    assert_eq!(f.hit_count, 1);
    assert!(f.best[0].shown, "{f:?}");
    assert!(e.content(Dialect::Mcp).contains("needle_word"));
}
