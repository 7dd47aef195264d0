//! Search: exact counts over the whole artifact, pages by cursor, clear errors.

use proptest::prelude::*;
use spool_core::ErrorCode;
use spool_core::search::{Paging, Query, search_artifact};

use crate::support::{numbered_lines, put, store};

fn literal(p: &str) -> Query {
    Query {
        pattern: p.into(),
        literal: true,
        case_insensitive: false,
        words: None,
    }
}

#[test]
fn counts_every_hit_and_pages_through_all_of_them() {
    let s = store();
    let meta = put(&s.store, numbered_lines(10_000).as_bytes());
    let query = Query {
        pattern: r"line \d*7:".into(),
        literal: false,
        case_insensitive: false,
        words: None,
    };
    let mut paging = Paging {
        context: 0,
        limit: Some(300),
        cursor: None,
    };
    let mut seen = Vec::new();
    loop {
        let a = search_artifact(&s.store, &meta.reference, &query, &paging).unwrap();
        assert_eq!(a.hit_count, 1000);
        assert!(a.hit_count_exact);
        assert!(a.hits.len() <= 300);
        seen.extend(a.hits.iter().map(|h| h.line));
        assert_eq!(a.truncated, a.next_cursor.is_some());
        let Some(c) = a.next_cursor else { break };
        paging.cursor = Some(c);
    }
    let expected: Vec<u64> = (1..=10_000).filter(|i| i % 10 == 7).collect();
    assert_eq!(seen, expected);
}

#[test]
fn zero_hits_say_where_they_looked() {
    let s = store();
    let meta = put(&s.store, numbered_lines(50).as_bytes());
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &literal("absent"),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 0);
    assert!(!a.truncated);
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["lines_searched"],
        50
    );
    assert_eq!(
        serde_json::to_value(&a.scope).unwrap()["ref"],
        meta.reference.as_str()
    );
    let text = spool_core::search::render_answer(&a, spool_core::render::Dialect::Mcp);
    assert!(
        text.contains("no hits for \"absent\"; searched all 50 lines"),
        "{text}"
    );
}

#[test]
fn a_match_spanning_a_huge_line_is_shown_in_part() {
    // Regression: a match as long as its 1 MB line came back whole in the hit text.
    let s = store();
    let mut content = "a".repeat(1 << 20);
    content.push('\n');
    let meta = put(&s.store, content.as_bytes());
    let query = Query {
        pattern: "a+".into(),
        literal: false,
        case_insensitive: false,
        words: None,
    };
    let a = search_artifact(&s.store, &meta.reference, &query, &Paging::default()).unwrap();
    assert_eq!(a.hit_count, 1);
    let hit = &a.hits[0];
    assert!(hit.text.len() <= 400, "{} bytes", hit.text.len());
    let trim = hit.trimmed.unwrap();
    assert_eq!(trim.line_chars, 1 << 20);
    assert_eq!(trim.end_char - trim.start_char, hit.text.len() as u64);
}

#[test]
fn context_lines_and_long_line_trimming() {
    let s = store();
    let mut content = numbered_lines(20);
    content.push_str(&"x".repeat(5000));
    content.push_str("NEEDLE");
    content.push_str(&"y".repeat(5000));
    content.push('\n');
    let meta = put(&s.store, content.as_bytes());
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &literal("line 10:"),
        &Paging {
            context: 2,
            limit: None,
            cursor: None,
        },
    )
    .unwrap();
    assert_eq!(
        a.hits[0].before.iter().map(|c| c.line).collect::<Vec<_>>(),
        vec![8, 9]
    );
    assert_eq!(
        a.hits[0].after.iter().map(|c| c.line).collect::<Vec<_>>(),
        vec![11, 12]
    );
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &literal("NEEDLE"),
        &Paging::default(),
    )
    .unwrap();
    let hit = &a.hits[0];
    assert_eq!(hit.line, 21);
    let trim = hit.trimmed.unwrap();
    assert_eq!(trim.line_chars, 10_006);
    assert!(hit.text.contains("NEEDLE"));
    assert!(hit.text.len() <= 310);
    assert_eq!(
        trim.end_char - trim.start_char,
        hit.text.chars().count() as u64
    );
}

#[test]
fn bad_regex_and_cursors_from_elsewhere_are_invalid_arguments() {
    let s = store();
    let a = put(&s.store, numbered_lines(500).as_bytes());
    let b = put(&s.store, numbered_lines(500).as_bytes());
    let bad = Query {
        pattern: "(unclosed".into(),
        literal: false,
        case_insensitive: false,
        words: None,
    };
    let err = search_artifact(&s.store, &a.reference, &bad, &Paging::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("unclosed group"), "{err}");

    let page = search_artifact(
        &s.store,
        &a.reference,
        &literal("line"),
        &Paging {
            limit: Some(10),
            ..Paging::default()
        },
    )
    .unwrap();
    let cursor = page.next_cursor.unwrap();
    // Another artifact.
    let err = search_artifact(
        &s.store,
        &b.reference,
        &literal("line"),
        &Paging {
            limit: Some(10),
            cursor: Some(cursor.clone()),
            ..Paging::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("another artifact"), "{err}");
    // Another query.
    let err = search_artifact(
        &s.store,
        &a.reference,
        &literal("fox"),
        &Paging {
            limit: Some(10),
            cursor: Some(cursor.clone()),
            ..Paging::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("another query"), "{err}");
    // Tampered: flip one character of the payload.
    let mut tampered = cursor.into_bytes();
    tampered[5] = if tampered[5] == b'A' { b'B' } else { b'A' };
    let err = search_artifact(
        &s.store,
        &a.reference,
        &literal("line"),
        &Paging {
            limit: Some(10),
            cursor: Some(String::from_utf8(tampered).unwrap()),
            ..Paging::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("altered"), "{err}");
    // Garbage.
    let err = search_artifact(
        &s.store,
        &a.reference,
        &literal("line"),
        &Paging {
            cursor: Some("garbage".into()),
            ..Paging::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn a_cursor_from_another_store_does_not_validate() {
    let s1 = store();
    let s2 = store();
    let content = numbered_lines(100);
    let a = put(&s1.store, content.as_bytes());
    let page = search_artifact(
        &s1.store,
        &a.reference,
        &literal("line"),
        &Paging {
            limit: Some(5),
            ..Paging::default()
        },
    )
    .unwrap();
    let b = put(&s2.store, content.as_bytes());
    let err = search_artifact(
        &s2.store,
        &b.reference,
        &literal("line"),
        &Paging {
            limit: Some(5),
            cursor: page.next_cursor,
            ..Paging::default()
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Search over the whole agrees with a naive line-by-line count of the same bytes.
    #[test]
    fn whole_search_agrees_with_naive_count(
        lines in prop::collection::vec(prop_oneof!["[a-c]{0,8}", Just("needle".to_owned()), "[a-z]{0,3}needle[a-z]{0,3}"], 0..400),
        crlf in any::<bool>(),
    ) {
        let sep = if crlf { "\r\n" } else { "\n" };
        let content = lines.join(sep);
        let s = store();
        let meta = put(&s.store, content.as_bytes());
        let a = search_artifact(&s.store, &meta.reference, &literal("needle"), &Paging { limit: Some(1000), ..Paging::default() }).unwrap();
        let naive: Vec<u64> = content.split('\n').enumerate().filter(|(_, l)| l.contains("needle")).map(|(i, _)| i as u64 + 1).collect();
        prop_assert_eq!(a.hit_count, naive.len() as u64);
        prop_assert_eq!(a.hits.iter().map(|h| h.line).collect::<Vec<_>>(), naive);
    }
}
