//! A large artifact is searched in parts on several threads: every hit counted once, in
//! content order, with the line and byte a whole-file scan gives, across part edges, a line
//! longer than a part, a last line without a newline, later pages, and a changed byte in a
//! middle part (`corrupt`).

use spool_core::ErrorCode;
use spool_core::search::{Hit, Paging, Query, search_artifact};

use crate::support::{put, store};

/// About 26 MB: short numbered lines, a 7 MB line (longer than a part) holding two hits, and
/// a last line without a newline that is a hit.
fn content() -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=240_000u32 {
        out.extend_from_slice(format!("row {i}: the quick brown fox key={}\n", i % 977).as_bytes());
        if i == 120_000 {
            out.extend_from_slice(b"huge start key=42 ");
            out.extend(std::iter::repeat_n(b'x', 7 << 20));
            out.extend_from_slice(b" key=42 end\n");
        }
    }
    for i in 0..200_000u32 {
        out.extend_from_slice(format!("{i} ").as_bytes());
    }
    out.extend_from_slice(b"tail key=42");
    out
}

/// (line, byte of the line's start) of every line holding `key=42` followed by no digit.
fn expected(bytes: &[u8]) -> Vec<(u64, u64)> {
    let is_hit = |line: &[u8]| {
        memchr::memmem::find_iter(line, b"key=42")
            .any(|i| !line.get(i + 6).is_some_and(u8::is_ascii_alphanumeric))
    };
    let mut out = Vec::new();
    let mut at = 0u64;
    for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        if is_hit(line) {
            out.push((i as u64 + 1, at));
        }
        at += line.len() as u64;
    }
    out
}

fn literal(pattern: &str) -> Query {
    Query {
        pattern: pattern.into(),
        literal: true,
        case_insensitive: false,
        words: None,
    }
}

fn query() -> Query {
    Query {
        pattern: r"key=42\b".into(),
        literal: false,
        case_insensitive: false,
        words: None,
    }
}

fn all_pages(s: &spool_core::Store, reference: &str, limit: usize) -> (Vec<Hit>, Vec<u64>) {
    let mut paging = Paging {
        context: 0,
        limit: Some(limit),
        cursor: None,
    };
    let (mut hits, mut counts) = (Vec::new(), Vec::new());
    loop {
        let a = search_artifact(s, reference, &query(), &paging).unwrap();
        counts.push(a.hit_count);
        hits.extend(a.hits);
        let Some(c) = a.next_cursor else { break };
        paging.cursor = Some(c);
    }
    (hits, counts)
}

#[test]
fn a_search_in_parts_finds_what_a_whole_scan_finds() {
    let s = store();
    let bytes = content();
    let meta = put(&s.store, &bytes);
    let want = expected(&bytes);
    assert!(want.len() > 240, "hits in every part");
    for limit in [1_000, 37] {
        let (hits, counts) = all_pages(&s.store, &meta.reference, limit);
        assert!(counts.iter().all(|&n| n == want.len() as u64), "{counts:?}");
        let got: Vec<(u64, u64)> = hits.iter().map(|h| (h.line, h.byte_offset)).collect();
        assert_eq!(got, want, "limit {limit}");
    }
    // The line longer than a part is one hit, shown around its first match.
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &literal("huge start"),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 1);
    assert_eq!(a.hits[0].line, 120_001);
    assert!(a.hits[0].trimmed.is_some());
    // The last line, without a newline, is found with its number.
    let last = want.last().unwrap();
    assert_eq!(last.0, bytecount::count(&bytes, b'\n') as u64 + 1);
}

#[test]
fn a_changed_byte_in_a_middle_part_answers_corrupt() {
    let s = store();
    let bytes = content();
    let meta = put(&s.store, &bytes);
    let path = s.store.root().join("content").join(&meta.reference);
    let mut on_disk = std::fs::read(&path).unwrap();
    // Inside the long line, far from any hit and from the part edges' newlines.
    let at = bytes.len() / 2 + 12_345;
    on_disk[at] ^= 0x01;
    std::fs::write(&path, on_disk).unwrap();
    let err = search_artifact(&s.store, &meta.reference, &query(), &Paging::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
    assert!(err.to_string().contains("chunk sum"), "{err}");
}

#[test]
fn a_copy_cut_short_on_disk_answers_corrupt() {
    let s = store();
    let bytes = content();
    let meta = put(&s.store, &bytes);
    let path = s.store.root().join("content").join(&meta.reference);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(bytes.len() as u64 - 5_000_000).unwrap();
    let err = search_artifact(&s.store, &meta.reference, &query(), &Paging::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
}

/// Regression: the searcher sniffed a byte-order mark at the start of the stream and dropped
/// it, so a hit's byte was 3 short and, numbered from the index, its line one short; stored
/// bytes are searched as they are.
#[test]
fn a_byte_order_mark_is_searched_as_the_bytes_it_is() {
    let s = store();
    let meta = put(&s.store, b"\xEF\xBB\xBFalpha\nbeta\n");
    let a = search_artifact(
        &s.store,
        &meta.reference,
        &literal("beta"),
        &Paging::default(),
    )
    .unwrap();
    assert_eq!(a.hit_count, 1);
    assert_eq!((a.hits[0].line, a.hits[0].byte_offset), (2, 9));
}

/// A changed byte among short lines, far from where parts begin, is caught by the part that
/// owns its chunk as it reads it (not by the look for a part's first line).
#[test]
fn a_changed_byte_inside_a_part_answers_corrupt() {
    let s = store();
    let bytes = content();
    let meta = put(&s.store, &bytes);
    let path = s.store.root().join("content").join(&meta.reference);
    let mut on_disk = std::fs::read(&path).unwrap();
    let at = bytes.len() / 12;
    assert_ne!(on_disk[at], b'\n');
    on_disk[at] ^= 0x01;
    std::fs::write(&path, on_disk).unwrap();
    let err = search_artifact(&s.store, &meta.reference, &query(), &Paging::default()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
}
