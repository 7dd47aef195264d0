//! What passes through: the complete tool list (every upstream page), resources, prompts,
//! progress and cancellation; several upstreams side by side; the lazy tool surface.

use std::time::Duration;

use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams};
use serde_json::json;

use crate::support::{Options, direct, start, structured, texts};

#[tokio::test]
async fn tools_list_arrives_complete_across_upstream_pages() {
    let p = start(Options::default()).await;
    let upstream: Vec<String> = direct()
        .await
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        upstream.len() > 10,
        "the fake pages its tools by 5: {upstream:?}"
    );
    let listed = p.client.list_tools(None).await.unwrap();
    assert!(
        listed.next_cursor.is_none(),
        "the proxy answers with every tool at once"
    );
    let names: Vec<String> = listed.tools.iter().map(|t| t.name.to_string()).collect();
    for name in upstream.iter().filter(|n| *n != "read") {
        assert!(names.contains(name), "{name} missing from {names:?}");
    }
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "no two tools share a name: {names:?}"
    );
    assert_eq!(names.len(), upstream.len() + spool_proxy::SPOOL_TOOLS.len());
    // The upstream's own `read` yields its name to spool's and becomes `fake_read`, which the
    // upstream's `fake_read` also is: one of the two is numbered, both stay callable.
    let mut got = Vec::new();
    for name in ["fake_read", "fake_read_2"] {
        got.extend(texts(&p.call(name, json!({})).await));
    }
    got.sort();
    assert_eq!(
        got,
        vec![
            "the fake server's fake_read".to_owned(),
            "the fake server's own read".to_owned()
        ]
    );
    let meta = listed.tools[0].meta.as_ref().unwrap();
    assert_eq!(
        meta.get("anthropic/maxResultSizeChars"),
        Some(&json!(200_000))
    );
}

#[tokio::test]
async fn resources_and_prompts_pass_through() {
    let p = start(Options::default()).await;
    let info = p.client.peer_info().unwrap();
    assert!(info.capabilities.resources.is_some());
    assert!(info.capabilities.prompts.is_some());
    assert!(
        info.instructions
            .as_deref()
            .unwrap()
            .starts_with("A fake server for tests.")
    );
    let resources = p.client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "fake://readme");
    let read = p
        .client
        .read_resource(ReadResourceRequestParams::new("fake://readme"))
        .await
        .unwrap();
    let text = serde_json::to_value(&read).unwrap();
    assert_eq!(text["contents"][0]["text"], "the fake readme");
    let missing = p
        .client
        .read_resource(ReadResourceRequestParams::new("fake://nothing"))
        .await;
    assert!(missing.is_err());
    // A large resource is stored and shown in part, like a tool answer.
    let big = p
        .client
        .read_resource(ReadResourceRequestParams::new("fake://big"))
        .await
        .unwrap();
    let text = serde_json::to_value(&big).unwrap()["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.starts_with("[PARTIAL: lines 1-"), "{}", &text[..200]);
    assert!(spool_core::tokens::count(&text) <= 2_000);
    let reference = text
        .split("stored as ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let rest = p
        .call("read", json!({ "ref": reference, "line": 20_000 }))
        .await;
    assert!(texts(&rest)[1].starts_with("line 20000:"));
    let prompts = p.client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greet");
    let got = p
        .client
        .get_prompt(GetPromptRequestParams::new("greet"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap()["messages"][0]["content"]["text"],
        "hello from greet"
    );
}

#[tokio::test]
async fn progress_reaches_the_client_that_asked() {
    let p = start(Options::default()).await;
    let r = p.call("slow", json!({ "steps": 6 })).await;
    assert_eq!(texts(&r), vec!["done after 6 steps".to_owned()]);
    let seen = p
        .recorder
        .progress
        .load(std::sync::atomic::Ordering::SeqCst);
    assert!(seen >= 4, "progress notifications relayed: {seen}");
    assert!(
        p.recorder
            .messages
            .lock()
            .unwrap()
            .iter()
            .any(|m| m == "step 6 of 6")
    );
}

#[tokio::test]
async fn cancelling_a_call_cancels_it_upstream() {
    let p = start(Options::default()).await;
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        crate::support::params("slow", json!({ "steps": 100 })),
    ));
    let handle = p
        .client
        .send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    handle.cancel(Some("test".into())).await.unwrap();
    let marker = p.marks.path().join("cancelled");
    for _ in 0..50 {
        if marker.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(marker.exists(), "the upstream saw the cancellation");
    // The proxy and the upstream are still there.
    let r = p.call("echo", json!({ "text": "still here" })).await;
    assert_eq!(texts(&r), vec!["still here".to_owned()]);
}

#[tokio::test]
async fn several_upstreams_are_prefixed_by_name() {
    let p = start(Options {
        names: vec!["one", "two"],
        ..Options::default()
    })
    .await;
    let names: Vec<String> = p
        .client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"one_echo".to_owned()) && names.contains(&"two_echo".to_owned()));
    assert!(names.contains(&"read".to_owned()));
    let a = p.call("one_pid", json!({})).await;
    let b = p.call("two_pid", json!({})).await;
    assert_ne!(texts(&a), texts(&b), "two processes");
    let big = p.call("two_big_text", json!({ "lines": 5_000 })).await;
    assert_eq!(structured(&big)["source"]["version"]["server"], "two");
    let prompts = p.client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "one_greet"));
    let got = p
        .client
        .get_prompt(GetPromptRequestParams::new("two_greet"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap()["messages"][0]["content"]["text"],
        "hello from greet"
    );
}

#[tokio::test]
async fn the_lazy_surface_lists_one_line_per_tool_and_describes_on_demand() {
    let p = start(Options {
        lazy: true,
        ..Options::default()
    })
    .await;
    let tools = p.client.list_all_tools().await.unwrap();
    let big = tools.iter().find(|t| t.name == "big_text").unwrap();
    insta::assert_snapshot!(big.description.as_deref().unwrap(), @"Answers with `lines` numbered lines of text. [arguments: call describe_tool name=big_text]");
    assert!(tools.iter().any(|t| t.name == "describe_tool"));
    let full = p.call("describe_tool", json!({ "name": "big_text" })).await;
    let v = structured(&full);
    assert_eq!(v["inputSchema"]["properties"]["lines"]["type"], "integer");
    assert!(v["description"].as_str().unwrap().contains("Second line"));
    let unknown = p.call("describe_tool", json!({ "name": "nope" })).await;
    assert_eq!(unknown.is_error, Some(true));
    assert_eq!(structured(&unknown)["error"]["code"], "invalid_argument");
    // Calls go through as before.
    let r = p.call("echo", json!({ "text": "lazy" })).await;
    assert_eq!(texts(&r), vec!["lazy".to_owned()]);
}

#[tokio::test]
async fn a_streamable_http_upstream_with_a_bearer_token_is_relayed() {
    // The upstream: spool's own server over HTTP on loopback, behind a token.
    let up_home = tempfile::tempdir().unwrap();
    let upstream = crate::support::spool_server(up_home.path(), spool_mcp::Settings::default());
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _ = spool_mcp::http::serve_http(
            upstream,
            "127.0.0.1:0".parse().unwrap(),
            Some("s3cret".into()),
            &[],
            move |bound| {
                let _ = tx.send(bound);
            },
        )
        .await;
    });
    let bound = rx.await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let spool = crate::support::spool_server(home.path(), spool_mcp::Settings::default());
    let spec = |token: &str| spool_proxy::UpstreamSpec {
        name: "up".into(),
        url: Some(format!("http://{bound}/mcp")),
        bearer_token: Some(token.into()),
        timeout_s: Some(10.0),
        ..spool_proxy::UpstreamSpec::default()
    };
    let wrong = spool_proxy::ProxyConfig {
        lazy: false,
        store: None,
        upstreams: vec![spec("wrong")],
    };
    assert!(
        spool_proxy::ProxyServer::start(wrong, spool.clone())
            .await
            .is_err(),
        "a wrong token is refused"
    );
    let config = spool_proxy::ProxyConfig {
        lazy: false,
        store: None,
        upstreams: vec![spec("s3cret")],
    };
    let server = spool_proxy::ProxyServer::start(config, spool)
        .await
        .unwrap();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        use rmcp::ServiceExt;
        if let Ok(running) = Box::pin(server.serve(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    let client = rmcp::ServiceExt::serve((), client_io).await.unwrap();
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    // The upstream's `read`, `search` and `artifacts` yield their names to the proxy's own.
    for name in [
        "run",
        "up_read",
        "up_search",
        "up_artifacts",
        "read",
        "search",
        "artifacts",
    ] {
        assert!(
            names.contains(&name.to_owned()),
            "{name} missing from {names:?}"
        );
    }
    let r = client
        .call_tool(crate::support::params(
            "run",
            json!({ "command": "echo over http" }),
        ))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(texts(&r)[1], "over http\n");
}
