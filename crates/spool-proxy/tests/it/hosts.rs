//! What the model receives from `spool wrap` in each host (TESTING.md): the answers the proxy
//! replaces (a window of a large text, a page of a large list), spool's own tools beside the
//! upstream's, and errors. Each host's view alone holds the facts, the shown text once, a next
//! call read off the view that works, and fits the cap.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use spool_test_support::hosts::{Host, Shape, View, view};

use crate::support::{Options, Proxy, start, structured};

const CAP: u64 = 2_000;

async fn proxy(structured: bool) -> Proxy {
    start(Options {
        max_tokens: CAP,
        structured,
        ..Options::default()
    })
    .await
}

fn check(result: &CallToolResult, facts: &[&str]) -> Vec<View> {
    spool_test_support::hosts::check(result, CAP, facts, &[])
}

async fn follow_each(p: &Proxy, views: &[View]) -> Vec<CallToolResult> {
    spool_test_support::hosts::follow_each(views, |tool, args| {
        p.call_owned(tool, Value::Object(args))
    })
    .await
}

#[tokio::test]
async fn a_replaced_large_text_in_every_host() {
    let p = proxy(true).await;
    let r = p.call("big_text", json!({ "lines": 20_000 })).await;
    let views = check(
        &r,
        &["[PARTIAL: lines 1-", "of 20,000 lines", "fake big_text"],
    );
    for v in &views {
        v.assert_once("line 1: the quick brown fox jumps over the lazy dog, 7 times\n");
    }
    let end = structured(&r)["shown"][0]["end"].as_u64().unwrap();
    for next in follow_each(&p, &views).await {
        assert_eq!(structured(&next)["shown"][0]["start"], end + 1);
    }
}

#[tokio::test]
async fn a_replaced_log_shows_its_last_line_in_every_host() {
    let p = proxy(true).await;
    let r = p.call("tail_logs", json!({ "lines": 20_000 })).await;
    let views = check(&r, &["[PARTIAL: lines ", "of 20,000 lines"]);
    for v in &views {
        v.assert_once("FATAL: the last words of the log\n");
    }
    follow_each(&p, &views).await;
}

#[tokio::test]
async fn a_list_paged_as_items_in_every_host() {
    let p = proxy(true).await;
    let r = p.call("list_rows", json!({ "n": 2_000 })).await;
    let views = check(&r, &["items 1-", "of 2,000 items"]);
    for v in &views {
        // An item is a line of JSON in the text, an object in the structured content: once.
        let n = v.count_raw(r#""name":"row 0","#);
        assert_eq!(
            n,
            1,
            "{}: row 0 appears {n} times:\n{}",
            v.host.name(),
            v.text
        );
    }
    let shown = structured(&r)["items"].as_array().unwrap().len();
    // A page of a size the caller chose holds what was asked.
    let page = p
        .call(
            "read",
            json!({ "ref": structured(&r)["ref"], "cursor": structured(&r)["next_cursor"], "limit": 3 }),
        )
        .await;
    let page_views = check(&page, &["of 2,000 items", "at most 3 items, as asked"]);
    for v in &page_views {
        assert_eq!(v.count_raw(&format!(r#""name":"row {shown}","#)), 1);
    }
    for next in follow_each(&p, &views).await {
        assert_eq!(
            structured(&next)["items"][0]["id"],
            shown,
            "the next page follows on"
        );
    }
}

#[tokio::test]
async fn structured_rows_paged_as_items_in_every_host() {
    let p = proxy(true).await;
    let r = p.call("query_rows", json!({ "n": 1_500 })).await;
    let views = check(&r, &["of 1,500 items"]);
    for v in &views {
        assert_eq!(v.count_raw(r#""name":"row 1","#), 1, "{}", v.host.name());
    }
    follow_each(&p, &views).await;
}

#[tokio::test]
async fn a_small_answer_passes_through_to_every_host_as_the_upstream_sent_it() {
    let p = proxy(true).await;
    let r = p.call("echo", json!({ "text": "hello there" })).await;
    for v in check(&r, &["hello there"]) {
        v.assert_once("hello there");
    }
}

#[tokio::test]
async fn spool_tools_beside_the_upstream_in_every_host() {
    let p = proxy(true).await;
    p.call("big_text", json!({ "lines": 10_000 })).await;
    let big = p.call("big_text", json!({ "lines": 20_000 })).await;
    let reference = structured(&big)["ref"].as_str().unwrap().to_owned();
    let r = p
        .call(
            "search",
            json!({ "ref": reference, "pattern": "^line 1\\d{3}:", "limit": 3 }),
        )
        .await;
    let views = check(&r, &["1,000 hits", "Showing hits 1-3"]);
    spool_test_support::assert_view_snapshots!("search_of_a_replaced_answer", &views);
    for v in &views {
        v.assert_once("line 1000: the quick brown fox jumps over the lazy dog, 7000 times");
    }
    for next in follow_each(&p, &views).await {
        assert_eq!(structured(&next)["hits"][0]["line"], 1_003);
    }
    let r = p
        .call("read", json!({ "ref": reference, "line": 5, "limit": 2 }))
        .await;
    for v in check(&r, &["lines 5-6 of 20,000 lines"]) {
        v.assert_once("line 5: the quick brown fox jumps over the lazy dog, 35 times\n");
    }
    let r = p.call("artifacts", json!({ "limit": 1 })).await;
    follow_each(&p, &check(&r, &["[ARTIFACTS: 1 shown"])).await;
}

#[tokio::test]
async fn errors_in_every_host() {
    let p = proxy(true).await;
    // The upstream's own tool error passes through: Claude Code forwards its text.
    let r = p.call("fail", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    for v in check(&r, &["the fake tool failed on purpose"]) {
        v.assert_once("the fake tool failed on purpose");
    }
    // Without structured content Codex forwards the content blocks as JSON.
    assert_eq!(view(Host::Codex, &r).shape, Shape::Json);
    assert_eq!(view(Host::ClaudeCode, &r).shape, Shape::Text);
    // spool's own error about a read: code, message and hint in every view.
    let r = p.call("read", json!({ "ref": "sp_nosuchthing" })).await;
    assert_eq!(r.is_error, Some(true));
    check(&r, &["not_found", "sp_nosuchthing", "hint"]);
    assert_eq!(view(Host::ClaudeCode, &r).shape, Shape::Text);
}

#[tokio::test]
async fn structured_off_replaces_answers_with_text_alone() {
    let p = proxy(false).await;
    let tools = p.client.list_all_tools().await.unwrap();
    assert!(
        tools.iter().all(|t| t.output_schema.is_none()),
        "no output schema promises structured content that is not sent"
    );
    let r = p.call("big_text", json!({ "lines": 20_000 })).await;
    assert!(r.structured_content.is_none());
    let text = view(Host::TextOnly, &r);
    text.assert_within(CAP);
    text.assert_once("line 1: the quick brown fox jumps over the lazy dog, 7 times\n");
    let (tool, args) = text.next_call().unwrap();
    assert_eq!(
        p.call(&tool, Value::Object(args)).await.is_error,
        Some(false)
    );
    let r = p.call("list_rows", json!({ "n": 2_000 })).await;
    assert!(r.structured_content.is_none());
    view(Host::TextOnly, &r).assert_within(CAP);
}

/// Issue 38: the last stored page of one upstream page of a longer list, in every host: it
/// says the upstream has more (`upstream_partial`), and its first call for more is the
/// upstream's own, with its cursor, read off the view and run.
#[tokio::test]
async fn the_last_page_of_an_upstream_page_says_more_exist_in_every_host() {
    let p = proxy(true).await;
    let first = p
        .call(
            "paged_list",
            json!({ "n": 3_000, "per_page": 200, "style": "mcp" }),
        )
        .await;
    let mut page = first;
    while let Some(cursor) = structured(&page)["next_cursor"].as_str().map(str::to_owned) {
        page = p
            .call(
                "read",
                json!({ "ref": structured(&page)["ref"], "cursor": cursor }),
            )
            .await;
    }
    let views = check(
        &page,
        &[
            "one page of the upstream's list",
            "the upstream sent one page of its list and says more exist",
            "`nextCursor`: \"200\"",
            "paged_list",
        ],
    );
    // The facts each host shows (the banner, and the structured fields before the items):
    // where this page starts moves by an item with the ref's tokens, so it is filtered.
    let mut settings = spool_test_support::hosts::snapshot_settings();
    settings.add_filter(r"items \d+-200 of", "items [N]-200 of");
    settings.bind(|| {
        for v in &views {
            let facts = match v.json() {
                Some(j) => {
                    let mut j = j.clone();
                    for noise in ["items", "shown", "page_size", "total"] {
                        j.as_object_mut().unwrap().remove(noise);
                    }
                    serde_json::to_string_pretty(&j).unwrap()
                }
                None => v.text.split("]\n").next().unwrap().to_owned(),
            };
            insta::assert_snapshot!(format!("upstream_page_last__{}", v.host.name()), facts);
        }
    });
    for next in follow_each(&p, &views).await {
        let v = structured(&next);
        assert_eq!(
            v["items"][0]["id"], 200,
            "the upstream's next page follows on"
        );
        assert_eq!(v["source"]["coverage"]["upstream_page"]["page"], 2);
    }
}
