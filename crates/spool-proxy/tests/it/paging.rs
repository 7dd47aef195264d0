//! Issue 38, item 1: an upstream that pages its own list. Every page spool shows of one
//! upstream page says the upstream has more (`has_more`, `upstream_partial`), and `next` holds
//! the upstream's own call with its cursor, in each convention real servers use; following
//! those calls verbatim reaches every item of the upstream's full list, each once, and the
//! last upstream page is whole.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::support::{Options, Proxy, start, structured, texts};

/// Every page spool shows of the stored upstream page that `first` opens, and the calls the
/// last one offers; checks on the way that each says more exist upstream when it does.
async fn stored_pages(
    p: &Proxy,
    first: rmcp::model::CallToolResult,
    upstream_more: bool,
) -> (Vec<Value>, Value) {
    let mut items = Vec::new();
    let mut page = first;
    for _ in 0..100 {
        assert_eq!(page.is_error, Some(false), "{:?}", texts(&page));
        let v = structured(&page).clone();
        items.extend(v["items"].as_array().unwrap().iter().cloned());
        if upstream_more {
            assert_eq!(v["has_more"], true, "more exist upstream: {v}");
            assert_eq!(v["complete"], false);
        }
        let Some(cursor) = v["next_cursor"].as_str() else {
            if upstream_more {
                assert_eq!(v["reason"]["code"], "upstream_partial", "{}", v["notice"]);
            } else {
                assert_eq!(v["has_more"], false);
            }
            return (items, v);
        };
        page = p
            .call("read", json!({ "ref": v["ref"], "cursor": cursor }))
            .await;
    }
    panic!("never ends");
}

/// Follows a style's pages from its first call to the upstream's last: every item once.
async fn every_item(style: &str) -> BTreeSet<u64> {
    let p = start(Options::default()).await;
    let mut call = json!({ "n": 5_000, "per_page": 1_000, "style": style });
    // A tool that takes a cursor and a page: a first call by page says which it pages by.
    match style {
        "github" => call["page"] = json!(1),
        "total" => call["offset"] = json!(0),
        _ => {}
    }
    let mut seen = BTreeSet::new();
    for upstream_page in 1..=5u64 {
        let first = p.call("paged_list", call.clone()).await;
        let more = upstream_page < 5;
        let (items, last) = stored_pages(&p, first, more).await;
        for item in &items {
            assert!(seen.insert(item["id"].as_u64().unwrap()), "{item} twice");
        }
        let coverage = &last["source"]["coverage"];
        if !more {
            assert_eq!(
                coverage["whole"], true,
                "the upstream's last page: {coverage}"
            );
            break;
        }
        assert_eq!(coverage["whole"], false, "{coverage}");
        let up = &coverage["upstream_page"];
        assert_eq!(up["page"], upstream_page, "{up}");
        assert_eq!(up["items_before"], (upstream_page - 1) * 1_000, "{up}");
        assert_eq!(up["items"], 1_000);
        // The banner says it, in the words a text host shows.
        let notice = last["notice"].as_str().unwrap();
        assert!(
            notice.contains("one page of the upstream's answer (page "),
            "{notice}"
        );
        // The upstream's own call is offered, and runs as given.
        let next = last["next"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["tool"] == "paged_list")
            .unwrap_or_else(|| panic!("no upstream call in {}", last["next"]))
            .clone();
        assert_eq!(coverage["rest"], next);
        call = next["arguments"].clone();
    }
    seen
}

#[tokio::test]
async fn each_convention_s_pages_are_followed_to_the_upstream_s_full_list() {
    for style in ["mcp", "snake", "token", "github", "total"] {
        let seen = every_item(style).await;
        // The upstream's full list: 5,000 rows, ids 0 to 4,999.
        assert_eq!(seen, (0..5_000).collect::<BTreeSet<u64>>(), "{style}");
    }
}

/// An upstream whose next page spool cannot call (a `links.next` URL, a bare `truncated`) is
/// still said to have more; its own words are given, and no call is made up.
#[tokio::test]
async fn more_without_a_callable_cursor_is_said_and_no_call_is_invented() {
    let p = start(Options::default()).await;
    for (style, said) in [
        ("links", "links.next"),
        ("truncated", "truncated"),
        ("incomplete", "incomplete_results"),
    ] {
        let first = p
            .call(
                "paged_list",
                json!({ "n": 5_000, "per_page": 1_000, "style": style }),
            )
            .await;
        let (_, last) = stored_pages(&p, first, true).await;
        let coverage = &last["source"]["coverage"];
        assert!(
            coverage["upstream_page"]["said"].get(said).is_some(),
            "{style}: {coverage}"
        );
        if style != "incomplete" {
            assert!(coverage.get("rest").is_none(), "{style}: {coverage}");
            assert!(
                last["next"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|c| c["tool"] != "paged_list"),
                "{style}: {}",
                last["next"]
            );
        }
        let notice = last["notice"].as_str().unwrap();
        assert!(notice.contains("the upstream says more exist"), "{notice}");
    }
}

/// A page that fits one answer passes through as the upstream sent it: its own cursor is in
/// what the model reads.
#[tokio::test]
async fn a_page_that_fits_passes_through_with_the_upstream_s_own_cursor() {
    let p = start(Options::default()).await;
    let r = p
        .call(
            "paged_list",
            json!({ "n": 50, "per_page": 5, "style": "mcp" }),
        )
        .await;
    let text = texts(&r).join("\n");
    assert!(text.contains("\"nextCursor\":\"5\""), "{text}");
}

/// Review (issue 38): what is not paging is not read as paging. A `has_more: false` beside a
/// cursor, a cursor of 0 (the end, as Twitter writes it), a `total` of a tool that takes no
/// paging argument: none says more exist.
#[tokio::test]
async fn what_says_no_more_is_believed() {
    let p = start(Options::default()).await;
    for (style, said) in [("mcp", "hasMore"), ("snake", "has_more")] {
        // The last upstream page: its cursor is null and its flag false.
        let last = p
            .call(
                "paged_list",
                json!({ "n": 2_000, "per_page": 1_000, "style": style, "cursor": "1000" }),
            )
            .await;
        let (_, v) = stored_pages(&p, last, false).await;
        assert_eq!(
            v["source"]["coverage"]["whole"], true,
            "{style} ({said}): {v}"
        );
    }
}
