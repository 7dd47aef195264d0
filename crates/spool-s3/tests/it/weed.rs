//! The shared `SeaweedFS` harness, with `spool-s3` handles onto it.

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
