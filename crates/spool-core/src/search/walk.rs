//! The files a directory search reads: ripgrep's walker with the search's globs and its hidden
//! rule, each file's size and modification time, and a digest of that list. The digest is the
//! version of a tree that is not a git repository, and, with the query, the key under which a
//! repeat of the same search of the same tree reuses the hit list it stored.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};

/// A file the walk found, not yet opened.
pub struct Candidate {
    pub path: PathBuf,
    /// Its path under the searched directory.
    pub rel: String,
    pub len: u64,
    /// Its place in the walk (a lossy `rel` of two non-UTF-8 names can be the same).
    pub index: usize,
}

/// What the walk found.
pub struct Walked {
    pub files: Vec<Candidate>,
    /// `sha256:` of every file's path, size and modification time, in walk order.
    pub digest: String,
}

/// What one walking thread found, handed to the shared list a few hundred at a time and the
/// rest when the thread ends.
struct Gathered<'a, T> {
    mine: Vec<T>,
    all: &'a std::sync::Mutex<Vec<T>>,
}

impl<'a, T> Gathered<'a, T> {
    fn new(all: &'a std::sync::Mutex<Vec<T>>) -> Self {
        Self {
            mine: Vec::new(),
            all,
        }
    }

    fn push(&mut self, item: T) {
        self.mine.push(item);
        if self.mine.len() >= 256 {
            self.hand_over();
        }
    }

    fn hand_over(&mut self) {
        self.all
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .append(&mut self.mine);
    }
}

impl<T> Drop for Gathered<'_, T> {
    fn drop(&mut self) {
        self.hand_over();
    }
}

/// The files under `dir` a search reads, in path order: `.gitignore` and the other ignore files
/// respected, globs applied, hidden files skipped unless `hidden`.
pub fn walk(dir: &Path, globs: &[String], hidden: bool) -> Result<Walked> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(dir);
    for g in globs {
        overrides.add(g).map_err(|e| {
            Error::invalid(
                format!("invalid glob `{g}`: {e}"),
                Some("for example `*.rs` or `!target/**`".to_owned()),
            )
        })?;
    }
    let overrides = overrides
        .build()
        .map_err(|e| Error::invalid(format!("invalid globs: {e}"), None))?;
    // Walked on every core, then put in path order (component by component, as a sorted
    // walk gives it): one thread walked a 20,000-file tree in 80 ms.
    let found = std::sync::Mutex::new(Vec::new());
    ignore::WalkBuilder::new(dir)
        .overrides(overrides)
        .hidden(!hidden)
        // Version-control metadata is never content, hidden files asked for or not.
        .filter_entry(|e| e.file_name() != ".git")
        .threads(crate::cores::threads(12))
        .build_parallel()
        .run(|| {
            let mut mine = Gathered::new(&found);
            Box::new(move |entry| {
                if let Ok(entry) = entry
                    && entry.file_type().is_some_and(|t| t.is_file())
                {
                    let (len, mtime) = entry.metadata().map_or((0, 0), |m| {
                        (m.len(), m.mtime_nsec() + m.mtime() * 1_000_000_000)
                    });
                    mine.push((entry.into_path(), len, mtime));
                }
                ignore::WalkState::Continue
            })
        });
    let mut found = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut files = Vec::with_capacity(found.len());
    let mut hasher = Sha256::new();
    for (path, len, mtime) in found {
        let rel = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update(len.to_le_bytes());
        hasher.update(mtime.to_le_bytes());
        files.push(Candidate {
            path,
            rel,
            len,
            index: files.len(),
        });
    }
    let digest = hasher
        .finalize()
        .iter()
        .take(16)
        .fold(String::from("sha256:"), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        });
    Ok(Walked { files, digest })
}

/// Every regular file under `dir` with the ignore rules off (`.git` left out), and how many of
/// them are hidden (a name on their path starts with `.`), if counted within `limit`.
pub fn count_all(dir: &Path, limit: Duration) -> Option<(u64, u64)> {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let started = Instant::now();
    let (all, hidden, late) = (AtomicU64::new(0), AtomicU64::new(0), AtomicBool::new(false));
    ignore::WalkBuilder::new(dir)
        .standard_filters(false)
        .filter_entry(|e| e.file_name() != ".git")
        .threads(crate::cores::threads(12))
        .build_parallel()
        .run(|| {
            let (all, hidden, late) = (&all, &hidden, &late);
            Box::new(move |entry| {
                if started.elapsed() > limit {
                    late.store(true, Ordering::Relaxed);
                    return ignore::WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    all.fetch_add(1, Ordering::Relaxed);
                    let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
                    if rel
                        .components()
                        .any(|c| c.as_os_str().as_encoded_bytes().starts_with(b"."))
                    {
                        hidden.fetch_add(1, Ordering::Relaxed);
                    }
                }
                ignore::WalkState::Continue
            })
        });
    (!late.into_inner()).then(|| (all.into_inner(), hidden.into_inner()))
}

/// What a search of a tree did with the files the walk found.
#[derive(Debug, Default)]
pub struct Counts {
    pub searched: u64,
    pub binary: u64,
    pub too_large: u64,
    /// Could not be opened or read (permissions, gone since the walk).
    pub unreadable: u64,
}

impl Counts {
    fn looked_at(&self) -> u64 {
        self.searched + self.binary + self.too_large + self.unreadable
    }

    /// One more file left out for `why`.
    pub(crate) fn count(&mut self, why: Skip) {
        match why {
            Skip::TooLarge => self.too_large += 1,
            Skip::Binary => self.binary += 1,
            Skip::Unreadable => self.unreadable += 1,
        }
    }
}

/// How much of each file is read first (a NUL in it makes the file binary). A head shorter
/// than this is the whole file.
pub(crate) const HEAD_BYTES: usize = 8192;

/// Opens walked files beneath their root, holding the last root open (the files of one walk
/// share it).
pub(crate) struct Opener<'r> {
    roots: &'r crate::roots::Roots,
    held: Option<(PathBuf, crate::beneath::HeldRoot)>,
}

impl<'r> Opener<'r> {
    pub(crate) fn new(roots: &'r crate::roots::Roots) -> Self {
        Self { roots, held: None }
    }

    fn open(&mut self, path: &Path) -> Option<std::fs::File> {
        let (root, rel) = self.roots.split(path).ok()?;
        if self.held.as_ref().is_none_or(|(held, _)| held != root) {
            self.held = Some((root.to_owned(), crate::beneath::HeldRoot::open(root).ok()?));
        }
        let (_, held) = self.held.as_ref()?;
        held.open_file(rel).ok()
    }
}

/// Opens a walked file beneath its root with its first 8 KiB, or says why it is left out:
/// larger than `max_bytes`, binary (a NUL in the first 8 KiB), or not openable.
pub(crate) fn open_candidate(
    file: &Candidate,
    roots: &mut Opener<'_>,
    max_bytes: u64,
) -> std::result::Result<(std::fs::File, Vec<u8>), Skip> {
    use std::os::unix::fs::FileExt as _;
    if file.len > max_bytes {
        return Err(Skip::TooLarge);
    }
    // Opened again beneath its root, not by name: a directory swapped for a symlink while
    // the walk runs cannot lead the search outside (see `beneath.rs`).
    let opened = roots.open(&file.path).ok_or(Skip::Unreadable)?;
    // Read at its offset: the file's position stays at 0 for its reader.
    let mut head = vec![0u8; HEAD_BYTES];
    let got = opened.read_at(&mut head, 0).unwrap_or(0);
    head.truncate(got);
    if memchr::memchr(0, &head).is_some() {
        return Err(Skip::Binary);
    }
    Ok((opened, head))
}

/// Why [`each_file`] left a file out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    TooLarge,
    Binary,
    /// Could not be opened (gone since the walk, permissions) or read.
    Unreadable,
}

/// Opens each walked file in path order, beneath its root, and hands it (with its first 8 KiB)
/// to `read`, which answers whether it read it whole: files larger than `max_bytes` and binary
/// ones (a NUL in the first 8 KiB) are counted and left out, and told to `skipped`. Stops once
/// `budget` has passed (after at least one file) and returns the last file looked at then; an
/// error of `read` ends the walk.
pub fn each_file(
    walked: &Walked,
    roots: &crate::roots::Roots,
    max_bytes: u64,
    budget: Duration,
    mut read: impl FnMut(&Candidate, &std::fs::File, &[u8]) -> Result<bool>,
    mut skipped: impl FnMut(&Candidate, Skip),
) -> Result<(Counts, Option<String>)> {
    let started = Instant::now();
    let mut n = Counts::default();
    let mut last_path = String::new();
    let mut beneath = Opener::new(roots);
    for file in &walked.files {
        if n.looked_at() > 0 && started.elapsed() >= budget {
            return Ok((n, Some(last_path)));
        }
        last_path.clone_from(&file.rel);
        let (opened, head) = match open_candidate(file, &mut beneath, max_bytes) {
            Ok(found) => found,
            Err(why) => {
                n.count(why);
                skipped(file, why);
                continue;
            }
        };
        if read(file, &opened, &head)? {
            n.searched += 1;
        } else {
            n.unreadable += 1;
            skipped(file, Skip::Unreadable);
        }
    }
    Ok((n, None))
}
