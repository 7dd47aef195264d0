//! Windows: following `next` from the start ends, the pieces join back byte for byte, no
//! answer exceeds its cap, no UTF-8 character is split.

use std::fmt::Write as _;

use proptest::prelude::*;
use serde_json::Value;
use spool_core::envelope::{Envelope, Unit};
use spool_core::render::{Dialect, envelope_text};
use spool_core::window::{WindowRequest, read_window};
use spool_core::{ErrorCode, Store, tokens};

use crate::support::{numbered_lines, put, store};

/// Turns a `next` read call back into a request.
fn request_of(e: &Envelope) -> Option<WindowRequest> {
    let call = e.next.first()?;
    if call.tool() != "read" {
        return None;
    }
    let a = &call.arguments();
    let n = |k: &str| a.get(k).and_then(Value::as_u64);
    if let Some(line) = n("line") {
        Some(WindowRequest::Lines {
            line,
            limit: n("limit"),
        })
    } else if let Some(offset) = n("char_offset") {
        Some(WindowRequest::Chars {
            offset,
            max: n("max_chars"),
        })
    } else {
        n("byte_offset").map(|offset| WindowRequest::Bytes {
            offset,
            max: n("max_bytes"),
        })
    }
}

/// Reads from line 1 following `next[0]`; returns the byte spans and texts in order.
fn follow(store: &Store, reference: &str, max_tokens: u64) -> (Vec<(u64, u64)>, String, usize) {
    let mut req = WindowRequest::Lines {
        line: 1,
        limit: None,
    };
    let mut spans = Vec::new();
    let mut text = String::new();
    let mut calls = 0;
    loop {
        let e = read_window(store, reference, req, max_tokens).unwrap();
        calls += 1;
        assert!(calls < 100_000, "following next never ends");
        let whole = envelope_text(&e, Dialect::Mcp);
        let used = tokens::count(&whole);
        assert!(
            used <= max_tokens,
            "answer of {used} tokens over the cap of {max_tokens}"
        );
        // The structured form alone fits too, as a host that forwards only it sends it.
        for dialect in [Dialect::Mcp, Dialect::Cli] {
            let json =
                spool_core::structured::compact(&spool_core::structured::envelope(&e, dialect));
            let used = tokens::count(&json);
            assert!(
                used <= max_tokens,
                "structured answer of {used} tokens over the cap of {max_tokens}"
            );
            assert!(json.chars().count() as u64 <= spool_core::fit::chars_for(max_tokens));
        }
        assert_eq!(e.shown.len(), 1);
        spans.extend(e.delivered.byte_spans.iter().copied());
        text.push_str(&e.content(spool_core::render::Dialect::Mcp));
        match request_of(&e) {
            Some(next) => req = next,
            None => break,
        }
    }
    (spans, text, calls)
}

fn check_joins(bytes: &[u8], max_tokens: u64) {
    let s = store();
    let meta = put(&s.store, bytes);
    if bytes.is_empty() {
        let e = read_window(
            &s.store,
            &meta.reference,
            WindowRequest::Preview(None),
            max_tokens,
        )
        .unwrap();
        assert!(e.complete);
        assert!(e.shown.is_empty());
        return;
    }
    let (spans, text, _) = follow(&s.store, &meta.reference, max_tokens);
    let mut at = 0;
    for (a, b) in &spans {
        assert_eq!(*a, at, "pieces must join without gap or overlap");
        assert!(b > a, "every piece shows something");
        at = *b;
    }
    assert_eq!(at, bytes.len() as u64, "following next reaches the end");
    assert_eq!(
        text,
        String::from_utf8_lossy(bytes),
        "pieces join back to the content"
    );
    // No piece boundary splits a UTF-8 character of valid input.
    if let Ok(valid) = std::str::from_utf8(bytes) {
        for (a, _) in &spans {
            assert!(valid.is_char_boundary(*a as usize));
        }
    }
}

fn content_strategy() -> impl Strategy<Value = Vec<u8>> {
    let segment = prop_oneof![
        4 => "[a-z ]{1,40}".prop_map(String::into_bytes),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\r\n".to_vec()),
        1 => "[日本語中文한국어]{1,20}".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 1..6),
        1 => (1usize..20_000).prop_map(|n| vec![b'x'; n]),
        1 => Just("é😀".as_bytes().to_vec()),
    ];
    prop::collection::vec(segment, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn following_next_joins_back_byte_for_byte(bytes in content_strategy(), cap in 600u64..1500) {
        check_joins(&bytes, cap);
    }
}

#[test]
fn edge_contents_join_back() {
    let cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"no final newline".to_vec(),
        b"a\r\nb\r\nc\r\n".to_vec(),
        b"\n\n\n".to_vec(),
        b"bad \xff\xfe utf8 \xe2\x82\n and more \xf0\x9f\n".to_vec(),
        "日本語のテキスト\n".repeat(3000).into_bytes(),
        vec![b'y'; 300_000],
        numbered_lines(5000).into_bytes(),
    ];
    for bytes in cases {
        check_joins(&bytes, 1000);
    }
}

#[test]
fn head_tail_preview_names_the_gap_exactly() {
    let s = store();
    let text = numbered_lines(3000);
    let meta = put(&s.store, text.as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(Some(spool_core::Preview::HeadTail)),
        8000,
    )
    .unwrap();
    assert!(!e.complete);
    assert_eq!(e.shown.len(), 2);
    let (head, tail) = (e.shown[0], e.shown[1]);
    assert_eq!((head.unit, head.start), (Unit::Lines, 1));
    assert_eq!(tail.end, 3000);
    let marker = format!(
        "... [lines {}-{} not shown: ",
        spool_core::render::thousands(head.end + 1),
        spool_core::render::thousands(tail.start - 1)
    );
    assert!(
        e.content(spool_core::render::Dialect::Mcp)
            .contains(&marker),
        "{marker} in content"
    );
    // Three text blocks: head, marker, tail; head and tail are exactly the lines shown.
    let pieces = spool_core::render::block_texts(&e, spool_core::render::Dialect::Mcp);
    assert_eq!(pieces.len(), 3);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(pieces[0], lines[..head.end as usize].concat());
    assert_eq!(pieces[2], lines[tail.start as usize - 1..].concat());
    // The first next call reads the gap.
    assert_eq!(e.next[0].arguments()["line"], head.end + 1);
    assert_eq!(
        e.reason.as_ref().unwrap().code,
        spool_core::envelope::ReasonCode::TokenCap
    );
}

#[test]
fn tail_preview_shows_the_real_last_lines() {
    let s = store();
    let meta = put(&s.store, numbered_lines(2000).as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(Some(spool_core::Preview::Tail)),
        1000,
    )
    .unwrap();
    assert_eq!(e.shown.len(), 1);
    assert_eq!(e.shown[0].end, 2000);
    assert!(
        e.content(spool_core::render::Dialect::Mcp)
            .ends_with("line 2000: the quick brown fox jumps over the lazy dog\n")
    );
    // The part just before the tail is the first way on: it ends where the tail starts.
    let shown_lines = e.shown[0].end - e.shown[0].start + 1;
    let limit = shown_lines.min(e.shown[0].start - 1);
    assert_eq!(e.next[0].arguments()["limit"], limit);
    assert_eq!(e.next[0].arguments()["line"], e.shown[0].start - limit);
}

#[test]
fn a_tail_inside_a_giant_last_line_offers_the_chars_before_it() {
    // Regression: the tail of a last line longer than one answer offered only `search`.
    let s = store();
    let mut content = numbered_lines(3);
    content.push_str(&"word ".repeat(40_000));
    content.push('\n');
    let meta = put(&s.store, content.as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(Some(spool_core::Preview::Tail)),
        1000,
    )
    .unwrap();
    assert_eq!(e.shown[0].unit, Unit::Chars);
    assert_eq!(e.shown[0].end, meta.chars);
    let next = &e.next[0];
    assert_eq!(next.tool(), "read");
    let offset = next.arguments()["char_offset"].as_u64().unwrap();
    let max = next.arguments()["max_chars"].as_u64().unwrap();
    assert_eq!(
        offset + max,
        e.shown[0].start,
        "it ends where the tail starts"
    );
    let before = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Chars {
            offset,
            max: Some(max),
        },
        1000,
    )
    .unwrap();
    assert_eq!(before.shown[0].start, offset);
}

#[test]
fn a_giant_single_line_is_windowed_by_chars() {
    let s = store();
    let mut line = "abcdefghij".repeat(1_000_000);
    line.push('\n');
    let meta = put(&s.store, line.as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Lines {
            line: 1,
            limit: None,
        },
        2000,
    )
    .unwrap();
    assert_eq!(e.shown[0].unit, Unit::Chars);
    assert_eq!(e.shown[0].start, 0);
    assert!(
        e.notes[0].contains("line 1 is 10,000,001 chars long"),
        "{}",
        e.notes[0]
    );
    assert_eq!(e.next[0].arguments()["char_offset"], e.shown[0].end);
    // A char window deep inside the line is found through the index, not a scan from the start.
    let deep = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Chars {
            offset: 9_000_003,
            max: Some(7),
        },
        2000,
    )
    .unwrap();
    assert_eq!(deep.content(spool_core::render::Dialect::Mcp), "defghij");
    assert!(!deep.complete);
}

#[test]
fn positions_past_the_end_are_invalid_arguments_with_the_valid_range() {
    let s = store();
    let meta = put(&s.store, numbered_lines(10).as_bytes());
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Lines {
            line: 11,
            limit: None,
        },
        8000,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(err.to_string(), "no lines at this position (total 10)");
    assert_eq!(
        err.hint(spool_core::render::Dialect::Mcp).unwrap(),
        "ask for `line` between 1 and 10"
    );
    assert_eq!(
        err.hint(spool_core::render::Dialect::Cli).unwrap(),
        "ask for `--lines` between 1 and 10"
    );
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Bytes {
            offset: 10_000,
            max: None,
        },
        8000,
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("no bytes at this position (total ")
    );
}

#[test]
fn a_whole_small_artifact_is_complete() {
    let s = store();
    let meta = put(&s.store, b"one\ntwo\n");
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert!(e.complete);
    assert!(e.reason.is_none());
    assert!(e.next.is_empty());
    assert_eq!(e.content(spool_core::render::Dialect::Mcp), "one\ntwo\n");
    assert_eq!(e.total.lines, Some(2));
    assert!(!e.total.tokens_estimated);
}

#[test]
fn binary_content_is_detected_and_byte_windows_render_escaped() {
    let s = store();
    let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    let meta = put(&s.store, &bytes);
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        8000,
    )
    .unwrap();
    assert!(!e.complete);
    assert_eq!(
        e.reason.as_ref().unwrap().code,
        spool_core::envelope::ReasonCode::Binary
    );
    assert_eq!(e.next[0].arguments()["byte_offset"], 0);
    let w = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Bytes {
            offset: 0,
            max: Some(4),
        },
        8000,
    )
    .unwrap();
    assert_eq!(
        w.content(spool_core::render::Dialect::Mcp),
        "\\x00\\x01\\x02\\x03"
    );
    assert_eq!(w.shown[0].end, 4);
}

#[test]
fn token_totals_are_exact_when_small_and_estimated_when_large() {
    let s = store();
    let small = put(&s.store, b"hello world\n");
    assert_eq!(small.tokens, Some(3));
    assert!(!small.tokens_estimated);
    let big_text = numbered_lines(40_000);
    let big = put(&s.store, big_text.as_bytes());
    assert!(big.tokens_estimated);
    let estimate = big.tokens.unwrap() as f64;
    let exact = tokens::count(&big_text) as f64;
    assert!(
        (estimate - exact).abs() / exact < 0.05,
        "estimate {estimate} vs {exact}"
    );
}

/// Regression: a `limit` of 0 fell through to the long-line path and showed chars.
#[test]
fn zero_sized_windows_are_invalid_arguments() {
    let s = store();
    let meta = put(&s.store, numbered_lines(10).as_bytes());
    for req in [
        WindowRequest::Lines {
            line: 1,
            limit: Some(0),
        },
        WindowRequest::LastLines { lines: 0 },
        WindowRequest::Chars {
            offset: 0,
            max: Some(0),
        },
        WindowRequest::Bytes {
            offset: 0,
            max: Some(0),
        },
    ] {
        let err = read_window(&s.store, &meta.reference, req, 8000).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{req:?}");
    }
}

#[test]
fn a_byte_window_inside_one_character_shows_that_character_whole() {
    let s = store();
    let meta = put(&s.store, "a🙂b é\n".as_bytes());
    let mut seen = String::new();
    // Every window of one or two bytes: never a fragment, always whole characters.
    for offset in 0..9u64 {
        for max in 1..=2u64 {
            let e = read_window(
                &s.store,
                &meta.reference,
                WindowRequest::Bytes {
                    offset,
                    max: Some(max),
                },
                2_000,
            )
            .unwrap();
            assert!(
                !e.content(spool_core::render::Dialect::Mcp)
                    .contains('\u{FFFD}'),
                "{offset}+{max}: {:?}",
                e.content(spool_core::render::Dialect::Mcp)
            );
            let (start, end) = (e.shown[0].start as usize, e.shown[0].end as usize);
            assert_eq!(
                e.content(spool_core::render::Dialect::Mcp).as_bytes(),
                &"a🙂b é\n".as_bytes()[start..end]
            );
            seen.push_str(&format!(
                "{offset}+{max}: bytes {start}-{end} {:?} {:?}\n",
                e.content(spool_core::render::Dialect::Mcp),
                e.notes
            ));
        }
    }
    insta::assert_snapshot!(seen);
}

/// Regression (found by the fuzz suite): a window asked for "as much as there is"
/// (`max_chars` 2^64-1) continued with that count: the CLI syntax of the next call overflowed
/// (a panic), and a count past 2^53 does not survive a JavaScript client.
#[test]
fn a_huge_count_continues_with_one_no_larger_than_the_whole() {
    let s = store();
    let meta = put(&s.store, "xxxxxxxxx\n".repeat(4_000).as_bytes());
    for req in [
        WindowRequest::Chars {
            offset: 0,
            max: Some(u64::MAX),
        },
        WindowRequest::Bytes {
            offset: 0,
            max: Some(u64::MAX),
        },
        WindowRequest::Lines {
            line: 1,
            limit: Some(spool_core::window::MAX_LINES),
        },
    ] {
        let e = read_window(&s.store, &meta.reference, req, 1_000).unwrap();
        assert!(!e.complete, "{req:?}");
        let next = &e.next[0];
        for (k, v) in &next.arguments() {
            if let Some(n) = v.as_u64() {
                assert!(n <= 40_000, "{req:?}: {k}={n}");
            }
        }
        let cli = spool_core::render::cli_text(next);
        assert!(cli.starts_with("spool read "), "{cli}");
        envelope_text(&e, Dialect::Cli);
    }
    // More lines than any answer could hold is refused, as the schema's `maximum` says.
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Lines {
            line: 1,
            limit: Some(spool_core::window::MAX_LINES + 1),
        },
        1_000,
    )
    .unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("at most 1,000,000 lines"), "{err}");
}

/// Regression: at the smallest cap allowed, a single long line answered "no window of this
/// artifact fits": its note and the structured form's facts left less room than the fit loop
/// would cut the content to, so it gave up with room still left.
#[test]
fn a_long_line_answers_at_the_smallest_cap() {
    let s = store();
    let meta = put(&s.store, "x".repeat(40_000).as_bytes());
    for req in [
        WindowRequest::Preview(None),
        WindowRequest::Lines {
            line: 1,
            limit: None,
        },
        WindowRequest::Chars {
            offset: 0,
            max: None,
        },
    ] {
        let e = read_window(
            &s.store,
            &meta.reference,
            req,
            spool_core::window::MIN_MAX_TOKENS,
        )
        .unwrap_or_else(|err| panic!("{req:?}: {err}"));
        assert!(e.delivered.chars > 100, "{req:?}: {:?}", e.shown);
    }
}

/// Regression (issue 13): a log file previewed its head, and a tail preview's way on was line 1.
/// Now a log (by name, or by timestamped lines) previews its tail, and `next` reads the lines
/// just before the tail.
#[test]
fn a_log_previews_its_tail_and_reads_back_from_it() {
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let mut stamped = String::new();
    for i in 1..=5000 {
        let _ = writeln!(
            stamped,
            "2026-11-30T09:{:02}:{:02}Z worker step {i}",
            i / 60 % 60,
            i % 60
        );
    }
    let named = dir.path().join("service.log");
    let unnamed = dir.path().join("output.txt");
    let plain = dir.path().join("notes.txt");
    std::fs::write(&named, numbered_lines(5000)).unwrap();
    std::fs::write(&unnamed, &stamped).unwrap();
    std::fs::write(&plain, numbered_lines(5000)).unwrap();
    for (path, tail) in [(&named, true), (&unnamed, true), (&plain, false)] {
        let meta = spool_core::files::snapshot(&s.store, path).unwrap();
        let e = read_window(
            &s.store,
            &meta.reference,
            WindowRequest::Preview(None),
            2000,
        )
        .unwrap();
        let shown = e.shown[0];
        if !tail {
            assert_eq!(shown.start, 1, "{}", path.display());
            continue;
        }
        assert_eq!(shown.end, 5000, "{} shows its last line", path.display());
        assert!(shown.start > 1);
        let back = &e.next[0].arguments();
        let limit = back["limit"].as_u64().unwrap();
        assert_eq!(
            back["line"].as_u64().unwrap() + limit,
            shown.start,
            "the way on ends just before the tail: {back:?}"
        );
    }
    // Words that only look like a date in one line are not a log.
    assert!(!spool_core::files::reads_as_log(
        std::path::Path::new("a.txt"),
        b"2026-11-30T09:00:00 one\nplain\nplain\nplain\n"
    ));
    assert!(spool_core::files::reads_as_log(
        std::path::Path::new("syslog"),
        b"Nov 30 09:00:01 host a\nNov 30 09:00:02 host b\nNov  3 09:00:03 host c\n"
    ));
}

/// Issue 13: a window of lines or chars states its byte span, and asking for those bytes gives
/// the same text.
#[test]
fn every_window_states_its_bytes_and_they_read_the_same() {
    let s = store();
    let mut text = String::new();
    for i in 1..=3000 {
        let _ = writeln!(text, "línea {i}: ünïcödé");
    }
    let meta = put(&s.store, text.as_bytes());
    for request in [
        WindowRequest::Lines {
            line: 100,
            limit: Some(20),
        },
        WindowRequest::Chars {
            offset: 1000,
            max: Some(333),
        },
        WindowRequest::Preview(None),
    ] {
        let e = read_window(&s.store, &meta.reference, request, 8000).unwrap();
        let [start, end] = e.shown[0].bytes.expect("a byte span");
        let again = read_window(
            &s.store,
            &meta.reference,
            WindowRequest::Bytes {
                offset: start,
                max: Some(end - start),
            },
            8000,
        )
        .unwrap();
        let first = spool_core::render::block_texts(&e, Dialect::Mcp);
        assert_eq!(again.content(Dialect::Mcp), first[0], "{request:?}");
        assert_eq!(again.shown[0].bytes, None, "a byte window is its own span");
    }
}

/// The number an error names as the least `max_tokens` to ask for.
fn stated_minimum(err: &spool_core::Error) -> Option<u64> {
    let hint = err.hint(Dialect::Mcp)?;
    let at = hint.find("at least ")? + "at least ".len();
    hint[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

/// Issue 13: the least `max_tokens` an error states is one that is accepted, for artifacts
/// whose banner is long (a 3,000-char command, notes, a long line, JSON-heavy text).
#[test]
fn the_least_cap_an_error_states_is_accepted() {
    let s = store();
    let long_desc = format!("sh -c '{}'", "echo step; ".repeat(300));
    let mut heavy = String::new();
    for i in 0..2000 {
        let _ = writeln!(heavy, "{{\"k\":\"\\\"{i}\\\"\"}}");
    }
    let cases: Vec<(String, Vec<u8>)> = vec![
        (long_desc.clone(), numbered_lines(3000).into_bytes()),
        (long_desc, "z".repeat(100_000).into_bytes()),
        ("short".into(), heavy.into_bytes()),
    ];
    let mut stated = 0;
    for (desc, bytes) in cases {
        let meta = s
            .store
            .put(
                spool_core::store::NewArtifact::new(crate::support::text_source(&desc)),
                &bytes,
            )
            .unwrap();
        let mut asked = spool_core::window::MIN_MAX_TOKENS;
        for _ in 0..3 {
            match read_window(
                &s.store,
                &meta.reference,
                WindowRequest::Preview(None),
                asked,
            ) {
                Ok(_) => break,
                Err(err) => {
                    let least = stated_minimum(&err)
                        .unwrap_or_else(|| panic!("no least cap stated: {err}"));
                    assert!(least > asked, "{least} is not more than {asked}: {err}");
                    stated += 1;
                    let again = read_window(
                        &s.store,
                        &meta.reference,
                        WindowRequest::Preview(None),
                        least,
                    );
                    assert!(
                        again.is_ok(),
                        "the stated least {least} was refused: {again:?}"
                    );
                    asked = least;
                }
            }
        }
    }
    assert!(
        stated >= 1,
        "no case stated a least cap: the test proves nothing"
    );
}
