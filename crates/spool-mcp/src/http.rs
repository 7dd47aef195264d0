//! Streamable HTTP on loopback by default, with an optional bearer token, and bounds a hostile
//! client cannot get past:
//!
//! - `Host` is checked (loopback names, and the address bound), and so is `Origin`: loopback
//!   origins and those allowed by `--allow-origin`; `Origin: null` and any other are refused
//!   (the MCP transport asks servers to validate it, against DNS rebinding).
//! - Headers must arrive within 10 s and a request body within 10 s of its headers; a
//!   connection that trickles either is closed.
//! - At most [`MAX_SESSIONS`] sessions live at once; an idle one ends after 5 minutes.
//! - A body that is not JSON, or not a JSON-RPC message, is `400 Bad Request` with a JSON-RPC
//!   error, not `415`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::ServeError;

/// Sessions alive at once; a new one past this is refused (503) until one ends.
pub const MAX_SESSIONS: usize = 512;

/// How long a client may take to send its headers, and then its body.
const READ_DEADLINE: Duration = Duration::from_secs(10);

/// The largest request body (rmcp's own bound).
const MAX_BODY: usize = 4 << 20;

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

/// A JSON-RPC error as a `400 Bad Request`.
fn bad_request(code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message },
    });
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Reads a POST body within the deadline, checks it is a JSON-RPC message, and hands it on.
async fn bounded_body(req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes =
        match tokio::time::timeout(READ_DEADLINE, axum::body::to_bytes(body, MAX_BODY)).await {
            Err(_) => {
                return (
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "the request body did not arrive within {} s",
                        READ_DEADLINE.as_secs()
                    ),
                )
                    .into_response();
            }
            Ok(Err(_)) => {
                return (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the request body is over {MAX_BODY} bytes"),
                )
                    .into_response();
            }
            Ok(Ok(bytes)) => bytes,
        };
    let json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    if json {
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Err(e) => return bad_request(-32700, &format!("parse error: {e}")),
            Ok(serde_json::Value::Object(m)) if m.get("jsonrpc").is_some() => {}
            Ok(serde_json::Value::Array(a)) if !a.is_empty() => {}
            Ok(_) => {
                return bad_request(-32600, "invalid request: not a JSON-RPC message");
            }
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Refuses a new session while [`MAX_SESSIONS`] are alive.
async fn session_bound(
    State(sessions): State<Arc<LocalSessionManager>>,
    req: Request,
    next: Next,
) -> Response {
    let opening = req.method() == Method::POST && !req.headers().contains_key("mcp-session-id");
    if opening {
        let live = sessions.sessions.read().await.len();
        if live >= MAX_SESSIONS {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "60")],
                format!(
                    "{live} sessions are open, the most this server keeps: end one (DELETE /mcp with its Mcp-Session-Id) or wait for idle ones to end (5 minutes)"
                ),
            )
                .into_response();
        }
    }
    next.run(req).await
}

/// The origins a browser page on this machine has: any port of the loopback names.
fn loopback_origins() -> Vec<String> {
    ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .flat_map(|h| [format!("http://{h}:*"), format!("https://{h}:*")])
        .collect()
}

/// Binds `addr` and serves MCP at `/mcp` until the process is stopped. `on_bound` learns the
/// address actually bound (port 0 picks a free one). `origins` are allowed beside loopback.
pub async fn serve_http<S>(
    server: S,
    addr: SocketAddr,
    token: Option<String>,
    origins: &[String],
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
    let mut allowed = loopback_origins();
    allowed.extend(origins.iter().cloned());
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::clone(&sessions),
        StreamableHttpServerConfig::default()
            .with_allowed_hosts(hosts)
            .with_allowed_origins(allowed)
            .with_max_request_body_bytes(MAX_BODY),
    );
    let mut app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn(bounded_body))
        .layer(middleware::from_fn_with_state(sessions, session_bound));
    if let Some(token) = token {
        app = app.layer(middleware::from_fn_with_state(
            Arc::new(token),
            require_bearer,
        ));
    }
    on_bound(bound);
    accept(listener, app).await
}

/// Serves connections one task each, with a deadline on the headers of every request.
async fn accept(listener: tokio::net::TcpListener, app: axum::Router) -> Result<(), ServeError> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(READ_DEADLINE);
    builder.http2().timer(TokioTimer::new());
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(conn) => conn,
            // Out of descriptors and the like: the listener stays; try again shortly.
            Err(e) => {
                tracing::warn!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let service = TowerToHyperService::new(app.clone());
        let builder = builder.clone();
        tokio::spawn(async move {
            let _ = builder
                .serve_connection_with_upgrades(TokioIo::new(stream), service)
                .await;
        });
    }
}
