//! A server answers, by ref, only from what it made, what a process it trusts made, and copies
//! of files inside its roots (regression: `serve --root R` read, by ref, file copies another
//! process made outside R, and every other process's command output).

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};

use crate::support::Home;

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

async fn server(home: &Home, args: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.arg("serve")
        .args(args)
        .env("SPOOL_HOME", home.path())
        .stderr(std::process::Stdio::null());
    ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap()
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let r = client
        .call_tool(
            CallToolRequestParams::new(tool.to_owned())
                .with_arguments(args.as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    spool_test_support::schema_check::hold_to_declared(client, tool, &r)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    r
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn reference(r: &CallToolResult) -> String {
    r.structured_content.as_ref().unwrap()["ref"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Asserts `r` refuses as not this server's, saying nothing of what the artifact holds.
fn assert_refused(r: &CallToolResult, secret: &str) {
    assert_eq!(r.is_error, Some(true), "{}", text(r));
    let body = serde_json::to_string(r).unwrap();
    assert!(body.contains("forbidden"), "{body}");
    assert!(body.contains("another spool process"), "{body}");
    assert!(!body.contains(secret), "the refusal leaks: {body}");
    assert!(
        !body.contains("outside"),
        "the refusal names the path: {body}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_reads_by_ref_only_its_own_its_roots_files_and_what_it_trusts() {
    let home = Home::new();
    let root = home.path().join("repo");
    let outside = home.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "the-outside-secret\n").unwrap();
    std::fs::write(root.join("inside.txt"), "inside words\n").unwrap();
    let (root_s, outside_s) = (root.display().to_string(), outside.display().to_string());

    // Made by the person at the terminal: a copy of a file outside the root, a command's
    // output, and a copy of a file inside it.
    let cli_file = home.json(&["read", &format!("{outside_s}/secret.txt")])["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = home.run(&["run", "--json", "--", "echo", "the-command-secret"]);
    let cli_run = serde_json::from_slice::<Value>(&out.stdout).unwrap()["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    let cli_inside = home.json(&["read", &format!("{root_s}/inside.txt")])["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    // Made by another server, on the outside directory.
    let other = server(&home, &["--root", &outside_s]).await;
    let r = call(&other, "run", json!({ "command": "echo the-other-secret" })).await;
    let other_run = reference(&r);
    let r = call(&other, "read", json!({ "path": "secret.txt" })).await;
    let other_file = reference(&r);
    other.cancel().await.unwrap();

    let s = server(&home, &["--root", &root_s]).await;
    for (what, r, secret) in [
        ("cli file", &cli_file, "the-outside-secret"),
        ("cli run", &cli_run, "the-command-secret"),
        ("other run", &other_run, "the-other-secret"),
        ("other file", &other_file, "the-outside-secret"),
    ] {
        for (tool, args) in [
            ("read", json!({ "ref": r })),
            ("read", json!({ "ref": r, "line": 1, "limit": 1 })),
            ("read", json!({ "ref": r, "stream": "stdout" })),
            ("search", json!({ "ref": r, "pattern": "secret" })),
        ] {
            let answer = call(&s, tool, args.clone()).await;
            assert_refused(&answer, secret);
            let _ = what;
        }
    }
    // The listing shows none of them either.
    let listed = call(&s, "artifacts", json!({ "limit": 100 })).await;
    let body = serde_json::to_string(&listed).unwrap();
    for r in [&cli_file, &cli_run, &other_run, &other_file] {
        assert!(!body.contains(r.as_str()), "{r} listed: {body}");
    }
    // A copy of a file inside its root is its to read, whoever made it; and what it makes.
    let inside = call(&s, "read", json!({ "ref": cli_inside })).await;
    assert_ne!(inside.is_error, Some(true), "{}", text(&inside));
    assert!(text(&inside).contains("inside words"));
    let own = call(&s, "run", json!({ "command": "echo mine" })).await;
    let own_ref = reference(&own);
    let again = call(&s, "read", json!({ "ref": own_ref })).await;
    assert!(text(&again).contains("mine"), "{}", text(&again));
    let listed = serde_json::to_string(&call(&s, "artifacts", json!({})).await).unwrap();
    assert!(listed.contains(&own_ref), "{listed}");
    s.cancel().await.unwrap();

    // Restarted on the same root, it is the same server: its own refs still read.
    let s = server(&home, &["--root", &root_s]).await;
    let again = call(&s, "read", json!({ "ref": own_ref })).await;
    assert!(text(&again).contains("mine"), "{}", text(&again));
    s.cancel().await.unwrap();

    // Trusting the terminal's commands lets those through, not the other server's.
    let s = server(&home, &["--root", &root_s, "--trust", "cli"]).await;
    let r = call(&s, "read", json!({ "ref": cli_run })).await;
    assert!(text(&r).contains("the-command-secret"), "{}", text(&r));
    let r = call(&s, "read", json!({ "ref": cli_file })).await;
    assert!(text(&r).contains("the-outside-secret"), "{}", text(&r));
    assert_refused(
        &call(&s, "read", json!({ "ref": other_run })).await,
        "the-other-secret",
    );
    s.cancel().await.unwrap();

    // The terminal itself reads everything in its store.
    let out = home.run(&["read", &other_run]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("the-other-secret"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_expired_artifact_of_another_process_is_refused_not_described() {
    // A tombstone says what the artifact was and how to make it again: that is not for a
    // server that may not read it.
    let home = Home::new();
    let root = home.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    let made = home
        .cmd(&["run", "--json", "--", "echo", "gone-secret"])
        .env("SPOOL_TTL", "1")
        .output()
        .unwrap();
    let made: Value = serde_json::from_slice(&made.stdout).unwrap();
    let reference = made["ref"].as_str().unwrap().to_owned();
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    let out = home.run(&["gc"]);
    assert!(out.status.success());
    let s = server(&home, &["--root", &root.display().to_string()]).await;
    let r = call(&s, "read", json!({ "ref": reference })).await;
    assert_refused(&r, "gone-secret");
    assert!(!serde_json::to_string(&r).unwrap().contains("echo"));
    s.cancel().await.unwrap();
}
