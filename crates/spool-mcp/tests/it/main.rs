//! spool-mcp against the real rmcp client, in process over a duplex pipe.
#![expect(clippy::unwrap_used, clippy::expect_used, reason = "tests fail loudly")]

mod agent;
mod hosts;
mod http;
mod map;
mod support;
mod tools;
mod verbatim;
