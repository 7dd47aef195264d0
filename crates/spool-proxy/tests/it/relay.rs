//! Tool results: small ones untouched, large ones stored and shown in part, lists paged as
//! items, media passed through with their size stated.

use serde_json::{Value, json};

use crate::support::{Options, direct, filtered, start, structured, texts};

#[tokio::test]
async fn a_small_answer_passes_through_untouched() {
    let p = start(Options::default()).await;
    let upstream = direct().await;
    let args = json!({ "text": "hello, world" });
    let want = upstream
        .call_tool(crate::support::params("echo", args.clone()))
        .await
        .unwrap();
    let got = p.call("echo", args).await;
    assert_eq!(got.content, want.content);
    assert_eq!(got.structured_content, want.structured_content);
    assert_eq!(got.is_error, want.is_error);
}

#[tokio::test]
async fn a_large_text_is_stored_and_shown_in_part_with_the_calls_for_the_rest() {
    let p = start(Options::default()).await;
    let r = p.call("big_text", json!({ "lines": 20_000 })).await;
    let e = structured(&r);
    assert_eq!(e["complete"], false);
    assert_eq!(e["reason"]["code"], "token_cap");
    assert_eq!(e["total"]["lines"], 20_000);
    assert_eq!(e["source"]["kind"], "mcp");
    assert_eq!(e["source"]["version"]["server"], "fake");
    assert_eq!(e["source"]["version"]["tool"], "big_text");
    assert_eq!(
        e["source"]["version"]["arguments"],
        json!({ "lines": 20_000 })
    );
    assert!(e["source"]["version"]["called_at"].is_string());
    assert_eq!(e["next"][0]["tool"], "read");
    assert_eq!(
        e["shown"][0],
        json!({ "unit": "lines", "start": 1, "end": e["shown"][0]["end"],
                "bytes": [0, e["shown"][0]["bytes"][1]] })
    );
    let blocks = texts(&r);
    assert!(spool_core::tokens::count(&blocks.join("\n")) <= 2_000);
    insta::assert_snapshot!(filtered(&blocks[0]));
    // The stored copy is the upstream's text, byte for byte.
    let reference = e["ref"].as_str().unwrap();
    let whole = p
        .call(
            "read",
            json!({ "ref": reference, "line": 19_999, "limit": 2 }),
        )
        .await;
    assert_eq!(
        texts(&whole)[1],
        spool_test_support::big_text(20_000)
            .lines()
            .skip(19_998)
            .fold(String::new(), |acc, l| acc + l + "\n")
    );
}

#[tokio::test]
async fn a_log_tool_shows_the_tail() {
    let p = start(Options::default()).await;
    let r = p.call("tail_logs", json!({ "lines": 5_000 })).await;
    let e = structured(&r);
    assert_eq!(e["complete"], false);
    assert_eq!(e["shown"][0]["end"], 5_000, "{e}");
    assert!(
        texts(&r)
            .last()
            .unwrap()
            .ends_with("FATAL: the last words of the log\n")
    );
}

#[tokio::test]
async fn the_preview_policy_can_be_set_per_tool() {
    let p = start(Options::default()).await;
    // big_text defaults to head; asking the store for the tail of the same artifact works too.
    let r = p.call("big_text", json!({ "lines": 5_000 })).await;
    let reference = structured(&r)["ref"].as_str().unwrap().to_owned();
    let tail = p
        .call("read", json!({ "ref": reference, "preview": "tail" }))
        .await;
    assert_eq!(structured(&tail)["shown"][0]["end"], 5_000);
}

/// Follows `read` with cursors from a first page; returns every item.
async fn follow_items(p: &crate::support::Proxy, first: rmcp::model::CallToolResult) -> Vec<Value> {
    let mut items = Vec::new();
    let mut page = first;
    for _ in 0..1_000 {
        let v = structured(&page).clone();
        assert!(spool_core::tokens::count(&texts(&page).join("\n")) <= 2_000);
        items.extend(v["items"].as_array().unwrap().iter().cloned());
        if v["has_more"] == false {
            assert!(v["next_cursor"].is_null());
            return items;
        }
        let cursor = v["next_cursor"].as_str().unwrap();
        page = p
            .call("read", json!({ "ref": v["ref"], "cursor": cursor }))
            .await;
        assert_eq!(page.is_error, Some(false), "{:?}", texts(&page));
    }
    panic!("never ends");
}

#[tokio::test]
async fn a_json_array_is_paged_as_whole_items() {
    let p = start(Options::default()).await;
    let r = p.call("list_rows", json!({ "n": 2_000 })).await;
    let v = structured(&r);
    assert_eq!(v["total"]["items"], 2_000);
    assert_eq!(v["has_more"], true);
    assert_eq!(v["shown"][0]["unit"], "items");
    assert!(v["notes"].to_string().contains("stored whole"), "{v}");
    let items = follow_items(&p, r).await;
    assert_eq!(Value::Array(items), spool_test_support::rows(2_000));
}

#[tokio::test]
async fn structured_rows_are_paged_and_the_output_schema_admits_the_page() {
    let p = start(Options::default()).await;
    let tools = p.client.list_all_tools().await.unwrap();
    let query = tools.iter().find(|t| t.name == "query_rows").unwrap();
    let schema = serde_json::to_value(query.output_schema.as_ref().unwrap()).unwrap();
    assert_eq!(schema["type"], "object");
    // Its own answer, spool's envelope or page of items (which replace one too large), the error.
    assert_eq!(schema["anyOf"].as_array().unwrap().len(), 4);
    assert_eq!(schema["anyOf"][0]["required"], json!(["rows", "count"]));
    let r = p.call("query_rows", json!({ "n": 1_500 })).await;
    let v = structured(&r);
    assert_eq!(v["source"]["version"]["items_at"], "rows");
    // A list offers jq over it, and the call works as given: it names the fields to select on.
    let offered = v["next"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["tool"] == "query")
        .unwrap_or_else(|| panic!("no query in {}", v["next"]))
        .clone();
    let fields = p.call("query", offered["arguments"].clone()).await;
    assert_eq!(fields.is_error, Some(false), "{fields:?}");
    assert!(
        texts(&fields)
            .join("")
            .contains(r#"["id","name","score","tags"]"#)
    );
    // One call answers a count exactly, where paging would take 1,500 items.
    let count = p
        .call(
            "query",
            json!({ "ref": offered["arguments"]["ref"], "jq": "map(select(.score == 3)) | length" }),
        )
        .await;
    let expected = (0..1_500).filter(|i| i % 97 == 3).count();
    assert_eq!(structured(&count)["complete"], true);
    assert_eq!(structured(&count)["content"], format!("{expected}\n"));
    let items = follow_items(&p, r).await;
    assert_eq!(Value::Array(items), spool_test_support::rows(1_500));
    // Small structured answers pass through as they are.
    let small = p.call("query_rows", json!({ "n": 2 })).await;
    assert_eq!(structured(&small)["count"], 2);
}

#[tokio::test]
async fn images_pass_through_and_large_ones_are_named_with_their_size() {
    let p = start(Options::default()).await;
    let small = p.call("image", json!({ "bytes": 1_000 })).await;
    let want = direct()
        .await
        .call_tool(crate::support::params("image", json!({ "bytes": 1_000 })))
        .await
        .unwrap();
    assert_eq!(small.content, want.content);
    let big = p.call("image", json!({ "bytes": 2_000_000 })).await;
    assert!(
        big.content
            .iter()
            .any(|c| c.as_image().is_some_and(|i| i.data.len() > 2_000_000))
    );
    let note = texts(&big).join("\n");
    assert!(
        note.contains("image (image/png, 1.9 MiB) passed through"),
        "{note}"
    );
}

#[tokio::test]
async fn a_large_embedded_blob_is_stored_and_named() {
    let p = start(Options::default()).await;
    let r = p.call("blob", json!({ "bytes": 100_000 })).await;
    let text = texts(&r).join("\n");
    assert!(text.contains("the embedded resource fake://blob"), "{text}");
    let reference = crate::support::stored_ref(&text);
    let read = p
        .call(
            "read",
            json!({ "ref": reference, "byte_offset": 99_990, "max_bytes": 10 }),
        )
        .await;
    let e = structured(&read);
    assert_eq!(e["total"]["bytes"], 100_000);
    assert_eq!(
        e["shown"][0],
        json!({ "unit": "bytes", "start": 99_990, "end": 100_000 })
    );
}

#[tokio::test]
async fn tool_errors_and_protocol_errors_pass_through() {
    let p = start(Options::default()).await;
    let failed = p.call("fail", json!({})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(
        texts(&failed),
        vec!["the fake tool failed on purpose".to_owned()]
    );
    let err = p
        .client
        .call_tool(crate::support::params("reject", json!({})))
        .await
        .unwrap_err();
    let rmcp::service::ServiceError::McpError(e) = err else {
        panic!("{err:?}");
    };
    assert_eq!(e.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(e.message, "the fake server rejects this call");
    assert_eq!(e.data, Some(json!({ "why": "on purpose" })));
}

#[tokio::test]
async fn every_relayed_answer_is_audited() {
    let p = start(Options::default()).await;
    p.call("echo", json!({ "text": "hi" })).await;
    let big = p.call("big_text", json!({ "lines": 5_000 })).await;
    let reference = structured(&big)["ref"].as_str().unwrap().to_owned();
    let store = spool_core::Store::open(p.home.path(), spool_core::StoreConfig::default()).unwrap();
    let rows = spool_core::audit::recent(&store, 10, None).unwrap();
    let tools: Vec<&str> = rows.iter().map(|r| r.tool.as_str()).collect();
    assert!(
        tools.contains(&"echo") && tools.contains(&"big_text"),
        "{tools:?}"
    );
    let audit = spool_core::audit::for_ref(&store, &reference).unwrap();
    assert!(!audit.answers.is_empty());
}

#[tokio::test]
async fn large_structured_content_beside_a_short_text_is_paged_and_the_text_kept() {
    let p = start(Options::default()).await;
    let r = p.call("mixed", json!({ "n": 1_000 })).await;
    let v = structured(&r);
    assert_eq!(v["total"]["items"], 1_000, "{v}");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("the upstream also sent 9 bytes of text beside it, stored as sp_"),
        "{notes}"
    );
    let items = follow_items(&p, r).await;
    assert_eq!(Value::Array(items), spool_test_support::rows(1_000));
}

#[tokio::test]
async fn an_object_with_a_small_list_beside_a_large_field_is_shown_as_text_not_as_that_list() {
    let p = start(Options::default()).await;
    let r = p.call("doc_with_tags", json!({})).await;
    let v = structured(&r);
    assert_eq!(v["complete"], false);
    assert!(v.get("items").is_none(), "not paged as its two tags: {v}");
    assert_eq!(v["total"]["bytes"], 200_028);
}

#[tokio::test]
async fn an_upstream_that_pages_its_own_list_is_said_to_go_on() {
    let p = start(Options::default()).await;
    let r = p.call("paged_rows", json!({ "n": 1_000 })).await;
    let v = structured(&r);
    // Every page says so now (see paging.rs): the first one too, as its coverage.
    assert_eq!(v["has_more"], true);
    assert_eq!(
        v["source"]["coverage"]["upstream_page"]["said"],
        json!({ "next_cursor": "page-2" })
    );
    let notes = v["notes"].to_string();
    assert!(
        notes.contains(r#"the list left out: {\"rows\":\"<the list of 1000 items, paged here>\",\"next_cursor\":\"page-2\"}"#),
        "{notes}"
    );
}

#[tokio::test]
async fn small_blobs_travel_beside_a_stored_text() {
    let p = start(Options::default()).await;
    let r = p.call("blob_and_text", json!({})).await;
    assert_eq!(structured(&r)["complete"], false);
    let kept = serde_json::to_value(&r.content).unwrap().to_string();
    assert!(kept.contains("fake://small-blob"), "{kept}");
}

#[tokio::test]
async fn structured_content_that_wraps_the_text_is_not_taken_for_the_payload() {
    // Regression: server-filesystem sends the file as text and as { content: text }; the
    // pretty JSON of the wrapper (longer, newlines escaped) was stored instead of the text.
    let p = start(Options::default()).await;
    let r = p.call("wrapped_text", json!({ "lines": 5_000 })).await;
    let v = structured(&r);
    assert_eq!(v["total"]["lines"], 5_000, "{v}");
    assert!(v.get("notes").is_none(), "nothing beside it: {v}");
    assert!(texts(&r)[1].starts_with("line 1: the quick brown fox"));
}

/// A long error from an upstream keeps its end in the preview, as a failing command's does:
/// its cause is on its last line (regression, issue 57: lines 1-539 of a 20,000-line trace
/// were shown, the cause in no view). The answer stays an error, and says it is one.
#[tokio::test]
async fn a_long_upstream_error_shows_its_last_lines() {
    let p = start(Options::default()).await;
    let r = p.call("fail_long", json!({ "lines": 20_000 })).await;
    assert_eq!(r.is_error, Some(true));
    let text = texts(&r).join("\n");
    assert!(
        text.contains("CAUSE: the connection pool was exhausted"),
        "{}",
        &text[..text.len().min(600)]
    );
    assert!(text.contains("at frame 1 (handler.js"), "the head too");
    assert!(text.contains("answered an error"), "{}", &text[..600]);
    assert!(text.contains("of 20,000 lines"), "{}", &text[..600]);
}
