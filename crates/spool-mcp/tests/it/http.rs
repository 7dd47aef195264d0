//! The HTTP transport against a hostile client: a page from another origin (DNS rebinding),
//! connections that trickle their headers or body, sessions opened and never closed, bodies
//! that are not JSON-RPC. Raw TCP on 127.0.0.1, so nothing but the server shapes what is sent.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use spool_mcp::{Settings, SpoolServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

async fn serve() -> (SocketAddr, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(
        spool_core::Store::open(home.path(), spool_core::StoreConfig::default()).unwrap(),
    );
    let roots = spool_walk::roots::Roots::new(&[home.path().to_owned()]).unwrap();
    let server = SpoolServer::new(store, roots, Settings::default());
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let _ = spool_mcp::http::serve_http(
            server,
            "127.0.0.1:0".parse().unwrap(),
            None,
            &["https://app.example.invalid:443".to_owned()],
            move |bound| {
                let _ = tx.send(bound);
            },
        )
        .await;
    });
    (rx.await.unwrap(), home)
}

/// One POST, the status line's code back.
async fn post(addr: SocketAddr, extra: &str, body: &str) -> u16 {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).await.unwrap();
    std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap()
}

#[tokio::test]
async fn origins_other_than_loopback_and_the_allowed_are_refused() {
    // Regression: `Origin: http://evil.example` and `Origin: null` were accepted.
    let (addr, _home) = serve().await;
    for (origin, code) in [
        ("http://evil.example", 403),
        ("null", 403),
        ("http://localhost:6274", 200),
        ("http://127.0.0.1:9", 200),
        ("https://app.example.invalid", 200),
    ] {
        let got = post(addr, &format!("Origin: {origin}\r\n"), INIT).await;
        assert_eq!(got, code, "Origin: {origin}");
    }
    assert_eq!(
        post(addr, "", INIT).await,
        200,
        "no Origin (not a browser): served"
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_rpc_is_a_bad_request() {
    // Regression: answered 415 Unsupported Media Type.
    let (addr, _home) = serve().await;
    for body in ["{not json", r#"{"id":1}"#, "[]", "42"] {
        assert_eq!(post(addr, "", body).await, 400, "{body}");
    }
}

/// Whether the server closes a connection that sent `partial` and then nothing.
async fn closed_after(addr: SocketAddr, partial: &str) -> Duration {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(partial.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    // The server answers (408) or just closes; either way the read ends.
    let _ = tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut buf)).await;
    started.elapsed()
}

#[tokio::test]
async fn connections_that_never_finish_their_headers_or_body_are_closed() {
    // Regression: they stayed open for ever.
    let (addr, _home) = serve().await;
    let headers = closed_after(addr, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let body = closed_after(
        addr,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"",
    );
    let (headers, body) = tokio::join!(headers, body);
    assert!(headers < Duration::from_secs(20), "headers: {headers:?}");
    assert!(body < Duration::from_secs(20), "body: {body:?}");
}

#[tokio::test]
async fn connections_that_send_nothing_a_byte_or_half_a_preface_are_closed() {
    // Regression (issue 39): hyper learns the protocol from the first 24 bytes and had no
    // deadline until it knew it; a preface and then nothing had none either. 240 of these
    // under a 256-descriptor limit locked out every client.
    let (addr, _home) = serve().await;
    let (nothing, byte, half, preface) = tokio::join!(
        closed_after(addr, ""),
        closed_after(addr, "P"),
        closed_after(addr, "PRI * HTTP/2.0\r\n"),
        closed_after(addr, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
    );
    for (what, took) in [
        ("nothing", nothing),
        ("a byte", byte),
        ("half a preface", half),
        ("a preface alone", preface),
    ] {
        assert!(took < Duration::from_secs(20), "{what}: {took:?}");
    }
    // A client that sends its request in time is served as before.
    assert_eq!(post(addr, "", INIT).await, 200);
}

#[tokio::test]
async fn sessions_are_bounded() {
    // Regression: 3,000 sessions never closed held 160 MB.
    let (addr, _home) = serve().await;
    for i in 0..spool_mcp::http::MAX_SESSIONS {
        assert_eq!(post(addr, "", INIT).await, 200, "session {i}");
    }
    assert_eq!(post(addr, "", INIT).await, 503, "one past the bound");
}
