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

/// The address a starting server says it serves at, read from its stderr.
fn serving_address(stderr: &mut impl BufRead) -> SocketAddr {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "no address said");
        if let Some(rest) = line.trim().strip_prefix("spool: serving MCP at http://") {
            return rest.trim_end_matches("/mcp").parse().unwrap();
        }
    }
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
    let addr = serving_address(&mut stderr);
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

/// Starts `spool serve --http` with at most `nofile` descriptors; its address.
fn serve_limited(home: &Home, nofile: u32) -> (std::process::Child, SocketAddr) {
    let mut child = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -n {nofile} && exec \"$0\" serve --http 127.0.0.1:0"),
            env!("CARGO_BIN_EXE_spool"),
        ])
        .current_dir(home.path())
        .env("SPOOL_HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let addr = serving_address(&mut stderr);
    // Drained, so the server's log never blocks.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, addr)
}

/// Regression (issue 58): a client holding 250 idle sockets, reopened as the server closed
/// them, used up a 256-descriptor server's, and a real client got 3 of 7 `initialize`
/// answered. Idle connections now make room for new ones.
#[test]
fn idle_sockets_reopened_by_one_client_do_not_lock_out_another() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let home = Home::new();
    let (mut child, addr) = serve_limited(&home, 256);
    let stop = Arc::new(AtomicBool::new(false));
    let reopened = Arc::new(AtomicUsize::new(0));
    let attacker = {
        let (stop, reopened) = (Arc::clone(&stop), Arc::clone(&reopened));
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                // Drop the sockets the server closed (a read says end of stream at once).
                held.retain(|s| {
                    s.set_nonblocking(true).unwrap();
                    let mut byte = [0u8; 1];
                    match s.peek(&mut byte) {
                        // Open, and nothing said.
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => true,
                        // Closed by the server.
                        Ok(0) | Err(_) => false,
                        Ok(_) => true,
                    }
                });
                while held.len() < 250 {
                    match TcpStream::connect(addr) {
                        Ok(s) => {
                            held.push(s);
                            reopened.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(_) => break,
                    }
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    // The attack is in place: every slot the server has is held.
    std::thread::sleep(Duration::from_secs(1));
    let answered: Vec<Result<u16, String>> = (0..7)
        .map(|_| {
            let r = post(addr);
            std::thread::sleep(Duration::from_millis(200));
            r
        })
        .collect();
    stop.store(true, Ordering::Relaxed);
    attacker.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let ok = answered.iter().filter(|r| **r == Ok(200)).count();
    eprintln!(
        "answered {ok} of 7; the attacker opened {} sockets",
        reopened.load(Ordering::Relaxed)
    );
    assert!(
        reopened.load(Ordering::Relaxed) > 250,
        "the attack never reopened"
    );
    assert_eq!(ok, 7, "{answered:?}");
}
