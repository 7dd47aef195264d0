//! CLI transcripts: the built `spool` binary, its exit code, stdout and stderr.
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail loudly"
)]

mod bad_input;
mod confined;
mod crash_points;
mod full;
mod generate;
mod limits;
mod peak_memory;
mod read_search;
mod run;
mod secrets;
mod serve_http;
mod shared;
mod support;
mod verbatim;
mod wrap;
