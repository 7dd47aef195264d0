//! One map of a tree, reused while its files are unchanged; the parse of each file kept by its
//! content; and a map that runs out of time saying so and going on where it stopped.

use std::time::Duration;

use serde_json::json;
use spool_core::envelope::ReasonCode;
use spool_core::render::Dialect;

use crate::support::{Fixture, codebase, scope};

#[test]
fn a_second_map_of_the_unchanged_tree_is_the_same_copy() {
    let f = Fixture::new();
    codebase(&f);
    let first = f.map(json!({ "path": "." })).unwrap();
    let again = f.map(json!({ "path": "." })).unwrap();
    assert_eq!(first.reference, again.reference);
    assert_eq!(f.version(&first).parsed, 5);
}

#[test]
fn a_changed_file_is_parsed_again_and_only_it() {
    let f = Fixture::new();
    codebase(&f);
    let first = f.map(json!({ "path": "." })).unwrap();
    assert_eq!(f.version(&first).parsed, 5);
    f.write(
        "tools/lib.py",
        "def load_rows():\n    return []\n\ndef load_more():\n    pass\n",
    );
    let second = f.map(json!({ "path": "." })).unwrap();
    assert_ne!(second.reference, first.reference);
    assert_eq!(
        f.version(&second).parsed,
        1,
        "the other files came from the cache"
    );
    assert!(second.content(Dialect::Mcp).contains("def load_more():"));
    // A map with another focus ranks again from the cache: nothing is parsed.
    let focused = f.map(json!({ "path": ".", "focus": ["Report"] })).unwrap();
    assert_eq!(f.version(&focused).parsed, 0);
}

#[test]
fn a_map_out_of_time_lists_what_it_did_not_parse_and_the_same_call_goes_on() {
    let mut f = Fixture::new();
    codebase(&f);
    f.budget = Duration::ZERO;
    let late = f.map(json!({ "path": "." })).unwrap();
    assert!(!late.complete);
    assert_eq!(late.reason.as_ref().unwrap().code, ReasonCode::Timeout);
    let s = scope(&late);
    assert_eq!(s.files_skipped.not_parsed, 5, "{s:?}");
    assert!(
        late.content(Dialect::Mcp)
            .contains("src/store.rs (not parsed in time)")
    );
    assert!(
        late.notes.iter().any(|n| n.contains("parses on")),
        "{:?}",
        late.notes
    );
    // The first call offered is the same map again, which parses on.
    assert_eq!(late.next[0].tool(), "map");
    assert!(!late.next[0].arguments().contains_key("cursor"));
    f.budget = Duration::from_secs(10);
    let done = f
        .map(serde_json::Value::Object(late.next[0].arguments().clone()))
        .unwrap();
    assert!(done.complete, "{done:?}");
    assert_ne!(
        done.reference, late.reference,
        "a map out of time is not reused"
    );
}

/// Review (issue 38): a stored map was reused for the same mapped files whatever else changed
/// beside them: a new ignored file left it saying the count of before. It is reused only
/// while its left-out counts still hold.
#[test]
fn a_map_is_not_reused_once_what_it_left_out_changed() {
    let f = Fixture::new();
    codebase(&f);
    f.write(".gitignore", "build/\n");
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(f.path("."))
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    crate::support::settle();
    let first = f.map(json!({ "path": "." })).unwrap();
    assert_eq!(scope(&first).files_skipped.ignored, Some(0));
    let again = f.map(json!({ "path": "." })).unwrap();
    assert_eq!(again.reference, first.reference, "nothing changed: reused");
    f.write("build/out.rs", "fn generated() {}\n");
    crate::support::settle();
    let after = f.map(json!({ "path": "." })).unwrap();
    assert_ne!(after.reference, first.reference);
    assert_eq!(scope(&after).files_skipped.ignored, Some(1));
}
