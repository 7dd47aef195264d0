//! The files a directory search reads: ripgrep's walker's rules (see [`crate::ignore_rules`]) with the
//! search's globs and its hidden rule, applied by a walk of our own (`walk/gather.rs`), each
//! file's size and modification time (looked at by the walk, or learnt when the search opens
//! the file), and a digest of that list. The digest is the version of a tree that
//! is not a git repository, and, with the query, the key under which a repeat of the same
//! search of the same tree reuses the hit list it stored.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::error::{Result, WalkError};
use crate::left_out::LeftOut;

mod gather;

pub use gather::check_globs;
use gather::{Rules, gather};

/// A file the walk found, not yet opened.
pub struct Candidate {
    pub path: PathBuf,
    /// Its path under the searched directory.
    pub rel: String,
    /// Its size as the walk found it; `None` when the walk did not look (a search learns it
    /// when it opens the file).
    pub len: Option<u64>,
    /// Its place in the walk (a lossy `rel` of two non-UTF-8 names can be the same).
    pub index: usize,
}

/// Which files of a directory a search reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter<'a> {
    /// Only files matching these globs (`!` excludes).
    pub globs: &'a [String],
    /// Hidden files too (`.gitignore`d files stay out, unless `no_ignore`).
    pub hidden: bool,
    /// The ignore files (`.gitignore`, `.ignore`, `info/exclude`, the user's excludes) are not
    /// applied: ignored files are read too (hidden ones still only with `hidden`).
    pub no_ignore: bool,
}

impl Filter<'_> {
    /// The rules a walk applies for this filter.
    fn rules(&self, stat: bool) -> Rules<'_> {
        Rules {
            globs: self.globs,
            skip_hidden: !self.hidden,
            ignore_files: !self.no_ignore,
            stat,
        }
    }
}

/// What the walk found.
pub struct Walked {
    pub files: Vec<Candidate>,
    /// `sha256:` of every file's path, size and modification time, in walk order; empty when
    /// the walk did not look at them (see [`digest_of`]).
    pub digest: String,
    /// What the walk left out, for the survey that counts it by why (the files outside the
    /// globs are known only to the walk that applied them); taken by the first survey.
    pub left: Option<LeftOut>,
    /// A file changed within two seconds of the walk (see [`crate::git::SeenStat::racy`]): its
    /// stat cannot vouch for a later look, so what is stored of this walk is not reused.
    pub racy: bool,
}

/// Whether any file was seen changed within two seconds of `since_ms` (unix ms, taken before
/// the files were looked at).
pub fn any_racy(seen: &[Option<Seen>], since_ms: i64) -> bool {
    seen.iter()
        .flatten()
        .any(|s| s.racy(since_ms.saturating_mul(1_000_000)))
}

impl Walked {
    /// A list of files with their digest, made by hand (a part of another walk's files).
    pub fn new(files: Vec<Candidate>, digest: String) -> Self {
        Self {
            files,
            digest,
            left: None,
            racy: false,
        }
    }
}

/// A file's size, times and inode, as a version digest states them and git's check compares
/// them.
pub use crate::git::SeenStat as Seen;

/// The files under `dir` a search reads, in path order, each with its size and modification
/// time: `.gitignore` and the other ignore files respected, globs applied, hidden files
/// skipped unless `hidden`.
pub fn walk(dir: &Path, globs: &[String], hidden: bool) -> Result<Walked> {
    walk_filtered(
        dir,
        &Filter {
            globs,
            hidden,
            no_ignore: false,
        },
    )
}

/// The files under `dir` that `filter` lets through, in path order, each with its size and
/// modification time.
pub fn walk_filtered(dir: &Path, filter: &Filter<'_>) -> Result<Walked> {
    let since = now_ms();
    let (found, left) = gather(dir, &filter.rules(true), &|| |_: &Candidate| ())?;
    let digest = digest_of(&found.files, &found.seen);
    Ok(Walked {
        racy: any_racy(&found.seen, since),
        files: found.files,
        digest,
        left: Some(left),
    })
}

/// The same files without a `stat` of each, each handed to a visitor (one per walking thread,
/// made by `visitor`) as the walk finds it: a search reads files while the walk goes on, and
/// learns size and time when it opens them (it then finds the digest with [`digest_of`]).
/// What the visitor made of each file is returned beside it, in path order, and what the
/// survey needs of what the walk left out.
pub fn walk_visiting<P, V>(
    dir: &Path,
    filter: &Filter<'_>,
    visitor: &(impl Fn() -> V + Sync),
) -> Result<(Walked, Vec<P>, LeftOut)>
where
    P: Send,
    V: FnMut(&Candidate) -> P + Send,
{
    let (found, left) = gather(dir, &filter.rules(false), visitor)?;
    let walked = Walked {
        files: found.files,
        digest: String::new(),
        left: None,
        racy: false,
    };
    Ok((walked, found.visited, left))
}

/// The version digest of `files` from what was seen of each (`None`: not seen, counted as
/// size 0 and time 0), the same as [`walk`] finds for the same sizes and times.
pub fn digest_of(files: &[Candidate], seen: &[Option<Seen>]) -> String {
    let mut digest = Digest::default();
    for (file, s) in files.iter().zip(seen) {
        digest.add(file, *s);
    }
    digest.finish()
}

/// A version digest built a file at a time, in walk order.
#[derive(Default)]
struct Digest {
    sha: Sha256,
    /// What is hashed next, hashed a few KiB at a time: four small updates for each file, each
    /// with its own call and buffering, took three times as long as the hashing (5 ms for a
    /// 20,000-file repository).
    pending: Vec<u8>,
}

impl Digest {
    /// Bytes gathered before they are hashed.
    const PENDING: usize = 16 << 10;

    fn add(&mut self, file: &Candidate, seen: Option<Seen>) {
        let s = seen.unwrap_or_default();
        self.pending.extend_from_slice(file.rel.as_bytes());
        self.pending.push(0);
        self.pending.extend_from_slice(&s.len.to_le_bytes());
        self.pending.extend_from_slice(&s.mtime_ns.to_le_bytes());
        // A rewrite with its size and mtime put back has a new change time; a file replaced
        // by another, a new inode: the same search of it is not the stored one.
        self.pending.extend_from_slice(&s.ctime_ns.to_le_bytes());
        self.pending.extend_from_slice(&s.ino.to_le_bytes());
        if self.pending.len() >= Self::PENDING {
            self.sha.update(&self.pending);
            self.pending.clear();
        }
    }

    fn finish(mut self) -> String {
        self.sha.update(&self.pending);
        crate::hex::hex("sha256:", &self.sha.finalize()[..16])
    }
}

/// What a search of a tree did with the files the walk found.
#[derive(Debug, Default)]
pub struct Counts {
    pub searched: u64,
    pub binary: u64,
    pub too_large: u64,
    /// Read, but holding a line longer than a search holds at once.
    pub long_lines: u64,
    /// Could not be opened or read (permissions, gone since the walk).
    pub unreadable: u64,
    /// The first [`Counts::NAMED`] files left out, by path under the walked directory, and
    /// why: a search that found nothing names them, with the search of each alone.
    pub named: Vec<(String, Skip)>,
}

impl Counts {
    /// The most files left out that are named.
    pub const NAMED: usize = 5;

    fn looked_at(&self) -> u64 {
        self.searched + self.binary + self.too_large + self.long_lines + self.unreadable
    }

    /// One more file left out for `why`.
    pub fn count(&mut self, why: Skip) {
        match why {
            Skip::TooLarge => self.too_large += 1,
            Skip::Binary => self.binary += 1,
            Skip::LongLines => self.long_lines += 1,
            Skip::Unreadable => self.unreadable += 1,
        }
    }

    /// One more file left out for `why`, named when it is among the first.
    pub fn count_file(&mut self, rel: &str, why: Skip) {
        self.count(why);
        if self.named.len() < Self::NAMED {
            self.named.push((rel.to_owned(), why));
        }
    }
}

/// How much of each file is read first (a NUL in it makes the file binary). A head shorter
/// than this is the whole file.
pub const HEAD_BYTES: usize = 8192;

/// Opens walked files beneath their root, holding the last root open (the files of one walk
/// share it).
pub struct Opener<'r> {
    roots: &'r crate::roots::Roots,
    held: Option<(PathBuf, crate::confined::HeldRoot)>,
    /// A head buffer given back, used for the next file (not allocated and zeroed per file).
    spare: Vec<u8>,
}

impl<'r> Opener<'r> {
    pub fn new(roots: &'r crate::roots::Roots) -> Self {
        Self {
            roots,
            held: None,
            spare: Vec::new(),
        }
    }

    fn open(&mut self, path: &Path) -> Option<(std::fs::File, std::fs::Metadata)> {
        let (root, rel) = self.roots.split(path).ok()?;
        if self.held.as_ref().is_none_or(|(held, _)| held != root) {
            self.held = Some((root.to_owned(), crate::confined::HeldRoot::open(root).ok()?));
        }
        let (_, held) = self.held.as_ref()?;
        held.open_walked(rel).ok()
    }
}

/// A file read from a position on, by positioned reads (the file's own position is left as
/// it is).
pub struct ReadFrom<'f> {
    pub file: &'f std::fs::File,
    pub at: u64,
}

impl std::io::Read for ReadFrom<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// A walked file open for reading, with its first 8 KiB and its size and time.
pub struct Opened {
    pub file: std::fs::File,
    /// `HEAD_BYTES` long; the file's first `head_len` bytes.
    buf: Vec<u8>,
    head_len: usize,
    pub seen: Seen,
}

impl Opened {
    /// The file's first bytes (all of it when shorter than `HEAD_BYTES`).
    pub fn head(&self) -> &[u8] {
        &self.buf[..self.head_len]
    }

    /// Closes the file and gives its head buffer back to `opener` for the next file.
    pub fn done(self, opener: &mut Opener<'_>) {
        opener.spare = self.buf;
    }
}

/// Opens a walked file beneath its root with its first 8 KiB, or says why it is left out:
/// larger than `max_bytes`, binary (a NUL in the first 8 KiB), or not openable; with its size
/// and time when they could be found.
pub fn open_candidate(
    file: &Candidate,
    roots: &mut Opener<'_>,
    max_bytes: u64,
) -> std::result::Result<Opened, (Skip, Option<Seen>)> {
    use std::os::unix::fs::FileExt as _;
    if file.len.is_some_and(|len| len > max_bytes) {
        return Err((Skip::TooLarge, None));
    }
    // Opened again beneath its root, not by name: a directory swapped for a symlink while
    // the walk runs cannot lead the search outside (see `beneath.rs`).
    let Some((opened, meta)) = roots.open(&file.path) else {
        // Its size and time for the version digest, as a walk that looks finds them.
        let seen = std::fs::symlink_metadata(&file.path)
            .ok()
            .map(|m| Seen::of(&m));
        return Err((Skip::Unreadable, seen));
    };
    let seen = Seen::of(&meta);
    if seen.len > max_bytes {
        return Err((Skip::TooLarge, Some(seen)));
    }
    // Read at its offset: the file's position stays at 0 for its reader.
    let mut buf = std::mem::take(&mut roots.spare);
    buf.resize(HEAD_BYTES, 0);
    let Ok(got) = opened.read_at(&mut buf, 0) else {
        // Not read: left out as unreadable, not searched as if empty.
        roots.spare = buf;
        return Err((Skip::Unreadable, Some(seen)));
    };
    if memchr::memchr(0, &buf[..got]).is_some() {
        roots.spare = buf;
        return Err((Skip::Binary, Some(seen)));
    }
    Ok(Opened {
        file: opened,
        buf,
        head_len: got,
        seen,
    })
}

/// Why [`each_file`] left a file out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    TooLarge,
    Binary,
    /// Read, but a line of it is longer than a search holds at once.
    LongLines,
    /// Could not be opened (gone since the walk, permissions) or read.
    Unreadable,
}

impl Skip {
    /// Why, in words: `binary`, `too large`, `a line too long`, `unreadable`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TooLarge => "too large",
            Self::Binary => "binary",
            Self::LongLines => "a line too long",
            Self::Unreadable => "unreadable",
        }
    }
}

/// Opens each walked file in path order, beneath its root, and hands it (with its first 8 KiB)
/// to `read`, which answers whether it read it whole: files larger than `max_bytes` and binary
/// ones (a NUL in the first 8 KiB) are counted and left out, and told to `skipped`. Stops once
/// `budget` has passed (after at least one file) and returns the last file looked at then; an
/// error of `read` ends the walk.
pub fn each_file<E: From<WalkError>>(
    walked: &Walked,
    roots: &crate::roots::Roots,
    max_bytes: u64,
    budget: Duration,
    mut read: impl FnMut(&Candidate, &std::fs::File, &[u8]) -> Result<bool, E>,
    mut skipped: impl FnMut(&Candidate, Skip),
) -> Result<(Counts, Option<String>), E> {
    let started = Instant::now();
    let mut n = Counts::default();
    let mut last_path = String::new();
    let mut beneath = Opener::new(roots);
    for file in &walked.files {
        if n.looked_at() > 0 && started.elapsed() >= budget {
            return Ok((n, Some(last_path)));
        }
        last_path.clone_from(&file.rel);
        let opened = match open_candidate(file, &mut beneath, max_bytes) {
            Ok(opened) => opened,
            Err((why, _)) => {
                n.count_file(&file.rel, why);
                skipped(file, why);
                continue;
            }
        };
        let whole = read(file, &opened.file, opened.head())?;
        opened.done(&mut beneath);
        if whole {
            n.searched += 1;
        } else {
            n.count_file(&file.rel, Skip::Unreadable);
            skipped(file, Skip::Unreadable);
        }
    }
    Ok((n, None))
}

/// Now, in Unix milliseconds (a clock before 1970 reads 0).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
