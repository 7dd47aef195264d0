//! jq over stored JSON: exact answers in one call, the output stored, bad programs and inputs
//! answered clearly.

use serde_json::json;
use spool_core::ErrorCode;
use spool_core::query::run_query;
use spool_core::window::{WindowRequest, read_window};

use crate::support::{put, store};

fn records(n: usize) -> String {
    let items: Vec<_> = (0..n)
        .map(|i| json!({"id": i, "status": if i % 7 == 0 { 504 } else { 200 }}))
        .collect();
    serde_json::to_string(&items).unwrap()
}

fn output(s: &spool_core::Store, reference: &str) -> (String, bool) {
    let e = read_window(s, reference, WindowRequest::Preview(None), 8_000).unwrap();
    (e.content(spool_core::render::Dialect::Mcp), e.complete)
}

#[test]
fn a_count_over_thirty_thousand_records_is_exact_and_complete_in_one_call() {
    let s = store();
    let list = put(&s.store, records(30_000).as_bytes());
    let out = run_query(
        &s.store,
        &list.reference,
        "map(select(.status == 504)) | length",
        None,
    )
    .unwrap();
    let expected = (0..30_000).filter(|i| i % 7 == 0).count();
    assert_eq!(
        output(&s.store, &out.reference),
        (format!("{expected}\n"), true)
    );
    let v = out.source.version.to_map();
    assert_eq!(v["of"], list.reference.as_str());
    assert_eq!(
        (v["read_as"].clone(), v["values"].clone()),
        (json!("document"), json!(1))
    );
    // The same program over the same ref is answered from the stored output.
    let again = run_query(
        &s.store,
        &list.reference,
        "map(select(.status == 504)) | length",
        None,
    )
    .unwrap();
    assert_eq!(again.reference, out.reference);
}

#[test]
fn json_lines_are_read_as_their_array_and_a_large_output_pages() {
    let s = store();
    let lines = (0..5000).fold(String::new(), |mut s, i| {
        use std::fmt::Write as _;
        let _ = writeln!(s, "{{\"id\":{i}}}");
        s
    });
    let list = put(&s.store, lines.as_bytes());
    let out = run_query(&s.store, &list.reference, "length", None).unwrap();
    assert_eq!(output(&s.store, &out.reference).0, "5000\n");
    assert_eq!(out.source.version.to_map()["read_as"], "lines");
    let each = run_query(&s.store, &list.reference, ".[] | .id", None).unwrap();
    assert_eq!(each.lines, 5000, "one value a line");
    let (shown, complete) = output(&s.store, &each.reference);
    assert!(shown.starts_with("0\n1\n2\n"), "{shown}");
    let first_window = shown.lines().count();
    assert!(!complete && first_window < 5000);
}

#[test]
fn a_bad_program_says_where_and_the_server_stays_up() {
    let s = store();
    let list = put(&s.store, records(10).as_bytes());
    let r = &list.reference;
    let syntax = run_query(&s.store, r, "map(select(.status == ", None).unwrap_err();
    assert_eq!(syntax.code(), ErrorCode::InvalidArgument);
    let said = syntax.to_string();
    assert!(said.contains("closing parenthesis at char"), "{said}");
    let undefined = run_query(&s.store, r, "frobnicate(1)", None)
        .unwrap_err()
        .to_string();
    assert!(
        undefined.contains("undefined filter `frobnicate` at char 0"),
        "{undefined}"
    );
    let runtime = run_query(&s.store, r, ".[0].id.x", None)
        .unwrap_err()
        .to_string();
    assert!(
        runtime.contains("failed after 0 values") && runtime.contains("cannot index"),
        "{runtime}"
    );
    // The environment holds the server's secrets: no program reads it.
    let env = run_query(&s.store, r, "env", None).unwrap_err().to_string();
    assert!(env.contains("not offered"), "{env}");
    // `halt` ends the query, not the process (jaq's own helper exits).
    let halt = run_query(&s.store, r, "1, halt", None)
        .unwrap_err()
        .to_string();
    assert!(halt.contains("halt"), "{halt}");
    // Still answering.
    assert!(run_query(&s.store, r, "length", None).is_ok());
}

#[test]
fn text_that_is_not_json_is_refused_with_the_search_that_reads_it() {
    let s = store();
    let text = put(&s.store, b"{\"a\": 1}\nnot json at all\n");
    let e = run_query(&s.store, &text.reference, ".", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.to_string().contains("line 2 is not JSON"), "{e}");
    let hint = e.hint(spool_core::render::Dialect::Cli).unwrap_or_default();
    assert!(hint.contains("spool search"), "{hint}");
    let e = run_query(&s.store, "sp_doesnotexist", ".", None).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
}
