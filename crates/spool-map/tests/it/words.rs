//! Every string a map answer shows the model, as snapshots: the banner of a whole map and of a
//! page, in the MCP and the CLI dialect, and the errors.

use serde_json::json;
use spool_core::render::{Dialect, envelope_text, error_text};

use crate::support::{Fixture, codebase};

fn settings() -> insta::Settings {
    let mut s = spool_test_support::hosts::snapshot_settings();
    s.add_filter(r"commit [0-9a-f]{12}", "commit [HASH]");
    s.add_filter(r"--cursor [A-Za-z0-9_.\-]{20,}", "--cursor [CURSOR]");
    s
}

#[test]
fn a_whole_map_in_words() {
    let f = Fixture::new();
    codebase(&f);
    let e = f.map(json!({ "path": "." })).unwrap();
    settings().bind(|| {
        insta::assert_snapshot!("whole_mcp", envelope_text(&e, Dialect::Mcp));
        insta::assert_snapshot!("whole_cli", envelope_text(&e, Dialect::Cli));
    });
}

#[test]
fn a_page_of_a_map_in_words() {
    let f = Fixture::new();
    for i in 0..30 {
        f.write(
            &format!("src/part_{i:02}.rs"),
            format!("pub fn step_{i}() {{\n    step_0();\n}}\npub struct Part{i};\n"),
        );
    }
    f.write("docs/guide.md", "# guide\n");
    let first = f.map(json!({ "path": "src", "max_tokens": 700 })).unwrap();
    let next = first
        .next
        .iter()
        .find(|c| c.arguments().contains_key("cursor"))
        .unwrap();
    let second = f
        .map(serde_json::Value::Object(next.arguments().clone()))
        .unwrap();
    let focus = f
        .map(json!({ "path": "src", "focus": ["Nowhere"], "max_tokens": 700 }))
        .unwrap();
    settings().bind(|| {
        insta::assert_snapshot!("page_mcp", envelope_text(&first, Dialect::Mcp));
        insta::assert_snapshot!("page_cli", envelope_text(&first, Dialect::Cli));
        insta::assert_snapshot!("second_page_mcp", envelope_text(&second, Dialect::Mcp));
        insta::assert_snapshot!(
            "focus_names_nothing",
            spool_core::render::banner(&focus, Dialect::Mcp)
        );
    });
}

#[test]
fn a_map_s_errors_in_words() {
    let f = Fixture::new();
    codebase(&f);
    let errors = [
        f.map(json!({ "path": "/etc" })).unwrap_err(),
        f.map(json!({ "path": "nowhere" })).unwrap_err(),
        f.map(json!({ "path": ".", "cursor": "nope" })).unwrap_err(),
        f.map(json!({ "path": ".", "max_tokens": 100 }))
            .unwrap_err(),
    ];
    let text: Vec<String> = errors
        .iter()
        .flat_map(|e| [error_text(e, Dialect::Mcp), error_text(e, Dialect::Cli)])
        .collect();
    settings().bind(|| {
        insta::assert_snapshot!("errors", text.join("\n\n"));
    });
}
