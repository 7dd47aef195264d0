//! Every error a model can meet, as it reads them (issue 41: 9 of 10 agent-facing error
//! messages sampled were in no snapshot, so a change of their words went unseen). One call per
//! error, through the tool table as MCP calls it (arguments checked against the schema), each
//! rendered in the MCP dialect and the CLI's: a change to any message or hint shows here.

use serde_json::{Value, json};
use spool_core::render::{Dialect, error_text};
use spool_toolset::{Control, Wording};

use crate::support;

#[test]
fn every_error_a_model_can_meet_says_what_is_wrong_and_what_to_do() {
    let t = support::tools(8_000);
    let root = t.dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "alpha\nbeta\n").unwrap();
    support::settle();
    let text = support::put(t.store(), support::numbered_lines(3000).as_bytes()).reference;
    let long_focus: Vec<String> = (0..300).map(|i| format!("name_{i}")).collect();
    let cases: Vec<(&str, Value)> = vec![
        ("nosuchtool", json!({})),
        ("read", json!({ "ref": "sp_aaaaaaaaaa" })),
        ("read", json!({ "ref": text, "line": 5000 })),
        ("read", json!({ "ref": text, "lines": 3 })),
        ("read", json!({ "ref": text, "max_tokens": 5 })),
        ("read", json!({ "ref": text, "cursor": "abc.def" })),
        ("read", json!({})),
        ("read", json!({ "path": "/etc/hostname" })),
        ("read", json!({ "path": root.join("missing.txt") })),
        ("search", json!({ "ref": text })),
        ("search", json!({ "ref": text, "pattern": 7 })),
        ("search", json!({ "ref": text, "pattern": "(oops" })),
        ("search", json!({ "ref": text, "pattern": "<regex>" })),
        (
            "search",
            json!({ "path": root, "pattern": r"(?i)\p{L}{2000}" }),
        ),
        ("query", json!({ "ref": text, "jq": "." })),
        ("query", json!({ "ref": text, "jq": "map(" })),
        ("list", json!({ "path": "/" })),
        ("list", json!({ "path": root, "cursor": "zzz" })),
        ("run", json!({ "command": "true", "timeout_s": -1 })),
        ("run", json!({ "argv": [] })),
        ("run", json!({ "command": "true", "cwd": "/" })),
        ("artifacts", json!({ "kind": "nope" })),
        ("map", json!({ "path": root.join("no/such") })),
        ("map", json!({ "path": root, "focus": long_focus })),
        ("fetch", json!({ "url": "not a url" })),
        ("fetch", json!({ "url": "http://127.0.0.1:9/" })),
    ];
    let mut mcp = String::new();
    let mut cli = String::new();
    for (tool, args) in cases {
        let outcome = t
            .set
            .call(tool, &args, Control::default(), Wording::BySchema);
        let Err(err) = outcome else {
            panic!("{tool} {args}: answered, not an error");
        };
        let mut shown = args.to_string().replace(root.to_str().unwrap(), "[ROOT]");
        if shown.len() > 120 {
            shown = format!("{}... ({} chars)", &shown[..100], shown.len());
        }
        for (out, dialect) in [(&mut mcp, Dialect::Mcp), (&mut cli, Dialect::Cli)] {
            let said = error_text(&err, dialect).replace(root.to_str().unwrap(), "[ROOT]");
            // Each names what to do: a hint, or a message that is the remedy itself.
            out.push_str(&format!("{tool} {shown}\n{said}\n\n"));
        }
        assert!(
            err.hint(Dialect::Mcp).is_some() || err.code().as_str() == "invalid_argument",
            "{tool} {shown}: no hint"
        );
    }
    spool_test_support::hosts::snapshot_settings().bind(|| {
        insta::assert_snapshot!("errors_mcp", mcp);
        insta::assert_snapshot!("errors_cli", cli);
    });
}
