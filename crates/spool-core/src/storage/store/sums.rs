//! Chunk sums: the hash of every `STRIDE` bytes of an artifact's content (`content/REF.sum`),
//! so a window checks the bytes it touches, not only a whole read the whole hash.
//!
//! The file is an 8-byte stride, then one xxh3-64 per chunk in order (the last chunk may be
//! short). A slot of zero is unknown: a chunk not written yet, or not arrived yet in a
//! read-through copy. A read re-hashes every chunk it touches on every call (about 64 KiB
//! extra at each end, at memory speed) rather than trusting a check made earlier, so a byte
//! that changes on disk after the first read is caught by the next one.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use std::hash::Hasher as _;

use twox_hash::XxHash3_64;

use crate::error::{Error, Result};

/// Bytes per chunk sum in the local store.
pub const STRIDE: u64 = 64 * 1024;
const HEADER: u64 = 8;
const SLOT: u64 = 8;

/// A slot's value for `chunk`: never zero (zero is "unknown").
fn slot_value(chunk: &[u8]) -> u64 {
    XxHash3_64::oneshot(chunk).max(1)
}

/// Appends the sum of each chunk as the content is written.
pub struct SumsWriter {
    out: BufWriter<File>,
    hasher: XxHash3_64,
    /// Bytes of the current, unfinished chunk.
    filled: u64,
}

impl SumsWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let file = crate::store::create_private(path).map_err(|e| Error::io(path, e))?;
        let mut out = BufWriter::with_capacity(8 * 1024, file);
        out.write_all(&STRIDE.to_le_bytes())
            .map_err(|e| Error::io(path, e))?;
        Ok(Self {
            out,
            hasher: XxHash3_64::new(),
            filled: 0,
        })
    }

    pub fn feed(&mut self, mut buf: &[u8]) -> std::io::Result<()> {
        while !buf.is_empty() {
            let take = ((STRIDE - self.filled) as usize).min(buf.len());
            self.hasher.write(&buf[..take]);
            self.filled += take as u64;
            buf = &buf[take..];
            if self.filled == STRIDE {
                self.end_chunk()?;
            }
        }
        Ok(())
    }

    fn end_chunk(&mut self) -> std::io::Result<()> {
        let sum = self.hasher.finish().max(1);
        self.out.write_all(&sum.to_le_bytes())?;
        self.hasher = XxHash3_64::new();
        self.filled = 0;
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    /// Writes the short last chunk's sum and syncs.
    pub fn finish(mut self) -> std::io::Result<()> {
        if self.filled > 0 {
            self.end_chunk()?;
        }
        self.out.flush()?;
        self.out.get_ref().sync_data()
    }
}

/// Sums for a read-through copy: laid out empty (all unknown) at the size of the copy, filled
/// in as chunks arrive, each after its bytes were checked against the shared store's hash.
pub(crate) fn lay_out(path: &Path, size: u64, keep: bool) -> Result<()> {
    let want = HEADER + size.div_ceil(STRIDE) * SLOT;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(!keep)
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all_at(&STRIDE.to_le_bytes(), 0)
        .map_err(|e| Error::io(path, e))?;
    if file.metadata().map_err(|e| Error::io(path, e))?.len() < want {
        file.set_len(want).map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// Records the sums of the chunks that lie whole within `bytes`, which start at `at` (a
/// multiple of `STRIDE`) and, if `ends_content`, run to the end of the content.
pub(crate) fn record(path: &Path, at: u64, bytes: &[u8], ends_content: bool) -> Result<()> {
    if !at.is_multiple_of(STRIDE) {
        return Ok(());
    }
    let mut slots = Vec::with_capacity(bytes.len().div_ceil(STRIDE as usize) * SLOT as usize);
    for chunk in bytes.chunks(STRIDE as usize) {
        if chunk.len() as u64 == STRIDE || ends_content {
            slots.extend_from_slice(&slot_value(chunk).to_le_bytes());
        }
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all_at(&slots, HEADER + at / STRIDE * SLOT)
        .map_err(|e| Error::io(path, e))
}

/// Marks every chunk from `from` (a byte offset) on as unknown: a read-through copy's end that
/// will be fetched again.
pub(crate) fn forget_from(path: &Path, from: u64) -> Result<()> {
    let file = match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
    let start = HEADER + from / STRIDE * SLOT;
    if start < len {
        file.write_all_at(&vec![0u8; (len - start) as usize], start)
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// The sums of one artifact, read by positioned reads.
pub struct SumsReader {
    file: Option<File>,
    stride: u64,
}

/// What a read must check: the chunk-aligned span it touches and each chunk's sum.
pub struct Span {
    pub start: u64,
    pub end: u64,
    stride: u64,
    sums: Vec<u64>,
}

impl SumsReader {
    /// The sums at `path`; an artifact stored before they existed has none (and its windows
    /// are checked only when read whole).
    pub fn open(path: &Path) -> Result<Self> {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self {
                    file: None,
                    stride: STRIDE,
                });
            }
            Err(e) => return Err(Error::io(path, e)),
        };
        let mut header = [0u8; HEADER as usize];
        let stride = match file.read_exact_at(&mut header, 0) {
            Ok(()) => u64::from_le_bytes(header),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
            Err(e) => return Err(Error::io(path, e)),
        };
        if stride == 0 {
            // Cut short before its header was written: nothing to check against.
            return Ok(Self { file: None, stride });
        }
        Ok(Self {
            file: Some(file),
            stride,
        })
    }

    /// The span to read for `offset..offset + len` of content of `size` bytes, when any chunk
    /// it touches has a known sum.
    pub fn span(&self, offset: u64, len: u64, size: u64) -> std::io::Result<Option<Span>> {
        let Some(file) = &self.file else {
            return Ok(None);
        };
        let end = (offset + len).min(size);
        if len == 0 || offset >= end {
            return Ok(None);
        }
        let (first, last) = (offset / self.stride, (end - 1) / self.stride);
        let mut raw = vec![0u8; ((last - first + 1) * SLOT) as usize];
        let got = read_up_to(file, &mut raw, HEADER + first * SLOT)?;
        raw.truncate(got / SLOT as usize * SLOT as usize);
        let sums: Vec<u64> = raw
            .chunks_exact(SLOT as usize)
            .map(|s| u64::from_le_bytes(s.try_into().unwrap_or_default()))
            .collect();
        if sums.iter().all(|&s| s == 0) {
            return Ok(None);
        }
        Ok(Some(Span {
            start: first * self.stride,
            end: ((last + 1) * self.stride).min(size),
            stride: self.stride,
            sums,
        }))
    }
}

/// Every chunk's sum of one artifact, all known: what a read of the whole checks chunk by chunk.
pub struct ChunkSums {
    pub stride: u64,
    /// The content's size.
    pub size: u64,
    sums: Vec<u64>,
}

impl ChunkSums {
    /// The sum of the chunk that starts at `start`.
    pub fn sum_of_chunk_at(&self, start: u64) -> Option<u64> {
        self.sums.get((start / self.stride) as usize).copied()
    }
}

impl SumsReader {
    /// Every chunk's sum for content of `size` bytes, when every one is known (a complete
    /// local copy): `None` for a copy still arriving or stored before sums existed.
    pub fn whole(&self, size: u64) -> std::io::Result<Option<ChunkSums>> {
        let Some(span) = self.span(0, size, size)? else {
            return Ok(None);
        };
        let chunks = size.div_ceil(self.stride) as usize;
        if span.sums.len() != chunks || span.sums.contains(&0) {
            return Ok(None);
        }
        Ok(Some(ChunkSums {
            stride: self.stride,
            size,
            sums: span.sums,
        }))
    }
}

impl Span {
    /// Checks `bytes`, the content of this span: the first chunk whose sum differs, as
    /// (its first byte, its last byte + 1).
    pub fn mismatch(&self, bytes: &[u8]) -> Option<(u64, u64)> {
        for (i, chunk) in bytes.chunks(self.stride as usize).enumerate() {
            let Some(&want) = self.sums.get(i) else {
                break;
            };
            if want != 0 && slot_value(chunk) != want {
                let at = self.start + i as u64 * self.stride;
                return Some((at, at + chunk.len() as u64));
            }
        }
        None
    }
}

/// Reads as much of `buf` as the file holds from `at`.
fn read_up_to(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], at + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use std::hash::Hasher as _;

    use twox_hash::{XxHash3_64, XxHash3_128};

    /// Stored sums and hashes must not change with the hash's implementation (a change would
    /// make every stored artifact `corrupt`): values from the reference C implementation
    /// (python-xxhash 3.x), at sizes that take each of its code paths, hashed whole and fed in
    /// uneven pieces.
    #[test]
    fn hashes_match_the_reference_implementation() {
        let cases: [(usize, u64, &str); 7] = [
            (0, 0x2d06_8005_38d3_94c2, "99aa06d3014798d86001c324468d497f"),
            (3, 0x15f7_093b_173d_005c, "46f66cb93538156515f7093b173d005c"),
            (
                100,
                0x66ae_1527_78cb_c1c4,
                "aacc1d3c47a4615020d4a7247ef15e39",
            ),
            (
                240,
                0x22f2_8cbb_faf0_447f,
                "e29d70b8920fd24bc6ed4333f79384f8",
            ),
            (
                1000,
                0x84b0_c79e_3e1a_c40e,
                "e719034ed2c87a3684b0c79e3e1ac40e",
            ),
            (
                65536,
                0x804c_62b8_79e0_3431,
                "0906745d5eda3e1e804c62b879e03431",
            ),
            (
                200_000,
                0xddf8_fb63_842d_29a0,
                "c9cd8e093a3a1531ddf8fb63842d29a0",
            ),
        ];
        for (n, want64, want128) in cases {
            let data: Vec<u8> = (0..n).map(|i| ((i * 31 + 7) % 251) as u8).collect();
            assert_eq!(XxHash3_64::oneshot(&data), want64, "{n} bytes");
            assert_eq!(format!("{:032x}", XxHash3_128::oneshot(&data)), want128);
            let (mut h64, mut h128) = (XxHash3_64::new(), XxHash3_128::new());
            for piece in data.chunks(777) {
                h64.write(piece);
                h128.write(piece);
            }
            assert_eq!(h64.finish(), want64, "{n} bytes in pieces");
            assert_eq!(format!("{:032x}", h128.finish_128()), want128);
        }
    }
}
