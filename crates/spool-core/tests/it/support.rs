//! Fixtures shared by the tests.

use spool_core::envelope::Source;
use spool_core::store::{ArtifactMeta, NewArtifact};
use spool_core::{Store, StoreConfig};
use tempfile::TempDir;

pub struct TestStore {
    pub store: Store,
    pub dir: TempDir,
}

pub fn store() -> TestStore {
    store_with(StoreConfig::default())
}

pub fn store_with(config: StoreConfig) -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), config).unwrap();
    TestStore { store, dir }
}

pub fn text_source(desc: &str) -> Source {
    Source::new(desc, spool_core::Version::text())
}

pub fn put(store: &Store, bytes: &[u8]) -> ArtifactMeta {
    store
        .put(NewArtifact::new(text_source("test content")), bytes)
        .unwrap()
}

/// `n` numbered lines: `line 1: ...`.
pub fn numbered_lines(n: usize) -> String {
    use std::fmt::Write as _;
    (1..=n).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "line {i}: the quick brown fox jumps over the lazy dog");
        s
    })
}
