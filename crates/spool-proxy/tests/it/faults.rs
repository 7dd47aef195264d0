//! An upstream that crashes or hangs: `unavailable` or `timeout`, a restart on the next call,
//! and what was stored stays readable.

use serde_json::json;

use crate::support::{Options, filtered, start, structured, texts};

#[tokio::test]
async fn a_crash_answers_unavailable_and_the_next_call_restarts_it() {
    let p = start(Options::default()).await;
    let big = p.call("big_text", json!({ "lines": 5_000 })).await;
    let reference = structured(&big)["ref"].as_str().unwrap().to_owned();
    let before = texts(&p.call("pid", json!({})).await);
    let crashed = p.call("crash", json!({})).await;
    assert_eq!(crashed.is_error, Some(true));
    let err = &structured(&crashed)["error"];
    assert_eq!(err["code"], "unavailable");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("crashing on purpose"),
        "the stderr tail explains it: {message}"
    );
    insta::assert_snapshot!(
        filtered(&texts(&crashed)[0]).replace(
            &spool_test_support::fake_upstream()
                .unwrap()
                .display()
                .to_string(),
            "FAKE"
        )
    );
    let after = texts(&p.call("pid", json!({})).await);
    assert_ne!(before, after, "a new process");
    assert_eq!(p.server.upstreams()[0].starts(), 2);
    let still = p
        .call("read", json!({ "ref": reference, "line": 4_999 }))
        .await;
    assert_eq!(still.is_error, Some(false));
    assert!(texts(&still)[1].starts_with("line 4999:"));
}

#[tokio::test]
async fn a_hang_answers_timeout_and_the_server_stays_usable() {
    let p = start(Options {
        timeout_s: Some(1.0),
        ..Options::default()
    })
    .await;
    let hung = p.call("hang", json!({})).await;
    assert_eq!(hung.is_error, Some(true));
    assert_eq!(structured(&hung)["error"]["code"], "timeout");
    let text = texts(&hung)[0].clone();
    assert!(text.contains("did not answer within 1 s"), "{text}");
    let r = p.call("echo", json!({ "text": "after" })).await;
    assert_eq!(texts(&r), vec!["after".to_owned()]);
}

#[tokio::test]
async fn an_upstream_that_cannot_start_is_a_clear_error() {
    let home = tempfile::tempdir().unwrap();
    let spool = crate::support::spool_server(home.path(), spool_mcp::Settings::default());
    let config = spool_proxy::ProxyConfig {
        lazy: false,
        store: None,
        upstreams: vec![spool_proxy::UpstreamSpec {
            name: "ghost".into(),
            command: Some("/nonexistent/mcp-server".into()),
            ..spool_proxy::UpstreamSpec::default()
        }],
    };
    let Err(err) = spool_proxy::ProxyServer::start(config, spool).await else {
        panic!("started");
    };
    let text = err.to_string();
    assert!(text.starts_with("upstream `ghost` (/nonexistent/mcp-server) is unavailable: `/nonexistent/mcp-server` did not run: No such file"), "{text}");
}

#[tokio::test]
async fn an_upstream_that_cannot_come_back_keeps_its_tools_listed_and_fails_fast() {
    let p = start(Options {
        once: true,
        ..Options::default()
    })
    .await;
    let crashed = p.call("crash", json!({})).await;
    assert_eq!(structured(&crashed)["error"]["code"], "unavailable");
    // Listing still shows its tools (calling one says why it fails), and spool's own.
    let names: Vec<String> = p
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        names.contains(&"echo".to_owned()) && names.contains(&"read".to_owned()),
        "{names:?}"
    );
    let first = p.call("echo", json!({ "text": "x" })).await;
    assert_eq!(structured(&first)["error"]["code"], "unavailable");
    let again = p.call("echo", json!({ "text": "x" })).await;
    let message = structured(&again)["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("it failed to start") && message.contains("ms ago"),
        "{message}"
    );
}
