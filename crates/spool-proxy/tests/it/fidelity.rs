//! What real upstreams send, relayed faithfully: answers past rmcp's 16 MiB stdio limit, an image
//! larger than models take, rows nested as database servers nest them, lists as the Python SDK
//! sends them, a history that runs newest first, wrong-typed arguments.

use serde_json::{Value, json};

use crate::support::{Options, Proxy, start, structured, texts};

async fn proxy() -> Proxy {
    start(Options {
        max_tokens: 2_000,
        timeout_s: Some(120.0),
        ..Options::default()
    })
    .await
}

#[tokio::test]
async fn an_answer_past_16_mib_is_stored_whole_and_answered() {
    let p = proxy().await;
    let started = std::time::Instant::now();
    let r = p.call("huge_text", json!({ "bytes": 40_000_000 })).await;
    assert_eq!(r.is_error, Some(false), "{:?}", texts(&r));
    let e = structured(&r);
    assert_eq!(e["complete"], false);
    assert!(e["total"]["bytes"].as_u64().unwrap() >= 40_000_000, "{e}");
    // The whole of it is stored: its very last line is found.
    let hits = p
        .call(
            "search",
            json!({ "ref": e["ref"], "pattern": "^THE LAST LINE$" }),
        )
        .await;
    assert_eq!(structured(&hits)["hit_count"], 1);
    // Not after a timeout (120 s here): the answer came as soon as it was stored.
    assert!(started.elapsed().as_secs() < 110);
}

#[tokio::test]
async fn an_answer_over_the_configured_limit_is_an_error_at_once_naming_its_size() {
    let home = tempfile::tempdir().unwrap();
    let marks = tempfile::tempdir().unwrap();
    let mut spec = crate::support::fake_spec("fake", marks.path());
    spec.max_message_bytes = Some(1 << 20);
    spec.timeout_s = Some(120.0);
    let spool = crate::support::spool_server(home.path(), spool_mcp::Settings::default());
    let server = spool_proxy::ProxyServer::start(
        spool_proxy::ProxyConfig {
            upstreams: vec![spec],
            ..spool_proxy::ProxyConfig::default()
        },
        spool,
    )
    .await
    .unwrap();
    let client = crate::support::connect(server).await;
    let started = std::time::Instant::now();
    let err = client
        .call_tool(crate::support::params(
            "huge_text",
            json!({ "bytes": 3_000_000 }),
        ))
        .await
        .unwrap_err();
    assert!(
        started.elapsed().as_secs() < 30,
        "it did not wait for the timeout"
    );
    let text = err.to_string();
    assert!(
        text.contains("more than the 1048576 bytes spool reads"),
        "{text}"
    );
    // The connection still works.
    let ok = client
        .call_tool(crate::support::params(
            "echo",
            json!({ "text": "still here" }),
        ))
        .await
        .unwrap();
    assert_eq!(texts(&ok), ["still here"]);
}

#[tokio::test]
async fn an_image_larger_than_models_take_is_stored_and_named() {
    let p = proxy().await;
    let r = p.call("huge_image", json!({ "bytes": 40_000_000 })).await;
    assert_eq!(r.is_error, Some(false));
    assert!(
        r.content.iter().all(|c| c.as_image().is_none()),
        "the 40 MB image is not passed on"
    );
    let all = texts(&r).join("\n");
    assert!(all.contains("a large picture"), "{all}");
    let note = texts(&r)
        .into_iter()
        .find(|t| t.contains("the image (image/png"))
        .unwrap();
    assert!(note.contains("more than models take"), "{note}");
    let reference = crate::support::stored_ref(&note);
    let bytes = p
        .call(
            "read",
            json!({ "ref": reference, "byte_offset": 0, "max_bytes": 8 }),
        )
        .await;
    let e = structured(&bytes);
    assert_eq!(e["total"]["bytes"], 40_000_008, "stored whole: {e}");
}

#[tokio::test]
async fn rows_nested_as_dbhub_nests_them_are_paged_as_items() {
    let p = proxy().await;
    let r = p.call("db_rows", json!({ "n": 2_000 })).await;
    let e = structured(&r);
    assert_eq!(e["total"]["items"], 2_000, "{e}");
    assert_eq!(
        e["source"]["version"]["items_at"],
        "data.statements[0].rows"
    );
    assert_eq!(e["items"][0]["name"], "row 0");
    let notes = e["notes"].to_string();
    assert!(
        notes.contains("SELECT * FROM rows"),
        "the rest of the answer is kept: {notes}"
    );
    assert!(notes.contains("rowCount"), "{notes}");
    let banner = &texts(&r)[0];
    assert!(banner.contains("of 2,000 items"), "{banner}");
}

#[tokio::test]
async fn a_list_sent_as_the_python_sdk_sends_it_is_paged_as_items() {
    let p = proxy().await;
    let r = p.call("py_list", json!({ "n": 1_500 })).await;
    let e = structured(&r);
    assert_eq!(e["total"]["items"], 1_500, "{e}");
    assert_eq!(e["items"][0]["id"], 0);
    assert_eq!(e["source"]["version"]["items_at"], "result");
}

#[tokio::test]
async fn a_history_newest_first_shows_its_newest_entries_whatever_the_name_says() {
    let p = proxy().await;
    let r = p.call("git_log", json!({ "n": 3_000 })).await;
    let e = structured(&r);
    assert_eq!(e["shown"][0]["start"], 1, "the head: {e}");
    let content = e["content"].as_str().unwrap();
    assert!(
        content.contains("change number 3000"),
        "the newest commit is shown"
    );
    assert!(!content.contains("change number 1\\n"), "not the oldest");
    let banner = &texts(&r)[0];
    assert!(banner.contains("this answer runs newest first"), "{banner}");
    // A log with no times keeps the tail, and says why.
    let r = p.call("tail_logs", json!({ "lines": 20_000 })).await;
    assert!(texts(&r)[0].contains("the preview shows the end, as for a log"));
}

#[tokio::test]
async fn wrong_typed_arguments_are_a_tool_error_naming_the_field() {
    let p = proxy().await;
    let r = p.call("echo", json!({ "text": 5 })).await;
    assert_eq!(r.is_error, Some(true));
    let e = &structured(&r)["error"];
    assert_eq!(e["code"], "invalid_argument");
    let message = e["message"].as_str().unwrap();
    assert!(
        message.contains("`text` must be a string (got the number 5)"),
        "{message}"
    );
    assert!(
        message.contains("Invalid arguments for tool echo"),
        "the upstream's words kept"
    );
    // spool's own tools beside it answer the same way.
    let r = p.call("read", json!({ "ref": 7 })).await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(structured(&r)["error"]["code"], "invalid_argument");
    let _ = Value::Null;
}

#[tokio::test]
async fn a_tool_the_only_upstream_did_not_list_is_its_to_answer() {
    let p = proxy().await;
    // The fake answers an unknown name with a JSON-RPC error of its own words; the proxy relays
    // it rather than refusing in its own.
    let err = p
        .client
        .call_tool(crate::support::params("not_listed", json!({})))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no tool not_listed"), "{err}");
}
