//! The local side of a shared store: read-through copies kept within their own bound (by the
//! chunks that arrived), dropped least recently read first and fetched again when read; and a
//! local copy the bucket also holds is dropped, not made a tombstone, when the quota needs room.

use std::sync::Arc;

use spool_core::window::{WindowRequest, read_window};
use spool_core::{Store, StoreConfig};

use crate::weed::{numbered, put, shared, start};

fn machine(weed: &crate::weed::Weed, config: StoreConfig) -> (tempfile::TempDir, Store) {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path(), config).unwrap();
    store.set_remote(Arc::new(shared(weed, "cache")));
    (home, store)
}

fn middle_line(store: &Store, reference: &str) -> String {
    read_window(
        store,
        reference,
        WindowRequest::Lines {
            line: 50_000,
            limit: Some(1),
        },
        2_000,
    )
    .unwrap()
    .content(spool_core::render::Dialect::Mcp)
}

#[test]
fn read_through_copies_stay_within_the_cache_bound_and_come_back_when_read_again() {
    let weed = start();
    let (_m, maker) = machine(&weed, StoreConfig::default());
    let refs: Vec<String> = (0..3).map(|_| put(&maker, &numbered(100_000))).collect();
    // Room for one fetched chunk (4 MiB) and a half.
    let (_r, reader) = machine(
        &weed,
        StoreConfig {
            cache_bytes: 6 << 20,
            ..StoreConfig::default()
        },
    );
    for reference in &refs {
        assert!(middle_line(&reader, reference).starts_with("line 50000:"));
    }
    // Adopting the third copy dropped the first; the bound is applied again when a copy is
    // adopted, when an artifact is made, and by gc.
    assert!(matches!(
        reader.meta(&refs[0]),
        Err(spool_core::Error::NotFound { .. })
    ));
    let report = reader.gc().unwrap();
    assert_eq!(report.evicted, 1, "{report:?}");
    // The least recently read copies were dropped, not expired: they are simply unknown here
    // again, and the newest stays.
    assert!(matches!(
        reader.meta(&refs[0]),
        Err(spool_core::Error::NotFound { .. })
    ));
    assert!(matches!(
        reader.meta(&refs[1]),
        Err(spool_core::Error::NotFound { .. })
    ));
    assert!(reader.meta(&refs[2]).is_ok());
    // Read again: fetched again, same answer.
    assert!(middle_line(&reader, &refs[0]).starts_with("line 50000:"));
    assert!(reader.meta(&refs[0]).is_ok());
}

#[test]
fn the_quota_counts_what_was_made_here_and_drops_published_copies_rather_than_expiring_them() {
    let weed = start();
    let (_m, maker) = machine(&weed, StoreConfig::default());
    let big = put(&maker, &numbered(300_000)); // ~17 MB in the bucket
    let config = StoreConfig {
        quota_bytes: 4 << 20,
        // Each output here (2.2 MB) more than half the quota, kept whole: the operator's limit.
        capture_limit_bytes: Some(8 << 20),
        // Eviction as soon as the quota is passed: nothing here is being answered about.
        eviction_grace: std::time::Duration::ZERO,
        ..StoreConfig::default()
    };
    let (_r, reader) = machine(&weed, config);
    let local = put(&reader, &numbered(40_000)); // ~2.2 MB made here
    // A window of the 17 MB artifact made elsewhere: its full size does not count against the
    // quota of what was made here.
    assert!(middle_line(&reader, &big).starts_with("line 50000:"));
    reader.gc().unwrap();
    assert_eq!(
        reader.meta(&local).unwrap().state,
        spool_core::envelope::ArtifactState::Complete
    );
    // Two more made here pass the quota: the oldest is dropped, and since the bucket has it,
    // reading it again fetches it rather than answering `expired`.
    let _second = put(&reader, &numbered(40_000));
    let _third = put(&reader, &numbered(40_000));
    assert!(matches!(
        reader.meta(&local),
        Err(spool_core::Error::NotFound { .. })
    ));
    let again = read_window(
        &reader,
        &local,
        WindowRequest::Lines {
            line: 39_999,
            limit: Some(2),
        },
        2_000,
    )
    .unwrap();
    assert!(
        again
            .content(spool_core::render::Dialect::Mcp)
            .starts_with("line 39999:"),
        "{}",
        again.content(spool_core::render::Dialect::Mcp)
    );
}

#[test]
fn a_byte_changed_in_a_read_through_copy_after_it_arrived_answers_corrupt() {
    // Chunks are checked against the bucket's hashes when they arrive; later reads are of the
    // local copy, and check it against the chunk sums recorded then (regression: a byte
    // changed on disk afterwards was served).
    let weed = start();
    let (_m, maker) = machine(&weed, StoreConfig::default());
    let content = numbered(100_000);
    let reference = put(&maker, &content);
    let (_r, reader) = machine(&weed, StoreConfig::default());
    let line = middle_line(&reader, &reference);
    assert!(line.starts_with("line 50000:"), "{line}");
    let at = content
        .windows(11)
        .position(|w| w == b"line 50000:")
        .unwrap()
        + 6;
    let path = reader.root().join("content").join(&reference);
    let mut local = std::fs::read(&path).unwrap();
    assert_eq!(local[at], content[at], "the chunk arrived");
    local[at] ^= 0x01;
    std::fs::write(&path, local).unwrap();
    let err = read_window(
        &reader,
        &reference,
        WindowRequest::Lines {
            line: 50_000,
            limit: Some(1),
        },
        2_000,
    )
    .unwrap_err();
    assert_eq!(err.code(), spool_core::ErrorCode::Corrupt, "{err}");
    // Elsewhere in the same chunk, and in a chunk that had not arrived (fetched and checked
    // now), the lines are served.
    for n in [1, 90_000] {
        let e = read_window(
            &reader,
            &reference,
            WindowRequest::Lines {
                line: n,
                limit: Some(1),
            },
            2_000,
        )
        .unwrap();
        assert!(
            e.content(spool_core::render::Dialect::Mcp)
                .starts_with(&format!("line {n}:")),
            "{}",
            e.content(spool_core::render::Dialect::Mcp)
        );
    }
}
