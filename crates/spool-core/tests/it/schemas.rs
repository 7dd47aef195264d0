//! The answers' JSON Schemas, derived from their types, are kept in `docs/schemas/answers.json`:
//! a change of an answer type shows as a change of that file in review, and clients (the
//! Python package's `TypedDict`s, a harness's validator) are held to one file.
//!
//! `SPOOL_WRITE_SCHEMAS=1 cargo test -p spool-core --test it schemas` writes it again.

use std::path::Path;

use serde_json::Value;
use spool_core::answer::schema;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas/answers.json")
}

#[test]
fn the_answer_schemas_are_the_ones_in_docs_schemas_answers_json() {
    let derived = serde_json::to_string_pretty(&Value::Object(schema::all())).unwrap() + "\n";
    let path = fixture();
    if std::env::var_os("SPOOL_WRITE_SCHEMAS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &derived).unwrap();
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == derived,
        "docs/schemas/answers.json is not what the answer types derive; write it again with \
         `SPOOL_WRITE_SCHEMAS=1 cargo test -p spool-core --test it schemas` and review the diff"
    );
}

#[test]
fn each_schema_names_the_fields_its_answers_are_known_to_send() {
    let all = schema::all();
    let props = |name: &str| -> Vec<String> {
        let def = all[name]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/$defs/");
        all["$defs"][def]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    // Fields the hand-written schema had left out (issue 57), and the ones every client reads.
    let envelope = props("envelope");
    for key in [
        "notice",
        "ref",
        "shown",
        "total",
        "complete",
        "next",
        "next_templates",
        "source",
        "capture",
        "found",
        "scope",
        "content",
    ] {
        assert!(
            envelope.contains(&key.to_owned()),
            "envelope lacks {key}: {envelope:?}"
        );
    }
    let search = props("search");
    for key in [
        "notice",
        "hits",
        "windowed_lines",
        "files",
        "files_with_hits",
        "first_file_index",
        "next_cursor",
    ] {
        assert!(
            search.contains(&key.to_owned()),
            "search lacks {key}: {search:?}"
        );
    }
    // A count answer sends files, not hits: both are allowed, one required.
    let def = all["search"]["$ref"]
        .as_str()
        .unwrap()
        .trim_start_matches("#/$defs/");
    let required = &all["$defs"][def]["required"];
    assert!(
        !required.as_array().unwrap().contains(&"hits".into()),
        "{required}"
    );
}
