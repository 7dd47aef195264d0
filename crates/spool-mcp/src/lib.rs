//! `spool-mcp`: spool's MCP server over stdio or Streamable HTTP.
//!
//! Nothing here prints to stdout: on stdio, stdout is the transport.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod admission;
pub mod answer;
pub mod http;
mod instructions;
pub mod schema;
mod server;
pub mod stdio;

pub use server::{Settings, SpoolServer};

/// Serves MCP on stdin and stdout until the client goes away. Every line gets an answer: one
/// over [`stdio::MAX_LINE`] or one that does not parse gets a JSON-RPC error (see `stdio`).
pub async fn serve_stdio<S: rmcp::ServerHandler>(server: S) -> Result<(), ServeError> {
    use rmcp::ServiceExt;
    let transport = stdio::LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
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
