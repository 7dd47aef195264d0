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
    assert_eq!(template.tool(), "search");
    assert_eq!(template.arguments()["pattern"], PLACEHOLDER);
    assert_eq!(template.arguments()["ref"], meta.reference.as_str());
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

/// Regression: a byte window the caller asked for, moved to whole characters (it started
/// inside one), was said to be cut by `token_cap`; the caller's own range ended it.
#[test]
fn a_byte_window_moved_to_whole_characters_is_the_caller_s_range_not_the_cap() {
    let s = store();
    let meta = put(&s.store, "日本語のテキスト\n".repeat(500).as_bytes());
    let e = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Bytes {
            offset: 1,
            max: Some(300),
        },
        Cap::new(8_000),
    )
    .unwrap();
    assert_eq!(e.shown[0].start, 3, "the next character's start");
    let reason = e.reason.unwrap();
    assert_eq!(
        reason.code,
        spool_core::envelope::ReasonCode::RequestedRange
    );
    // A window the cap does cut says so.
    let cut = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Bytes {
            offset: 0,
            max: Some(20_000),
        },
        Cap::new(600),
    )
    .unwrap();
    assert_eq!(
        cut.reason.unwrap().code,
        spool_core::envelope::ReasonCode::TokenCap
    );
}

/// Regression: an empty store's first page of artifacts said "none at this position", the
/// words of a cursor past the end; it says the store holds none.
#[test]
fn an_empty_store_says_it_is_empty() {
    let s = store();
    let page = spool_core::page::artifacts(&s.store, None, 10, None).unwrap();
    assert_eq!(page.total, Some(0));
    let notice = spool_core::list_text::artifacts_notice(&page, spool_core::render::Dialect::Mcp);
    assert_eq!(notice, "[ARTIFACTS: the store holds none readable here]");
    let page = spool_core::page::artifacts(&s.store, Some("exec"), 10, None).unwrap();
    let notice = spool_core::list_text::artifacts_notice(&page, spool_core::render::Dialect::Mcp);
    assert_eq!(
        notice,
        "[ARTIFACTS: the store holds none of kind `exec` readable here]"
    );
}

/// Regression: item ranges in prose were 0-based ("items 25-30 of 30"); they are 1-based and
/// inclusive like lines, while `shown` keeps its 0-based, end-exclusive numbers.
#[test]
fn item_ranges_in_prose_are_one_based_and_inclusive() {
    let s = store();
    let rows: Vec<serde_json::Value> = (0..30).map(|i| serde_json::json!({ "id": i })).collect();
    let whole = put(&s.store, serde_json::to_string(&rows).unwrap().as_bytes());
    let view = spool_core::items::store_items(&s.store, &whole, None, &rows).unwrap();
    let page = spool_core::items::item_page(
        &s.store,
        &view.reference,
        spool_core::items::PageStart::At(25),
        None,
        8_000,
    )
    .unwrap();
    assert_eq!(
        (page.envelope.shown[0].start, page.envelope.shown[0].end),
        (25, 30)
    );
    let banner = spool_core::render::banner(&page.envelope, spool_core::render::Dialect::Mcp);
    assert!(
        banner.starts_with("[PARTIAL: items 26-30 of 30 items"),
        "{banner}"
    );
    assert!(banner.contains("this page starts at item 26"), "{banner}");
}

/// Regression: a server started with a cap no answer fits started, and every call then
/// failed blaming a `max_tokens` the caller never sent. The cap is refused at start, with the
/// minimum; a call that asked for none is told of the default cap, not of an argument.
#[test]
fn a_default_cap_too_small_is_refused_at_start_and_never_blamed_on_the_caller() {
    let err = spool_core::window::check_default_cap(500).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.to_string().contains("from 1,000 tokens"), "{err}");
    assert!(spool_core::window::check_default_cap(1_000).is_ok());
    let s = store();
    // A source whose strings are each cut for the answer (to 500 chars) but which holds many:
    // its banner and source leave no room at 1,000 tokens. (One long name alone no longer
    // does: it is cut.)
    let mut version = spool_core::envelope::TextVersion::default();
    for i in 0..20 {
        version
            .fields
            .insert(format!("field{i}"), serde_json::json!("d".repeat(3_000)));
    }
    let meta = s
        .store
        .put(
            spool_core::store::NewArtifact::new(spool_core::Source::new(
                "d".repeat(3_000),
                spool_core::Version::Text(version),
            )),
            numbered_lines(100).as_bytes(),
        )
        .unwrap();
    let err = read_window(
        &s.store,
        &meta.reference,
        WindowRequest::Preview(None),
        Cap::asked_or(None, 1_000),
    )
    .unwrap_err();
    let said = err.to_string();
    assert!(
        said.starts_with("the default cap of 1,000 tokens (no `max_tokens` was asked for)"),
        "{said}"
    );
}
