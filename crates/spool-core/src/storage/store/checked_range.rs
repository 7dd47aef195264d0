//! A `Read` of one byte range of an artifact that checks every chunk it owns against its chunk
//! sum as the bytes pass: the parts of a search spread over threads each check their own share
//! of the content from bytes already in cache, instead of a second thread reading it all again.

use std::fs::File;
use std::os::unix::fs::FileExt;

use std::hash::Hasher as _;

use twox_hash::XxHash3_64;

use super::sums::ChunkSums;
use crate::error::Error;

/// Bytes read and checked but not delivered (before the range's first line) per read.
const SCRATCH: usize = 256 * 1024;

/// Delivers `deliver` of the content and checks the chunks of `check` (chunk-aligned, ending
/// at a chunk boundary or the content's end); the two overlap but need not match: a part owns
/// whole chunks, its lines start and end where newlines are.
pub struct CheckedRange<'a> {
    file: &'a File,
    reference: &'a str,
    sums: &'a ChunkSums,
    /// The next byte to check, and where checking ends.
    checked_to: u64,
    check_end: u64,
    /// The next byte to deliver, and where delivery ends.
    pos: u64,
    deliver_end: u64,
    hasher: XxHash3_64,
    /// Bytes of the current chunk fed to the hasher.
    filled: u64,
}

impl<'a> CheckedRange<'a> {
    pub(crate) fn new(
        file: &'a File,
        reference: &'a str,
        sums: &'a ChunkSums,
        check: std::ops::Range<u64>,
        deliver: std::ops::Range<u64>,
    ) -> Self {
        Self {
            file,
            reference,
            sums,
            checked_to: check.start,
            check_end: check.end,
            pos: deliver.start,
            deliver_end: deliver.end.max(deliver.start),
            hasher: XxHash3_64::new(),
            filled: 0,
        }
    }

    /// Feeds `bytes`, which start at `at`, to the chunk checks: the part of them this range
    /// checks and has not checked yet.
    fn check(&mut self, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        let end = at + bytes.len() as u64;
        if at > self.checked_to || end <= self.checked_to {
            return Ok(());
        }
        let from = (self.checked_to - at) as usize;
        let to = (end.min(self.check_end) - at) as usize;
        let mut rest = &bytes[from..to.max(from)];
        while !rest.is_empty() {
            let take = ((self.sums.stride - self.filled) as usize).min(rest.len());
            self.hasher.write(&rest[..take]);
            self.filled += take as u64;
            self.checked_to += take as u64;
            rest = &rest[take..];
            if self.filled == self.sums.stride || self.checked_to == self.sums.size {
                self.end_chunk()?;
            }
        }
        Ok(())
    }

    fn end_chunk(&mut self) -> std::io::Result<()> {
        let start = self.checked_to - self.filled;
        let want = self.sums.sum_of_chunk_at(start);
        let actual = self.hasher.finish().max(1);
        self.hasher = XxHash3_64::new();
        self.filled = 0;
        match want {
            Some(want) if want != actual => Err(std::io::Error::other(Error::Corrupt {
                reference: self.reference.to_owned(),
                expected: format!(
                    "bytes {start}..{} as they were stored (by their chunk sum)",
                    self.checked_to
                ),
                actual: "other bytes on disk".into(),
            })),
            _ => Ok(()),
        }
    }

    /// Reads at `at` into `buf`; reaching the file's end before the content's is a damaged copy.
    fn read_at(&self, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
        loop {
            match self.file.read_at(buf, at) {
                Ok(0) if !buf.is_empty() => {
                    return Err(std::io::Error::other(Error::Corrupt {
                        reference: self.reference.to_owned(),
                        expected: format!("{} bytes", self.sums.size),
                        actual: format!("{at} on disk"),
                    }));
                }
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Checks what is left of the range's chunks up to `until` without delivering it.
    fn check_through(&mut self, until: u64) -> std::io::Result<()> {
        let until = until.min(self.check_end);
        let mut scratch = Vec::new();
        while self.checked_to < until {
            if scratch.is_empty() {
                scratch = vec![0u8; SCRATCH];
            }
            let want = ((until - self.checked_to) as usize).min(SCRATCH);
            let at = self.checked_to;
            let n = self.read_at(&mut scratch[..want], at)?;
            let bytes = std::mem::take(&mut scratch);
            let checked = self.check(at, &bytes[..n]);
            scratch = bytes;
            checked?;
        }
        Ok(())
    }
}

impl std::io::Read for CheckedRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // The chunks before the first delivered byte (the end of the line the part before
        // this one owns) are this range's to check too.
        self.check_through(self.pos)?;
        if self.pos >= self.deliver_end || buf.is_empty() {
            self.check_through(self.check_end)?;
            return Ok(0);
        }
        let want = ((self.deliver_end - self.pos) as usize).min(buf.len());
        let at = self.pos;
        let n = self.read_at(&mut buf[..want], at)?;
        self.check(at, &buf[..n])?;
        self.pos += n as u64;
        Ok(n)
    }
}
