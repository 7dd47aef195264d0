//! Every `next` call of every MCP answer runs as given, through the real rmcp client: the
//! continuation of a read, a search, a listing and a page of artifacts, and the calls their
//! answers give in turn.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};
use spool_mcp::Settings;

use crate::support::{start, structured, texts};

/// The `next` calls of a structured answer (an envelope, a search answer or a page), then its
/// `next_templates` with their blank filled in. A `next` call never holds a blank.
fn next_calls(v: &Value) -> Vec<(String, Value)> {
    let calls = |key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| {
                Some((
                    c.get("tool")?.as_str()?.to_owned(),
                    c.get("arguments")?.clone(),
                ))
            })
            .collect::<Vec<_>>()
    };
    let mut out = calls("next");
    for (tool, args) in &out {
        assert!(
            !args
                .as_object()
                .is_some_and(|a| a.values().any(|v| v == "<regex>")),
            "a `next` call of {tool} holds a blank: {args}"
        );
    }
    for (tool, mut args) in calls("next_templates") {
        // The one blank: the pattern of a search the model chooses.
        assert_eq!(
            args["pattern"], "<regex>",
            "a template without its blank: {args}"
        );
        args["pattern"] = json!("status");
        out.push((tool, args));
    }
    out
}

#[tokio::test]
async fn every_next_call_of_every_answer_runs_through_a_real_client() {
    let h = start(Settings::default()).await;
    let mut log = String::new();
    for i in 1..=3000 {
        let status = if i % 7 == 0 { 504 } else { 200 };
        let _ = writeln!(log, "t={i} GET /api/{i} status={status}");
    }
    h.write("svc/app.log", log.as_bytes());
    h.write(
        "svc/deep/notes.txt",
        "status=504 noted\n".repeat(30).as_bytes(),
    );
    h.write("one-line.txt", "y".repeat(300_000).as_bytes());
    let first: Vec<(&str, Value)> = vec![
        ("run", json!({ "argv": ["seq", "1", "100000"] })),
        ("run", json!({ "command": "seq 1 3000; exit 2" })),
        ("read", json!({ "path": "svc/app.log" })),
        (
            "read",
            json!({ "path": "svc/app.log", "line": 10, "limit": 5 }),
        ),
        (
            "read",
            json!({ "path": "svc/app.log", "char_offset": 0, "max_chars": 100 }),
        ),
        (
            "read",
            json!({ "path": "svc/app.log", "byte_offset": 0, "max_bytes": 64 }),
        ),
        ("read", json!({ "path": "one-line.txt" })),
        (
            "search",
            json!({ "pattern": "STATUS=504", "path": "svc", "case_insensitive": true,
                           "context": 1, "glob": ["*.log"], "limit": 2 }),
        ),
        (
            "search",
            json!({ "pattern": "status=504", "path": "svc/app.log", "literal": true, "limit": 3 }),
        ),
        ("list", json!({ "path": "svc", "limit": 1 })),
        (
            "list",
            json!({ "path": "svc", "recursive": true, "limit": 1 }),
        ),
        ("artifacts", json!({ "limit": 1 })),
        (
            "search",
            json!({ "query": "which GET api status", "path": "svc/app.log", "limit": 2 }),
        ),
        (
            "read",
            json!({ "path": "svc/app.log", "query": "status 504 api", "max_tokens": 1500 }),
        ),
        (
            "read",
            json!({ "path": "svc/app.log", "pattern": "status=504", "literal": true }),
        ),
        (
            "search",
            json!({ "query": "status noted", "path": "svc", "limit": 1 }),
        ),
    ];
    let mut queue: Vec<(String, Value, String)> = Vec::new();
    for (tool, args) in &first {
        let r = h.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(false), "{tool} {args}: {:?}", texts(&r));
        for (t, a) in next_calls(structured(&r)) {
            queue.push((t, a, format!("{tool} {args}")));
        }
    }
    // jq over a stored JSON list, its output too long for one answer.
    let rows: Vec<Value> = (0..3000)
        .map(|i| json!({ "id": i, "ok": i % 3 == 0 }))
        .collect();
    h.write("rows.json", serde_json::to_vec(&rows).unwrap().as_slice());
    let stored = h.call("read", json!({ "path": "rows.json" })).await;
    let rows_ref = structured(&stored)["ref"].clone();
    let args = json!({ "ref": rows_ref, "jq": ".[] | select(.ok) | .id", "max_tokens": 1000 });
    let r = h.call("query", args.clone()).await;
    assert_eq!(r.is_error, Some(false), "{:?}", texts(&r));
    assert_eq!(structured(&r)["complete"], false);
    for (t, a) in next_calls(structured(&r)) {
        queue.push((t, a, format!("query {args}")));
    }
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for depth in 0..2 {
        let mut more = Vec::new();
        for (tool, args, from) in std::mem::take(&mut queue) {
            if !seen.insert(format!("{tool} {args}")) {
                continue;
            }
            let r = h.call_owned(tool.clone(), args.clone()).await;
            ran += 1;
            if r.is_error != Some(false) {
                failures.push(format!("{tool} {args} (from {from}): {:?}", texts(&r)));
                continue;
            }
            if depth == 0 {
                for (t, a) in next_calls(structured(&r)) {
                    more.push((t, a, format!("{tool} {args}")));
                }
            }
        }
        queue = more;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        seen.iter()
            .any(|c| c.starts_with("search") && c.contains("\"query\"") && c.contains("cursor")),
        "no continued word search among {seen:#?}"
    );
    for tool in ["read", "search", "list", "artifacts"] {
        assert!(
            seen.iter().any(|c| c.starts_with(tool)),
            "no `next` call of `{tool}` among {seen:#?}"
        );
    }
    // A search's continuation keeps every argument that shaped it.
    let kept = seen
        .iter()
        .find(|c| c.starts_with("search") && c.contains("cursor") && c.contains("glob"))
        .unwrap_or_else(|| panic!("no continued directory search among {seen:#?}"));
    for arg in ["case_insensitive", "context", "limit", "glob"] {
        assert!(kept.contains(arg), "{arg} dropped from {kept}");
    }
    assert!(ran >= 25, "only {ran} next calls ran: {seen:#?}");
}
