//! A search of a copy whose line is longer than a window (issue 39: a 1.2 GB line took 2.08 GB
//! to search): found once on its line, placed by its chars, and the count's exactness said; a
//! search with context lines, which must hold whole lines, refuses it clearly.

use spool_core::ErrorCode;
use spool_core::search::{Paging, Query, search_artifact};

use crate::support::{put, store};

const WINDOW: usize = 4 << 20;

fn query(pattern: &str, literal: bool) -> Query {
    Query {
        pattern: pattern.to_owned(),
        literal,
        case_insensitive: false,
        words: None,
    }
}

#[test]
fn a_line_of_three_windows_is_one_hit_on_its_line() {
    let s = store();
    let len = 3 * WINDOW;
    let mut content = vec![b'x'; len];
    content[WINDOW - 2..WINDOW + 4].copy_from_slice(b"needle");
    content[len - 10..len - 4].copy_from_slice(b"needle");
    content.extend_from_slice(b"\nsecond needle\n");
    let meta = put(&s.store, &content);
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &query("needle", true),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 2, "the long line once, the second line once");
    assert_eq!(a.hits[0].line, 1);
    assert_eq!(a.hits[1].line, 2);
    let trim = a.hits[0].trimmed.unwrap();
    assert_eq!(trim.line_chars, len as u64);
    assert_eq!(trim.start_char, (WINDOW - 2 - 100) as u64);
    // A short literal across a window's edge is found: the count is exact.
    assert!(a.hit_count_exact);
    assert_eq!(a.windowed_lines, 1);
    let said = spool_core::search::notice(&a, spool_core::render::Dialect::Mcp)
        .replace(&meta.reference, "sp_REF");
    insta::assert_snapshot!("windowed_line_notice", said);
    // A regex may match at a window's edge (`^`, `$`): the count is not claimed exact.
    let r = search_artifact(
        &s.store,
        &meta.reference,
        &query("needl[e]", false),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(r.hit_count, 2);
    assert!(!r.hit_count_exact);
    let said = spool_core::search::notice(&r, spool_core::render::Dialect::Mcp);
    assert!(
        said.contains("is not found, and `^` or `$` may match at an edge"),
        "{said}"
    );
}

#[test]
fn context_lines_over_a_line_longer_than_a_search_holds_are_refused_clearly() {
    let s = store();
    let mut content = vec![b'y'; 3 * WINDOW];
    content.extend_from_slice(b"\nneedle\n");
    let meta = put(&s.store, &content);
    let paging = Paging {
        context: 1,
        ..Paging::default()
    };
    let e =
        search_artifact(&s.store, &meta.reference, &query("needle", true), &paging).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidArgument, "{e}");
    assert!(
        e.to_string().contains("has a line longer than the 8.0 MiB"),
        "{e}"
    );
}

#[test]
fn a_directory_search_reads_a_long_line_and_counts_a_longer_one_apart() {
    use spool_core::search::Scope;
    use spool_walk::roots::Roots;
    let s = store();
    let dir = tempfile::tempdir().unwrap();
    let mut long = vec![b'x'; 10 << 20];
    long.extend_from_slice(b" needle\nshort needle\n");
    std::fs::write(dir.path().join("long.txt"), &long).unwrap();
    // Longer than a directory search holds of one line (32 MiB): not searched, and said as
    // what it is, not as unreadable (issue 57: a search of it alone reads it).
    let mut longer = vec![b'z'; 40 << 20];
    longer.extend_from_slice(b" needle\n");
    std::fs::write(dir.path().join("longer.txt"), &longer).unwrap();
    std::fs::write(dir.path().join("small.txt"), b"another needle\n").unwrap();
    crate::support::settle();
    let roots = Roots::new(&[dir.path().to_path_buf()]).unwrap();
    let a = spool_core::search::tree::TreeSearch::new(&s.store, &roots, ".", &Paging::default())
        .hits(&query("needle", true))
        .unwrap();
    assert_eq!(a.hit_count, 3, "{:#?}", a.hits);
    let Scope::Tree(t) = &a.scope else {
        panic!("not a tree")
    };
    assert_eq!(
        (t.files_skipped.long_lines, t.files_skipped.unreadable),
        (1, 0)
    );
    assert_eq!(t.unread[0].path, "longer.txt");
}

#[test]
fn a_copy_cut_short_windows_its_long_line_too() {
    // Regression (review of issue 39): a copy without all its chunk sums (cut short,
    // capturing, read through) was searched by lines and refused a line over 8 MiB.
    let s = store();
    let mut w = crate::support::writer(&s.store, "cut short");
    let mut line = vec![b'x'; 3 * WINDOW];
    line[2 * WINDOW..2 * WINDOW + 6].copy_from_slice(b"needle");
    w.write(&line);
    w.write(b"\nmore needle\n");
    let meta = w
        .finish(
            spool_core::envelope::ArtifactState::Interrupted,
            Some("cut short".into()),
            None,
        )
        .unwrap();
    let reference = meta.reference;
    let a = search_artifact(
        &s.store,
        &reference,
        &query("needle", true),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 2);
    assert_eq!((a.hits[0].line, a.hits[1].line), (1, 2));
    assert_eq!(a.windowed_lines, 1);
}
