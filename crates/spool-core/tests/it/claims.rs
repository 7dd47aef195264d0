//! Issue 38: every claim an answer makes is true. Regression tests named after the claims that
//! were false, each checked against what was actually stored and read.

use spool_core::envelope::{PLACEHOLDER, is_placeholder};
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::window::read_window;
use spool_core::{Cap, ErrorCode, WindowRequest};

use crate::support::{numbered_lines, put, store};

fn regex(p: &str) -> Query {
    Query {
        pattern: p.into(),
        literal: false,
        case_insensitive: false,
        words: None,
    }
}

#[test]
fn next_holds_no_placeholder_and_the_search_template_is_apart() {
    let s = store();
    let meta = put(&s.store, numbered_lines(5_000).as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        Cap::new(1_000),
    )
    .unwrap();
    assert!(!e.complete);
    assert!(!e.next.is_empty());
    for call in &e.next {
        assert!(!call.is_template(), "a `next` call holds a blank: {call:?}");
    }
    let template = &e.next_templates[0];
    assert_eq!(template.tool, "search");
    assert_eq!(template.arguments["pattern"], PLACEHOLDER);
    assert_eq!(template.arguments["ref"], meta.reference.as_str());
    let wire = serde_json::to_value(&e).unwrap();
    assert!(!wire["next"].to_string().contains(PLACEHOLDER));
    assert!(wire["next_templates"].to_string().contains(PLACEHOLDER));
}

#[test]
fn a_placeholder_pattern_followed_verbatim_is_refused_not_searched() {
    let s = store();
    let meta = put(&s.store, numbered_lines(50).as_bytes());
    for blank in [PLACEHOLDER, "...", "PATTERN"] {
        assert!(is_placeholder(blank));
        let err = search_artifact(&s.store, &meta.reference, &regex(blank), &Paging::default())
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{blank}");
        let text = err.to_string();
        assert!(text.contains("nothing was searched"), "{text}");
    }
    // The text itself can still be found, as text.
    let mut q = regex(PLACEHOLDER);
    q.literal = true;
    let a = search_artifact(&s.store, &meta.reference, &q, &Paging::default()).unwrap();
    assert_eq!(a.hit_count, 0);
}
