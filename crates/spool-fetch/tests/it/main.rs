//! fetch against a real HTTP server (axum) on 127.0.0.1, started by the tests.
#![expect(clippy::unwrap_used, reason = "tests fail loudly")]

mod ci_bounds;
mod github;
mod pages;
mod server;
