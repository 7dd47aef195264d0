//! Tools called by name with JSON arguments (the Python package's path), and `put`.

use serde_json::{Value, json};
use spool_core::answer::by_name::{self, CORE_TOOLS};
use spool_core::answer::params::PutParams;
use spool_core::answer::{Answer, rendered, tools};
use spool_core::exec::RunControl;
use spool_core::render::Dialect;

use crate::support;

fn control() -> RunControl {
    RunControl {
        cancel: std::sync::Arc::default(),
        progress: None,
        started: None,
    }
}

fn with_cx<T>(t: &support::TestStore, f: impl FnOnce(&tools::Context<'_>) -> T) -> T {
    support::with_cx(&t.store, t.dir.path(), 1_000, f)
}

fn envelope(a: Answer) -> spool_core::Envelope {
    match a {
        Answer::Envelope(e) => *e,
        other => panic!("not an envelope: {other:?}"),
    }
}

#[test]
fn put_stores_the_whole_with_the_callers_version_and_its_preview() {
    let t = support::store();
    let data = support::numbered_lines(4000);
    let p: PutParams = by_name::parse(
        "put",
        &json!({"desc": "my_tool q=rows", "version": {"etag": "\"v7\""}, "preview": "tail"}),
    )
    .unwrap();
    let e = envelope(with_cx(&t, |cx| by_name::put(cx, &p, data.as_bytes())).unwrap());
    assert_eq!(e.total.lines, Some(4000));
    assert!(!e.complete);
    // The tail, as asked: the last line is shown.
    assert_eq!(e.shown.last().unwrap().end, 4000);
    let r = rendered(&Answer::Envelope(Box::new(e.clone())), Dialect::Mcp).unwrap();
    assert_eq!(r.structured["source"]["kind"], "text");
    assert_eq!(r.structured["source"]["version"], json!({"etag": "\"v7\""}));
    assert!(r.text.starts_with("[PARTIAL: lines "), "{}", r.text);
    assert!(r.text.ends_with(&data[data.len() - 200..]));
    // The whole is stored exactly.
    let whole = t.store.open_artifact(&e.reference).unwrap();
    assert_eq!(whole.meta().bytes, data.len() as u64);
}

#[test]
fn every_core_tool_answers_by_name_and_a_read_follows_its_own_next_call() {
    let t = support::store();
    let meta = support::put(&t.store, support::numbered_lines(3000).as_bytes());
    let first = with_cx(&t, |cx| {
        by_name::call(cx, "read", &json!({"ref": meta.reference}), control())
    })
    .unwrap();
    let first = envelope(first);
    let next = &first.next[0];
    let args = Value::Object(next.arguments.clone());
    let second =
        envelope(with_cx(&t, |cx| by_name::call(cx, &next.tool, &args, control())).unwrap());
    assert_eq!(second.shown[0].start, first.shown[0].end + 1);
    for tool in CORE_TOOLS {
        let args = match tool {
            "read" | "artifacts" => json!({}),
            "search" => json!({"ref": meta.reference, "pattern": "line 2999:"}),
            "query" => json!({"ref": meta.reference, "jq": "."}),
            "list" => json!({"path": t.dir.path()}),
            "run" => json!({"command": "echo hi", "cwd": t.dir.path()}),
            _ => unreachable!(),
        };
        let outcome = with_cx(&t, |cx| by_name::call(cx, tool, &args, control()));
        match tool {
            // `read` with neither a ref nor a path, and jq over text that is not JSON, are
            // answered as the errors they are.
            "read" | "query" => assert!(outcome.is_err(), "{tool}"),
            _ => assert!(outcome.is_ok(), "{tool}: {outcome:?}"),
        }
    }
}

#[test]
fn bad_calls_by_name_say_what_is_wrong() {
    let t = support::store();
    let mut out = String::new();
    let cases = [
        ("nosuchtool", json!({})),
        ("read", json!({"ref": "sp_x", "lines": 3})),
        ("search", json!({"ref": "sp_x", "pattern": 7})),
        ("run", json!(null)),
    ];
    for (tool, args) in cases {
        let err = with_cx(&t, |cx| by_name::call(cx, tool, &args, control())).unwrap_err();
        out.push_str(&format!(
            "{tool} {args}\n{}\n\n",
            spool_core::render::error_text(&err, Dialect::Mcp)
        ));
    }
    for args in [
        json!({"desc": "d", "preview": "middle"}),
        json!({"desc": "d", "version": "v1"}),
        json!({"version": {}}),
    ] {
        let err = by_name::parse::<PutParams>("put", &args).unwrap_err();
        out.push_str(&format!(
            "put {args}\n{}\n\n",
            spool_core::render::error_text(&err, Dialect::Mcp)
        ));
    }
    let p: PutParams = by_name::parse("put", &json!({"desc": "d", "max_tokens": 10})).unwrap();
    let err = with_cx(&t, |cx| by_name::put(cx, &p, b"x")).unwrap_err();
    out.push_str(&format!(
        "put max_tokens=10\n{}\n",
        spool_core::render::error_text(&err, Dialect::Mcp)
    ));
    insta::assert_snapshot!("bad_calls_by_name", out);
}
