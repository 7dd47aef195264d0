//! Streamable HTTP on loopback by default, with an optional bearer token, and bounds a hostile
//! client cannot get past:
//!
//! - `Host` is checked (loopback names, and the address bound), and so is `Origin`: loopback
//!   origins and those allowed by `--allow-origin`; `Origin: null` and any other are refused
//!   (the MCP transport asks servers to validate it, against DNS rebinding).
//! - A connection's first request must arrive within 10 s of its accept, whatever it sends or
//!   does not send (nothing, a byte, half an HTTP/2 preface: before, these were held for ever
//!   while hyper waited to learn the protocol, and 240 of them locked every client out); then
//!   each request's headers within 10 s and its body within 10 s of them. A connection that
//!   trickles is closed.
//! - A failure to accept (out of descriptors) is logged at most once a minute, and the log
//!   itself never blocks (spool-tools queues it): the accept loop cannot stall on its own words.
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

mod conns;

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

/// Serves connections one task each: a deadline from accept to the first request, then on the
/// headers of every request; HTTP/2 peers that stop answering pings are closed; idle
/// connections are closed to make room when the server is at its most (see `conns`).
async fn accept(listener: tokio::net::TcpListener, app: axum::Router) -> Result<(), ServeError> {
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto::Builder;
    use hyper_util::service::TowerToHyperService;
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(READ_DEADLINE);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(READ_DEADLINE);
    let mut failures = Throttle::default();
    let registry = conns::Registry::new(conns::most_open());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(conn) => conn,
            // Out of descriptors and the like: the listener stays; try again shortly.
            Err(e) => {
                failures.failed(&e);
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let entry = registry.admit(peer.ip());
        let first = Arc::new(tokio::sync::Notify::new());
        let service = Tracked {
            inner: TowerToHyperService::new(app.clone()),
            seen: Arc::clone(&first),
            busy: Arc::clone(&entry.busy),
        };
        let builder = builder.clone();
        tokio::spawn(async move {
            let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service);
            tokio::pin!(conn);
            // hyper learns the protocol from the first 24 bytes and has no deadline until it
            // knows it: this one covers that, and a preface with no request after it.
            tokio::select! {
                _ = conn.as_mut() => return,
                () = first.notified() => {}
                () = tokio::time::sleep(READ_DEADLINE) => return,
                () = entry.close.notified() => return,
            }
            tokio::select! {
                _ = conn.as_mut() => {}
                // Closed for room: idle when chosen (a request that began since finishes its
                // answer: the close waits for the connection's work to end).
                () = entry.close.notified() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop(entry);
        });
    }
}

/// A service that notes its first request (a `Notify` keeps the permit if nobody waits yet)
/// and counts each request, until its response body ends, as work under way on the connection.
#[derive(Clone)]
struct Tracked<S> {
    inner: S,
    seen: Arc<tokio::sync::Notify>,
    busy: Arc<std::sync::atomic::AtomicUsize>,
}

impl<S, B> hyper::service::Service<hyper::Request<B>> for Tracked<S>
where
    S: hyper::service::Service<hyper::Request<B>, Response = Response>,
    S::Future: Send + 'static,
{
    type Response = hyper::Response<conns::Guarded<Body>>;
    type Error = S::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
    >;

    fn call(&self, req: hyper::Request<B>) -> Self::Future {
        self.seen.notify_one();
        let busy = conns::Busy::start(&self.busy);
        let answer = self.inner.call(req);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|body| conns::Guarded::new(body, busy)))
        })
    }
}

/// Says a failure to accept at most once a minute, with how many went unsaid: out of
/// descriptors, the loop fails ten times a second.
#[derive(Default)]
struct Throttle {
    last: Option<std::time::Instant>,
    unsaid: u64,
}

impl Throttle {
    fn failed(&mut self, e: &std::io::Error) {
        if self
            .last
            .is_some_and(|t| t.elapsed() < Duration::from_mins(1))
        {
            self.unsaid += 1;
            return;
        }
        tracing::warn!(error = %e, unsaid = self.unsaid, "accepting a connection failed");
        (self.last, self.unsaid) = (Some(std::time::Instant::now()), 0);
    }
}
