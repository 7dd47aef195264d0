//! Positioned reads of a stored artifact, and the index lookups that find lines and chars.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use twox_hash::XxHash3_128;

use super::index::{IndexReader, Pos};
use super::sums::SumsReader;
use super::{ArtifactMeta, Store};
use crate::error::{Error, Result};
use crate::utf8;

const BLOCK: usize = 64 * 1024;
/// The largest checked span kept for the reads after it.
const CHECKED_MAX: usize = 4 << 20;

/// An open, readable artifact. Reads never load more than a window at a time.
pub struct ArtifactReader {
    meta: ArtifactMeta,
    path: PathBuf,
    file: nix::fcntl::Flock<File>,
    index: IndexReader,
    /// The sum of every chunk: each read checks the chunks it touches.
    sums: SumsReader,
    /// The last span read and checked, with where it starts: the reads of one answer (finding
    /// a line, then reading from it) often fall in the same chunks, which are read and hashed
    /// once per reader, not once per read.
    checked: std::sync::Mutex<Option<(u64, Vec<u8>)>>,
    /// For an artifact read through from the shared store: fetches chunks before reads.
    remote: Option<super::read_through::Filler>,
}

#[derive(Clone, Copy)]
enum Target {
    /// The start of the line after `n` newlines.
    Newlines(u64),
    Char(u64),
    /// The last unit boundary at or before this byte.
    Byte(u64),
}

impl ArtifactReader {
    pub(super) fn open(store: &Store, mut meta: ArtifactMeta) -> Result<Self> {
        meta.share_failure = store.share_failure(&meta.reference)?;
        let path = store.content_path(&meta.reference);
        let gone = |meta: &ArtifactMeta| {
            // Evicted or expired between reading its row and opening it: its row says so now.
            match store.meta(&meta.reference) {
                Ok(now) if now.state == crate::envelope::ArtifactState::Expired => {
                    super::rows::expired_error(&now)
                }
                _ => Error::Corrupt {
                    reference: meta.reference.clone(),
                    expected: format!("{} stored bytes", meta.bytes),
                    actual: "no content file".into(),
                },
            }
        };
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(gone(&meta)),
            Err(e) => return Err(Error::io(&path, e)),
        };
        // Held while the reader lives: eviction passes over content that is being read.
        let file = super::pin::shared(file).map_err(|e| Error::io(&path, e))?;
        let index = IndexReader::open(&store.index_path(&meta.reference))?;
        let sums = SumsReader::open(&store.sums_path(&meta.reference))?;
        let remote = store.filler(&meta)?;
        Ok(Self {
            meta,
            path,
            file,
            index,
            sums,
            checked: std::sync::Mutex::new(None),
            remote,
        })
    }

    pub fn meta(&self) -> &ArtifactMeta {
        &self.meta
    }

    /// Where the content lies on disk.
    pub(crate) fn content_path(&self) -> &std::path::Path {
        &self.path
    }

    pub fn size(&self) -> u64 {
        self.meta.bytes
    }

    /// Up to `len` bytes from `offset`, fewer at the end, each chunk they touch checked
    /// against its sum: `corrupt` rather than a changed byte.
    pub fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let len = len.min(self.size().saturating_sub(offset) as usize);
        if let Some(filler) = &self.remote {
            filler.ensure(offset..offset + len as u64)?;
        }
        let span = self
            .sums
            .span(offset, len as u64, self.size())
            .map_err(|e| Error::io(&self.path, e))?;
        let Some(span) = span else {
            return self.read_exact(offset, len);
        };
        if let Some(bytes) = self.already_checked(offset, len) {
            return Ok(bytes);
        }
        let whole = self.read_exact(span.start, (span.end - span.start) as usize)?;
        if let Some((from, to)) = span.mismatch(&whole) {
            return Err(Error::Corrupt {
                reference: self.meta.reference.clone(),
                expected: format!("bytes {from}..{to} as they were stored (by their chunk sum)"),
                actual: "other bytes on disk".into(),
            });
        }
        let skip = (offset - span.start) as usize;
        let out = whole[skip..skip + len].to_vec();
        if whole.len() <= CHECKED_MAX
            && let Ok(mut checked) = self.checked.lock()
        {
            *checked = Some((span.start, whole));
        }
        Ok(out)
    }

    /// `len` bytes from `offset` out of the span checked last, when it holds them.
    fn already_checked(&self, offset: u64, len: usize) -> Option<Vec<u8>> {
        let checked = self.checked.lock().ok()?;
        let (start, bytes) = checked.as_ref()?;
        let skip = offset.checked_sub(*start)? as usize;
        bytes.get(skip..skip + len).map(<[u8]>::to_vec)
    }

    fn read_exact(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.file.read_exact_at(&mut buf, offset).map_err(|e| {
            // Shorter on disk than its record says: the stored copy is damaged, not the
            // machine (regression: this answered `internal`).
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                let on_disk = self.file.metadata().map_or(0, |m| m.len());
                Error::Corrupt {
                    reference: self.meta.reference.clone(),
                    expected: format!("{} bytes", self.size()),
                    actual: format!("{on_disk} on disk"),
                }
            } else {
                Error::io(&self.path, e)
            }
        })?;
        Ok(buf)
    }

    /// Every chunk's sum, when all are known and the content is local and whole: the content
    /// can then be read in parts, each checking its own chunks ([`Self::checked_range`]).
    pub(crate) fn chunk_sums(&self) -> Result<Option<super::sums::ChunkSums>> {
        if self.remote.is_some() || self.meta.state != crate::envelope::ArtifactState::Complete {
            return Ok(None);
        }
        self.sums.whole(self.size()).map_err(|e| {
            let mut sums = self.path.clone().into_os_string();
            sums.push(".sum");
            Error::io(std::path::PathBuf::from(sums), e)
        })
    }

    /// A reader of `deliver` that checks the chunks of `check` against `sums` as it goes and
    /// answers `corrupt` rather than changed bytes.
    pub(crate) fn checked_range<'a>(
        &'a self,
        sums: &'a super::sums::ChunkSums,
        check: std::ops::Range<u64>,
        deliver: std::ops::Range<u64>,
    ) -> super::checked_range::CheckedRange<'a> {
        super::checked_range::CheckedRange::new(
            &self.file,
            &self.meta.reference,
            sums,
            check,
            deliver,
        )
    }

    /// A reader of the whole content that checks its hash at the end and answers `corrupt`
    /// rather than wrong bytes. The hash is computed on a second thread reading the same file,
    /// so checking costs no time on the reading one.
    pub fn verified_stream(&self) -> Result<VerifiedStream> {
        // The whole is read and hashed: a read-through copy fetches what it lacks first.
        if let Some(filler) = &self.remote {
            filler.ensure(0..self.size())?;
        }
        let file = self
            .file
            .try_clone()
            .map_err(|e| Error::io(&self.path, e))?;
        let hashing = self
            .file
            .try_clone()
            .map_err(|e| Error::io(&self.path, e))?;
        let size = self.size();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let limit = size;
        let stopped = std::sync::Arc::clone(&stop);
        let hasher = spool_walk::workers::spawn("verify", move || -> std::io::Result<String> {
            let mut h = XxHash3_128::new();
            let mut buf = vec![0u8; 1 << 20];
            let mut at = 0u64;
            while at < size && !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                let want = (size - at).min(buf.len() as u64) as usize;
                let n = hashing.read_at(&mut buf[..want], at)?;
                if n == 0 {
                    break;
                }
                h.write(&buf[..n]);
                at += n as u64;
            }
            Ok(format!("{:032x}", h.finish_128()))
        });
        let hasher = hasher.map_err(|e| Error::no_thread("checking a stored copy", &e))?;
        Ok(VerifiedStream {
            file,
            stop,
            hasher: Some(hasher),
            expected: self.meta.hash.clone(),
            reference: self.meta.reference.clone(),
            read: 0,
            size: limit,
        })
    }

    /// Checks bytes that are the whole content against the stored hash.
    pub fn check_whole(&self, bytes: &[u8]) -> Result<()> {
        let actual = format!("{:032x}", XxHash3_128::oneshot(bytes));
        match &self.meta.hash {
            Some(expected) if *expected != actual || bytes.len() as u64 != self.size() => {
                Err(Error::Corrupt {
                    reference: self.meta.reference.clone(),
                    expected: format!("content hash {expected}"),
                    actual: format!("content hash {actual}"),
                })
            }
            _ => Ok(()),
        }
    }

    /// Where 1-based line `line` starts; `lines + 1` is the end of the content.
    pub fn line_start(&self, line: u64) -> Result<Pos> {
        let newlines = line.saturating_sub(1);
        let from = self
            .index
            .last_where(|p, start| p.line < newlines || (p.line == newlines && start))?;
        self.advance(from, Target::Newlines(newlines))
    }

    /// The position of char offset `char` (0-based).
    pub fn pos_at_char(&self, char: u64) -> Result<Pos> {
        let from = self.index.last_where(|p, _| p.char <= char)?;
        self.advance(from, Target::Char(char))
    }

    /// The last unit boundary at or before `byte`.
    pub fn pos_at_byte(&self, byte: u64) -> Result<Pos> {
        let from = self.index.last_where(|p, _| p.byte <= byte)?;
        self.advance(from, Target::Byte(byte))
    }

    fn advance(&self, mut pos: Pos, target: Target) -> Result<Pos> {
        let size = self.size();
        loop {
            let want = match target {
                Target::Newlines(n) if pos.line >= n => return Ok(pos),
                Target::Char(c) if pos.char >= c => return Ok(pos),
                Target::Byte(b) if pos.byte >= b => return Ok(pos),
                Target::Byte(b) => (b - pos.byte).min(BLOCK as u64) as usize,
                _ => BLOCK,
            };
            if pos.byte >= size {
                return Ok(pos);
            }
            let block = self.read_at(pos.byte, want)?;
            let at_eof = pos.byte + block.len() as u64 >= size;
            let take = match target {
                Target::Newlines(n) => {
                    let need = (n - pos.line) as usize;
                    match memchr::memchr_iter(b'\n', &block).nth(need - 1) {
                        Some(i) => i + 1,
                        None if at_eof => block.len(),
                        None => block.len() - utf8::incomplete_tail_len(&block),
                    }
                }
                Target::Char(c) => utf8::take_chars(&block, c - pos.char, at_eof).0,
                Target::Byte(_) => {
                    let end_is_eof = pos.byte + block.len() as u64 >= size;
                    utf8::take_chars(&block, u64::MAX, end_is_eof).0
                }
            };
            if take == 0 {
                // Nothing more can be consumed (a split sequence at the very target): stop here.
                return Ok(pos);
            }
            let done = &block[..take];
            pos.byte += take as u64;
            pos.char += utf8::count_chars(done);
            pos.line += bytecount::count(done, b'\n') as u64;
        }
    }
}

/// The whole content as a `Read`, hash-checked when it reaches the end.
pub struct VerifiedStream {
    file: File,
    /// Tells the hashing thread to give up when the reader stops early.
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    hasher: Option<std::thread::JoinHandle<std::io::Result<String>>>,
    expected: Option<String>,
    reference: String,
    read: u64,
    /// The content's size: a read-through copy's file may hold more (a chunk that grew).
    size: u64,
}

impl std::io::Read for VerifiedStream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = (self.size - self.read.min(self.size)).min(buf.len() as u64) as usize;
        let n = self.file.read_at(&mut buf[..room], self.read)?;
        self.read += n as u64;
        if n == 0
            && !buf.is_empty()
            && let Some(hasher) = self.hasher.take()
        {
            let actual = hasher
                .join()
                .map_err(|_| std::io::Error::other("the hashing thread panicked"))??;
            if let Some(expected) = &self.expected
                && *expected != actual
            {
                return Err(std::io::Error::other(Error::Corrupt {
                    reference: self.reference.clone(),
                    expected: format!("content hash {expected}"),
                    actual: format!("content hash {actual}"),
                }));
            }
        }
        Ok(n)
    }
}

impl Drop for VerifiedStream {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}
