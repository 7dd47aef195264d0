//! The stdio transport to an upstream child process.
//!
//! rmcp's own (`TokioChildProcess`) drops any message over 16 MiB without a word, so a large
//! upstream answer left the client waiting out the whole timeout. This one reads messages up
//! to [`MAX_MESSAGE`]; one larger still is answered at once with an error naming its size, for
//! the request it answered (its id is read from the message's start). The read buffer is let go
//! after a large message, so that memory is not held until the next one.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::Mutex;

/// The largest message read from an upstream.
pub const MAX_MESSAGE: usize = 1 << 30;

/// The start of a message kept to read its id.
const HEAD: usize = 4096;

/// A read buffer larger than this is dropped after its message instead of kept for the next.
const KEEP_BUFFER: usize = 4 << 20;

/// An upstream child process spoken to over its stdin and stdout.
pub struct ChildTransport {
    /// Held so that the child lives as long as the transport (it is killed on drop).
    child: Child,
    read: BufReader<ChildStdout>,
    write: Arc<Mutex<Option<ChildStdin>>>,
    line: Vec<u8>,
    max: usize,
}

impl ChildTransport {
    pub fn new(child: Child, stdout: ChildStdout, stdin: ChildStdin) -> Self {
        Self {
            child,
            read: BufReader::with_capacity(1 << 16, stdout),
            write: Arc::new(Mutex::new(Some(stdin))),
            line: Vec::new(),
            max: MAX_MESSAGE,
        }
    }

    /// The same, reading messages of at most `max` bytes.
    #[must_use]
    pub fn with_max_message(mut self, max: usize) -> Self {
        self.max = max;
        self
    }

    /// Reads one line into `self.line`; `Ok(false)` at the end of the stream. A line over the
    /// limit is consumed to its end and answered by [`too_large`].
    async fn read_line(&mut self) -> std::io::Result<LineRead> {
        self.line.clear();
        let mut oversized = 0usize;
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(LineRead::Eof);
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            if oversized > 0 || self.line.len() + take > self.max {
                // Keep the line's start (where the id is) and count the rest.
                if oversized == 0 {
                    oversized = self.line.len();
                    let room = HEAD.saturating_sub(self.line.len());
                    self.line.extend_from_slice(&available[..take.min(room)]);
                    self.line.truncate(HEAD);
                    self.line.shrink_to_fit();
                }
                oversized += take;
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if newline.is_some() {
                return Ok(if oversized > 0 {
                    LineRead::Oversized(oversized)
                } else {
                    LineRead::Line
                });
            }
        }
    }

    fn release_buffer(&mut self) {
        if self.line.capacity() > KEEP_BUFFER {
            self.line = Vec::new();
        }
    }
}

enum LineRead {
    Line,
    Oversized(usize),
    Eof,
}

/// The error answer to a message too large to read, when its id can be read off its start.
fn too_large(start: &[u8], bytes: usize, max: usize) -> Option<RxJsonRpcMessage<RoleClient>> {
    let id = read_id(start)?;
    let message = format!(
        "the upstream's answer is {bytes} bytes, more than the {max} bytes spool reads from an upstream"
    );
    let answer = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": -32603, "message": message },
    });
    serde_json::from_value(answer).ok()
}

/// The `id` of a JSON-RPC message from the first bytes of it (`{"jsonrpc":"2.0","id":7,...`).
fn read_id(start: &[u8]) -> Option<serde_json::Value> {
    let head = &start[..start.len().min(HEAD)];
    let at = memchr::memmem::find(head, b"\"id\"")?;
    let rest = std::str::from_utf8(&head[at + 4..]).ok().or_else(|| {
        // The head may end inside a character: the id is well before it.
        std::str::from_utf8(&head[at + 4..head.len().saturating_sub(4)]).ok()
    })?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let mut values = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    match values.next()? {
        Ok(id @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => Some(id),
        _ => None,
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "spool child process".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut guard = write.lock().await;
            let Some(stdin) = guard.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "the upstream's input is closed",
                ));
            };
            stdin.write_all(&bytes).await?;
            stdin.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let read = match self.read_line().await {
                Ok(read) => read,
                Err(e) => {
                    tracing::warn!(error = %e, "reading from the upstream failed");
                    return None;
                }
            };
            match read {
                LineRead::Eof => return None,
                LineRead::Oversized(bytes) => {
                    tracing::warn!(
                        bytes,
                        max = self.max,
                        "an upstream message is over the limit"
                    );
                    let answer = too_large(&self.line, bytes, self.max);
                    self.line = Vec::new();
                    if answer.is_some() {
                        return answer;
                    }
                }
                LineRead::Line => {
                    let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                    let line = line.strip_suffix(b"\r").unwrap_or(line);
                    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line);
                    self.release_buffer();
                    match parsed {
                        Ok(message) => return Some(message),
                        // Like the other MCP SDKs: input that is not a message is skipped.
                        Err(e) => {
                            tracing::debug!(error = %e, "skipping an unreadable upstream line");
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.write.lock().await.take());
        let _ = self.child.start_kill();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_off_the_start_of_a_message() {
        assert_eq!(
            read_id(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"#),
            Some(serde_json::json!(7))
        );
        assert_eq!(
            read_id(br#"{"id": "req-1", "jsonrpc":"2.0","result":"#),
            Some(serde_json::json!("req-1"))
        );
        assert_eq!(read_id(br#"{"jsonrpc":"2.0","result":{"#), None);
        let answer = too_large(br#"{"jsonrpc":"2.0","id":3,"result":"#, 2_000, 1_000);
        assert!(answer.is_some());
    }
}
