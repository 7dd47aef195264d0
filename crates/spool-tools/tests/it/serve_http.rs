//! `spool serve --http` whose stderr nobody reads (a supervisor that stopped draining it):
//! before issue 39 the log was written by the task that logged, so once the 64 KiB pipe filled
//! the server's workers blocked in `write(2)` and it answered nothing again. Its log lines now
//! go through a queue that drops them when full; the server answers every request.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Stdio;
use std::time::Duration;

use crate::support::Home;

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

/// One POST of `initialize`: the status code, or why there was none within 5 s.
fn post(addr: SocketAddr) -> Result<u16, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{INIT}",
        INIT.len()
    );
    s.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut head = [0u8; 12];
    s.read_exact(&mut head).map_err(|e| e.to_string())?;
    std::str::from_utf8(&head[9..12])
        .ok()
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("{head:?}"))
}

#[test]
fn a_server_whose_stderr_is_not_read_keeps_answering() {
    let home = Home::new();
    let mut child = home
        .cmd(&["serve", "--http", "127.0.0.1:0"])
        .env("SPOOL_LOG", "trace")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let addr: SocketAddr = loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no address said");
        if let Some(rest) = line.trim().strip_prefix("spool: serving MCP at http://") {
            break rest.trim_end_matches("/mcp").parse().unwrap();
        }
    };
    // From here stderr is held open and never read: its pipe fills within a few requests.
    let answered: Vec<Result<u16, String>> = (0..100).map(|_| post(addr)).collect();
    let _ = child.kill();
    let _ = child.wait();
    drop(stderr);
    let failed: Vec<_> = answered.iter().filter(|r| *r != &Ok(200)).collect();
    assert!(
        failed.is_empty(),
        "{} of 100 not answered: {:?}",
        failed.len(),
        failed.first()
    );
}
