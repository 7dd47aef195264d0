//! spool-proxy between the real rmcp client (in process, over a duplex pipe) and the fake
//! upstream server binary (a real child process speaking MCP over stdio).
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod agent;
mod asks;
mod faults;
mod fidelity;
mod hosts;
mod paging;
mod passthrough;
mod relay;
mod support;

// The box a jq program runs in is this test binary started again (`it __spool_box`).
spool_core::box_entry_for_tests!();
