//! Every stdio line gets an answer (issue 58). Through rmcp's transport a line over its limit
//! and a line it could not parse (nested 10,000 deep, a lone surrogate) were dropped without a
//! word and the client waited for ever. Here the server's stdio transport is driven raw, a line
//! at a time, over an in-memory pipe with a 1 MiB limit.

use std::sync::Arc;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use spool_core::{Store, StoreConfig};
use spool_mcp::stdio::LineTransport;
use spool_mcp::{Settings, SpoolServer};
use spool_walk::roots::Roots;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

const LIMIT: usize = 1 << 20;

struct Raw {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    read: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Raw {
    async fn start() -> Raw {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(home.path(), StoreConfig::default()).unwrap());
        let roots = Roots::new(&[root.path().to_owned()]).unwrap();
        let server = SpoolServer::new(store, roots, Settings::default());
        let (server_io, client_io) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(async move {
            let transport = LineTransport::new(server_read, server_write).with_max_line(LIMIT);
            if let Ok(running) = server.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_io);
        let mut raw = Raw {
            write,
            read: BufReader::new(read),
            _dirs: (home, root),
        };
        raw.send(
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
                "protocolVersion":"2025-06-18","capabilities":{},
                "clientInfo":{"name":"raw","version":"0"}}})
            .to_string()
            .as_bytes(),
        )
        .await;
        assert_eq!(raw.answer().await["id"], 1);
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(line).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
        self.write.flush().await.unwrap();
    }

    async fn answer(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(30),
            self.read.read_line(&mut line),
        )
        .await
        .expect("an answer within 30 s")
        .unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// `tools/list` still answers: the connection is usable after the bad line.
    async fn still_usable(&mut self, id: i64) {
        self.send(
            json!({"jsonrpc":"2.0","id":id,"method":"tools/list"})
                .to_string()
                .as_bytes(),
        )
        .await;
        let a = self.answer().await;
        assert_eq!(a["id"], id, "{a}");
        assert!(a["result"]["tools"].as_array().unwrap().len() > 3, "{a}");
    }
}

#[tokio::test]
async fn a_line_over_the_limit_is_answered_with_the_limit_and_its_id() {
    let mut raw = Raw::start().await;
    // The id comes first, as the Python and TypeScript SDKs write it; the body is 3 MiB.
    let big = "x".repeat(3 * LIMIT);
    let line = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"run","arguments":{"command":"cat","stdin":big}}});
    raw.send(line.to_string().as_bytes()).await;
    let a = raw.answer().await;
    assert_eq!(a["id"], 2, "{a}");
    assert_eq!(a["error"]["code"], -32600, "{a}");
    let message = a["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("over {LIMIT} bytes")),
        "{message}"
    );
    raw.still_usable(3).await;
}

#[tokio::test]
async fn a_line_at_the_limit_is_read() {
    let mut raw = Raw::start().await;
    let envelope = json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"run","arguments":{"command":"wc -c","stdin":""}}})
    .to_string();
    let fill = LIMIT - envelope.len();
    let line = envelope.replace(
        r#""stdin":"""#,
        &format!(r#""stdin":"{}""#, "y".repeat(fill)),
    );
    assert_eq!(line.len(), LIMIT);
    raw.send(line.as_bytes()).await;
    let a = raw.answer().await;
    assert_eq!(a["id"], 2, "{a}");
    let said: String = a["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    assert!(said.contains(&fill.to_string()), "{said}");
}

#[tokio::test]
async fn nesting_10000_deep_is_a_parse_error_with_its_id() {
    let mut raw = Raw::start().await;
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"run","arguments":{{"command":"true","x":{deep}}}}}}}"#
    );
    raw.send(line.as_bytes()).await;
    let a = raw.answer().await;
    assert_eq!(a["id"], 4, "{a}");
    assert_eq!(a["error"]["code"], -32700, "{a}");
    assert!(
        a["error"]["message"]
            .as_str()
            .unwrap()
            .contains("recursion"),
        "{a}"
    );
    raw.still_usable(5).await;
}

#[tokio::test]
async fn a_lone_surrogate_is_a_parse_error_with_its_id() {
    let mut raw = Raw::start().await;
    raw.send(
        br#"{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"read","arguments":{"path":"a\udcffb"}}}"#,
    )
    .await;
    let a = raw.answer().await;
    assert_eq!(a["id"], "s-1", "{a}");
    assert_eq!(a["error"]["code"], -32700, "{a}");
    raw.still_usable(6).await;
}

#[tokio::test]
async fn garbage_and_shapeless_json_are_answered() {
    let mut raw = Raw::start().await;
    raw.send(b"hello").await;
    let a = raw.answer().await;
    assert_eq!(a["id"], Value::Null, "{a}");
    assert_eq!(a["error"]["code"], -32700, "{a}");
    raw.send(br#"{"jsonrpc":"2.0","id":8,"nothing":true}"#)
        .await;
    let a = raw.answer().await;
    assert_eq!(a["id"], 8, "{a}");
    assert_eq!(a["error"]["code"], -32600, "{a}");
    // A notification from another protocol is skipped, as notifications are: no answer owed.
    raw.send(br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}"#)
        .await;
    raw.still_usable(9).await;
}
