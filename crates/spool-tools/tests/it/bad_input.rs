//! Bad input gets a clear error with the right exit code, and loses nothing.

use insta::assert_snapshot;

use crate::support::{Home, reference_of, settings, transcript};

#[test]
fn errors_have_codes_and_hints() {
    let home = Home::new();
    let out = home.run(&["run", "--", "sh", "-c", "seq 1 10"]);
    let reference = reference_of(&out);
    let cases: Vec<(&str, Vec<String>, i32)> = vec![
        (
            "past the end",
            vec![
                "read".into(),
                reference.clone(),
                "--lines".into(),
                "11:20".into(),
            ],
            6,
        ),
        (
            "bad regex",
            vec!["search".into(), "(oops".into(), reference.clone()],
            6,
        ),
        (
            "unknown ref",
            vec!["read".into(), "sp_nosuchthing".into()],
            3,
        ),
        (
            "missing file",
            vec!["read".into(), "/no/such/file.txt".into()],
            3,
        ),
        (
            "forged cursor",
            vec![
                "search".into(),
                "1".into(),
                reference.clone(),
                "--cursor".into(),
                "abc.def".into(),
            ],
            6,
        ),
        (
            "bad span",
            vec![
                "read".into(),
                reference.clone(),
                "--lines".into(),
                "9:3".into(),
            ],
            6,
        ),
    ];
    let mut all = String::new();
    for (name, args, code) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = home.run(&args);
        assert_eq!(out.status.code(), Some(code), "{name}");
        all.push_str(&format!("## {name}\n{}\n", transcript(&out)));
    }
    settings(&home).bind(|| assert_snapshot!(all));
    // Nothing was lost: the artifact still reads whole.
    let e = home.json(&["read", &reference]);
    assert_eq!(e["complete"], true);
    assert_eq!(e["total"]["lines"], 10);
}

#[test]
fn json_errors_are_the_contract_error_object() {
    let home = Home::new();
    let e = home.json(&["read", "sp_nosuchthing"]);
    assert_eq!(e["error"]["code"], "not_found");
    assert!(e["error"]["hint"].as_str().unwrap().contains("artifacts"));
}

#[test]
fn an_unwritable_home_is_a_clear_error() {
    let home = Home::new();
    let blocker = home.file("blocker", b"a file, not a directory");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_spool"))
        .args(["artifacts"])
        .env("SPOOL_HOME", blocker.join("home"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot open the store at"), "{err}");
    assert!(err.contains("hint: set `SPOOL_HOME`"), "{err}");
}

#[test]
fn invalid_utf8_and_a_giant_line_are_read_and_searched() {
    let home = Home::new();
    let mut content = b"caf\xe9 ok\n".to_vec();
    content.extend(std::iter::repeat_n(b'q', 3_000_000));
    content.extend_from_slice(b"MARK\n");
    let path = home.file("odd.bin.txt", &content);
    let p = path.to_str().unwrap();
    let head = home.json(&["read", p, "--lines", "1:1"]);
    assert_eq!(head["content"], "caf\u{fffd} ok\n");
    let long = home.json(&["read", p, "--lines", "2:2"]);
    assert_eq!(long["shown"][0]["unit"], "chars");
    let hit = home.json(&["search", "MARK", p]);
    assert_eq!(hit["hit_count"], 1);
    assert_eq!(hit["hits"][0]["line"], 2);
    assert!(hit["hits"][0]["trimmed"]["line_chars"].as_u64().unwrap() > 3_000_000);
}

/// A search whose echoed argument alone passes the cap blames that argument, with its size,
/// never a hit (regression, issue 58: a 3,000-word query answered "one hit does not fit an
/// answer of 8,000 tokens" where nothing was found).
#[test]
fn a_query_too_long_to_echo_is_named_with_its_size() {
    let home = Home::new();
    std::fs::write(home.path().join("a.txt"), "hello\nworld\n").unwrap();
    let words: Vec<String> = (0..3000).map(|i| format!("word{i}")).collect();
    let query = words.join(" ");
    let out = home.run(&[
        "search",
        "--query",
        &query,
        home.path().to_str().unwrap(),
        "--json",
    ]);
    let e: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let message = e["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "`--query` ({} chars) is echoed in the answer",
            spool_core::render::thousands(query.chars().count() as u64)
        )),
        "{e}"
    );
    assert!(!message.contains("one hit"), "{e}");
    let hint = e["error"]["hint"].as_str().unwrap();
    assert!(hint.contains("at most 32 of its words are used"), "{e}");
    assert_snapshot!("query_too_long_to_echo", format!("{message}\n{hint}"));
}
