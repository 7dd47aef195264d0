//! Tools called by name with JSON arguments (the path of the Python package, MCP and the
//! proxy), and `put`.

use serde_json::{Value, json};
use spool_core::answer::{Answer, rendered};
use spool_core::render::Dialect;
use spool_toolset::{PutParams, Wording};

use crate::support;

/// The tools the core engines answer (`fetch`, `ci_log` and `map` have tests of their own).
const CORE_TOOLS: [&str; 6] = ["read", "search", "query", "list", "artifacts", "run"];

fn envelope(a: Answer) -> spool_core::Envelope {
    match a {
        Answer::Envelope(e) => *e,
        other => panic!("not an envelope: {other:?}"),
    }
}

#[test]
fn put_stores_the_whole_with_the_callers_version_and_its_preview() {
    let t = support::tools(1_000);
    let data = support::numbered_lines(4000);
    let args = json!({"desc": "my_tool q=rows", "version": {"etag": "\"v7\""}, "preview": "tail"});
    let e = envelope(t.set.put(&args, data.as_bytes()).unwrap());
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
    let whole = t.store().open_artifact(&e.reference).unwrap();
    assert_eq!(whole.meta().bytes, data.len() as u64);
}

#[test]
fn every_core_tool_answers_by_name_and_a_read_follows_its_own_next_call() {
    let t = support::tools(1_000);
    let meta = support::put(t.store(), support::numbered_lines(3000).as_bytes());
    let first = envelope(t.call("read", &json!({"ref": meta.reference})).unwrap());
    let next = &first.next[0];
    let args = Value::Object(next.arguments().clone());
    let second = envelope(t.call(next.tool(), &args).unwrap());
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
        let outcome = t.call(tool, &args);
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
    // The set of the core tools, as the old by-name dispatch named them.
    let t = support::tools(1_000);
    let core = spool_toolset::ToolSet::new(spool_toolset::Setup::new(
        std::sync::Arc::clone(t.set.store()),
        spool_walk::roots::Roots::new(&[t.dir.path().to_owned()]).unwrap(),
        |asked: Option<u64>| spool_core::Cap::new(asked.unwrap_or(1_000)),
    ))
    .only(&CORE_TOOLS);
    let mut out = String::new();
    let cases = [
        ("nosuchtool", json!({})),
        ("read", json!({"ref": "sp_x", "lines": 3})),
        ("search", json!({"ref": "sp_x", "pattern": 7})),
        ("run", json!(null)),
    ];
    for (tool, args) in cases {
        let err = core
            .call(
                tool,
                &args,
                spool_toolset::Control::default(),
                Wording::ByPath,
            )
            .unwrap_err();
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
        let err = spool_toolset::parse::<PutParams>(
            "put",
            &args,
            Wording::ByPath,
            &serde_json::Map::new(),
        )
        .unwrap_err();
        out.push_str(&format!(
            "put {args}\n{}\n\n",
            spool_core::render::error_text(&err, Dialect::Mcp)
        ));
    }
    let err = t
        .set
        .put(&json!({"desc": "d", "max_tokens": 10}), b"x")
        .unwrap_err();
    out.push_str(&format!(
        "put max_tokens=10\n{}\n",
        spool_core::render::error_text(&err, Dialect::Mcp)
    ));
    insta::assert_snapshot!("bad_calls_by_name", out);
}

/// The question of the settings page: it describes `MCP_DISCOVERY_CACHE` without naming it.
const QUESTION: &str = "skip connecting to remote servers at startup";

#[test]
fn a_read_takes_words_or_a_pattern_and_refuses_what_does_not_go_with_them() {
    let t = support::tools(8_000);
    let meta = support::put(t.store(), support::settings_page().as_bytes());
    let r = meta.reference.as_str();
    let Answer::Envelope(e) = t
        .call("read", &json!({ "ref": r, "query": QUESTION }))
        .unwrap()
    else {
        panic!("not an envelope")
    };
    assert!(e.found.as_ref().unwrap().best[0].shown);
    let Answer::Envelope(e) = t.call(
        "read",
        &json!({ "ref": r, "pattern": "mcp_discovery", "case_insensitive": true, "preview": "tail" }),
    )
    .unwrap() else {
        panic!("not an envelope")
    };
    assert_eq!(e.found.as_ref().unwrap().hit_count, 1);
    assert_eq!(
        e.shown.last().unwrap().end,
        311,
        "the tail asked for is kept"
    );
    for (args, says) in [
        (
            json!({ "ref": r, "query": "a b", "pattern": "x" }),
            "cannot be asked for together",
        ),
        (
            json!({ "ref": r, "query": "cache", "line": 3 }),
            "not inside a range",
        ),
        (json!({ "ref": r, "literal": true }), "go with a `pattern`"),
        (
            json!({ "ref": r, "query": "cache", "cursor": "c" }),
            "does not go with",
        ),
        (json!({ "ref": r, "pattern": "(" }), "invalid pattern"),
        (
            json!({ "ref": r, "query": "the to at" }),
            "no words to look for",
        ),
    ] {
        let err = t.call("read", &args).unwrap_err();
        assert_eq!(err.code(), spool_core::ErrorCode::InvalidArgument, "{args}");
        assert!(err.to_string().contains(says), "{args}: {err}");
    }
}
