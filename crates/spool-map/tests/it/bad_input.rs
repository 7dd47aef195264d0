//! What a map refuses and what it lists without reading: paths outside the roots, forged
//! cursors, caps too small; binary, huge, unparsable and special files; links out of the tree.

use std::time::Duration;

use serde_json::json;
use spool_core::envelope::ReasonCode;
use spool_core::render::Dialect;
use spool_core::{Store, StoreConfig};

use crate::support::{Fixture, codebase, headers, scope};

#[test]
fn outside_the_roots_missing_and_too_small_a_cap_are_refused_clearly() {
    let f = Fixture::new();
    codebase(&f);
    let outside = f.map(json!({ "path": "/etc" })).unwrap_err();
    assert_eq!(outside.code().as_str(), "forbidden", "{outside}");
    let escape = f.map(json!({ "path": "../.." })).unwrap_err();
    assert_eq!(escape.code().as_str(), "forbidden", "{escape}");
    let missing = f.map(json!({ "path": "no/such/dir" })).unwrap_err();
    assert_eq!(missing.code().as_str(), "not_found", "{missing}");
    let small = f
        .map(json!({ "path": ".", "max_tokens": 100 }))
        .unwrap_err();
    assert_eq!(small.code().as_str(), "invalid_argument", "{small}");
    // The store still answers.
    assert!(f.map(json!({ "path": "." })).unwrap().complete);
}

/// Regression (issue 58): 100,000 focus names were refused as "`max_tokens` 1024 leaves no
/// room (889269 tokens)", blaming a cap nobody set. The error names `focus` and its size.
#[test]
fn a_focus_list_too_long_to_echo_is_named_with_its_size() {
    let f = Fixture::new();
    codebase(&f);
    let names: Vec<String> = (0..100_000).map(|i| format!("name_{i}")).collect();
    let err = f.map(json!({ "path": ".", "focus": names })).unwrap_err();
    assert_eq!(err.code().as_str(), "invalid_argument", "{err}");
    let said = format!("{err}\n{}", err.hint(Dialect::Mcp).unwrap_or_default());
    assert!(said.starts_with("`focus` (100,000 names, "), "{said}");
    assert!(
        !said.contains("leaves no room (") && said.contains("1,024 tokens"),
        "{said}"
    );
    insta::assert_snapshot!("focus_too_long_to_echo", said);
    // A focus that fits still maps, and a larger cap takes a longer list.
    assert!(f.map(json!({ "path": ".", "focus": ["main"] })).is_ok());
    let longer: Vec<String> = (0..300).map(|i| format!("name_{i}")).collect();
    assert!(f.map(json!({ "path": ".", "focus": longer })).is_err());
    let larger = f.map(json!({ "path": ".", "focus": longer, "max_tokens": 32_000 }));
    assert!(larger.is_ok(), "{:?}", larger.err());
}

#[test]
fn a_forged_or_foreign_cursor_is_a_clear_error() {
    let f = Fixture::new();
    codebase(&f);
    let forged = f
        .map(json!({ "path": ".", "cursor": "WyJtYXAiLCJzcF94IiwxLDBd.AAAAAAAAAAAAAAAAAAAAAA" }))
        .unwrap_err();
    assert_eq!(forged.code().as_str(), "invalid_argument");
    assert!(
        forged.to_string().contains("cursor is not valid"),
        "{forged}"
    );
    let garbage = f.map(json!({ "path": ".", "cursor": "nope" })).unwrap_err();
    assert_eq!(garbage.code().as_str(), "invalid_argument");
    // A genuine cursor of another store's map does not verify here.
    let other = Fixture::new();
    for i in 0..40 {
        other.write(&format!("m{i}.rs"), format!("pub fn f{i}() {{}}\n"));
    }
    let e = other
        .map(json!({ "path": ".", "max_tokens": 700 }))
        .unwrap();
    let cursor = e.next.iter().find_map(|c| c.argument("cursor")).unwrap();
    let foreign = f
        .map(json!({ "path": ".", "cursor": cursor, "max_tokens": 700 }))
        .unwrap_err();
    assert_eq!(foreign.code().as_str(), "invalid_argument");
}

#[test]
fn binary_huge_unparsable_and_special_files_are_listed_by_why() {
    let f = Fixture::new();
    codebase(&f);
    f.write("src/blob.rs", b"pub fn a() {}\0\0\x01binary");
    f.write(
        "src/generated.rs",
        "pub const X: u8 = 0;\n".repeat(60_000).as_bytes(),
    );
    f.write(
        "tools/template.py",
        "{% for x in rows %}\n  {{ x | safe }}\n{% endfor %}\n",
    );
    f.write("src/broken.rs", "pub fn ok() {}\nfn broken( {\n");
    let fifo = std::process::Command::new("mkfifo")
        .arg(f.path("src/pipe.rs"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let e = f.map(json!({ "path": "." })).unwrap();
    let h = headers(&e);
    assert!(h.contains(&"src/blob.rs (binary)".to_owned()), "{h:?}");
    assert!(
        h.contains(&"src/generated.rs (too large: 1.2 MiB)".to_owned()),
        "{h:?}"
    );
    assert!(
        h.contains(&"tools/template.py (unparsable)".to_owned()),
        "{h:?}"
    );
    // Errors in part of a file: what parsed is mapped.
    assert!(h.iter().any(|l| l.starts_with("src/broken.rs (")), "{h:?}");
    assert!(e.content(Dialect::Mcp).contains("pub fn ok() {}"));
    // The FIFO is no regular file: never opened (the map would hang), not listed.
    assert!(!h.iter().any(|l| l.contains("pipe.rs")), "{h:?}");
    let s = scope(&e);
    assert_eq!(
        (
            s.files_skipped.binary,
            s.files_skipped.too_large,
            s.files_skipped.unparsable
        ),
        (1, 1, 1)
    );
    // Code not read: the map is not complete, and says why.
    assert!(!e.complete);
    let reason = e.reason.as_ref().unwrap();
    assert_eq!(reason.code, ReasonCode::SizeCap);
    assert!(
        reason.detail.contains("were not parsed"),
        "{}",
        reason.detail
    );
}

#[test]
fn a_link_out_of_the_tree_is_not_followed() {
    let f = Fixture::new();
    codebase(&f);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.rs"), "pub fn secret_fn() {}\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), f.path("src/elsewhere")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.rs"), f.path("src/alias.rs")).unwrap();
    let e = f.map(json!({ "path": "." })).unwrap();
    let content = e.content(Dialect::Mcp);
    assert!(!content.contains("secret"), "{content}");
    assert_eq!(scope(&e).files_counted, 7);
    // A link out of the roots is refused as the path to map.
    std::os::unix::fs::symlink(outside.path(), f.path("out")).unwrap();
    let refused = f.map(json!({ "path": "out" })).unwrap_err();
    assert_eq!(refused.code().as_str(), "forbidden", "{refused}");
}

#[test]
fn an_expired_map_says_what_it_was_and_how_to_make_it_again() {
    let home = tempfile::tempdir().unwrap();
    let mut f = Fixture::new();
    f.store = Store::open(
        home.path(),
        StoreConfig {
            ttl: Duration::from_secs(1),
            ..StoreConfig::default()
        },
    )
    .unwrap();
    for i in 0..40 {
        f.write(
            &format!("m{i}.rs"),
            format!("pub fn f{i}() {{}}\npub struct S{i};\n"),
        );
    }
    let e = f.map(json!({ "path": ".", "max_tokens": 700 })).unwrap();
    let next = e
        .next
        .iter()
        .find(|c| c.arguments().contains_key("cursor"))
        .unwrap()
        .clone();
    std::thread::sleep(Duration::from_millis(1300));
    let expired = f
        .map(serde_json::Value::Object(next.arguments()))
        .unwrap_err();
    assert_eq!(expired.code().as_str(), "expired", "{expired}");
    let hint = expired.hint(Dialect::Mcp).unwrap();
    assert!(hint.contains("map path=."), "{hint}");
}

#[test]
fn a_line_longer_than_an_answer_is_shown_in_part_and_never_called_complete() {
    let f = Fixture::new();
    // Names that tokenize badly (no words): one header line holds more than an answer's room.
    let mut seed = 7u64;
    let mut name = || -> String {
        (0..240)
            .map(|_| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                char::from(b"abcdefghijklmnopqrstuvwxyz0123456789"[(seed >> 33) as usize % 36])
            })
            .collect()
    };
    let deep = format!("{}/{}/{}", name(), name(), name());
    for i in 0..3 {
        f.write(&format!("{deep}/{}{i}.py", name()), "def f():\n    pass\n");
    }
    f.write("z.py", "def z():\n    pass\n");
    let e = f.map(json!({ "path": "." })).unwrap();
    assert!(!e.complete, "{e:?}");
    assert_eq!(e.reason.as_ref().unwrap().code, ReasonCode::TokenCap);
    assert_eq!(e.shown[0].unit, spool_core::envelope::Unit::Chars);
    // First the rest of that line, by chars; then the map's next file.
    assert_eq!(e.next[0].tool(), "read");
    assert!(e.next[0].arguments().contains_key("char_offset"));
    let cursor = e
        .next
        .iter()
        .find(|c| c.tool() == "map" && c.arguments().contains_key("cursor"))
        .unwrap();
    let after = f
        .map(serde_json::Value::Object(cursor.arguments().clone()))
        .unwrap();
    // The map goes on at the next line: the rest of that file's block.
    let s = scope(&after);
    assert_eq!((s.files_shown.start, after.shown[0].start), (1, 2), "{s:?}");
    assert!(after.content(Dialect::Mcp).starts_with("  1: def f():"));
    assert!(
        spool_core::render::banner(&e, Dialect::Mcp).contains("part of one line"),
        "{}",
        spool_core::render::banner(&e, Dialect::Mcp)
    );
}

#[test]
fn two_names_that_read_the_same_are_two_files_not_a_timeout() {
    use std::os::unix::ffi::OsStrExt as _;
    let f = Fixture::new();
    for (byte, name) in [(0xffu8, "one"), (0xfe, "two")] {
        let mut raw = b"a".to_vec();
        raw.push(byte);
        raw.extend_from_slice(b".py");
        let path = f.root.path().join(std::ffi::OsStr::from_bytes(&raw));
        std::fs::write(path, format!("def {name}():\n    pass\n")).unwrap();
    }
    let e = f.map(json!({ "path": "." })).unwrap();
    assert!(e.complete, "{e:?}");
    let content = e.content(Dialect::Mcp);
    assert!(
        content.contains("def one():") && content.contains("def two():"),
        "{content}"
    );
}

#[test]
fn a_fifo_named_as_the_path_is_refused_not_mapped_as_nothing() {
    let f = Fixture::new();
    let fifo = std::process::Command::new("mkfifo")
        .arg(f.path("pipe.py"))
        .status()
        .unwrap();
    assert!(fifo.success());
    let refused = f.map(json!({ "path": "pipe.py" })).unwrap_err();
    assert!(
        matches!(refused.code().as_str(), "forbidden" | "invalid_argument"),
        "{refused}"
    );
}
