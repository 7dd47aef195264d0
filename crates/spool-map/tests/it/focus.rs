//! `focus`: the files and symbols a task is about, ranked first; what names nothing, said.

use serde_json::json;
use spool_core::render::Dialect;

use crate::support::{Fixture, codebase, headers};

#[test]
fn a_focus_file_comes_first_and_lists_more() {
    let f = Fixture::new();
    codebase(&f);
    let plain = f.map(json!({ "path": "." })).unwrap();
    assert!(headers(&plain)[0].starts_with("src/store.rs"));
    let focused = f
        .map(json!({ "path": ".", "focus": ["tools/lib.py"] }))
        .unwrap();
    assert_eq!(headers(&focused)[0], "tools/lib.py (2 definitions)");
    assert_ne!(
        focused.reference, plain.reference,
        "another map: another ranking"
    );
    // Its private definition is listed too: the agent asked about the file.
    assert!(focused.content(Dialect::Mcp).contains("def _private():"));
}

#[test]
fn a_focus_symbol_ranks_its_definition_up() {
    let f = Fixture::new();
    codebase(&f);
    let focused = f
        .map(json!({ "path": ".", "focus": ["load_rows"] }))
        .unwrap();
    assert_eq!(headers(&focused)[0], "tools/lib.py (2 definitions)");
    assert!(focused.notes.is_empty(), "{:?}", focused.notes);
}

#[test]
fn a_focus_that_names_nothing_says_so() {
    let f = Fixture::new();
    codebase(&f);
    let e = f
        .map(json!({ "path": ".", "focus": ["NoSuchThing", "src/store.rs"] }))
        .unwrap();
    assert_eq!(
        e.notes,
        ["the focus `NoSuchThing` names no file and no definition of the map"]
    );
    assert!(headers(&e)[0].starts_with("src/store.rs"));
}

#[test]
fn a_cursor_continues_only_the_map_it_came_from() {
    let f = Fixture::new();
    for i in 0..40 {
        f.write(
            &format!("m{i}.rs"),
            format!("pub fn f{i}() {{}}\npub struct S{i};\n"),
        );
    }
    let e = f.map(json!({ "path": ".", "max_tokens": 700 })).unwrap();
    let cursor = e
        .next
        .iter()
        .find_map(|c| c.argument("cursor"))
        .unwrap()
        .clone();
    let other = f
        .map(json!({ "path": ".", "focus": ["m3.rs"], "cursor": cursor, "max_tokens": 700 }))
        .unwrap_err();
    assert_eq!(other.code().as_str(), "invalid_argument");
    assert!(other.to_string().contains("another map"), "{other}");
}

#[test]
fn a_focus_on_a_file_whose_code_is_not_read_says_so_and_leaves_the_ranking_alone() {
    let f = Fixture::new();
    codebase(&f);
    let e = f
        .map(json!({ "path": ".", "focus": ["README.md"] }))
        .unwrap();
    assert!(
        headers(&e)[0].starts_with("src/store.rs"),
        "{:?}",
        headers(&e)
    );
    assert_eq!(
        e.notes,
        [
            "the focus `README.md` is a file whose code the map does not read: it is listed by name, not ranked"
        ]
    );
}

#[test]
fn a_cursor_of_another_spelling_of_the_path_is_refused() {
    let f = Fixture::new();
    for i in 0..40 {
        f.write(
            &format!("src/m{i}.rs"),
            format!("pub fn f{i}() {{}}\npub struct S{i};\n"),
        );
    }
    let plain = f.map(json!({ "path": "src", "max_tokens": 700 })).unwrap();
    let dotted = f
        .map(json!({ "path": "./src", "max_tokens": 700 }))
        .unwrap();
    assert_ne!(
        plain.reference, dotted.reference,
        "each spelling prints its own paths"
    );
    assert!(
        headers(&dotted)[0].starts_with("./src/"),
        "{:?}",
        headers(&dotted)
    );
    let cursor = plain
        .next
        .iter()
        .find_map(|c| c.argument("cursor"))
        .unwrap();
    let refused = f
        .map(json!({ "path": "./src", "cursor": cursor, "max_tokens": 700 }))
        .unwrap_err();
    assert!(refused.to_string().contains("another map"), "{refused}");
}
