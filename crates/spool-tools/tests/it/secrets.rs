//! Secrets in the server's environment never reach a command, the model or the store
//! (issue 58: `run env`, `echo $GITHUB_TOKEN` and `/proc/$PPID/environ` showed all four).
//! Checked by grepping every answer and every file of the store for each value. Tests here run
//! as root, who reads any process's environment: the scrubbing of what commands print is what
//! holds then.

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

use crate::support::Home;

const SECRETS: [(&str, &str); 4] = [
    ("GITHUB_TOKEN", "ghp_TESTaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("OPENAI_API_KEY", "sk-TESTbbbbbbbbbbbbbbbbbbbbbbbb"),
    ("DB_PASSWORD", "hunter2-TEST-cccccc"),
    ("MY_SERVICE_SECRET", "TEST-dddddddddddddddd"),
];

/// Every file under `dir` that holds `needle`.
fn files_holding(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        if e.file_type().unwrap().is_dir() {
            found.extend(files_holding(&path, needle));
        } else if std::fs::read(&path)
            .is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
        {
            found.push(path.display().to_string());
        }
    }
    found
}

#[test]
fn a_command_run_through_spool_gets_no_secret_of_its_environment() {
    let home = Home::new();
    let mut cmd = home.cmd(&[
        "run",
        "--json",
        "--",
        "sh",
        "-c",
        "env; echo \"[$GITHUB_TOKEN]\"",
    ]);
    for (k, v) in SECRETS {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let e: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(e["content"].as_str().unwrap().contains("[]"), "{e}");
    for (name, value) in SECRETS {
        assert!(!text.contains(value), "{name} shown: {text}");
        assert!(
            files_holding(home.path(), value).is_empty(),
            "{name} stored"
        );
    }
    let withheld = &e["source"]["version"]["env_withheld"];
    for (name, _) in SECRETS {
        assert!(
            withheld.as_array().unwrap().contains(&json!(name)),
            "{withheld}"
        );
    }
    // Named by the operator, one is passed.
    let mut cmd = home.cmd(&[
        "run",
        "--json",
        "--",
        "sh",
        "-c",
        "echo \"[$GITHUB_TOKEN]\"",
    ]);
    cmd.env("GITHUB_TOKEN", SECRETS[0].1)
        .env("SPOOL_ENV_PASS", "GITHUB_TOKEN");
    let out = String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned();
    assert!(out.contains(&format!("[{}]", SECRETS[0].1)), "{out}");
}

/// Over MCP, as a model would ask: `env`, the variable by name, and the server's own
/// environment by `/proc/$PPID/environ`.
#[tokio::test]
async fn a_model_cannot_read_the_servers_secrets_through_run() {
    let home = Home::new();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_spool"));
    cmd.args(["serve", "--root"])
        .arg(home.path())
        .env("SPOOL_HOME", home.path())
        .stderr(std::process::Stdio::null());
    for (k, v) in SECRETS {
        cmd.env(k, v);
    }
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    let asked =
        "env; echo \"[$GITHUB_TOKEN]\"; tr '\\0' '\\n' < /proc/$PPID/environ; echo \"exit $?\"";
    let r = client
        .call_tool(
            CallToolRequestParams::new("run")
                .with_arguments(json!({ "command": asked }).as_object().cloned().unwrap()),
        )
        .await
        .unwrap();
    let seen = serde_json::to_string(&r).unwrap();
    for (name, value) in SECRETS {
        assert!(!seen.contains(value), "{name} shown to the model: {seen}");
        assert!(
            files_holding(home.path(), value).is_empty(),
            "{name} stored"
        );
    }
    // The server's own environment: not readable by its command (the server is not dumpable),
    // or, for a superuser's command, read and scrubbed of every value spool withheld.
    assert!(
        seen.contains("Permission denied")
            || seen.contains("GITHUB_TOKEN=[withheld: GITHUB_TOKEN]"),
        "{seen}"
    );
    client.cancel().await.unwrap();
}
