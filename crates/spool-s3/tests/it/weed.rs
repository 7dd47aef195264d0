//! The shared `SeaweedFS` harness, with `spool-s3` handles onto it, and the content the tests
//! store.

pub use spool_test_support::weed::Weed;
use spool_test_support::weed::{BUCKET, KEY, SECRET};

pub fn start() -> Weed {
    Weed::start().unwrap_or_else(|e| panic!("{e}"))
}

pub fn settings(weed: &Weed, prefix: &str) -> spool_s3::S3Settings {
    let endpoint = weed.endpoint.clone();
    spool_s3::S3Settings::from_url(&format!("s3://{BUCKET}/{prefix}"), |k| match k {
        "AWS_ENDPOINT_URL" => Some(endpoint.clone()),
        "AWS_ACCESS_KEY_ID" => Some(KEY.to_owned()),
        "AWS_SECRET_ACCESS_KEY" => Some(SECRET.to_owned()),
        _ => None,
    })
    .unwrap()
}

pub fn shared(weed: &Weed, prefix: &str) -> spool_s3::SharedStore {
    spool_s3::SharedStore::connect(&settings(weed, prefix)).unwrap()
}

/// `n` numbered lines of about 55 bytes.
pub fn numbered(n: u64) -> Vec<u8> {
    use std::fmt::Write as _;
    let mut s = String::new();
    for i in 1..=n {
        let _ = writeln!(s, "line {i}: some words to make the line a little longer");
    }
    s.into_bytes()
}

/// Stores `bytes` as a finished text artifact; its ref.
pub fn put(store: &spool_core::Store, bytes: &[u8]) -> String {
    let source = spool_core::Source::new("test content", spool_core::Version::text());
    store
        .put(spool_core::store::NewArtifact::new(source), bytes)
        .unwrap()
        .reference
}
