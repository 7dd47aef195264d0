//! The line index: checkpoints that map lines and chars to byte offsets without a scan.
//!
//! A checkpoint is written at the start of every `LINE_STRIDE`-th line and, inside long lines,
//! at the first unit boundary after every `BYTE_STRIDE` bytes. A lookup binary-searches the
//! checkpoints (positioned reads, nothing loaded) and scans forward at most one stride.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::error::{Error, Result};

pub const LINE_STRIDE: u64 = 256;
pub const BYTE_STRIDE: u64 = 64 * 1024;
const RECORD: usize = 32;

/// A position in an artifact, on a unit boundary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    pub byte: u64,
    pub char: u64,
    /// Newlines before `byte`: the 0-based number of the line that holds `byte`.
    pub line: u64,
}

impl Pos {
    fn encode(self, at_line_start: bool) -> [u8; RECORD] {
        let mut out = [0u8; RECORD];
        out[0..8].copy_from_slice(&self.byte.to_le_bytes());
        out[8..16].copy_from_slice(&self.char.to_le_bytes());
        out[16..24].copy_from_slice(&self.line.to_le_bytes());
        out[24] = u8::from(at_line_start);
        out
    }

    fn decode(rec: &[u8; RECORD]) -> (Self, bool) {
        let word = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&rec[i..i + 8]);
            u64::from_le_bytes(b)
        };
        (
            Self {
                byte: word(0),
                char: word(8),
                line: word(16),
            },
            rec[24] == 1,
        )
    }
}

/// Appends checkpoints while an artifact is written.
pub struct IndexWriter {
    out: BufWriter<File>,
    last_byte: u64,
    next_line_mark: u64,
}

impl IndexWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let file = crate::store::create_private(path).map_err(|e| Error::io(path, e))?;
        Ok(Self {
            out: BufWriter::with_capacity(64 * 1024, file),
            last_byte: 0,
            next_line_mark: LINE_STRIDE,
        })
    }

    /// Line number (newline count) at which the next line-start checkpoint is due.
    pub fn next_line_mark(&self) -> u64 {
        self.next_line_mark
    }

    pub fn due_by_bytes(&self, byte: u64) -> bool {
        byte >= self.last_byte + BYTE_STRIDE
    }

    pub fn push(&mut self, pos: Pos, at_line_start: bool) -> std::io::Result<()> {
        if at_line_start {
            self.next_line_mark = pos.line + LINE_STRIDE;
        }
        self.last_byte = pos.byte;
        self.out.write_all(&pos.encode(at_line_start))
    }

    /// Writes buffered checkpoints to the file, so another reader of it sees them.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_data()
    }
}

/// The length of the prefix of an index file (as read while it may still be written) whose
/// checkpoints lie within the first `bytes` bytes of content: whole records only.
pub fn prefix_within(index: &[u8], bytes: u64) -> usize {
    let whole = index.len() / RECORD * RECORD;
    let mut keep = 0;
    while keep < whole {
        let mut word = [0u8; 8];
        word.copy_from_slice(&index[keep..keep + 8]);
        if u64::from_le_bytes(word) > bytes {
            break;
        }
        keep += RECORD;
    }
    keep
}

/// Reads checkpoints by binary search with positioned reads.
pub struct IndexReader {
    file: Option<File>,
    records: u64,
}

impl IndexReader {
    pub fn open(path: &Path) -> Result<Self> {
        match File::open(path) {
            Ok(file) => {
                let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
                Ok(Self {
                    file: Some(file),
                    records: len / RECORD as u64,
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self {
                file: None,
                records: 0,
            }),
            Err(e) => Err(Error::io(path, e)),
        }
    }

    fn record(&self, i: u64) -> Result<(Pos, bool)> {
        let mut rec = [0u8; RECORD];
        if let Some(file) = &self.file {
            file.read_exact_at(&mut rec, i * RECORD as u64)
                .map_err(|e| Error::io("<line index>", e))?;
        }
        Ok(Pos::decode(&rec))
    }

    /// The last checkpoint for which `before(pos, at_line_start)` holds (the start, if none).
    /// `before` must be true for a prefix of the checkpoints and false after.
    pub fn last_where(&self, before: impl Fn(Pos, bool) -> bool) -> Result<Pos> {
        let (mut lo, mut hi) = (0u64, self.records);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (pos, start) = self.record(mid)?;
            if before(pos, start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == 0 {
            Ok(Pos::default())
        } else {
            Ok(self.record(lo - 1)?.0)
        }
    }
}
