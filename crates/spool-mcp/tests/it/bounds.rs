//! A hostile jq program through the MCP server (issue 39): before the box, `def f: [f]; f` ended
//! the server with SIGABRT and every session with it, and cancelling `def f: f; f` left it
//! burning a core. Now the first answers a tool error and the server goes on answering; the
//! second's box is gone within moments of the cancel.

use std::time::{Duration, Instant};

use serde_json::json;
use spool_mcp::Settings;

use crate::support::{start, structured, texts};

/// The jq boxes this process has started that are still there (running or not yet reaped).
fn boxes() -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // The parent's pid is the second field after the command's closing parenthesis.
        let parent = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if parent == Some(me) && cmdline.windows(11).any(|w| w == b"__spool_box") {
            found.push(pid);
        }
    }
    found
}

async fn stored_list(h: &crate::support::Harness) -> String {
    let r = h
        .call("run", json!({ "command": "printf '[1,2,3]'" }))
        .await;
    structured(&r)["ref"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_program_that_ended_the_server_is_a_tool_error_and_the_server_goes_on() {
    let h = start(Settings::default()).await;
    let reference = stored_list(&h).await;
    let r = h
        .call("query", json!({ "ref": reference, "jq": "def f: [f]; f" }))
        .await;
    assert_eq!(r.is_error, Some(true));
    let said = texts(&r).join("\n");
    assert!(said.contains("recursed deeper than"), "{said}");
    let r = h
        .call("query", json!({ "ref": reference, "jq": "length" }))
        .await;
    assert_eq!(r.is_error, Some(false));
    assert!(texts(&r).join("\n").contains('3'));
}

#[tokio::test]
async fn cancelling_a_query_kills_its_box() {
    let h = start(Settings::default()).await;
    let reference = stored_list(&h).await;
    let handle = h
        .call_cancellable("query", json!({ "ref": reference, "jq": "def f: f; f" }))
        .await;
    let mut running = Vec::new();
    for _ in 0..100 {
        running = boxes();
        if !running.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!running.is_empty(), "the program's box never started");
    handle.cancel(Some("test".into())).await.unwrap();
    let cancelled = Instant::now();
    while running.iter().any(|pid| boxes().contains(pid)) {
        assert!(
            cancelled.elapsed() < Duration::from_secs(5),
            "the box outlived the cancel"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_error_never_echoes_more_than_it_may_send() {
    // Regression (issue 39): an error quoted its arguments whole, 1.2 M chars against a
    // declared 200,000.
    let h = start(Settings::default()).await;
    let huge = "a".repeat(1_200_000);
    // (tool, arguments, whether its error quotes them)
    for (tool, args, quotes) in [
        (
            "search",
            json!({ "path": ".", "pattern": format!("({huge}") }),
            true,
        ),
        (
            "search",
            json!({ "path": ".", "pattern": "x", "glob": [format!("[{huge}")] }),
            true,
        ),
        ("read", json!({ "ref": format!("sp_{huge}") }), true),
        ("read", json!({ "path": huge }), false),
    ] {
        let r = h.call(tool, args).await;
        assert_eq!(r.is_error, Some(true), "{tool}");
        let text = texts(&r).join("\n");
        let structured = structured(&r).to_string();
        assert!(
            text.chars().count() <= 2_000,
            "{tool}: {} chars",
            text.chars().count()
        );
        assert!(
            structured.len() <= 4_000,
            "{tool}: {} bytes",
            structured.len()
        );
        assert_eq!(text.contains("chars left out"), quotes, "{tool}: {text}");
    }
}

#[tokio::test]
async fn a_command_that_ran_always_answers_with_its_ref() {
    // Regression (issue 39): a 100,000-char command ran (its side effects happened) and the
    // answer was `invalid_argument` with no ref; `artifacts` then failed until it expired.
    let h = start(Settings::default()).await;
    let command = format!("echo ran # {}", "x".repeat(100_000));
    let r = h.call("run", json!({ "command": command })).await;
    assert_ne!(r.is_error, Some(true), "{}", texts(&r).join("\n"));
    let s = structured(&r);
    assert!(
        s["ref"].as_str().is_some_and(|r| r.starts_with("sp_")),
        "{s}"
    );
    assert!(texts(&r).join("\n").contains("ran"));
    let desc = s["source"]["desc"].as_str().unwrap();
    assert!(desc.contains("chars left out"), "{desc}");
    assert!(desc.chars().count() <= 200, "{desc}");
    let list = h.call("artifacts", json!({})).await;
    assert_ne!(list.is_error, Some(true), "{}", texts(&list).join("\n"));
    assert_eq!(structured(&list)["items"][0]["ref"], s["ref"]);
    // A cap no answer can have is refused before the command runs.
    let r = h
        .call("run", json!({ "command": "echo second", "max_tokens": 1 }))
        .await;
    assert_eq!(r.is_error, Some(true));
    let list = h.call("artifacts", json!({ "kind": "exec" })).await;
    let items = structured(&list)["items"].as_array().unwrap().len();
    assert_eq!(items, 1, "the refused command did not run");
}
