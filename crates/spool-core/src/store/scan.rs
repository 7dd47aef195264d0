//! Counts bytes, lines and chars of content as it is written, and lays the line index.

use super::index::{BYTE_STRIDE, IndexWriter, Pos};
use crate::utf8::CharCounter;

/// Running totals of a byte stream, with index checkpoints emitted as it goes.
pub struct Scanner {
    index: IndexWriter,
    bytes: u64,
    newlines: u64,
    chars: CharCounter,
    last_byte: Option<u8>,
}

impl Scanner {
    pub fn new(index: IndexWriter) -> Self {
        Self {
            index,
            bytes: 0,
            newlines: 0,
            chars: CharCounter::default(),
            last_byte: None,
        }
    }

    pub fn feed(&mut self, buf: &[u8]) -> std::io::Result<()> {
        for piece in buf.chunks(BYTE_STRIDE as usize) {
            self.feed_piece(piece)?;
        }
        Ok(())
    }

    fn feed_piece(&mut self, mut buf: &[u8]) -> std::io::Result<()> {
        while !buf.is_empty() {
            let need = self.index.next_line_mark() - self.newlines;
            let cut = nth_newline_end(buf, need);
            let (piece, rest) = buf.split_at(cut.unwrap_or(buf.len()));
            self.count(piece);
            if cut.is_some() {
                self.index.push(self.pos(), true)?;
            }
            buf = rest;
        }
        if self.index.due_by_bytes(self.bytes) && self.chars.pending() == 0 {
            let at_start = self.last_byte == Some(b'\n');
            self.index.push(self.pos(), at_start)?;
        }
        Ok(())
    }

    fn count(&mut self, piece: &[u8]) {
        self.bytes += piece.len() as u64;
        self.newlines += bytecount::count(piece, b'\n') as u64;
        self.chars.feed(piece);
        if let Some(&b) = piece.last() {
            self.last_byte = Some(b);
        }
    }

    fn pos(&self) -> Pos {
        Pos {
            byte: self.bytes - self.chars.pending() as u64,
            char: self.chars.chars(),
            line: self.newlines,
        }
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Lines so far: newlines, plus one for a last line without a final newline.
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'))
    }

    pub fn chars(&self) -> u64 {
        self.chars.finish()
    }

    pub fn finish(self) -> std::io::Result<()> {
        self.index.finish()
    }
}

/// Index just past the `n`-th newline in `buf` (n >= 1), if `buf` holds that many.
fn nth_newline_end(buf: &[u8], n: u64) -> Option<usize> {
    if (bytecount::count(buf, b'\n') as u64) < n {
        return None;
    }
    memchr::memchr_iter(b'\n', buf)
        .nth((n - 1) as usize)
        .map(|i| i + 1)
}
