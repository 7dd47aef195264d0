//! In-process latency of windows and search over a large artifact.
//!
//! The artifact (256 MiB by default, `SPOOL_BENCH_MB` to change) is generated once into
//! `target/spool-bench/` and reused. Side-by-side runs against rg, sed and a plain redirect are
//! in `bench/run.sh`.
#![expect(clippy::unwrap_used, reason = "a benchmark fails loudly")]

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use spool_core::envelope::Source;
use spool_core::search::{Paging, Query, search_artifact};
use spool_core::store::NewArtifact;
use spool_core::window::{WindowRequest, read_window};
use spool_core::{Store, StoreConfig};

fn fixture() -> (Store, String, u64) {
    let mb: u64 = std::env::var("SPOOL_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let home =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../target/spool-bench/{mb}m"));
    let marker = home.join("ref");
    let config = StoreConfig {
        ttl: std::time::Duration::from_hours(24 * 365),
        quota_bytes: u64::MAX,
        ..StoreConfig::default()
    };
    let store = Store::open(&home, config).unwrap();
    if let Ok(reference) = std::fs::read_to_string(&marker)
        && let Ok(meta) = store.meta(reference.trim())
        && meta.bytes > 0
    {
        return (store, reference.trim().to_owned(), meta.lines);
    }
    let source = Source::new("bench log", spool_core::Version::text());
    let mut writer = store.create(NewArtifact::new(source)).unwrap();
    let target = mb << 20;
    let mut written = 0u64;
    let mut i = 0u64;
    let mut buf = String::with_capacity(1 << 20);
    while written < target {
        i += 1;
        buf.push_str(&format!(
            "{i:09} INFO  request id={i} path=/api/v1/items/{} status=200 took={}ms\n",
            i % 977,
            i % 97
        ));
        if buf.len() >= 1 << 20 {
            writer.write(buf.as_bytes());
            written += buf.len() as u64;
            buf.clear();
        }
    }
    writer.write(buf.as_bytes());
    let meta = writer
        .finish(spool_core::envelope::ArtifactState::Complete, None, None)
        .unwrap();
    std::fs::write(&marker, &meta.reference).unwrap();
    (store, meta.reference, meta.lines)
}

fn windows(c: &mut Criterion) {
    let (store, reference, lines) = fixture();
    let deep = (lines * 85 / 100).max(1);
    // Load the tokenizer outside the measurement, as a running server has it loaded.
    spool_core::tokens::count("warm up");
    c.bench_function("window 100 lines deep", |b| {
        b.iter(|| {
            read_window(
                &store,
                &reference,
                black_box(WindowRequest::Lines {
                    line: deep,
                    limit: Some(100),
                }),
                8000,
            )
            .unwrap()
        });
    });
    c.bench_function("window 8000 tokens deep", |b| {
        b.iter(|| {
            read_window(
                &store,
                &reference,
                black_box(WindowRequest::Lines {
                    line: deep,
                    limit: None,
                }),
                8000,
            )
            .unwrap()
        });
    });
    c.bench_function("window 20 lines deep", |b| {
        b.iter(|| {
            read_window(
                &store,
                &reference,
                black_box(WindowRequest::Lines {
                    line: deep,
                    limit: Some(20),
                }),
                8000,
            )
            .unwrap()
        });
    });
    c.bench_function("preview head_tail", |b| {
        b.iter(|| {
            read_window(
                &store,
                &reference,
                black_box(WindowRequest::Preview(Some(spool_core::Preview::HeadTail))),
                8000,
            )
            .unwrap()
        });
    });
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("literal, whole artifact", |b| {
        let q = Query {
            pattern: "id=4242424 ".into(),
            literal: true,
            case_insensitive: false,
            words: None,
        };
        b.iter(|| search_artifact(&store, &reference, &q, &Paging::default()).unwrap());
    });
    group.finish();
}

criterion_group!(benches, windows);
criterion_main!(benches);
