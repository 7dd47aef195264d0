//! Fuzz-style properties over what an agent can type: cursors, ranges, caps, patterns and JSON
//! lists. Whatever comes in, the answer is either an answer whose facts hold or a clear error
//! (never `internal`, never a panic), and the stored copy stays exact.

use proptest::prelude::*;
use serde_json::Value;
use spool_core::ErrorCode;
use spool_core::items::{PageStart, find_list, item_page, store_items};
use spool_core::listing::{ListQuery, list};
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::window::read_window;
use spool_core::{Error, WindowRequest};
use spool_walk::roots::Roots;

use crate::support::{numbered_lines, put, store};

/// The codes a bad request may answer: never `internal`.
fn assert_clear(e: &Error, what: &str) {
    assert!(
        matches!(e.code(), ErrorCode::InvalidArgument | ErrorCode::NotFound),
        "{what}: {:?} {e}",
        e.code()
    );
    assert!(!e.to_string().is_empty());
}

/// Numbers an agent might send for an offset, a count or a cap: edges first.
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..3_000,
        1 => Just(0u64),
        1 => Just(1u64),
        1 => Just(u64::MAX),
        1 => Just(u64::MAX - 1),
        1 => Just(i64::MAX as u64),
        1 => Just(u64::from(u32::MAX)),
        1 => any::<u64>(),
    ]
}

fn request() -> impl Strategy<Value = WindowRequest> {
    prop_oneof![
        (number(), prop::option::of(number()))
            .prop_map(|(line, limit)| WindowRequest::Lines { line, limit }),
        number().prop_map(|lines| WindowRequest::LastLines { lines }),
        (number(), prop::option::of(number()))
            .prop_map(|(offset, max)| WindowRequest::Chars { offset, max }),
        (number(), prop::option::of(number()))
            .prop_map(|(offset, max)| WindowRequest::Bytes { offset, max }),
        Just(WindowRequest::Preview(None)),
    ]
}

/// Content with the shapes that break windows: multi-byte chars, CR, invalid UTF-8, long
/// lines, no final newline.
fn content() -> impl Strategy<Value = Vec<u8>> {
    let segment = prop_oneof![
        4 => "[a-z ]{0,40}\n".prop_map(String::into_bytes),
        1 => "[日本é😀]{1,10}\r\n".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 1..8),
        1 => (1usize..9_000).prop_map(|n| vec![b'x'; n]),
    ];
    prop::collection::vec(segment, 0..40).prop_map(|v| v.concat())
}

/// Text that looks like a cursor, or is one altered.
fn cursor_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[A-Za-z0-9_-]{0,80}\\.[A-Za-z0-9_-]{0,40}",
        "[A-Za-z0-9_-]{10,60}",
        Just(String::new()),
        Just(".".to_owned()),
    ]
}

/// Cases per property: `SPOOL_FUZZ_CASES` runs more (the figures in docs/hardening.md).
fn cases(default: u32) -> u32 {
    std::env::var("SPOOL_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(96), ..ProptestConfig::default() })]

    /// Any range with any cap: an answer inside the artifact, or a clear error.
    #[test]
    fn any_range_and_cap_answers_inside_the_artifact_or_refuses(
        bytes in content(),
        req in request(),
        cap in prop_oneof![number(), 400u64..20_000],
    ) {
        let s = store();
        let meta = put(&s.store, &bytes);
        match read_window(&s.store, &meta.reference, req, cap) {
            Ok(e) => {
                for &(from, to) in &e.delivered.byte_spans {
                    prop_assert!(from <= to && to <= bytes.len() as u64, "{from}..{to} of {}", bytes.len());
                }
                prop_assert_eq!(e.total.bytes, Some(bytes.len() as u64));
                prop_assert!(e.complete || !e.next.is_empty() || e.reason.is_some(),
                    "a partial answer says why or how to go on");
            }
            Err(err) => assert_clear(&err, &format!("{req:?} cap {cap}")),
        }
        // Whatever was asked, the copy is exact.
        let stored = s.store.open_artifact(&meta.reference).unwrap().read_at(0, bytes.len()).unwrap();
        prop_assert_eq!(stored, bytes);
    }

    /// Any text as a cursor, for every kind of list: refused with the cursor's own error.
    #[test]
    fn any_text_as_a_cursor_is_refused_clearly(text in cursor_text()) {
        let s = store();
        let meta = put(&s.store, numbered_lines(50).as_bytes());
        let query = Query { pattern: "line".into(), literal: true, case_insensitive: false, words: None };
        let paging = Paging { context: 0, limit: Some(5), cursor: Some(text.clone()) };
        let err = search_artifact(&s.store, &meta.reference, &query, &paging).unwrap_err();
        assert_clear(&err, "search cursor");
        prop_assert!(err.to_string().contains("cursor"), "{}", err);

        let dir = tempfile::tempdir().unwrap();
        let roots = Roots::new(&[dir.path().to_owned()]).unwrap();
        let err = list(&s.store, &roots, ListQuery { path: ".", ..Default::default() }, None, Some(&text)).unwrap_err();
        assert_clear(&err, "list cursor");

        let err = spool_core::page::artifacts(&s.store, None, 10, Some(&text)).unwrap_err();
        assert_clear(&err, "artifacts cursor");

        let doc: Value = serde_json::json!([1, 2, 3]);
        let view = store_items(&s.store, &meta, None, find_list(&doc).unwrap().1).unwrap();
        let err = item_page(&s.store, &view.reference, PageStart::Cursor(&text), None, 2_000).unwrap_err();
        assert_clear(&err, "item cursor");
    }

    /// A real cursor altered in one place, or handed to another list, is refused.
    #[test]
    fn an_altered_or_misdirected_cursor_is_refused(at in any::<prop::sample::Index>(), with in "[A-Za-z0-9_.-]") {
        let s = store();
        let meta = put(&s.store, numbered_lines(500).as_bytes());
        let query = Query { pattern: "line".into(), literal: true, case_insensitive: false, words: None };
        let first = search_artifact(&s.store, &meta.reference, &query, &Paging { context: 0, limit: Some(5), cursor: None }).unwrap();
        let real = first.next_cursor.unwrap();
        let i = at.index(real.len());
        let mut altered = real.clone();
        altered.replace_range(i..=i, &with);
        let paging = |c: &str| Paging { context: 0, limit: Some(5), cursor: Some(c.to_owned()) };
        match search_artifact(&s.store, &meta.reference, &query, &paging(&altered)) {
            Ok(page) => prop_assert_eq!(&altered, &real, "only the cursor itself is accepted: {:?}", page.hits.first()),
            Err(e) => assert_clear(&e, "altered"),
        }
        let other = Query { pattern: "lin".into(), literal: true, case_insensitive: false, words: None };
        let err = search_artifact(&s.store, &meta.reference, &other, &paging(&real)).unwrap_err();
        prop_assert!(err.to_string().contains("issued for another"), "{}", err);
        let view = store_items(&s.store, &meta, None, &[Value::from(1), Value::from(2)]).unwrap();
        let err = item_page(&s.store, &view.reference, PageStart::Cursor(&real), None, 2_000).unwrap_err();
        assert_clear(&err, "search cursor on an item page");
    }

    /// Any pattern: hits or a clear error naming the pattern; never a panic.
    #[test]
    fn any_pattern_searches_or_refuses(pattern in any::<String>(), literal in any::<bool>(), ci in any::<bool>()) {
        let s = store();
        let meta = put(&s.store, "alpha (beta) [gamma] {delta} \\ é😀\n".repeat(20).as_bytes());
        let query = Query { pattern, literal, case_insensitive: ci, words: None };
        match search_artifact(&s.store, &meta.reference, &query, &Paging::default()) {
            Ok(a) => prop_assert!(a.hit_count_exact && a.hits.len() as u64 <= a.hit_count),
            Err(e) => assert_clear(&e, "pattern"),
        }
    }

    /// Any JSON document: its list (if any) pages without a panic, at any start and limit,
    /// and every item comes back as it was.
    #[test]
    fn any_json_list_pages_back_exactly(doc in json(), start in number(), limit in prop::option::of(0usize..2_000)) {
        let s = store();
        let text = serde_json::to_vec(&doc).unwrap();
        let meta = put(&s.store, &text);
        let Some((path, items)) = find_list(&doc) else { return Ok(()) };
        let view = store_items(&s.store, &meta, path.as_deref(), items).unwrap();
        match item_page(&s.store, &view.reference, PageStart::At(start), limit, 4_000) {
            Ok(page) => {
                let from = usize::try_from(start).unwrap();
                prop_assert_eq!(&page.items[..], &items[from..from + page.items.len()]);
            }
            Err(e) => assert_clear(&e, &format!("start {start} limit {limit:?}")),
        }
    }
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 200, 12, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
