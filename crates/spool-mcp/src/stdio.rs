//! MCP over stdin and stdout, one JSON-RPC message per line, where every line gets an answer.
//!
//! rmcp's own stdio transport drops a line over its limit and ignores a line it cannot parse,
//! both without a word (its reason: replying to garbage can start an echo storm between two
//! peers). A client then waits for ever: measured at 81b80ac, a 300 MB line and arguments nested
//! 10,000 deep each left the client with no answer. JSON-RPC 2.0 says a parse error is answered,
//! so this transport answers: a line over [`MAX_LINE`] gets an error naming the limit, a line
//! that is not JSON (too deep, a lone surrogate, cut short) a parse error, and JSON that is not
//! a message an invalid-request error; each with the request's `id` when the line's top level
//! shows one, and the connection stays usable.
//!
//! Memory: the message is typed straight from the line, and the line's buffer is freed as soon
//! as it is parsed (rmcp's kept its largest line's capacity for ever).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::Mutex;

/// The largest line read. A model writes far less; a harness with more to pass puts it in a
/// file under the roots. HTTP bounds its body the same way.
pub const MAX_LINE: usize = 64 << 20;

/// What a line held, once read.
enum Line {
    /// A whole line is in the buffer.
    Whole,
    /// The line was longer than the limit; its first bytes are kept to find its `id`.
    TooLong {
        head: Vec<u8>,
    },
    Eof,
}

/// A server transport over any reader and writer (stdin and stdout in `serve_stdio`).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    buf: Vec<u8>,
    max_line: usize,
    /// Dropping the rest of a line already refused (kept here: `receive` can be cancelled).
    discarding: Option<Vec<u8>>,
    write: Arc<Mutex<Option<W>>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            buf: Vec::new(),
            max_line: MAX_LINE,
            discarding: None,
            write: Arc::new(Mutex::new(Some(write))),
        }
    }

    /// A smaller limit, for tests.
    #[must_use]
    pub fn with_max_line(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self
    }

    /// Reads one line without ever holding more than the limit. Cancel-safe: bytes are moved
    /// out of the reader's buffer only into `self.buf` or `self.discarding`.
    async fn read_line(&mut self) -> std::io::Result<Line> {
        /// How much of a refused line is kept to look for its `id`.
        const HEAD: usize = 4096;
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Line::Eof);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            if let Some(head) = self.discarding.as_mut() {
                if head.len() < HEAD {
                    let room = (HEAD - head.len()).min(take);
                    head.extend_from_slice(&available[..room]);
                }
                self.read.consume(take);
                if newline.is_some() {
                    let head = self.discarding.take().unwrap_or_default();
                    return Ok(Line::TooLong { head });
                }
                continue;
            }
            if self.buf.len() + take > self.max_line + 1 {
                let mut head = std::mem::take(&mut self.buf);
                head.truncate(HEAD);
                if head.len() < HEAD {
                    let room = (HEAD - head.len()).min(take);
                    head.extend_from_slice(&available[..room]);
                }
                self.read.consume(take);
                if newline.is_some() {
                    return Ok(Line::TooLong { head });
                }
                self.discarding = Some(head);
                continue;
            }
            self.buf.extend_from_slice(&available[..take]);
            self.read.consume(take);
            if newline.is_some() {
                return Ok(Line::Whole);
            }
        }
    }

    /// Writes one JSON-RPC error line.
    fn answer_error(
        &self,
        id: Value,
        code: i64,
        message: String,
    ) -> impl Future<Output = Option<()>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": { "code": code, "message": message },
            });
            write_line(&write, &body).await.ok()
        }
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    write: &Mutex<Option<W>>,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    let mut guard = write.lock().await;
    let out = guard
        .as_mut()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotConnected, "closed"))?;
    out.write_all(&bytes).await?;
    out.flush().await
}

/// What to do with a line that is whole.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// A notification rmcp skips too (not an MCP method): no answer is owed.
    Skip,
    Error {
        id: Value,
        code: i64,
        message: String,
    },
}

fn parse(line: Vec<u8>) -> Parsed {
    let text = line.strip_suffix(b"\n").unwrap_or(&line);
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Skip;
    }
    // Typed straight from the line: strings the line holds unescaped are borrowed until they
    // reach their place, copied once. (Through a `Value` first, the untagged message types
    // copied a 60 MB string three more times: 315 MB for a `ping`.)
    if let Ok(message) = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
        return Parsed::Message(Box::new(message));
    }
    let value = match serde_json::from_slice::<Value>(text) {
        Ok(value) => value,
        Err(e) => {
            return Parsed::Error {
                id: top_level_id(text),
                code: -32700,
                message: format!("parse error: {e}"),
            };
        }
    };
    drop(line);
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let notification = value.get("id").is_none()
        && value
            .get("method")
            .and_then(Value::as_str)
            .is_some_and(|m| !is_mcp_notification(m));
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(message) => Parsed::Message(Box::new(message)),
        Err(_) if notification => Parsed::Skip,
        Err(e) => Parsed::Error {
            id,
            code: -32600,
            message: format!("invalid request: {e}"),
        },
    }
}

/// Notifications rmcp knows; others (an LSP client's, a newer protocol's) are skipped unanswered,
/// as notifications are.
fn is_mcp_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/initialized"
            | "notifications/message"
            | "notifications/progress"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated"
            | "notifications/roots/list_changed"
            | "notifications/tools/list_changed"
    )
}

/// The `id` of a JSON-RPC object from the start of its text, when a number or a string appears
/// as a key of the top level before anything breaks the scan; `null` otherwise (as JSON-RPC asks
/// when the id cannot be read).
pub(crate) fn top_level_id(text: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut i = 0;
    let mut expect_key = false;
    while i < text.len() {
        match text[i] {
            b'{' | b'[' => {
                depth += 1;
                expect_key = depth == 1 && text[i] == b'{';
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b',' => {
                expect_key = depth == 1;
                i += 1;
            }
            b'"' => {
                let Some(end) = string_end(text, i) else {
                    return Value::Null;
                };
                if depth == 1 && expect_key && &text[i..end] == b"\"id\"" {
                    return id_value(&text[end..]);
                }
                expect_key = false;
                i = end;
            }
            _ => i += 1,
        }
    }
    Value::Null
}

/// The index just past the string that opens at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The value after `"id"`: `: 5` or `: "abc"`, parsed strictly.
fn id_value(rest: &[u8]) -> Value {
    let rest = rest.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b":") else {
        return Value::Null;
    };
    let rest = rest.trim_ascii_start();
    let end = if rest.first() == Some(&b'"') {
        string_end(rest, 0)
    } else {
        rest.iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'-'))
            .or(Some(rest.len()))
    };
    let Some(end) = end else {
        return Value::Null;
    };
    match serde_json::from_slice::<Value>(&rest[..end]) {
        Ok(v @ (Value::Number(_) | Value::String(_))) => v,
        _ => Value::Null,
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move { write_line(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let line = match self.read_line().await {
                Ok(line) => line,
                Err(e) => {
                    tracing::error!("reading stdin failed: {e}");
                    return None;
                }
            };
            match line {
                Line::Eof => return None,
                Line::TooLong { head } => {
                    let message = format!(
                        "the request is over {} bytes ({} MiB), the most one line may hold: \
                         send less in one call",
                        self.max_line,
                        self.max_line >> 20
                    );
                    self.answer_error(top_level_id(&head), -32600, message)
                        .await?;
                }
                Line::Whole => {
                    let line = std::mem::take(&mut self.buf);
                    match parse(line) {
                        Parsed::Message(message) => return Some(*message),
                        Parsed::Skip => {}
                        Parsed::Error { id, code, message } => {
                            self.answer_error(id, code, message).await?;
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut write = self.write.lock().await;
        if let Some(mut out) = write.take() {
            out.shutdown().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_top_level_id_before_or_after_params() {
        assert_eq!(
            top_level_id(br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"id":9}}"#),
            Value::from(7)
        );
        assert_eq!(
            top_level_id(br#"{"method":"x","params":{"id":9,"a":[{"id":1}]},"id":"q\"1"}"#),
            Value::from("q\"1")
        );
    }

    #[test]
    fn an_id_inside_params_or_a_string_is_not_the_id() {
        assert_eq!(
            top_level_id(br#"{"params":{"id":9},"method":"x"}"#),
            Value::Null
        );
        assert_eq!(top_level_id(br#"{"method":"\"id\":4","#), Value::Null);
        assert_eq!(top_level_id(br#"{"id": {"x":1}}"#), Value::Null);
        assert_eq!(top_level_id(br#"{"id":"unterminated"#), Value::Null);
    }
}
