//! Stored bytes that change on disk are never served: every read checks the chunks it touches
//! against their sums (regression: only whole reads checked, and a window over one changed
//! byte returned it, in 12 of 72 probes). Each probe flips one byte at an offset of a given
//! class, then reads windows that touch it (`corrupt`) and windows that do not (the original
//! bytes, exactly).

use serde_json::{Value, json};
use spool_core::ErrorCode;
use spool_core::items::{PageStart, find_list, item_page, store_items};
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::window::{WindowRequest, read_window};

use crate::support::{self, TestStore};

const STRIDE: u64 = 64 * 1024;

/// About 330 KB of lines with two-byte chars, so chunks end inside lines and inside chars.
fn text() -> Vec<u8> {
    let mut out = String::new();
    let mut i = 0;
    while out.len() < 5 * STRIDE as usize + 3_000 {
        i += 1;
        out.push_str(&format!("line {i}: café naïve — the quick brown fox {i}\n"));
    }
    out.into_bytes()
}

fn flip(ts: &TestStore, reference: &str, at: u64) {
    let path = ts.store.root().join("content").join(reference);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at as usize] ^= 0x01;
    std::fs::write(&path, bytes).unwrap();
}

/// The offsets a probe flips: chunk edges, a newline, inside a two-byte char, the ends.
fn offset_classes(bytes: &[u8]) -> Vec<(&'static str, u64)> {
    let size = bytes.len() as u64;
    let newline = STRIDE * 2 + memchr::memchr(b'\n', &bytes[2 * STRIDE as usize..]).unwrap() as u64;
    let inside_char = STRIDE * 3
        + bytes[3 * STRIDE as usize..]
            .iter()
            .position(|&b| b == 0xA9) // the second byte of `é`
            .unwrap() as u64;
    vec![
        ("first byte", 0),
        ("last byte of a chunk", STRIDE - 1),
        ("first byte of a chunk", STRIDE),
        ("middle of a chunk", STRIDE * 2 + STRIDE / 2),
        ("a newline", newline),
        ("inside a character", inside_char),
        ("first byte of the last chunk", size / STRIDE * STRIDE),
        ("last byte", size - 1),
    ]
}

fn line_of(bytes: &[u8], at: u64) -> u64 {
    bytecount::count(&bytes[..at as usize], b'\n') as u64 + 1
}

fn chars_before(bytes: &[u8], at: u64) -> u64 {
    bytes[..at as usize]
        .iter()
        .filter(|&&b| b & 0xC0 != 0x80)
        .count() as u64
}

#[test]
fn a_window_over_a_changed_byte_answers_corrupt_at_every_offset_class() {
    let original = text();
    let size = original.len() as u64;
    let mut probes = 0;
    for (class, at) in offset_classes(&original) {
        let ts = support::store();
        let meta = support::put(&ts.store, &original);
        flip(&ts, &meta.reference, at);
        let line = line_of(&original, at);
        let char = chars_before(&original, at);
        let touching = [
            WindowRequest::Bytes {
                offset: at.saturating_sub(3),
                max: Some(8),
            },
            WindowRequest::Lines {
                line,
                limit: Some(1),
            },
            WindowRequest::Chars {
                offset: char.saturating_sub(2),
                max: Some(5),
            },
        ];
        for request in touching {
            probes += 1;
            let answer = read_window(&ts.store, &meta.reference, request, 8_000);
            let err = answer.expect_err(&format!("{class} ({at}): {request:?} served"));
            assert_eq!(err.code(), ErrorCode::Corrupt, "{class}: {err}");
            assert!(err.to_string().contains("chunk sum"), "{err}");
        }
        // The head and the tail: corrupt exactly when they touch the changed chunk.
        for (request, touches) in [
            (WindowRequest::Preview(None), at < STRIDE),
            (
                WindowRequest::LastLines { lines: 3 },
                at >= (size - 200) / STRIDE * STRIDE,
            ),
        ] {
            probes += 1;
            let answer = read_window(&ts.store, &meta.reference, request, 1_000);
            match answer {
                Err(e) => {
                    assert!(touches, "{class}: {request:?} refused: {e}");
                    assert_eq!(e.code(), ErrorCode::Corrupt);
                }
                Ok(e) => {
                    assert!(!touches, "{class}: {request:?} served a changed byte");
                    let (from, to) = e.delivered.byte_spans[0];
                    assert_eq!(
                        e.content(spool_core::render::Dialect::Mcp).as_bytes(),
                        &original[from as usize..to as usize]
                    );
                }
            }
        }
        // Two chunks away, the bytes are served, exactly as stored.
        let chunk = at / STRIDE;
        let far = if chunk >= 2 { 0 } else { 4 * STRIDE + 10 };
        probes += 1;
        let e = read_window(
            &ts.store,
            &meta.reference,
            WindowRequest::Bytes {
                offset: far,
                max: Some(500),
            },
            8_000,
        )
        .unwrap();
        let (from, to) = e.delivered.byte_spans[0];
        assert_eq!(
            e.content(spool_core::render::Dialect::Mcp).as_bytes(),
            &original[from as usize..to as usize]
        );
        // A search reads the whole: corrupt wherever the byte is.
        probes += 1;
        let q = Query {
            pattern: "fox".into(),
            literal: true,
            case_insensitive: false,
            words: None,
        };
        let err = search_artifact(&ts.store, &meta.reference, &q, &Paging::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Corrupt, "{class}");
    }
    assert_eq!(probes, 8 * 7);
}

#[test]
fn an_item_page_over_a_changed_byte_answers_corrupt_not_another_row() {
    let ts = support::store();
    let doc = Value::Array(
        (0..6_000)
            .map(|i| json!({ "id": i, "name": format!("row {i}"), "note": "x".repeat(40) }))
            .collect(),
    );
    let whole = support::put(&ts.store, serde_json::to_string(&doc).unwrap().as_bytes());
    let (path, items) = find_list(&doc).unwrap();
    let view = store_items(&ts.store, &whole, path.as_deref(), items).unwrap();
    assert!(view.bytes > 3 * STRIDE, "the view spans chunks");
    // A digit of an id in the third chunk: unchecked, this served a row with another id.
    let content = std::fs::read(ts.store.root().join("content").join(&view.reference)).unwrap();
    let id = memchr::memmem::find(&content[2 * STRIDE as usize..], b"\"id\":").unwrap();
    let at = 2 * STRIDE + id as u64 + 5;
    assert!(content[at as usize].is_ascii_digit());
    flip(&ts, &view.reference, at);
    let first = item_page(&ts.store, &view.reference, PageStart::At(0), Some(5), 4_000).unwrap();
    assert_eq!(first.items[0]["id"], 0);
    let before = bytecount::count(&content[..at as usize], b'\n') as u64;
    let err = item_page(
        &ts.store,
        &view.reference,
        PageStart::At(before),
        Some(5),
        4_000,
    )
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Corrupt, "{err}");
    assert!(err.to_string().contains("chunk sum"), "{err}");
}

#[test]
fn an_artifact_stored_without_chunk_sums_is_still_read() {
    // A store made before chunk sums: its windows are read as before (whole reads check the
    // whole hash).
    let ts = support::store();
    let original = text();
    let meta = support::put(&ts.store, &original);
    std::fs::remove_file(
        ts.store
            .root()
            .join("content")
            .join(format!("{}.sum", meta.reference)),
    )
    .unwrap();
    let e = read_window(
        &ts.store,
        &meta.reference,
        WindowRequest::Bytes {
            offset: 2 * STRIDE - 7,
            max: Some(100),
        },
        8_000,
    )
    .unwrap();
    let (from, to) = e.delivered.byte_spans[0];
    assert_eq!(
        e.content(spool_core::render::Dialect::Mcp).as_bytes(),
        &original[from as usize..to as usize]
    );
}
