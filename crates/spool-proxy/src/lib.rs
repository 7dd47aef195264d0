//! `spool-proxy`: `spool wrap`, a proxy that makes any MCP server's large answers honest.
//!
//! Everything an upstream server offers passes through; a tool result too large for one answer
//! is stored once as an artifact and replaced by spool's envelope (or a page of items for a JSON
//! list), and spool's `read`, `search` and `artifacts` are offered beside the upstream's tools.
//!
//! Nothing here prints to stdout: on stdio, stdout is the transport.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod asks;
mod child;
pub mod config;
mod hub;
mod lazy;
mod relay;
mod server;
pub mod upstream;

pub use config::{ProxyConfig, UpstreamSpec};
pub use server::{ProxyServer, SPOOL_TOOLS};

/// What the proxy tells the model about itself (appended to the upstreams' instructions).
pub const PROXY_INSTRUCTIONS: &str = "This server is relayed by spool. A tool answer too large for one reply is stored whole and shown in part: its first text block says what was shown, how big the whole is, and the exact `read` or `search` call that gets the rest. A part is not the whole: search the stored copy before concluding something is absent.";

/// Why the proxy could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    #[error("configuration: {0}")]
    Config(String),
    /// An upstream that did not start or complete its handshake.
    #[error("{0}")]
    Start(spool_core::Error),
}
