//! The store's answers on both backends: every window and search of an artifact is answered by
//! the machine that made it (its local copy) and by another machine reading it through the
//! shared store, and the two answers must be identical, byte for byte. The contents are the
//! hard cases: many chunks, a line longer than a chunk, multi-byte chars across chunk edges,
//! invalid UTF-8, binary, empty, and an artifact published while it was being written.

use std::sync::Arc;

use serde_json::{Value, json};
use spool_core::envelope::{ArtifactState, Source};
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::store::NewArtifact;
use spool_core::window::{Preview, WindowRequest, read_window};
use spool_core::{Store, StoreConfig};

use crate::weed::{shared, start};

struct Machine {
    _home: tempfile::TempDir,
    store: Store,
}

fn machine(weed: &crate::weed::Weed) -> Machine {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path(), StoreConfig::default()).unwrap();
    store.set_remote(Arc::new(shared(weed, "both")));
    Machine { _home: home, store }
}

fn source(desc: &str) -> Source {
    Source::new(desc, spool_core::Version::text())
}

/// The contents, by name.
fn contents() -> Vec<(&'static str, Vec<u8>)> {
    use std::fmt::Write as _;
    let mut numbered = String::new();
    for i in 1..=300_000 {
        let _ = writeln!(numbered, "line {i}: some words so the line is longer");
    }
    let mut long_line = vec![b'x'; 5 << 20];
    long_line.extend_from_slice(b" needle\nafter the long line\nlast line without newline");
    // Three- and four-byte chars, so chunk edges (every 4 MiB) fall inside them.
    let mut multibyte = String::new();
    for i in 0..200_000 {
        let _ = writeln!(multibyte, "{i} é漢🙂 snow ☃ {i}");
    }
    let mut invalid = b"valid start\n".to_vec();
    for i in 0..50_000u32 {
        invalid.extend_from_slice(format!("{i} ").as_bytes());
        invalid.extend_from_slice(&[0xff, 0xfe, b'a', 0xc3, b'\n']);
    }
    let binary: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    vec![
        ("numbered", numbered.into_bytes()),
        ("long line", long_line),
        ("multibyte", multibyte.into_bytes()),
        ("invalid utf-8", invalid),
        ("binary", binary),
        ("empty", Vec::new()),
    ]
}

fn windows(meta_lines: u64, meta_chars: u64, meta_bytes: u64) -> Vec<WindowRequest> {
    let chunk = spool_s3::CHUNK;
    vec![
        WindowRequest::Preview(None),
        WindowRequest::Preview(Some(Preview::Tail)),
        WindowRequest::Preview(Some(Preview::HeadTail)),
        WindowRequest::Lines {
            line: 1,
            limit: Some(10),
        },
        WindowRequest::Lines {
            line: meta_lines / 2 + 1,
            limit: Some(7),
        },
        WindowRequest::Lines {
            line: meta_lines,
            limit: None,
        },
        WindowRequest::Lines {
            line: meta_lines + 5,
            limit: Some(1),
        },
        WindowRequest::LastLines { lines: 3 },
        WindowRequest::Chars {
            offset: meta_chars / 3,
            max: Some(200),
        },
        WindowRequest::Chars {
            offset: meta_chars + 10,
            max: Some(5),
        },
        WindowRequest::Bytes {
            offset: chunk.saturating_sub(3).min(meta_bytes),
            max: Some(16),
        },
        WindowRequest::Bytes {
            offset: meta_bytes.saturating_sub(5),
            max: Some(100),
        },
    ]
}

/// An answer as JSON, or its error as text: what the two machines must agree on.
fn answer<T: serde::Serialize>(result: spool_core::Result<T>) -> Value {
    match result {
        Ok(v) => serde_json::to_value(v).unwrap(),
        Err(e) => json!({ "error": e.to_string(), "code": e.code().as_str() }),
    }
}

fn search_pages(store: &Store, reference: &str, pattern: &str) -> Vec<Value> {
    let query = Query {
        pattern: pattern.into(),
        ..Query::default()
    };
    let mut pages = Vec::new();
    let mut cursor = None;
    for _ in 0..3 {
        let paging = Paging {
            context: 1,
            limit: Some(4),
            cursor: cursor.clone(),
        };
        let mut page = answer(search_artifact(store, reference, &query, &paging));
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        // The hit list is stored by each machine under a ref of its own.
        page["ref"] = Value::Null;
        // How long it took is the one thing that may differ.
        if let Some(scope) = page["scope"].as_object_mut() {
            scope.remove("duration_ms");
        }
        pages.push(page);
        if cursor.is_none() {
            break;
        }
    }
    pages
}

fn compare(maker: &Store, reader: &Store, name: &str, reference: &str) {
    let meta = maker.meta(reference).unwrap();
    for request in windows(meta.lines, meta.chars, meta.bytes) {
        for cap in [600, 8_000] {
            let here = answer(read_window(maker, reference, request, cap));
            let there = answer(read_window(reader, reference, request, cap));
            assert_eq!(here, there, "{name}: {request:?} at {cap} tokens");
        }
    }
    for pattern in [
        "needle",
        "line 1500[0-9]:",
        "☃ 19999[0-9]",
        "^1 ",
        "no such text",
        "(",
    ] {
        assert_eq!(
            search_pages(maker, reference, pattern),
            search_pages(reader, reference, pattern),
            "{name}: search {pattern}"
        );
    }
    let kept = reader.meta(reference).unwrap();
    assert_eq!(
        (kept.bytes, kept.lines, kept.chars, kept.tokens, kept.hash),
        (meta.bytes, meta.lines, meta.chars, meta.tokens, meta.hash),
        "{name}: totals"
    );
}

#[test]
fn every_window_and_search_answers_the_same_on_the_machine_that_made_it_and_on_another() {
    let weed = start();
    let maker = machine(&weed);
    let reader = machine(&weed);
    for (name, bytes) in contents() {
        let reference = maker
            .store
            .put(NewArtifact::new(source(name)), &bytes)
            .unwrap()
            .reference;
        compare(&maker.store, &reader.store, name, &reference);
    }
}

#[test]
fn an_artifact_published_while_it_was_written_answers_the_same_on_both() {
    let weed = start();
    let maker = machine(&weed);
    let reader = machine(&weed);
    let mut writer = maker
        .store
        .create(NewArtifact::new(source("grown")))
        .unwrap();
    let reference = writer.reference().to_owned();
    let piece = |n: u32| -> Vec<u8> {
        use std::fmt::Write as _;
        let mut s = String::new();
        for i in 0..40_000 {
            let _ = writeln!(s, "piece {n} line {i} é漢🙂");
        }
        s.into_bytes()
    };
    // Five pieces over about four seconds: capturing manifests, a tail, full chunks, then the
    // final manifest over the capturing one.
    let mut seen_growing = false;
    for n in 0..5 {
        writer.write(&piece(n));
        std::thread::sleep(std::time::Duration::from_millis(900));
        if let Ok(env) = read_window(
            &reader.store,
            &reference,
            WindowRequest::LastLines { lines: 1 },
            2_000,
        ) {
            assert_eq!(
                env.capture.as_ref().map(|c| c.state),
                Some(ArtifactState::Capturing)
            );
            seen_growing = true;
        }
    }
    assert!(seen_growing, "the other machine never saw the capture grow");
    writer.finish(ArtifactState::Complete, None, None).unwrap();
    compare(&maker.store, &reader.store, "grown", &reference);
}
