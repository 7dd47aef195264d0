//! Streamable HTTP on loopback by default, with an optional bearer token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::ServeError;

fn same(a: &[u8], b: &[u8]) -> bool {
    // Constant time in the length of the token.
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_bearer(State(token): State<Arc<String>>, req: Request, next: Next) -> Response {
    let ok = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| same(t.as_bytes(), token.as_bytes()));
    if ok {
        next.run(req).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token",
        )
            .into_response()
    }
}

/// Binds `addr` and serves MCP at `/mcp` until the process is stopped. `on_bound` learns the
/// address actually bound (port 0 picks a free one).
pub async fn serve_http<S>(
    server: S,
    addr: SocketAddr,
    token: Option<String>,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<(), ServeError>
where
    S: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind {
            addr: addr.to_string(),
            source,
        })?;
    let bound = listener.local_addr().map_err(ServeError::Http)?;
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    if !addr.ip().is_loopback() {
        hosts.push(addr.ip().to_string());
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_allowed_hosts(hosts),
    );
    let mut app = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = token {
        app = app.layer(middleware::from_fn_with_state(
            Arc::new(token),
            require_bearer,
        ));
    }
    on_bound(bound);
    axum::serve(listener, app).await.map_err(ServeError::Http)
}
