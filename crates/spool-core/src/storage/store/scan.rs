//! Counts bytes, lines and chars of content as it is written, and lays the line index and the
//! chunk sums.

use super::index::{BYTE_STRIDE, IndexWriter, Pos};
use super::sums::SumsWriter;
use crate::utf8::CharCounter;

/// Running totals of a byte stream, with index checkpoints emitted as it goes.
pub struct Scanner {
    index: IndexWriter,
    sums: SumsWriter,
    bytes: u64,
    newlines: u64,
    chars: CharCounter,
    last_byte: Option<u8>,
}

impl Scanner {
    pub fn new(index: IndexWriter, sums: SumsWriter) -> Self {
        Self {
            index,
            sums,
            bytes: 0,
            newlines: 0,
            chars: CharCounter::default(),
            last_byte: None,
        }
    }

    pub fn feed(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.sums.feed(buf)?;
        for piece in buf.chunks(BYTE_STRIDE as usize) {
            self.feed_piece(piece)?;
        }
        Ok(())
    }

    fn feed_piece(&mut self, buf: &[u8]) -> std::io::Result<()> {
        // One pass over the newlines: a checkpoint at every `LINE_STRIDE`-th line start.
        let mut from = 0;
        let mut seen = 0u64;
        let need = self.index.next_line_mark() - self.newlines;
        let mut next_mark = need;
        for nl in memchr::memchr_iter(b'\n', buf) {
            seen += 1;
            if seen == next_mark {
                self.count(&buf[from..=nl], seen);
                from = nl + 1;
                seen = 0;
                self.index.push(self.pos(), true)?;
                next_mark = self.index.next_line_mark() - self.newlines;
            }
        }
        self.count(&buf[from..], seen);
        if self.index.due_by_bytes(self.bytes) && self.chars.pending() == 0 {
            let at_start = self.last_byte == Some(b'\n');
            self.index.push(self.pos(), at_start)?;
        }
        Ok(())
    }

    /// Accounts for `piece`, which holds `newlines` newlines (already counted by the caller).
    fn count(&mut self, piece: &[u8], newlines: u64) {
        self.bytes += piece.len() as u64;
        self.newlines += newlines;
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

    /// Makes the checkpoints and sums so far readable from their files.
    pub fn flush_index(&mut self) -> std::io::Result<()> {
        self.index.flush()?;
        self.sums.flush()
    }

    pub fn finish(self) -> std::io::Result<()> {
        self.index.finish()?;
        self.sums.finish()
    }
}
