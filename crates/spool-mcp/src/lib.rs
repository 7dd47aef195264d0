//! `spool-mcp`: spool's MCP server over stdio or Streamable HTTP.
//!
//! Nothing here prints to stdout: on stdio, stdout is the transport.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod answer;
pub mod http;
mod instructions;
pub mod schema;
mod server;

pub use server::{Settings, SpoolServer};

/// The largest request read on stdio.
pub const MAX_REQUEST: usize = 256 << 20;

/// Serves MCP on stdin and stdout until the client goes away.
pub async fn serve_stdio<S: rmcp::ServerHandler>(server: S) -> Result<(), ServeError> {
    use rmcp::ServiceExt;
    // rmcp's stdio drops a request over 16 MiB without a word (a `run` with a large stdin);
    // this reads requests up to 256 MiB.
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(
        tokio::io::stdin(),
        tokio::io::stdout(),
    )
    .with_max_line_length(MAX_REQUEST);
    let running = server
        .serve(transport)
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| ServeError::Protocol(e.to_string()))?;
    Ok(())
}

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error("MCP protocol error: {0}")]
    Protocol(String),
    #[error("cannot listen on `{addr}`: {source}")]
    Bind {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the HTTP server failed: {0}")]
    Http(#[source] std::io::Error),
}
