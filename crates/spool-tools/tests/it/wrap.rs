//! `spool wrap`: the binary relaying the fake upstream over stdio, and its argument errors.

use insta::assert_snapshot;
use serde_json::json;

use crate::support::{Home, settings, transcript};

#[test]
fn wrap_explains_what_it_needs() {
    let home = Home::new();
    let bad = home.file(
        "bad.toml",
        b"[[upstream]]\nname = \"a b\"\ncommand = \"x\"\n",
    );
    let bad = bad.display().to_string();
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("no upstream", vec!["wrap"]),
        ("bad config", vec!["wrap", "--config", &bad]),
        (
            "bad preview",
            vec!["wrap", "--preview", "logs", "--", "true"],
        ),
        (
            "missing program",
            vec!["wrap", "--", "/nonexistent/mcp-server"],
        ),
    ];
    let mut all = String::new();
    for (name, args) in cases {
        let out = home.run(&args);
        all.push_str(&format!("## {name}\n{}\n", transcript(&out)));
    }
    settings(&home).bind(|| assert_snapshot!(all));
}

#[tokio::test]
async fn wrap_relays_over_stdio_and_the_continuation_reads_the_rest() {
    use rmcp::ServiceExt;
    let home = Home::new();
    let fake = spool_test_support::fake_upstream().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["wrap", "--max-tokens", "2000", "--"])
        .arg(&fake)
        .env("SPOOL_HOME", home.path());
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 30 + spool_proxy::SPOOL_TOOLS.len());
    let call = |name: &str, args: serde_json::Value| {
        rmcp::model::CallToolRequestParams::new(name.to_owned())
            .with_arguments(args.as_object().cloned().unwrap())
    };
    let r = client
        .call_tool(call("big_text", json!({ "lines": 3_000 })))
        .await
        .unwrap();
    spool_test_support::schema_check::hold_to_declared(&client, "big_text", &r)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let e = r.structured_content.clone().unwrap();
    assert_eq!(e["complete"], false);
    assert_eq!(e["source"]["version"]["server"], "fake-upstream");
    let next = &e["next"][0];
    assert_eq!(next["tool"], "read");
    let more = client
        .call_tool(call("read", next["arguments"].clone()))
        .await
        .unwrap();
    spool_test_support::schema_check::hold_to_declared(&client, "read", &more)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let m = more.structured_content.unwrap();
    assert_eq!(
        m["shown"][0]["start"],
        e["shown"][0]["end"].as_u64().unwrap() + 1
    );
    client.cancel().await.unwrap();
}
