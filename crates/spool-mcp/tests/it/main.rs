//! spool-mcp against the real rmcp client, in process over a duplex pipe.
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod agent;
mod bounds;
mod fairness;
mod hosts;
mod http;
mod map;
mod stdio;
mod support;
mod tools;
mod verbatim;

// The box a jq program runs in is this test binary started again (`it __spool_box`).
spool_core::box_entry_for_tests!();
