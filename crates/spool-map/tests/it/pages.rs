//! What a map lists and how its pages go: every file once, in rank order, pages ending between
//! files, a file's outline whole, and the version a checkout pins.

use serde_json::json;
use spool_core::envelope::ReasonCode;
use spool_core::render::Dialect;

use spool_test_support::git::{commit_all, git};

use crate::support::{Fixture, codebase, headers, scope};

#[test]
fn a_small_tree_maps_whole_the_file_others_use_first_and_every_file_once() {
    let f = Fixture::new();
    codebase(&f);
    let e = f.map(json!({ "path": "." })).unwrap();
    assert!(e.complete, "{e:?}");
    assert_eq!(e.reason, None);
    let content = e.content(Dialect::Mcp);
    let h = headers(&e);
    assert_eq!(h[0], "src/store.rs (4 definitions)", "{content}");
    // The method under its block, by the line that names it.
    assert!(
        content.contains("   5: impl Store {\n   6:     pub fn open(root: &str) -> Store {\n"),
        "{content}"
    );
    assert!(h.contains(&"README.md (no grammar)".to_owned()), "{h:?}");
    assert!(
        h.contains(&"assets/logo.png (no grammar)".to_owned()),
        "{h:?}"
    );
    assert_eq!(h.len(), 7, "{h:?}");
    let s = scope(&e);
    assert_eq!((s.files_counted, s.files_mapped), (7, 5));
    assert_eq!(s.files_skipped.no_grammar, 2);
    assert_eq!((s.files_shown.start, s.files_shown.end), (1, 7));
    assert_eq!(s.definitions, s.definitions_listed);
    // Nothing refers to `unused_helper` and `_private`: they come last in their files' lists,
    // but a whole map lists them.
    assert!(content.contains("fn unused_helper()"), "{content}");
}

#[test]
fn pages_end_between_files_and_the_cursor_reaches_every_file_once() {
    let f = Fixture::new();
    let mut expected = Vec::new();
    for i in 0..60 {
        let uses: String = (0..i).fold(String::new(), |mut out, j| {
            out.push_str(&format!("    thing_{j}();\n"));
            out
        });
        f.write(
            &format!("src/m{i:02}.rs"),
            format!(
                "pub fn thing_{i}() {{\n{uses}}}\npub struct Kind{i};\npub const LIMIT_{i}: u32 = {i};\n"
            ),
        );
        expected.push(format!("src/m{i:02}.rs"));
    }
    let mut e = f.map(json!({ "path": ".", "max_tokens": 700 })).unwrap();
    assert!(!e.complete);
    assert_eq!(e.reason.as_ref().unwrap().code, ReasonCode::TokenCap);
    let mut seen: Vec<String> = Vec::new();
    let mut pages = 0;
    loop {
        pages += 1;
        let content = e.content(Dialect::Mcp);
        // A page starts with a file's first line and holds whole blocks.
        assert!(!content.starts_with(' '), "{content}");
        let s = scope(&e);
        assert_eq!(s.files_shown.start, seen.len() as u64 + 1);
        let on_page: Vec<String> = headers(&e)
            .into_iter()
            .map(|h| h.split(" (").next().unwrap().to_owned())
            .collect();
        assert_eq!(s.files_shown.end, seen.len() as u64 + on_page.len() as u64);
        seen.extend(on_page);
        let Some(next) = e
            .next
            .iter()
            .find(|c| c.tool() == "map" && c.arguments().contains_key("cursor"))
        else {
            break;
        };
        // The next page keeps the cap asked for.
        assert_eq!(next.arguments()["max_tokens"], 700);
        e = f
            .map(serde_json::Value::Object(next.arguments().clone()))
            .unwrap();
        assert!(pages < 100);
    }
    assert!(pages > 2, "{pages}");
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(sorted, expected, "every file once");
    // The most used definition's file is on the first page: `thing_0` is called by all.
    assert_eq!(seen[0], "src/m00.rs");
}

#[test]
fn a_larger_budget_and_a_search_are_offered_and_work() {
    let f = Fixture::new();
    for i in 0..40 {
        f.write(
            &format!("lib/f{i}.py"),
            format!("def fn_{i}():\n    return fn_0()\n"),
        );
    }
    crate::support::settle();
    let e = f.map(json!({ "path": "lib", "max_tokens": 700 })).unwrap();
    let larger = e
        .next
        .iter()
        .find(|c| c.tool() == "map" && c.arguments().get("max_tokens") == Some(&json!(2800)))
        .expect("a larger budget");
    let bigger = f
        .map(serde_json::Value::Object(larger.arguments().clone()))
        .unwrap();
    assert!(scope(&bigger).files_shown.end > scope(&e).files_shown.end);
    assert_eq!(bigger.reference, e.reference, "the same stored map");
    assert!(e.next.iter().all(|c| c.tool() != "search"), "{:?}", e.next);
    let search = e
        .next_templates
        .iter()
        .find(|c| c.tool() == "search")
        .unwrap();
    assert_eq!(search.arguments()["path"], "lib");
}

#[test]
fn a_file_maps_as_its_outline_every_definition_listed() {
    let f = Fixture::new();
    codebase(&f);
    let e = f.map(json!({ "path": "src/store.rs" })).unwrap();
    assert!(e.complete, "{e:?}");
    let content = e.content(Dialect::Mcp);
    assert_eq!(
        content,
        "src/store.rs (4 definitions)\n   1: pub struct Store {\n   5: impl Store {\n   6:     pub fn open(root: &str) -> Store {\n  10:     pub fn put(&self, bytes: &[u8]) -> usize {\n  15: fn unused_helper() {}\n"
    );
    assert_eq!(scope(&e).files_counted, 1);
}

#[test]
fn a_checkout_is_pinned_to_its_commit_and_a_change_is_a_new_dirty_map() {
    let f = Fixture::new();
    codebase(&f);
    let head = commit_all(f.root.path());
    assert_eq!(git(f.root.path(), &["status", "--porcelain"]), "");
    let clean = f.map(json!({})).unwrap();
    let v = &scope(&clean).version;
    assert_eq!(v.commit.as_deref(), Some(head.as_str()));
    assert_eq!(v.dirty, Some(false));
    // A clean checkout is pinned by its commit alone.
    assert_eq!(v.files_digest, "");
    assert_eq!(
        clean.source.version.map().unwrap().commit.as_deref(),
        Some(head.as_str())
    );
    f.write("src/cli.rs", "pub fn run() {}\n");
    let dirty = f.map(json!({})).unwrap();
    assert_ne!(dirty.reference, clean.reference);
    let v = &scope(&dirty).version;
    assert_eq!(v.dirty, Some(true));
    assert!(v.files_digest.starts_with("sha256:"), "{v:?}");
    // Committed, the same files: the dirty map is not reused (regression: it stated the old
    // commit and `dirty: true` for a clean checkout).
    let committed = commit_all(f.root.path());
    let again = f.map(json!({})).unwrap();
    let v = &scope(&again).version;
    assert_eq!(v.commit.as_deref(), Some(committed.as_str()));
    assert_eq!(v.dirty, Some(false));
}

#[test]
fn a_map_of_one_changed_file_says_dirty() {
    // Regression (issue 39): a single file's index entry was looked for under `file/`, none
    // was found, and a changed file's map said `dirty: false`.
    let f = Fixture::new();
    codebase(&f);
    commit_all(f.root.path());
    let clean = f.map(json!({ "path": "src/cli.rs" })).unwrap();
    assert_eq!(scope(&clean).version.dirty, Some(false));
    crate::support::settle();
    f.write("src/cli.rs", "pub fn run() {}\npub fn more() {}\n");
    crate::support::settle();
    let changed = f.map(json!({ "path": "src/cli.rs" })).unwrap();
    assert_ne!(changed.reference, clean.reference);
    assert_eq!(scope(&changed).version.dirty, Some(true));
    // git agrees: the independent truth.
    assert!(
        git(f.root.path(), &["status", "--porcelain"]).contains("src/cli.rs"),
        "git sees the change"
    );
    // An untracked file differs from the commit too.
    f.write("src/new.rs", "pub fn fresh() {}\n");
    crate::support::settle();
    let untracked = f.map(json!({ "path": "src/new.rs" })).unwrap();
    assert_eq!(scope(&untracked).version.dirty, Some(true));
}
